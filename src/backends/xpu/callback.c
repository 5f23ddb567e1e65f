/* callback.c: host callbacks on xpu streams. Level Zero has no host
 * callbacks, so each stream has a kit host-callback emulator
 * (accel_callback_emulator_t, one thread per stream, started by its first
 * callback and joined when the stream is destroyed). Its markers are events
 * the stream signals from barriers (so the work before them is complete:
 * ze_api.h:2439-2444); its gate is an event the stream waits on and the host
 * signals once the callback has returned, after which the stream's later
 * work runs. The emulator frees each event once the stream is past it.
 * Threads: the stream's `lock` guards its list and counters while an op
 * appends; the emulator thread holds no lock while it waits or runs a
 * callback, and carries the kit's callback-thread mark while it runs one. */
#include "backends/xpu/xpu_backend.h"

#define XPU_CALLBACK_POLL_NS 50000000u /* how often a waiting thread looks for stop */

accel_xpu_stream_t *accel_xpu_callback_stream(accel_xpu_backend_t *xpu, int device)
{
    const void *own = NULL;
    if (!accel_callback_thread_of(xpu, device, &own))
        return NULL;
    return accel_xpu_stream(xpu, device, (void *)own);
}

/* A new event, appended to the stream as a barrier's signal or as a wait. */
static accel_status_t xpu_callback_append(accel_xpu_stream_t *stream, bool wait, void **out)
{
    accel_xpu_backend_t *xpu = stream->backend;
    accel_xpu_event_t *event = NULL;
    accel_status_t status = accel_xpu_event_new(xpu, stream->device, false, &event);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&stream->lock);
    if (wait)
        status = accel_xpu_check(
            xpu->ze->zeCommandListAppendWaitOnEvents(stream->list, 1, &event->handle),
            "zeCommandListAppendWaitOnEvents (stream callback)");
    else
        status = accel_xpu_check(
            xpu->ze->zeCommandListAppendBarrier(stream->list, event->handle, 0, NULL),
            "zeCommandListAppendBarrier (stream callback)");
    if (status == ACCEL_OK)
        stream->appended++;
    pthread_mutex_unlock(&stream->lock);
    if (status != ACCEL_OK) {
        accel_xpu_event_free(xpu, event);
        return status;
    }
    *out = event;
    return ACCEL_OK;
}

static accel_status_t xpu_callback_record(void *ctx, int device, void *handle, void **out)
{
    (void)device;
    (void)handle; /* ctx is the stream itself */
    return xpu_callback_append(ctx, false, out);
}

static accel_status_t xpu_callback_gate(void *ctx, int device, void *handle, void **out)
{
    (void)device;
    (void)handle;
    return xpu_callback_append(ctx, true, out);
}

/* Polls, so that a stream being destroyed is not waited for for ever. */
static accel_status_t xpu_callback_wait(void *ctx, int device, void *marker)
{
    accel_xpu_stream_t *stream = ctx;
    accel_ze_result_t code;
    (void)device;
    do
        code = stream->backend->ze->zeEventHostSynchronize(((accel_xpu_event_t *)marker)->handle,
                                                           XPU_CALLBACK_POLL_NS);
    while (code == ACCEL_ZE_NOT_READY && !accel_callback_emulator_stopping(&stream->callbacks));
    return accel_xpu_check(code, "zeEventHostSynchronize (stream callback)");
}

/* The stream waits for this signal: try again before giving up. */
static accel_status_t xpu_callback_open(void *ctx, int device, void *gate)
{
    accel_xpu_stream_t *stream = ctx;
    accel_ze_result_t code = ACCEL_ZE_SUCCESS;
    (void)device;
    for (int attempt = 0; attempt < 3; attempt++) {
        code = stream->backend->ze->zeEventHostSignal(((accel_xpu_event_t *)gate)->handle);
        if (code == ACCEL_ZE_SUCCESS)
            break;
        accel_log(ACCEL_LOG_WARN,
                  "xpu: zeEventHostSignal after a stream callback failed with ze_result_t "
                  "0x%x%s",
                  code, attempt < 2 ? "; trying again" : "; the stream cannot go on");
    }
    return accel_xpu_check(code, "zeEventHostSignal (stream callback)");
}

static void xpu_callback_release(void *ctx, int device, void *event)
{
    accel_xpu_stream_t *stream = ctx;
    (void)device;
    accel_xpu_event_free(stream->backend, event);
}

static const accel_callback_emulator_ops_t xpu_callback_ops = {
    .record = xpu_callback_record,
    .wait = xpu_callback_wait,
    .release = xpu_callback_release,
    .gate = xpu_callback_gate,
    .open_gate = xpu_callback_open,
    .release_gate = xpu_callback_release,
};

void accel_xpu_callbacks_init(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream)
{
    stream->backend = xpu;
    accel_callback_emulator_init(&stream->callbacks, &xpu_callback_ops, stream, xpu, "xpu");
}

accel_status_t accel_xpu_stream_add_callback(void *self, int device, void *handle,
                                             accel_host_fn_t fn, void *user_data)
{
    accel_xpu_backend_t *xpu = self;
    accel_status_t status = accel_xpu_usable();
    if (status != ACCEL_OK)
        return status;
    return accel_callback_emulator_add(&accel_xpu_stream(xpu, device, handle)->callbacks, device,
                                       handle, fn, user_data);
}

void accel_xpu_callbacks_stop(accel_xpu_stream_t *stream)
{
    accel_callback_emulator_fini(&stream->callbacks, false);
}
