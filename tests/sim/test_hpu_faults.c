/* test_hpu_faults.c: every SynapseAI and HLML call site of the hpu backend
 * made to fail on the simulated libSynapse.so / libhlml.so
 * (ACCEL_HPU_LIBRARY, ACCEL_HPU_HLML_LIBRARY, set by ctest), one at a time.
 * For each: the sim's call count proves the site was reached; a call that
 * returns a status gives the expected status and a last-error sentence
 * naming the Synapse function and the injected synStatus; then, with the
 * fault cleared, the same operation works again, as it would on the real
 * runtime. Slots that return nothing (frees, destroys, release) must survive
 * the fault. HLML failures fall back to counting device nodes. The ASan
 * build runs this under LeakSanitizer, so a path that leaks on failure fails
 * the test. ctest sets ACCEL_SIM_SYN_LOCK_DIR, so the test can play another
 * process holding a Gaudi by taking its lock file. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <accel/accel.h>

/* The backend, the variable that names its Synapse sim, and how the
 * backend writes a vendor code in its sentences. */
#define SIM_BACKEND     "hpu"
#define SIM_LIBRARY_ENV "ACCEL_HPU_LIBRARY"
#define SIM_CODE_FORMAT "synStatus %d"
#include "common/sim_fault_driver.h"
#include "common/sim_gate.h"

/* Codes injected: synFail (DEVICE_ERROR) and synOutOfDeviceMemory. */
#define SYN_FAIL     26
#define SYN_OOM      4
#define HLML_UNKNOWN 49

/* The HLML sim's controls (sim_fault_check.h binds Synapse's), bound by
 * test_hlml_faults. */
static int (*hlml_fault_set)(const char *spec);
static unsigned long (*hlml_calls)(const char *function);

/* ---------------------------------------------------------------- lifecycle */

/* Runs first: synInitialize is tried again by the next backend. */
static void test_init_faults(void **state)
{
    static const char *const init[] = {"synInitialize", "synDriverGetVersion", "synDeviceGetCount",
                                       "synDeviceGetAttributeByModuleId", NULL};
    (void)state;
    sim_fault_check_init(init, SYN_FAIL);
}

/* DeepSpeed's workarounds were set by init (ctest leaves them unset). */
static void test_workarounds_set(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    (void)state;
    assert_string_equal(getenv("PT_HPU_LAZY_ACC_PAR_MODE"), "0");
    assert_string_equal(getenv("PT_HPU_ENABLE_REFINE_DYNAMIC_SHAPES"), "0");
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* Acquisition: a plain failure, then a Gaudi another process holds (the
 * sim's lock file, taken here), then the same Gaudi once it is free. */
static void test_acquire_faults(void **state)
{
    accel_t *acc;
    const char *dir = getenv("ACCEL_SIM_SYN_LOCK_DIR");
    char path[512];
    int fd;
    (void)state;
    acc = sim_fault_open();
    CHECK_SITE("synDeviceAcquireByModuleId", SYN_FAIL, ACCEL_ERROR_DEVICE_ERROR,
               accel_synchronize(acc, 0));
    assert_int_equal(accel_close(acc), ACCEL_OK);

    assert_non_null(dir);
    snprintf(path, sizeof path, "%s/module1.lock", dir);
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    acc = sim_fault_open();
    expect_failure(accel_synchronize(acc, 1), ACCEL_ERROR_DEVICE_ERROR,
                   "synDeviceAcquireByModuleId", 8);
    assert_non_null(strstr(accel_last_error(), "probably held by another process"));
    assert_non_null(strstr(accel_last_error(), "one process at a time"));
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK); /* the other Gaudi is free */
    close(fd);
    assert_int_equal(accel_synchronize(acc, 1), ACCEL_OK);

    /* two accel_t in one process share the acquisition */
    {
        accel_t *second = sim_fault_open_ready();
        assert_int_equal(accel_synchronize(second, 1), ACCEL_OK);
        assert_int_equal(accel_close(second), ACCEL_OK);
        assert_int_equal(accel_synchronize(acc, 1), ACCEL_OK);
    }
    /* the default stream is made at acquisition */
    assert_int_equal(accel_close(acc), ACCEL_OK);
    acc = sim_fault_open();
    CHECK_SITE("synStreamCreateGeneric", SYN_FAIL, ACCEL_ERROR_DEVICE_ERROR,
               accel_synchronize(acc, 0));
    /* release failing at close is logged */
    CHECK_SURVIVES("synDeviceRelease", SYN_FAIL, accel_close(acc));
}

/* HLML failing anywhere: the count falls back to the driver's nodes. */
static void test_hlml_faults(void **state)
{
    static const char *const sites[] = {"hlml_init", "hlml_device_get_count",
                                        "hlml_device_get_handle_by_index",
                                        "hlml_device_get_module_id", "hlml_shutdown"};
    char dir[] = "/tmp/accel-hpu-faults-XXXXXX", sub[64], node[96];
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/accel", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    for (int i = 0; i < 2; i++) {
        int fd;
        snprintf(node, sizeof node, "%s/accel%d", sub, i);
        fd = open(node, O_CREAT | O_WRONLY, 0600);
        assert_true(fd >= 0);
        close(fd);
    }
    setenv("ACCEL_HPU_DEVICE_DIR", dir, 1);
    accel_close(sim_fault_open()); /* binds the Synapse sim */
    *(void **)&hlml_fault_set = sim_symbol("ACCEL_HPU_HLML_LIBRARY", "accel_sim_fault_set");
    *(void **)&hlml_calls = sim_symbol("ACCEL_HPU_HLML_LIBRARY", "accel_sim_calls");
    for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++) {
        char spec[96];
        accel_t *acc;
        int count = 0;
        unsigned long before = hlml_calls(sites[i]);
        snprintf(spec, sizeof spec, "%s:*:%d", sites[i], HLML_UNKNOWN);
        assert_int_equal(hlml_fault_set(spec), 0);
        acc = sim_fault_open();
        assert_int_equal(accel_device_count(acc, &count), ACCEL_OK);
        assert_int_equal(count, 2);
        assert_int_equal(accel_synchronize(acc, 1), ACCEL_OK);
        assert_int_equal(hlml_fault_set(NULL), 0);
        assert_true(hlml_calls(sites[i]) > before);
        assert_int_equal(accel_close(acc), ACCEL_OK);
    }
    unsetenv("ACCEL_HPU_DEVICE_DIR");
    for (int i = 0; i < 2; i++) {
        snprintf(node, sizeof node, "%s/accel%d", sub, i);
        unlink(node);
    }
    rmdir(sub);
    rmdir(dir);
}

