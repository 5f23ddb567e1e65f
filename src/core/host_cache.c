/* host_cache.c: the pinned host cache (host_cache.h): a list of freed
 * pinned blocks, each stamped with the cache's tick at its free, and per
 * device the tick at which its latest finished synchronize began. A block
 * is reusable once every device's mark is at or past its stamp.
 * Thread-safe: one mutex; no other core lock is taken under it (releasing
 * a block calls the backend's host_free with it held). */
#include "host_cache.h"

#include <stdlib.h>

struct accel_host_cache_block {
    void *ptr;
    size_t size;
    uint64_t freed_tick;
    accel_host_cache_block_t *next;
};

void accel_host_cache_init(accel_host_cache_t *cache)
{
    *cache = (accel_host_cache_t){.blocks = NULL};
    pthread_mutex_init(&cache->lock, NULL);
}

/* Called with the lock held: every device synchronized after the free. */
static bool host_cache_reusable(const accel_host_cache_t *cache,
                                const accel_host_cache_block_t *block)
{
    if (cache->synced_tick == NULL)
        return false;
    for (int d = 0; d < cache->device_count; d++) {
        if (cache->synced_tick[d] < block->freed_tick)
            return false;
    }
    return true;
}

/* Release the blocks `all` or reusable ones select; with the lock held. */
static uint64_t host_cache_drop(accel_host_cache_t *cache, bool all,
                                accel_host_cache_release_fn release, void *ctx)
{
    uint64_t released = 0;
    accel_host_cache_block_t **link = &cache->blocks;
    while (*link != NULL) {
        accel_host_cache_block_t *block = *link;
        if (!all && !host_cache_reusable(cache, block)) {
            link = &block->next;
            continue;
        }
        *link = block->next;
        release(ctx, block->ptr, block->size);
        released += block->size;
        free(block);
    }
    cache->bytes -= released;
    return released;
}

void accel_host_cache_fini(accel_host_cache_t *cache, accel_host_cache_release_fn release,
                           void *ctx)
{
    pthread_mutex_lock(&cache->lock);
    host_cache_drop(cache, true, release, ctx);
    free(cache->synced_tick);
    cache->synced_tick = NULL;
    pthread_mutex_unlock(&cache->lock);
    pthread_mutex_destroy(&cache->lock);
}

void *accel_host_cache_take(accel_host_cache_t *cache, size_t size)
{
    void *ptr = NULL;
    pthread_mutex_lock(&cache->lock);
    for (accel_host_cache_block_t **link = &cache->blocks; *link != NULL; link = &(*link)->next) {
        accel_host_cache_block_t *block = *link;
        if (block->size != size || !host_cache_reusable(cache, block))
            continue;
        *link = block->next;
        cache->bytes -= block->size;
        ptr = block->ptr;
        free(block);
        break;
    }
    pthread_mutex_unlock(&cache->lock);
    return ptr;
}

bool accel_host_cache_put(accel_host_cache_t *cache, void *ptr, size_t size)
{
    accel_host_cache_block_t *block = malloc(sizeof *block);
    if (block == NULL)
        return false;
    pthread_mutex_lock(&cache->lock);
    cache->tick += 1;
    *block = (accel_host_cache_block_t){
        .ptr = ptr, .size = size, .freed_tick = cache->tick, .next = cache->blocks};
    cache->blocks = block;
    cache->bytes += size;
    pthread_mutex_unlock(&cache->lock);
    return true;
}

/* `*field` of `cache`, read under its lock. */
static uint64_t host_cache_read(accel_host_cache_t *cache, const uint64_t *field)
{
    pthread_mutex_lock(&cache->lock);
    uint64_t value = *field;
    pthread_mutex_unlock(&cache->lock);
    return value;
}

uint64_t accel_host_cache_sync_begin(accel_host_cache_t *cache)
{
    return host_cache_read(cache, &cache->tick);
}

void accel_host_cache_synced(accel_host_cache_t *cache, int device, int device_count, uint64_t mark)
{
    pthread_mutex_lock(&cache->lock);
    if (cache->synced_tick == NULL && device_count > 0) {
        cache->synced_tick = calloc((size_t)device_count, sizeof *cache->synced_tick);
        cache->device_count = cache->synced_tick != NULL ? device_count : 0;
    }
    /* Out of host memory for the marks: blocks are never reused, only
     * released by accel_empty_host_cache's caller at close. */
    if (cache->synced_tick != NULL && device >= 0 && device < cache->device_count &&
        cache->synced_tick[device] < mark)
        cache->synced_tick[device] = mark;
    pthread_mutex_unlock(&cache->lock);
}

uint64_t accel_host_cache_release(accel_host_cache_t *cache, accel_host_cache_release_fn release,
                                  void *ctx)
{
    pthread_mutex_lock(&cache->lock);
    uint64_t released = host_cache_drop(cache, false, release, ctx);
    pthread_mutex_unlock(&cache->lock);
    return released;
}

uint64_t accel_host_cache_bytes(accel_host_cache_t *cache)
{
    return host_cache_read(cache, &cache->bytes);
}

void accel_host_cache_fork_lock(accel_host_cache_t *cache)
{
    pthread_mutex_lock(&cache->lock);
}

void accel_host_cache_fork_unlock(accel_host_cache_t *cache)
{
    pthread_mutex_unlock(&cache->lock);
}
