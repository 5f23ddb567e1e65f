/* test_mlu_faults.c: every CNRT call site of the mlu backend made to fail on
 * the simulated libcnrt (ACCEL_MLU_LIBRARY, set by ctest), one at a time.
 * For each: the sim's call count proves the site was reached; a call that
 * returns a status gives the expected status and a last-error sentence
 * naming the CNRT function and the injected cnrtRet_t; then, with the fault
 * cleared, the same operation works again, as it would on the real runtime.
 * Slots that return nothing (frees, destroys) must survive the fault. The
 * ASan build runs this under LeakSanitizer, so a path that leaks on failure
 * fails the test. The sims' control functions are reached with dlsym on the
 * already-loaded libraries (RTLD_NOLOAD). */
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

/* The backend, the variable that names its sim, and how the backend writes
 * a vendor code in its sentences. */
#define SIM_BACKEND     "mlu"
#define SIM_LIBRARY_ENV "ACCEL_MLU_LIBRARY"
#define SIM_CODE_FORMAT "cnrtRet_t %d"
#include "common/sim_fault_driver.h"

/* Codes injected: CNRT's "unknown" error (DEVICE_ERROR) and, for
 * allocations, its out-of-memory code. */
#define CNRT_UNKNOWN 999991
#define CNRT_NO_MEM  100100

/* ---------------------------------------------------------------- lifecycle */

/* init's own calls; each failure is retried by the next backend. Opening
 * counts devices; each new backend sets the device on its first call on a
 * thread. */
static void test_init_faults(void **state)
{
    static const char *const init[] = {"cnrtGetDeviceCount", "cnrtGetLibVersion",
                                       "cnrtDriverGetVersion", "cnrtDeviceGetAttribute", NULL};
    (void)state;
    sim_fault_check_init(init, CNRT_UNKNOWN);
    sim_fault_check_open_refused("cnrtGetDeviceCount", CNRT_UNKNOWN);
    sim_fault_check_first_use("cnrtSetDevice", CNRT_UNKNOWN);
}

/* The error text calls have no code to fail with: a NULL name or
 * description still gives a sentence with the function and the code. */
