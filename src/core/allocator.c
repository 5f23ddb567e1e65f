/* allocator.c: the caching device allocator. Segments come from the device's
 * raw allocator, are cut into blocks, and freed blocks stay cached for reuse
 * with stream-ordered safety (see allocator.h for the rules).
 *
 * Ownership: the allocator owns every segment, block record and pending event
 * it creates; destroy releases them all. Blocks handed out are owned by the
 * caller until accel_allocator_free.
 * Threads: one mutex per allocator, held for the whole body of every public
 * function, including the calls into the device callbacks.
 */
#include "allocator.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_tree.h"
#include "error.h"

#define ALLOC_ROUND         ((size_t)512)     /* block size granularity */
#define ALLOC_SMALL_LIMIT   ((size_t)1 << 20) /* rounded sizes below use the small pool */
#define ALLOC_SEGMENT_ROUND ((size_t)2 << 20) /* small segment size; large segment rounding */

typedef struct alloc_event alloc_event_t;
typedef struct alloc_segment alloc_segment_t;
typedef struct alloc_pool alloc_pool_t;

/* One piece of a segment. A block is either live (in the live tree) or free
 * (in its pool's free tree while caching). A free block with `event` set was
 * freed on `stream` and may be reused by other streams only once that event
 * has completed; event NULL means any stream may reuse it. */
typedef struct alloc_block {
    accel_alloc_node_t node; /* first member: a node pointer is a block pointer */
    alloc_segment_t *segment;
    uintptr_t addr;
    size_t size;      /* bytes the block spans (rounded) */
    size_t requested; /* bytes the caller asked for; 0 while free */
    bool live;
    bool tensor_owned; /* the data of a tensor from accel_tensor_empty (live only) */
    void *stream;
    alloc_event_t *event;
    struct alloc_block *prev, *next;             /* address order in the segment */
    struct alloc_block *event_prev, *event_next; /* blocks waiting on the same event */
    const void *held_by;           /* owner of a held block (see accel_allocator_hold) */
    struct alloc_block *held_next; /* the allocator's held list */
    void *held_event; /* backend event recorded on the freeing stream when the block was
                         held (NULL: that stream was idle); the release waits on it */
} alloc_block_t;

/* The free trees of the segments that share a cache: the allocator's shared
 * one (owner NULL), or the private pool of an owner (core: a graph pool; see
 * accel_allocator_alloc_in), whose blocks only that owner's allocations get. */
struct alloc_pool {
    const void *owner;
    accel_alloc_node_t *free_small, *free_large;
    alloc_pool_t *next; /* the allocator's private pools */
};

/* One allocation from the raw allocator. */
struct alloc_segment {
    uintptr_t base;
    size_t size;
    bool small;
    alloc_pool_t *pool; /* whose free trees its free blocks go to */
    alloc_block_t *first;
    alloc_segment_t *prev, *next;
};

/* An event recorded when blocks were freed; it lives while some free block
 * still waits on it (`blocks`), and is destroyed once it completed or once no
 * block needs it any more. */
struct alloc_event {
    void *handle;
    void *stream;
    uint64_t sequence; /* recording order, to pick the later of two on a stream */
    bool retiring;
    alloc_block_t *blocks;
    alloc_event_t *prev, *next; /* the allocator's pending list */
};

struct accel_allocator {
    pthread_mutex_t lock;
    accel_allocator_device_t device;
    bool caching;
    bool has_events;
    accel_alloc_node_t *live;
    alloc_pool_t shared;         /* the cache every allocation outside a pool uses */
    alloc_pool_t *private_pools; /* created at an owner's first allocation */
    alloc_segment_t *segments;
    alloc_event_t *pending;
    alloc_block_t *held; /* freed by the user, still reserved for an owner */
    uint64_t event_sequence;
    unsigned captures; /* graph captures underway on the device (capture_begin) */
    uint32_t rng;
    accel_allocator_stats_t stats;
};

/* ---------------------------------------------------------------- trees of blocks */

static alloc_block_t *block_of(accel_alloc_node_t *node)
{
    return (alloc_block_t *)node;
}

static uint32_t allocator_random(accel_allocator_t *allocator)
{
    uint32_t x = allocator->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    allocator->rng = x;
    return x;
}

static accel_alloc_node_t **free_root(accel_allocator_t *allocator, const alloc_block_t *block)
{
    (void)allocator;
    alloc_pool_t *pool = block->segment->pool;
    return block->segment->small ? &pool->free_small : &pool->free_large;
}

static void free_insert(accel_allocator_t *allocator, alloc_block_t *block)
{
    block->node.left = block->node.right = NULL;
    block->node.key = block->size;
    block->node.tie = block->addr;
    accel_alloc_node_t **root = free_root(allocator, block);
    *root = accel_alloc_tree_insert(*root, &block->node);
}

static void free_remove(accel_allocator_t *allocator, alloc_block_t *block)
{
    accel_alloc_node_t **root = free_root(allocator, block);
    *root = accel_alloc_tree_remove(*root, &block->node);
}

/* The live set changed (or is about to vanish): cached lookups are stale. */
static void live_changed(accel_allocator_t *allocator)
{
    if (allocator->device.generation != NULL)
        atomic_fetch_add_explicit(allocator->device.generation, 1, memory_order_release);
}

static void live_insert(accel_allocator_t *allocator, alloc_block_t *block)
{
    live_changed(allocator);
    block->node.left = block->node.right = NULL;
    block->node.key = block->addr;
    block->node.tie = 0;
    allocator->live = accel_alloc_tree_insert(allocator->live, &block->node);
}

