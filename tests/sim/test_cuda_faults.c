/* test_cuda_faults.c: every CUDA driver call site of the cuda backend made
 * to fail on the simulated libcuda (ACCEL_CUDA_LIBRARY, set by ctest). For
 * each: the sim's call count proves the site was reached; the accel call
 * gives the expected status and a last-error sentence "cuda: <function>
 * failed: CUDA_ERROR_<NAME> (<code>)" with the code kept as the vendor
 * error; what the call would have changed (memory statistics, buffer
 * contents, callbacks run) did not change; and the next identical call
 * works, as it would on the real driver. Most sites fail once (the rule's
 * N is 1), so the retry runs with the rule still set and the fault spent.
 * What the backend remembers is checked as documented: a failed runtime
 * initialisation is kept by core for the accel_t, a failed kernel module
 * load by the backend for the device of that accel_t; a new accel_t tries
 * again. Cleanup slots (frees, destroys) must survive a fault. The ASan
 * build runs this under LeakSanitizer, so a path that leaks on failure
 * (ours or, through a call left undone, the sim's) fails the test.
 * Single-threaded, like every <backend>.faults test; the sim's control
 * functions are reached with dlsym on the already-loaded library. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <accel/accel.h>

/* The backend, the variable that names its sim, and how the backend writes
 * a vendor code in its sentences ("CUDA_ERROR_X (n): text");
 * cu_expect_failure below also checks the name. */
#define SIM_BACKEND     "cuda"
#define SIM_LIBRARY_ENV "ACCEL_CUDA_LIBRARY"
#define SIM_CODE_FORMAT "(%d): "
#include "common/sim_fault_driver.h"

/* CUresult codes injected, with the names cuGetErrorName gives them. */
#define CU_UNKNOWN         999 /* an ordinary failure: DEVICE_ERROR */
#define CU_OUT_OF_MEMORY   2
#define CU_INVALID_IMAGE   200
#define CU_ILLEGAL_ADDRESS 700

static const char *cu_name(int code)
{
    switch (code) {
    case CU_UNKNOWN: return "CUDA_ERROR_UNKNOWN";
    case CU_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
    case CU_INVALID_IMAGE: return "CUDA_ERROR_INVALID_IMAGE";
    case CU_ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    default: return "?";
    }
}

/* `status` is `want` and the last error holds the backend's sentence for
 * `what` (the function as the backend names it) failing with `code`:
 * "cuda: <what> failed: CUDA_ERROR_<NAME> (<code>): <text>". Core may wrap
 * it in its own sentence (a failed init, an allocation out of memory). */
static void cu_expect_text(accel_status_t status, accel_status_t want, const char *what, int code)
{
    char head[128], tail[96];
    const char *message = accel_last_error();
    snprintf(head, sizeof head, "cuda: %s", what);
    snprintf(tail, sizeof tail, " failed: %s (%d): ", cu_name(code), code);
    if (status != want || strstr(message, head) == NULL || strstr(message, tail) == NULL)
        fail_msg("%s: status %s (want %s), last error \"%s\" (want \"%s ...%s\")", what,
                 accel_status_name(status), accel_status_name(want), message, head, tail);
}

/* As cu_expect_text, and the CUresult is kept as the vendor error. */
static void cu_expect_failure(accel_status_t status, accel_status_t want, const char *what,
                              int code)
{
    cu_expect_text(status, want, what, code);
    assert_int_equal(accel_last_vendor_error(), code);
}

/* A fixture for the driver's tables: the sites fail once, so the retry
 * runs with the rule still set and the fault spent. */
static sim_fault_fixture_t cu_fixture(accel_t *acc)
{
    sim_fault_fixture_t fx = {
        .acc = acc, .code = CU_UNKNOWN, .expect = cu_expect_failure, .once = true};
    return fx;
}

