/* test_npu_faults.c: every ACL call site of the npu backend made to fail on
 * the simulated libascendcl (ACCEL_NPU_LIBRARY, set by ctest), one at a
 * time. For each: the sim's call count proves the site was reached; a call
 * that returns a status gives the expected status and a last-error sentence
 * naming the ACL function and the injected aclError; then, with the fault
 * cleared, the same operation works again, as it would on the real runtime.
 * Slots that return nothing (frees, destroys) must survive the fault. The
 * ASan build runs this under LeakSanitizer, so a path that leaks on failure
 * fails the test. The sim's control functions are reached with dlsym on the
 * already-loaded library (RTLD_NOLOAD). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <accel/accel.h>

/* How the backend writes a vendor code in its sentences. */
#define SIM_CODE_FORMAT "aclError %d"
#include "common/sim_fault_check.h"

/* Codes injected: a runtime internal error (DEVICE_ERROR) and, for
 * allocations, the runtime's out-of-memory code. */
#define ACL_INTERNAL 507000
#define ACL_MEMORY   207001

static accel_t *open_npu(void)
{
    accel_t *acc = NULL;
    assert_int_equal(accel_open("npu", &acc), ACCEL_OK);
    sim_bind("ACCEL_NPU_LIBRARY");
    return acc;
}

/* Initialised (any device-touching call runs init) and device 0 active. */
static accel_t *open_ready(void)
{
    accel_t *acc = open_npu();
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK);
    return acc;
}

/* ---------------------------------------------------------------- lifecycle */

/* Runs first: aclInit is tried again by the next backend, as the real
 * runtime allows after a failed attempt. */
