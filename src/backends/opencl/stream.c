/* stream.c: the OpenCL backend's streams (in-order profiling queues), events
 * (markers), cross-stream waits (barriers) and host callbacks.
 * Threads: every slot is thread-safe. An event's lock guards only its marker
 * pointer; callers take a reference (clRetainEvent) under it and work outside
 * it. Host callbacks run on a short-lived thread of ours, started from the
 * ICD's notification thread, so a blocking callback never stalls the ICD.
 * A callback that synchronizes its own stream or device gets an error
 * instead of waiting for itself for ever. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/opencl_backend.h"

typedef struct accel_opencl_event {
    pthread_mutex_t lock;
    int device;
    bool timing;
    accel_cl_event marker; /* the newest record; NULL until recorded */
} accel_opencl_event_t;

/* ---------------------------------------------------------------- queues */

accel_status_t accel_opencl_queue_create(accel_opencl_backend_t *cl, accel_opencl_device_t *dev,
                                         accel_cl_command_queue *out)
{
    ACCEL_OPENCL_FORK_GUARD();
    const accel_cl_api_t *api = cl->api;
    accel_cl_int err = ACCEL_CL_SUCCESS;
    accel_cl_command_queue queue;
    bool modern = dev->platform_major >= 2 && dev->version_major >= 2 &&
                  api->clCreateCommandQueueWithProperties != NULL;
    if (modern) {
        const accel_cl_queue_properties props[] = {ACCEL_CL_QUEUE_PROPERTIES,
                                                   ACCEL_CL_QUEUE_PROFILING_ENABLE, 0};
        queue = api->clCreateCommandQueueWithProperties(dev->context, dev->id, props, &err);
    } else {
        queue =
            api->clCreateCommandQueue(dev->context, dev->id, ACCEL_CL_QUEUE_PROFILING_ENABLE, &err);
    }
    if (err != ACCEL_CL_SUCCESS)
        return accel_opencl_fail(
            modern ? "clCreateCommandQueueWithProperties" : "clCreateCommandQueue", err);
    *out = queue;
    return ACCEL_OK;
}

accel_status_t accel_opencl_queue_init(accel_opencl_backend_t *cl, accel_opencl_device_t *dev,
                                       accel_opencl_queue_t *out)
{
    accel_status_t status = accel_opencl_queue_create(cl, dev, &out->handle);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_init(&out->lock, NULL);
    out->tail = NULL;
    return ACCEL_OK;
}

void accel_opencl_queue_release(accel_opencl_backend_t *cl, accel_opencl_queue_t *queue)
{
    ACCEL_OPENCL_FORK_GUARD_VOID();
    if (queue->handle == NULL)
        return;
    cl->api->clFinish(queue->handle);
    if (queue->tail != NULL)
        cl->api->clReleaseEvent(queue->tail);
    cl->api->clReleaseCommandQueue(queue->handle);
    pthread_mutex_destroy(&queue->lock);
    queue->handle = NULL;
    queue->tail = NULL;
}

accel_opencl_queue_t *accel_opencl_queue_of(accel_opencl_backend_t *cl, int device, void *stream)
{
    if (stream == NULL)
        return &cl->devices[device].default_queue;
    return &((accel_opencl_stream_t *)stream)->queue;
}

accel_status_t accel_opencl_queue_commit(accel_opencl_backend_t *cl, accel_opencl_queue_t *queue,
                                         accel_cl_int err, accel_cl_event event, bool wait,
                                         const char *call)
{
    const accel_cl_api_t *api = cl->api;
    accel_cl_event old;
    if (err != ACCEL_CL_SUCCESS) {
        pthread_mutex_unlock(&queue->lock);
        return accel_opencl_fail(call, err);
    }
    old = queue->tail;
    queue->tail = event;
    if (wait)
        api->clRetainEvent(event);
    pthread_mutex_unlock(&queue->lock);
    if (old != NULL)
        api->clReleaseEvent(old);
    err = api->clFlush(queue->handle);
    if (err != ACCEL_CL_SUCCESS) {
        call = "clFlush";
    } else if (wait) {
        call = "clWaitForEvents";
        err = api->clWaitForEvents(1, &event);
    }
    if (wait)
        api->clReleaseEvent(event);
    return err == ACCEL_CL_SUCCESS ? ACCEL_OK : accel_opencl_fail(call, err);
}

/* ---------------------------------------------------------------- streams */

/* OpenCL 1.2 queues have no priorities (cl_khr_priority_hints is not
 * used): the priority is accepted and ignored. */