/* The device bytes at `ptr` all equal `value`. */
static void expect_device_bytes(accel_t *acc, const void *ptr, size_t size, unsigned char value)
{
    unsigned char host[4096];
    assert_true(size <= sizeof host);
    assert_int_equal(accel_memcpy(acc, host, ptr, size, ACCEL_COPY_DEVICE_TO_HOST), ACCEL_OK);
    for (size_t i = 0; i < size; i++)
        if (host[i] != value)
            fail_msg("device byte %zu is %u, want %u", i, host[i], value);
}

static accel_memory_stats_t memory_stats(accel_t *acc)
{
    accel_memory_stats_t stats = {.struct_size = sizeof stats};
    assert_int_equal(accel_memory_stats(acc, 0, &stats), ACCEL_OK);
    return stats;
}

/* ---------------------------------------------------------------- lifecycle */

/* Without NVML (ctest points ACCEL_NVML_LIBRARY nowhere) both the probe and
 * create count with cuInit + cuDeviceGetCount: a failure in either refuses
 * the open as UNAVAILABLE, naming the function and the CUresult. */
static void test_open_faults(void **state)
{
    static const char *const sites[] = {"cuInit", "cuDeviceGetCount"};
    accel_t *acc = NULL, *first;
    (void)state;
    first = sim_fault_open_ready();
    for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++) {
        char spec[64];
        /* the probe's call, then create's (the probe passed) */
        for (int n = 1; n <= 2; n++) {
            unsigned long before = sim_calls(sites[i]);
            snprintf(spec, sizeof spec, "%s:%d:%d", sites[i], n, CU_UNKNOWN);
            assert_int_equal(sim_fault_set(spec), 0);
            acc = NULL;
            assert_int_equal(accel_open("cuda", &acc), ACCEL_ERROR_UNAVAILABLE);
            assert_null(acc);
            snprintf(spec, sizeof spec, "%s failed: CUDA_ERROR_UNKNOWN (999)", sites[i]);
            assert_non_null(strstr(accel_last_error(), "the NVIDIA driver failed to start"));
            assert_non_null(strstr(accel_last_error(), spec));
            assert_int_equal(sim_calls(sites[i]), before + (unsigned long)n);
            clear_faults();
        }
    }
    acc = sim_fault_open_ready();
    assert_int_equal(accel_close(acc), ACCEL_OK);
    assert_int_equal(accel_close(first), ACCEL_OK);
}

/* init's calls: core keeps a failed init for the accel_t (the same sentence
 * again, no new driver call); a new accel_t initialises afresh. */
