/* rng_fallback.c: core's random fill for a backend that leaves rng_fill NULL
 * but has pinned memory, streams and events (backend_contract.c holds it to
 * that). The Philox bits are made on the host (accel_philox_fill, the same
 * bits every backend produces) into a pinned staging buffer, copied to the
 * device with memcpy_async on the caller's stream, so the fill is ordered
 * with the stream's other work, and an event recorded after the copy puts
 * the buffer on a deferred-release list (accel_backend_utils.h). When the
 * event has completed (polled by every later fill, drained at close) the
 * buffer goes back to an idle cache that later fills of the same device reuse,
 * as torch's pinned host allocator does; the cache is freed (host_free) only
 * when the accel_t closes. Freeing earlier is not safe everywhere: a
 * backend's host_free may wait for the device (xpu), which would make a fill
 * wait for a host callback that waits for the caller.
 * Ownership: the state belongs to the accel_t (made at open, freed before the
 * backend); a staging block is the list's from the moment its copy is
 * queued, then the idle cache's. Sizes are rounded up to a power of two (at
 * least 4 KiB) so that blocks are reused, which bounds the cache by about
 * twice the most staging ever in flight at once.
 * Threads: any thread; `lock` guards the idle cache, the list is
 * thread-safe itself. */
#include "rng_fallback.h"

#include <stdlib.h>

#include "deferred_release.h"
#include "error.h"

#define RNG_STAGING_MIN_SIZE 4096u

typedef struct rng_block {
    void *ptr;
    size_t size; /* what host_alloc was asked for */
    int device;  /* the device whose fills use it */
    struct rng_block *next;
} rng_block_t;

struct accel_rng_fallback {
    accel_deferred_release_t *in_flight; /* blocks whose copy may not have run */
    pthread_mutex_t lock;
    rng_block_t *idle; /* under lock */
};

bool accel_rng_fallback_needed(const accel_backend_ops_t *ops)
{
    return !ACCEL_BACKEND_HAS(ops, rng_fill);
}

accel_status_t accel_rng_fallback_open(accel_t *acc)
{
    const accel_backend_ops_t *ops = acc->ops;
    accel_deferred_fence_ops_t fence = {
        .self = acc->self,
        .query = ops->event_query,
        .wait = ops->event_synchronize,
        .destroy = ops->event_destroy,
        .forget = ops->event_destroy, /* event slots accept a pending event */
        .device_wait = ops->synchronize,
    };
    accel_rng_fallback_t *state;
    accel_status_t status;
    if (!accel_rng_fallback_needed(ops))
        return ACCEL_OK;
    state = calloc(1, sizeof *state);
    if (state == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "%s: out of host memory for random fills",
                           ops->name);
    status = accel_deferred_release_create(&fence, &state->in_flight);
    if (status != ACCEL_OK) {
        free(state);
        return status;
    }
    pthread_mutex_init(&state->lock, NULL);
    acc->rng_fallback = state;
    return ACCEL_OK;
}

void accel_rng_fallback_close(accel_t *acc)
{
    accel_rng_fallback_t *state = acc->rng_fallback;
    size_t left;
    if (state == NULL)
        return;
    left = accel_deferred_release_drain(state->in_flight);
    if (left > 0)
        accel_log(ACCEL_LOG_WARN,
                  "%s: closing: %zu random-fill staging buffer(s) left to the runtime, their "
                  "copies not known finished",
                  acc->ops->name, left);
    accel_deferred_release_destroy(state->in_flight);
    while (state->idle != NULL) {
        rng_block_t *block = state->idle;
        state->idle = block->next;
        acc->ops->host_free(acc->self, block->ptr, block->size);
        free(block);
    }
    pthread_mutex_destroy(&state->lock);
    free(state);
    acc->rng_fallback = NULL;
}

void accel_rng_fallback_fork_lock(accel_t *acc)
{
    if (acc->rng_fallback != NULL) {
        pthread_mutex_lock(&acc->rng_fallback->lock);
        accel_deferred_release_fork_lock(acc->rng_fallback->in_flight);
    }
}

void accel_rng_fallback_fork_unlock(accel_t *acc)
{
    if (acc->rng_fallback != NULL) {
        accel_deferred_release_fork_unlock(acc->rng_fallback->in_flight);
        pthread_mutex_unlock(&acc->rng_fallback->lock);
    }
}

/* The deferred-release list's release: the copy out of the block has run,
 * so later fills may reuse it; or it cannot be known to have run, and the
 * pinned memory is left to the runtime (only our record is freed). */
static void rng_block_recycle(void *ctx, int device, void *resource, size_t size, bool finished)
{
    accel_rng_fallback_t *state = ctx;
    rng_block_t *block = resource;
    (void)device;
    (void)size;
    if (!finished) {
        free(block);
        return;
    }
    pthread_mutex_lock(&state->lock);
    block->next = state->idle;
    state->idle = block;
    pthread_mutex_unlock(&state->lock);
}

