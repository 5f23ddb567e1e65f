/* stream.c: the sdaa backend's streams, events and host callbacks.
 * - A backend stream is the runtime's sdaaStream_t, made non-blocking
 *   (sdaaStreamNonBlocking) so it does not wait for the default stream, as
 *   the cuda backend's streams do not; NULL is the device's default stream.
 *   The priority argument is not passed on: the public API has no
 *   priority-taking create.
 * - A backend event is the sdaaEvent_t itself; sdaaEventDisableTiming unless
 *   ACCEL_EVENT_TIMING asks for timing.
 * - Host callbacks go through sdaaStreamAddCallback (flags 0). The runtime
 *   calls a trampoline with (stream, status, record); the record carries
 *   accel's function and argument and is freed by the trampoline. The
 *   stream waits for the callback, as CUDA's does [unconfirmed on SDAA
 *   hardware]. The trampoline marks the runtime's thread as a callback
 *   thread (accel_callback_thread_mark): core refuses the waits for
 *   itself, and every sdaa slot refuses a runtime call (backend.c).
 * Threads: any thread; each slot makes its device current first. */
#include <stdlib.h>

#include "accel/accel_backend_utils.h"
#include "backends/sdaa/sdaa_backend.h"

/* ---------------------------------------------------------------- device and streams */

accel_status_t accel_sdaa_synchronize(void *self, int device)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status != ACCEL_OK)
        return status;
    return accel_sdaa_check(sdaa->rt, sdaa->rt->sdaaDeviceSynchronize(), "sdaaDeviceSynchronize");
}

accel_status_t accel_sdaa_stream_create(void *self, int device, int priority, void **out)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_sdaa_stream_t stream = NULL;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    (void)priority;
    if (status == ACCEL_OK)
        status = accel_sdaa_check(
            sdaa->rt, sdaa->rt->sdaaStreamCreateWithFlags(&stream, ACCEL_SDAA_STREAM_NON_BLOCKING),
            "sdaaStreamCreateWithFlags");
    if (status == ACCEL_OK)
        *out = stream;
    return status;
}

/* accel_stream_destroy promises the stream's queued work has finished: the
 * stream is synchronized, then destroyed (a failed wait is logged and the
 * stream destroyed anyway, as the runtime finishes its work on its own). A
 * destroy the backend cannot make (a forked child, a host callback) is
 * logged: the stream then stays with the runtime. */
void accel_sdaa_stream_destroy(void *self, int device, void *stream)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_sdaa_error_t code;
    if (accel_sdaa_activate(sdaa, device) != ACCEL_OK) {
        accel_log(ACCEL_LOG_WARN, "sdaa: a stream of device %d was not destroyed: %s", device,
                  accel_last_error());
        return;
    }
    code = sdaa->rt->sdaaStreamSynchronize(stream);
    if (code != ACCEL_SDAA_SUCCESS)
        accel_log(ACCEL_LOG_WARN,
                  "sdaa: sdaaStreamSynchronize before destroying a stream of device %d failed "
                  "with sdaaError_t %d",
                  device, code);
    code = sdaa->rt->sdaaStreamDestroy(stream);
    if (code != ACCEL_SDAA_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "sdaa: sdaaStreamDestroy on device %d failed with sdaaError_t %d",
                  device, code);
}

accel_status_t accel_sdaa_stream_synchronize(void *self, int device, void *stream)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status != ACCEL_OK)
        return status;
    return accel_sdaa_check(sdaa->rt, sdaa->rt->sdaaStreamSynchronize(stream),
                            "sdaaStreamSynchronize");
}

/* sdaaErrorNotReady is the answer "still working", not a failure. */
accel_status_t accel_sdaa_stream_query(void *self, int device, void *stream)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_sdaa_error_t code;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status != ACCEL_OK)
        return status;
    code = sdaa->rt->sdaaStreamQuery(stream);
    if (code == ACCEL_SDAA_ERROR_NOT_READY)
        return ACCEL_ERROR_NOT_READY;
    return accel_sdaa_check(sdaa->rt, code, "sdaaStreamQuery");
}

accel_status_t accel_sdaa_stream_wait_event(void *self, int device, void *stream, void *event)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status != ACCEL_OK)
        return status;
    return accel_sdaa_check(sdaa->rt, sdaa->rt->sdaaStreamWaitEvent(stream, event, 0),
                            "sdaaStreamWaitEvent");
}

/* ---------------------------------------------------------------- host callbacks */

