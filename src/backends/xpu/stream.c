/* stream.c: the xpu backend's streams and events on Level Zero. A stream is
 * an immediate command list; an event has its own one-event pool, visible
 * to every device of the backend (a stream of another device may wait for
 * it: ze_api.h:3103-3104).
 * Commands on a Level Zero 1.4 command list may overlap (in-order lists are
 * spec 1.7): every copy and fill goes behind a barrier (memory.c). Only a
 * barrier with no wait events promises that everything before it is
 * complete (ze_api.h:2439-2444), so every completion marker (synchronize,
 * query, event record, a callback's `reached`) is the signal event of such a
 * barrier, never a bare zeCommandListAppendSignalEvent, which promises no
 * order and leaves a timestamp event's duration undefined
 * (ze_api.h:3341-3345). Intel's unified runtime signals that way too unless
 * its queue is in order and not profiling.
 * An event destroyed while a record or a wait on it is still queued
 * (ze_api.h:3241, :3143 forbid destroying it then) goes on the backend's
 * deferred-release list, freed once every stream that named it has passed
 * that command.
 * Level Zero 1.4 has no "wait for a command list" call (the loader Debian
 * ships predates zeCommandListHostSynchronize), so a stream tells the host it
 * has drained through marker events signalled at its end: one per
 * synchronize (waited for, reset and kept for reuse) and one per query that
 * found new work (kept in `pending`, oldest first, until signalled).
 * Threads: a stream's `lock` is held around every append to its list and
 * every change of its marker lists, never while waiting; the backend's
 * `lock` guards the list of streams. Events are Level Zero's own objects,
 * safe to query and wait for from any thread. */
#include <stdlib.h>
#include <string.h>

#include "backends/xpu/xpu_backend.h"

/* ---------------------------------------------------------------- events */

accel_status_t accel_xpu_event_new(accel_xpu_backend_t *xpu, int device, bool timing,
                                   accel_xpu_event_t **out)
{
    const accel_xpu_api_t *ze = xpu->ze;
    accel_ze_event_pool_desc_t pool_desc = {
        .stype = ACCEL_ZE_STYPE_EVENT_POOL_DESC,
        .flags = ACCEL_ZE_EVENT_POOL_FLAG_HOST_VISIBLE |
                 (timing ? ACCEL_ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP : 0u),
        .count = 1,
    };
    accel_ze_event_desc_t desc = {
        .stype = ACCEL_ZE_STYPE_EVENT_DESC,
        .index = 0,
        .signal = ACCEL_ZE_EVENT_SCOPE_FLAG_HOST,
        .wait = ACCEL_ZE_EVENT_SCOPE_FLAG_HOST,
    };
    accel_ze_device_t handles[ACCEL_XPU_MAX_DEVICES];
    accel_xpu_event_t *event = calloc(1, sizeof *event);
    accel_status_t status;

    if (event == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "xpu: out of host memory for an "
                                                              "event");
    event->device = device;
    event->timing = timing;
    for (int i = 0; i < xpu->device_count; i++)
        handles[i] = xpu->devices[i].handle;
    status =
        accel_xpu_check(ze->zeEventPoolCreate(xpu->context, &pool_desc, (uint32_t)xpu->device_count,
                                              handles, &event->pool),
                        "zeEventPoolCreate");
    if (status == ACCEL_OK) {
        status =
            accel_xpu_check(ze->zeEventCreate(event->pool, &desc, &event->handle), "zeEventCreate");
        if (status != ACCEL_OK && ze->zeEventPoolDestroy(event->pool) != ACCEL_ZE_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "xpu: zeEventPoolDestroy after a failed zeEventCreate "
                                      "failed too");
    }
    if (status != ACCEL_OK) {
        free(event);
        return status;
    }
    *out = event;
    return ACCEL_OK;
}

void accel_xpu_event_free(accel_xpu_backend_t *xpu, accel_xpu_event_t *event)
{
    if (event == NULL)
        return;
    if (xpu->ze->zeEventDestroy(event->handle) != ACCEL_ZE_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "xpu: zeEventDestroy failed; its pool is destroyed anyway");
    if (xpu->ze->zeEventPoolDestroy(event->pool) != ACCEL_ZE_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "xpu: zeEventPoolDestroy failed");
    free(event->marks);
    free(event);
}

