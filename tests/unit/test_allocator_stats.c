/* test_allocator_stats.c: the allocator's torch statistics (allocator.h):
 * per-pool figures, cumulative allocated/freed counts, inactive split blocks
 * as blocks split and merge, raw allocation counts, and the torch key names
 * over them (memory_stat_keys.h). The fake device hands out host memory and
 * has no events, so every freed block is reusable at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/allocator.h"
#include "core/memory_stat_keys.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)

static accel_status_t raw_alloc(void *ctx, size_t size, void **out)
{
    (void)ctx;
    *out = malloc(size);
    return *out != NULL ? ACCEL_OK : ACCEL_ERROR_OUT_OF_MEMORY;
}

static void raw_free(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

static accel_allocator_t *make_allocator(void)
{
    accel_allocator_device_t device = {.raw_alloc = raw_alloc, .raw_free = raw_free};
    accel_allocator_t *allocator = NULL;
    assert_int_equal(accel_allocator_create(&device, true, &allocator), ACCEL_OK);
    return allocator;
}

static accel_alloc_stat_t stat_of(accel_allocator_t *allocator, accel_alloc_stat_kind_t kind,
                                  accel_alloc_pool_t pool)
{
    accel_allocator_stats_t stats;
    accel_allocator_stats_full(allocator, &stats);
    return stats.stat[kind][pool];
}

/* A block splits off the rest of its segment, which is then an inactive
 * split block; freeing blocks merges them back until the segment is whole. */
static void test_inactive_split_follows_splits_and_merges(void **state)
{
    accel_allocator_t *allocator = make_allocator();
    void *a = NULL, *b = NULL;
    (void)state;
    assert_int_equal(accel_allocator_alloc(allocator, 1000, NULL, &a), ACCEL_OK);
    assert_int_equal(stat_of(allocator, ACCEL_STAT_INACTIVE_SPLIT, ACCEL_POOL_SMALL).current, 1);
    assert_int_equal(stat_of(allocator, ACCEL_STAT_INACTIVE_SPLIT_BYTES, ACCEL_POOL_SMALL).current,
                     2 * MIB - KIB);
    assert_int_equal(accel_allocator_alloc(allocator, 1000, NULL, &b), ACCEL_OK);
    assert_int_equal(stat_of(allocator, ACCEL_STAT_INACTIVE_SPLIT, ACCEL_POOL_ALL).current, 1);
    assert_int_equal(stat_of(allocator, ACCEL_STAT_INACTIVE_SPLIT_BYTES, ACCEL_POOL_ALL).current,
                     2 * MIB - 2 * KIB);
    /* a is free but b still splits the segment: two inactive pieces. */
    assert_int_equal(accel_allocator_free(allocator, a, NULL), ACCEL_OK);
    assert_int_equal(stat_of(allocator, ACCEL_STAT_INACTIVE_SPLIT, ACCEL_POOL_ALL).current, 2);
    assert_int_equal(stat_of(allocator, ACCEL_STAT_INACTIVE_SPLIT, ACCEL_POOL_ALL).peak, 2);
    assert_int_equal(stat_of(allocator, ACCEL_STAT_INACTIVE_SPLIT_BYTES, ACCEL_POOL_ALL).current,
                     2 * MIB - KIB);
    /* b merges with both: one whole free segment, nothing split. */
    assert_int_equal(accel_allocator_free(allocator, b, NULL), ACCEL_OK);
    assert_int_equal(stat_of(allocator, ACCEL_STAT_INACTIVE_SPLIT, ACCEL_POOL_ALL).current, 0);
    assert_int_equal(stat_of(allocator, ACCEL_STAT_INACTIVE_SPLIT_BYTES, ACCEL_POOL_ALL).current,
                     0);
    assert_int_equal(stat_of(allocator, ACCEL_STAT_INACTIVE_SPLIT, ACCEL_POOL_LARGE).allocated, 0);
    accel_allocator_destroy(allocator);
}

/* Small and large requests land in their own pool; "all" is their sum; the
 * cumulative counts and the raw allocation counters follow every call. */