static void live_remove(accel_allocator_t *allocator, alloc_block_t *block)
{
    live_changed(allocator);
    allocator->live = accel_alloc_tree_remove(allocator->live, &block->node);
}

static alloc_block_t *live_find(accel_allocator_t *allocator, uintptr_t addr)
{
    accel_alloc_node_t *node = accel_alloc_tree_floor(allocator->live, addr);
    return node ? block_of(node) : NULL;
}

/* ---------------------------------------------------------------- statistics */

/* Add (`up`) or remove `amount` in one kind's "all" entry and its pool's. */
static void stat_update(accel_allocator_t *allocator, accel_alloc_stat_kind_t kind, bool small,
                        bool up, uint64_t amount)
{
    accel_alloc_stat_t *entries[2] = {
        &allocator->stats.stat[kind][ACCEL_POOL_ALL],
        &allocator->stats.stat[kind][small ? ACCEL_POOL_SMALL : ACCEL_POOL_LARGE]};
    for (int i = 0; i < 2; i++) {
        accel_alloc_stat_t *stat = entries[i];
        if (up) {
            stat->current += amount;
            stat->allocated += amount;
            if (stat->current > stat->peak)
                stat->peak = stat->current;
        } else {
            stat->current -= amount;
            stat->freed += amount;
        }
    }
}

static void stats_block_live(accel_allocator_t *allocator, const alloc_block_t *block, bool live)
{
    bool small = block->segment->small;
    stat_update(allocator, ACCEL_STAT_ALLOCATION, small, live, 1);
    stat_update(allocator, ACCEL_STAT_ACTIVE, small, live, 1);
    stat_update(allocator, ACCEL_STAT_ALLOCATED_BYTES, small, live, block->size);
    stat_update(allocator, ACCEL_STAT_ACTIVE_BYTES, small, live, block->size);
    stat_update(allocator, ACCEL_STAT_REQUESTED_BYTES, small, live, block->requested);
}

/* A free block sharing its segment with other blocks ("inactive split"). */
static bool block_inactive_split(const alloc_block_t *block)
{
    return !block->live && (block->prev != NULL || block->next != NULL);
}

/* Count `block` in (or out of) the inactive-split figures, if it is one.
 * Callers take a block out before changing it and put it back after. */
static void stats_inactive_split(accel_allocator_t *allocator, const alloc_block_t *block, bool in)
{
    if (!block_inactive_split(block))
        return;
    stat_update(allocator, ACCEL_STAT_INACTIVE_SPLIT, block->segment->small, in, 1);
    stat_update(allocator, ACCEL_STAT_INACTIVE_SPLIT_BYTES, block->segment->small, in, block->size);
}

static void stats_segment(accel_allocator_t *allocator, const alloc_segment_t *segment, bool up)
{
    stat_update(allocator, ACCEL_STAT_SEGMENT, segment->small, up, 1);
    stat_update(allocator, ACCEL_STAT_RESERVED_BYTES, segment->small, up, segment->size);
    if (up)
        allocator->stats.num_device_alloc += 1;
    else
        allocator->stats.num_device_free += 1;
}

/* ---------------------------------------------------------------- events */

static void event_link(alloc_event_t *event, alloc_block_t *block)
{
    block->event = event;
    block->stream = event->stream;
    block->event_prev = NULL;
    block->event_next = event->blocks;
    if (event->blocks)
        event->blocks->event_prev = block;
    event->blocks = block;
}

static void event_unlink(alloc_block_t *block)
{
    alloc_event_t *event = block->event;
    if (block->event_prev)
        block->event_prev->event_next = block->event_next;
    else
        event->blocks = block->event_next;
    if (block->event_next)
        block->event_next->event_prev = block->event_prev;
    block->event = NULL;
    block->event_prev = block->event_next = NULL;
}

/* Destroy the backend event and forget it (whether or not it completed). */
static void event_discard(accel_allocator_t *allocator, alloc_event_t *event)
{
    if (event->prev)
        event->prev->next = event->next;
    else
        allocator->pending = event->next;
    if (event->next)
        event->next->prev = event->prev;
    allocator->device.event_destroy(allocator->device.ctx, event->handle);
    free(event);
}

/* Make `block` wait on `event` (NULL: on nothing). An event no block waits on
 * any more is discarded, unless it is being retired right now. */
static void block_set_event(accel_allocator_t *allocator, alloc_block_t *block,
                            alloc_event_t *event)
{
    alloc_event_t *old = block->event;
    if (old == event)
        return;
    if (old)
        event_unlink(block);
    if (event)
        event_link(event, block);
    if (old && !old->blocks && !old->retiring)
        event_discard(allocator, old);
}

/* Put the recorded backend event `handle` on the pending list (the list
 * owns it from now on). With `stream_known` false the stream it was recorded
 * on may be gone, so no stream may reuse its blocks before it completes: the
 * event's own address stands for a stream nobody allocates on. */
static void event_add_pending(accel_allocator_t *allocator, alloc_event_t *event, void *handle,
                              void *stream, bool stream_known)
{
    event->handle = handle;
    event->stream = stream_known ? stream : (void *)event;
    event->sequence = ++allocator->event_sequence;
    event->next = allocator->pending;
    if (allocator->pending)
        allocator->pending->prev = event;
    allocator->pending = event;
}