/* Note that `stream` now names `ev` in a queued command, up to its
 * `appended` == at: a later mark of the same stream replaces the earlier.
 * Without host memory for it the event forgets its marks and waits for
 * whole devices when destroyed. Takes the backend's lock. */
static void xpu_event_mark(accel_xpu_backend_t *xpu, accel_xpu_event_t *ev,
                           const accel_xpu_stream_t *stream, uint64_t at)
{
    pthread_mutex_lock(&xpu->lock);
    for (size_t i = 0; i < ev->mark_count; i++) {
        if (ev->marks[i].stream == stream->id) {
            ev->marks[i].at = at;
            pthread_mutex_unlock(&xpu->lock);
            return;
        }
    }
    if (ev->mark_count == ev->mark_cap) {
        size_t cap = ev->mark_cap > 0 ? 2 * ev->mark_cap : 4;
        accel_xpu_mark_t *grown = realloc(ev->marks, cap * sizeof *grown);
        if (grown == NULL) {
            ev->marks_lost = true;
            pthread_mutex_unlock(&xpu->lock);
            return;
        }
        ev->marks = grown;
        ev->mark_cap = cap;
    }
    ev->marks[ev->mark_count++] = (accel_xpu_mark_t){.stream = stream->id, .at = at};
    pthread_mutex_unlock(&xpu->lock);
}

/* Whether the stream with id `mark->stream` has run its commands up to
 * `mark->at` (a stream that is gone was drained when destroyed); with
 * `wait`, drain it first. Under the backend's lock, which keeps the stream
 * alive. */
static accel_status_t xpu_mark_passed(accel_xpu_backend_t *xpu, const accel_xpu_mark_t *mark,
                                      bool wait)
{
    accel_xpu_stream_t *stream = xpu->streams;
    accel_status_t status;
    bool passed;
    while (stream != NULL && stream->id != mark->stream)
        stream = stream->next;
    if (stream == NULL)
        return ACCEL_OK;
    pthread_mutex_lock(&stream->lock);
    passed = stream->completed >= mark->at;
    pthread_mutex_unlock(&stream->lock);
    if (passed)
        return ACCEL_OK;
    status = wait ? accel_xpu_stream_drain(xpu, stream)
                  : accel_xpu_stream_query(xpu, stream->device, stream);
    if (status != ACCEL_OK && status != ACCEL_ERROR_NOT_READY)
        return status;
    pthread_mutex_lock(&stream->lock);
    passed = stream->completed >= mark->at;
    pthread_mutex_unlock(&stream->lock);
    return passed ? ACCEL_OK : ACCEL_ERROR_NOT_READY;
}

/* The fence of a deferred event: the marks it had when destroyed. */
typedef struct xpu_event_fence {
    size_t count;
    accel_xpu_mark_t marks[];
} xpu_event_fence_t;

static accel_status_t xpu_fence_check(void *self, void *fence_, bool wait)
{
    accel_xpu_backend_t *xpu = self;
    xpu_event_fence_t *fence = fence_;
    accel_status_t status = ACCEL_OK;
    pthread_mutex_lock(&xpu->lock);
    for (size_t i = 0; i < fence->count && status == ACCEL_OK; i++)
        status = xpu_mark_passed(xpu, &fence->marks[i], wait);
    pthread_mutex_unlock(&xpu->lock);
    return status;
}

static accel_status_t xpu_fence_query(void *self, int device, void *fence)
{
    (void)device;
    return xpu_fence_check(self, fence, false);
}

static accel_status_t xpu_fence_wait(void *self, int device, void *fence)
{
    (void)device;
    return xpu_fence_check(self, fence, true);
}

static void xpu_fence_destroy(void *self, int device, void *fence)
{
    (void)self;
    (void)device;
    free(fence);
}

/* `finished` false: the device may still name the event, so its Level Zero
 * objects are left to the runtime and only our record is freed. */
