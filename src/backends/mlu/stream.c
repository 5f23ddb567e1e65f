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
 *   do. A CNRT without it gets an emulation: a notifier placed on the queue
 *   and one backend thread that waits for each notifier in turn and then
 *   runs the callback. Synchronize, query and destroy of the stream (and
 *   device synchronize) also wait for its emulated callbacks, and so do the
 *   query and synchronize of an event recorded after one; but later work on
 *   the queue does NOT wait for them (README.md says so).
 * Threads: any thread; each slot makes its device current first. The
 * emulation's list and thread are under callback_lock. */
#include <stdlib.h>

#include "backends/mlu/mlu_backend.h"

/* The key of a stream's emulated callbacks. */
static const void *mlu_callback_key(accel_mlu_backend_t *mlu, int device, void *stream)
{
    return stream != NULL ? stream : (const void *)&mlu->default_keys[device];
}

/* Under callback_lock: an emulated callback of `key` (or of `device`, with
 * key NULL) is queued or running. */
static bool mlu_callbacks_busy(accel_mlu_backend_t *mlu, int device, const void *key)
{
    if (mlu->callback_running_key != NULL &&
        (key != NULL ? mlu->callback_running_key == key : mlu->callback_running_device == device))
        return true;
    for (accel_mlu_callback_t *c = mlu->callback_head; c != NULL; c = c->next)
        if (key != NULL ? c->key == key : c->device == device)
            return true;
    return false;
}

/* Wait until the emulated callbacks of `key` (or of `device`) have run. */
static void mlu_callbacks_wait(accel_mlu_backend_t *mlu, int device, const void *key)
{
    if (mlu->cnrt->cnrtInvokeHostFunc != NULL)
        return;
    pthread_mutex_lock(&mlu->callback_lock);
    while (mlu_callbacks_busy(mlu, device, key))
        pthread_cond_wait(&mlu->callback_changed, &mlu->callback_lock);
    pthread_mutex_unlock(&mlu->callback_lock);
}

/* ---------------------------------------------------------------- device and streams */

accel_status_t accel_mlu_synchronize(void *self, int device)
{
    accel_mlu_backend_t *mlu = self;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status == ACCEL_OK)
        status = accel_mlu_check(mlu->cnrt, mlu->cnrt->cnrtSyncDevice(), "cnrtSyncDevice");
    if (status == ACCEL_OK)
        mlu_callbacks_wait(mlu, device, NULL);
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
        mlu_callbacks_wait(mlu, device, s);
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
        mlu_callbacks_wait(mlu, device, mlu_callback_key(mlu, device, stream));
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
    if (mlu->cnrt->cnrtInvokeHostFunc == NULL) {
        pthread_mutex_lock(&mlu->callback_lock);
        busy = mlu_callbacks_busy(mlu, device, mlu_callback_key(mlu, device, stream));
        pthread_mutex_unlock(&mlu->callback_lock);
    }
    return busy ? ACCEL_ERROR_NOT_READY : ACCEL_OK;
}

/* CNRT waits and places a notifier only on its own device's queues:
 * torch_mlu's copy_utils.cpp says a wait across devices "can't be
 * performed" (CNTOOLKIT-3871), and its MLUEvent waits only on a stream of
 * the event's device. So a cross-device wait is refused, before CNRT sees
 * it, with what to do instead. */
accel_status_t accel_mlu_stream_wait_event(void *self, int device, void *stream, void *event)
{
    accel_mlu_backend_t *mlu = self;
    const accel_mlu_event_t *e = event;
    accel_status_t status;
    if (e->device != device)
        return accel_backend_error(
            ACCEL_ERROR_UNSUPPORTED,
            "mlu: a stream of device %d cannot wait for an event of device %d: CNRT "
            "waits for a notifier only on its own device's queues (CNTOOLKIT-3871); "
            "synchronize the event on the host instead",
            device, e->device);
    if ((status = accel_mlu_activate(mlu, device)) != ACCEL_OK)
        return status;
    return accel_mlu_check(
        mlu->cnrt, mlu->cnrt->cnrtQueueWaitNotifier(e->notifier, accel_mlu_queue(stream), 0),
        "cnrtQueueWaitNotifier");
}

