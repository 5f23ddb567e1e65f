/* stream.c: the mlu backend's queues (streams), notifiers (events) and host
 * callbacks.
 * - A backend stream is an accel_mlu_stream_t around a cnrtQueue_t; NULL is
 *   the device's default queue. The priority is not passed on: the plain
 *   cnrtQueueCreate has none.
 * - A backend event is an accel_mlu_event_t around a cnrtNotifier_t:
 *   CNRT_NOTIFIER_DEFAULT for ACCEL_EVENT_TIMING, else
 *   CNRT_NOTIFIER_DISABLE_TIMING_ALL (cheaper).
 *   Timing uses cnrtNotifierElapsedTime (ms), else cnrtNotifierDuration (us).
 * - Host callbacks: cnrtInvokeHostFunc, which runs the function in queue
 *   order and holds later work back until it returns, as CUDA host functions
 *   do. A CNRT without it gets the kit's host-callback emulator: a notifier
 *   placed on the queue and one thread that waits for each notifier in turn
 *   and then runs the callback. Synchronize, query and destroy of the stream (and
 *   device synchronize) also wait for its emulated callbacks, and so do the
 *   query and synchronize of an event recorded after one; but later work on
 *   the queue does NOT wait for them (README.md says so).
 * Threads: any thread; each slot makes its device current first. The
 * emulator keeps its own lock (accel_callback_emulator_t). */
#include <stdlib.h>

#include "backends/mlu/mlu_backend.h"

/* Wait until the emulated callbacks of `stream` of `device` (of every
 * stream of it, with every_stream) have returned. */
static void mlu_callbacks_wait(accel_mlu_backend_t *mlu, int device, void *stream,
                               bool every_stream)
{
    if (mlu->cnrt->cnrtInvokeHostFunc != NULL)
        return;
    accel_callback_emulator_reached(
        &mlu->callbacks,
        accel_callback_emulator_last(&mlu->callbacks, device, stream, every_stream), true);
}

/* ---------------------------------------------------------------- device and streams */

accel_status_t accel_mlu_synchronize(void *self, int device)
{
    accel_mlu_backend_t *mlu = self;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status == ACCEL_OK)
        status = accel_mlu_check(mlu->cnrt, mlu->cnrt->cnrtSyncDevice(), "cnrtSyncDevice");
    if (status == ACCEL_OK)
        mlu_callbacks_wait(mlu, device, NULL, true);
    return status;
}

accel_status_t accel_mlu_stream_create(void *self, int device, int priority, void **out)
{
    accel_mlu_backend_t *mlu = self;
    accel_mlu_stream_t *stream;
    accel_status_t status;
    (void)priority;
    if ((status = accel_mlu_activate(mlu, device)) != ACCEL_OK)
        return status;
    stream = calloc(1, sizeof *stream);
    if (stream == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "mlu: out of host memory for a stream");
    stream->device = device;
    status =
        accel_mlu_check(mlu->cnrt, mlu->cnrt->cnrtQueueCreate(&stream->queue), "cnrtQueueCreate");
    if (status != ACCEL_OK) {
        free(stream);
        return status;
    }
    *out = stream;
    return ACCEL_OK;
}

/* accel_stream_destroy waits for the stream's work: the queue is
 * synchronized, its emulated callbacks run, then it is destroyed. */
void accel_mlu_stream_destroy(void *self, int device, void *stream)
{
    accel_mlu_backend_t *mlu = self;
    accel_mlu_stream_t *s = stream;
    accel_cnrt_ret_t code;
    if (accel_mlu_activate(mlu, device) == ACCEL_OK) {
        code = mlu->cnrt->cnrtQueueSync(s->queue);
        if (code != ACCEL_CNRT_SUCCESS)
            accel_log(ACCEL_LOG_WARN,
                      "mlu: cnrtQueueSync before destroying a queue of device %d "
                      "failed with cnrtRet_t %u",
                      device, code);
        mlu_callbacks_wait(mlu, device, s, false);
        code = mlu->cnrt->cnrtQueueDestroy(s->queue);
        if (code != ACCEL_CNRT_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "mlu: cnrtQueueDestroy on device %d failed with cnrtRet_t %u",
                      device, code);
    }
    free(s);
}

