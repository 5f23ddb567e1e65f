/* stream.c: the hpu backend's streams, events and host callbacks, and the
 * host-side queue that gives Synapse (which has no host callback) CUDA's
 * callback order (hpu_backend.h says how).
 * - A backend stream is an accel_hpu_stream_t around a synStreamHandle; a
 *   slot's NULL stream is the device's default stream, made when the Gaudi
 *   is acquired. Priorities are not passed on (synStreamCreateGeneric's
 *   flags are 0).
 * - A backend event is an accel_hpu_event_t around a synEventHandle, made
 *   with EVENT_COLLECT_TIME for ACCEL_EVENT_TIMING (synEventElapsedTime needs
 *   it on both ends; it answers in nanoseconds).
 * - synStreamWaitEvent wants an event of another stream: waiting on the
 *   stream that recorded the event is already ordered, so nothing is sent.
 * Threads: any thread. The backend's `lock` guards the queues and the
 * events' counters; Synapse submissions are made under it so that direct
 * and deferred submissions keep one order. A worker thread per stream, made
 * when work is first deferred, runs callbacks and submits what follows
 * them; it is marked as the stream's callback thread (accel_callback_thread_mark), and a
 * callback that synchronizes its own stream or device is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/hpu/hpu_backend.h"
#include "accel/accel_backend_utils.h"

/* ---------------------------------------------------------------- submitting */

static void hpu_event_unref(accel_hpu_backend_t *hpu, accel_hpu_event_t *event);

/* Under hpu->lock: hand `item` to Synapse now. Returns the Synapse status
 * and names the call in *what. */
static accel_syn_status_t hpu_item_submit(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream,
                                          accel_hpu_item_t *item, const char **what)
{
    const accel_hpu_api_t *syn = hpu->syn;
    accel_syn_status_t code = ACCEL_SYN_SUCCESS;
    switch (item->kind) {
    case ACCEL_HPU_ITEM_COPY:
        *what = "synMemCopyAsync";
        code = syn->synMemCopyAsync(stream->handle, item->src, item->size, item->dst, item->dir);
        if (code == ACCEL_SYN_SUCCESS && item->staging != NULL) {
            *what = "synEventRecord (after a staged copy)";
            code = syn->synEventRecord(item->staging->copied, stream->handle);
            accel_hpu_staging_queued(hpu, stream, item->staging, code == ACCEL_SYN_SUCCESS);
            item->staging = NULL; /* the deferred-release list, or the runtime, has it */
        }
        break;
    case ACCEL_HPU_ITEM_MEMSET:
        *what = "synMemsetD8Async";
        code = syn->synMemsetD8Async(item->dst, item->value, item->size, stream->handle);
        break;
    case ACCEL_HPU_ITEM_RECORD:
        *what = "synEventRecord";
        code = syn->synEventRecord(item->event->handle, stream->handle);
        item->event->submitted++;
        break;
    case ACCEL_HPU_ITEM_WAIT:
        *what = "synStreamWaitEvent";
        code = syn->synStreamWaitEvent(stream->handle, item->event->handle, 0);
        break;
    case ACCEL_HPU_ITEM_CALLBACK: *what = "a host callback"; break;
    }
    return code;
}

/* Free an item and whatever it still owns. Under hpu->lock. */
static void hpu_item_free(accel_hpu_backend_t *hpu, accel_hpu_item_t *item)
{
    if (item->staging != NULL) /* its copy was never handed to Synapse */
        accel_hpu_staging_free(hpu, item->staging);
    if (item->event != NULL)
        hpu_event_unref(hpu, item->event);
    free(item);
}

static void *hpu_worker_main(void *arg);

