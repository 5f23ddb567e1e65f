/* callback.c: host callbacks on xpu streams. Level Zero has no host
 * callbacks, so each one is two events: the stream signals `reached` from a
 * barrier (so the work before it is complete: ze_api.h:2439-2444) and then
 * waits for `done`; the stream's callback thread (started by its first
 * callback, joined when the stream is destroyed) waits for `reached`, runs
 * the function and signals `done` from the host, after which the stream's
 * later work runs. The events are freed once a marker appended after the
 * wait has signalled (the device no longer reads them).
 * Threads: the stream's `lock` guards its callback lists; the callback
 * thread holds no lock while it waits or runs a callback. A callback that
 * synchronizes its own stream or device is refused (it would wait for
 * itself): accel_xpu_callback_stream says which stream the thread serves. */
#include <stdlib.h>

#include "backends/xpu/xpu_backend.h"

#define XPU_CALLBACK_POLL_NS 50000000u /* how often a waiting thread looks for stop */

static _Thread_local accel_xpu_stream_t *xpu_callback_of;

accel_xpu_stream_t *accel_xpu_callback_stream(void)
{
    return xpu_callback_of;
}

typedef struct xpu_callback_thread_arg {
    accel_xpu_backend_t *xpu;
    accel_xpu_stream_t *stream;
} xpu_callback_thread_arg_t;

static void xpu_callback_free(accel_xpu_backend_t *xpu, accel_xpu_callback_t *cb)
{
    accel_xpu_event_free(xpu, cb->reached);
    accel_xpu_event_free(xpu, cb->done);
    free(cb);
}

void accel_xpu_callbacks_retire(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream, uint64_t upto)
{
    accel_xpu_callback_t **link = &stream->retired;
    while (*link != NULL) {
        accel_xpu_callback_t *cb = *link;
        if (cb->at <= upto) {
            *link = cb->next;
            xpu_callback_free(xpu, cb);
        } else {
            link = &cb->next;
        }
    }
}

/* Wait for the stream to reach the oldest callback, run it, release the
 * stream. A wait that fails releases the stream without running it (said in
 * the log), so the stream is never stuck behind it. */
static void *xpu_callback_main(void *arg_)
{
    xpu_callback_thread_arg_t arg = *(xpu_callback_thread_arg_t *)arg_;
    accel_xpu_stream_t *stream = arg.stream;
    const accel_xpu_api_t *ze = arg.xpu->ze;
    free(arg_);
    xpu_callback_of = stream;
    pthread_mutex_lock(&stream->lock);
    for (;;) {
        accel_xpu_callback_t *cb;
        accel_ze_result_t code;
        while (stream->queued == NULL && !stream->callbacks_stop)
            pthread_cond_wait(&stream->callbacks_changed, &stream->lock);
        if (stream->queued == NULL)
            break;
        cb = stream->queued;
        pthread_mutex_unlock(&stream->lock);
        do
            code = ze->zeEventHostSynchronize(cb->reached->handle, XPU_CALLBACK_POLL_NS);
        while (code == ACCEL_ZE_NOT_READY && !stream->callbacks_stop);
        if (code == ACCEL_ZE_SUCCESS && cb->fn != NULL)
            cb->fn(cb->user_data);
        else if (cb->fn != NULL)
            accel_log(ACCEL_LOG_WARN,
                      "xpu: a stream callback was not run: waiting for the "
                      "stream to reach it failed with ze_result_t 0x%x",
                      code);
        /* The stream waits for this signal: try again before giving up. */
        for (int attempt = 0; attempt < 3; attempt++) {
            code = ze->zeEventHostSignal(cb->done->handle);
            if (code == ACCEL_ZE_SUCCESS)
                break;
            accel_log(ACCEL_LOG_WARN,
                      "xpu: zeEventHostSignal after a stream callback failed with ze_result_t "
                      "0x%x%s",
                      code, attempt < 2 ? "; trying again" : "; the stream cannot go on");
        }
        pthread_mutex_lock(&stream->lock);
        stream->queued = cb->next;
        cb->next = stream->retired;
        stream->retired = cb;
    }
    pthread_mutex_unlock(&stream->lock);
    return NULL;
}

/* Under the stream's lock. */
static accel_status_t xpu_callback_thread_start(accel_xpu_backend_t *xpu,
                                                accel_xpu_stream_t *stream)
{
    xpu_callback_thread_arg_t *arg;
    if (stream->callbacks_running)
        return ACCEL_OK;
    arg = malloc(sizeof *arg);
    if (arg == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "xpu: out of host memory for a callback thread");
    *arg = (xpu_callback_thread_arg_t){.xpu = xpu, .stream = stream};
    if (pthread_create(&stream->callback_thread, NULL, xpu_callback_main, arg) != 0) {
        free(arg);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "xpu: cannot start the stream's callback thread");
    }
    stream->callbacks_running = true;
    return ACCEL_OK;
}

accel_status_t accel_xpu_stream_add_callback(void *self, int device, void *handle,
                                             accel_host_fn_t fn, void *user_data)
{
    accel_xpu_backend_t *xpu = self;
    accel_xpu_stream_t *stream = accel_xpu_stream(xpu, device, handle);
    accel_xpu_callback_t *cb, **tail;
    accel_status_t status = accel_xpu_usable();

    if (status != ACCEL_OK)
        return status;
    cb = calloc(1, sizeof *cb);
    if (cb == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "xpu: out of host memory for a callback");
    status = accel_xpu_event_new(xpu, device, false, &cb->reached);
    if (status == ACCEL_OK)
        status = accel_xpu_event_new(xpu, device, false, &cb->done);
    if (status != ACCEL_OK) {
        accel_xpu_event_free(xpu, cb->reached);
        free(cb);
        return status;
    }
    cb->fn = fn;
    cb->user_data = user_data;
    pthread_mutex_lock(&stream->lock);
    status = xpu_callback_thread_start(xpu, stream);
    if (status == ACCEL_OK)
        status = accel_xpu_check(
            xpu->ze->zeCommandListAppendBarrier(stream->list, cb->reached->handle, 0, NULL),
            "zeCommandListAppendBarrier (stream callback)");
    if (status != ACCEL_OK) {
        pthread_mutex_unlock(&stream->lock);
        xpu_callback_free(xpu, cb);
        return status;
    }
    stream->appended++;
    status = accel_xpu_check(
        xpu->ze->zeCommandListAppendWaitOnEvents(stream->list, 1, &cb->done->handle),
        "zeCommandListAppendWaitOnEvents (stream callback)");
    if (status == ACCEL_OK)
        stream->appended++;
    else
        cb->fn = NULL; /* `reached` is queued: keep the record, never run it */
    cb->at = stream->appended;
    for (tail = &stream->queued; *tail != NULL; tail = &(*tail)->next)
        ;
    *tail = cb;
    pthread_cond_broadcast(&stream->callbacks_changed);
    pthread_mutex_unlock(&stream->lock);
    return status;
}

void accel_xpu_callbacks_stop(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream)
{
    pthread_mutex_lock(&stream->lock);
    stream->callbacks_stop = true;
    pthread_cond_broadcast(&stream->callbacks_changed);
    pthread_mutex_unlock(&stream->lock);
    if (stream->callbacks_running)
        pthread_join(stream->callback_thread, NULL);
    stream->callbacks_running = false;
    accel_xpu_callbacks_retire(xpu, stream, UINT64_MAX);
}