static void test_error_text_missing(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    (void)state;
    assert_int_equal(sim_fault_set("cnrtGetErrorName:*:1,cnrtGetErrorStr:*:1,"
                                   "cnrtSyncDevice:*:999991"),
                     0);
    expect_failure(accel_synchronize(acc, 0), ACCEL_ERROR_DEVICE_ERROR, "cnrtSyncDevice",
                   CNRT_UNKNOWN);
    clear_faults();
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- devices and memory */

static void test_device_faults(void **state)
{
    static const sim_fault_site_t sites[] = {
        {"cnrtSyncDevice", sim_op_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {"cnrtGetDeviceProperties", sim_op_device_properties, ACCEL_ERROR_DEVICE_ERROR},
        {"cnrtDeviceGetAttribute", sim_op_device_properties, ACCEL_ERROR_DEVICE_ERROR},
        {"cnrtMemGetInfo", sim_op_available_memory, ACCEL_ERROR_DEVICE_ERROR},
        {NULL},
    };
    static const char *const attributes[] = {"ComputeCapabilityMinor", "TotalMemSize"};
    sim_fault_fixture_t fx = {.acc = sim_fault_open_ready(), .code = CNRT_UNKNOWN};
    accel_device_properties_t props = {.struct_size = sizeof props};
    (void)state;
    sim_fault_run(&fx, sites);
    /* a later attribute call, not only the first */
    for (int n = 2; n <= 5; n += 3) {
        char spec[64];
        snprintf(spec, sizeof spec, "cnrtDeviceGetAttribute:%d:%d", n, CNRT_UNKNOWN);
        assert_int_equal(sim_fault_set(spec), 0);
        expect_failure(accel_device_properties(fx.acc, 0, &props), ACCEL_ERROR_DEVICE_ERROR,
                       attributes[n / 5], CNRT_UNKNOWN);
        clear_faults();
    }
    assert_int_equal(accel_device_properties(fx.acc, 0, &props), ACCEL_OK);
    assert_string_equal(props.name, "MLU370-X8");
    assert_int_equal(props.multiprocessor_count, 32);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

/* The memory sites every runtime has (sim_fault_check.h). */
static const sim_memory_sites_t memory_sites = {
    .codes = {CNRT_UNKNOWN, CNRT_NO_MEM},
    .device = {"cnrtMalloc", "cnrtFree"},
    .pinned = {"cnrtHostMalloc", "cnrtFreeHost"},
    /* registered: CNRT has no registration */
    .h2d_fns = {"cnrtMemcpyAsync_V2"},
    .memset_fn = "cnrtMemsetAsync",
};

/* A segment returned to the runtime while the device cannot be
 * synchronized may still be used by queued work: it is left to the runtime
 * (no cnrtFree), where it was freed anyway before (issue 28 G2's class). */
static void test_free_after_failed_sync_keeps_memory(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    void *device = NULL;
    unsigned long frees;
    char spec[96];
    (void)state;
    assert_int_equal(accel_malloc(acc, 1 << 20, &device), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK); /* cached */
    frees = sim_calls("cnrtFree");
    /* empty_cache waits only for the freed blocks' events (none here), so
     * the first cnrtSyncDevice is the one the backend makes before cnrtFree:
     * fail it and every later one */
    snprintf(spec, sizeof spec, "cnrtSyncDevice:1+:%d", CNRT_UNKNOWN);
    assert_int_equal(sim_fault_set(spec), 0);
    assert_int_equal(accel_empty_cache(acc), ACCEL_OK);
    assert_true(sim_calls("cnrtSyncDevice") > 0);
    assert_int_equal(sim_calls("cnrtFree"), frees);
    clear_faults();
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* Random fills: staging, the notifier that tracks it, the copy, the place;
 * a failed place waits on the queue instead. */
static void test_rng_faults(void **state)
{
    static const char *const sites[] = {"cnrtHostMalloc", "cnrtNotifierCreateWithFlags",
                                        "cnrtMemcpyAsync_V2", "cnrtPlaceNotifier", NULL};
    accel_t *acc = sim_fault_open_ready();
    void *device = NULL;
    (void)state;
    check_rng_fill_sites(acc, sites, CNRT_UNKNOWN);
    /* the sweep's query, the destroy and free of swept buffers: logged */
    assert_int_equal(accel_malloc(acc, 256, &device), ACCEL_OK);
    CHECK_SURVIVES("cnrtQueryNotifier", CNRT_UNKNOWN, accel_rng_u32(acc, device, 64, NULL));
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK);
    assert_int_equal(sim_fault_set("cnrtNotifierDestroy:*:999991,cnrtFreeHost:*:999991"), 0);
    assert_int_equal(accel_rng_u32(acc, device, 64, NULL), ACCEL_OK);
    clear_faults();
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    /* destroy() waits for the staging left behind; its wait may fail */
    check_close_with_fill_in_flight(acc, "cnrtWaitNotifier", CNRT_UNKNOWN);
}

/* ---------------------------------------------------------------- streams and events */

static void test_stream_faults(void **state)
{
    static const sim_stream_sites_t streams = {
        .stream = {"cnrtQueueCreate", "cnrtQueueSync", "cnrtQueueQuery"},
        .event = {"cnrtNotifierCreateWithFlags", "cnrtPlaceNotifier", "cnrtWaitNotifier",
                  "cnrtQueryNotifier", "cnrtNotifierElapsedTime"},
        .stream_wait_event = "cnrtQueueWaitNotifier",
        .add_callback = "cnrtInvokeHostFunc",
    };
    static const sim_fault_site_t sites[] = {
        /* destroys that fail are logged; nothing leaks on our side */
        {"cnrtNotifierDestroy", sim_op_event_destroy, ACCEL_OK},
        {"cnrtQueueDestroy", sim_op_stream_destroy, ACCEL_OK},
        {"cnrtQueueSync", sim_op_stream_destroy, ACCEL_OK},
        {NULL},
    };
    sim_fault_fixture_t fx = {.acc = sim_fault_open_ready(), .code = CNRT_UNKNOWN};
    int runs = __atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST);
    (void)state;
    sim_fault_fixture_open(&fx);
    sim_fault_check_streams(&fx, &streams);
    sim_fault_run(&fx, sites);
    assert_int_equal(accel_stream_synchronize(fx.stream), ACCEL_OK);
    /* only the retry of the refused host function ran */
    assert_int_equal(__atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST), runs + 1);
    sim_fault_fixture_close(&fx);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- graphs */

static void test_graph_faults(void **state)
{
    static const char *const sites[] = {"cnrtQueueBeginCapture", "cnrtQueueEndCapture",
                                        "cnrtTaskTopoInstantiate"};
    accel_t *acc = sim_fault_open_ready();
    accel_stream_t *stream = NULL;
    accel_graph_t *graph = NULL;
    void *device = NULL;
    (void)state;
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, 256, &device), ACCEL_OK);
    for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++) {
        unsigned long before = sim_calls(sites[i]);
        accel_status_t status;
        assert_int_equal(accel_graph_create(acc, &graph), ACCEL_OK);
        /* once: a refused end is asked again, to end the capture */
        fail_once(sites[i], CNRT_UNKNOWN);
        status = accel_graph_capture_begin(graph, stream);
        if (status == ACCEL_OK) {
            assert_int_equal(accel_memset_async(acc, device, 1, 256, stream), ACCEL_OK);
            status = accel_graph_capture_end(graph, stream);
        }
        expect_failure(status, ACCEL_ERROR_DEVICE_ERROR, sites[i], CNRT_UNKNOWN);
        clear_faults();
        assert_true(sim_calls(sites[i]) > before);
        /* the capture is over either way: the stream is free, and the same
         * graph captures again from scratch */
        assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
        assert_int_equal(accel_graph_capture_begin(graph, stream), ACCEL_OK);
        assert_int_equal(accel_memset_async(acc, device, 1, 256, stream), ACCEL_OK);
        assert_int_equal(accel_graph_capture_end(graph, stream), ACCEL_OK);
        assert_int_equal(accel_graph_replay(graph, stream), ACCEL_OK);
        assert_int_equal(accel_graph_destroy(graph), ACCEL_OK);
    }
    /* a failed topology destroy is logged; a failed replay says why; a
     * random fill (made on the host at call time) cannot be captured */
    assert_int_equal(accel_graph_create(acc, &graph), ACCEL_OK);
    assert_int_equal(accel_graph_capture_begin(graph, stream), ACCEL_OK);
    assert_int_equal(accel_rng_u32(acc, device, 64, stream), ACCEL_ERROR_UNSUPPORTED);
    assert_non_null(strstr(accel_last_error(), "cannot be captured"));
    assert_int_equal(accel_memset_async(acc, device, 2, 256, stream), ACCEL_OK);
    fail_every("cnrtTaskTopoDestroy", CNRT_UNKNOWN);
    assert_int_equal(accel_graph_capture_end(graph, stream), ACCEL_OK);
    clear_faults();
    CHECK_SITE("cnrtTaskTopoEntityInvoke", CNRT_UNKNOWN, ACCEL_ERROR_DEVICE_ERROR,
               accel_graph_replay(graph, stream));
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    CHECK_SURVIVES("cnrtTaskTopoEntityDestroy", CNRT_UNKNOWN, accel_graph_destroy(graph));
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- profiling */

