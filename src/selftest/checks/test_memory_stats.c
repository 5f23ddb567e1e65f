/* test_memory_stats.c: conformance tests of allocator statistics: allocated,
 * reserved, peaks and their resets, the stats struct and torch key names,
 * empty_cache, total and available memory. */
#include "conformance.h"

#include <stdatomic.h>
#include <time.h>

#define STATS_BLOCK ((size_t)1 << 20)

typedef accel_status_t (*stats_getter_t)(accel_t *acc, int device, uint64_t *out);

static uint64_t stats_get(stats_getter_t getter)
{
    uint64_t value = 0;
    assert_ok(getter(conformance_acc, ACCEL_CURRENT_DEVICE, &value));
    return value;
}

void test_memory_stats_allocated_follows_malloc(void **state)
{
    uint64_t before = conf_allocated();
    void *ptr = conf_device_alloc(STATS_BLOCK);
    (void)state;
    assert_true(conf_allocated() >= before + STATS_BLOCK);
    assert_true(stats_get(accel_memory_reserved) >= conf_allocated());
    conf_device_free(ptr);
    assert_true(conf_allocated() == before);
}

void test_memory_stats_peak_and_reset_allocated(void **state)
{
    uint64_t before = conf_allocated();
    void *ptr = conf_device_alloc(4 * STATS_BLOCK);
    (void)state;
    conf_device_free(ptr);
    assert_true(stats_get(accel_max_memory_allocated) >= before + 4 * STATS_BLOCK);
    assert_ok(accel_reset_max_memory_allocated(conformance_acc, ACCEL_CURRENT_DEVICE));
    assert_true(stats_get(accel_max_memory_allocated) == conf_allocated());
}

void test_memory_stats_peak_and_reset_reserved(void **state)
{
    void *ptr = conf_device_alloc(4 * STATS_BLOCK);
    (void)state;
    assert_true(stats_get(accel_max_memory_reserved) >= stats_get(accel_memory_reserved));
    conf_device_free(ptr);
    assert_ok(accel_empty_cache(conformance_acc));
    assert_true(stats_get(accel_max_memory_reserved) >= 4 * STATS_BLOCK);
    assert_ok(accel_reset_max_memory_reserved(conformance_acc, ACCEL_CURRENT_DEVICE));
    assert_true(stats_get(accel_max_memory_reserved) == stats_get(accel_memory_reserved));
}

void test_memory_stats_legacy_cached_names(void **state)
{
    uint64_t cached = 0;
    (void)state;
    assert_ok(accel_memory_cached(conformance_acc, ACCEL_CURRENT_DEVICE, &cached));
    assert_true(cached == stats_get(accel_memory_reserved));
    assert_ok(accel_max_memory_cached(conformance_acc, ACCEL_CURRENT_DEVICE, &cached));
    assert_ok(accel_reset_max_memory_cached(conformance_acc, ACCEL_CURRENT_DEVICE));
}

void test_memory_stats_reset_peaks(void **state)
{
    void *ptr = conf_device_alloc(2 * STATS_BLOCK);
    (void)state;
    conf_device_free(ptr);
    assert_ok(accel_reset_peak_memory_stats(conformance_acc, ACCEL_CURRENT_DEVICE));
    conf_assert_peaks_are_current();
}

/* torch's reset_max_memory_allocated and reset_max_memory_cached (which
 * DeepSpeed calls) both reset every peak statistic, not only their own. */
void test_memory_stats_reset_max_resets_every_peak(void **state)
{
    accel_status_t (*const resets[])(accel_t *, int) = {accel_reset_max_memory_allocated,
                                                        accel_reset_max_memory_cached};
    (void)state;
    for (size_t i = 0; i < sizeof resets / sizeof resets[0]; i++) {
        void *ptr = conf_device_alloc(4 * STATS_BLOCK);
        conf_device_free(ptr);
        assert_ok(accel_empty_cache(conformance_acc));
        assert_ok(resets[i](conformance_acc, ACCEL_CURRENT_DEVICE));
        conf_assert_peaks_are_current();
    }
}

void test_memory_stats_struct_matches_getters(void **state)
{
    accel_memory_stats_t stats = ACCEL_STRUCT_INIT(accel_memory_stats_t);
    void *ptr = conf_device_alloc(1000);
    (void)state;
    assert_ok(accel_memory_stats(conformance_acc, ACCEL_CURRENT_DEVICE, &stats));
    assert_int_equal(stats.struct_size, sizeof stats);
    assert_true(stats.allocated_bytes == conf_allocated());
    assert_true(stats.reserved_bytes == stats_get(accel_memory_reserved));
    assert_true(stats.allocated_bytes <= stats.reserved_bytes);
    assert_true(stats.requested_bytes >= 1000);
    assert_true(stats.requested_bytes <= stats.allocated_bytes);
    assert_true(stats.allocation_count >= 1);
    assert_true(stats.segment_count >= 1);
    assert_true(stats.allocated_bytes_peak >= stats.allocated_bytes);
    conf_device_free(ptr);
}

