/* api_stream.c: streams (create, destroy, sync, query, wait, host callbacks,
 * default and per-thread current stream) and events.
 * Ownership: user streams/events are owned by the caller (their structs live
 * in the accel_t's handle registry, handles.h); default streams by the
 * accel_t. A destroyed handle is tagged dead and refused until its slot is
 * reused (handles.h says when).
 * Threads: any thread may queue on any stream; the current stream is the
 * calling thread's own. */
#include <stdlib.h>

#include "accel/accel_backend_utils.h"
#include "core.h"
#include "error.h"
#include "thread_state.h"
#include "trace.h"

_Thread_local uint64_t accel_thread_stream_epoch;

static accel_status_t stream_require(const accel_t *acc, bool has, const char *what)
{
    if (!has)
        return accel_error(ACCEL_ERROR_UNSUPPORTED, "%s has no %s", acc->ops->name, what);
    return ACCEL_OK;
}

accel_status_t accel_stream_create(accel_t *acc, int device, int priority, accel_stream_t **out)
{
    accel_stream_t *stream;
    void *impl = NULL;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    status = accel_resolve_device(acc, device, &device);
    if (status == ACCEL_OK)
        status = stream_require(acc, ACCEL_BACKEND_HAS(acc->ops, stream_create), "streams");
    if (status == ACCEL_OK)
        status = accel_ensure_init(acc);
    if (status != ACCEL_OK)
        return status;
    stream = accel_handle_new(&acc->handles, ACCEL_HANDLE_STREAM);
    if (stream == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory creating a stream");
    status = acc->ops->stream_create(acc->self, device, priority, &impl);
    if (status != ACCEL_OK) {
        accel_handle_retire(&acc->handles, stream);
        return status;
    }
    *stream = (accel_stream_t){
        .tag = ACCEL_TAG_STREAM, .acc = acc, .device = device, .priority = priority, .impl = impl};
    *out = stream;
    return ACCEL_OK;
}

accel_status_t accel_stream_destroy(accel_stream_t *stream)
{
    accel_thread_state_t *state;
    accel_t *acc;
    accel_status_t status = accel_check_stream(stream);
    if (status != ACCEL_OK)
        return status;
    if (stream->is_default)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "the default stream cannot be destroyed");
    /* Destroying it would leave the graph capturing for ever (it could never
     * be ended nor destroyed): the user ends the capture first. */
    if (atomic_load(&stream->capturing) != NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "the stream is capturing a graph; call accel_graph_capture_end before "
                           "destroying it");
    acc = stream->acc;
    /* A host callback destroying the stream it runs on would wait for itself. */
    status = accel_callback_refuse_stream_wait(acc->self, stream->device, stream->impl,
                                               "destroy the stream it runs on");
    if (status != ACCEL_OK)
        return status;
    /* The calling thread stops using it as current; other threads must have
     * stopped already (documented rule). */
    state = accel_thread_state(acc);
    if (state != NULL && state->current_streams[stream->device] == stream) {
        state->current_streams[stream->device] = NULL;
        accel_thread_stream_epoch++;
    }
    acc->ops->stream_destroy(acc->self, stream->device, stream->impl);
    /* Its trace track ends here: a new stream at the same address is new. */
    accel_trace_stream_destroyed(stream->impl);
    accel_handle_retire(&acc->handles, stream);
    return ACCEL_OK;
}

/* A capturing stream runs nothing until its graph is replayed: waiting for it
 * or asking whether it is done is a mistake of the caller, refused here so
 * that every backend answers alike and the capture goes on unharmed (CUDA
 * would report a device error and invalidate the capture). */
static accel_status_t stream_check_not_capturing(const accel_stream_t *stream, const char *what)
{
    if (atomic_load(&stream->capturing) == NULL)
        return ACCEL_OK;
    return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                       "cannot %s a stream that is capturing a graph: its captured work runs "
                       "only when the graph is replayed (call accel_graph_capture_end first)",
                       what);
}

accel_status_t accel_stream_synchronize(accel_stream_t *stream)
{
    accel_status_t status = accel_check_stream(stream);
    if (status == ACCEL_OK)
        status = stream_check_not_capturing(stream, "synchronize");
    if (status != ACCEL_OK)
        return status;
    status = accel_callback_refuse_stream_wait(stream->acc->self, stream->device, stream->impl,
                                               "synchronize the stream it runs on");
    if (status == ACCEL_OK)
        status = accel_ensure_init(stream->acc);
    if (status != ACCEL_OK)
        return status;
    return accel_stream_wait(stream);
}