accel_status_t accel_opencl_stream_create(void *self, int device, int priority, void **out)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_opencl_stream_t *stream = calloc(1, sizeof *stream);
    accel_status_t status;
    if (stream == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "opencl: out of host memory");
    status = accel_opencl_queue_init(cl, &cl->devices[device], &stream->queue);
    if (status != ACCEL_OK) {
        free(stream);
        return status;
    }
    stream->device = device;
    pthread_mutex_lock(&cl->streams_lock);
    stream->next_live = cl->streams;
    cl->streams = stream;
    pthread_mutex_unlock(&cl->streams_lock);
    *out = stream;
    return ACCEL_OK;
}

void accel_opencl_stream_destroy(void *self, int device, void *handle)
{
    ACCEL_OPENCL_FORK_GUARD_VOID();
    accel_opencl_backend_t *cl = self;
    accel_opencl_stream_t *stream = handle, **link;
    pthread_mutex_lock(&cl->streams_lock);
    for (link = &cl->streams; *link != NULL; link = &(*link)->next_live) {
        if (*link == stream) {
            *link = stream->next_live;
            break;
        }
    }
    pthread_mutex_unlock(&cl->streams_lock);
    accel_opencl_queue_release(cl, &stream->queue);
    free(stream);
}

accel_status_t accel_opencl_stream_synchronize(void *self, int device, void *stream)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_opencl_queue_t *queue = accel_opencl_queue_of(cl, device, stream);
    if (accel_opencl_in_callback_of(cl, device, queue))
        return accel_opencl_callback_wait_refused("synchronizing the callback's own stream");
    accel_cl_int err = cl->api->clFinish(queue->handle);
    return err == ACCEL_CL_SUCCESS ? ACCEL_OK : accel_opencl_fail("clFinish", err);
}

static accel_status_t event_status(const accel_cl_api_t *api, accel_cl_event event)
{
    accel_cl_int state = 0;
    accel_cl_int err = api->clGetEventInfo(event, ACCEL_CL_EVENT_COMMAND_EXECUTION_STATUS,
                                           sizeof state, &state, NULL);
    if (err != ACCEL_CL_SUCCESS)
        return accel_opencl_fail("clGetEventInfo", err);
    if (state < 0)
        return accel_backend_vendor_error(state, "opencl: queued work failed: %s (%d)",
                                          accel_opencl_error_name(state), (int)state);
    return state == ACCEL_CL_COMPLETE ? ACCEL_OK : ACCEL_ERROR_NOT_READY;
}

/* The tail completes last in an in-order queue. */
accel_status_t accel_opencl_stream_query(void *self, int device, void *stream)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_opencl_queue_t *queue = accel_opencl_queue_of(cl, device, stream);
    accel_cl_event tail;
    accel_status_t status = ACCEL_OK;
    pthread_mutex_lock(&queue->lock);
    tail = queue->tail;
    if (tail != NULL)
        cl->api->clRetainEvent(tail);
    pthread_mutex_unlock(&queue->lock);
    if (tail != NULL) {
        status = event_status(cl->api, tail);
        cl->api->clReleaseEvent(tail);
    }
    return status;
}

/* Every queue of `device` (its default queue first, once the device has
 * been initialised and has one), each retained. */
static accel_status_t device_queues(accel_opencl_backend_t *cl, int device,
                                    accel_cl_command_queue **out, size_t *out_count)
{
    size_t count = 1, n = 0;
    accel_cl_command_queue *queues;
    pthread_mutex_lock(&cl->streams_lock);
    for (accel_opencl_stream_t *s = cl->streams; s != NULL; s = s->next_live)
        count += s->device == device;
    queues = malloc(count * sizeof *queues);
    if (queues != NULL) {
        if (cl->devices[device].default_queue.handle != NULL)
            queues[n++] = cl->devices[device].default_queue.handle;
        for (accel_opencl_stream_t *s = cl->streams; s != NULL; s = s->next_live) {
            if (s->device == device)
                queues[n++] = s->queue.handle;
        }
        for (size_t i = 0; i < n; i++)
            cl->api->clRetainCommandQueue(queues[i]);
    }
    pthread_mutex_unlock(&cl->streams_lock);
    if (queues == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "opencl: out of host memory");
    *out = queues;
    *out_count = n;
    return ACCEL_OK;
}

