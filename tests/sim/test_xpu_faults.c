/* test_xpu_faults.c: every Level Zero call site of the xpu backend made to
 * fail, one at a time, on the real loader with the simulated driver
 * (ZE_ENABLE_ALT_DRIVERS and ACCEL_SIM_DRIVER, set by ctest). For each: the
 * driver's call count proves the site was reached; a call that returns a
 * status gives the expected status and a last-error sentence naming the
 * Level Zero function and the injected ze_result_t; then, with the fault
 * cleared, the same operation works again. Slots that return nothing
 * (frees, destroys) and the callback thread must survive the fault. The
 * ASan build runs this under LeakSanitizer, so a path that leaks on failure
 * fails the test. zeInit fails for the whole process (the loader keeps its
 * result, and so does the backend), so its fault runs in a child forked
 * before any Level Zero call. The driver's control functions are reached with
 * dlsym on the library the loader loaded (RTLD_NOLOAD). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
#define SIM_CODE_FORMAT "ze_result_t 0x%x"
#include "common/sim_fault_check.h"

/* Codes injected: the device was lost (DEVICE_ERROR) and, for allocations,
 * out of device memory. */
#define ZE_LOST      0x70000001
#define ZE_NO_MEMORY 0x70000003

static accel_t *open_xpu(void)
{
    accel_t *acc = NULL;
    assert_int_equal(accel_open("xpu", &acc), ACCEL_OK);
    sim_bind("ACCEL_SIM_DRIVER");
    return acc;
}

/* Initialised: any device-touching call runs init. */
static accel_t *open_ready(void)
{
    accel_t *acc = open_xpu();
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK);
    return acc;
}

/* ---------------------------------------------------------------- zeInit */

/* Runs in a child forked before this process touches Level Zero. */
static int zeinit_child(void)
{
    accel_t *acc = NULL;
    accel_status_t status;
    char spec[64];
    snprintf(spec, sizeof spec, "zeInit:*:%d", ZE_LOST);
    setenv("ACCEL_SIM_FAIL", spec, 1);
    status = accel_open("xpu", &acc);
    if (status == ACCEL_OK || strstr(accel_last_error(), "zeInit") == NULL ||
        strstr(accel_last_error(), "0x70000001") == NULL) {
        fprintf(stderr, "zeInit child: %s, \"%s\"\n", accel_status_name(status),
                accel_last_error());
        return 1;
    }
    return 0;
}

static void test_zeinit_fault(void **state)
{
    pid_t child;
    int status = 0;
    (void)state;
    assert_null(sim_fault_set); /* nothing loaded the driver yet */
    child = fork();
    assert_true(child >= 0);
    if (child == 0)
        _exit(zeinit_child());
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---------------------------------------------------------------- open and init */

static void test_open_faults(void **state)
{
    accel_t *acc = NULL, *first;
    static const char *const sites[] = {"zeDriverGet", "zeDeviceGet"};
    (void)state;
    first = open_ready();
    for (size_t i = 0; i < 2; i++) {
        fail_every(sites[i], ZE_LOST);
        assert_int_not_equal(accel_open("xpu", &acc), ACCEL_OK);
        assert_true(sim_names_failure(sites[i], ZE_LOST));
        clear_faults();
        acc = open_ready();
        assert_int_equal(accel_close(acc), ACCEL_OK);
    }
    assert_int_equal(accel_close(first), ACCEL_OK);
}

/* A failed init stays failed for that accelerator (core keeps it); the next
 * one initialises. */
static void test_init_faults(void **state)
{
    static const char *const sites[] = {
        "zeDriverGetProperties",
        "zeDeviceGetProperties",
        "zeDeviceGetMemoryProperties",
        "zeDeviceGetCommandQueueGroupProperties",
        "zeContextCreate",
        "zeCommandListCreateImmediate",
    };
    (void)state;
    for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++) {
        accel_t *acc = open_xpu();
        unsigned long before = sim_calls(sites[i]);
        fail_every(sites[i], ZE_LOST);
        expect_failure_text(accel_synchronize(acc, 0), ACCEL_ERROR_DEVICE_ERROR, sites[i], ZE_LOST);
        clear_faults();
        assert_true(sim_calls(sites[i]) > before);
        assert_int_equal(accel_close(acc), ACCEL_OK);
        acc = open_ready();
        assert_int_equal(accel_close(acc), ACCEL_OK);
    }
    {
        /* the context cannot be destroyed: logged, closing still works */
        accel_t *acc = open_ready();
        fail_every("zeContextDestroy", ZE_LOST);
        assert_int_equal(accel_close(acc), ACCEL_OK);
        clear_faults();
        assert_true(sim_calls("zeContextDestroy") > 0);
    }
}

