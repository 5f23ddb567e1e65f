/* allocator.h: the caching device allocator, one per device, over a backend's
 * raw alloc/free.
 *
 * - Sizes are rounded to 512 B; requests under 1 MiB come from 2 MiB segments
 *   ("small pool"), larger ones from segments rounded up to 2 MiB ("large
 *   pool"), and cached blocks larger than needed are split (the remainder
 *   stays cached) when the remainder is worth keeping. Adjacent free blocks of
 *   a segment merge again.
 * - Stream ordering: a freed block remembers the stream it was freed on. The
 *   next request on that stream may reuse it at once; a request on another
 *   stream reuses it only after an event recorded at free time has completed
 *   (no event is recorded when the stream is idle at free time: then every
 *   stream may reuse the block at once).
 * - Out of memory from the raw allocator: release every cached, unused
 *   segment and retry once (counted in alloc_retries), else OUT_OF_MEMORY;
 *   no release while a capture is underway (accel_allocator_capture_begin).
 * - Private pools (accel_allocator_alloc_in): segments an owner allocated
 *   into are reused only by that owner and stay reserved until the owner
 *   releases the pool.
 * - caching = false passes every request straight to raw alloc/free (for
 *   sanitizers: ACCEL_ALLOC_CONF=caching:0), except that a private pool's
 *   freed blocks stay reserved until the pool is released; statistics still
 *   count.
 * Threads: every function is thread-safe (one mutex per allocator).
 * Ownership: the allocator owns its segments; destroy gives them all back.
 */
#ifndef ACCEL_CORE_ALLOCATOR_H
#define ACCEL_CORE_ALLOCATOR_H

#include <stdatomic.h>
#include <stdint.h>

#include "accel/accel.h"

typedef struct accel_allocator accel_allocator_t;

/* What the allocator needs from a device. `ctx` is passed back unchanged.
 * Streams and events are backend handles; stream NULL = default stream. */
typedef struct accel_allocator_device {
    void *ctx;
    accel_status_t (*raw_alloc)(void *ctx, size_t size, void **out);
    void (*raw_free)(void *ctx, void *ptr);
    /* (optional, as a group) when NULL, blocks are reused across streams at once
     * (a backend whose streams all complete work before returning). */
    accel_status_t (*event_record_new)(void *ctx, void *stream, void **out_event);
    accel_status_t (*event_query)(void *ctx, void *event); /* OK or NOT_READY */
    void (*event_destroy)(void *ctx, void *event);
    /* (optional) wait until `event` completed; NULL: empty_cache does not
     * wait, and blocks whose free event is pending stay cached. */
    accel_status_t (*event_synchronize)(void *ctx, void *event);
    /* (optional) true when `stream` has no work pending: a block freed then
     * needs no event, since nothing queued on that stream can still use it
     * (the cpu default stream always answers true). NULL: always record. */
    bool (*stream_idle)(void *ctx, void *stream);
    /* (optional) a counter the allocator bumps (release order) whenever its
     * set of live blocks changes, so a cached lookup answer can be checked
     * for staleness without the lock; it may be shared by several
     * allocators and must outlive this one. */
    _Atomic uint64_t *generation;
} accel_allocator_device_t;

accel_status_t accel_allocator_create(const accel_allocator_device_t *device, bool caching,
                                      accel_allocator_t **out);
/* Frees every segment (live blocks too: call it only when nothing uses them). */
void accel_allocator_destroy(accel_allocator_t *allocator);
/* Frees the allocator's own records but never gives its segments back to the
 * device: for when queued work may still use them and cannot be waited for. */
void accel_allocator_destroy_keeping_memory(accel_allocator_t *allocator);

/* size 0 -> *out = NULL, ACCEL_OK. */
accel_status_t accel_allocator_alloc(accel_allocator_t *allocator, size_t size, void *stream,
                                     void **out);
/* Private pools (torch's graph pools: CUDACachingAllocator.cpp, "Interaction
 * with CUDA graph capture"). accel_allocator_alloc_in with `pool_owner` not
 * NULL allocates from that owner's pool: its segments are its own, its
 * freed blocks go back to it (stream-ordered as above) and only its own
 * allocations reuse them; nothing else gets them, and neither empty_cache
 * nor an out-of-memory retry gives them back to the device. With NULL it is
 * accel_allocator_alloc. The pool is made at its first allocation. */