/* Ranges reach CNPX (the simulated libcnpx.so), a push and a pop each. */
static void test_cnpx_ranges(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    unsigned long (*cnpx_calls)(const char *) = NULL;
    unsigned long pushes, pops;
    (void)state;
    assert_int_equal(accel_range_push(acc, "mlu.faults", NULL, NULL), ACCEL_OK);
    *(void **)&cnpx_calls = sim_symbol("ACCEL_MLU_CNPX_LIBRARY", "accel_sim_calls");
    pushes = cnpx_calls("cnpxRangePush");
    pops = cnpx_calls("cnpxRangePop");
    assert_int_equal(accel_range_pop(acc, NULL), ACCEL_OK);
    assert_int_equal(accel_range_push(acc, "mlu.faults.inner", NULL, NULL), ACCEL_OK);
    assert_int_equal(accel_range_pop(acc, NULL), ACCEL_OK);
    assert_int_equal(cnpx_calls("cnpxRangePush"), pushes + 1);
    assert_int_equal(cnpx_calls("cnpxRangePop"), pops + 2);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- fork */

/* After first use, a forked child gets a clear refusal from every call and
 * the sim sees no call from it; closing in the child frees only host
 * records: no CNRT call, no lock the parent's threads may have held. */
static void test_fork_refused(void **state)
{
    static const char *const close_fns[] = {"cnrtQueueSync", "cnrtFree", NULL};
    (void)state;
    sim_fault_check_fork_refused("cnrtMalloc", ACCEL_ERROR_DEVICE_ERROR, close_fns);
}

/* ---------------------------------------------------------------- an old runtime */

/* cnrt_sim_old: callbacks emulated with a notifier and a thread. */
static void test_old_callback_faults(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    accel_stream_t *stream = NULL, *fallback = NULL;
    int runs;
    (void)state;
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    runs = __atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST);
    CHECK_SITE("cnrtNotifierCreateWithFlags", CNRT_UNKNOWN, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_add_callback(stream, count_callback, NULL));
    CHECK_SITE("cnrtPlaceNotifier", CNRT_UNKNOWN, ACCEL_ERROR_DEVICE_ERROR,
               accel_stream_add_callback(stream, count_callback, NULL));
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    assert_int_equal(__atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST), runs + 2);
    /* the callback thread's wait and destroy: logged, the callback still runs */
    assert_int_equal(sim_fault_set("cnrtWaitNotifier:*:999991,cnrtNotifierDestroy:*:999991"), 0);
    {
        unsigned long waits = sim_calls("cnrtWaitNotifier");
        unsigned long destroys = sim_calls("cnrtNotifierDestroy");
        assert_int_equal(accel_stream_add_callback(stream, count_callback, NULL), ACCEL_OK);
        assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK);
        clear_faults();
        assert_true(sim_calls("cnrtWaitNotifier") > waits);
        assert_true(sim_calls("cnrtNotifierDestroy") > destroys);
    }
    assert_int_equal(__atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST), runs + 3);
    /* the default queue has its own key: its callback is waited for too */
    assert_int_equal(accel_default_stream(acc, 0, &fallback), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(fallback, count_callback, NULL), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(fallback), ACCEL_OK);
    assert_int_equal(__atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST), runs + 4);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* cnrt_sim_old: the hardware timer, the plain copy, and no graphs. */