/* ---------------------------------------------------------------- emulated callbacks */

/* The emulation's thread: takes callbacks in the order they were added,
 * waits for each one's notifier, runs it. Stops when asked and the list is
 * empty. */
static void *mlu_callback_main(void *arg)
{
    accel_mlu_backend_t *mlu = arg;
    pthread_mutex_lock(&mlu->callback_lock);
    for (;;) {
        accel_mlu_callback_t *c;
        accel_cnrt_ret_t code = ACCEL_CNRT_SUCCESS;
        uint64_t seq;
        while (mlu->callback_head == NULL && !mlu->callback_stop)
            pthread_cond_wait(&mlu->callback_changed, &mlu->callback_lock);
        if ((c = mlu->callback_head) == NULL)
            break;
        mlu->callback_head = c->next;
        if (mlu->callback_head == NULL)
            mlu->callback_tail = NULL;
        mlu->callback_running_key = c->key;
        mlu->callback_running_device = c->device;
        mlu->callback_running_seq = seq = c->seq;
        pthread_mutex_unlock(&mlu->callback_lock);
        if (accel_mlu_activate(mlu, c->device) == ACCEL_OK)
            code = mlu->cnrt->cnrtWaitNotifier(c->done);
        if (code != ACCEL_CNRT_SUCCESS)
            accel_log(ACCEL_LOG_WARN,
                      "mlu: cnrtWaitNotifier before an emulated host callback "
                      "failed with cnrtRet_t %u; running it anyway",
                      code);
        c->fn(c->user_data);
        if (mlu->cnrt->cnrtNotifierDestroy(c->done) != ACCEL_CNRT_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "mlu: cnrtNotifierDestroy after a host callback failed");
        free(c);
        pthread_mutex_lock(&mlu->callback_lock);
        mlu->callback_running_key = NULL;
        mlu->callback_done = seq;
        pthread_cond_broadcast(&mlu->callback_changed);
    }
    pthread_mutex_unlock(&mlu->callback_lock);
    return NULL;
}

/* A notifier placed on the queue now, and the callback queued behind it. */
static accel_status_t mlu_callback_emulate(accel_mlu_backend_t *mlu, int device, void *stream,
                                           accel_host_fn_t fn, void *user_data)
{
    const accel_mlu_api_t *cnrt = mlu->cnrt;
    accel_mlu_callback_t *c = calloc(1, sizeof *c);
    accel_status_t status = ACCEL_OK;
    if (c == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "mlu: out of host memory for a host callback");
    c->device = device;
    c->key = mlu_callback_key(mlu, device, stream);
    c->fn = fn;
    c->user_data = user_data;
    pthread_mutex_lock(&mlu->callback_lock);
    if (!mlu->callback_running) {
        int error = pthread_create(&mlu->callback_thread, NULL, mlu_callback_main, mlu);
        if (error != 0)
            status =
                accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                                    "mlu: cannot start the host-callback thread (error %d)", error);
        else
            mlu->callback_running = true;
    }
    pthread_mutex_unlock(&mlu->callback_lock);
    if (status == ACCEL_OK)
        status = accel_mlu_check(
            cnrt,
            cnrt->cnrtNotifierCreateWithFlags(&c->done, ACCEL_CNRT_NOTIFIER_DISABLE_TIMING_ALL),
            "cnrtNotifierCreateWithFlags (host callback)");
    if (status != ACCEL_OK) {
        free(c);
        return status;
    }
    status = accel_mlu_check(cnrt, cnrt->cnrtPlaceNotifier(c->done, accel_mlu_queue(stream)),
                             "cnrtPlaceNotifier (host callback)");
    if (status != ACCEL_OK) {
        if (cnrt->cnrtNotifierDestroy(c->done) != ACCEL_CNRT_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "mlu: cnrtNotifierDestroy (host callback) failed");
        free(c);
        return status;
    }
    pthread_mutex_lock(&mlu->callback_lock);
    c->seq = ++mlu->callback_added;
    if (mlu->callback_tail != NULL)
        mlu->callback_tail->next = c;
    else
        mlu->callback_head = c;
    mlu->callback_tail = c;
    pthread_cond_broadcast(&mlu->callback_changed);
    pthread_mutex_unlock(&mlu->callback_lock);
    return ACCEL_OK;
}