static size_t rng_block_size(size_t bytes)
{
    size_t size = RNG_STAGING_MIN_SIZE;
    while (size < bytes && size <= SIZE_MAX / 2)
        size *= 2;
    return size < bytes ? bytes : size;
}

/* The smallest idle block of `device` holding `bytes`, else a new one. */
static accel_status_t rng_block_get(accel_t *acc, int device, size_t bytes, rng_block_t **out)
{
    accel_rng_fallback_t *state = acc->rng_fallback;
    rng_block_t **best = NULL, *block;
    accel_status_t status;
    accel_deferred_release_poll(state->in_flight);
    pthread_mutex_lock(&state->lock);
    for (rng_block_t **link = &state->idle; *link != NULL; link = &(*link)->next) {
        rng_block_t *b = *link;
        if (b->device == device && b->size >= bytes && (best == NULL || b->size < (*best)->size))
            best = link;
    }
    if (best != NULL) {
        block = *best;
        *best = block->next;
        pthread_mutex_unlock(&state->lock);
        *out = block;
        return ACCEL_OK;
    }
    pthread_mutex_unlock(&state->lock);
    block = calloc(1, sizeof *block);
    if (block == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "%s: out of host memory for a random fill's staging record",
                           acc->ops->name);
    block->size = rng_block_size(bytes);
    block->device = device;
    status = acc->ops->host_alloc(acc->self, block->size, &block->ptr);
    if (status != ACCEL_OK) {
        free(block);
        return status;
    }
    *out = block;
    return ACCEL_OK;
}

/* Give back what a failure set (status, sentence, vendor code) after the
 * clean-up calls that may have overwritten it. */
static accel_status_t rng_fallback_restore(accel_status_t status, const char *saved, int64_t vendor)
{
    if (vendor != 0 && status == ACCEL_ERROR_DEVICE_ERROR)
        return accel_backend_vendor_error(vendor, "%s", saved);
    return accel_error(status, "%s", saved);
}

/* The copy out of `block` is queued but no event follows it: wait for the
 * stream, and reuse the block only when that wait succeeds. */
static void rng_fallback_settle_untracked(accel_t *acc, int device, void *stream,
                                          rng_block_t *block)
{
    const accel_backend_ops_t *ops = acc->ops;
    if (ops->stream_synchronize(acc->self, device, stream) == ACCEL_OK) {
        rng_block_recycle(acc->rng_fallback, device, block, block->size, true);
        return;
    }
    accel_log(ACCEL_LOG_WARN,
              "%s: a random fill's copy on device %d cannot be waited for (%s); its %zu-byte "
              "staging buffer is left to the runtime rather than freed under the copy",
              ops->name, device, accel_last_error(), block->size);
    free(block);
}

accel_status_t accel_rng_fallback_fill(accel_t *acc, int device, accel_stream_t *stream,
                                       accel_rng_kind_t kind, void *ptr, size_t count,
                                       uint64_t seed, uint64_t offset)
{
    const accel_backend_ops_t *ops = acc->ops;
    size_t bytes = count * sizeof(uint32_t); /* u32 or float; count checked by the caller */
    rng_block_t *block = NULL;
    void *event = NULL;
    char saved[1024];
    int64_t vendor;
    accel_status_t status;

    if (atomic_load(&stream->capturing) != NULL)
        return accel_error(ACCEL_ERROR_UNSUPPORTED,
                           "%s: a random fill cannot be captured into a graph: its bits are made "
                           "on the host at call time, so a replay would copy the same numbers "
                           "from a freed buffer",
                           ops->name);
    if ((status = rng_block_get(acc, device, bytes, &block)) != ACCEL_OK)
        return status;
    status = accel_philox_fill(kind, block->ptr, count, seed, offset);
    if (status == ACCEL_OK)
        status = ops->event_create(acc->self, device, ACCEL_EVENT_DEFAULT, &event);
    if (status == ACCEL_OK)
        status = ops->memcpy_async(acc->self, device, ptr, block->ptr, bytes,
                                   ACCEL_COPY_HOST_TO_DEVICE, stream->impl);
    if (status != ACCEL_OK) { /* nothing was queued */
        accel_error_copy(saved, sizeof saved);
        vendor = accel_last_vendor_error();
        if (event != NULL)
            ops->event_destroy(acc->self, device, event);
        rng_block_recycle(acc->rng_fallback, device, block, block->size, true);
        return rng_fallback_restore(status, saved, vendor);
    }
    status = ops->event_record(acc->self, device, stream->impl, event);
    if (status != ACCEL_OK) {
        accel_error_copy(saved, sizeof saved);
        vendor = accel_last_vendor_error();
        ops->event_destroy(acc->self, device, event);
        rng_fallback_settle_untracked(acc, device, stream->impl, block);
        return rng_fallback_restore(status, saved, vendor);
    }
    accel_deferred_release_add(acc->rng_fallback->in_flight, device, event, block, block->size,
                               rng_block_recycle, acc->rng_fallback);
    return ACCEL_OK;
}