static void test_init_faults(void **state)
{
    static const struct {
        const char *function, *what;
    } sites[] = {
        {"cuInit", "cuInit"},
        {"cuDriverGetVersion", "cuDriverGetVersion"},
        {"cuDeviceGetCount", "cuDeviceGetCount"},
        {"cuDeviceGet", "cuDeviceGet"},
        {"cuDeviceGetAttribute", "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++) {
        accel_t *acc = sim_fault_open();
        unsigned long before = sim_calls(sites[i].function), after;
        char first[512];
        fail_once(sites[i].function, CU_UNKNOWN);
        /* core words it "runtime initialisation failed earlier: <sentence>" */
        cu_expect_text(accel_synchronize(acc, 0), ACCEL_ERROR_DEVICE_ERROR, sites[i].what,
                       CU_UNKNOWN);
        after = sim_calls(sites[i].function);
        assert_true(after > before);
        snprintf(first, sizeof first, "%s", accel_last_error());
        assert_int_equal(accel_synchronize(acc, 0), ACCEL_ERROR_DEVICE_ERROR);
        assert_non_null(strstr(accel_last_error(), first));
        assert_int_equal(sim_calls(sites[i].function), after);
        clear_faults();
        assert_int_equal(accel_close(acc), ACCEL_OK);
        acc = sim_fault_open_ready();
        assert_int_equal(accel_close(acc), ACCEL_OK);
    }
}

/* Each accel_t retains device 0's primary context on first use and makes it
 * current on the calling thread; neither is remembered when it fails. */
static void test_context_faults(void **state)
{
    static const sim_fault_site_t retain[] = {
        {"cuDevicePrimaryCtxRetain", sim_op_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {NULL},
    };
    static const sim_fault_site_t current[] = {
        {"cuCtxSetCurrent", sim_op_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        /* a failed look at the current context only costs a cuCtxSetCurrent */
        {"cuCtxGetCurrent", sim_op_synchronize, ACCEL_OK},
        {NULL},
    };
    sim_fault_fixture_t fx = cu_fixture(sim_fault_open());
    (void)state;
    sim_fault_run(&fx, retain);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK); /* leaves no context current here */
    fx.acc = sim_fault_open();
    sim_fault_run(&fx, current);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- devices and memory */

/* Optional facts: a failure leaves them blank. */
static accel_status_t properties_without_bus_id(sim_fault_fixture_t *fx)
{
    accel_device_properties_t props = {.struct_size = sizeof props};
    accel_status_t status = accel_device_properties(fx->acc, 0, &props);
    assert_string_equal(props.pci_bus_id, "");
    return status;
}

static void test_device_faults(void **state)
{
    static const sim_fault_site_t sites[] = {
        {"cuCtxSynchronize", sim_op_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {"cuCtxSynchronize", sim_op_synchronize, ACCEL_ERROR_DEVICE_ERROR,
         .code = CU_ILLEGAL_ADDRESS},
        {"cuDeviceGetName", sim_op_device_properties, ACCEL_ERROR_DEVICE_ERROR},
        {"cuDeviceTotalMem_v2", sim_op_device_properties, ACCEL_ERROR_DEVICE_ERROR},
        {"cuDeviceGetAttribute", sim_op_device_properties, ACCEL_ERROR_DEVICE_ERROR,
         "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)"},
        {"cuDeviceGetPCIBusId", properties_without_bus_id, ACCEL_OK},
        {"cuMemGetInfo_v2", sim_op_available_memory, ACCEL_ERROR_DEVICE_ERROR},
        {NULL},
    };
    sim_fault_fixture_t fx = cu_fixture(sim_fault_open_ready());
    uint64_t available = 0;
    (void)state;
    sim_fault_run(&fx, sites);
    assert_int_equal(accel_available_memory(fx.acc, 0, &available), ACCEL_OK);
    assert_true(available > 0);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

/* The memory sites every runtime has (sim_fault_check.h). */
static const sim_memory_sites_t memory_sites = {
    .codes = {CU_UNKNOWN, CU_OUT_OF_MEMORY},
    .device = {"cuMemAlloc_v2", "cuMemFree_v2"},
    .pinned = {"cuMemHostAlloc", "cuMemFreeHost"},
    .registered = {"cuMemHostRegister_v2", "cuMemHostUnregister"},
    .h2d_fns = {"cuMemcpyHtoDAsync_v2"},
    .memset_fn = "cuMemsetD8Async",
};

/* cuMemAlloc_v2's CUDA_ERROR_OUT_OF_MEMORY is ACCEL_ERROR_OUT_OF_MEMORY
 * (loader.c): the allocator frees its idle segments and tries once more, so
 * a single OOM with something cached is absorbed, and one with nothing
 * cached reaches the caller, counted as an OOM and changing nothing else. */
static void test_alloc_out_of_memory(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    accel_memory_stats_t before, after;
    void *kept = NULL, *cached = NULL, *big = NULL;
    unsigned long allocs, frees;
    (void)state;
    assert_int_equal(accel_empty_cache(acc), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, 2 << 20, &kept), ACCEL_OK);

    /* nothing idle: the OOM is the caller's */
    before = memory_stats(acc);
    allocs = sim_calls("cuMemAlloc_v2");
    fail_once("cuMemAlloc_v2", CU_OUT_OF_MEMORY);
    cu_expect_text(accel_malloc(acc, 8 << 20, &big), ACCEL_ERROR_OUT_OF_MEMORY, "cuMemAlloc_v2",
                   CU_OUT_OF_MEMORY);
    assert_non_null(strstr(accel_last_error(), "device out of memory"));
    assert_null(big);
    assert_int_equal(sim_calls("cuMemAlloc_v2"), allocs + 1);
    after = memory_stats(acc);
    assert_int_equal(after.allocated_bytes, before.allocated_bytes);
    assert_int_equal(after.reserved_bytes, before.reserved_bytes);
    assert_int_equal(after.segment_count, before.segment_count);
    assert_int_equal(after.allocation_count, before.allocation_count);
    assert_int_equal(after.alloc_retries, before.alloc_retries);
    assert_int_equal(after.ooms, before.ooms + 1);
    assert_int_equal(accel_malloc(acc, 8 << 20, &big), ACCEL_OK);
    assert_int_equal(accel_free(acc, big), ACCEL_OK);
    clear_faults();
    assert_int_equal(accel_empty_cache(acc), ACCEL_OK);

    /* an idle segment: freed, and the retry gets the memory */
    assert_int_equal(accel_malloc(acc, 4 << 20, &cached), ACCEL_OK);
    assert_int_equal(accel_free(acc, cached), ACCEL_OK);
    before = memory_stats(acc);
    allocs = sim_calls("cuMemAlloc_v2");
    frees = sim_calls("cuMemFree_v2");
    fail_once("cuMemAlloc_v2", CU_OUT_OF_MEMORY);
    assert_int_equal(accel_malloc(acc, 8 << 20, &big), ACCEL_OK);
    assert_int_equal(sim_calls("cuMemAlloc_v2"), allocs + 2);
    assert_int_equal(sim_calls("cuMemFree_v2"), frees + 1);
    after = memory_stats(acc);
    assert_int_equal(after.alloc_retries, before.alloc_retries + 1);
    assert_int_equal(after.ooms, before.ooms);
    assert_int_equal(after.segment_count, before.segment_count);
    clear_faults();
    assert_int_equal(accel_free(acc, big), ACCEL_OK);
    assert_int_equal(accel_free(acc, kept), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* Any other failure of cuMemAlloc_v2 is DEVICE_ERROR, and a failed copy or
 * fill leaves the device bytes as they were. */
static void test_memory_unchanged(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    accel_memory_stats_t before, after;
    unsigned char host[4096], *device = NULL, *other = NULL;
    void *ptr = NULL;
    (void)state;
    before = memory_stats(acc);
    fail_once("cuMemAlloc_v2", CU_UNKNOWN);
    cu_expect_failure(accel_malloc(acc, 6 << 20, &ptr), ACCEL_ERROR_DEVICE_ERROR, "cuMemAlloc_v2",
                      CU_UNKNOWN);
    after = memory_stats(acc);
    assert_int_equal(after.allocated_bytes, before.allocated_bytes);
    assert_int_equal(after.reserved_bytes, before.reserved_bytes);
    assert_int_equal(after.allocation_count, before.allocation_count);
    assert_int_equal(after.segment_count, before.segment_count);
    clear_faults();

    assert_int_equal(accel_malloc(acc, sizeof host, (void **)&device), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, sizeof host, (void **)&other), ACCEL_OK);
    assert_int_equal(accel_memset(acc, device, 0x11, sizeof host), ACCEL_OK);
    assert_int_equal(accel_memset(acc, other, 0x22, sizeof host), ACCEL_OK);
    memset(host, 0x33, sizeof host);

    fail_once("cuMemcpyHtoDAsync_v2", CU_UNKNOWN);
    cu_expect_failure(accel_memcpy(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE),
                      ACCEL_ERROR_DEVICE_ERROR, "cuMemcpyHtoDAsync_v2", CU_UNKNOWN);
    expect_device_bytes(acc, device, sizeof host, 0x11);

    fail_once("cuMemsetD8Async", CU_UNKNOWN);
    cu_expect_failure(accel_memset(acc, device, 0x44, sizeof host), ACCEL_ERROR_DEVICE_ERROR,
                      "cuMemsetD8Async", CU_UNKNOWN);
    expect_device_bytes(acc, device, sizeof host, 0x11);

    fail_once("cuMemcpyDtoDAsync_v2", CU_UNKNOWN);
    cu_expect_failure(accel_memcpy(acc, device, other, sizeof host, ACCEL_COPY_DEVICE_TO_DEVICE),
                      ACCEL_ERROR_DEVICE_ERROR, "cuMemcpyDtoDAsync_v2", CU_UNKNOWN);
    expect_device_bytes(acc, device, sizeof host, 0x11);

    memset(host, 0x55, sizeof host);
    fail_once("cuMemcpyDtoHAsync_v2", CU_UNKNOWN);
    cu_expect_failure(accel_memcpy(acc, host, device, sizeof host, ACCEL_COPY_DEVICE_TO_HOST),
                      ACCEL_ERROR_DEVICE_ERROR, "cuMemcpyDtoHAsync_v2", CU_UNKNOWN);
    for (size_t i = 0; i < sizeof host; i++)
        assert_int_equal(host[i], 0x55);
    clear_faults();

    /* the same calls again, without a fault */
    memset(host, 0x33, sizeof host);
    assert_int_equal(accel_memcpy(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE),
                     ACCEL_OK);
    expect_device_bytes(acc, device, sizeof host, 0x33);
    assert_int_equal(accel_memset(acc, device, 0x44, sizeof host), ACCEL_OK);
    expect_device_bytes(acc, device, sizeof host, 0x44);
    assert_int_equal(accel_memcpy(acc, device, other, sizeof host, ACCEL_COPY_DEVICE_TO_DEVICE),
                     ACCEL_OK);
    expect_device_bytes(acc, device, sizeof host, 0x22);
    assert_int_equal(accel_free(acc, other), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);

    {
        /* host to host goes through cuMemcpyAsync in stream order */
        static unsigned char from[256], to[256];
        memset(from, 0x66, sizeof from);
        memset(to, 0x77, sizeof to);
        fail_once("cuMemcpyAsync", CU_UNKNOWN);
        cu_expect_failure(accel_memcpy(acc, to, from, sizeof to, ACCEL_COPY_HOST_TO_HOST),
                          ACCEL_ERROR_DEVICE_ERROR, "cuMemcpyAsync (host to host)", CU_UNKNOWN);
        assert_int_equal(to[0], 0x77);
        assert_int_equal(accel_memcpy(acc, to, from, sizeof to, ACCEL_COPY_HOST_TO_HOST), ACCEL_OK);
        assert_memory_equal(to, from, sizeof to);
        clear_faults();
    }
    {
        /* pinned memory: a refused allocation or registration pins nothing */
        accel_pinned_stats_t pinned_before = {.struct_size = sizeof pinned_before};
        accel_pinned_stats_t pinned_after = {.struct_size = sizeof pinned_after};
        void *pinned = NULL;
        bool is_pinned = true;
        assert_int_equal(accel_pinned_memory_stats(acc, &pinned_before), ACCEL_OK);
        fail_once("cuMemHostAlloc", CU_UNKNOWN);
        cu_expect_failure(accel_host_alloc(acc, 4096, &pinned), ACCEL_ERROR_DEVICE_ERROR,
                          "cuMemHostAlloc", CU_UNKNOWN);
        fail_once("cuMemHostRegister_v2", CU_UNKNOWN);
        cu_expect_failure(accel_host_register(acc, host, sizeof host), ACCEL_ERROR_DEVICE_ERROR,
                          "cuMemHostRegister_v2", CU_UNKNOWN);
        assert_int_equal(accel_is_pinned(acc, host, &is_pinned), ACCEL_OK);
        assert_false(is_pinned);
        assert_int_equal(accel_pinned_memory_stats(acc, &pinned_after), ACCEL_OK);
        assert_int_equal(pinned_after.pinned_bytes, pinned_before.pinned_bytes);
        clear_faults();
        assert_int_equal(accel_host_alloc(acc, 4096, &pinned), ACCEL_OK);
        assert_int_equal(accel_host_register(acc, host, sizeof host), ACCEL_OK);
        assert_int_equal(accel_host_unregister(acc, host), ACCEL_OK);
        assert_int_equal(accel_host_free(acc, pinned), ACCEL_OK);
    }
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- kernels */

/* The Philox launch: a failed fill uses no random numbers (sim_fault_check.h
 * replays the state), and a fill still in flight at close whose device wait
 * fails does not stop the close. */
static void test_rng_faults(void **state)
{
    static const char *const sites[] = {"cuLaunchKernel", NULL};
    accel_t *acc = sim_fault_open_ready();
    (void)state;
    check_rng_fill_sites(acc, sites, CU_UNKNOWN);
    check_close_with_fill_in_flight(acc, "cuCtxSynchronize", CU_UNKNOWN);
}

/* kernels.h: a failed module load is remembered for the device (retrying
 * would only repeat a slow, broken compile): later fills of that accel_t
 * fail with the same sentence and load nothing; a new accel_t loads again. */
static void test_module_load_fault(void **state)
{
    static const char *const sites[] = {"cuModuleLoadData", "cuModuleGetFunction"};
    (void)state;
    for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++) {
        accel_t *acc = sim_fault_open_ready();
        float *device = NULL;
        float host[64], zero[64] = {0};
        unsigned long loads;
        char first[512];
        assert_int_equal(accel_malloc(acc, sizeof host, (void **)&device), ACCEL_OK);
        assert_int_equal(accel_memset(acc, device, 0, sizeof host), ACCEL_OK);
        fail_once(sites[i], CU_INVALID_IMAGE);
        cu_expect_failure(accel_rng_uniform_f32(acc, device, 64, NULL), ACCEL_ERROR_DEVICE_ERROR,
                          sites[i], CU_INVALID_IMAGE);
        snprintf(first, sizeof first, "%s", accel_last_error());
        loads = sim_calls("cuModuleLoadData");
        clear_faults();
        assert_int_equal(accel_rng_uniform_f32(acc, device, 64, NULL), ACCEL_ERROR_DEVICE_ERROR);
        assert_string_equal(accel_last_error(), first);
        assert_int_equal(accel_rng_normal_f32(acc, device, 64, NULL), ACCEL_ERROR_DEVICE_ERROR);
        assert_int_equal(sim_calls("cuModuleLoadData"), loads);
        assert_int_equal(accel_memcpy(acc, host, device, sizeof host, ACCEL_COPY_DEVICE_TO_HOST),
                         ACCEL_OK);
        assert_memory_equal(host, zero, sizeof host);
        assert_int_equal(accel_free(acc, device), ACCEL_OK);
        assert_int_equal(accel_close(acc), ACCEL_OK);

        acc = sim_fault_open_ready();
        assert_int_equal(accel_malloc(acc, sizeof host, (void **)&device), ACCEL_OK);
        assert_int_equal(accel_rng_uniform_f32(acc, device, 64, NULL), ACCEL_OK);
        assert_true(sim_calls("cuModuleLoadData") > loads);
        assert_int_equal(accel_free(acc, device), ACCEL_OK);
        assert_int_equal(accel_close(acc), ACCEL_OK);
    }
}

/* ---------------------------------------------------------------- streams and events */

static void test_stream_faults(void **state)
{
    static const sim_stream_sites_t streams = {
        .stream = {"cuStreamCreateWithPriority", "cuStreamSynchronize", "cuStreamQuery"},
        .event = {"cuEventCreate", "cuEventRecord", "cuEventSynchronize", "cuEventQuery"},
        .stream_wait_event = "cuStreamWaitEvent",
    };
    static const sim_fault_site_t sites[] = {
        /* what a kernel's bad access reports; injected, so not sticky */
        {"cuStreamSynchronize", sim_op_stream_synchronize, ACCEL_ERROR_DEVICE_ERROR,
         .code = CU_ILLEGAL_ADDRESS},
        /* the backend takes the _v2 export (CUDA 12.8) and names the API call */
        {"cuEventElapsedTime_v2", sim_op_event_elapsed, ACCEL_ERROR_DEVICE_ERROR,
         "cuEventElapsedTime"},
        /* destroys that fail are logged; nothing leaks on our side; the wait
         * before a stream's destroy fails: logged, the stream still goes */
        {"cuEventDestroy_v2", sim_op_event_destroy, ACCEL_OK},
        {"cuStreamSynchronize", sim_op_stream_destroy, ACCEL_OK, .then = "cuStreamDestroy_v2"},
        {NULL},
    };
    sim_fault_fixture_t fx = cu_fixture(sim_fault_open_ready());
    (void)state;
    sim_fault_fixture_open(&fx);
    sim_fault_check_streams(&fx, &streams);
    sim_fault_run(&fx, sites);
    sim_fault_fixture_close(&fx);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

/* A refused cuLaunchHostFunc queues nothing: the callback never runs (and
 * whatever core wrapped it in is freed: LeakSanitizer); the next one runs. */
static void test_host_function_fault(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    accel_stream_t *stream = NULL;
    int runs;
    (void)state;
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    runs = __atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST);
    fail_once("cuLaunchHostFunc", CU_UNKNOWN);
    cu_expect_failure(accel_stream_add_callback(stream, count_callback, NULL),
                      ACCEL_ERROR_DEVICE_ERROR, "cuLaunchHostFunc", CU_UNKNOWN);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    assert_int_equal(__atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST), runs);
    assert_int_equal(accel_stream_add_callback(stream, count_callback, NULL), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    assert_int_equal(__atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST), runs + 1);
    clear_faults();
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- graphs */

/* A memset of `value` over `size` bytes at `device`, captured on `stream`
 * into `graph` up to (not including) capture_end. */
static void capture_memset(accel_t *acc, accel_graph_t *graph, accel_stream_t *stream, void *device,
                           size_t size, int value)
{
    assert_int_equal(accel_graph_capture_begin(graph, stream), ACCEL_OK);
    assert_int_equal(accel_memset_async(acc, device, value, size, stream), ACCEL_OK);
}

/* Every graph call site fails once: after a failed begin, end or
 * instantiation the capture is over in core and in the driver (the same
 * graph captures again on the same stream), nothing captured has run, and
 * a failed launch runs nothing. */
static void test_graph_faults(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    accel_stream_t *stream = NULL;
    accel_graph_t *graph = NULL;
    void *device = NULL;
    (void)state;
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, 4096, &device), ACCEL_OK);
    assert_int_equal(accel_memset(acc, device, 0, 4096), ACCEL_OK);
    assert_int_equal(accel_graph_create(acc, &graph), ACCEL_OK);

    fail_once("cuStreamBeginCapture_v2", CU_UNKNOWN);
    cu_expect_failure(accel_graph_capture_begin(graph, stream), ACCEL_ERROR_DEVICE_ERROR,
                      "cuStreamBeginCapture_v2", CU_UNKNOWN);
    /* not capturing: work queued now runs at once */
    assert_int_equal(accel_memset_async(acc, device, 0, 4096, stream), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);

    capture_memset(acc, graph, stream, device, 4096, 5);
    fail_once("cuStreamEndCapture", CU_UNKNOWN);
    cu_expect_failure(accel_graph_capture_end(graph, stream), ACCEL_ERROR_DEVICE_ERROR,
                      "cuStreamEndCapture", CU_UNKNOWN);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    expect_device_bytes(acc, device, 4096, 0);

    capture_memset(acc, graph, stream, device, 4096, 6);
    fail_once("cuGraphInstantiateWithFlags", CU_UNKNOWN);
    cu_expect_failure(accel_graph_capture_end(graph, stream), ACCEL_ERROR_DEVICE_ERROR,
                      "cuGraphInstantiateWithFlags", CU_UNKNOWN);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    expect_device_bytes(acc, device, 4096, 0);

    capture_memset(acc, graph, stream, device, 4096, 7);
    assert_int_equal(accel_graph_capture_end(graph, stream), ACCEL_OK);
    expect_device_bytes(acc, device, 4096, 0);
    fail_once("cuGraphLaunch", CU_UNKNOWN);
    cu_expect_failure(accel_graph_replay(graph, stream), ACCEL_ERROR_DEVICE_ERROR, "cuGraphLaunch",
                      CU_UNKNOWN);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    expect_device_bytes(acc, device, 4096, 0);
    assert_int_equal(accel_graph_replay(graph, stream), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    expect_device_bytes(acc, device, 4096, 7);
    clear_faults();

    assert_int_equal(accel_graph_destroy(graph), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* The failed end as an application meets it: it gives up on the graph.
 * The graph and the stream can be destroyed and the accel_t closed, and
 * the stream really went (the sim's cuStreamDestroy_v2 refuses a stream
 * still capturing). */
static void test_graph_end_capture_fault_cleanup(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    accel_stream_t *stream = NULL;
    accel_graph_t *graph = NULL;
    void *device = NULL;
    unsigned long destroyed;
    (void)state;
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, 4096, &device), ACCEL_OK);
    assert_int_equal(accel_graph_create(acc, &graph), ACCEL_OK);
    capture_memset(acc, graph, stream, device, 4096, 9);
    fail_once("cuStreamEndCapture", CU_UNKNOWN);
    cu_expect_failure(accel_graph_capture_end(graph, stream), ACCEL_ERROR_DEVICE_ERROR,
                      "cuStreamEndCapture", CU_UNKNOWN);
    clear_faults();
    assert_int_equal(accel_graph_destroy(graph), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    /* cuStreamQuery is refused on a stream that captures */
    assert_int_equal(accel_stream_query(stream), ACCEL_OK);
    destroyed = sim_calls("cuStreamDestroy_v2");
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(sim_calls("cuStreamDestroy_v2"), destroyed + 1);
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* Every wait's vendor call failed once and twice in a row under in-flight
 * work (sim_fault_check_sync): the device, stream and event synchronize,
 * and the wait of a copy to pageable memory. */
static void test_sync_under_load(void **state)
{
    static const sim_fault_site_t sites[] = {
        {"cuCtxSynchronize", sim_op_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {"cuStreamSynchronize", sim_op_stream_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {"cuEventSynchronize", sim_op_event_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {"cuStreamSynchronize", sim_op_copy_to_pageable, ACCEL_ERROR_DEVICE_ERROR},
        {NULL},
    };
    sim_fault_fixture_t fx = cu_fixture(sim_fault_open_ready());
    (void)state;
    sim_fault_fixture_open(&fx);
    sim_fault_check_sync(&fx, sites);
    sim_fault_fixture_close(&fx);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FAULT_TEST(test_open_faults),       FAULT_TEST(test_init_faults),
        FAULT_TEST(test_context_faults),    FAULT_TEST(test_device_faults),
        FAULT_MEMORY_TEST(&memory_sites),   FAULT_TEST(test_alloc_out_of_memory),
        FAULT_TEST(test_memory_unchanged),  FAULT_TEST(test_rng_faults),
        FAULT_TEST(test_module_load_fault), FAULT_TEST(test_stream_faults),
        FAULT_TEST(test_sync_under_load),   FAULT_TEST(test_host_function_fault),
        FAULT_TEST(test_graph_faults),      FAULT_TEST(test_graph_end_capture_fault_cleanup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