accel_status_t accel_opencl_device_synchronize(void *self, int device)
{
    ACCEL_OPENCL_FORK_GUARD();
    if (accel_callback_thread_of(self, device, NULL))
        return accel_opencl_callback_wait_refused("synchronizing the device");
    accel_opencl_backend_t *cl = self;
    accel_cl_command_queue *queues = NULL;
    size_t count = 0;
    accel_cl_int first_err = ACCEL_CL_SUCCESS;
    accel_status_t status = device_queues(cl, device, &queues, &count);
    if (status != ACCEL_OK)
        return status;
    for (size_t i = 0; i < count; i++) {
        accel_cl_int err = cl->api->clFinish(queues[i]);
        if (first_err == ACCEL_CL_SUCCESS)
            first_err = err;
        cl->api->clReleaseCommandQueue(queues[i]);
    }
    free(queues);
    return first_err == ACCEL_CL_SUCCESS ? ACCEL_OK : accel_opencl_fail("clFinish", first_err);
}

/* ---------------------------------------------------------------- host callbacks */

typedef struct callback_job {
    accel_opencl_backend_t *cl; /* for the mark only: it may be gone once `gate` is set */
    accel_host_fn_t fn;
    void *user_data;
    accel_cl_event gate; /* user event later queue work waits on */
    const void *stream;  /* the slot's stream handle (NULL: the default queue) */
    int device;
} callback_job_t;

/* The host callback a thread runs carries the kit's mark: work queued on its
 * queue after it waits for it to return, so waiting for that queue (or its
 * whole device) from inside the callback would never end. */
bool accel_opencl_in_callback_of(accel_opencl_backend_t *cl, int device,
                                 const accel_opencl_queue_t *queue)
{
    const void *own = NULL;
    return accel_callback_thread_of(cl, device, &own) &&
           accel_opencl_queue_of(cl, device, (void *)own) == queue;
}

accel_status_t accel_opencl_callback_wait_refused(const char *what)
{
    return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "opencl: %s from inside a host callback would wait for the "
                               "callback itself and never return; do it outside the callback",
                               what);
}

static void *callback_run(void *arg)
{
    callback_job_t *job = arg;
    /* Read before the gate opens: the backend may be destroyed right after. */
    const accel_cl_api_t *api = job->cl->api;
    accel_callback_thread_mark(job->cl, job->device, job->stream);
    job->fn(job->user_data);
    accel_callback_thread_clear();
    api->clSetUserEventStatus(job->gate, ACCEL_CL_COMPLETE);
    api->clReleaseEvent(job->gate);
    free(job);
    return NULL;
}

/* On the ICD's thread (or inline, if the marker had already completed):
 * hand the job to a thread of ours. */
static void callback_fired(accel_cl_event marker, accel_cl_int status, void *arg)
{
    pthread_t thread;
    pthread_attr_t attr;
    bool started;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    started = accel_thread_start(&thread, &attr, callback_run, arg) == 0;
    pthread_attr_destroy(&attr);
    if (!started) {
        accel_log(ACCEL_LOG_WARN, "opencl: no thread for a host callback; running it on the "
                                  "OpenCL notification thread");
        callback_run(arg);
    }
}

/* marker -> (callback runs fn, then completes gate); barrier on gate, so
 * work queued after the callback waits until fn has returned. */
accel_status_t accel_opencl_stream_add_callback(void *self, int device, void *stream,
                                                accel_host_fn_t fn, void *user_data)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    const accel_cl_api_t *api = cl->api;
    accel_opencl_queue_t *queue = accel_opencl_queue_of(cl, device, stream);
    accel_cl_event marker = NULL, barrier = NULL, gate;
    accel_cl_int err = ACCEL_CL_SUCCESS;
    const char *call = "clEnqueueMarkerWithWaitList";
    callback_job_t *job = malloc(sizeof *job);

    if (job == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "opencl: out of host memory");
    gate = api->clCreateUserEvent(cl->devices[device].context, &err);
    if (err != ACCEL_CL_SUCCESS) {
        free(job);
        return accel_opencl_fail("clCreateUserEvent", err);
    }
    *job = (callback_job_t){.cl = cl,
                            .fn = fn,
                            .user_data = user_data,
                            .gate = gate,
                            .stream = stream,
                            .device = device};
    api->clRetainEvent(gate); /* ours, for the barrier below */
    pthread_mutex_lock(&queue->lock);
    err = api->clEnqueueMarkerWithWaitList(queue->handle, 0, NULL, &marker);
    if (err == ACCEL_CL_SUCCESS) {
        call = "clSetEventCallback";
        /* From here the job owns `gate`: the callback fires exactly once. */
        err = api->clSetEventCallback(marker, ACCEL_CL_COMPLETE, callback_fired, job);
        if (err != ACCEL_CL_SUCCESS)
            api->clSetUserEventStatus(gate, ACCEL_CL_COMPLETE);
        api->clReleaseEvent(marker);
    }
    if (err != ACCEL_CL_SUCCESS) {
        pthread_mutex_unlock(&queue->lock);
        api->clReleaseEvent(gate);
        api->clReleaseEvent(gate);
        free(job);
        return accel_opencl_fail(call, err);
    }
    err = api->clEnqueueBarrierWithWaitList(queue->handle, 1, &gate, &barrier);
    api->clReleaseEvent(gate);
    return accel_opencl_queue_commit(cl, queue, err, barrier, false,
                                     "clEnqueueBarrierWithWaitList");
}