accel_status_t accel_mlu_stream_synchronize(void *self, int device, void *stream)
{
    accel_mlu_backend_t *mlu = self;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status == ACCEL_OK)
        status = accel_mlu_check(mlu->cnrt, mlu->cnrt->cnrtQueueSync(accel_mlu_queue(stream)),
                                 "cnrtQueueSync");
    if (status == ACCEL_OK)
        mlu_callbacks_wait(mlu, device, stream, false);
    return status;
}

/* cnrtQueueQuery: cnrtSuccess when idle, NotReady (or the deprecated Busy)
 * while work is queued. */
accel_status_t accel_mlu_stream_query(void *self, int device, void *stream)
{
    accel_mlu_backend_t *mlu = self;
    accel_cnrt_ret_t code;
    bool busy = false;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status != ACCEL_OK)
        return status;
    code = mlu->cnrt->cnrtQueueQuery(accel_mlu_queue(stream));
    if (accel_mlu_not_ready(code))
        return ACCEL_ERROR_NOT_READY;
    if (code != ACCEL_CNRT_SUCCESS)
        return accel_mlu_error(mlu->cnrt, code, "cnrtQueueQuery");
    if (mlu->cnrt->cnrtInvokeHostFunc == NULL)
        busy = !accel_callback_emulator_reached(
            &mlu->callbacks, accel_callback_emulator_last(&mlu->callbacks, device, stream, false),
            false);
    return busy ? ACCEL_ERROR_NOT_READY : ACCEL_OK;
}

accel_status_t accel_mlu_stream_wait_event(void *self, int device, void *stream, void *event)
{
    accel_mlu_backend_t *mlu = self;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status != ACCEL_OK)
        return status;
    return accel_mlu_check(mlu->cnrt,
                           mlu->cnrt->cnrtQueueWaitNotifier(((accel_mlu_event_t *)event)->notifier,
                                                            accel_mlu_queue(stream), 0),
                           "cnrtQueueWaitNotifier");
}

/* ---------------------------------------------------------------- emulated callbacks */

/* The emulator's markers are notifiers placed on the queue; CNRT has no
 * notifier the host can complete, so there is no gate. */
static accel_status_t mlu_callback_record(void *ctx, int device, void *stream, void **out)
{
    accel_mlu_backend_t *mlu = ctx;
    const accel_mlu_api_t *cnrt = mlu->cnrt;
    accel_cnrt_notifier_t notifier = NULL;
    accel_status_t status = accel_mlu_check(
        cnrt, cnrt->cnrtNotifierCreateWithFlags(&notifier, ACCEL_CNRT_NOTIFIER_DISABLE_TIMING_ALL),
        "cnrtNotifierCreateWithFlags (host callback)");
    (void)device; /* the adding slot made it current */
    if (status != ACCEL_OK)
        return status;
    status = accel_mlu_check(cnrt, cnrt->cnrtPlaceNotifier(notifier, accel_mlu_queue(stream)),
                             "cnrtPlaceNotifier (host callback)");
    if (status != ACCEL_OK) {
        if (cnrt->cnrtNotifierDestroy(notifier) != ACCEL_CNRT_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "mlu: cnrtNotifierDestroy (host callback) failed");
        return status;
    }
    *out = notifier;
    return ACCEL_OK;
}

static accel_status_t mlu_callback_wait(void *ctx, int device, void *notifier)
{
    accel_mlu_backend_t *mlu = ctx;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status == ACCEL_OK)
        status = accel_mlu_check(mlu->cnrt, mlu->cnrt->cnrtWaitNotifier(notifier),
                                 "cnrtWaitNotifier (host callback)");
    return status;
}