accel_status_t accel_hpu_stream_submit(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream,
                                       accel_hpu_item_t *item)
{
    accel_status_t status = ACCEL_OK;
    accel_hpu_stream_t *previous = NULL; /* RECORD: the event's stream before */
    pthread_mutex_lock(&hpu->lock);
    if (item->kind == ACCEL_HPU_ITEM_RECORD) {
        previous = item->event->last_stream;
        item->event->requested++;
        item->event->last_stream = stream;
    }
    if (item->kind == ACCEL_HPU_ITEM_WAIT && item->event->requested == 0) {
        pthread_mutex_unlock(&hpu->lock);
        free(item); /* never recorded: nothing to wait for */
        return ACCEL_OK;
    }
    if (item->kind == ACCEL_HPU_ITEM_WAIT && item->event->last_stream == stream &&
        stream->head == NULL) {
        pthread_mutex_unlock(&hpu->lock);
        free(item); /* recorded on this stream: already in order */
        return ACCEL_OK;
    }
    if (item->kind == ACCEL_HPU_ITEM_WAIT)
        item->target = item->event->requested;
    if (stream->head == NULL && item->kind != ACCEL_HPU_ITEM_CALLBACK &&
        (item->kind != ACCEL_HPU_ITEM_WAIT || item->event->submitted >= item->target)) {
        const char *what = "";
        accel_syn_status_t code = hpu_item_submit(hpu, stream, item, &what);
        if (code != ACCEL_SYN_SUCCESS) {
            if (item->kind == ACCEL_HPU_ITEM_RECORD) {
                item->event->requested--;
                item->event->submitted--;
                item->event->last_stream = previous;
            }
            status = accel_hpu_error(hpu->syn, code, what);
        }
        item->event = NULL; /* no reference was taken */
        hpu_item_free(hpu, item);
        pthread_cond_broadcast(&hpu->changed);
        pthread_mutex_unlock(&hpu->lock);
        return status;
    }
    /* Deferred: behind a callback, or a wait for a record that is itself
     * deferred. */
    if (!stream->worker_running) {
        int error = accel_thread_start(&stream->worker, NULL, hpu_worker_main, stream);
        if (error != 0) {
            if (item->kind == ACCEL_HPU_ITEM_RECORD) {
                item->event->requested--;
                item->event->last_stream = previous;
            }
            item->event = NULL; /* no reference was taken */
            hpu_item_free(hpu, item);
            pthread_mutex_unlock(&hpu->lock);
            return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                                       "hpu: cannot start a stream worker thread (error %d)",
                                       error);
        }
        stream->worker_running = true;
    }
    if (item->event != NULL)
        item->event->refs++;
    item->next = NULL;
    if (stream->tail != NULL)
        stream->tail->next = item;
    else
        stream->head = item;
    stream->tail = item;
    pthread_cond_broadcast(&hpu->changed);
    pthread_mutex_unlock(&hpu->lock);
    return ACCEL_OK;
}

/* Under hpu->lock: remember the first deferred failure of `stream`. */
static void hpu_stream_fail(accel_hpu_stream_t *stream, accel_syn_status_t code, const char *what)
{
    accel_log(ACCEL_LOG_WARN, "hpu: deferred %s on device %d failed with synStatus %u", what,
              stream->device, code);
    if (stream->failed)
        return;
    stream->failed = true;
    stream->fail_code = code;
    snprintf(stream->fail_what, sizeof stream->fail_what, "%s (deferred behind a callback)", what);
}

/* The stream's worker: takes the deferred items in order. A callback runs
 * once Synapse has finished everything submitted before it; a wait first
 * waits for the record it names to be submitted. Items stay at the head
 * while they run, so no other thread submits past them. */
static void *hpu_worker_main(void *arg)
{
    accel_hpu_stream_t *stream = arg;
    accel_hpu_backend_t *hpu = stream->backend;
    accel_callback_thread_mark(hpu, stream->device, stream);
    pthread_mutex_lock(&hpu->lock);
    for (;;) {
        accel_hpu_item_t *item;
        while (stream->head == NULL && !stream->stop)
            pthread_cond_wait(&hpu->changed, &hpu->lock);
        if (stream->head == NULL)
            break;
        item = stream->head;
        if (item->kind == ACCEL_HPU_ITEM_CALLBACK) {
            accel_syn_status_t code;
            pthread_mutex_unlock(&hpu->lock);
            code = hpu->syn->synStreamSynchronize(stream->handle);
            item->fn(item->user_data);
            pthread_mutex_lock(&hpu->lock);
            if (code != ACCEL_SYN_SUCCESS)
                hpu_stream_fail(stream, code, "synStreamSynchronize before a host callback");
        } else {
            const char *what = "";
            accel_syn_status_t code;
            if (item->kind == ACCEL_HPU_ITEM_WAIT) {
                while (item->event->submitted < item->target)
                    pthread_cond_wait(&hpu->changed, &hpu->lock);
                if (item->event->last_stream == stream && item->event->submitted == item->target) {
                    /* recorded on this stream since: already in order */
                    stream->head = item->next;
                    goto done;
                }
            }
            code = hpu_item_submit(hpu, stream, item, &what);
            if (code != ACCEL_SYN_SUCCESS)
                hpu_stream_fail(stream, code, what);
        }
        stream->head = item->next;
    done:
        if (stream->head == NULL)
            stream->tail = NULL;
        hpu_item_free(hpu, item);
        pthread_cond_broadcast(&hpu->changed);
    }
    pthread_mutex_unlock(&hpu->lock);
    return NULL;
}