accel_status_t accel_allocator_alloc_in(accel_allocator_t *allocator, const void *pool_owner,
                                        size_t size, void *stream, void **out);
/* True when `owner` has a private pool here (it allocated and the pool was
 * not released since). */
bool accel_allocator_has_pool(accel_allocator_t *allocator, const void *owner);
/* End `owner`'s pool: its segments join the shared cache, those with no
 * live block go back to the device now, and its blocks still live go to the
 * shared cache when freed. Call it only once no queued work can use the
 * pool's memory (core: after a device synchronize). Unknown owners are
 * ignored. */
void accel_allocator_release_pool(accel_allocator_t *allocator, const void *owner);
/* A graph capture began (or ended) on a stream of this allocator's device:
 * torch's captures_underway (CUDACachingAllocator.cpp, malloc and free;
 * torch_mlu caching_allocator.cpp). While any capture is underway the
 * allocator makes no vendor call that a capture forbids or that would
 * synchronize mid-capture: an allocation queries no pending free event (an
 * event query is illegal during a capture), an out-of-memory is returned
 * without releasing the cached segments (a raw free during a capture; on
 * mlu that is a device synchronize), accel_allocator_hold records no event
 * whatever its `record` says (the stream may have joined the capture; core
 * synchronizes the device before releasing held blocks), and
 * accel_allocator_empty_cache leaves the cache as it is. Calls nest: one
 * end per begin. */
void accel_allocator_capture_begin(accel_allocator_t *allocator);
void accel_allocator_capture_end(accel_allocator_t *allocator);
/* INVALID_ARGUMENT when ptr is not the start of a live block. */
accel_status_t accel_allocator_free(accel_allocator_t *allocator, void *ptr, void *stream);

/* Take the live block starting at `ptr`, freed on `stream`, away from its
 * user without making it reusable: lookups and frees no longer find it, its
 * bytes stay counted as allocated, and no request gets it until
 * accel_allocator_release_held with the same `owner` (core uses the graph
 * whose capture was running when the user freed it) and, with `record`,
 * after that until the work queued on `stream` before the hold has run (an
 * event recorded now, so `stream` may be destroyed meanwhile). Without
 * `record` the stream is not touched at all (core: a stream that is itself
 * capturing, which may be neither queried nor recorded on; core then
 * synchronizes the device before the release). INVALID_ARGUMENT when ptr is not
 * the start of a live block; NULL is accepted and ignored; a failed event
 * record keeps its status and text and changes nothing. */
accel_status_t accel_allocator_hold(accel_allocator_t *allocator, void *ptr, void *stream,
                                    bool record, const void *owner);
/* accel_free's lookup, tensor check and free as one locked step: the live
 * block starting at `ptr` is freed on `stream`, or held for `hold_owner`
 * when that is not NULL (see accel_allocator_hold, whose `record` is
 * `hold_record`); *out_size is the size
 * it was asked with. NOT_FOUND when no live block starts at `ptr`, and
 * INVALID_ARGUMENT with *out_tensor_owned true when the block is marked
 * tensor-owned and `allow_tensor` is false (nothing changes then); neither
 * sets error text: the caller words it. A failed free event keeps its
 * status and text. */
accel_status_t accel_allocator_free_user(accel_allocator_t *allocator, void *ptr, void *stream,
                                         const void *hold_owner, bool hold_record,
                                         bool allow_tensor, size_t *out_size,
                                         bool *out_tensor_owned);
/* True when some block is held for `owner`. */
bool accel_allocator_holds(accel_allocator_t *allocator, const void *owner);
/* Free every block held for `owner`; each is reusable by any stream once the
 * event recorded when it was held has completed. */
void accel_allocator_release_held(accel_allocator_t *allocator, const void *owner);

/* Find the live block holding `ptr` (any byte inside it): its start and the
 * size the user asked for. NOT_FOUND when none. Sets no error text. */
accel_status_t accel_allocator_lookup(accel_allocator_t *allocator, const void *ptr,
                                      void **out_base, size_t *out_size);

/* Mark the live block starting at `ptr` as owned by a tensor (or not);
 * NOT_FOUND (no error text) when no live block starts there. The mark goes
 * with the block: freeing it clears it. */