/* ---------------------------------------------------------------- devices and memory */

/* Device 1 is not acquired: asked by module id. */
static accel_status_t available_memory_1(sim_fault_fixture_t *fx)
{
    uint64_t available = 0;
    return accel_available_memory(fx->acc, 1, &available);
}

static void test_device_faults(void **state)
{
    static const sim_fault_site_t sites[] = {
        {"synDeviceSynchronize", sim_op_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {"synDeviceGetMemoryInfo", sim_op_available_memory, ACCEL_ERROR_DEVICE_ERROR},
        {"synDeviceGetAttributeByModuleId", available_memory_1, ACCEL_ERROR_DEVICE_ERROR},
        {NULL},
    };
    sim_fault_fixture_t fx = {.acc = sim_fault_open_ready(), .code = SYN_FAIL};
    (void)state;
    sim_fault_run(&fx, sites);
    /* the status text failing too still leaves function and code */
    assert_int_equal(sim_fault_set("synDeviceSynchronize:*:26,synStatusGetBriefDescription:*:26"),
                     0);
    expect_failure(accel_synchronize(fx.acc, 0), ACCEL_ERROR_DEVICE_ERROR, "synDeviceSynchronize",
                   SYN_FAIL);
    clear_faults();
    assert_true(sim_calls("synStatusGetBriefDescription") > 0);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

static void test_memory_faults(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    void *device = NULL, *pinned = NULL;
    static char host[4096];
    (void)state;
    fail_every("synDeviceMalloc", SYN_OOM);
    expect_failure_text(accel_malloc(acc, 3 << 20, &device), ACCEL_ERROR_OUT_OF_MEMORY,
                        "synDeviceMalloc", SYN_OOM);
    CHECK_SITE("synDeviceMalloc", SYN_FAIL, ACCEL_ERROR_DEVICE_ERROR,
               accel_malloc(acc, 5 << 20, &device));
    /* a pageable source goes through a staging buffer: each of its calls */
    CHECK_SITE("synHostMalloc", SYN_FAIL, ACCEL_ERROR_DEVICE_ERROR,
               accel_memcpy(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE));
    CHECK_SITE("synEventCreate", SYN_FAIL, ACCEL_ERROR_DEVICE_ERROR,
               accel_memcpy(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE));
    CHECK_SITE("synMemCopyAsync", SYN_FAIL, ACCEL_ERROR_DEVICE_ERROR,
               accel_memcpy(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE));
    CHECK_SITE("synEventRecord", SYN_FAIL, ACCEL_ERROR_DEVICE_ERROR,
               accel_memcpy(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE));
    CHECK_SITE("synMemCopyAsync", SYN_FAIL, ACCEL_ERROR_DEVICE_ERROR,
               accel_memcpy(acc, host, device, sizeof host, ACCEL_COPY_DEVICE_TO_HOST));
    CHECK_SITE("synMemsetD8Async", SYN_FAIL, ACCEL_ERROR_DEVICE_ERROR,
               accel_memset(acc, device, 7, sizeof host));
    /* staging buffers are swept with synEventQuery (logged when it fails) */
    CHECK_SURVIVES("synEventQuery", SYN_FAIL,
                   accel_memcpy(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE));
    /* ...and a buffer whose query failed is kept: its copy may still read it
     * (in flight under hpu.faults_slow_streams) */
    assert_int_equal(
        accel_memcpy_async(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE, NULL),
        ACCEL_OK);
    CHECK_SURVIVES(
        "synEventQuery", SYN_FAIL,
        accel_memcpy_async(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE, NULL));
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    CHECK_SURVIVES("synDeviceFree", SYN_FAIL, accel_empty_cache(acc));

    CHECK_SITE("synHostMalloc", SYN_FAIL, ACCEL_ERROR_DEVICE_ERROR,
               accel_host_alloc(acc, 4096, &pinned));
    CHECK_SURVIVES("synHostFree", SYN_FAIL, host_free_and_release(acc, pinned));
    CHECK_SITE("synHostMap", SYN_FAIL, ACCEL_ERROR_DEVICE_ERROR,
               accel_host_register(acc, host, sizeof host));
    CHECK_SURVIVES("synHostUnmap", SYN_FAIL, accel_host_unregister(acc, host));
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* A copy to pageable memory whose wait fails (synStreamSynchronize) may
 * still be writing into its staging buffer: the buffer is not freed then
 * (issue 28 G2, where it was, and the copy wrote into freed memory under
 * hpu.faults_slow_streams), but once the copy is known finished (here: at
 * close, with the fault cleared). */
static void test_pageable_copy_failed_wait_keeps_staging(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    void *device = NULL;
    static char host[1 << 16];
    unsigned long frees;
    (void)state;
    assert_int_equal(accel_malloc(acc, sizeof host, &device), ACCEL_OK);
    assert_int_equal(accel_memset(acc, device, 0x5a, sizeof host), ACCEL_OK);
    frees = sim_calls("synHostFree");
    fail_every("synStreamSynchronize", SYN_FAIL);
    expect_failure(accel_memcpy(acc, host, device, sizeof host, ACCEL_COPY_DEVICE_TO_HOST),
                   ACCEL_ERROR_DEVICE_ERROR, "synStreamSynchronize", SYN_FAIL);
    assert_int_equal(sim_calls("synHostFree"), frees);
    clear_faults();
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
    assert_true(sim_calls("synHostFree") > frees);
}

/* Random fills: staging, its event, the copy, the record; a fill still in
 * flight at close whose wait fails keeps its staging buffer. */
static void test_rng_faults(void **state)
{
    static const char *const sites[] = {"synHostMalloc", "synEventCreate", "synMemCopyAsync",
                                        "synEventRecord", NULL};
    accel_t *acc = sim_fault_open_ready();
    (void)state;
    check_rng_fill_sites(acc, sites, SYN_FAIL);
    check_close_with_fill_in_flight(acc, "synEventSynchronize", SYN_FAIL);
}

/* ---------------------------------------------------------------- streams and events */

/* The wait runs on a second stream (a wait on the event's own stream is
 * refused by Synapse). */
static accel_status_t wait_on_other_stream(sim_fault_fixture_t *fx)
{
    return accel_stream_wait_event(fx->user, fx->end);
}

static void test_stream_faults(void **state)
{
    static const sim_stream_sites_t streams = {
        .stream = {"synStreamCreateGeneric", "synStreamSynchronize", "synStreamQuery"},
        .event = {"synEventCreate", "synEventRecord", "synEventSynchronize", "synEventQuery",
                  "synEventElapsedTime"},
    };
    static const sim_fault_site_t sites[] = {
        {"synStreamWaitEvent", wait_on_other_stream, ACCEL_ERROR_DEVICE_ERROR},
        /* destroys that fail are logged; nothing leaks on our side */
        {"synStreamDestroy", sim_op_stream_destroy, ACCEL_OK},
        {"synEventDestroy", sim_op_event_destroy, ACCEL_OK},
        {NULL},
    };
    sim_fault_fixture_t fx = {.acc = sim_fault_open_ready(), .code = SYN_FAIL};
    accel_t *acc = fx.acc;
    accel_stream_t *other = NULL;
    (void)state;
    sim_fault_fixture_open(&fx);
    assert_int_equal(accel_stream_create(acc, 0, 0, &other), ACCEL_OK);
    fx.user = other;
    sim_fault_check_streams(&fx, &streams);
    sim_fault_run(&fx, sites);

    /* Work deferred behind a callback that fails when it is submitted: the
     * stream's next synchronize says so, once; the stream works after. */
    {
        sim_gate_t gate = SIM_GATE_INIT;
        void *device = NULL;
        unsigned long before = sim_calls("synMemsetD8Async");
        assert_int_equal(accel_malloc(acc, 4096, &device), ACCEL_OK);
        assert_int_equal(accel_stream_add_callback(other, sim_gate_wait, &gate), ACCEL_OK);
        assert_int_equal(accel_memset_async(acc, device, 1, 4096, other), ACCEL_OK);
        fail_every("synMemsetD8Async", SYN_FAIL);
        sim_gate_open(&gate);
        expect_failure(accel_stream_synchronize(other), ACCEL_ERROR_DEVICE_ERROR,
                       "synMemsetD8Async", SYN_FAIL);
        assert_non_null(strstr(accel_last_error(), "deferred behind a callback"));
        clear_faults();
        assert_true(sim_calls("synMemsetD8Async") > before);
        assert_int_equal(accel_stream_synchronize(other), ACCEL_OK);
        assert_int_equal(accel_stream_add_callback(other, count_callback, NULL), ACCEL_OK);
        assert_int_equal(accel_stream_synchronize(other), ACCEL_OK);
        assert_int_equal(__atomic_load_n(&callback_runs, __ATOMIC_SEQ_CST), 1);
        assert_int_equal(accel_free(acc, device), ACCEL_OK);
    }

    assert_int_equal(accel_stream_destroy(other), ACCEL_OK);
    sim_fault_fixture_close(&fx);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* A record that fails leaves the event as it was: a later wait on the
 * stream of the failed record still waits for the earlier record on the
 * other stream (it must not be taken for "recorded here, already in
 * order"). */
static int marked_a;
static void mark_a(void *arg)
{
    (void)arg;
    __atomic_store_n(&marked_a, 1, __ATOMIC_SEQ_CST);
}
static int seen_by_b;
static void observe_a(void *arg)
{
    (void)arg;
    __atomic_store_n(&seen_by_b, __atomic_load_n(&marked_a, __ATOMIC_SEQ_CST) + 1,
                     __ATOMIC_SEQ_CST);
}

static void test_failed_record_keeps_event(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    accel_stream_t *a = NULL, *b = NULL;
    accel_event_t *event = NULL;
    sim_gate_t gate = SIM_GATE_INIT;
    (void)state;
    assert_int_equal(accel_stream_create(acc, 0, 0, &a), ACCEL_OK);
    assert_int_equal(accel_stream_create(acc, 0, 0, &b), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_DEFAULT, &event), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(a, sim_gate_wait, &gate), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(a, mark_a, NULL), ACCEL_OK);
    assert_int_equal(accel_event_record(event, a), ACCEL_OK);
    fail_every("synEventRecord", SYN_FAIL);
    expect_failure(accel_event_record(event, b), ACCEL_ERROR_DEVICE_ERROR, "synEventRecord",
                   SYN_FAIL);
    clear_faults();
    assert_int_equal(accel_stream_wait_event(b, event), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(b, observe_a, NULL), ACCEL_OK);
    assert_int_equal(accel_stream_query(b), ACCEL_ERROR_NOT_READY);
    sim_gate_open(&gate);
    assert_int_equal(accel_stream_synchronize(b), ACCEL_OK);
    assert_int_equal(__atomic_load_n(&seen_by_b, __ATOMIC_SEQ_CST), 2);
    assert_int_equal(accel_stream_synchronize(a), ACCEL_OK);
    assert_int_equal(accel_event_destroy(event), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(a), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(b), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* Synapse maps host memory per Gaudi: memory pinned while device 0 was
 * current is staged, not handed to device 1's DMA (the sim refuses that). */
static void test_pinned_on_other_gaudi(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    uint8_t *pinned = NULL, back[256];
    void *device = NULL;
    (void)state;
    assert_int_equal(accel_host_alloc(acc, sizeof back, (void **)&pinned), ACCEL_OK);
    for (size_t i = 0; i < sizeof back; i++)
        pinned[i] = (uint8_t)(i * 7);
    assert_int_equal(accel_set_device(acc, 1), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, sizeof back, &device), ACCEL_OK);
    assert_int_equal(accel_memcpy(acc, device, pinned, sizeof back, ACCEL_COPY_HOST_TO_DEVICE),
                     ACCEL_OK);
    memset(pinned, 0, sizeof back);
    assert_int_equal(accel_memcpy(acc, pinned, device, sizeof back, ACCEL_COPY_DEVICE_TO_HOST),
                     ACCEL_OK);
    memcpy(back, pinned, sizeof back);
    for (size_t i = 0; i < sizeof back; i++)
        assert_int_equal(back[i], (uint8_t)(i * 7));
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_host_free(acc, pinned), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* Closing with a pageable copy still held back by a callback on the
 * default stream: the copy lands and its staging buffer is freed (ASan's
 * leak check sees it otherwise). */
static void gate_open_later(void *arg)
{
    usleep(20000);
    (void)arg;
}

static void test_close_with_deferred_copy(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    accel_stream_t *stream = NULL;
    static char host[512];
    void *device = NULL;
    (void)state;
    assert_int_equal(accel_default_stream(acc, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, sizeof host, &device), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(stream, gate_open_later, NULL), ACCEL_OK);
    assert_int_equal(
        accel_memcpy_async(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE, stream),
        ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* A callback that would wait for its own stream is refused, not hung. */
typedef struct self_wait {
    accel_t *acc;
    accel_stream_t *stream;
    void *device;
    accel_status_t sync, copy;
    char text[256];
} self_wait_t;

static void self_wait_callback(void *arg)
{
    self_wait_t *check = arg;
    static char pageable[64];
    check->sync = accel_stream_synchronize(check->stream);
    snprintf(check->text, sizeof check->text, "%s", accel_last_error());
    check->copy = accel_memcpy_async(check->acc, pageable, check->device, sizeof pageable,
                                     ACCEL_COPY_DEVICE_TO_HOST, check->stream);
}

static void test_callback_self_wait(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    self_wait_t check = {.acc = acc};
    (void)state;
    assert_int_equal(accel_stream_create(acc, 0, 0, &check.stream), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, 64, &check.device), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(check.stream, self_wait_callback, &check), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(check.stream), ACCEL_OK);
    assert_int_equal(check.sync, ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(check.text, "would wait for itself"));
    assert_int_equal(check.copy, ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_free(acc, check.device), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(check.stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- fork */

static void test_fork_refused(void **state)
{
    (void)state;
    sim_fault_check_fork_refused("synDeviceMalloc", ACCEL_ERROR_DEVICE_ERROR, NULL);
}

/* A failed check leaves its fault set, in either sim: clear both. */
static int clear_both_after(void **state)
{
    if (hlml_fault_set != NULL)
        hlml_fault_set(NULL);
    return sim_fault_clear_after(state);
}

#undef FAULT_TEST
#define FAULT_TEST(f) cmocka_unit_test_teardown(f, clear_both_after)

/* The vendor calls behind every wait, each failed once and twice in a row
 * under in-flight work (FAULT_SYNC_TEST, sim_fault_driver.h). */
static const sim_sync_sites_t sync_sites = {
    .code = SYN_FAIL,
    .device = "synDeviceSynchronize",
    .stream = "synStreamSynchronize",
    .event = "synEventSynchronize",
    .pageable = "synStreamSynchronize",
};

int main(void)
{
    const struct CMUnitTest tests[] = {
        FAULT_TEST(test_init_faults),
        FAULT_TEST(test_workarounds_set),
        FAULT_TEST(test_acquire_faults),
        FAULT_TEST(test_hlml_faults),
        FAULT_TEST(test_device_faults),
        FAULT_TEST(test_memory_faults),
        FAULT_TEST(test_pageable_copy_failed_wait_keeps_staging),
        FAULT_TEST(test_rng_faults),
        FAULT_TEST(test_stream_faults),
        FAULT_SYNC_TEST(&sync_sites),
        FAULT_TEST(test_failed_record_keeps_event),
        FAULT_TEST(test_pinned_on_other_gaudi),
        FAULT_TEST(test_close_with_deferred_copy),
        FAULT_TEST(test_callback_self_wait),
        FAULT_TEST(test_fork_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