static void test_init_faults(void **state)
{
    accel_t *acc;
    (void)state;
    acc = open_npu();
    fail_every("aclInit", ACL_INTERNAL);
    expect_failure_text(accel_synchronize(acc, 0), ACCEL_ERROR_DEVICE_ERROR, "aclInit",
                        ACL_INTERNAL);
    clear_faults();
    assert_int_equal(accel_close(acc), ACCEL_OK);

    acc = open_npu();
    fail_every("aclrtGetDeviceCount", ACL_INTERNAL);
    expect_failure_text(accel_synchronize(acc, 0), ACCEL_ERROR_DEVICE_ERROR, "aclrtGetDeviceCount",
                        ACL_INTERNAL);
    clear_faults();
    assert_int_equal(accel_close(acc), ACCEL_OK);

    acc = open_npu();
    fail_every("aclrtGetVersion", ACL_INTERNAL);
    expect_failure_text(accel_synchronize(acc, 0), ACCEL_ERROR_DEVICE_ERROR, "aclrtGetVersion",
                        ACL_INTERNAL);
    clear_faults();
    assert_int_equal(accel_close(acc), ACCEL_OK);

    acc = open_ready();
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

static void test_open_faults(void **state)
{
    accel_t *acc = NULL, *first;
    (void)state;
    first = open_ready();
    fail_every("aclrtGetDeviceCount", ACL_INTERNAL);
    assert_int_not_equal(accel_open("npu", &acc), ACCEL_OK);
    assert_non_null(strstr(accel_last_error(), "aclrtGetDeviceCount"));
    assert_non_null(strstr(accel_last_error(), "aclError 507000"));
    clear_faults();
    acc = open_ready();
    assert_int_equal(accel_close(acc), ACCEL_OK);
    assert_int_equal(accel_close(first), ACCEL_OK);
}

/* Each new backend sets the device on its first call on a thread. */
static void test_set_device_fault(void **state)
{
    accel_t *acc;
    (void)state;
    acc = open_npu();
    fail_every("aclrtSetDevice", ACL_INTERNAL);
    expect_failure(accel_synchronize(acc, 0), ACCEL_ERROR_DEVICE_ERROR, "aclrtSetDevice",
                   ACL_INTERNAL);
    clear_faults();
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* A NULL SoC name is no error: the name says so and bf16 is off. */
static void test_soc_name_missing(void **state)
{
    accel_t *acc;
    accel_device_properties_t props = {.struct_size = sizeof props};
    bool bf16 = true;
    (void)state;
    acc = open_npu();
    fail_every("aclrtGetSocName", 1);
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK);
    clear_faults();
    assert_int_equal(accel_device_properties(acc, 0, &props), ACCEL_OK);
    assert_non_null(strstr(props.name, "SoC unknown"));
    assert_int_equal(accel_query_flag(acc, ACCEL_FLAG_BF16_SUPPORTED, &bf16), ACCEL_OK);
    assert_false(bf16);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- devices and memory */

static void test_device_faults(void **state)
{
    accel_t *acc = open_ready();
    accel_device_properties_t props = {.struct_size = sizeof props};
    uint64_t available = 0;
    (void)state;
    CHECK_SITE("aclrtSynchronizeDevice", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_synchronize(acc, 0));
    CHECK_SITE("aclrtGetDeviceInfo", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_device_properties(acc, 0, &props));
    CHECK_SITE("aclrtGetMemInfo", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_available_memory(acc, 0, &available));
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

static void test_memory_faults(void **state)
{
    static const char *const h2d[] = {"aclrtMemcpyAsync", NULL};
    static const sim_memory_sites_t sites = {
        .code = ACL_INTERNAL,
        .malloc_fn = "aclrtMalloc",
        .oom_code = ACL_MEMORY,
        .h2d_fns = h2d,
        .memset_fn = "aclrtMemsetAsync",
        .free_fn = "aclrtFree",
        .host_alloc_fn = "aclrtMallocHost",
        .host_free_fn = "aclrtFreeHost",
        .host_register_fn = "aclrtHostRegister",
        .host_unregister_fn = "aclrtHostUnregister",
    };
    accel_t *acc = open_ready();
    (void)state;
    check_memory_sites(acc, &sites);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* Random fills: staging, the event that tracks it, the copy, the record. */
static void test_rng_faults(void **state)
{
    static const char *const sites[] = {"aclrtMallocHost", "aclrtCreateEventWithFlag",
                                        "aclrtMemcpyAsync", "aclrtRecordEvent", NULL};
    accel_t *acc = open_ready();
    (void)state;
    check_rng_fill_sites(acc, sites, ACL_INTERNAL);
    check_close_with_fill_in_flight(acc, "aclrtSynchronizeEvent", ACL_INTERNAL);
}

/* ---------------------------------------------------------------- streams and events */

static void test_stream_faults(void **state)
{
    accel_t *acc = open_ready();
    accel_stream_t *stream = NULL, *other = NULL;
    accel_event_t *start = NULL, *end = NULL;
    float ms = 0;
    (void)state;
    CHECK_SITE("aclrtCreateStream", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_create(acc, 0, 0, &stream));
    CHECK_SITE("aclrtSynchronizeStream", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_synchronize(stream));
    CHECK_SITE("aclrtStreamQuery", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_query(stream));
    CHECK_SITE("aclrtCreateEventWithFlag", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_event_create(acc, 0, ACCEL_EVENT_TIMING, &start));
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_TIMING, &end), ACCEL_OK);
    CHECK_SITE("aclrtRecordEvent", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_event_record(start, stream));
    assert_int_equal(accel_event_record(end, stream), ACCEL_OK);
    CHECK_SITE("aclrtSynchronizeEvent", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_event_synchronize(end));
    CHECK_SITE("aclrtQueryEventStatus", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_event_query(end));
    CHECK_SITE("aclrtEventElapsedTime", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_event_elapsed_ms(start, end, &ms));
    CHECK_SITE("aclrtStreamWaitEvent", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_wait_event(stream, end));

    /* callbacks: the subscription, the launch, then the report thread */
    assert_int_equal(accel_stream_create(acc, 0, 0, &other), ACCEL_OK);
    CHECK_SITE("aclrtSubscribeReport", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_add_callback(other, count_callback, NULL));
    CHECK_SITE("aclrtLaunchCallback", ACL_INTERNAL, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_add_callback(other, count_callback, NULL));
    assert_int_equal(accel_stream_synchronize(other), ACCEL_OK);
    {
        int runs = __atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST);
        unsigned long before = sim_calls("aclrtProcessReport");
        fail_every("aclrtProcessReport", ACL_INTERNAL);
        assert_int_equal(accel_stream_add_callback(other, count_callback, NULL), ACCEL_OK);
        while (sim_calls("aclrtProcessReport") < before + 2)
            usleep(1000);
        clear_faults();
        assert_int_equal(accel_stream_synchronize(other), ACCEL_OK);
        assert_int_equal(__atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST), runs + 1);
    }

    /* destroys that fail are logged; nothing leaks on our side */
    {
        unsigned long unsubscribed = sim_calls("aclrtUnSubscribeReport");
        unsigned long destroyed = sim_calls("aclrtDestroyStream");
        fail_every("aclrtUnSubscribeReport", ACL_INTERNAL);
        assert_int_equal(accel_stream_destroy(other), ACCEL_OK);
        fail_every("aclrtDestroyEvent", ACL_INTERNAL);
        assert_int_equal(accel_event_destroy(start), ACCEL_OK);
        clear_faults();
        assert_true(sim_calls("aclrtUnSubscribeReport") > unsubscribed);
        assert_true(sim_calls("aclrtDestroyStream") > destroyed);
    }
    {
        unsigned long destroyed = sim_calls("aclrtDestroyStream");
        fail_every("aclrtDestroyStream", ACL_INTERNAL);
        assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
        clear_faults();
        assert_true(sim_calls("aclrtDestroyStream") > destroyed);
    }
    assert_int_equal(accel_event_destroy(end), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- fork */

/* After aclInit, a forked child gets a clear refusal from every call and
 * the sim sees no call from it. */
static void test_fork_refused(void **state)
{
    accel_t *acc = open_ready();
    void *device = NULL;
    pid_t child;
    int status = 0;
    (void)state;
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        unsigned long before = sim_calls("aclrtMalloc");
        accel_status_t result = accel_malloc(acc, 8 << 20, &device);
        bool ok = result == ACCEL_ERROR_DEVICE_ERROR &&
                  strstr(accel_last_error(), "forked child") != NULL &&
                  sim_calls("aclrtMalloc") == before;
        if (!ok)
            fprintf(stderr, "child: status %s, \"%s\"\n", accel_status_name(result),
                    accel_last_error());
        _exit(ok ? 0 : 1);
    }
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(accel_malloc(acc, 8 << 20, &device), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* A failed check leaves its fault set: clear it for the next test. */
static int clear_after(void **state)
{
    (void)state;
    if (sim_fault_set != NULL)
        sim_fault_set(NULL);
    return 0;
}

#define FAULT_TEST(f) cmocka_unit_test_teardown(f, clear_after)

int main(void)
{
    const struct CMUnitTest tests[] = {
        FAULT_TEST(test_init_faults),      FAULT_TEST(test_open_faults),
        FAULT_TEST(test_set_device_fault), FAULT_TEST(test_soc_name_missing),
        FAULT_TEST(test_device_faults),    FAULT_TEST(test_memory_faults),
        FAULT_TEST(test_rng_faults),       FAULT_TEST(test_stream_faults),
        FAULT_TEST(test_fork_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