typedef struct sdaa_callback {
    accel_sdaa_backend_t *sdaa;
    int device;
    void *stream; /* the slot's handle, for the mark */
    accel_host_fn_t fn;
    void *user_data;
} sdaa_callback_t;

/* Runs on the runtime's thread. A failed stream still runs the callback
 * (so that whatever waits on it is released), after saying so. */
static void sdaa_callback_trampoline(accel_sdaa_stream_t stream, accel_sdaa_error_t status,
                                     void *arg)
{
    sdaa_callback_t call = *(sdaa_callback_t *)arg;
    free(arg);
    if (status != ACCEL_SDAA_SUCCESS)
        accel_log(ACCEL_LOG_WARN,
                  "sdaa: stream %p failed with sdaaError_t %d before a host callback; running "
                  "the callback anyway",
                  stream, status);
    accel_callback_thread_mark(call.sdaa, call.device, call.stream);
    call.fn(call.user_data);
    accel_callback_thread_clear();
}

accel_status_t accel_sdaa_stream_add_callback(void *self, int device, void *stream,
                                              accel_host_fn_t fn, void *user_data)
{
    accel_sdaa_backend_t *sdaa = self;
    sdaa_callback_t *call;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status != ACCEL_OK)
        return status;
    call = malloc(sizeof *call);
    if (call == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "sdaa: out of host memory for a host callback");
    *call = (sdaa_callback_t){
        .sdaa = sdaa, .device = device, .stream = stream, .fn = fn, .user_data = user_data};
    status = accel_sdaa_check(
        sdaa->rt, sdaa->rt->sdaaStreamAddCallback(stream, sdaa_callback_trampoline, call, 0),
        "sdaaStreamAddCallback");
    if (status != ACCEL_OK)
        free(call); /* not queued: the trampoline will never see it */
    return status;
}

/* ---------------------------------------------------------------- events */

accel_status_t accel_sdaa_event_create(void *self, int device, unsigned flags, void **out)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_sdaa_event_t event = NULL;
    unsigned int sdaa_flags =
        (flags & ACCEL_EVENT_TIMING) ? ACCEL_SDAA_EVENT_DEFAULT : ACCEL_SDAA_EVENT_DISABLE_TIMING;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status == ACCEL_OK)
        status = accel_sdaa_check(sdaa->rt, sdaa->rt->sdaaEventCreateWithFlags(&event, sdaa_flags),
                                  "sdaaEventCreateWithFlags");
    if (status == ACCEL_OK)
        *out = event;
    return status;
}

void accel_sdaa_event_destroy(void *self, int device, void *event)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_sdaa_error_t code;
    if (accel_sdaa_activate(sdaa, device) != ACCEL_OK)
        return;
    code = sdaa->rt->sdaaEventDestroy(event);
    if (code != ACCEL_SDAA_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "sdaa: sdaaEventDestroy on device %d failed with sdaaError_t %d",
                  device, code);
}

accel_status_t accel_sdaa_event_record(void *self, int device, void *stream, void *event)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status != ACCEL_OK)
        return status;
    return accel_sdaa_check(sdaa->rt, sdaa->rt->sdaaEventRecord(event, stream), "sdaaEventRecord");
}

accel_status_t accel_sdaa_event_synchronize(void *self, int device, void *event)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status != ACCEL_OK)
        return status;
    return accel_sdaa_check(sdaa->rt, sdaa->rt->sdaaEventSynchronize(event),
                            "sdaaEventSynchronize");
}

/* sdaaErrorNotReady is the answer "not reached yet", not a failure. */
accel_status_t accel_sdaa_event_query(void *self, int device, void *event)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_sdaa_error_t code;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status != ACCEL_OK)
        return status;
    code = sdaa->rt->sdaaEventQuery(event);
    if (code == ACCEL_SDAA_ERROR_NOT_READY)
        return ACCEL_ERROR_NOT_READY;
    return accel_sdaa_check(sdaa->rt, code, "sdaaEventQuery");
}

accel_status_t accel_sdaa_event_elapsed_ms(void *self, int device, void *start, void *end,
                                           float *out)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status != ACCEL_OK)
        return status;
    return accel_sdaa_check(sdaa->rt, sdaa->rt->sdaaEventElapsedTime(out, start, end),
                            "sdaaEventElapsedTime");
}

accel_status_t accel_sdaa_native_stream(void *self, int device, void *stream, void **out)
{
    accel_status_t status = accel_sdaa_activate(self, device);
    if (status == ACCEL_OK)
        *out = stream;
    return status;
}