/* ---------------------------------------------------------------- streams */

accel_status_t accel_hpu_stream_new(accel_hpu_backend_t *hpu, int device, accel_syn_device_id_t id,
                                    accel_hpu_stream_t **out)
{
    accel_hpu_stream_t *stream = calloc(1, sizeof *stream);
    accel_status_t status;
    if (stream == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "hpu: out of host memory for a stream");
    stream->backend = hpu;
    stream->device = device;
    status = accel_hpu_check(hpu->syn, hpu->syn->synStreamCreateGeneric(&stream->handle, id, 0),
                             "synStreamCreateGeneric");
    if (status != ACCEL_OK) {
        free(stream);
        return status;
    }
    pthread_mutex_lock(&hpu->lock);
    stream->next = hpu->streams;
    hpu->streams = stream;
    pthread_mutex_unlock(&hpu->lock);
    *out = stream;
    return ACCEL_OK;
}

accel_status_t accel_hpu_stream_of(accel_hpu_backend_t *hpu, int device, void *stream,
                                   accel_hpu_stream_t **out)
{
    accel_hpu_device_t *dev;
    accel_status_t status = accel_hpu_acquire(hpu, device, &dev);
    if (status == ACCEL_OK)
        *out = stream != NULL ? stream : dev->default_stream;
    return status;
}

accel_status_t accel_hpu_refuse_self_wait(accel_hpu_backend_t *hpu, int device,
                                          const accel_hpu_stream_t *stream)
{
    const void *served = NULL;
    if (!accel_callback_thread_of(hpu, device, &served) || (stream != NULL && served != stream))
        return ACCEL_OK;
    return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "hpu: a host callback cannot wait for the %s it runs on (a "
                               "synchronize, or a copy to pageable or host memory, would wait "
                               "for itself)",
                               stream != NULL ? "stream" : "device");
}

/* The stream's kept deferred failure as the thread's error, cleared. */
static accel_status_t hpu_take_failure(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream)
{
    accel_syn_status_t code;
    char what[sizeof stream->fail_what];
    pthread_mutex_lock(&hpu->lock);
    if (!stream->failed) {
        pthread_mutex_unlock(&hpu->lock);
        return ACCEL_OK;
    }
    stream->failed = false;
    code = stream->fail_code;
    memcpy(what, stream->fail_what, sizeof what);
    pthread_mutex_unlock(&hpu->lock);
    return accel_hpu_error(hpu->syn, code, what);
}

accel_status_t accel_hpu_stream_drain(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream)
{
    accel_status_t status = accel_hpu_refuse_self_wait(hpu, stream->device, stream);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&hpu->lock);
    while (stream->head != NULL)
        pthread_cond_wait(&hpu->changed, &hpu->lock);
    pthread_mutex_unlock(&hpu->lock);
    status = accel_hpu_check(hpu->syn, hpu->syn->synStreamSynchronize(stream->handle),
                             "synStreamSynchronize");
    if (status == ACCEL_OK)
        status = hpu_take_failure(hpu, stream);
    return status;
}

