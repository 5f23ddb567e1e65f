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

/* The backend, the variable that names its sim (the driver the loader
 * loads), and how the backend writes a vendor code in its sentences. */
#define SIM_BACKEND     "xpu"
#define SIM_LIBRARY_ENV "ACCEL_SIM_DRIVER"
#define SIM_CODE_FORMAT "ze_result_t 0x%x"
#include "common/sim_fault_driver.h"

/* Codes injected: the device was lost (DEVICE_ERROR) and, for allocations,
 * out of device memory. */
#define ZE_LOST      0x70000001
#define ZE_NO_MEMORY 0x70000003

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

/* The context cannot be destroyed: logged, closing still works. */
static accel_status_t close_ready(sim_fault_fixture_t *fx)
{
    (void)fx;
    return accel_close(sim_fault_open_ready());
}

/* Opening counts drivers and devices: a failure refuses the open. A failed
 * init stays failed for that accelerator (core keeps it); the next one
 * initialises. */
static void test_init_faults(void **state)
{
    static const char *const init[] = {"zeDriverGetProperties",
                                       "zeDriverGetApiVersion",
                                       "zeDeviceGetMemoryProperties",
                                       "zeDeviceGetCommandQueueGroupProperties",
                                       "zeContextCreate",
                                       "zeCommandListCreateImmediate",
                                       NULL};
    static const sim_fault_site_t close_sites[] = {
        {"zeContextDestroy", close_ready, ACCEL_OK},
        {NULL},
    };
    sim_fault_fixture_t fx = {.code = ZE_LOST};
    (void)state;
    sim_fault_check_open_refused("zeDriverGet", ZE_LOST);
    sim_fault_check_open_refused("zeDeviceGet", ZE_LOST);
    /* the device type (GPU only) is read when the devices are counted */
    sim_fault_check_open_refused("zeDeviceGetProperties", ZE_LOST);
    sim_fault_check_init(init, ZE_LOST);
    sim_fault_run(&fx, close_sites);
}

/* ---------------------------------------------------------------- memory */

/* The memory sites every runtime has (sim_fault_check.h). */
static const sim_memory_sites_t memory_sites = {
    .codes = {ZE_LOST, ZE_NO_MEMORY},
    .device = {"zeMemAllocDevice", "zeMemFree"},
    .pinned = {"zeMemAllocHost", "zeMemFree"},
    /* registered: Level Zero cannot pin an existing range */
    .h2d_fns = {"zeCommandListAppendBarrier", "zeCommandListAppendMemoryCopy"},
    .memset_fn = "zeCommandListAppendMemoryFill",
};

/* A cached segment returned to the runtime (here by the out-of-memory
 * retry) while the device cannot be waited for may still be used by queued
 * work: it is left to the runtime (no zeMemFree), where it was freed anyway
 * before (issue 28 G2's class). */
