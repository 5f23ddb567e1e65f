/* host_cache.h: the pinned host cache (torch's CachingHostAllocator role).
 * Pinned blocks that accel_host_free and accel_unpin_memory (default pin
 * backend) give back are kept here by their exact size and handed out again
 * by a later accel_host_alloc / accel_pin_memory of that size, so a training
 * loop that pins and unpins the same buffers each step pays the pinning
 * cost (cuMemHostAlloc, mlock) once.
 * Reuse rule: a block is handed out again only once every device of the
 * accelerator has finished an accel_synchronize that began after the block
 * was freed, so no work queued before the free (an async copy reading it)
 * can still touch it. accel has no record of which streams used a host
 * block (torch records an event per stream that used one); a device
 * synchronize is the point where all of them are known to be done.
 * Ownership: the cache owns the blocks it holds and frees them through the
 * `release` function given to accel_host_cache_release / _fini.
 * Threads: every function is thread-safe (one mutex; no other core lock is
 * taken while it is held). */
#ifndef ACCEL_CORE_HOST_CACHE_H
#define ACCEL_CORE_HOST_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct accel_host_cache_block accel_host_cache_block_t;

typedef struct accel_host_cache {
    pthread_mutex_t lock; /* guards everything below */
    accel_host_cache_block_t *blocks;
    uint64_t bytes;        /* held now */
    uint64_t tick;         /* bumped by every block put into the cache */
    int device_count;      /* entries of synced_tick */
    uint64_t *synced_tick; /* per device: `tick` when its latest finished
                              synchronize began (NULL until the first) */
} accel_host_cache_t;

/* Frees one block the cache gave up (the backend's host_free). */
typedef void (*accel_host_cache_release_fn)(void *ctx, void *ptr, size_t size);

void accel_host_cache_init(accel_host_cache_t *cache);
/* Release every block (whatever its age: the accelerator is closing). */
void accel_host_cache_fini(accel_host_cache_t *cache, accel_host_cache_release_fn release,
                           void *ctx);

/* A cached block of exactly `size` bytes that the reuse rule allows, taken
 * out of the cache; NULL when there is none. */
void *accel_host_cache_take(accel_host_cache_t *cache, size_t size);
/* Keep `ptr` (`size` bytes, pinned) for reuse; false (nothing kept) when the
 * host has no memory for the record: the caller frees it then. */
bool accel_host_cache_put(accel_host_cache_t *cache, void *ptr, size_t size);

/* A device synchronize of `device` (of `device_count`) is about to begin:
 * returns the mark to pass to accel_host_cache_synced once it succeeded. */
uint64_t accel_host_cache_sync_begin(accel_host_cache_t *cache);
void accel_host_cache_synced(accel_host_cache_t *cache, int device, int device_count,
                             uint64_t mark);

/* accel_empty_host_cache: release every block the reuse rule allows (those
 * freed since the last synchronize of some device stay); returns the bytes
 * released. */
uint64_t accel_host_cache_release(accel_host_cache_t *cache, accel_host_cache_release_fn release,
                                  void *ctx);
/* Bytes held now. */
uint64_t accel_host_cache_bytes(accel_host_cache_t *cache);

/* Hold / release the lock across fork() (instance.c only). */
void accel_host_cache_fork_lock(accel_host_cache_t *cache);
void accel_host_cache_fork_unlock(accel_host_cache_t *cache);

#endif