/* ---------------------------------------------------------------- events */

accel_status_t accel_opencl_event_create(void *self, int device, unsigned flags, void **out)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_event_t *event = calloc(1, sizeof *event);
    if (event == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "opencl: out of host memory");
    pthread_mutex_init(&event->lock, NULL);
    event->device = device;
    event->timing = (flags & ACCEL_EVENT_TIMING) != 0;
    *out = event;
    return ACCEL_OK;
}

void accel_opencl_event_destroy(void *self, int device, void *handle)
{
    ACCEL_OPENCL_FORK_GUARD_VOID();
    accel_opencl_backend_t *cl = self;
    accel_opencl_event_t *event = handle;
    if (event->marker != NULL)
        cl->api->clReleaseEvent(event->marker);
    pthread_mutex_destroy(&event->lock);
    free(event);
}

/* The newest record, retained for the caller (NULL if never recorded). */
static accel_cl_event event_acquire(accel_opencl_backend_t *cl, accel_opencl_event_t *event)
{
    accel_cl_event marker;
    pthread_mutex_lock(&event->lock);
    marker = event->marker;
    if (marker != NULL)
        cl->api->clRetainEvent(marker);
    pthread_mutex_unlock(&event->lock);
    return marker;
}

/* The point a record stands for, retained: a new marker for timing events
 * (its CL_PROFILING_COMMAND_END is the timestamp); otherwise the queue's tail
 * itself, which completes exactly when everything queued so far has, and
 * NULL (already complete) on a queue that never ran anything. Reusing the
 * tail keeps a record on an idle queue complete at once, as in CUDA. */
static accel_status_t event_point(accel_opencl_backend_t *cl, accel_opencl_queue_t *queue,
                                  bool timing, accel_cl_event *out)
{
    accel_cl_event marker = NULL;
    accel_status_t status;
    accel_cl_int err;
    pthread_mutex_lock(&queue->lock);
    if (!timing) {
        *out = queue->tail;
        if (*out != NULL)
            cl->api->clRetainEvent(*out);
        pthread_mutex_unlock(&queue->lock);
        return ACCEL_OK;
    }
    err = cl->api->clEnqueueMarkerWithWaitList(queue->handle, 0, NULL, &marker);
    if (err == ACCEL_CL_SUCCESS)
        cl->api->clRetainEvent(marker); /* one reference for the tail, one for the event */
    status =
        accel_opencl_queue_commit(cl, queue, err, marker, false, "clEnqueueMarkerWithWaitList");
    if (status == ACCEL_OK)
        *out = marker;
    else if (err == ACCEL_CL_SUCCESS)
        cl->api->clReleaseEvent(marker); /* the flush failed: drop the event's reference */
    return status;
}

/* Re-recording replaces the held point; the old one is released. */
accel_status_t accel_opencl_event_record(void *self, int device, void *stream, void *handle)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_opencl_event_t *event = handle;
    accel_cl_event marker = NULL, old;
    accel_status_t status =
        event_point(cl, accel_opencl_queue_of(cl, device, stream), event->timing, &marker);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&event->lock);
    old = event->marker;
    event->marker = marker;
    pthread_mutex_unlock(&event->lock);
    if (old != NULL)
        cl->api->clReleaseEvent(old);
    return ACCEL_OK;
}

accel_status_t accel_opencl_event_synchronize(void *self, int device, void *handle)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_cl_event marker = event_acquire(cl, handle);
    accel_cl_int err;
    if (marker == NULL)
        return ACCEL_OK;
    err = cl->api->clWaitForEvents(1, &marker);
    cl->api->clReleaseEvent(marker);
    return err == ACCEL_CL_SUCCESS ? ACCEL_OK : accel_opencl_fail("clWaitForEvents", err);
}

accel_status_t accel_opencl_event_query(void *self, int device, void *handle)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_cl_event marker = event_acquire(cl, handle);
    accel_status_t status;
    if (marker == NULL)
        return ACCEL_OK;
    status = event_status(cl->api, marker);
    cl->api->clReleaseEvent(marker);
    return status;
}