/* Record a new event on `stream` and add it to the pending list. */
static accel_status_t event_record(accel_allocator_t *allocator, void *stream, alloc_event_t **out)
{
    void *handle = NULL;
    alloc_event_t *event = calloc(1, sizeof *event);
    if (!event)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "allocator: host out of memory while recording a free event");
    accel_status_t status =
        allocator->device.event_record_new(allocator->device.ctx, stream, &handle);
    if (status != ACCEL_OK) {
        free(event);
        return status;
    }
    event_add_pending(allocator, event, handle, stream, true);
    *out = event;
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- segments */

static void segment_release(accel_allocator_t *allocator, alloc_segment_t *segment)
{
    alloc_block_t *block = segment->first;
    if (allocator->caching)
        free_remove(allocator, block);
    allocator->device.raw_free(allocator->device.ctx, (void *)segment->base);
    stats_segment(allocator, segment, false);
    if (segment->prev)
        segment->prev->next = segment->next;
    else
        allocator->segments = segment->next;
    if (segment->next)
        segment->next->prev = segment->prev;
    free(block);
    free(segment);
}

/* A segment of a private pool stays reserved while the pool lives: work
 * captured in a graph may still write into it. */
static bool segment_private(const alloc_segment_t *segment)
{
    return segment->pool->owner != NULL;
}

/* A segment of the shared cache whose only block is free and usable by
 * every stream. */
static bool segment_idle(const alloc_segment_t *segment)
{
    const alloc_block_t *block = segment->first;
    return !block->live && !block->next && !block->event && !segment_private(segment);
}

/* Give back every idle segment; returns how many were released. */
static size_t segments_release_idle(accel_allocator_t *allocator)
{
    size_t released = 0;
    alloc_segment_t *segment = allocator->segments;
    while (segment) {
        alloc_segment_t *next = segment->next;
        if (segment_idle(segment)) {
            segment_release(allocator, segment);
            released++;
        }
        segment = next;
    }
    return released;
}

/* Get a segment of `size` bytes from the raw allocator, as one free block
 * (in the free tree when caching). Sets no error text of its own: the raw
 * allocator's status and sentence are returned unchanged. */
static accel_status_t segment_new(accel_allocator_t *allocator, alloc_pool_t *pool, size_t size,
                                  bool small, alloc_block_t **out)
{
    alloc_segment_t *segment = calloc(1, sizeof *segment);
    alloc_block_t *block = calloc(1, sizeof *block);
    void *base = NULL;
    accel_status_t status = ACCEL_OK;
    if (!segment || !block) {
        status = accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                             "allocator: host out of memory for segment bookkeeping");
        goto fail;
    }
    status = allocator->device.raw_alloc(allocator->device.ctx, size, &base);
    if (status == ACCEL_OK && !base)
        status = accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                             "allocator: the raw allocator returned NULL for %zu bytes", size);
    if (status != ACCEL_OK)
        goto fail;

    segment->base = (uintptr_t)base;
    segment->size = size;
    segment->small = small;
    segment->pool = pool;
    segment->first = block;
    segment->next = allocator->segments;
    if (allocator->segments)
        allocator->segments->prev = segment;
    allocator->segments = segment;
    stats_segment(allocator, segment, true);

    block->segment = segment;
    block->addr = segment->base;
    block->size = size;
    block->node.priority = allocator_random(allocator);
    if (allocator->caching)
        free_insert(allocator, block);
    *out = block;
    return ACCEL_OK;

fail:
    free(block);
    free(segment);
    return status;
}

/* ---------------------------------------------------------------- blocks */

/* Whether two adjacent free blocks can become one without letting any
 * stream reuse memory sooner than it could before. */
static bool blocks_mergeable(const alloc_block_t *a, const alloc_block_t *b)
{
    if (a->live || b->live)
        return false;
    if (!a->event && !b->event)
        return true;
    return a->event && b->event && a->stream == b->stream;
}

/* Fold `upper` (the block right after `lower`) into `lower`; neither is in a
 * free tree. When both wait on events of the same stream, the later event
 * covers both. */
static void blocks_join(accel_allocator_t *allocator, alloc_block_t *lower, alloc_block_t *upper)
{
    if (lower->event && upper->event && upper->event->sequence > lower->event->sequence)
        block_set_event(allocator, lower, upper->event);
    block_set_event(allocator, upper, NULL);
    lower->size += upper->size;
    lower->next = upper->next;
    if (upper->next)
        upper->next->prev = lower;
    free(upper);
}

/* `block` is free and in no free tree: fold in its mergeable neighbours and
 * put the result in its pool's free tree. */
static void block_coalesce(accel_allocator_t *allocator, alloc_block_t *block)
{
    if (block->prev && blocks_mergeable(block->prev, block)) {
        alloc_block_t *lower = block->prev;
        free_remove(allocator, lower);
        stats_inactive_split(allocator, lower, false);
        blocks_join(allocator, lower, block);
        block = lower;
    }
    if (block->next && blocks_mergeable(block, block->next)) {
        free_remove(allocator, block->next);
        stats_inactive_split(allocator, block->next, false);
        blocks_join(allocator, block, block->next);
    }
    stats_inactive_split(allocator, block, true);
    free_insert(allocator, block);
}

/* The event completed: its blocks become reusable by every stream (or, in
 * passthrough mode, their segments go back to the raw allocator). */
static void event_retire(accel_allocator_t *allocator, alloc_event_t *event)
{
    event->retiring = true;
    while (event->blocks) {
        alloc_block_t *block = event->blocks;
        block_set_event(allocator, block, NULL);
        if (allocator->caching) {
            free_remove(allocator, block);
            stats_inactive_split(allocator, block, false);
            block_coalesce(allocator, block);
        } else if (!segment_private(block->segment)) {
            segment_release(allocator, block->segment);
        }
    }
    event_discard(allocator, event);
}

