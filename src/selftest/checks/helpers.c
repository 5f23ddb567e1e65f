/* helpers.c: helpers of check.h shared by the checks (capability checks,
 * device buffer round trips, a gate for blocking host callbacks, threads). */
#include "conformance.h"

#include <stdlib.h>

bool conf_flag(accel_flag_t flag)
{
    bool value = false;
    assert_ok(accel_query_flag(conformance_acc, flag, &value));
    return value;
}

void conf_require_streams(void)
{
    if (!conf_flag(ACCEL_FLAG_STREAMS_SUPPORTED))
        conf_skip("backend reports no stream support (ACCEL_FLAG_STREAMS_SUPPORTED false)");
}

void conf_require_events(void)
{
    if (!conf_flag(ACCEL_FLAG_EVENTS_SUPPORTED))
        conf_skip("backend reports no event support (ACCEL_FLAG_EVENTS_SUPPORTED false)");
}

void conf_require_flag(accel_flag_t flag, const char *what)
{
    if (!conf_flag(flag))
        conf_skip("backend reports no %s (%s false)", what, accel_flag_name(flag));
}

int conf_device_count(void)
{
    int count = 0;
    assert_ok(accel_device_count(conformance_acc, &count));
    assert_true(count >= 1);
    return count;
}

int conf_current_device(void)
{
    int device = -1;
    assert_ok(accel_current_device(conformance_acc, &device));
    return device;
}

void *conf_device_alloc(size_t size)
{
    void *ptr = NULL;
    assert_ok(accel_malloc(conformance_acc, size, &ptr));
    assert_non_null(ptr);
    return ptr;
}

void conf_device_free(void *ptr)
{
    assert_ok(accel_free(conformance_acc, ptr));
}

void conf_sync_current_stream(void)
{
    accel_stream_t *stream = NULL;
    assert_ok(accel_current_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &stream));
    assert_ok(accel_stream_synchronize(stream));
}

void conf_to_host(void *host, const void *device, size_t size)
{
    conf_sync_current_stream();
    assert_ok(accel_memcpy(conformance_acc, host, device, size, ACCEL_COPY_DEVICE_TO_HOST));
}

void conf_to_device(void *device, const void *host, size_t size)
{
    assert_ok(accel_memcpy(conformance_acc, device, host, size, ACCEL_COPY_HOST_TO_DEVICE));
}

void conf_rng_u32(uint32_t *out, size_t count)
{
    uint32_t *device = conf_device_alloc(count * sizeof *out);
    assert_ok(accel_rng_u32(conformance_acc, device, count, NULL));
    conf_to_host(out, device, count * sizeof *out);
    conf_device_free(device);
}

uint64_t conf_rng_offset(void)
{
    uint8_t state[ACCEL_RNG_STATE_SIZE];
    uint64_t offset = 0;
    assert_ok(accel_get_rng_state(conformance_acc, ACCEL_CURRENT_DEVICE, state, sizeof state));
    for (int i = 7; i >= 0; i--)
        offset = (offset << 8) | state[8 + i];
    return offset;
}

uint64_t conf_allocated(void)
{
    uint64_t value = 0;
    assert_ok(accel_memory_allocated(conformance_acc, ACCEL_CURRENT_DEVICE, &value));
    return value;
}

bool conf_memory_stat_entry(size_t index, const char **key, uint64_t *value)
{
    *key = NULL;
    *value = 0;
    accel_status_t status =
        accel_memory_stats_entry(conformance_acc, ACCEL_CURRENT_DEVICE, index, key, value);
    if (status == ACCEL_ERROR_NOT_FOUND)
        return false;
    assert_ok(status);
    return true;
}

uint64_t conf_memory_stat(const char *name)
{
    const char *key = NULL;
    uint64_t value = 0;
    for (size_t index = 0; conf_memory_stat_entry(index, &key, &value); index++) {
        if (strcmp(key, name) == 0)
            return value;
    }
    fail_msg("memory stats have no key %s", name);
    return 0;
}

void conf_assert_peaks_are_current(void)
{
    accel_memory_stats_t stats = ACCEL_STRUCT_INIT(accel_memory_stats_t);
    assert_ok(accel_memory_stats(conformance_acc, ACCEL_CURRENT_DEVICE, &stats));
    assert_true(stats.allocated_bytes_peak == stats.allocated_bytes);
    assert_true(stats.reserved_bytes_peak == stats.reserved_bytes);
    assert_true(stats.requested_bytes_peak == stats.requested_bytes);
    assert_true(stats.allocation_count_peak == stats.allocation_count);
    assert_true(stats.segment_count_peak == stats.segment_count);
}

void conf_gate_init(conf_gate_t *gate)
{
    pthread_mutex_init(&gate->lock, NULL);
    pthread_cond_init(&gate->cond, NULL);
    gate->open = false;
}

void conf_gate_open(conf_gate_t *gate)
{
    pthread_mutex_lock(&gate->lock);
    gate->open = true;
    pthread_cond_broadcast(&gate->cond);
    pthread_mutex_unlock(&gate->lock);
}

void conf_gate_destroy(conf_gate_t *gate)
{
    pthread_cond_destroy(&gate->cond);
    pthread_mutex_destroy(&gate->lock);
}

void conf_gate_wait_fn(void *arg)
{
    conf_gate_t *gate = arg;
    pthread_mutex_lock(&gate->lock);
    while (!gate->open)
        pthread_cond_wait(&gate->cond, &gate->lock);
    pthread_mutex_unlock(&gate->lock);
}

typedef struct conf_thread {
    pthread_t thread;
    int index;
    conf_thread_fn_t fn;
    void *arg;
    pthread_barrier_t *start;
} conf_thread_t;

static void *conf_thread_main(void *arg)
{
    conf_thread_t *t = arg;
    pthread_barrier_wait(t->start);
    t->fn(t->index, t->arg);
    return NULL;
}

void conf_run_threads(int count, conf_thread_fn_t fn, void *arg)
{
    conf_thread_t *threads = calloc((size_t)count, sizeof *threads);
    pthread_barrier_t start;
    assert_non_null(threads);
    pthread_barrier_init(&start, NULL, (unsigned)count);
    for (int i = 0; i < count; i++) {
        threads[i] = (conf_thread_t){.index = i, .fn = fn, .arg = arg, .start = &start};
        assert_int_equal(pthread_create(&threads[i].thread, NULL, conf_thread_main, &threads[i]),
                         0);
    }
    for (int i = 0; i < count; i++)
        pthread_join(threads[i].thread, NULL);
    pthread_barrier_destroy(&start);
    free(threads);
}

int conf_restore(void **state)
{
    int count = 0;
    (void)state;
    if (accel_device_count(conformance_acc, &count) != ACCEL_OK)
        return -1;
    for (int device = count - 1; device >= 0; device--) {
        if (accel_set_device(conformance_acc, device) != ACCEL_OK)
            return -1;
        if (accel_set_current_stream(conformance_acc, NULL) != ACCEL_OK)
            return -1;
    }
    return 0;
}