static void test_old_timing_copy_faults(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    accel_event_t *start = NULL, *end = NULL;
    accel_graph_t *graph = NULL;
    void *device = NULL;
    static char host[256];
    float ms = -1;
    (void)state;
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_TIMING, &start), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_TIMING, &end), ACCEL_OK);
    assert_int_equal(accel_event_record(start, NULL), ACCEL_OK);
    assert_int_equal(accel_event_record(end, NULL), ACCEL_OK);
    assert_int_equal(accel_event_synchronize(end), ACCEL_OK);
    CHECK_SITE("cnrtNotifierDuration", CNRT_UNKNOWN, ACCEL_ERROR_DEVICE_ERROR,
               accel_event_elapsed_ms(start, end, &ms));
    assert_true(ms >= 0);
    assert_int_equal(accel_malloc(acc, sizeof host, &device), ACCEL_OK);
    CHECK_SITE("cnrtMemcpyAsync", CNRT_UNKNOWN, ACCEL_ERROR_DEVICE_ERROR,
               accel_memcpy(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE));
    assert_int_equal(accel_graph_create(acc, &graph), ACCEL_ERROR_UNSUPPORTED);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_event_destroy(start), ACCEL_OK);
    assert_int_equal(accel_event_destroy(end), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* No argument: the full simulated runtime. "old": cnrt_sim_old's sites. */
/* The vendor calls behind every wait, each failed once and twice in a row
 * under in-flight work (FAULT_SYNC_TEST, sim_fault_driver.h). */
static const sim_sync_sites_t sync_sites = {
    .code = CNRT_UNKNOWN,
    .device = "cnrtSyncDevice",
    .stream = "cnrtQueueSync",
    .event = "cnrtWaitNotifier",
    .pageable = "cnrtQueueSync",
};

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        FAULT_TEST(test_init_faults),
        FAULT_TEST(test_error_text_missing),
        FAULT_TEST(test_device_faults),
        FAULT_MEMORY_TEST(&memory_sites),
        FAULT_TEST(test_free_after_failed_sync_keeps_memory),
        FAULT_TEST(test_rng_faults),
        FAULT_TEST(test_stream_faults),
        FAULT_SYNC_TEST(&sync_sites),
        FAULT_TEST(test_graph_faults),
        FAULT_TEST(test_cnpx_ranges),
        FAULT_TEST(test_fork_refused),
    };
    const struct CMUnitTest old_tests[] = {
        FAULT_TEST(test_old_callback_faults),
        FAULT_TEST(test_old_timing_copy_faults),
    };
    if (argc > 1 && strcmp(argv[1], "old") == 0)
        return cmocka_run_group_tests_name("mlu faults, old runtime", old_tests, NULL, NULL);
    return cmocka_run_group_tests_name("mlu faults", tests, NULL, NULL);
}