static void xpu_event_release(void *ctx, int device, void *event_, size_t size, bool finished)
{
    accel_xpu_event_t *event = event_;
    (void)device;
    (void)size;
    if (finished) {
        accel_xpu_event_free(ctx, event);
        return;
    }
    free(event->marks);
    free(event);
}

accel_status_t accel_xpu_deferred_new(accel_xpu_backend_t *xpu)
{
    const accel_deferred_fence_ops_t ops = {
        .self = xpu,
        .query = xpu_fence_query,
        .wait = xpu_fence_wait,
        .destroy = xpu_fence_destroy,
        .forget = xpu_fence_destroy, /* host memory only */
        .device_wait = accel_xpu_synchronize,
    };
    return accel_deferred_release_create(&ops, &xpu->deferred);
}

/* Destroy `ev` now when no queued command names it, else once every stream
 * that named it has passed that command (the deferred-release list). */
static void xpu_event_retire(accel_xpu_backend_t *xpu, accel_xpu_event_t *ev)
{
    xpu_event_fence_t *fence = NULL;
    bool lost;
    pthread_mutex_lock(&xpu->lock);
    lost = ev->marks_lost;
    for (size_t i = 0; i < ev->mark_count;) { /* drop the marks already passed */
        accel_xpu_stream_t *stream = xpu->streams;
        bool passed;
        while (stream != NULL && stream->id != ev->marks[i].stream)
            stream = stream->next;
        passed = stream == NULL;
        if (stream != NULL) {
            pthread_mutex_lock(&stream->lock);
            passed = stream->completed >= ev->marks[i].at;
            pthread_mutex_unlock(&stream->lock);
        }
        if (passed)
            ev->marks[i] = ev->marks[--ev->mark_count];
        else
            i++;
    }
    if (ev->mark_count > 0 && !lost) {
        fence = malloc(sizeof *fence + ev->mark_count * sizeof fence->marks[0]);
        if (fence != NULL) {
            fence->count = ev->mark_count;
            memcpy(fence->marks, ev->marks, ev->mark_count * sizeof fence->marks[0]);
        }
    }
    lost = lost || (ev->mark_count > 0 && fence == NULL);
    pthread_mutex_unlock(&xpu->lock);
    if (fence != NULL) {
        accel_deferred_release_add(xpu->deferred, ev->device, fence, ev, 0, xpu_event_release, xpu);
        return;
    }
    /* Its references are unknown: wait for every device first. */
    for (int d = 0; lost && d < xpu->device_count; d++) {
        if (accel_xpu_synchronize(xpu, d) != ACCEL_OK) {
            accel_log(ACCEL_LOG_WARN,
                      "xpu: could not wait for device %d before destroying an "
                      "event queued work may still name; the event is left to "
                      "the runtime",
                      d);
            return;
        }
    }
    accel_xpu_event_free(xpu, ev);
}

static void xpu_event_list_free(accel_xpu_backend_t *xpu, accel_xpu_event_t *list)
{
    while (list != NULL) {
        accel_xpu_event_t *next = list->next;
        accel_xpu_event_free(xpu, list);
        list = next;
    }
}

/* ---------------------------------------------------------------- streams */

accel_status_t accel_xpu_stream_new(accel_xpu_backend_t *xpu, int device, unsigned priority,
                                    accel_xpu_stream_t **out)
{
    accel_xpu_device_t *dev = &xpu->devices[device];
    accel_ze_queue_desc_t desc = {
        .stype = ACCEL_ZE_STYPE_QUEUE_DESC,
        .ordinal = dev->compute_ordinal,
        .index = 0,
        .flags = 0,
        .mode = ACCEL_ZE_QUEUE_MODE_ASYNCHRONOUS,
        .priority = priority,
    };
    accel_xpu_stream_t *stream = calloc(1, sizeof *stream);
    accel_status_t status;

    if (stream == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "xpu: out of host memory for a "
                                                              "stream");
    status = accel_xpu_check(
        xpu->ze->zeCommandListCreateImmediate(xpu->context, dev->handle, &desc, &stream->list),
        "zeCommandListCreateImmediate");
    if (status != ACCEL_OK) {
        free(stream);
        return status;
    }
    stream->device = device;
    pthread_mutex_init(&stream->lock, NULL);
    accel_xpu_callbacks_init(xpu, stream);
    pthread_mutex_lock(&xpu->lock);
    stream->id = ++xpu->stream_ids;
    stream->next = xpu->streams;
    xpu->streams = stream;
    pthread_mutex_unlock(&xpu->lock);
    *out = stream;
    return ACCEL_OK;
}