void accel_hpu_stream_free(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream)
{
    accel_syn_status_t code;
    if (stream == NULL)
        return;
    pthread_mutex_lock(&hpu->lock);
    while (stream->head != NULL)
        pthread_cond_wait(&hpu->changed, &hpu->lock);
    stream->stop = true;
    for (accel_hpu_stream_t **link = &hpu->streams; *link != NULL; link = &(*link)->next)
        if (*link == stream) {
            *link = stream->next;
            break;
        }
    pthread_cond_broadcast(&hpu->changed);
    pthread_mutex_unlock(&hpu->lock);
    if (stream->worker_running)
        pthread_join(stream->worker, NULL);
    code = hpu->syn->synStreamSynchronize(stream->handle);
    if (code != ACCEL_SYN_SUCCESS)
        accel_log(ACCEL_LOG_WARN,
                  "hpu: synStreamSynchronize before destroying a stream of device "
                  "%d failed with synStatus %u",
                  stream->device, code);
    code = hpu->syn->synStreamDestroy(stream->handle);
    if (code != ACCEL_SYN_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "hpu: synStreamDestroy on device %d failed with synStatus %u",
                  stream->device, code);
    free(stream);
}

accel_status_t accel_hpu_synchronize(void *self, int device)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_device_t *dev;
    accel_status_t status = accel_hpu_refuse_self_wait(hpu, device, NULL);
    if (status == ACCEL_OK)
        status = accel_hpu_acquire(hpu, device, &dev);
    if (status != ACCEL_OK)
        return status;
    /* Deferred work of every stream of the device first. */
    pthread_mutex_lock(&hpu->lock);
    for (;;) {
        bool deferred = false;
        for (accel_hpu_stream_t *s = hpu->streams; s != NULL && !deferred; s = s->next)
            deferred = s->device == device && s->head != NULL;
        if (!deferred)
            break;
        pthread_cond_wait(&hpu->changed, &hpu->lock);
    }
    pthread_mutex_unlock(&hpu->lock);
    status =
        accel_hpu_check(hpu->syn, hpu->syn->synDeviceSynchronize(dev->id), "synDeviceSynchronize");
    if (status != ACCEL_OK)
        return status;
    /* A deferred failure on any stream of the device is said here once. */
    pthread_mutex_lock(&hpu->lock);
    for (accel_hpu_stream_t *s = hpu->streams; s != NULL; s = s->next)
        if (s->device == device && s->failed) {
            accel_syn_status_t code = s->fail_code;
            char what[sizeof s->fail_what];
            memcpy(what, s->fail_what, sizeof what);
            s->failed = false;
            pthread_mutex_unlock(&hpu->lock);
            return accel_hpu_error(hpu->syn, code, what);
        }
    pthread_mutex_unlock(&hpu->lock);
    return ACCEL_OK;
}

accel_status_t accel_hpu_stream_create(void *self, int device, int priority, void **out)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_device_t *dev;
    accel_hpu_stream_t *stream = NULL;
    accel_status_t status = accel_hpu_acquire(hpu, device, &dev);
    (void)priority;
    if (status == ACCEL_OK)
        status = accel_hpu_stream_new(hpu, device, dev->id, &stream);
    if (status == ACCEL_OK)
        *out = stream;
    return status;
}

/* accel_stream_destroy waits for the stream's work: deferred work and
 * callbacks finish, then the stream is synchronized and destroyed. */
void accel_hpu_stream_destroy(void *self, int device, void *stream)
{
    accel_hpu_backend_t *hpu = self;
    (void)device;
    if (accel_hpu_forked()) {
        free(stream);
        return;
    }
    accel_hpu_stream_free(hpu, stream);
}

accel_status_t accel_hpu_stream_synchronize(void *self, int device, void *stream)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_stream_t *s;
    accel_status_t status = accel_hpu_stream_of(hpu, device, stream, &s);
    if (status == ACCEL_OK)
        status = accel_hpu_stream_drain(hpu, s); /* refuses the stream's own callback */
    return status;
}

accel_status_t accel_hpu_stream_query(void *self, int device, void *stream)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_stream_t *s;
    accel_syn_status_t code;
    bool deferred;
    accel_status_t status = accel_hpu_stream_of(hpu, device, stream, &s);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&hpu->lock);
    deferred = s->head != NULL;
    pthread_mutex_unlock(&hpu->lock);
    if (deferred)
        return ACCEL_ERROR_NOT_READY;
    code = hpu->syn->synStreamQuery(s->handle);
    if (code == ACCEL_SYN_BUSY)
        return ACCEL_ERROR_NOT_READY;
    if (code != ACCEL_SYN_SUCCESS)
        return accel_hpu_error(hpu->syn, code, "synStreamQuery");
    return hpu_take_failure(hpu, s);
}