static void test_free_after_failed_sync_keeps_memory(void **state)
{
    accel_t *acc = sim_fault_open_ready();
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
    accel_t *acc = sim_fault_open_ready();
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

/* A record, then the synchronize that resets the stream's marker. */
static accel_status_t synchronize_after_record(sim_fault_fixture_t *fx)
{
    assert_int_equal(accel_event_record(fx->end, fx->stream), ACCEL_OK);
    return accel_stream_synchronize(fx->stream);
}

static accel_status_t destroy_end(sim_fault_fixture_t *fx)
{
    accel_status_t status = accel_event_destroy(fx->end);
    assert_int_equal(accel_event_create(fx->acc, 0, ACCEL_EVENT_TIMING, &fx->end), ACCEL_OK);
    return status;
}

static void test_stream_faults(void **state)
{
    static const sim_stream_sites_t streams = {
        .stream = {"zeCommandListCreateImmediate", "zeCommandListAppendBarrier"},
        .event = {"zeEventPoolCreate", "zeCommandListAppendBarrier", "zeEventHostSynchronize",
                  "zeEventQueryStatus", "zeEventQueryKernelTimestamp"},
        .stream_wait_event = "zeCommandListAppendWaitOnEvents",
    };
    static const sim_fault_site_t sites[] = {
        /* the stream's marker is waited for; an event is made in its pool;
         * a second record resets the event on the stream first */
        {"zeEventHostSynchronize", sim_op_stream_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {"zeEventCreate", sim_op_event_create, ACCEL_ERROR_DEVICE_ERROR},
        {"zeCommandListAppendEventReset", sim_op_event_record, ACCEL_ERROR_DEVICE_ERROR},
        {"zeEventHostReset", synchronize_after_record, ACCEL_OK},
        /* callbacks: the two events, the barrier, the wait */
        {"zeEventPoolCreate", sim_op_add_callback, ACCEL_ERROR_DEVICE_ERROR},
        {"zeCommandListAppendBarrier", sim_op_add_callback, ACCEL_ERROR_DEVICE_ERROR},
        {"zeCommandListAppendWaitOnEvents", sim_op_add_callback, ACCEL_ERROR_DEVICE_ERROR},
        /* destroys that fail are logged; nothing leaks on our side */
        {"zeEventDestroy", sim_op_event_destroy, ACCEL_OK},
        {"zeEventPoolDestroy", destroy_end, ACCEL_OK},
        {"zeCommandListDestroy", sim_op_stream_destroy, ACCEL_OK},
        {NULL},
    };
    sim_fault_fixture_t fx = {.acc = sim_fault_open_ready(), .code = ZE_LOST};
    (void)state;
    sim_fault_fixture_open(&fx);
    sim_fault_check_streams(&fx, &streams);
    sim_fault_run(&fx, sites);
    /* a query after new work appends a marker and asks it */
    assert_int_equal(accel_event_record(fx.end, fx.stream), ACCEL_OK);
    fail_every("zeCommandListAppendBarrier", ZE_LOST);
    expect_failure(accel_stream_query(fx.stream), ACCEL_ERROR_DEVICE_ERROR,
                   "zeCommandListAppendBarrier", ZE_LOST);
    clear_faults();
    assert_int_equal(accel_stream_synchronize(fx.stream), ACCEL_OK);
    {
        /* the host signal after a callback fails once: tried again */
        char spec[64];
        int runs = __atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST);
        unsigned long before = sim_calls("zeEventHostSignal");
        snprintf(spec, sizeof spec, "zeEventHostSignal:1:%d", ZE_LOST);
        assert_int_equal(sim_fault_set(spec), 0);
        assert_int_equal(accel_stream_add_callback(fx.stream, count_callback, NULL), ACCEL_OK);
        assert_int_equal(accel_stream_synchronize(fx.stream), ACCEL_OK);
        clear_faults();
        assert_true(sim_calls("zeEventHostSignal") >= before + 2);
        assert_int_equal(__atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST), runs + 1);
    }
    sim_fault_fixture_close(&fx);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- fork */

/* After zeInit, a forked child gets a clear refusal from every call and the
 * driver sees no call from it. */
static void test_fork_refused(void **state)
{
    (void)state;
    sim_fault_check_fork_refused("zeMemAllocDevice", ACCEL_ERROR_UNAVAILABLE, NULL);
}

/* The vendor calls behind every wait, each failed once and twice in a row
 * under in-flight work (FAULT_SYNC_TEST, sim_fault_driver.h). */
static const sim_sync_sites_t sync_sites = {
    .code = ZE_LOST,
    .device = "zeEventHostSynchronize",
    .stream = "zeEventHostSynchronize",
    .event = "zeEventHostSynchronize",
    .pageable = "zeEventHostSynchronize",
};

int main(void)
{
    const struct CMUnitTest tests[] = {
        FAULT_TEST(test_zeinit_fault),    FAULT_TEST(test_init_faults),
        FAULT_MEMORY_TEST(&memory_sites), FAULT_TEST(test_free_after_failed_sync_keeps_memory),
        FAULT_TEST(test_rng_faults),      FAULT_TEST(test_stream_faults),
        FAULT_SYNC_TEST(&sync_sites),     FAULT_TEST(test_fork_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