static void test_pools_cumulative_and_device_counts(void **state)
{
    accel_allocator_t *allocator = make_allocator();
    accel_allocator_stats_t stats;
    void *small = NULL, *large = NULL;
    (void)state;
    assert_int_equal(accel_allocator_alloc(allocator, 100, NULL, &small), ACCEL_OK);
    assert_int_equal(accel_allocator_alloc(allocator, 3 * MIB, NULL, &large), ACCEL_OK);
    accel_allocator_stats_full(allocator, &stats);
    assert_int_equal(stats.stat[ACCEL_STAT_ALLOCATION][ACCEL_POOL_SMALL].current, 1);
    assert_int_equal(stats.stat[ACCEL_STAT_ALLOCATION][ACCEL_POOL_LARGE].current, 1);
    assert_int_equal(stats.stat[ACCEL_STAT_ALLOCATION][ACCEL_POOL_ALL].current, 2);
    assert_int_equal(stats.stat[ACCEL_STAT_REQUESTED_BYTES][ACCEL_POOL_SMALL].current, 100);
    assert_int_equal(stats.stat[ACCEL_STAT_REQUESTED_BYTES][ACCEL_POOL_LARGE].current, 3 * MIB);
    assert_int_equal(stats.stat[ACCEL_STAT_ALLOCATED_BYTES][ACCEL_POOL_SMALL].current, 512);
    assert_int_equal(stats.stat[ACCEL_STAT_RESERVED_BYTES][ACCEL_POOL_SMALL].current, 2 * MIB);
    assert_int_equal(stats.stat[ACCEL_STAT_RESERVED_BYTES][ACCEL_POOL_LARGE].current, 4 * MIB);
    assert_int_equal(stats.stat[ACCEL_STAT_ACTIVE_BYTES][ACCEL_POOL_ALL].current,
                     stats.stat[ACCEL_STAT_ALLOCATED_BYTES][ACCEL_POOL_ALL].current);
    assert_int_equal(stats.num_device_alloc, 2);
    assert_int_equal(stats.num_device_free, 0);

    assert_int_equal(accel_allocator_free(allocator, small, NULL), ACCEL_OK);
    assert_int_equal(accel_allocator_free(allocator, large, NULL), ACCEL_OK);
    assert_int_equal(accel_allocator_alloc(allocator, 100, NULL, &small), ACCEL_OK);
    assert_int_equal(accel_allocator_free(allocator, small, NULL), ACCEL_OK);
    accel_allocator_empty_cache(allocator);
    accel_allocator_stats_full(allocator, &stats);
    assert_int_equal(stats.stat[ACCEL_STAT_ALLOCATION][ACCEL_POOL_ALL].allocated, 3);
    assert_int_equal(stats.stat[ACCEL_STAT_ALLOCATION][ACCEL_POOL_ALL].freed, 3);
    assert_int_equal(stats.stat[ACCEL_STAT_ALLOCATION][ACCEL_POOL_SMALL].allocated, 2);
    assert_int_equal(stats.stat[ACCEL_STAT_ALLOCATION][ACCEL_POOL_ALL].peak, 2);
    assert_int_equal(stats.stat[ACCEL_STAT_REQUESTED_BYTES][ACCEL_POOL_ALL].allocated,
                     200 + 3 * MIB);
    assert_int_equal(stats.stat[ACCEL_STAT_SEGMENT][ACCEL_POOL_ALL].current, 0);
    assert_int_equal(stats.stat[ACCEL_STAT_SEGMENT][ACCEL_POOL_ALL].freed, 2);
    assert_int_equal(stats.num_device_alloc, 2); /* the second small came from the cache */
    assert_int_equal(stats.num_device_free, 2);

    accel_allocator_reset_peaks(allocator, ACCEL_PEAK_ALL);
    accel_allocator_stats_full(allocator, &stats);
    assert_int_equal(stats.stat[ACCEL_STAT_ALLOCATION][ACCEL_POOL_SMALL].peak, 0);
    assert_int_equal(stats.stat[ACCEL_STAT_RESERVED_BYTES][ACCEL_POOL_LARGE].peak, 0);
    assert_int_equal(stats.stat[ACCEL_STAT_ALLOCATION][ACCEL_POOL_ALL].allocated, 3);
    accel_allocator_destroy(allocator);
}

/* torch's resetAccumulatedStats: allocated/freed and the num_* counters go
 * to 0; current values and peaks stay; a request no device can hold is an
 * OOM rejected without asking the device. */