/* Drain it first (core destroys a stream with work still queued). */
void accel_xpu_stream_free(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream)
{
    accel_xpu_stream_t **link;
    if (accel_xpu_stream_drain(xpu, stream) != ACCEL_OK)
        accel_log(ACCEL_LOG_WARN, "xpu: a stream being destroyed did not drain; destroying it "
                                  "anyway");
    pthread_mutex_lock(&xpu->lock);
    for (link = &xpu->streams; *link != NULL; link = &(*link)->next) {
        if (*link == stream) {
            *link = stream->next;
            break;
        }
    }
    pthread_mutex_unlock(&xpu->lock);
    accel_xpu_callbacks_stop(stream);
    if (xpu->ze->zeCommandListDestroy(stream->list) != ACCEL_ZE_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "xpu: zeCommandListDestroy failed");
    xpu_event_list_free(xpu, stream->pending);
    xpu_event_list_free(xpu, stream->idle);
    pthread_mutex_destroy(&stream->lock);
    free(stream);
}

accel_status_t accel_xpu_barrier(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream)
{
    return accel_xpu_check(xpu->ze->zeCommandListAppendBarrier(stream->list, NULL, 0, NULL),
                           "zeCommandListAppendBarrier");
}

/* A reset marker, reused or new. Under the stream's lock. */
static accel_status_t xpu_marker_take(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream,
                                      accel_xpu_event_t **out)
{
    if (stream->idle != NULL) {
        *out = stream->idle;
        stream->idle = (*out)->next;
        (*out)->next = NULL;
        return ACCEL_OK;
    }
    return accel_xpu_event_new(xpu, stream->device, false, out);
}

/* Back to the idle list after a host reset; a marker that will not reset is
 * destroyed instead. Under the stream's lock. */
static void xpu_marker_put(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream,
                           accel_xpu_event_t *marker)
{
    if (xpu->ze->zeEventHostReset(marker->handle) != ACCEL_ZE_SUCCESS) {
        accel_log(ACCEL_LOG_WARN, "xpu: zeEventHostReset of a stream marker failed; dropping it");
        accel_xpu_event_free(xpu, marker);
        return;
    }
    marker->next = stream->idle;
    stream->idle = marker;
}

accel_status_t accel_xpu_stream_drain(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream)
{
    const accel_xpu_api_t *ze = xpu->ze;
    accel_xpu_event_t *marker = NULL;
    accel_status_t status;

    if (accel_xpu_callback_stream(xpu, stream->device) == stream)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "xpu: a stream callback cannot wait for its own stream (the "
                                   "stream waits for the callback)");
    pthread_mutex_lock(&stream->lock);
    status = xpu_marker_take(xpu, stream, &marker);
    if (status == ACCEL_OK) {
        marker->at = stream->appended;
        status =
            accel_xpu_check(ze->zeCommandListAppendBarrier(stream->list, marker->handle, 0, NULL),
                            "zeCommandListAppendBarrier (stream synchronize)");
        if (status != ACCEL_OK) {
            xpu_marker_put(xpu, stream, marker);
            marker = NULL;
        }
    }
    pthread_mutex_unlock(&stream->lock);
    if (marker == NULL)
        return status;
    status = accel_xpu_check(ze->zeEventHostSynchronize(marker->handle, UINT64_MAX),
                             "zeEventHostSynchronize (stream synchronize)");
    pthread_mutex_lock(&stream->lock);
    if (status == ACCEL_OK) {
        if (marker->at > stream->completed)
            stream->completed = marker->at;
        xpu_marker_put(xpu, stream, marker);
    } else {
        /* Still queued, perhaps: never reuse it before it is seen signalled,
         * and never destroy it under the list. Queries reap it later. */
        accel_xpu_event_t **tail = &stream->pending;
        while (*tail != NULL)
            tail = &(*tail)->next;
        *tail = marker;
    }
    pthread_mutex_unlock(&stream->lock);
    return status;
}

