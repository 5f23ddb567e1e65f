/* test_sdaa_faults.c: every SDAA runtime call site of the sdaa backend made
 * to fail on the simulated libsdaart (ACCEL_SDAA_LIBRARY, set by ctest), one
 * at a time. For each: the sim's call count proves the site was reached; a
 * call that returns a status gives the expected status and a last-error
 * sentence naming the SDAA function and the injected sdaaError_t; then,
 * with the fault cleared, the same operation works again, as it would on
 * the real runtime. Slots that return nothing (frees, destroys) must
 * survive the fault. The ASan build runs this under LeakSanitizer, so a
 * path that leaks on failure fails the test. sdaaGetErrorName and
 * sdaaGetErrorString cannot fail (they return text, not a code). Also: the
 * fork rule and the rule that a host callback may not call the runtime. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <accel/accel.h>

/* The backend, the variable that names its sim, and how the backend writes
 * a vendor code in its sentences. */
#define SIM_BACKEND     "sdaa"
#define SIM_LIBRARY_ENV "ACCEL_SDAA_LIBRARY"
#define SIM_CODE_FORMAT "sdaaError_t %d (sdaaError"
#include "common/sim_fault_driver.h"

/* Codes injected: sdaaErrorUnknown (DEVICE_ERROR) and, for allocations,
 * sdaaErrorOutOfMemory. */
#define SDAA_UNKNOWN 999
#define SDAA_MEMORY  2

/* ---------------------------------------------------------------- lifecycle */

/* init's calls: a failed init is tried again by the next backend. Opening
 * counts devices: a failure there refuses the open, saying why. Each new
 * backend sets the device on its first call on a thread. */
static void test_init_faults(void **state)
{
    static const char *const init[] = {"sdaaGetDeviceCount", "sdaaRuntimeGetVersion",
                                       "sdaaDriverGetVersion", NULL};
    (void)state;
    sim_fault_check_init(init, SDAA_UNKNOWN);
    sim_fault_check_open_refused("sdaaGetDeviceCount", SDAA_UNKNOWN);
    sim_fault_check_first_use("sdaaSetDevice", SDAA_UNKNOWN);
}

/* ---------------------------------------------------------------- devices and memory */