static void test_reset_accumulated_keeps_current_and_peaks(void **state)
{
    accel_allocator_t *allocator = make_allocator();
    accel_allocator_stats_t stats;
    void *kept = NULL, *freed = NULL, *refused = NULL;
    (void)state;
    assert_int_equal(accel_allocator_alloc(allocator, 3 * MIB, NULL, &kept), ACCEL_OK);
    assert_int_equal(accel_allocator_alloc(allocator, 100, NULL, &freed), ACCEL_OK);
    assert_int_equal(accel_allocator_free(allocator, freed, NULL), ACCEL_OK);
    assert_int_equal(accel_allocator_alloc(allocator, SIZE_MAX - 10, NULL, &refused),
                     ACCEL_ERROR_OUT_OF_MEMORY);
    accel_allocator_stats_full(allocator, &stats);
    assert_int_equal(stats.num_oom_rejections, 1);
    assert_int_equal(stats.num_ooms, 1);
    assert_int_equal(stats.num_device_alloc, 2);

    accel_allocator_reset_accumulated(allocator);
    accel_allocator_stats_full(allocator, &stats);
    for (int kind = 0; kind < ACCEL_STAT_KIND_COUNT; kind++) {
        for (int pool = 0; pool < ACCEL_POOL_COUNT; pool++) {
            assert_int_equal(stats.stat[kind][pool].allocated, 0);
            assert_int_equal(stats.stat[kind][pool].freed, 0);
        }
    }
    assert_int_equal(stats.num_oom_rejections + stats.num_ooms + stats.num_alloc_retries +
                         stats.num_device_alloc + stats.num_device_free,
                     0);
    assert_int_equal(stats.stat[ACCEL_STAT_REQUESTED_BYTES][ACCEL_POOL_ALL].current, 3 * MIB);
    assert_int_equal(stats.stat[ACCEL_STAT_ALLOCATION][ACCEL_POOL_ALL].peak, 2);
    assert_int_equal(stats.stat[ACCEL_STAT_SEGMENT][ACCEL_POOL_ALL].current, 2);
    assert_int_equal(accel_allocator_free(allocator, kept, NULL), ACCEL_OK);
    accel_allocator_stats_full(allocator, &stats);
    assert_int_equal(stats.stat[ACCEL_STAT_ALLOCATION][ACCEL_POOL_ALL].freed, 1);
    accel_allocator_destroy(allocator);
}

/* The key names are torch's, sorted and unique, and read the figures. */
static void test_keys_are_torch_names(void **state)
{
    accel_allocator_t *allocator = make_allocator();
    accel_allocator_stats_t stats;
    const char *previous = "";
    bool seen_split = false, seen_device_alloc = false, seen_max_split = false;
    void *ptr = NULL;
    (void)state;
    assert_int_equal(accel_allocator_alloc(allocator, 4096, NULL, &ptr), ACCEL_OK);
    accel_allocator_stats_full(allocator, &stats);
    assert_int_equal(accel_memory_stat_key_count(), 9 * 3 * 4 + 15);
    for (size_t i = 0; i < accel_memory_stat_key_count(); i++) {
        const char *key = NULL;
        uint64_t value = 0;
        assert_true(accel_memory_stat_key(i, &stats, &key, &value));
        assert_true(strcmp(previous, key) < 0);
        previous = key;
        if (strcmp(key, "inactive_split_bytes.small_pool.current") == 0) {
            seen_split = true;
            assert_int_equal(value, 2 * MIB - 4096);
        } else if (strcmp(key, "num_device_alloc") == 0) {
            seen_device_alloc = true;
            assert_int_equal(value, 1);
        } else if (strcmp(key, "max_split_size") == 0) {
            seen_max_split = true;
            assert_true(value == UINT64_MAX);
        }
    }
    assert_true(seen_split && seen_device_alloc && seen_max_split);
    assert_false(accel_memory_stat_key(accel_memory_stat_key_count(), &stats, &previous, NULL));
    assert_int_equal(accel_allocator_free(allocator, ptr, NULL), ACCEL_OK);
    accel_allocator_destroy(allocator);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inactive_split_follows_splits_and_merges),
        cmocka_unit_test(test_pools_cumulative_and_device_counts),
        cmocka_unit_test(test_keys_are_torch_names),
        cmocka_unit_test(test_reset_accumulated_keeps_current_and_peaks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