/* Completion time of a record: CL_PROFILING_COMMAND_END of its marker. */
static accel_status_t event_end_ns(const accel_cl_api_t *api, accel_cl_event marker,
                                   accel_cl_ulong *out)
{
    accel_status_t status = event_status(api, marker);
    accel_cl_int err;
    if (status == ACCEL_ERROR_NOT_READY)
        return accel_backend_error(status, "opencl: event has not completed yet");
    if (status != ACCEL_OK)
        return status;
    err = api->clGetEventProfilingInfo(marker, ACCEL_CL_PROFILING_COMMAND_END, sizeof *out, out,
                                       NULL);
    return err == ACCEL_CL_SUCCESS ? ACCEL_OK : accel_opencl_fail("clGetEventProfilingInfo", err);
}

accel_status_t accel_opencl_event_elapsed_ms(void *self, int device, void *start, void *end,
                                             float *out)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_cl_event a = event_acquire(cl, start), b = event_acquire(cl, end);
    accel_cl_ulong t0 = 0, t1 = 0;
    accel_status_t status = ACCEL_OK;
    if (a == NULL || b == NULL)
        status = accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                     "opencl: elapsed time needs two recorded events");
    if (status == ACCEL_OK)
        status = event_end_ns(cl->api, a, &t0);
    if (status == ACCEL_OK)
        status = event_end_ns(cl->api, b, &t1);
    if (a != NULL)
        cl->api->clReleaseEvent(a);
    if (b != NULL)
        cl->api->clReleaseEvent(b);
    if (status == ACCEL_OK)
        *out = (float)(((double)t1 - (double)t0) / 1e6);
    return status;
}

/* ---------------------------------------------------------------- waits */

/* Completes the bridge user event (the argument) when the foreign marker
 * completes, passing an error status on. The loader is loaded by then. */
static void bridge_fired(accel_cl_event marker, accel_cl_int status, void *arg)
{
    const accel_cl_api_t *api = accel_opencl_api(NULL, 0);
    accel_cl_event bridge = arg;
    api->clSetUserEventStatus(bridge, status < 0 ? status : ACCEL_CL_COMPLETE);
    api->clReleaseEvent(bridge);
}

/* A marker of another device lives in another context, which a barrier
 * cannot name: bridge it with a user event of this context. Caller holds
 * queue->lock; *out_barrier gets the barrier's event. */
static accel_cl_int wait_foreign(accel_opencl_backend_t *cl, int device,
                                 accel_opencl_queue_t *queue, accel_cl_event marker,
                                 accel_cl_event *out_barrier)
{
    const accel_cl_api_t *api = cl->api;
    accel_cl_int err = ACCEL_CL_SUCCESS;
    accel_cl_event bridge = api->clCreateUserEvent(cl->devices[device].context, &err);
    if (err != ACCEL_CL_SUCCESS)
        return err;
    api->clRetainEvent(bridge); /* ours, for the barrier below */
    err = api->clSetEventCallback(marker, ACCEL_CL_COMPLETE, bridge_fired, bridge);
    if (err != ACCEL_CL_SUCCESS) {
        api->clReleaseEvent(bridge);
        api->clReleaseEvent(bridge);
        return err;
    }
    /* The callback owns the creation reference and completes the bridge,
     * before or after the barrier names it; both orders are correct. */
    err = api->clEnqueueBarrierWithWaitList(queue->handle, 1, &bridge, out_barrier);
    api->clReleaseEvent(bridge);
    return err;
}

/* Waiting for a never-recorded event does nothing (as in CUDA). */
accel_status_t accel_opencl_stream_wait_event(void *self, int device, void *stream, void *handle)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_opencl_event_t *event = handle;
    accel_opencl_queue_t *queue = accel_opencl_queue_of(cl, device, stream);
    accel_cl_event marker = event_acquire(cl, event), barrier = NULL;
    accel_cl_int err;
    accel_status_t status;
    if (marker == NULL)
        return ACCEL_OK;
    pthread_mutex_lock(&queue->lock);
    if (event->device != device)
        err = wait_foreign(cl, device, queue, marker, &barrier);
    else
        err = cl->api->clEnqueueBarrierWithWaitList(queue->handle, 1, &marker, &barrier);
    status =
        accel_opencl_queue_commit(cl, queue, err, barrier, false, "clEnqueueBarrierWithWaitList");
    cl->api->clReleaseEvent(marker);
    return status;
}