/* Retire every pending event that has completed. A query error leaves the
 * event pending (its blocks are then only reused on their own stream). */
static void events_poll(accel_allocator_t *allocator)
{
    alloc_event_t *event = allocator->pending;
    while (event) {
        alloc_event_t *next = event->next;
        if (allocator->device.event_query(allocator->device.ctx, event->handle) == ACCEL_OK)
            event_retire(allocator, event);
        event = next;
    }
}

/* Best fit among the blocks of `pool` that `stream` may use now, or NULL. */
static alloc_block_t *pool_find(const alloc_pool_t *pool, bool small, size_t size, void *stream)
{
    accel_alloc_node_t *root = small ? pool->free_small : pool->free_large;
    for (accel_alloc_node_t *node = accel_alloc_tree_ceiling(root, size, 0); node;
         node = accel_alloc_tree_after(root, node)) {
        alloc_block_t *block = block_of(node);
        if (!block->event || block->stream == stream)
            return block;
    }
    return NULL;
}

static bool block_should_split(const alloc_block_t *block, size_t size)
{
    size_t remainder = block->size - size;
    if (block->segment->small)
        return remainder >= ALLOC_ROUND;
    return remainder > ALLOC_SMALL_LIMIT;
}

/* Hand out the free block `block` for a request of `size` rounded bytes
 * (`requested` as asked), splitting off a cached remainder when worth it. */
static accel_status_t block_take(accel_allocator_t *allocator, alloc_block_t *block, size_t size,
                                 size_t requested)
{
    alloc_block_t *rest = NULL;
    if (allocator->caching && block_should_split(block, size)) {
        rest = calloc(1, sizeof *rest);
        if (!rest)
            return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                               "allocator: host out of memory while splitting a block");
    }
    if (allocator->caching)
        free_remove(allocator, block);
    stats_inactive_split(allocator, block, false);
    if (rest) {
        rest->segment = block->segment;
        rest->addr = block->addr + size;
        rest->size = block->size - size;
        rest->node.priority = allocator_random(allocator);
        rest->prev = block;
        rest->next = block->next;
        if (block->next)
            block->next->prev = rest;
        block->next = rest;
        block->size = size;
        if (block->event)
            block_set_event(allocator, rest, block->event);
        stats_inactive_split(allocator, rest, true);
        free_insert(allocator, rest);
    }
    block_set_event(allocator, block, NULL);
    block->live = true;
    block->requested = requested;
    live_insert(allocator, block);
    stats_block_live(allocator, block, true);
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- public */

static bool device_valid(const accel_allocator_device_t *device)
{
    if (!device || !device->raw_alloc || !device->raw_free)
        return false;
    bool any = device->event_record_new || device->event_query || device->event_destroy;
    bool all = device->event_record_new && device->event_query && device->event_destroy;
    return !any || all;
}

accel_status_t accel_allocator_create(const accel_allocator_device_t *device, bool caching,
                                      accel_allocator_t **out)
{
    if (!out)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "allocator: create needs a place to store the allocator (out is NULL)");
    if (!device_valid(device))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "allocator: the device needs raw_alloc and raw_free, and either all "
                           "or none of event_record_new, event_query and event_destroy");
    accel_allocator_t *allocator = calloc(1, sizeof *allocator);
    if (!allocator)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "allocator: host out of memory");
    /* Adaptive (glibc): a thread finding the lock taken spins a little
     * before sleeping, since every critical section here is short; two
     * threads allocating at once then rarely pay a futex sleep. */
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    int lock_rc = pthread_mutex_init(&allocator->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    if (lock_rc != 0) {
        free(allocator);
        return accel_error(ACCEL_ERROR_INTERNAL, "allocator: could not create its mutex");
    }
    allocator->device = *device;
    allocator->caching = caching;
    allocator->has_events = device->event_record_new != NULL;
    allocator->rng = 0x9e3779b9u;
    allocator->shared.owner = NULL;
    *out = allocator;
    return ACCEL_OK;
}

static void allocator_free_all(accel_allocator_t *allocator, bool release_memory)
{
    if (!allocator)
        return;
    live_changed(allocator);
    while (allocator->pending) {
        alloc_event_t *event = allocator->pending;
        allocator->pending = event->next;
        allocator->device.event_destroy(allocator->device.ctx, event->handle);
        free(event);
    }
    for (alloc_block_t *block = allocator->held; block; block = block->held_next)
        if (block->held_event)
            allocator->device.event_destroy(allocator->device.ctx, block->held_event);
    while (allocator->private_pools) {
        alloc_pool_t *pool = allocator->private_pools;
        allocator->private_pools = pool->next;
        free(pool);
    }
    while (allocator->segments) {
        alloc_segment_t *segment = allocator->segments;
        allocator->segments = segment->next;
        for (alloc_block_t *block = segment->first; block;) {
            alloc_block_t *next = block->next;
            free(block);
            block = next;
        }
        if (release_memory)
            allocator->device.raw_free(allocator->device.ctx, (void *)segment->base);
        free(segment);
    }
    pthread_mutex_destroy(&allocator->lock);
    free(allocator);
}

void accel_allocator_destroy(accel_allocator_t *allocator)
{
    allocator_free_all(allocator, true);
}

void accel_allocator_destroy_keeping_memory(accel_allocator_t *allocator)
{
    allocator_free_all(allocator, false);
}

/* A new segment for `size` rounded bytes (`requested` as asked); on
 * OUT_OF_MEMORY, release idle cached segments and try once more. Called with
 * the lock held. */