accel_status_t accel_stream_wait(accel_stream_t *stream)
{
    if (!ACCEL_BACKEND_HAS(stream->acc->ops, stream_synchronize))
        return stream->acc->ops->synchronize(stream->acc->self, stream->device);
    return stream->acc->ops->stream_synchronize(stream->acc->self, stream->device, stream->impl);
}

accel_status_t accel_stream_query(accel_stream_t *stream)
{
    accel_status_t status = accel_check_stream(stream);
    if (status == ACCEL_OK)
        status = stream_check_not_capturing(stream, "query");
    if (status != ACCEL_OK)
        return status;
    status = accel_ensure_init(stream->acc);
    if (status != ACCEL_OK)
        return status;
    if (!ACCEL_BACKEND_HAS(stream->acc->ops, stream_query))
        return ACCEL_OK; /* only a default stream that completes work inline */
    status = stream->acc->ops->stream_query(stream->acc->self, stream->device, stream->impl);
    if (status == ACCEL_ERROR_NOT_READY)
        accel_error_text(status, "stream still has queued work");
    return status;
}

accel_status_t accel_stream_wait_event(accel_stream_t *stream, accel_event_t *event)
{
    accel_t *acc;
    accel_status_t status = accel_check_stream(stream);
    if (status == ACCEL_OK)
        status = accel_check_event(event);
    if (status != ACCEL_OK)
        return status;
    acc = stream->acc;
    if (event->acc != acc)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "stream and event belong to different accelerator handles");
    status = stream_require(acc, ACCEL_BACKEND_HAS(acc->ops, stream_wait_event),
                            "stream-waits-for-event support");
    if (status != ACCEL_OK)
        return status;
    return acc->ops->stream_wait_event(acc->self, stream->device, stream->impl, event->impl);
}

accel_status_t accel_stream_add_callback(accel_stream_t *stream, accel_host_fn_t fn,
                                         void *user_data)
{
    accel_t *acc;
    accel_status_t status = accel_check_stream(stream);
    if (status != ACCEL_OK)
        return status;
    if (fn == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "callback function is NULL");
    acc = stream->acc;
    status =
        stream_require(acc, ACCEL_BACKEND_HAS(acc->ops, stream_add_callback), "host callbacks");
    if (status == ACCEL_OK)
        status = accel_ensure_init(acc);
    if (status != ACCEL_OK)
        return status;
    return acc->ops->stream_add_callback(acc->self, stream->device, stream->impl, fn, user_data);
}

accel_status_t accel_default_stream(accel_t *acc, int device, accel_stream_t **out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    status = accel_resolve_device(acc, device, &device);
    if (status == ACCEL_OK)
        *out = acc->devices[device].default_stream;
    return status;
}

accel_status_t accel_current_stream(accel_t *acc, int device, accel_stream_t **out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    status = accel_resolve_device(acc, device, &device);
    if (status != ACCEL_OK)
        return status;
    *out = accel_thread_stream(acc, device);
    return *out != NULL ? ACCEL_OK : ACCEL_ERROR_OUT_OF_MEMORY;
}

accel_status_t accel_set_current_stream(accel_t *acc, accel_stream_t *stream)
{
    accel_thread_state_t *state;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    status = accel_check_has_devices(acc);
    if (status != ACCEL_OK)
        return status;
    state = accel_thread_state(acc);
    if (state == NULL)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    if (stream == NULL) {
        state->current_streams[state->device] = NULL;
        accel_thread_stream_epoch++;
        return ACCEL_OK;
    }
    status = accel_resolve_stream(acc, stream, &stream);
    if (status != ACCEL_OK)
        return status;
    state->current_streams[stream->device] = stream->is_default ? NULL : stream;
    accel_thread_stream_epoch++;
    return ACCEL_OK;
}

accel_status_t accel_stream_device(const accel_stream_t *stream, int *out)
{
    accel_status_t status = accel_check_stream(stream);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = stream->device;
    return ACCEL_OK;
}

/* ---- events */

