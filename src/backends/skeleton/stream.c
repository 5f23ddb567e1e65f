/* stream.c: the skeleton backend's streams, events and host callbacks,
 * wired the way a vendor backend wires its runtime's, through the kit
 * (accel/accel_backend_utils.h).
 * - A backend stream is an accel_skeleton_stream_t; NULL is the device's
 *   default stream. The C library runs every copy and fill before the call
 *   returns, so a stream holds no device work, only host callbacks.
 * - Host callbacks go through the kit's host-callback emulator (one per
 *   backend, one thread, callbacks in the order they were added, whatever
 *   their stream). Its marker is where a vendor backend records its
 *   runtime's event on the stream; here the work before it is already done.
 *   The emulator marks its thread, so core refuses a callback's wait for
 *   itself. There is no gate (a vendor runtime with a host-signalled event
 *   has one; see the xpu backend): synchronous copies on the stream do not
 *   wait for its callbacks, but synchronize, query and destroy do.
 * - A backend event is an accel_skeleton_event_t: the emulator's ticket of
 *   the last callback ahead of its record. It completes once that callback
 *   has returned; its time is when it was recorded, or when its completion
 *   was first seen (host timers).
 * Threads: any thread; the emulator keeps its own lock, an event's fields
 * are atomic. */
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "backends/skeleton/skeleton_backend.h"

/* ---------------------------------------------------------------- the emulator's ops */

/* Where a vendor backend records an event of its runtime on `stream`. */
static accel_status_t skeleton_marker_record(void *ctx, int device, void *stream, void **out)
{
    static char done; /* the work before it has already run */
    (void)ctx;
    (void)device;
    (void)stream;
    *out = &done;
    return ACCEL_OK;
}

/* Where a vendor backend synchronizes that event. */
static accel_status_t skeleton_marker_wait(void *ctx, int device, void *marker)
{
    (void)ctx;
    (void)device;
    (void)marker;
    return ACCEL_OK;
}

/* Where a vendor backend destroys it. */
static void skeleton_marker_release(void *ctx, int device, void *marker)
{
    (void)ctx;
    (void)device;
    (void)marker;
}

static const accel_callback_emulator_ops_t skeleton_callback_ops = {
    .record = skeleton_marker_record,
    .wait = skeleton_marker_wait,
    .release = skeleton_marker_release,
};

void accel_skeleton_callbacks_init(accel_skeleton_backend_t *skeleton)
{
    accel_callback_emulator_init(&skeleton->callbacks, &skeleton_callback_ops, skeleton, skeleton,
                                 "skeleton");
}

/* Wait for the callbacks of `stream` (of every stream, with every_stream). */
static void skeleton_callbacks_wait(accel_skeleton_backend_t *skeleton, int device, void *stream,
                                    bool every_stream)
{
    accel_callback_emulator_t *em = &skeleton->callbacks;
    accel_callback_emulator_reached(
        em, accel_callback_emulator_last(em, device, stream, every_stream), true);
}

/* ---------------------------------------------------------------- device and streams */

accel_status_t accel_skeleton_synchronize(void *self, int device)
{
    skeleton_callbacks_wait(self, device, NULL, true);
    return ACCEL_OK;
}

accel_status_t accel_skeleton_stream_create(void *self, int device, int priority, void **out)
{
    accel_skeleton_stream_t *stream = calloc(1, sizeof *stream);
    (void)self;
    (void)priority; /* a runtime with priorities passes it on here */
    if (stream == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "skeleton: out of host memory for a stream");
    stream->device = device;
    *out = stream;
    return ACCEL_OK;
}

/* accel_stream_destroy promises the stream's work has finished. */
void accel_skeleton_stream_destroy(void *self, int device, void *stream)
{
    skeleton_callbacks_wait(self, device, stream, false);
    free(stream);
}