static accel_status_t allocator_grow(accel_allocator_t *allocator, alloc_pool_t *pool, size_t size,
                                     size_t requested, bool small, alloc_block_t **out)
{
    size_t segment_size = size;
    if (allocator->caching)
        segment_size = small ? ALLOC_SEGMENT_ROUND
                             : (size + ALLOC_SEGMENT_ROUND - 1) & ~(ALLOC_SEGMENT_ROUND - 1);
    accel_status_t status = segment_new(allocator, pool, segment_size, small, out);
    if (status != ACCEL_ERROR_OUT_OF_MEMORY)
        return status;
    /* No raw free while a capture is underway (torch skips
     * release_cached_blocks then): the out-of-memory goes to the caller. */
    if (allocator->caching && allocator->captures == 0 && segments_release_idle(allocator) > 0) {
        allocator->stats.num_alloc_retries += 1;
        status = segment_new(allocator, pool, segment_size, small, out);
        if (status != ACCEL_ERROR_OUT_OF_MEMORY)
            return status;
    }
    char reason[512];
    accel_error_copy(reason, sizeof reason);
    allocator->stats.num_ooms += 1;
    return accel_error(
        ACCEL_ERROR_OUT_OF_MEMORY,
        "device out of memory: tried to allocate %zu bytes with %" PRIu64
        " bytes reserved and %" PRIu64 " bytes allocated (%s)",
        requested, allocator->stats.stat[ACCEL_STAT_RESERVED_BYTES][ACCEL_POOL_ALL].current,
        allocator->stats.stat[ACCEL_STAT_ALLOCATED_BYTES][ACCEL_POOL_ALL].current, reason);
}

/* The private pool of `owner`, made when `create` and it has none yet;
 * NULL when it has none (or, with `create`, the host is out of memory). */
static alloc_pool_t *pool_of(accel_allocator_t *allocator, const void *owner, bool create)
{
    alloc_pool_t *pool = allocator->private_pools;
    while (pool != NULL && pool->owner != owner)
        pool = pool->next;
    if (pool != NULL || !create)
        return pool;
    pool = calloc(1, sizeof *pool);
    if (pool == NULL)
        return NULL;
    pool->owner = owner;
    pool->next = allocator->private_pools;
    allocator->private_pools = pool;
    return pool;
}

static accel_status_t allocator_alloc_locked(accel_allocator_t *allocator, const void *owner,
                                             size_t size, void *stream, void **out)
{
    alloc_pool_t *pool = &allocator->shared;
    if (owner != NULL && (pool = pool_of(allocator, owner, true)) == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "allocator: host out of memory creating a private pool");
    if (size > SIZE_MAX - 2 * ALLOC_SEGMENT_ROUND) {
        allocator->stats.num_ooms += 1;
        allocator->stats.num_oom_rejections += 1; /* the device was not asked */
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "device out of memory: %zu bytes is more than any device holds", size);
    }
    /* Passthrough asks the raw allocator for the exact size, so sanitizers
     * see the real bounds. */
    size_t rounded = allocator->caching ? (size + ALLOC_ROUND - 1) & ~(ALLOC_ROUND - 1) : size;
    bool small = rounded < ALLOC_SMALL_LIMIT;
    /* Event queries are illegal during a capture: blocks waiting on a free
     * event wait until no capture is underway (torch's malloc does the same). */
    if (allocator->has_events && allocator->captures == 0)
        events_poll(allocator);
    alloc_block_t *block = NULL;
    if (allocator->caching)
        block = pool_find(pool, small, rounded, stream);
    accel_status_t status = ACCEL_OK;
    if (!block)
        status = allocator_grow(allocator, pool, rounded, size, small, &block);
    if (status == ACCEL_OK)
        status = block_take(allocator, block, rounded, size);
    if (status == ACCEL_OK)
        *out = (void *)block->addr;
    return status;
}

accel_status_t accel_allocator_alloc(accel_allocator_t *allocator, size_t size, void *stream,
                                     void **out)
{
    return accel_allocator_alloc_in(allocator, NULL, size, stream, out);
}

accel_status_t accel_allocator_alloc_in(accel_allocator_t *allocator, const void *pool_owner,
                                        size_t size, void *stream, void **out)
{
    if (!allocator || !out)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "allocator: alloc needs an allocator and an output pointer");
    if (size == 0) {
        *out = NULL;
        return ACCEL_OK;
    }
    pthread_mutex_lock(&allocator->lock);
    accel_status_t status = allocator_alloc_locked(allocator, pool_owner, size, stream, out);
    pthread_mutex_unlock(&allocator->lock);
    return status;
}

/* Whether work queued on `stream` may still use memory freed now: then the
 * free needs an event. */
static bool stream_needs_event(accel_allocator_t *allocator, void *stream)
{
    return allocator->has_events && !(allocator->device.stream_idle &&
                                      allocator->device.stream_idle(allocator->device.ctx, stream));
}

/* Make the block free, reusable once `event` completed (NULL: now): cached
 * (stream-ordered) or back to the raw allocator. */
static void block_release(accel_allocator_t *allocator, alloc_block_t *block, void *stream,
                          alloc_event_t *event, bool in_live_tree)
{
    if (in_live_tree)
        live_remove(allocator, block);
    stats_block_live(allocator, block, false);
    block->live = false;
    block->tensor_owned = false;
    block->requested = 0;
    block->stream = stream;
    if (event)
        block_set_event(allocator, block, event);
    if (!allocator->caching) {
        /* Passthrough: back to the raw allocator now, or once the stream's
         * work that may still use it is done; a private pool's block stays
         * until the pool is released. */
        if (!event && !segment_private(block->segment))
            segment_release(allocator, block->segment);
        return;
    }
    block_coalesce(allocator, block);
}