accel_status_t accel_xpu_synchronize(void *self, int device)
{
    accel_xpu_backend_t *xpu = self;
    accel_status_t status = accel_xpu_usable();

    if (status == ACCEL_OK && accel_xpu_callback_stream(xpu, device) != NULL)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "xpu: a stream callback cannot synchronize its own device "
                                   "%d (its stream waits for the callback)",
                                   device);
    /* The backend's lock keeps every listed stream alive while it drains. */
    pthread_mutex_lock(&xpu->lock);
    for (accel_xpu_stream_t *s = xpu->streams; s != NULL && status == ACCEL_OK; s = s->next)
        if (s->device == device)
            status = accel_xpu_stream_drain(xpu, s);
    pthread_mutex_unlock(&xpu->lock);
    return status;
}

/* priority: 0 normal, below 0 high (CUDA's convention), above 0 low. */
accel_status_t accel_xpu_stream_create(void *self, int device, int priority, void **out)
{
    accel_status_t status = accel_xpu_usable();
    unsigned level = priority < 0   ? ACCEL_ZE_QUEUE_PRIORITY_HIGH
                     : priority > 0 ? ACCEL_ZE_QUEUE_PRIORITY_LOW
                                    : ACCEL_ZE_QUEUE_PRIORITY_NORMAL;
    if (status != ACCEL_OK)
        return status;
    return accel_xpu_stream_new(self, device, level, (accel_xpu_stream_t **)out);
}

void accel_xpu_stream_destroy(void *self, int device, void *stream)
{
    (void)device;
    if (accel_xpu_usable() != ACCEL_OK)
        return; /* a forked child: nothing may touch Level Zero */
    accel_xpu_stream_free(self, stream);
}

accel_status_t accel_xpu_stream_synchronize(void *self, int device, void *stream)
{
    accel_status_t status = accel_xpu_usable();
    if (status != ACCEL_OK)
        return status;
    return accel_xpu_stream_drain(self, accel_xpu_stream(self, device, stream));
}

/* Release the markers that have been signalled, oldest first. ACCEL_OK when
 * none is left pending. Under the stream's lock. */
static accel_status_t xpu_markers_reap(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream)
{
    while (stream->pending != NULL) {
        accel_xpu_event_t *marker = stream->pending;
        accel_ze_result_t code = xpu->ze->zeEventQueryStatus(marker->handle);
        if (code == ACCEL_ZE_NOT_READY)
            return ACCEL_ERROR_NOT_READY;
        if (code != ACCEL_ZE_SUCCESS)
            return accel_xpu_error(code, "zeEventQueryStatus (stream query)");
        stream->pending = marker->next;
        if (marker->at > stream->completed)
            stream->completed = marker->at;
        xpu_marker_put(xpu, stream, marker);
    }
    return ACCEL_OK;
}

/* OK when a marker signalled after the last command; NOT_READY otherwise,
 * appending a marker unless one for the last command is already in flight. */
accel_status_t accel_xpu_stream_query(void *self, int device, void *handle)
{
    accel_xpu_backend_t *xpu = self;
    accel_xpu_stream_t *stream = accel_xpu_stream(xpu, device, handle);
    accel_xpu_event_t *marker = NULL, **tail;
    accel_status_t status = accel_xpu_usable();

    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&stream->lock);
    status = xpu_markers_reap(xpu, stream);
    if (status == ACCEL_ERROR_NOT_READY)
        status = ACCEL_OK; /* decided below, by what the markers covered */
    if (status == ACCEL_OK && stream->completed != stream->appended &&
        stream->marked != stream->appended) {
        status = xpu_marker_take(xpu, stream, &marker);
        if (status == ACCEL_OK) {
            status = accel_xpu_check(
                xpu->ze->zeCommandListAppendBarrier(stream->list, marker->handle, 0, NULL),
                "zeCommandListAppendBarrier (stream query)");
            if (status != ACCEL_OK) {
                xpu_marker_put(xpu, stream, marker);
            } else {
                marker->at = stream->appended;
                stream->marked = stream->appended;
                for (tail = &stream->pending; *tail != NULL; tail = &(*tail)->next)
                    ;
                *tail = marker;
                status = xpu_markers_reap(xpu, stream);
                if (status == ACCEL_ERROR_NOT_READY)
                    status = ACCEL_OK;
            }
        }
    }
    if (status == ACCEL_OK && stream->completed != stream->appended)
        status = ACCEL_ERROR_NOT_READY;
    pthread_mutex_unlock(&stream->lock);
    return status;
}