accel_status_t accel_skeleton_stream_synchronize(void *self, int device, void *stream)
{
    skeleton_callbacks_wait(self, device, stream, false);
    return ACCEL_OK;
}

accel_status_t accel_skeleton_stream_query(void *self, int device, void *stream)
{
    accel_skeleton_backend_t *skeleton = self;
    accel_callback_emulator_t *em = &skeleton->callbacks;
    uint64_t last = accel_callback_emulator_last(em, device, stream, false);
    return accel_callback_emulator_reached(em, last, false) ? ACCEL_OK : ACCEL_ERROR_NOT_READY;
}

/* The emulator runs callbacks in the order they were added, so a callback
 * added to `stream` after this already runs after the event's; copies are
 * synchronous and wait for nothing. */
accel_status_t accel_skeleton_stream_wait_event(void *self, int device, void *stream, void *event)
{
    (void)self;
    (void)device;
    (void)stream;
    (void)event;
    return ACCEL_OK;
}

accel_status_t accel_skeleton_stream_add_callback(void *self, int device, void *stream,
                                                  accel_host_fn_t fn, void *user_data)
{
    accel_skeleton_backend_t *skeleton = self;
    return accel_callback_emulator_add(&skeleton->callbacks, device, stream, fn, user_data);
}

/* ---------------------------------------------------------------- events */

static uint64_t skeleton_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

accel_status_t accel_skeleton_event_create(void *self, int device, unsigned flags, void **out)
{
    accel_skeleton_event_t *event = calloc(1, sizeof *event);
    (void)self;
    (void)device;
    (void)flags; /* host timers are always on */
    if (event == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "skeleton: out of host memory for an event");
    *out = event;
    return ACCEL_OK;
}

void accel_skeleton_event_destroy(void *self, int device, void *event)
{
    (void)self;
    (void)device;
    free(event);
}

accel_status_t accel_skeleton_event_record(void *self, int device, void *stream, void *event)
{
    accel_skeleton_backend_t *skeleton = self;
    accel_skeleton_event_t *e = event;
    uint64_t ticket = accel_callback_emulator_last(&skeleton->callbacks, device, stream, false);
    atomic_store(&e->time_ns, ticket == 0 ? skeleton_now_ns() : 0);
    atomic_store(&e->ticket, ticket);
    atomic_store(&e->recorded, true);
    return ACCEL_OK;
}

/* Whether `e` has completed (waiting first with `wait`); its time is set
 * when its completion is first seen. A never-recorded event is complete. */
static bool skeleton_event_done(accel_skeleton_backend_t *skeleton, accel_skeleton_event_t *e,
                                bool wait)
{
    uint64_t unset = 0;
    if (!accel_callback_emulator_reached(&skeleton->callbacks, atomic_load(&e->ticket), wait))
        return false;
    atomic_compare_exchange_strong(&e->time_ns, &unset, skeleton_now_ns());
    return true;
}

accel_status_t accel_skeleton_event_synchronize(void *self, int device, void *event)
{
    (void)device;
    skeleton_event_done(self, event, true);
    return ACCEL_OK;
}

accel_status_t accel_skeleton_event_query(void *self, int device, void *event)
{
    (void)device;
    return skeleton_event_done(self, event, false) ? ACCEL_OK : ACCEL_ERROR_NOT_READY;
}

accel_status_t accel_skeleton_event_elapsed_ms(void *self, int device, void *start, void *end,
                                               float *out)
{
    accel_skeleton_event_t *a = start, *b = end;
    (void)device;
    if (!atomic_load(&a->recorded) || !atomic_load(&b->recorded))
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "skeleton: elapsed time needs both events recorded");
    if (!skeleton_event_done(self, a, false) || !skeleton_event_done(self, b, false))
        return ACCEL_ERROR_NOT_READY;
    *out = (float)(((double)atomic_load(&b->time_ns) - (double)atomic_load(&a->time_ns)) / 1e6);
    return ACCEL_OK;
}