accel_status_t accel_event_create(accel_t *acc, int device, unsigned flags, accel_event_t **out)
{
    accel_event_t *event;
    void *impl = NULL;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    if (flags & ~ACCEL_EVENT_TIMING)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "unknown event flags 0x%x", flags);
    status = accel_resolve_device(acc, device, &device);
    if (status == ACCEL_OK)
        status = stream_require(acc, ACCEL_BACKEND_HAS(acc->ops, event_create), "events");
    if (status == ACCEL_OK)
        status = accel_ensure_init(acc);
    if (status != ACCEL_OK)
        return status;
    event = accel_handle_new(&acc->handles, ACCEL_HANDLE_EVENT);
    if (event == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory creating an event");
    status = acc->ops->event_create(acc->self, device, flags, &impl);
    if (status != ACCEL_OK) {
        accel_handle_retire(&acc->handles, event);
        return status;
    }
    *event = (accel_event_t){
        .tag = ACCEL_TAG_EVENT, .acc = acc, .device = device, .flags = flags, .impl = impl};
    *out = event;
    return ACCEL_OK;
}

accel_status_t accel_event_destroy(accel_event_t *event)
{
    accel_status_t status = accel_check_event(event);
    if (status != ACCEL_OK)
        return status;
    event->acc->ops->event_destroy(event->acc->self, event->device, event->impl);
    accel_handle_retire(&event->acc->handles, event);
    return ACCEL_OK;
}

accel_status_t accel_event_record(accel_event_t *event, accel_stream_t *stream)
{
    accel_t *acc;
    accel_status_t status = accel_check_event(event);
    if (status != ACCEL_OK)
        return status;
    acc = event->acc;
    status = accel_resolve_stream(acc, stream, &stream);
    if (status != ACCEL_OK)
        return status;
    if (stream->device != event->device)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "event of device %d cannot be recorded on a stream of device %d",
                           event->device, stream->device);
    status = acc->ops->event_record(acc->self, stream->device, stream->impl, event->impl);
    if (status == ACCEL_OK) {
        atomic_store(&event->recorded, true);
        atomic_store(&event->recorded_on, stream->impl);
    }
    return status;
}

accel_status_t accel_event_synchronize(accel_event_t *event)
{
    accel_status_t status = accel_check_event(event);
    if (status != ACCEL_OK)
        return status;
    /* A host callback may find an event recorded on its own stream
     * complete (recorded before it), but not wait for one that is not: that
     * one was recorded after the callback, so it would wait for itself. */
    const void *own = NULL;
    void *recorded_on = atomic_load(&event->recorded_on);
    if (recorded_on != NULL && accel_callback_thread_of(event->acc->self, event->device, &own) &&
        own == recorded_on) {
        if (event->acc->ops->event_query(event->acc->self, event->device, event->impl) == ACCEL_OK)
            return ACCEL_OK;
        return accel_callback_refuse_stream_wait(event->acc->self, event->device, recorded_on,
                                                 "wait for an event recorded after it on the "
                                                 "stream it runs on");
    }
    return event->acc->ops->event_synchronize(event->acc->self, event->device, event->impl);
}

accel_status_t accel_event_query(accel_event_t *event)
{
    accel_status_t status = accel_check_event(event);
    if (status != ACCEL_OK)
        return status;
    status = event->acc->ops->event_query(event->acc->self, event->device, event->impl);
    if (status == ACCEL_ERROR_NOT_READY)
        accel_error_text(status, "event has not completed yet");
    return status;
}

accel_status_t accel_event_elapsed_ms(accel_event_t *start, accel_event_t *end, float *out)
{
    accel_t *acc;
    float ms = 0.0f;
    accel_status_t status = accel_check_event(start);
    if (status == ACCEL_OK)
        status = accel_check_event(end);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    acc = start->acc;
    if (end->acc != acc || end->device != start->device)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "elapsed time needs two events of the same device");
    if (!(start->flags & ACCEL_EVENT_TIMING) || !(end->flags & ACCEL_EVENT_TIMING))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "elapsed time needs events created with ACCEL_EVENT_TIMING");
    /* Checked here: runtimes answer a never-recorded event with a device
     * error (cuda, sdaa) or "not ready" (npu, mlu), and it is neither. */
    if (!atomic_load(&start->recorded) || !atomic_load(&end->recorded))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "elapsed time of an event that was never recorded (the %s event): "
                           "record both with accel_event_record first",
                           !atomic_load(&start->recorded) ? "start" : "end");
    status = stream_require(acc, ACCEL_BACKEND_HAS(acc->ops, event_elapsed_ms), "event timing");
    if (status == ACCEL_OK)
        status = acc->ops->event_elapsed_ms(acc->self, start->device, start->impl, end->impl, &ms);
    if (status == ACCEL_OK)
        *out = ms;
    return status;
}
