/* memory_stat_keys.c: the names torch's memory_stats() gives the caching
 * allocator's figures ("allocated_bytes.all.current", "num_ooms", ...), each
 * mapped to this allocator's statistic, sorted as torch sorts them.
 * Built once under pthread_once; read-only afterwards, so any thread. */
#include "memory_stat_keys.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a key's value comes from. */
typedef enum stat_key_source {
    KEY_STAT, /* stat[kind][pool].<metric> */
    KEY_RETRIES,
    KEY_OOMS,
    KEY_DEVICE_ALLOC,
    KEY_DEVICE_FREE,
    KEY_OOM_REJECTIONS,
    KEY_ZERO, /* a figure that is 0 by construction here (see below) */
    KEY_MAX_SPLIT_SIZE,
} stat_key_source_t;

typedef struct stat_key {
    char name[48];
    stat_key_source_t source;
    accel_alloc_stat_kind_t kind;
    accel_alloc_pool_t pool;
    int metric; /* 0 current, 1 peak, 2 allocated, 3 freed */
} stat_key_t;

static const char *const kind_names[ACCEL_STAT_KIND_COUNT] = {
    [ACCEL_STAT_ALLOCATION] = "allocation",
    [ACCEL_STAT_SEGMENT] = "segment",
    [ACCEL_STAT_ACTIVE] = "active",
    [ACCEL_STAT_INACTIVE_SPLIT] = "inactive_split",
    [ACCEL_STAT_ALLOCATED_BYTES] = "allocated_bytes",
    [ACCEL_STAT_RESERVED_BYTES] = "reserved_bytes",
    [ACCEL_STAT_ACTIVE_BYTES] = "active_bytes",
    [ACCEL_STAT_INACTIVE_SPLIT_BYTES] = "inactive_split_bytes",
    [ACCEL_STAT_REQUESTED_BYTES] = "requested_bytes",
};
static const char *const pool_names[ACCEL_POOL_COUNT] = {
    [ACCEL_POOL_ALL] = "all",
    [ACCEL_POOL_SMALL] = "small_pool",
    [ACCEL_POOL_LARGE] = "large_pool",
};
static const char *const metric_names[4] = {"current", "peak", "allocated", "freed"};

/* 9 kinds x 3 pools x 4 metrics, 6 counters, max_split_size, and the
 * oversize_allocations / oversize_segments stats (4 metrics each). */
#define STAT_KEY_COUNT (ACCEL_STAT_KIND_COUNT * ACCEL_POOL_COUNT * 4 + 6 + 1 + 8)

static stat_key_t stat_keys[STAT_KEY_COUNT];
static pthread_once_t stat_keys_once = PTHREAD_ONCE_INIT;

static int stat_key_compare(const void *a, const void *b)
{
    return strcmp(((const stat_key_t *)a)->name, ((const stat_key_t *)b)->name);
}

static void stat_key_add(size_t *n, const char *name, stat_key_source_t source)
{
    stat_key_t *key = &stat_keys[(*n)++];
    snprintf(key->name, sizeof key->name, "%s", name);
    key->source = source;
}

static void stat_keys_build(void)
{
    size_t n = 0;
    char name[48];
    for (int kind = 0; kind < ACCEL_STAT_KIND_COUNT; kind++) {
        for (int pool = 0; pool < ACCEL_POOL_COUNT; pool++) {
            for (int metric = 0; metric < 4; metric++) {
                snprintf(name, sizeof name, "%s.%s.%s", kind_names[kind], pool_names[pool],
                         metric_names[metric]);
                stat_keys[n] = (stat_key_t){.kind = (accel_alloc_stat_kind_t)kind,
                                            .pool = (accel_alloc_pool_t)pool,
                                            .metric = metric};
                stat_key_add(&n, name, KEY_STAT);
            }
        }
    }
    stat_key_add(&n, "num_alloc_retries", KEY_RETRIES);
    stat_key_add(&n, "num_ooms", KEY_OOMS);
    stat_key_add(&n, "num_device_alloc", KEY_DEVICE_ALLOC);
    stat_key_add(&n, "num_device_free", KEY_DEVICE_FREE);
    stat_key_add(&n, "num_oom_rejections", KEY_OOM_REJECTIONS);
    /* The allocator never synchronizes every stream to free cached blocks
     * (it waits on the events of the blocks it needs), so this stays 0. */
    stat_key_add(&n, "num_sync_all_streams", KEY_ZERO);
    stat_key_add(&n, "max_split_size", KEY_MAX_SPLIT_SIZE);
    /* No max_split_size limit, so no allocation or segment is "oversize". */
    for (int metric = 0; metric < 4; metric++) {
        snprintf(name, sizeof name, "oversize_allocations.%s", metric_names[metric]);
        stat_key_add(&n, name, KEY_ZERO);
        snprintf(name, sizeof name, "oversize_segments.%s", metric_names[metric]);
        stat_key_add(&n, name, KEY_ZERO);
    }
    qsort(stat_keys, n, sizeof stat_keys[0], stat_key_compare);
}

size_t accel_memory_stat_key_count(void)
{
    return STAT_KEY_COUNT;
}

static uint64_t stat_metric(const accel_alloc_stat_t *stat, int metric)
{
    switch (metric) {
    case 0: return stat->current;
    case 1: return stat->peak;
    case 2: return stat->allocated;
    default: return stat->freed;
    }
}

bool accel_memory_stat_key(size_t index, const accel_allocator_stats_t *stats, const char **out_key,
                           uint64_t *out_value)
{
    const stat_key_t *key;
    if (index >= STAT_KEY_COUNT)
        return false;
    pthread_once(&stat_keys_once, stat_keys_build);
    key = &stat_keys[index];
    switch (key->source) {
    case KEY_STAT: *out_value = stat_metric(&stats->stat[key->kind][key->pool], key->metric); break;
    case KEY_RETRIES: *out_value = stats->num_alloc_retries; break;
    case KEY_OOMS: *out_value = stats->num_ooms; break;
    case KEY_DEVICE_ALLOC: *out_value = stats->num_device_alloc; break;
    case KEY_DEVICE_FREE: *out_value = stats->num_device_free; break;
    case KEY_OOM_REJECTIONS: *out_value = stats->num_oom_rejections; break;
    case KEY_ZERO: *out_value = 0; break;
    /* Unlimited: torch reports SIZE_MAX cast to int64 (-1); the same bits. */
    case KEY_MAX_SPLIT_SIZE: *out_value = UINT64_MAX; break;
    }
    *out_key = key->name;
    return true;
}