void test_memory_stats_entries_torch_keys(void **state)
{
    bool found = false;
    size_t index = 0;
    uint64_t allocated = conf_allocated();
    (void)state;
    const char *key = NULL;
    uint64_t value = 0;
    for (; conf_memory_stat_entry(index, &key, &value); index++) {
        assert_non_null(key);
        assert_true(key[0] != '\0');
        if (strcmp(key, "allocated_bytes.all.current") == 0) {
            found = true;
            assert_true(value == allocated);
        }
        assert_true(index < 10000);
    }
    assert_true(index >= 1);
    assert_true(found);
}

/* Every key torch's memory_stats() has for a caching allocator, sorted as
 * torch sorts them, with "all" the sum of the two pools. */
void test_memory_stats_entries_every_torch_key(void **state)
{
    static const char *const kinds[] = {
        "allocation",      "segment",        "active",       "inactive_split",
        "allocated_bytes", "reserved_bytes", "active_bytes", "inactive_split_bytes",
        "requested_bytes"};
    static const char *const metrics[] = {"current", "peak", "allocated", "freed"};
    static const char *const others[] = {"num_alloc_retries",
                                         "num_ooms",
                                         "num_sync_all_streams",
                                         "num_device_alloc",
                                         "num_device_free",
                                         "max_split_size",
                                         "oversize_allocations.current",
                                         "oversize_segments.peak"};
    char previous[64] = "", name[96];
    size_t count = 0;
    void *ptr = conf_device_alloc(3000);
    (void)state;
    const char *key = NULL;
    uint64_t value = 0;
    for (; conf_memory_stat_entry(count, &key, &value); count++) {
        assert_true(strcmp(previous, key) < 0);
        snprintf(previous, sizeof previous, "%s", key);
    }
    assert_true(count >= 9 * 3 * 4 + 8);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; m++) {
            uint64_t all, small, large;
            snprintf(name, sizeof name, "%s.all.%s", kinds[k], metrics[m]);
            all = conf_memory_stat(name);
            snprintf(name, sizeof name, "%s.small_pool.%s", kinds[k], metrics[m]);
            small = conf_memory_stat(name);
            snprintf(name, sizeof name, "%s.large_pool.%s", kinds[k], metrics[m]);
            large = conf_memory_stat(name);
            if (m != 1) /* the peaks of the pools need not coincide */
                assert_true(all == small + large);
        }
    }
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        (void)conf_memory_stat(others[i]);
    assert_true(conf_memory_stat("allocated_bytes.all.current") == conf_allocated());
    assert_true(conf_memory_stat("requested_bytes.all.current") >= 3000);
    assert_true(conf_memory_stat("num_device_alloc") >= conf_memory_stat("segment.all.current"));
    conf_device_free(ptr);
}

void test_memory_stats_entry_past_end(void **state)
{
    const char *key = (const char *)&key;
    uint64_t value = 77;
    (void)state;
    assert_status(
        ACCEL_ERROR_NOT_FOUND,
        accel_memory_stats_entry(conformance_acc, ACCEL_CURRENT_DEVICE, 100000, &key, &value));
    assert_ptr_equal(key, (const char *)&key);
    assert_true(value == 77);
}

void test_memory_stats_entry_bad_arguments(void **state)
{
    const char *key = NULL;
    uint64_t value = 0;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_memory_stats_entry(conformance_acc, ACCEL_CURRENT_DEVICE, 0, NULL, &value));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_memory_stats_entry(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &key, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_memory_stats_entry(conformance_acc, conf_device_count(), 0, &key, &value));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_memory_stats_entry(NULL, ACCEL_CURRENT_DEVICE, 0, &key, &value));
}

void test_memory_stats_bad_arguments(void **state)
{
    stats_getter_t getters[] = {accel_memory_allocated, accel_max_memory_allocated,
                                accel_memory_reserved,  accel_max_memory_reserved,
                                accel_total_memory,     accel_available_memory};
    accel_memory_stats_t stats = ACCEL_STRUCT_INIT(accel_memory_stats_t);
    int count = conf_device_count();
    (void)state;
    for (size_t i = 0; i < sizeof getters / sizeof getters[0]; i++) {
        uint64_t value = 99;
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, getters[i](conformance_acc, count, &value));
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, getters[i](conformance_acc, 0, NULL));
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, getters[i](NULL, 0, &value));
        assert_true(value == 99);
    }
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_reset_max_memory_allocated(conformance_acc, count));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_reset_max_memory_reserved(conformance_acc, count));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_reset_peak_memory_stats(conformance_acc, count));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_memory_stats(conformance_acc, count, &stats));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_memory_stats(conformance_acc, 0, NULL));
    stats.struct_size = 0;
    stats.allocated_bytes = 12345;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_memory_stats(conformance_acc, 0, &stats));
    assert_true(stats.allocated_bytes == 12345);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_empty_cache(NULL));
}

