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
#include <unistd.h>

#include <cmocka.h>

#include <accel/accel.h>

/* The backend, the variable that names its sim, and how the backend writes
 * a vendor code in its sentences. */
#define SIM_BACKEND     "npu"
#define SIM_LIBRARY_ENV "ACCEL_NPU_LIBRARY"
#define SIM_CODE_FORMAT "aclError %d"
#include "common/sim_fault_driver.h"

/* Codes injected: a runtime internal error (DEVICE_ERROR) and, for
 * allocations, the runtime's out-of-memory code. */
#define ACL_INTERNAL 507000
#define ACL_MEMORY   207001

/* ---------------------------------------------------------------- lifecycle */

/* Runs first: aclInit is tried again by the next backend, as the real
 * runtime allows after a failed attempt. Opening counts devices; each new
 * backend sets the device on its first call on a thread. */
static void test_init_faults(void **state)
{
    static const char *const init[] = {"aclInit", "aclrtGetDeviceCount", "aclrtGetVersion", NULL};
    (void)state;
    sim_fault_check_init(init, ACL_INTERNAL);
    sim_fault_check_open_refused("aclrtGetDeviceCount", ACL_INTERNAL);
    sim_fault_check_first_use("aclrtSetDevice", ACL_INTERNAL);
}

/* A NULL SoC name is no error: the name says so and bf16 is off. */
static void test_soc_name_missing(void **state)
{
    accel_t *acc;
    accel_device_properties_t props = {.struct_size = sizeof props};
    bool bf16 = true;
    (void)state;
    acc = sim_fault_open();
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
    static const sim_fault_site_t sites[] = {
        {"aclrtSynchronizeDevice", sim_op_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {"aclrtGetDeviceInfo", sim_op_device_properties, ACCEL_ERROR_DEVICE_ERROR},
        {"aclrtGetMemInfo", sim_op_available_memory, ACCEL_ERROR_DEVICE_ERROR},
        {NULL},
    };
    sim_fault_fixture_t fx = {.acc = sim_fault_open_ready(), .code = ACL_INTERNAL};
    (void)state;
    sim_fault_run(&fx, sites);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

/* The memory sites every runtime has (sim_fault_check.h). */
static const sim_memory_sites_t memory_sites = {
    .codes = {ACL_INTERNAL, ACL_MEMORY},
    .device = {"aclrtMalloc", "aclrtFree"},
    .pinned = {"aclrtMallocHost", "aclrtFreeHost"},
    .registered = {"aclrtHostRegisterV2", "aclrtHostUnregister"},
    .h2d_fns = {"aclrtSynchronizeStream", "aclrtMemcpy"}, /* from pageable memory */
    .memset_fn = "aclrtMemsetAsync",
};

/* Random fills: staging, the event that tracks it, the copy, the record. */
/* Whether the sim in use exports `name`: ctest runs this test on the
 * current sim (host functions, Ex events) and on "v7" (report threads,
 * WithFlag events), whose call sites differ. */
static bool sim_exports(const char *name)
{
    void *library = dlopen(getenv(SIM_LIBRARY_ENV), RTLD_NOW | RTLD_NOLOAD);
    bool found;
    assert_non_null(library);
    found = dlsym(library, name) != NULL;
    dlclose(library);
    return found;
}

static void test_rng_faults(void **state)
{
    /* core's fill fallback makes its event through the backend's event
     * slot: an Ex event where the sim exports the call */
    const char *sites[] = {"aclrtMallocHost", "aclrtCreateEventWithFlag", "aclrtMemcpyAsync",
                           "aclrtRecordEvent", NULL};
    accel_t *acc = sim_fault_open_ready();
    (void)state;
    if (sim_exports("aclrtCreateEventExWithFlag"))
        sites[1] = "aclrtCreateEventExWithFlag";
    check_rng_fill_sites(acc, sites, ACL_INTERNAL);
    check_close_with_fill_in_flight(acc, "aclrtSynchronizeEvent", ACL_INTERNAL);
}

/* ---------------------------------------------------------------- streams and events */

/* The subscription's undo fails while a subscribed stream is destroyed:
 * logged, and the stream still goes. */
static accel_status_t destroy_subscribed_stream(sim_fault_fixture_t *fx)
{
    accel_stream_t *stream = NULL;
    assert_int_equal(accel_stream_create(fx->acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(stream, count_callback, NULL), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    return accel_stream_destroy(stream);
}

static void test_stream_faults(void **state)
{
    bool host_func = sim_exports("aclrtLaunchHostFunc");
    const sim_stream_sites_t streams = {
        .stream = {"aclrtCreateStream", "aclrtSynchronizeStream", "aclrtStreamQuery"},
        .event = {sim_exports("aclrtCreateEventExWithFlag") ? "aclrtCreateEventExWithFlag"
                                                            : "aclrtCreateEventWithFlag",
                  "aclrtRecordEvent", "aclrtSynchronizeEvent", "aclrtQueryEventStatus",
                  "aclrtEventElapsedTime"},
        .stream_wait_event = "aclrtStreamWaitEvent",
    };
    static const sim_fault_site_t host_func_sites[] = {
        /* callbacks: the runtime runs host functions itself */
        {"aclrtLaunchHostFunc", sim_op_add_callback, ACCEL_ERROR_DEVICE_ERROR},
        {"aclrtDestroyEvent", sim_op_event_destroy, ACCEL_OK},
        {"aclrtDestroyStream", sim_op_stream_destroy, ACCEL_OK},
        {NULL},
    };
    static const sim_fault_site_t sites[] = {
        /* callbacks: the subscription (on the stream's first), the launch */
        {"aclrtSubscribeReport", sim_op_add_callback, ACCEL_ERROR_DEVICE_ERROR},
        {"aclrtLaunchCallback", sim_op_add_callback, ACCEL_ERROR_DEVICE_ERROR},
        /* destroys that fail are logged; nothing leaks on our side */
        {"aclrtUnSubscribeReport", destroy_subscribed_stream, ACCEL_OK,
         .then = "aclrtDestroyStream"},
        {"aclrtDestroyEvent", sim_op_event_destroy, ACCEL_OK},
        {"aclrtDestroyStream", sim_op_stream_destroy, ACCEL_OK},
        {NULL},
    };
    sim_fault_fixture_t fx = {.acc = sim_fault_open_ready(), .code = ACL_INTERNAL};
    (void)state;
    sim_fault_fixture_open(&fx);
    sim_fault_check_streams(&fx, &streams);
    sim_fault_run(&fx, host_func ? host_func_sites : sites);
    assert_int_equal(accel_stream_synchronize(fx.stream), ACCEL_OK);

    /* the report thread's wait fails: it tries again, and the callback runs */
    if (!host_func) {
        int runs = __atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST);
        unsigned long before = sim_calls("aclrtProcessReport");
        fail_every("aclrtProcessReport", ACL_INTERNAL);
        assert_int_equal(accel_stream_add_callback(fx.stream, count_callback, NULL), ACCEL_OK);
        while (sim_calls("aclrtProcessReport") < before + 2)
            usleep(1000);
        clear_faults();
        assert_int_equal(accel_stream_synchronize(fx.stream), ACCEL_OK);
        assert_int_equal(__atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST), runs + 1);
    }
    sim_fault_fixture_close(&fx);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- fork */

/* After aclInit, a forked child gets a clear refusal from every call and
 * the sim sees no call from it. */
static void test_fork_refused(void **state)
{
    (void)state;
    sim_fault_check_fork_refused("aclrtMalloc", ACCEL_ERROR_DEVICE_ERROR, NULL);
}

/* The vendor calls behind every wait, each failed once and twice in a row
 * under in-flight work (FAULT_SYNC_TEST, sim_fault_driver.h). */
static const sim_sync_sites_t sync_sites = {
    .code = ACL_INTERNAL,
    .device = "aclrtSynchronizeDevice",
    .stream = "aclrtSynchronizeStream",
    .event = "aclrtSynchronizeEvent",
    .pageable = "aclrtSynchronizeStream",
};

int main(void)
{
    const struct CMUnitTest tests[] = {
        FAULT_TEST(test_init_faults),   FAULT_TEST(test_soc_name_missing),
        FAULT_TEST(test_device_faults), FAULT_MEMORY_TEST(&memory_sites),
        FAULT_TEST(test_rng_faults),    FAULT_TEST(test_stream_faults),
        FAULT_SYNC_TEST(&sync_sites),   FAULT_TEST(test_fork_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