accel_status_t accel_xpu_stream_wait_event(void *self, int device, void *handle, void *event)
{
    accel_xpu_backend_t *xpu = self;
    accel_xpu_stream_t *stream = accel_xpu_stream(xpu, device, handle);
    accel_xpu_event_t *ev = event;
    accel_status_t status = accel_xpu_usable();

    if (status != ACCEL_OK || !atomic_load(&ev->recorded))
        return status; /* a never-recorded event is complete */
    uint64_t at = 0;
    pthread_mutex_lock(&stream->lock);
    status = accel_xpu_check(xpu->ze->zeCommandListAppendWaitOnEvents(stream->list, 1, &ev->handle),
                             "zeCommandListAppendWaitOnEvents");
    if (status == ACCEL_OK)
        at = ++stream->appended;
    pthread_mutex_unlock(&stream->lock);
    if (status == ACCEL_OK)
        xpu_event_mark(xpu, ev, stream, at);
    return status;
}

/* ---------------------------------------------------------------- events */

accel_status_t accel_xpu_event_create(void *self, int device, unsigned flags, void **out)
{
    accel_status_t status = accel_xpu_usable();
    if (status != ACCEL_OK)
        return status;
    accel_deferred_release_poll(((accel_xpu_backend_t *)self)->deferred);
    return accel_xpu_event_new(self, device, (flags & ACCEL_EVENT_TIMING) != 0,
                               (accel_xpu_event_t **)out);
}

void accel_xpu_event_destroy(void *self, int device, void *event)
{
    (void)device;
    if (accel_xpu_usable() != ACCEL_OK)
        return;
    xpu_event_retire(self, event);
}

/* A re-record resets the event on the stream first (Level Zero events stay
 * signalled until reset), so waiters see the newest record. */
accel_status_t accel_xpu_event_record(void *self, int device, void *handle, void *event)
{
    accel_xpu_backend_t *xpu = self;
    accel_xpu_stream_t *stream = accel_xpu_stream(xpu, device, handle);
    accel_xpu_event_t *ev = event;
    accel_status_t status = accel_xpu_usable();
    bool again = atomic_load(&ev->recorded);
    uint64_t at = 0;

    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&stream->lock);
    if (again)
        status = accel_xpu_check(xpu->ze->zeCommandListAppendEventReset(stream->list, ev->handle),
                                 "zeCommandListAppendEventReset (event record)");
    if (status == ACCEL_OK)
        status =
            accel_xpu_check(xpu->ze->zeCommandListAppendBarrier(stream->list, ev->handle, 0, NULL),
                            "zeCommandListAppendBarrier (event record)");
    if (status == ACCEL_OK) {
        at = ++stream->appended;
        atomic_store(&ev->recorded, true);
    }
    pthread_mutex_unlock(&stream->lock);
    if (status == ACCEL_OK) {
        pthread_mutex_lock(&xpu->lock);
        ev->reset_pending = again;
        ev->record_stream = stream->id;
        ev->record_at = at;
        pthread_mutex_unlock(&xpu->lock);
        xpu_event_mark(xpu, ev, stream, at);
    }
    return status;
}

/* Whether the stream of a re-recorded event has passed its reset, so the
 * handle shows this record and not the previous one; with `wait`, drain the
 * stream until it has (the wait may cover later work too). A stream that is
 * gone was drained when destroyed. */