static void mlu_callback_release(void *ctx, int device, void *notifier)
{
    accel_mlu_backend_t *mlu = ctx;
    (void)device;
    if (mlu->cnrt->cnrtNotifierDestroy(notifier) != ACCEL_CNRT_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "mlu: cnrtNotifierDestroy after a host callback failed");
}

static const accel_callback_emulator_ops_t mlu_callback_ops = {
    .record = mlu_callback_record,
    .wait = mlu_callback_wait,
    .release = mlu_callback_release,
};

void accel_mlu_callbacks_init(accel_mlu_backend_t *mlu)
{
    accel_callback_emulator_init(&mlu->callbacks, &mlu_callback_ops, mlu, mlu, "mlu");
}

accel_status_t accel_mlu_stream_add_callback(void *self, int device, void *stream,
                                             accel_host_fn_t fn, void *user_data)
{
    accel_mlu_backend_t *mlu = self;
    accel_callback_call_t *call = NULL;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status != ACCEL_OK)
        return status;
    /* (no capture is possible then: graphs need cnrtInvokeHostFunc too) */
    if (mlu->cnrt->cnrtInvokeHostFunc == NULL)
        return accel_callback_emulator_add(&mlu->callbacks, device, stream, fn, user_data);
    /* A kit call record marks CNRT's thread while `fn` runs; one captured
     * into a graph is replayed, so it is kept until destroy(). */
    status = accel_callback_call_new(
        mlu, device, stream, fn, user_data,
        stream != NULL && atomic_load(&((accel_mlu_stream_t *)stream)->capturing), &call);
    if (status != ACCEL_OK)
        return status;
    status = accel_mlu_check(
        mlu->cnrt,
        mlu->cnrt->cnrtInvokeHostFunc(accel_mlu_queue(stream), accel_callback_call_run, call),
        "cnrtInvokeHostFunc");
    if (status != ACCEL_OK)
        accel_callback_call_free(call); /* not queued: never run */
    return status;
}

void accel_mlu_callbacks_stop(accel_mlu_backend_t *mlu)
{
    accel_callback_emulator_fini(&mlu->callbacks, false);
}

/* ---------------------------------------------------------------- events */

/* Whether the emulated callback an event was recorded behind has returned;
 * with `wait`, wait for it first. */
static bool mlu_event_callback_done(accel_mlu_backend_t *mlu, accel_mlu_event_t *e, bool wait)
{
    if (mlu->cnrt->cnrtInvokeHostFunc != NULL)
        return true;
    return accel_callback_emulator_reached(&mlu->callbacks, atomic_load(&e->callback), wait);
}

accel_status_t accel_mlu_event_create(void *self, int device, unsigned flags, void **out)
{
    accel_mlu_backend_t *mlu = self;
    accel_mlu_event_t *event;
    unsigned int cnrt_flags = (flags & ACCEL_EVENT_TIMING) ? ACCEL_CNRT_NOTIFIER_DEFAULT
                                                           : ACCEL_CNRT_NOTIFIER_DISABLE_TIMING_ALL;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status != ACCEL_OK)
        return status;
    event = calloc(1, sizeof *event);
    if (event == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "mlu: out of host memory for an event");
    status = accel_mlu_check(mlu->cnrt,
                             mlu->cnrt->cnrtNotifierCreateWithFlags(&event->notifier, cnrt_flags),
                             "cnrtNotifierCreateWithFlags");
    if (status != ACCEL_OK) {
        free(event);
        return status;
    }
    *out = event;
    return ACCEL_OK;
}