/* Give the block back, freed on `stream`. */
static accel_status_t block_free_locked(accel_allocator_t *allocator, alloc_block_t *block,
                                        void *stream, bool in_live_tree)
{
    alloc_event_t *event = NULL;
    if (stream_needs_event(allocator, stream)) {
        accel_status_t status = event_record(allocator, stream, &event);
        if (status != ACCEL_OK)
            return status;
    }
    block_release(allocator, block, stream, event, in_live_tree);
    return ACCEL_OK;
}

/* Take the live `block`, freed on `stream`, out of use for `owner`. The
 * freeing stream's place is recorded now: the release may come after that
 * stream is destroyed, and must still not hand the block out before the
 * stream's work that uses it is done. */
static accel_status_t block_hold_locked(accel_allocator_t *allocator, alloc_block_t *block,
                                        void *stream, bool record, const void *owner)
{
    void *handle = NULL;
    /* No end-of-life record during a capture: the stream may have joined it
     * (torch defers these records until no capture is underway). */
    if (record && allocator->captures == 0 && stream_needs_event(allocator, stream)) {
        accel_status_t status =
            allocator->device.event_record_new(allocator->device.ctx, stream, &handle);
        if (status != ACCEL_OK)
            return status;
    }
    live_remove(allocator, block);
    block->held_by = owner;
    block->held_event = handle;
    block->held_next = allocator->held;
    allocator->held = block;
    return ACCEL_OK;
}

/* Free a held block (already off the held list). Its event, still pending,
 * moves to the pending list, with no stream allowed to reuse the block early.
 * Host out of memory leaves everything as it was. */
static accel_status_t held_block_release(accel_allocator_t *allocator, alloc_block_t *block)
{
    alloc_event_t *event = NULL;
    if (block->held_event != NULL &&
        allocator->device.event_query(allocator->device.ctx, block->held_event) != ACCEL_OK) {
        event = calloc(1, sizeof *event);
        if (!event)
            return ACCEL_ERROR_OUT_OF_MEMORY;
        event_add_pending(allocator, event, block->held_event, NULL, false);
    } else if (block->held_event != NULL) {
        allocator->device.event_destroy(allocator->device.ctx, block->held_event);
    }
    block->held_event = NULL;
    block->held_by = NULL;
    block->held_next = NULL;
    block_release(allocator, block, event ? event->stream : NULL, event, false);
    return ACCEL_OK;
}

static alloc_block_t *live_block_at(accel_allocator_t *allocator, void *ptr)
{
    alloc_block_t *block = live_find(allocator, (uintptr_t)ptr);
    if (!block || block->addr != (uintptr_t)ptr) {
        accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                    "allocator: pointer %p was not allocated by this allocator or was "
                    "already freed",
                    ptr);
        return NULL;
    }
    return block;
}

static accel_status_t allocator_free_locked(accel_allocator_t *allocator, void *ptr, void *stream)
{
    alloc_block_t *block = live_block_at(allocator, ptr);
    if (!block)
        return ACCEL_ERROR_INVALID_ARGUMENT;
    return block_free_locked(allocator, block, stream, true);
}

accel_status_t accel_allocator_hold(accel_allocator_t *allocator, void *ptr, void *stream,
                                    bool record, const void *owner)
{
    if (!allocator || !owner)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "allocator: hold needs an allocator and an owner");
    if (!ptr)
        return ACCEL_OK;
    pthread_mutex_lock(&allocator->lock);
    alloc_block_t *block = live_block_at(allocator, ptr);
    accel_status_t status = block ? block_hold_locked(allocator, block, stream, record, owner)
                                  : ACCEL_ERROR_INVALID_ARGUMENT;
    pthread_mutex_unlock(&allocator->lock);
    return status;
}

accel_status_t accel_allocator_free_user(accel_allocator_t *allocator, void *ptr, void *stream,
                                         const void *hold_owner, bool hold_record,
                                         bool allow_tensor, size_t *out_size,
                                         bool *out_tensor_owned)
{
    accel_status_t status = ACCEL_ERROR_NOT_FOUND;
    *out_tensor_owned = false;
    pthread_mutex_lock(&allocator->lock);
    alloc_block_t *block = live_find(allocator, (uintptr_t)ptr);
    if (block && block->addr == (uintptr_t)ptr) {
        *out_size = block->requested;
        if (block->tensor_owned && !allow_tensor) {
            *out_tensor_owned = true;
            status = ACCEL_ERROR_INVALID_ARGUMENT;
        } else if (hold_owner != NULL) {
            status = block_hold_locked(allocator, block, stream, hold_record, hold_owner);
        } else {
            status = block_free_locked(allocator, block, stream, true);
        }
    }
    pthread_mutex_unlock(&allocator->lock);
    return status;
}

bool accel_allocator_holds(accel_allocator_t *allocator, const void *owner)
{
    bool holds = false;
    if (!allocator)
        return false;
    pthread_mutex_lock(&allocator->lock);
    for (alloc_block_t *block = allocator->held; block && !holds; block = block->held_next)
        holds = block->held_by == owner;
    pthread_mutex_unlock(&allocator->lock);
    return holds;
}

/* A block whose pending event cannot be listed (host out of memory) stays
 * held rather than being reused too early; the next release retries it. */
