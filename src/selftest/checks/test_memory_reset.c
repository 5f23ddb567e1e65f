/* test_memory_reset.c: conformance tests of torch.accelerator.memory's
 * newer calls: accel_reset_accumulated_memory_stats (cumulative figures to
 * 0, current values and peaks kept), num_oom_rejections, and the pinned
 * host cache behind accel_host_free / accel_unpin_memory with
 * accel_empty_host_cache. */
#include "conformance.h"

#include <sched.h>
#include <stdlib.h>

void test_memory_reset_accumulated_zeroes_cumulative(void **state)
{
    static const char *const cumulative[] = {"allocation.all.allocated",
                                             "allocation.all.freed",
                                             "allocated_bytes.all.allocated",
                                             "allocated_bytes.all.freed",
                                             "segment.all.allocated",
                                             "reserved_bytes.all.allocated",
                                             "requested_bytes.all.allocated",
                                             "active.small_pool.allocated",
                                             "num_device_alloc"};
    (void)state;
    void *kept = conf_device_alloc(3 << 20); /* a large-pool block: a new segment */
    conf_device_free(conf_device_alloc(1000));
    uint64_t current = conf_memory_stat("allocated_bytes.all.current");
    uint64_t peak = conf_memory_stat("allocated_bytes.all.peak");
    uint64_t segments = conf_memory_stat("segment.all.current");
    for (size_t i = 0; i < sizeof cumulative / sizeof cumulative[0]; i++) {
        if (conf_memory_stat(cumulative[i]) == 0)
            fail_msg("%s is 0 before the reset; the test needs it counted", cumulative[i]);
    }

    assert_ok(accel_reset_accumulated_memory_stats(conformance_acc, ACCEL_CURRENT_DEVICE));

    for (size_t i = 0; i < sizeof cumulative / sizeof cumulative[0]; i++)
        assert_int_equal(conf_memory_stat(cumulative[i]), 0);
    assert_int_equal(conf_memory_stat("num_ooms"), 0);
    assert_int_equal(conf_memory_stat("num_alloc_retries"), 0);
    assert_int_equal(conf_memory_stat("num_oom_rejections"), 0);
    assert_int_equal(conf_memory_stat("num_device_free"), 0);
    assert_int_equal(conf_memory_stat("allocated_bytes.all.current"), current);
    assert_int_equal(conf_memory_stat("allocated_bytes.all.peak"), peak);
    assert_int_equal(conf_memory_stat("segment.all.current"), segments);
    /* Counting goes on from 0. */
    conf_device_free(kept);
    assert_int_equal(conf_memory_stat("allocation.all.freed"), 1);
}

void test_memory_reset_accumulated_bad_arguments(void **state)
{
    int count = conf_device_count();
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_reset_accumulated_memory_stats(NULL, ACCEL_CURRENT_DEVICE));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_reset_accumulated_memory_stats(conformance_acc, count));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_reset_accumulated_memory_stats(conformance_acc, -2));
}

void test_memory_oom_rejection_counted(void **state)
{
    void *ptr = &ptr;
    (void)state;
    uint64_t rejections = conf_memory_stat("num_oom_rejections");
    uint64_t ooms = conf_memory_stat("num_ooms");
    assert_status(ACCEL_ERROR_OUT_OF_MEMORY, accel_malloc(conformance_acc, SIZE_MAX - 64, &ptr));
    assert_ptr_equal(ptr, &ptr);
    assert_int_equal(conf_memory_stat("num_oom_rejections"), rejections + 1);
    assert_int_equal(conf_memory_stat("num_ooms"), ooms + 1);
}

/* ---- the pinned host cache */

/* A size no other test pins, so cached blocks of other tests never match. */
#define CACHE_BYTES ((size_t)(1 << 16) + 4096 * 3 + 8)

static uint64_t cached_bytes(void)
{
    accel_pinned_stats_t stats = ACCEL_STRUCT_INIT(accel_pinned_stats_t);
    assert_ok(accel_pinned_memory_stats(conformance_acc, &stats));
    return stats.cached_bytes;
}

static void synchronize_every_device(void)
{
    for (int d = 0; d < conf_device_count(); d++)
        assert_ok(accel_synchronize(conformance_acc, d));
}

void test_memory_host_cache_reuses_after_synchronize(void **state)
{
    void *first = NULL, *second = NULL, *third = NULL;
    (void)state;
    conf_require_flag(ACCEL_FLAG_PINNED_MEMORY_SUPPORTED, "pinned memory");
    uint64_t before = cached_bytes();
    assert_ok(accel_host_alloc(conformance_acc, CACHE_BYTES, &first));
    assert_ok(accel_host_free(conformance_acc, first));
    assert_int_equal(cached_bytes(), before + CACHE_BYTES);
    /* Not before every device was synchronized: work queued before the
     * free may still read it. */
    assert_ok(accel_host_alloc(conformance_acc, CACHE_BYTES, &second));
    assert_ptr_not_equal(second, first);
    assert_int_equal(cached_bytes(), before + CACHE_BYTES);
    assert_ok(accel_host_free(conformance_acc, second));
    synchronize_every_device();
    assert_ok(accel_host_alloc(conformance_acc, CACHE_BYTES, &third));
    assert_true(third == first || third == second);
    assert_int_equal(cached_bytes(), before + CACHE_BYTES);
    bool is_pinned = false;
    assert_ok(accel_is_pinned(conformance_acc, third, &is_pinned));
    assert_true(is_pinned);
    assert_ok(accel_host_free(conformance_acc, third));
    synchronize_every_device();
    assert_ok(accel_empty_host_cache(conformance_acc));
    assert_int_equal(cached_bytes(), 0); /* everything was freed before that synchronize */
}