accel_status_t accel_mlu_stream_add_callback(void *self, int device, void *stream,
                                             accel_host_fn_t fn, void *user_data)
{
    accel_mlu_backend_t *mlu = self;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status != ACCEL_OK)
        return status;
    /* (no capture is possible then: graphs need cnrtInvokeHostFunc too) */
    if (mlu->cnrt->cnrtInvokeHostFunc == NULL)
        return mlu_callback_emulate(mlu, device, stream, fn, user_data);
    return accel_mlu_check(mlu->cnrt,
                           mlu->cnrt->cnrtInvokeHostFunc(accel_mlu_queue(stream), fn, user_data),
                           "cnrtInvokeHostFunc");
}

void accel_mlu_callbacks_stop(accel_mlu_backend_t *mlu)
{
    bool running;
    pthread_mutex_lock(&mlu->callback_lock);
    running = mlu->callback_running;
    mlu->callback_stop = true;
    mlu->callback_running = false;
    pthread_cond_broadcast(&mlu->callback_changed);
    pthread_mutex_unlock(&mlu->callback_lock);
    /* A forked child has no copy of the thread: nothing to join. */
    if (running && !accel_mlu_forked())
        pthread_join(mlu->callback_thread, NULL);
}

/* ---------------------------------------------------------------- events */

/* Under callback_lock: the seq of the last emulated callback of `key` still
 * queued or running (0: none). */
static uint64_t mlu_callbacks_last(accel_mlu_backend_t *mlu, const void *key)
{
    uint64_t last = 0;
    if (mlu->callback_running_key == key)
        last = mlu->callback_running_seq;
    for (accel_mlu_callback_t *c = mlu->callback_head; c != NULL; c = c->next)
        if (c->key == key)
            last = c->seq;
    return last;
}

/* Whether the emulated callback an event was recorded behind has returned;
 * with `wait`, wait for it first. */
static bool mlu_event_callback_done(accel_mlu_backend_t *mlu, accel_mlu_event_t *e, bool wait)
{
    bool done;
    if (mlu->cnrt->cnrtInvokeHostFunc != NULL)
        return true;
    pthread_mutex_lock(&mlu->callback_lock);
    while (wait && mlu->callback_done < e->callback)
        pthread_cond_wait(&mlu->callback_changed, &mlu->callback_lock);
    done = mlu->callback_done >= e->callback;
    pthread_mutex_unlock(&mlu->callback_lock);
    return done;
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
    event->device = device;
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
    if (mlu->cnrt->cnrtInvokeHostFunc == NULL) {
        pthread_mutex_lock(&mlu->callback_lock);
        callback = mlu_callbacks_last(mlu, mlu_callback_key(mlu, device, stream));
        pthread_mutex_unlock(&mlu->callback_lock);
    }
    status = accel_mlu_check(mlu->cnrt,
                             mlu->cnrt->cnrtPlaceNotifier(e->notifier, accel_mlu_queue(stream)),
                             "cnrtPlaceNotifier");
    if (status == ACCEL_OK) {
        pthread_mutex_lock(&mlu->callback_lock);
        e->callback = callback;
        pthread_mutex_unlock(&mlu->callback_lock);
    }
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