void accel_allocator_release_held(accel_allocator_t *allocator, const void *owner)
{
    if (!allocator)
        return;
    pthread_mutex_lock(&allocator->lock);
    for (alloc_block_t **link = &allocator->held; *link;) {
        alloc_block_t *block = *link;
        if (block->held_by != owner) {
            link = &block->held_next;
            continue;
        }
        alloc_block_t *next = block->held_next;
        if (held_block_release(allocator, block) == ACCEL_OK)
            *link = next;
        else
            link = &block->held_next;
    }
    pthread_mutex_unlock(&allocator->lock);
}

bool accel_allocator_has_pool(accel_allocator_t *allocator, const void *owner)
{
    bool has = false;
    if (!allocator || !owner)
        return false;
    pthread_mutex_lock(&allocator->lock);
    has = pool_of(allocator, owner, false) != NULL;
    pthread_mutex_unlock(&allocator->lock);
    return has;
}

/* Move `segment` from its private pool to the shared cache: its free blocks
 * change trees (caching), and it goes back to the raw allocator at once
 * when nothing in it is live or waiting on an event. */
static void segment_unpool(accel_allocator_t *allocator, alloc_segment_t *segment)
{
    for (alloc_block_t *block = segment->first; block && allocator->caching; block = block->next)
        if (!block->live)
            free_remove(allocator, block);
    segment->pool = &allocator->shared;
    for (alloc_block_t *block = segment->first; block && allocator->caching; block = block->next)
        if (!block->live)
            free_insert(allocator, block);
    if (segment_idle(segment))
        segment_release(allocator, segment);
}

void accel_allocator_release_pool(accel_allocator_t *allocator, const void *owner)
{
    if (!allocator || !owner)
        return;
    pthread_mutex_lock(&allocator->lock);
    alloc_pool_t **link = &allocator->private_pools;
    while (*link != NULL && (*link)->owner != owner)
        link = &(*link)->next;
    alloc_pool_t *pool = *link;
    if (pool != NULL) {
        if (allocator->has_events)
            events_poll(allocator);
        for (alloc_segment_t *segment = allocator->segments, *next; segment; segment = next) {
            next = segment->next;
            if (segment->pool == pool)
                segment_unpool(allocator, segment);
        }
        *link = pool->next;
        free(pool);
    }
    pthread_mutex_unlock(&allocator->lock);
}

/* NULL is accepted and ignored, like free(NULL) (alloc of 0 bytes gives NULL). */
accel_status_t accel_allocator_free(accel_allocator_t *allocator, void *ptr, void *stream)
{
    if (!allocator)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "allocator: free needs an allocator");
    if (!ptr)
        return ACCEL_OK;
    pthread_mutex_lock(&allocator->lock);
    accel_status_t status = allocator_free_locked(allocator, ptr, stream);
    pthread_mutex_unlock(&allocator->lock);
    return status;
}

/* Only the bytes the caller asked for count as inside a block, so the
 * returned base and size bound every valid access. */
accel_status_t accel_allocator_lookup(accel_allocator_t *allocator, const void *ptr,
                                      void **out_base, size_t *out_size)
{
    if (!allocator || !ptr)
        return ACCEL_ERROR_NOT_FOUND;
    pthread_mutex_lock(&allocator->lock);
    accel_status_t status = ACCEL_ERROR_NOT_FOUND;
    alloc_block_t *block = live_find(allocator, (uintptr_t)ptr);
    if (block && (uintptr_t)ptr - block->addr < block->requested) {
        if (out_base)
            *out_base = (void *)block->addr;
        if (out_size)
            *out_size = block->requested;
        status = ACCEL_OK;
    }
    pthread_mutex_unlock(&allocator->lock);
    return status;
}

accel_status_t accel_allocator_set_tensor_owned(accel_allocator_t *allocator, const void *ptr,
                                                bool owned)
{
    accel_status_t status = ACCEL_ERROR_NOT_FOUND;
    if (!allocator || !ptr)
        return status;
    pthread_mutex_lock(&allocator->lock);
    alloc_block_t *block = live_find(allocator, (uintptr_t)ptr);
    if (block && block->addr == (uintptr_t)ptr) {
        block->tensor_owned = owned;
        status = ACCEL_OK;
    }
    pthread_mutex_unlock(&allocator->lock);
    return status;
}

bool accel_allocator_tensor_owned(accel_allocator_t *allocator, const void *ptr)
{
    bool owned = false;
    if (!allocator || !ptr)
        return false;
    pthread_mutex_lock(&allocator->lock);
    alloc_block_t *block = live_find(allocator, (uintptr_t)ptr);
    owned = block && block->addr == (uintptr_t)ptr && block->tensor_owned;
    pthread_mutex_unlock(&allocator->lock);
    return owned;
}

/* Blocks never overlap, so only the last block starting before the range's
 * end can reach into it. */
bool accel_allocator_overlaps(accel_allocator_t *allocator, const void *ptr, size_t size)
{
    uintptr_t start = (uintptr_t)ptr;
    uintptr_t last = size > UINTPTR_MAX - start ? UINTPTR_MAX : start + size - 1;
    bool overlaps = false;
    if (!allocator || size == 0)
        return false;
    pthread_mutex_lock(&allocator->lock);
    alloc_block_t *block = live_find(allocator, last);
    overlaps = block != NULL && block->addr + block->size > start;
    pthread_mutex_unlock(&allocator->lock);
    return overlaps;
}

void accel_allocator_stats_full(accel_allocator_t *allocator, accel_allocator_stats_t *out)
{
    if (!allocator || !out)
        return;
    pthread_mutex_lock(&allocator->lock);
    *out = allocator->stats;
    pthread_mutex_unlock(&allocator->lock);
}