void test_memory_host_cache_empty_keeps_unsynchronized(void **state)
{
    void *ptr = NULL;
    (void)state;
    conf_require_flag(ACCEL_FLAG_PINNED_MEMORY_SUPPORTED, "pinned memory");
    synchronize_every_device();
    assert_ok(accel_empty_host_cache(conformance_acc));
    assert_int_equal(cached_bytes(), 0);
    assert_ok(accel_host_alloc(conformance_acc, CACHE_BYTES, &ptr));
    assert_ok(accel_host_free(conformance_acc, ptr));
    assert_ok(accel_empty_host_cache(conformance_acc));
    assert_int_equal(cached_bytes(), CACHE_BYTES); /* freed after the last synchronize */
    synchronize_every_device();
    assert_ok(accel_empty_host_cache(conformance_acc));
    assert_int_equal(cached_bytes(), 0);
    /* The block is gone: freeing it again is refused as before. */
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_free(conformance_acc, ptr));
}

void test_memory_host_cache_serves_pin_memory(void **state)
{
    float data[4096 / sizeof(float) * 3];
    int64_t shape[1] = {(int64_t)(sizeof data / sizeof data[0])};
    DLTensor src = {
        .data = data, .device = {kDLCPU, 0}, .ndim = 1, .dtype = {kDLFloat, 32, 1}, .shape = shape};
    DLTensor pinned_a, pinned_b;
    bool freed = false;
    accel_pin_backend_t backend;
    (void)state;
    conf_require_flag(ACCEL_FLAG_PINNED_MEMORY_SUPPORTED, "pinned memory");
    assert_ok(accel_pin_memory_backend(conformance_acc, &backend));
    if (backend != ACCEL_PIN_BACKEND_DEFAULT)
        conf_skip("the native pin memory backend does not use the pinned host cache");
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
        data[i] = (float)i;
    assert_ok(accel_pin_memory(conformance_acc, &src, true, true, &pinned_a));
    void *first = pinned_a.data;
    assert_ok(accel_unpin_memory(conformance_acc, &pinned_a, &freed));
    assert_true(freed);
    synchronize_every_device();
    assert_ok(accel_pin_memory(conformance_acc, &src, true, true, &pinned_b));
    assert_ptr_equal(pinned_b.data, first);
    assert_true(((float *)pinned_b.data)[7] == 7.0f); /* make_copy wrote the reused block */
    assert_ok(accel_unpin_memory(conformance_acc, &pinned_b, &freed));
    synchronize_every_device();
    assert_ok(accel_empty_host_cache(conformance_acc));
}

void test_memory_host_cache_bad_arguments(void **state)
{
    accel_pinned_stats_t stats = ACCEL_STRUCT_INIT(accel_pinned_stats_t);
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_empty_host_cache(NULL));
    /* A caller built before cached_bytes: accepted, the field not written. */
    stats.struct_size = offsetof(accel_pinned_stats_t, cached_bytes);
    stats.cached_bytes = 12345;
    assert_ok(accel_pinned_memory_stats(conformance_acc, &stats));
    assert_int_equal(stats.cached_bytes, 12345);
    for (size_t size = offsetof(accel_pinned_stats_t, cached_bytes) + 1; size < sizeof stats;
         size++) {
        stats.struct_size = size; /* no release's size: part of a field */
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                      accel_pinned_memory_stats(conformance_acc, &stats));
        assert_int_equal(stats.cached_bytes, 12345);
    }
    stats.struct_size = offsetof(accel_pinned_stats_t, cached_bytes) - 1;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_pinned_memory_stats(conformance_acc, &stats));
}

/* Threads pinning, freeing, synchronizing and emptying the cache at once:
 * a cached block is never handed to two holders (each writes its own
 * pattern and finds it intact before freeing). */
#define CACHE_THREADS    4
#define CACHE_ITERATIONS 100

typedef struct cache_worker {
    int id;
    int failures;
} cache_worker_t;

static void *cache_worker_run(void *arg)
{
    cache_worker_t *worker = arg;
    for (int i = 0; i < CACHE_ITERATIONS; i++) {
        uint8_t *ptr = NULL;
        if (accel_host_alloc(conformance_acc, CACHE_BYTES, (void **)&ptr) != ACCEL_OK) {
            worker->failures++;
            continue;
        }
        memset(ptr, worker->id, CACHE_BYTES);
        sched_yield();
        for (size_t b = 0; b < CACHE_BYTES; b += 4093)
            worker->failures += ptr[b] != (uint8_t)worker->id;
        worker->failures += accel_host_free(conformance_acc, ptr) != ACCEL_OK;
        if (i % 10 == worker->id) {
            for (int d = 0; d < conf_device_count(); d++)
                worker->failures += accel_synchronize(conformance_acc, d) != ACCEL_OK;
            worker->failures += accel_empty_host_cache(conformance_acc) != ACCEL_OK;
        }
    }
    return NULL;
}

void test_memory_host_cache_threads(void **state)
{
    pthread_t threads[CACHE_THREADS];
    cache_worker_t workers[CACHE_THREADS];
    (void)state;
    conf_require_flag(ACCEL_FLAG_PINNED_MEMORY_SUPPORTED, "pinned memory");
    for (int t = 0; t < CACHE_THREADS; t++) {
        workers[t] = (cache_worker_t){.id = t + 1};
        assert_int_equal(pthread_create(&threads[t], NULL, cache_worker_run, &workers[t]), 0);
    }
    for (int t = 0; t < CACHE_THREADS; t++) {
        assert_int_equal(pthread_join(threads[t], NULL), 0);
        assert_int_equal(workers[t].failures, 0);
    }
    synchronize_every_device();
    assert_ok(accel_empty_host_cache(conformance_acc));
    assert_int_equal(cached_bytes(), 0);
}