static accel_hpu_item_t *hpu_item_new(accel_hpu_item_kind_t kind)
{
    accel_hpu_item_t *item = calloc(1, sizeof *item);
    if (item != NULL)
        item->kind = kind;
    else
        accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "hpu: out of host memory for stream work");
    return item;
}

/* synStreamWaitEvent "works on the same device only (not between devices)"
 * (synapse_api.h:72-73), so a wait across Gaudis is refused here, before it
 * is queued, with what to do instead. */
accel_status_t accel_hpu_stream_wait_event(void *self, int device, void *stream, void *event)
{
    accel_hpu_backend_t *hpu = self;
    const accel_hpu_event_t *e = event;
    accel_hpu_stream_t *s;
    accel_hpu_item_t *item;
    accel_status_t status;
    if (e->device != device)
        return accel_backend_error(
            ACCEL_ERROR_UNSUPPORTED,
            "hpu: a stream of device %d cannot wait for an event of device %d: "
            "synStreamWaitEvent works on the same device only (synapse_api.h); "
            "synchronize the event on the host instead",
            device, e->device);
    if ((status = accel_hpu_stream_of(hpu, device, stream, &s)) != ACCEL_OK)
        return status;
    if ((item = hpu_item_new(ACCEL_HPU_ITEM_WAIT)) == NULL)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    item->event = event;
    return accel_hpu_stream_submit(hpu, s, item);
}

accel_status_t accel_hpu_stream_add_callback(void *self, int device, void *stream,
                                             accel_host_fn_t fn, void *user_data)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_stream_t *s;
    accel_hpu_item_t *item;
    accel_status_t status = accel_hpu_stream_of(hpu, device, stream, &s);
    if (status != ACCEL_OK)
        return status;
    if ((item = hpu_item_new(ACCEL_HPU_ITEM_CALLBACK)) == NULL)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    item->fn = fn;
    item->user_data = user_data;
    return accel_hpu_stream_submit(hpu, s, item);
}

/* ---------------------------------------------------------------- events */

/* Under hpu->lock: drop a deferred item's reference; the last one frees an
 * event whose destroy already ran. */
static void hpu_event_unref(accel_hpu_backend_t *hpu, accel_hpu_event_t *event)
{
    if (--event->refs > 0 || !event->destroyed)
        return;
    if (hpu->syn->synEventDestroy(event->handle) != ACCEL_SYN_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "hpu: synEventDestroy (deferred) failed");
    free(event);
}

accel_status_t accel_hpu_event_create(void *self, int device, unsigned flags, void **out)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_device_t *dev;
    accel_hpu_event_t *event;
    bool timing = (flags & ACCEL_EVENT_TIMING) != 0;
    accel_status_t status = accel_hpu_acquire(hpu, device, &dev);
    if (status != ACCEL_OK)
        return status;
    event = calloc(1, sizeof *event);
    if (event == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "hpu: out of host memory for an event");
    event->device = device;
    event->timing = timing;
    status = accel_hpu_check(hpu->syn,
                             hpu->syn->synEventCreate(&event->handle, dev->id,
                                                      timing ? ACCEL_SYN_EVENT_COLLECT_TIME : 0),
                             "synEventCreate");
    if (status != ACCEL_OK) {
        free(event);
        return status;
    }
    *out = event;
    return ACCEL_OK;
}

void accel_hpu_event_destroy(void *self, int device, void *event)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_event_t *e = event;
    (void)device;
    if (accel_hpu_forked()) {
        free(e);
        return;
    }
    pthread_mutex_lock(&hpu->lock);
    e->destroyed = true;
    if (e->refs > 0) {
        pthread_mutex_unlock(&hpu->lock); /* the last deferred item frees it */
        return;
    }
    pthread_mutex_unlock(&hpu->lock);
    if (hpu->syn->synEventDestroy(e->handle) != ACCEL_SYN_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "hpu: synEventDestroy on device %d failed", e->device);
    free(e);
}