void accel_mlu_event_destroy(void *self, int device, void *event)
{
    accel_mlu_backend_t *mlu = self;
    accel_mlu_event_t *e = event;
    accel_cnrt_ret_t code;
    if (accel_mlu_activate(mlu, device) == ACCEL_OK) {
        code = mlu->cnrt->cnrtNotifierDestroy(e->notifier);
        if (code != ACCEL_CNRT_SUCCESS)
            accel_log(ACCEL_LOG_WARN,
                      "mlu: cnrtNotifierDestroy on device %d failed with cnrtRet_t %u", device,
                      code);
    }
    free(e);
}

accel_status_t accel_mlu_event_record(void *self, int device, void *stream, void *event)
{
    accel_mlu_backend_t *mlu = self;
    accel_mlu_event_t *e = event;
    uint64_t callback = 0;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status != ACCEL_OK)
        return status;
    if (mlu->cnrt->cnrtInvokeHostFunc == NULL)
        callback = accel_callback_emulator_last(&mlu->callbacks, device, stream, false);
    status = accel_mlu_check(mlu->cnrt,
                             mlu->cnrt->cnrtPlaceNotifier(e->notifier, accel_mlu_queue(stream)),
                             "cnrtPlaceNotifier");
    if (status == ACCEL_OK)
        atomic_store(&e->callback, callback);
    return status;
}

accel_status_t accel_mlu_event_synchronize(void *self, int device, void *event)
{
    accel_mlu_backend_t *mlu = self;
    accel_mlu_event_t *e = event;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status != ACCEL_OK)
        return status;
    status =
        accel_mlu_check(mlu->cnrt, mlu->cnrt->cnrtWaitNotifier(e->notifier), "cnrtWaitNotifier");
    if (status == ACCEL_OK)
        mlu_event_callback_done(mlu, e, true);
    return status;
}

accel_status_t accel_mlu_event_query(void *self, int device, void *event)
{
    accel_mlu_backend_t *mlu = self;
    accel_mlu_event_t *e = event;
    accel_cnrt_ret_t code;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status != ACCEL_OK)
        return status;
    if (!mlu_event_callback_done(mlu, e, false))
        return ACCEL_ERROR_NOT_READY;
    code = mlu->cnrt->cnrtQueryNotifier(e->notifier);
    if (accel_mlu_not_ready(code))
        return ACCEL_ERROR_NOT_READY;
    return accel_mlu_check(mlu->cnrt, code, "cnrtQueryNotifier");
}

/* cnrtNotifierElapsedTime (software time, ms; CNRT 6) where present, else
 * cnrtNotifierDuration (hardware time, us). */
accel_status_t accel_mlu_event_elapsed_ms(void *self, int device, void *start, void *end,
                                          float *out)
{
    accel_mlu_backend_t *mlu = self;
    const accel_mlu_api_t *cnrt = mlu->cnrt;
    float us = 0.0f;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status != ACCEL_OK)
        return status;
    accel_cnrt_notifier_t first = ((accel_mlu_event_t *)start)->notifier;
    accel_cnrt_notifier_t last = ((accel_mlu_event_t *)end)->notifier;
    if (cnrt->cnrtNotifierElapsedTime != NULL)
        return accel_mlu_check(cnrt, cnrt->cnrtNotifierElapsedTime(first, last, out),
                               "cnrtNotifierElapsedTime");
    if (cnrt->cnrtNotifierDuration == NULL)
        return accel_backend_error(ACCEL_ERROR_UNSUPPORTED,
                                   "mlu: the libcnrt.so found has neither cnrtNotifierElapsedTime "
                                   "nor cnrtNotifierDuration, so events cannot be timed");
    status =
        accel_mlu_check(cnrt, cnrt->cnrtNotifierDuration(first, last, &us), "cnrtNotifierDuration");
    if (status == ACCEL_OK)
        *out = us / 1000.0f;
    return status;
}

accel_status_t accel_mlu_native_stream(void *self, int device, void *stream, void **out)
{
    accel_status_t status = accel_mlu_activate(self, device);
    if (status == ACCEL_OK)
        *out = accel_mlu_queue(stream);
    return status;
}