/* ---------------------------------------------------------------- memory */

static void test_memory_faults(void **state)
{
    static const char *const h2d[] = {"zeCommandListAppendBarrier", "zeCommandListAppendMemoryCopy",
                                      NULL};
    static const sim_memory_sites_t sites = {
        .code = ZE_LOST,
        .malloc_fn = "zeMemAllocDevice",
        .oom_code = ZE_NO_MEMORY,
        .h2d_fns = h2d,
        .memset_fn = "zeCommandListAppendMemoryFill",
        .free_fn = "zeMemFree",
        .host_alloc_fn = "zeMemAllocHost",
        .host_free_fn = "zeMemFree",
        .host_register_fn = NULL, /* Level Zero cannot pin an existing range */
    };
    accel_t *acc = open_ready();
    (void)state;
    check_memory_sites(acc, &sites);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* A cached segment returned to the runtime (here by the out-of-memory
 * retry) while the device cannot be waited for may still be used by queued
 * work: it is left to the runtime (no zeMemFree), where it was freed anyway
 * before (issue 28 G2's class). */
static void test_free_after_failed_sync_keeps_memory(void **state)
{
    accel_t *acc = open_ready();
    void *device = NULL;
    unsigned long frees, waits;
    char spec[128];
    (void)state;
    assert_int_equal(accel_malloc(acc, 1 << 20, &device), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK); /* cached */
    frees = sim_calls("zeMemFree");
    waits = sim_calls("zeEventHostSynchronize");
    snprintf(spec, sizeof spec, "zeMemAllocDevice:1:%d,zeEventHostSynchronize:*:%d", ZE_NO_MEMORY,
             ZE_LOST);
    assert_int_equal(sim_fault_set(spec), 0);
    assert_int_equal(accel_malloc(acc, 4 << 20, &device), ACCEL_OK); /* retried */
    assert_true(sim_calls("zeEventHostSynchronize") > waits);
    assert_int_equal(sim_calls("zeMemFree"), frees);
    clear_faults();
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* Random fills: staging, its event, the barrier and the copy. */
static void test_rng_faults(void **state)
{
    static const char *const sites[] = {"zeMemAllocHost",
                                        "zeEventPoolCreate",
                                        "zeEventCreate",
                                        "zeCommandListAppendBarrier",
                                        "zeCommandListAppendMemoryCopy",
                                        NULL};
    accel_t *acc = open_ready();
    void *device = NULL;
    (void)state;
    check_rng_fill_sites(acc, sites, ZE_LOST);
    /* a staging buffer whose event will not tell: waited for at close */
    assert_int_equal(accel_malloc(acc, 256, &device), ACCEL_OK);
    CHECK_SURVIVES("zeEventQueryStatus", ZE_LOST, accel_rng_u32(acc, device, 64, NULL));
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    check_close_with_fill_in_flight(acc, "zeEventHostSynchronize", ZE_LOST);
}

/* ---------------------------------------------------------------- streams and events */

static void test_stream_faults(void **state)
{
    accel_t *acc = open_ready();
    accel_stream_t *stream = NULL, *other = NULL;
    accel_event_t *start = NULL, *end = NULL;
    float ms = 0;
    (void)state;
    CHECK_SITE("zeCommandListCreateImmediate", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_create(acc, 0, 0, &stream));
    CHECK_SITE("zeCommandListAppendSignalEvent", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_synchronize(stream));
    CHECK_SITE("zeEventHostSynchronize", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_synchronize(stream));
    CHECK_SITE("zeEventPoolCreate", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_event_create(acc, 0, ACCEL_EVENT_TIMING, &start));
    CHECK_SITE("zeEventCreate", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_event_create(acc, 0, ACCEL_EVENT_TIMING, &end));
    CHECK_SITE("zeCommandListAppendSignalEvent", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_event_record(start, stream));
    /* a second record resets the event on the stream first */
    assert_int_equal(accel_event_record(end, stream), ACCEL_OK);
    CHECK_SITE("zeCommandListAppendEventReset", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_event_record(end, stream));
    CHECK_SITE("zeEventHostSynchronize", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_event_synchronize(end));
    CHECK_SITE("zeEventQueryStatus", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR, accel_event_query(end));
    CHECK_SITE("zeEventQueryKernelTimestamp", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_event_elapsed_ms(start, end, &ms));
    CHECK_SITE("zeCommandListAppendWaitOnEvents", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_wait_event(stream, end));
    /* a query after new work appends a marker and asks it */
    assert_int_equal(accel_event_record(end, stream), ACCEL_OK);
    fail_every("zeCommandListAppendSignalEvent", ZE_LOST);
    expect_failure(accel_stream_query(stream), ACCEL_ERROR_DEVICE_ERROR,
                   "zeCommandListAppendSignalEvent", ZE_LOST);
    clear_faults();
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    assert_int_equal(accel_event_record(end, stream), ACCEL_OK);
    CHECK_SURVIVES("zeEventHostReset", ZE_LOST, accel_stream_synchronize(stream));

    /* callbacks: the two events, the signal, the wait, the host signal */
    assert_int_equal(accel_stream_create(acc, 0, 0, &other), ACCEL_OK);
    CHECK_SITE("zeEventPoolCreate", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_add_callback(other, count_callback, NULL));
    CHECK_SITE("zeCommandListAppendSignalEvent", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_add_callback(other, count_callback, NULL));
    CHECK_SITE("zeCommandListAppendWaitOnEvents", ZE_LOST, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_add_callback(other, count_callback, NULL));
    assert_int_equal(accel_stream_synchronize(other), ACCEL_OK);
    {
        char spec[64];
        int runs = __atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST);
        unsigned long before = sim_calls("zeEventHostSignal");
        snprintf(spec, sizeof spec, "zeEventHostSignal:1:%d", ZE_LOST); /* tried again */
        assert_int_equal(sim_fault_set(spec), 0);
        assert_int_equal(accel_stream_add_callback(other, count_callback, NULL), ACCEL_OK);
        assert_int_equal(accel_stream_synchronize(other), ACCEL_OK);
        clear_faults();
        assert_true(sim_calls("zeEventHostSignal") >= before + 2);
        assert_int_equal(__atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST), runs + 1);
    }

    /* destroys that fail are logged; nothing leaks on our side */
    CHECK_SURVIVES("zeEventDestroy", ZE_LOST, accel_event_destroy(start));
    CHECK_SURVIVES("zeEventPoolDestroy", ZE_LOST, accel_event_destroy(end));
    CHECK_SURVIVES("zeCommandListDestroy", ZE_LOST, accel_stream_destroy(other));
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- fork */

/* After zeInit, a forked child gets a clear refusal from every call and the
 * driver sees no call from it. */
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
        unsigned long before = sim_calls("zeMemAllocDevice");
        accel_status_t result = accel_malloc(acc, 8 << 20, &device);
        bool ok = result != ACCEL_OK && strstr(accel_last_error(), "forked child") != NULL &&
                  sim_calls("zeMemAllocDevice") == before;
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
        FAULT_TEST(test_zeinit_fault),
        FAULT_TEST(test_open_faults),
        FAULT_TEST(test_init_faults),
        FAULT_TEST(test_memory_faults),
        FAULT_TEST(test_free_after_failed_sync_keeps_memory),
        FAULT_TEST(test_rng_faults),
        FAULT_TEST(test_stream_faults),
        FAULT_TEST(test_fork_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