void accel_allocator_stats(accel_allocator_t *allocator, accel_memory_stats_t *out)
{
    accel_allocator_stats_t full;
    const accel_alloc_stat_t(*all)[ACCEL_POOL_COUNT];
    if (!allocator || !out)
        return;
    accel_allocator_stats_full(allocator, &full);
    all = full.stat;
    *out = (accel_memory_stats_t){
        .struct_size = sizeof *out,
        .allocated_bytes = all[ACCEL_STAT_ALLOCATED_BYTES][ACCEL_POOL_ALL].current,
        .allocated_bytes_peak = all[ACCEL_STAT_ALLOCATED_BYTES][ACCEL_POOL_ALL].peak,
        .reserved_bytes = all[ACCEL_STAT_RESERVED_BYTES][ACCEL_POOL_ALL].current,
        .reserved_bytes_peak = all[ACCEL_STAT_RESERVED_BYTES][ACCEL_POOL_ALL].peak,
        .requested_bytes = all[ACCEL_STAT_REQUESTED_BYTES][ACCEL_POOL_ALL].current,
        .requested_bytes_peak = all[ACCEL_STAT_REQUESTED_BYTES][ACCEL_POOL_ALL].peak,
        .allocation_count = all[ACCEL_STAT_ALLOCATION][ACCEL_POOL_ALL].current,
        .allocation_count_peak = all[ACCEL_STAT_ALLOCATION][ACCEL_POOL_ALL].peak,
        .segment_count = all[ACCEL_STAT_SEGMENT][ACCEL_POOL_ALL].current,
        .segment_count_peak = all[ACCEL_STAT_SEGMENT][ACCEL_POOL_ALL].peak,
        .alloc_retries = full.num_alloc_retries,
        .ooms = full.num_ooms,
    };
}

/* Which kinds each reset flag covers (allocator.h). */
static unsigned stats_kind_group(accel_alloc_stat_kind_t kind)
{
    switch (kind) {
    case ACCEL_STAT_SEGMENT:
    case ACCEL_STAT_RESERVED_BYTES:
    case ACCEL_STAT_INACTIVE_SPLIT:
    case ACCEL_STAT_INACTIVE_SPLIT_BYTES: return ACCEL_PEAK_RESERVED;
    default: return ACCEL_PEAK_ALLOCATED;
    }
}

void accel_allocator_reset_peaks(accel_allocator_t *allocator, unsigned which)
{
    if (!allocator)
        return;
    pthread_mutex_lock(&allocator->lock);
    for (int kind = 0; kind < ACCEL_STAT_KIND_COUNT; kind++) {
        if (!(which & stats_kind_group((accel_alloc_stat_kind_t)kind)))
            continue;
        for (int pool = 0; pool < ACCEL_POOL_COUNT; pool++) {
            accel_alloc_stat_t *stat = &allocator->stats.stat[kind][pool];
            stat->peak = stat->current;
        }
    }
    pthread_mutex_unlock(&allocator->lock);
}

void accel_allocator_reset_accumulated(accel_allocator_t *allocator)
{
    if (!allocator)
        return;
    pthread_mutex_lock(&allocator->lock);
    for (int kind = 0; kind < ACCEL_STAT_KIND_COUNT; kind++) {
        for (int pool = 0; pool < ACCEL_POOL_COUNT; pool++) {
            accel_alloc_stat_t *stat = &allocator->stats.stat[kind][pool];
            stat->allocated = 0;
            stat->freed = 0;
        }
    }
    allocator->stats.num_alloc_retries = 0;
    allocator->stats.num_ooms = 0;
    allocator->stats.num_oom_rejections = 0;
    allocator->stats.num_device_alloc = 0;
    allocator->stats.num_device_free = 0;
    pthread_mutex_unlock(&allocator->lock);
}

/* Wait for the free event of every block still waiting on one (as torch's
 * synchronize_and_free_events): only the work queued before those frees,
 * never a whole stream or device. A failed wait leaves its event pending. */
static void events_wait_all(accel_allocator_t *allocator)
{
    if (allocator->device.event_synchronize == NULL)
        return;
    for (alloc_event_t *event = allocator->pending; event; event = event->next)
        if (allocator->device.event_query(allocator->device.ctx, event->handle) != ACCEL_OK)
            allocator->device.event_synchronize(allocator->device.ctx, event->handle);
}

void accel_allocator_capture_begin(accel_allocator_t *allocator)
{
    pthread_mutex_lock(&allocator->lock);
    allocator->captures += 1;
    pthread_mutex_unlock(&allocator->lock);
}

void accel_allocator_capture_end(accel_allocator_t *allocator)
{
    pthread_mutex_lock(&allocator->lock);
    if (allocator->captures > 0)
        allocator->captures -= 1;
    pthread_mutex_unlock(&allocator->lock);
}

void accel_allocator_empty_cache(accel_allocator_t *allocator)
{
    if (!allocator)
        return;
    pthread_mutex_lock(&allocator->lock);
    if (allocator->captures > 0) {
        /* Its event waits and raw frees are what a capture forbids. */
        pthread_mutex_unlock(&allocator->lock);
        return;
    }
    if (allocator->has_events) {
        events_wait_all(allocator);
        events_poll(allocator);
    }
    segments_release_idle(allocator);
    pthread_mutex_unlock(&allocator->lock);
}

void accel_allocator_fork_lock(accel_allocator_t *allocator)
{
    pthread_mutex_lock(&allocator->lock);
}

void accel_allocator_fork_unlock(accel_allocator_t *allocator)
{
    pthread_mutex_unlock(&allocator->lock);
}