static accel_status_t xpu_event_reset_passed(accel_xpu_backend_t *xpu, accel_xpu_event_t *ev,
                                             bool wait)
{
    accel_status_t status = ACCEL_OK;
    accel_xpu_stream_t *stream = NULL;
    /* The backend's lock keeps the stream alive while it is drained or
     * queried, as in accel_xpu_synchronize. */
    pthread_mutex_lock(&xpu->lock);
    if (ev->reset_pending)
        for (stream = xpu->streams; stream != NULL && stream->id != ev->record_stream;)
            stream = stream->next;
    if (stream != NULL) {
        status = wait ? accel_xpu_stream_drain(xpu, stream)
                      : accel_xpu_stream_query(xpu, stream->device, stream);
        if (status == ACCEL_ERROR_NOT_READY) {
            pthread_mutex_lock(&stream->lock);
            if (stream->completed >= ev->record_at)
                status = ACCEL_OK;
            pthread_mutex_unlock(&stream->lock);
        }
    }
    if (status == ACCEL_OK)
        ev->reset_pending = false;
    pthread_mutex_unlock(&xpu->lock);
    return status;
}

accel_status_t accel_xpu_event_synchronize(void *self, int device, void *event)
{
    accel_xpu_backend_t *xpu = self;
    accel_xpu_event_t *ev = event;
    accel_status_t status = accel_xpu_usable();
    (void)device;
    if (status != ACCEL_OK || !atomic_load(&ev->recorded))
        return status;
    if ((status = xpu_event_reset_passed(xpu, ev, true)) != ACCEL_OK)
        return status;
    return accel_xpu_check(xpu->ze->zeEventHostSynchronize(ev->handle, UINT64_MAX),
                           "zeEventHostSynchronize");
}

accel_status_t accel_xpu_event_query(void *self, int device, void *event)
{
    accel_xpu_backend_t *xpu = self;
    accel_xpu_event_t *ev = event;
    accel_status_t status = accel_xpu_usable();
    accel_ze_result_t code;
    (void)device;
    if (status != ACCEL_OK || !atomic_load(&ev->recorded))
        return status;
    if ((status = xpu_event_reset_passed(xpu, ev, false)) != ACCEL_OK)
        return status;
    code = xpu->ze->zeEventQueryStatus(ev->handle);
    if (code == ACCEL_ZE_NOT_READY)
        return ACCEL_ERROR_NOT_READY;
    return accel_xpu_check(code, "zeEventQueryStatus");
}

/* The global kernel-timestamp end of each record's barrier, in device
 * ticks wrapped to kernelTimestampValidBits (ze_api.h:3546, the mask that
 * goes with kernel timestamps), over the timer's ticks per second (see
 * tick_ns in xpu_backend.h). One wrap between the two is allowed for by the
 * masked difference, as Intel's unified runtime does. */
accel_status_t accel_xpu_event_elapsed_ms(void *self, int device, void *start, void *end,
                                          float *out)
{
    accel_xpu_backend_t *xpu = self;
    const accel_ze_device_properties_t *props = &xpu->devices[device].props;
    accel_xpu_event_t *events[2] = {start, end};
    accel_ze_kernel_timestamp_t stamps[2];
    uint64_t mask, ticks;
    accel_status_t status = accel_xpu_usable();

    if (status != ACCEL_OK)
        return status;
    for (int i = 0; i < 2; i++) {
        if (!events[i]->timing)
            return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                       "xpu: the %s event was created without ACCEL_EVENT_TIMING",
                                       i == 0 ? "start" : "end");
        if (!atomic_load(&events[i]->recorded))
            return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                       "xpu: the %s event was never recorded",
                                       i == 0 ? "start" : "end");
        if ((status = accel_xpu_event_query(xpu, device, events[i])) != ACCEL_OK)
            return status;
        status =
            accel_xpu_check(xpu->ze->zeEventQueryKernelTimestamp(events[i]->handle, &stamps[i]),
                            "zeEventQueryKernelTimestamp");
        if (status != ACCEL_OK)
            return status;
    }
    mask = props->kernelTimestampValidBits >= 64 || props->kernelTimestampValidBits == 0
               ? UINT64_MAX
               : (UINT64_C(1) << props->kernelTimestampValidBits) - 1;
    ticks = (stamps[1].global.kernelEnd - stamps[0].global.kernelEnd) & mask;
    *out = (float)((double)ticks * xpu->devices[device].tick_ns / 1e6);
    return ACCEL_OK;
}