accel_status_t accel_allocator_set_tensor_owned(accel_allocator_t *allocator, const void *ptr,
                                                bool owned);
/* true when the live block starting at `ptr` is marked tensor-owned. */
bool accel_allocator_tensor_owned(accel_allocator_t *allocator, const void *ptr);

/* true when [ptr, ptr + size) shares a byte with the span of some live
 * block (its whole rounded span, not only the bytes asked for). */
bool accel_allocator_overlaps(accel_allocator_t *allocator, const void *ptr, size_t size);

void accel_allocator_stats(accel_allocator_t *allocator, accel_memory_stats_t *out);

/* torch's allocator statistics (CUDACachingAllocator's DeviceStats), with
 * torch's meanings for this allocator:
 * - allocation / allocated_bytes: blocks handed out (held blocks included);
 * - segment / reserved_bytes: raw allocations;
 * - active / active_bytes: blocks not back in a pool. A freed block goes back
 *   to its pool at once (stream-ordered reuse is enforced inside the pool),
 *   so these equal allocation / allocated_bytes;
 * - inactive_split / inactive_split_bytes: free blocks of a segment that also
 *   holds other blocks (they cannot be released until the segment is whole);
 * - requested_bytes: the sizes asked for, before rounding.
 * Each kind is kept for all blocks and per pool (small: segments for
 * requests under 1 MiB), as current, peak, and cumulative allocated / freed. */
typedef enum accel_alloc_stat_kind {
    ACCEL_STAT_ALLOCATION,
    ACCEL_STAT_SEGMENT,
    ACCEL_STAT_ACTIVE,
    ACCEL_STAT_INACTIVE_SPLIT,
    ACCEL_STAT_ALLOCATED_BYTES,
    ACCEL_STAT_RESERVED_BYTES,
    ACCEL_STAT_ACTIVE_BYTES,
    ACCEL_STAT_INACTIVE_SPLIT_BYTES,
    ACCEL_STAT_REQUESTED_BYTES,
    ACCEL_STAT_KIND_COUNT
} accel_alloc_stat_kind_t;

typedef enum accel_alloc_pool {
    ACCEL_POOL_ALL,
    ACCEL_POOL_SMALL,
    ACCEL_POOL_LARGE,
    ACCEL_POOL_COUNT
} accel_alloc_pool_t;

typedef struct accel_alloc_stat {
    uint64_t current, peak, allocated, freed;
} accel_alloc_stat_t;

typedef struct accel_allocator_stats {
    accel_alloc_stat_t stat[ACCEL_STAT_KIND_COUNT][ACCEL_POOL_COUNT];
    uint64_t num_alloc_retries; /* cache released after an OOM, then retried */
    uint64_t num_ooms;          /* OUT_OF_MEMORY returned to the caller */
    uint64_t num_device_alloc;  /* raw_alloc calls that succeeded */
    uint64_t num_device_free;   /* raw_free calls */
    /* of num_ooms, the requests refused without asking the device (larger
     * than any device can hold): torch's num_oom_rejections */
    uint64_t num_oom_rejections;
} accel_allocator_stats_t;

void accel_allocator_stats_full(accel_allocator_t *allocator, accel_allocator_stats_t *out);

/* Peaks to reset. ALLOCATED: allocation, active, allocated, active and
 * requested bytes; RESERVED: segment, reserved bytes, inactive split. */
#define ACCEL_PEAK_ALLOCATED 1u
#define ACCEL_PEAK_RESERVED  2u
#define ACCEL_PEAK_ALL       0xffu
void accel_allocator_reset_peaks(accel_allocator_t *allocator, unsigned which);
/* torch's resetAccumulatedStats: the cumulative figures (allocated, freed)
 * of every statistic and the event counters (num_*) go to 0; current values
 * and peaks stay. */
void accel_allocator_reset_accumulated(accel_allocator_t *allocator);

/* Give every cached, unused segment back to the raw allocator, after waiting
 * (with the lock held, as torch does) for the pending free events of cached
 * blocks, so blocks freed while their stream had work are released too.
 * Segments of private pools stay. */
void accel_allocator_empty_cache(accel_allocator_t *allocator);

/* Hold / release the allocator's lock across fork() (fork.c only). */
void accel_allocator_fork_lock(accel_allocator_t *allocator);
void accel_allocator_fork_unlock(accel_allocator_t *allocator);

#endif