accel_status_t accel_hpu_event_record(void *self, int device, void *stream, void *event)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_stream_t *s;
    accel_hpu_item_t *item;
    accel_status_t status = accel_hpu_stream_of(hpu, device, stream, &s);
    if (status != ACCEL_OK)
        return status;
    if ((item = hpu_item_new(ACCEL_HPU_ITEM_RECORD)) == NULL)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    item->event = event;
    return accel_hpu_stream_submit(hpu, s, item);
}

/* Under no lock: wait until every record asked of `event` is in Synapse's
 * hands; false when it was never recorded. */
static bool hpu_event_wait_submitted(accel_hpu_backend_t *hpu, accel_hpu_event_t *event)
{
    bool recorded;
    pthread_mutex_lock(&hpu->lock);
    while (event->submitted < event->requested)
        pthread_cond_wait(&hpu->changed, &hpu->lock);
    recorded = event->requested > 0;
    pthread_mutex_unlock(&hpu->lock);
    return recorded;
}

/* True while a record of `event` is still deferred. */
static bool hpu_event_deferred(accel_hpu_backend_t *hpu, accel_hpu_event_t *event, bool *recorded)
{
    bool deferred;
    pthread_mutex_lock(&hpu->lock);
    deferred = event->submitted < event->requested;
    *recorded = event->requested > 0;
    pthread_mutex_unlock(&hpu->lock);
    return deferred;
}

accel_status_t accel_hpu_event_synchronize(void *self, int device, void *event)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_event_t *e = event;
    (void)device;
    if (accel_hpu_forked())
        return accel_hpu_fork_error();
    if (!hpu_event_wait_submitted(hpu, e))
        return ACCEL_OK; /* never recorded: nothing to wait for */
    return accel_hpu_check(hpu->syn, hpu->syn->synEventSynchronize(e->handle),
                           "synEventSynchronize");
}

accel_status_t accel_hpu_event_query(void *self, int device, void *event)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_event_t *e = event;
    accel_syn_status_t code;
    bool recorded;
    (void)device;
    if (accel_hpu_forked())
        return accel_hpu_fork_error();
    if (hpu_event_deferred(hpu, e, &recorded))
        return ACCEL_ERROR_NOT_READY;
    if (!recorded)
        return ACCEL_OK;
    code = hpu->syn->synEventQuery(e->handle);
    if (code == ACCEL_SYN_BUSY)
        return ACCEL_ERROR_NOT_READY;
    return accel_hpu_check(hpu->syn, code, "synEventQuery");
}

/* synEventElapsedTime answers in nanoseconds; synBusy while either event
 * is still pending. */
accel_status_t accel_hpu_event_elapsed_ms(void *self, int device, void *start, void *end,
                                          float *out)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_event_t *a = start, *b = end;
    uint64_t ns = 0;
    accel_syn_status_t code;
    bool recorded_a, recorded_b;
    (void)device;
    if (accel_hpu_forked())
        return accel_hpu_fork_error();
    if (hpu_event_deferred(hpu, a, &recorded_a) || hpu_event_deferred(hpu, b, &recorded_b))
        return ACCEL_ERROR_NOT_READY;
    if (!recorded_a || !recorded_b)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "hpu: elapsed time needs both events recorded");
    code = hpu->syn->synEventElapsedTime(&ns, a->handle, b->handle);
    if (code == ACCEL_SYN_BUSY)
        return ACCEL_ERROR_NOT_READY;
    if (code != ACCEL_SYN_SUCCESS)
        return accel_hpu_error(hpu->syn, code, "synEventElapsedTime");
    *out = (float)((double)ns / 1e6);
    return ACCEL_OK;
}

accel_status_t accel_hpu_native_stream(void *self, int device, void *stream, void **out)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_stream_t *target;
    bool deferred;
    accel_status_t status = accel_hpu_stream_of(hpu, device, stream, &target);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&hpu->lock);
    deferred = target->head != NULL;
    pthread_mutex_unlock(&hpu->lock);
    if (deferred) {
        status = accel_hpu_refuse_self_wait(hpu, device, target);
        if (status != ACCEL_OK)
            return status;
        pthread_mutex_lock(&hpu->lock);
        while (target->head != NULL)
            pthread_cond_wait(&hpu->changed, &hpu->lock);
        pthread_mutex_unlock(&hpu->lock);
    }
    *out = (void *)target->handle;
    return ACCEL_OK;
}