static void test_device_faults(void **state)
{
    static const sim_fault_site_t sites[] = {
        {"sdaaDeviceSynchronize", sim_op_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {"sdaaGetDeviceProperties", sim_op_device_properties, ACCEL_ERROR_DEVICE_ERROR},
        {"sdaaMemGetInfo", sim_op_available_memory, ACCEL_ERROR_DEVICE_ERROR},
        {NULL},
    };
    sim_fault_fixture_t fx = {.acc = sim_fault_open_ready(), .code = SDAA_UNKNOWN};
    accel_device_properties_t props = {.struct_size = sizeof props};
    (void)state;
    sim_fault_run(&fx, sites);
    assert_int_equal(accel_device_properties(fx.acc, 0, &props), ACCEL_OK);
    assert_string_equal(props.name, "Teco T1 (simulated)");
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

/* The memory sites every runtime has (sim_fault_check.h). */
static const sim_memory_sites_t memory_sites = {
    .codes = {SDAA_UNKNOWN, SDAA_MEMORY},
    .device = {"sdaaMalloc", "sdaaFree"},
    .pinned = {"sdaaMallocHost", "sdaaFreeHost"},
    /* registered: no registration in the public API */
    .h2d_fns = {"sdaaMemcpyAsync"},
    .memset_fn = "sdaaMemsetAsync",
};

static void test_rng_faults(void **state)
{
    static const char *const sites[] = {"sdaaMallocHost", "sdaaEventCreate", "sdaaMemcpyAsync",
                                        "sdaaEventRecord", NULL};
    accel_t *acc = sim_fault_open_ready();
    void *device = NULL;
    (void)state;
    check_rng_fill_sites(acc, sites, SDAA_UNKNOWN);
    /* the staging sweep's query, and the release's wait and frees: logged */
    assert_int_equal(accel_malloc(acc, 256, &device), ACCEL_OK);
    CHECK_SURVIVES("sdaaEventQuery", SDAA_UNKNOWN, accel_rng_u32(acc, device, 64, NULL));
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    check_close_with_fill_in_flight(acc, "sdaaEventSynchronize", SDAA_UNKNOWN);
}

/* ---------------------------------------------------------------- streams and events */

static void test_stream_faults(void **state)
{
    static const sim_stream_sites_t streams = {
        .stream = {"sdaaStreamCreateWithFlags", "sdaaStreamSynchronize", "sdaaStreamQuery"},
        .event = {"sdaaEventCreate", "sdaaEventRecord", "sdaaEventSynchronize", "sdaaEventQuery",
                  "sdaaEventElapsedTime"},
        .stream_wait_event = "sdaaStreamWaitEvent",
        /* a failed add runs nothing (and its record is freed: LeakSanitizer) */
        .add_callback = "sdaaStreamAddCallback",
    };
    static const sim_fault_site_t sites[] = {
        /* destroys that fail are logged; nothing leaks on our side; the wait
         * before a stream's destroy fails: logged, the stream still goes */
        {"sdaaEventDestroy", sim_op_event_destroy, ACCEL_OK},
        {"sdaaStreamSynchronize", sim_op_stream_destroy, ACCEL_OK, .then = "sdaaStreamDestroy"},
        {"sdaaStreamDestroy", sim_op_stream_destroy, ACCEL_OK},
        {NULL},
    };
    sim_fault_fixture_t fx = {.acc = sim_fault_open_ready(), .code = SDAA_UNKNOWN};
    int runs = __atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST);
    (void)state;
    sim_fault_fixture_open(&fx);
    sim_fault_check_streams(&fx, &streams);
    sim_fault_run(&fx, sites);
    assert_int_equal(accel_stream_synchronize(fx.stream), ACCEL_OK);
    /* only the retry of the failed add ran */
    assert_int_equal(__atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST), runs + 1);
    sim_fault_fixture_close(&fx);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- callbacks */

typedef struct inside_call {
    accel_t *acc;
    accel_status_t status;
    char message[512];
    unsigned long mallocs_before, mallocs_after;
} inside_call_t;

/* A callback that calls the backend: refused before reaching the runtime. */
static void malloc_in_callback(void *arg)
{
    inside_call_t *call = arg;
    void *ptr = NULL;
    call->mallocs_before = sim_calls("sdaaMalloc");
    call->status = accel_malloc(call->acc, 64 << 20, &ptr);
    snprintf(call->message, sizeof call->message, "%s", accel_last_error());
    call->mallocs_after = sim_calls("sdaaMalloc");
}

static void test_callback_may_not_call_runtime(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    accel_stream_t *stream = NULL;
    inside_call_t call = {.acc = acc};
    (void)state;
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(stream, malloc_in_callback, &call), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    assert_int_equal(call.status, ACCEL_ERROR_UNSUPPORTED);
    assert_non_null(strstr(call.message, "host callback may not call the SDAA runtime"));
    assert_true(call.mallocs_after == call.mallocs_before);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- fork */

/* After the runtime was started, a forked child gets a clear refusal from
 * every call and the sim sees no call from it. */
static void test_fork_refused(void **state)
{
    (void)state;
    sim_fault_check_fork_refused("sdaaMalloc", ACCEL_ERROR_DEVICE_ERROR, NULL);
}

/* ---------------------------------------------------------------- the sim itself */

static void slow_sim_callback(void *stream, int status, void *user_data)
{
    (void)stream;
    (void)status;
    usleep(20000); /* still running when the destroy and the device wait start */
    __atomic_store_n((int *)user_data, 1, __ATOMIC_SEQ_CST);
}

/* The sim's sdaaStreamDestroy returns at once (CUDA's rule): a device
 * synchronize right after must still wait for the destroyed stream's work,
 * and must not touch the stream once its worker has freed it (ASan). */
static void test_sim_destroy_then_device_sync(void **state)
{
    int (*stream_create)(void **, unsigned);
    int (*stream_destroy)(void *);
    int (*add_callback)(void *, void (*)(void *, int, void *), void *, unsigned);
    int (*device_sync)(void);
    void *library, *stream = NULL;
    int done = 0;
    (void)state;
    library = dlopen(getenv("ACCEL_SDAA_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(library);
    *(void **)&stream_create = dlsym(library, "sdaaStreamCreateWithFlags");
    *(void **)&stream_destroy = dlsym(library, "sdaaStreamDestroy");
    *(void **)&add_callback = dlsym(library, "sdaaStreamAddCallback");
    *(void **)&device_sync = dlsym(library, "sdaaDeviceSynchronize");
    assert_non_null(stream_create);
    assert_non_null(stream_destroy);
    assert_non_null(add_callback);
    assert_non_null(device_sync);
    assert_int_equal(stream_create(&stream, 1), 0);
    assert_int_equal(add_callback(stream, slow_sim_callback, &done, 0), 0);
    assert_int_equal(stream_destroy(stream), 0);
    assert_int_equal(device_sync(), 0);
    assert_int_equal(__atomic_load_n(&done, __ATOMIC_SEQ_CST), 1);
    dlclose(library);
}

/* The vendor calls behind every wait, each failed once and twice in a row
 * under in-flight work (FAULT_SYNC_TEST, sim_fault_driver.h). */
static const sim_sync_sites_t sync_sites = {
    .code = SDAA_UNKNOWN,
    .device = "sdaaDeviceSynchronize",
    .stream = "sdaaStreamSynchronize",
    .event = "sdaaEventSynchronize",
    .pageable = "sdaaStreamSynchronize",
};

int main(void)
{
    const struct CMUnitTest tests[] = {
        FAULT_TEST(test_init_faults),
        FAULT_TEST(test_device_faults),
        FAULT_MEMORY_TEST(&memory_sites),
        FAULT_TEST(test_rng_faults),
        FAULT_TEST(test_stream_faults),
        FAULT_SYNC_TEST(&sync_sites),
        FAULT_TEST(test_callback_may_not_call_runtime),
        FAULT_TEST(test_fork_refused),
        FAULT_TEST(test_sim_destroy_then_device_sync),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