void test_memory_stats_empty_cache(void **state)
{
    void *blocks[4];
    uint64_t reserved_before;
    (void)state;
    for (int i = 0; i < 4; i++)
        blocks[i] = conf_device_alloc(STATS_BLOCK + (size_t)i * 4096);
    for (int i = 0; i < 4; i++)
        conf_device_free(blocks[i]);
    reserved_before = stats_get(accel_memory_reserved);
    assert_true(reserved_before >= conf_allocated());
    assert_ok(accel_empty_cache(conformance_acc));
    assert_true(stats_get(accel_memory_reserved) == conf_allocated());
}

typedef struct stats_empty_call {
    atomic_bool done;
    accel_status_t status;
} stats_empty_call_t;

static void *stats_empty_cache_thread(void *arg)
{
    stats_empty_call_t *call = arg;
    call->status = accel_empty_cache(conformance_acc);
    atomic_store(&call->done, true);
    return NULL;
}

/* Wait up to `seconds` for the call to finish; true if it did. */
static bool stats_wait_done(stats_empty_call_t *call, int seconds)
{
    struct timespec tick = {.tv_sec = 0, .tv_nsec = 1000 * 1000};
    for (int i = 0; i < seconds * 1000 && !atomic_load(&call->done); i++)
        nanosleep(&tick, NULL);
    return atomic_load(&call->done);
}

/* empty_cache waits only for what the freed blocks need (their free
 * events), not for every stream: a host callback blocked until the caller
 * moves on does not stop it. The cache is emptied first, so the call has no
 * segment to give back (a runtime's own free may wait for the device, as
 * cudaFree does). It runs on a thread and the gate opens after a deadline
 * either way, so a regression fails here instead of hanging. */
void test_memory_stats_empty_cache_skips_blocked_callback(void **state)
{
    accel_stream_t *blocked = NULL;
    stats_empty_call_t call = {.status = ACCEL_ERROR_INTERNAL};
    conf_gate_t gate;
    pthread_t thread;
    bool finished;
    (void)state;
    conf_require_streams();
    conf_require_flag(ACCEL_FLAG_HOST_CALLBACKS_SUPPORTED, "host callbacks");
    atomic_init(&call.done, false);
    assert_ok(accel_empty_cache(conformance_acc));
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &blocked));
    conf_gate_init(&gate);
    assert_ok(accel_stream_add_callback(blocked, conf_gate_wait_fn, &gate));
    assert_int_equal(pthread_create(&thread, NULL, stats_empty_cache_thread, &call), 0);
    finished = stats_wait_done(&call, 10);
    conf_gate_open(&gate);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_ok(accel_stream_synchronize(blocked));
    assert_ok(accel_stream_destroy(blocked));
    conf_gate_destroy(&gate);
    if (!finished)
        fail_msg("accel_empty_cache waited for a stream blocked in a host callback (no return "
                 "within 10 s)");
    assert_ok(call.status);
}

static void *stats_open_gate_later(void *arg)
{
    struct timespec delay = {.tv_sec = 0, .tv_nsec = 50 * 1000 * 1000};
    nanosleep(&delay, NULL);
    conf_gate_open(arg);
    return NULL;
}

/* A block freed while its stream still had work is given back once that
 * work is done: empty_cache waits for it (the gate opens 50 ms later). */
void test_memory_stats_empty_cache_waits_for_freed_blocks(void **state)
{
    accel_stream_t *busy = NULL;
    conf_gate_t gate;
    pthread_t opener;
    void *block = NULL;
    (void)state;
    conf_require_streams();
    conf_require_flag(ACCEL_FLAG_HOST_CALLBACKS_SUPPORTED, "host callbacks");
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &busy));
    conf_gate_init(&gate);
    assert_ok(accel_malloc_async(conformance_acc, STATS_BLOCK, busy, &block));
    assert_ok(accel_stream_add_callback(busy, conf_gate_wait_fn, &gate));
    assert_ok(accel_memset_async(conformance_acc, block, 0x3d, STATS_BLOCK, busy));
    assert_ok(accel_free_async(conformance_acc, block, busy));
    assert_int_equal(pthread_create(&opener, NULL, stats_open_gate_later, &gate), 0);
    assert_ok(accel_empty_cache(conformance_acc));
    assert_true(stats_get(accel_memory_reserved) == conf_allocated());
    assert_int_equal(pthread_join(opener, NULL), 0);
    assert_ok(accel_stream_synchronize(busy));
    assert_ok(accel_stream_destroy(busy));
    conf_gate_destroy(&gate);
}

void test_memory_stats_total_and_available(void **state)
{
    int count = conf_device_count();
    (void)state;
    for (int device = 0; device < count && device < 8; device++) {
        uint64_t total = 0, available = 0;
        accel_status_t status = accel_total_memory(conformance_acc, device, &total);
        if (status == ACCEL_ERROR_UNSUPPORTED) {
            /* a backend without memory figures says so for both, never 0 */
            assert_status(ACCEL_ERROR_UNSUPPORTED,
                          accel_available_memory(conformance_acc, device, &available));
            continue;
        }
        assert_ok(status);
        assert_ok(accel_available_memory(conformance_acc, device, &available));
        assert_true(total > 0);
        assert_true(available <= total);
    }
}
