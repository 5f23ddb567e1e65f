/* acl_sim_stream.c: the simulated ACL runtime's streams, copies, events and
 * host callbacks. Each stream (a device's default stream too) is a worker
 * thread running its queue in order, so work really is asynchronous and a
 * binding that forgets to wait or to order streams reads stale data; with
 * ACCEL_SIM_STREAM_DELAY_US each task starts that much later, to widen such
 * windows. Events carry a record count and a CLOCK_MONOTONIC time.
 * Callbacks follow ACL's protocol: aclrtSubscribeReport(thread, stream)
 * names the thread that will run the stream's callbacks; when the stream
 * reaches an aclrtLaunchCallback, the callback is queued for that thread,
 * which runs it inside aclrtProcessReport(timeout); with ACL_CALLBACK_BLOCK
 * the stream waits for it to finish.
 * Everything shared is guarded by sim_lock (acl_sim_internal.h); the queue
 * and its worker loop are tests/sim/common/sim_queue.h's. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl_sim_internal.h"
#include "sim_event.h"
#include "sim_stream.h"

typedef enum sim_task_kind {
    SIM_COPY,
    SIM_FILL,
    SIM_RECORD,
    SIM_WAIT,
    SIM_CALLBACK
} sim_task_kind_t;

typedef struct sim_event {
    sim_handle_t handle; /* first: in sim_events while not destroyed */
    unsigned flags;
    int device;
    sim_event_marks_t marks; /* records, and the queued tasks naming it */
} sim_event_t;

typedef struct sim_report {
    aclrtCallback fn;
    void *user_data;
    uint64_t thread_id;
    bool block;       /* the stream waits for `done`, then frees the report */
    bool taken, done; /* without block, the thread that runs it frees it */
    struct sim_report *next;
} sim_report_t;

typedef struct sim_task {
    sim_queue_task_t node; /* first: the queue holds tasks by it */
    sim_task_kind_t kind;
    void *dst;
    const void *src;
    size_t size;
    int value;
    sim_event_t *event;
    unsigned long generation;
    aclrtCallback fn;
    void *user_data;
    bool block;
    uint64_t thread_id;
} sim_task_t;
_Static_assert(offsetof(sim_task_t, node) == 0, "a queued node is its task");

/* aclrtDestroyStream ends the core (sim_stream.h: waits, joins the
 * worker), then frees the stream. */
struct sim_stream {
    sim_stream_core_t core; /* first: the stream is its handle */
    bool subscribed;
    uint64_t subscriber;
};

static sim_report_t *sim_reports; /* callbacks waiting for a thread */
static sim_handles_t sim_events;  /* every event not destroyed */

/* ---------------------------------------------------------------- workers */

/* Runs one task; called with sim_lock held, may drop it while waiting. */
static void sim_run(sim_queue_t *queue, sim_queue_task_t *node)
{
    sim_task_t *task = (sim_task_t *)node;
    (void)queue;
    switch (task->kind) {
    case SIM_COPY: sim_queue_memmove(&sim_lock, task->dst, task->src, task->size); break;
    case SIM_FILL: sim_queue_memset(&sim_lock, task->dst, task->value, task->size); break;
    case SIM_RECORD: sim_event_reach(&task->event->marks, task->generation); break;
    case SIM_WAIT: sim_event_wait(&task->event->marks, task->generation); break;
    case SIM_CALLBACK: {
        sim_report_t *report = calloc(1, sizeof *report);
        if (report == NULL)
            abort(); /* a test harness: no way to report this to the caller */
        report->fn = task->fn;
        report->user_data = task->user_data;
        report->thread_id = task->thread_id;
        report->block = task->block;
        report->next = sim_reports;
        sim_reports = report;
        pthread_cond_broadcast(&sim_changed);
        if (task->block) {
            while (!report->done)
                pthread_cond_wait(&sim_changed, &sim_lock);
            free(report);
        }
        break;
    }
    }
}

/* Under sim_lock: frees a run task, and its event when destroyed and unnamed. */
static void sim_retire(sim_queue_task_t *node)
{
    sim_task_t *task = (sim_task_t *)node;
    if (task->event != NULL && sim_event_release_task(&task->event->marks))
        free(task->event);
    free(task);
}

static const sim_queue_ops_t sim_queue_ops = {sim_run, sim_retire};
static sim_streams_t sim_streams = {.ops = &sim_queue_ops}; /* every live stream */

sim_stream_t *sim_default_stream(int device)
{
    return (sim_stream_t *)sim_streams_default(&sim_streams, sizeof(sim_stream_t), device);
}

sim_stream_t *sim_stream_resolve(aclrtStream handle, aclError *code, const char *function)
{
    sim_stream_t *found = NULL;
    if ((*code = sim_need_device(function)) != ACL_SUCCESS)
        return NULL;
    if (handle == NULL) {
        found = sim_default_stream(sim_current_device());
        if (found == NULL)
            *code = sim_error(ACL_ERROR_BAD_ALLOC, "%s: no default stream", function);
        return found;
    }
    found = (sim_stream_t *)sim_streams_find(&sim_streams, handle);
    if (found == NULL)
        *code =
            sim_error(ACL_ERROR_RT_PARAM_INVALID, "%s: %p is not a live stream", function, handle);
    return found;
}

/* A resolved stream that also belongs to the thread's current device (ACL
 * refuses work on another device's stream). */
static sim_stream_t *sim_stream_for_work(aclrtStream handle, aclError *code, const char *function)
{
    sim_stream_t *stream = sim_stream_resolve(handle, code, function);
    if (stream != NULL && stream->core.device != sim_current_device()) {
        *code = sim_error(ACL_ERROR_RT_STREAM_CONTEXT,
                          "%s: the stream belongs to device %d but the thread's device is %d",
                          function, stream->core.device, sim_current_device());
        return NULL;
    }
    return stream;
}

/* Queue `task` (malloc'ed, filled) on `stream`. Under sim_lock. */
static void sim_enqueue(sim_stream_t *stream, sim_task_t *task)
{
    sim_queue_push(&stream->core.queue, &task->node, &sim_changed);
}

static aclError sim_submit(sim_stream_t *stream, const sim_task_t *proto, const char *function)
{
    if (!sim_stream_submit(&stream->core, proto, sizeof *proto))
        return sim_error(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", function);
    return ACL_SUCCESS;
}

void sim_streams_drain(int device)
{
    sim_stream_drain_device(&sim_streams, device);
}

/* ---------------------------------------------------------------- streams */

SIM_API aclError aclrtCreateStream(aclrtStream *stream)
{
    aclError code;
    sim_stream_t *created;
    SIM_ENTER("aclrtCreateStream");
    if ((code = sim_need_device("aclrtCreateStream")) != ACL_SUCCESS)
        return code;
    if (stream == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is NULL");
    created = (sim_stream_t *)sim_stream_create(&sim_streams, sizeof *created, sim_current_device(),
                                                false);
    if (created == NULL)
        return sim_error(ACL_ERROR_BAD_ALLOC, "aclrtCreateStream: no worker thread");
    *stream = created;
    return ACL_SUCCESS;
}

/* Waits for the stream's work, then ends its worker. */
SIM_API aclError aclrtDestroyStream(aclrtStream handle)
{
    aclError code;
    sim_stream_t *stream;
    SIM_ENTER("aclrtDestroyStream");
    if (handle == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: stream is NULL");
    if ((stream = sim_stream_for_work(handle, &code, "aclrtDestroyStream")) == NULL)
        return code;
    sim_stream_end(&stream->core);
    free(stream);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtSynchronizeStream(aclrtStream handle)
{
    aclError code;
    sim_stream_t *stream;
    SIM_ENTER("aclrtSynchronizeStream");
    if ((stream = sim_stream_resolve(handle, &code, "aclrtSynchronizeStream")) == NULL)
        return code;
    sim_stream_wait(&stream->core);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtStreamQuery(aclrtStream handle, aclrtStreamStatus *status)
{
    aclError code;
    sim_stream_t *stream;
    SIM_ENTER("aclrtStreamQuery");
    if (status == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: status is NULL");
    if ((stream = sim_stream_resolve(handle, &code, "aclrtStreamQuery")) == NULL)
        return code;
    pthread_mutex_lock(&sim_lock);
    *status = sim_queue_idle(&stream->core.queue) ? ACL_STREAM_STATUS_COMPLETE
                                                  : ACL_STREAM_STATUS_NOT_READY;
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

/* ---------------------------------------------------------------- copies and fills */

/* The kind must say where each side really is: device memory for a device
 * side (inside one aclrtMalloc block), anything else for a host side. */
static aclError sim_check_copy(void *dst, size_t destMax, const void *src, size_t count,
                               aclrtMemcpyKind kind, const char *function)
{
    bool dst_device, src_device, want_dst, want_src;
    if (dst == NULL || src == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "%s: dst or src is NULL", function);
    if (count > destMax)
        return sim_error(ACL_ERROR_INVALID_PARAM, "%s: count %zu exceeds destMax %zu", function,
                         count, destMax);
    switch ((int)kind) {
    case ACL_MEMCPY_HOST_TO_HOST: want_dst = want_src = false; break;
    case ACL_MEMCPY_HOST_TO_DEVICE: want_dst = true, want_src = false; break;
    case ACL_MEMCPY_DEVICE_TO_HOST: want_dst = false, want_src = true; break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE: want_dst = want_src = true; break;
    default: return sim_error(ACL_ERROR_INVALID_PARAM, "%s: unknown kind %d", function, (int)kind);
    }
    dst_device = sim_is_device_range(dst, count);
    src_device = sim_is_device_range(src, count);
    if (dst_device != want_dst || src_device != want_src)
        return sim_error(ACL_ERROR_RT_PARAM_INVALID,
                         "%s: kind %d but dst %p is %s and src %p is %s", function, (int)kind, dst,
                         dst_device ? "device memory" : "not device memory", src,
                         src_device ? "device memory" : "not device memory");
    return ACL_SUCCESS;
}

SIM_API aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                             aclrtMemcpyKind kind)
{
    aclError code;
    SIM_ENTER("aclrtMemcpy");
    if ((code = sim_need_device("aclrtMemcpy")) != ACL_SUCCESS)
        return code;
    if ((code = sim_check_copy(dst, destMax, src, count, kind, "aclrtMemcpy")) != ACL_SUCCESS)
        return code;
    memmove(dst, src, count);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                  aclrtMemcpyKind kind, aclrtStream handle)
{
    aclError code;
    sim_stream_t *stream;
    sim_task_t task = {.kind = SIM_COPY, .dst = dst, .src = src, .size = count};
    SIM_ENTER("aclrtMemcpyAsync");
    if ((stream = sim_stream_for_work(handle, &code, "aclrtMemcpyAsync")) == NULL)
        return code;
    if ((code = sim_check_copy(dst, destMax, src, count, kind, "aclrtMemcpyAsync")) != ACL_SUCCESS)
        return code;
    return sim_submit(stream, &task, "aclrtMemcpyAsync");
}

static aclError sim_check_fill(void *devPtr, size_t maxCount, size_t count, const char *function)
{
    if (devPtr == NULL || count > maxCount)
        return sim_error(ACL_ERROR_INVALID_PARAM, "%s: NULL pointer or count %zu > maxCount %zu",
                         function, count, maxCount);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    aclError code;
    SIM_ENTER("aclrtMemset");
    if ((code = sim_need_device("aclrtMemset")) != ACL_SUCCESS)
        return code;
    if ((code = sim_check_fill(devPtr, maxCount, count, "aclrtMemset")) != ACL_SUCCESS)
        return code;
    memset(devPtr, value, count);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                  aclrtStream handle)
{
    aclError code;
    sim_stream_t *stream;
    sim_task_t task = {.kind = SIM_FILL, .dst = devPtr, .value = value, .size = count};
    SIM_ENTER("aclrtMemsetAsync");
    if ((stream = sim_stream_for_work(handle, &code, "aclrtMemsetAsync")) == NULL)
        return code;
    if ((code = sim_check_fill(devPtr, maxCount, count, "aclrtMemsetAsync")) != ACL_SUCCESS)
        return code;
    return sim_submit(stream, &task, "aclrtMemsetAsync");
}

/* ---------------------------------------------------------------- events */

static aclError sim_event_new(aclrtEvent *event, uint32_t flag, const char *function)
{
    aclError code;
    sim_event_t *created;
    if ((code = sim_need_device(function)) != ACL_SUCCESS)
        return code;
    if (event == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "%s: event is NULL", function);
    created = calloc(1, sizeof *created);
    if (created == NULL)
        return sim_error(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", function);
    created->flags = flag;
    created->device = sim_current_device();
    pthread_mutex_lock(&sim_lock);
    sim_handles_add(&sim_events, created);
    pthread_mutex_unlock(&sim_lock);
    *event = created;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtCreateEvent(aclrtEvent *event)
{
    SIM_ENTER("aclrtCreateEvent");
    return sim_event_new(event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE, "aclrtCreateEvent");
}

SIM_API aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    SIM_ENTER("aclrtCreateEventWithFlag");
    return sim_event_new(event, flag, "aclrtCreateEventWithFlag");
}

/* As CUDA does, a destroy with a record or wait still queued is allowed: the
 * event is freed when the last of them has run. */
SIM_API aclError aclrtDestroyEvent(aclrtEvent event)
{
    sim_event_t *e = event;
    bool free_now;
    SIM_ENTER("aclrtDestroyEvent");
    if (e == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent: event is NULL");
    pthread_mutex_lock(&sim_lock);
    sim_handles_remove(&sim_events, e);
    free_now = sim_event_destroy(&e->marks);
    pthread_mutex_unlock(&sim_lock);
    if (free_now)
        free(e);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtRecordEvent(aclrtEvent event, aclrtStream handle)
{
    aclError code;
    sim_stream_t *stream;
    sim_task_t *task;
    SIM_ENTER("aclrtRecordEvent");
    if (event == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtRecordEvent: event is NULL");
    if ((stream = sim_stream_for_work(handle, &code, "aclrtRecordEvent")) == NULL)
        return code;
    if ((task = calloc(1, sizeof *task)) == NULL)
        return sim_error(ACL_ERROR_BAD_ALLOC, "aclrtRecordEvent: out of host memory");
    task->kind = SIM_RECORD;
    task->event = event;
    pthread_mutex_lock(&sim_lock);
    task->generation = sim_event_queue_record(&task->event->marks);
    sim_enqueue(stream, task);
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

/* Waits for the event's latest record at the time of the call; an event
 * never recorded is no wait at all. */
SIM_API aclError aclrtStreamWaitEvent(aclrtStream handle, aclrtEvent event)
{
    aclError code;
    sim_stream_t *stream;
    sim_task_t *task;
    SIM_ENTER("aclrtStreamWaitEvent");
    if (event == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtStreamWaitEvent: event is NULL");
    if ((stream = sim_stream_for_work(handle, &code, "aclrtStreamWaitEvent")) == NULL)
        return code;
    if ((task = calloc(1, sizeof *task)) == NULL)
        return sim_error(ACL_ERROR_BAD_ALLOC, "aclrtStreamWaitEvent: out of host memory");
    task->kind = SIM_WAIT;
    task->event = event;
    pthread_mutex_lock(&sim_lock);
    task->generation = sim_event_queue_wait(&task->event->marks);
    sim_enqueue(stream, task);
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    sim_event_t *e = event;
    SIM_ENTER("aclrtSynchronizeEvent");
    if (e == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeEvent: event is NULL");
    pthread_mutex_lock(&sim_lock);
    {
        sim_event_synchronize(&e->marks);
    }
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    sim_event_t *e = event;
    SIM_ENTER("aclrtQueryEventStatus");
    if (e == NULL || status == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus: NULL argument");
    pthread_mutex_lock(&sim_lock);
    *status = sim_event_done(&e->marks) ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                        : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

/* Both events need ACL_EVENT_TIME_LINE and a completed record. */
SIM_API aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    sim_event_t *start = startEvent, *end = endEvent;
    aclError code = ACL_SUCCESS;
    SIM_ENTER("aclrtEventElapsedTime");
    if (ms == NULL || start == NULL || end == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: NULL argument");
    if (!(start->flags & ACL_EVENT_TIME_LINE) || !(end->flags & ACL_EVENT_TIME_LINE))
        return sim_error(ACL_ERROR_RT_PARAM_INVALID,
                         "aclrtEventElapsedTime: an event was created without ACL_EVENT_TIME_LINE");
    pthread_mutex_lock(&sim_lock);
    if (start->marks.recorded == 0 || end->marks.recorded == 0 ||
        start->marks.completed != start->marks.recorded ||
        end->marks.completed != end->marks.recorded)
        code = ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    else
        *ms = (float)((double)((int64_t)(end->marks.time_ns - start->marks.time_ns)) / 1e6);
    pthread_mutex_unlock(&sim_lock);
    if (code != ACL_SUCCESS)
        return sim_error(code, "aclrtEventElapsedTime: an event is not recorded or not complete");
    return ACL_SUCCESS;
}

/* ---------------------------------------------------------------- callbacks */

SIM_API aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream handle)
{
    aclError code;
    sim_stream_t *stream;
    SIM_ENTER("aclrtSubscribeReport");
    if ((stream = sim_stream_for_work(handle, &code, "aclrtSubscribeReport")) == NULL)
        return code;
    pthread_mutex_lock(&sim_lock);
    if (stream->subscribed) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(ACL_ERROR_REPEAT_SUBSCRIBE, "aclrtSubscribeReport: already subscribed");
    }
    stream->subscribed = true;
    stream->subscriber = threadId;
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream handle)
{
    aclError code;
    sim_stream_t *stream;
    SIM_ENTER("aclrtUnSubscribeReport");
    if ((stream = sim_stream_resolve(handle, &code, "aclrtUnSubscribeReport")) == NULL)
        return code;
    pthread_mutex_lock(&sim_lock);
    if (!stream->subscribed || stream->subscriber != threadId) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(ACL_ERROR_STREAM_NOT_SUBSCRIBE,
                         "aclrtUnSubscribeReport: the stream is not subscribed by that thread");
    }
    stream->subscribed = false;
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
                                     aclrtCallbackBlockType blockType, aclrtStream handle)
{
    aclError code;
    sim_stream_t *stream;
    sim_task_t *task;
    SIM_ENTER("aclrtLaunchCallback");
    if (fn == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: fn is NULL");
    if ((stream = sim_stream_for_work(handle, &code, "aclrtLaunchCallback")) == NULL)
        return code;
    if ((task = calloc(1, sizeof *task)) == NULL)
        return sim_error(ACL_ERROR_BAD_ALLOC, "aclrtLaunchCallback: out of host memory");
    task->kind = SIM_CALLBACK;
    task->fn = fn;
    task->user_data = userData;
    task->block = blockType == ACL_CALLBACK_BLOCK;
    pthread_mutex_lock(&sim_lock);
    if (!stream->subscribed) {
        pthread_mutex_unlock(&sim_lock);
        free(task);
        return sim_error(ACL_ERROR_STREAM_NOT_SUBSCRIBE,
                         "aclrtLaunchCallback: no thread subscribed to the stream "
                         "(aclrtSubscribeReport)");
    }
    task->thread_id = stream->subscriber;
    sim_enqueue(stream, task);
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

/* Runs one callback queued for the calling thread; waits up to `timeout`
 * ms for one (-1: forever). */
SIM_API aclError aclrtProcessReport(int32_t timeout)
{
    uint64_t self = (uint64_t)pthread_self();
    struct timespec deadline;
    sim_report_t *report = NULL;
    bool subscribed = false;
    SIM_ENTER("aclrtProcessReport");
    clock_gettime(CLOCK_REALTIME, &deadline);
    if (timeout > 0) {
        deadline.tv_sec += timeout / 1000;
        deadline.tv_nsec += (long)(timeout % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&sim_lock);
    for (;;) {
        SIM_HANDLES_EACH(sim_stream_t, s, &sim_streams.live)
        subscribed = subscribed || (s->subscribed && s->subscriber == self);
        for (sim_report_t *r = sim_reports; r != NULL && report == NULL; r = r->next)
            if (!r->taken && r->thread_id == self)
                report = r;
        if (report != NULL || !subscribed)
            break;
        if (timeout < 0)
            pthread_cond_wait(&sim_changed, &sim_lock);
        else if (timeout == 0 ||
                 pthread_cond_timedwait(&sim_changed, &sim_lock, &deadline) == ETIMEDOUT)
            break;
    }
    if (report == NULL) {
        pthread_mutex_unlock(&sim_lock);
        if (!subscribed)
            return sim_error(ACL_ERROR_THREAD_NOT_SUBSCRIBE,
                             "aclrtProcessReport: the thread is subscribed to no stream");
        return sim_error(ACL_ERROR_WAIT_CALLBACK_TIMEOUT,
                         "aclrtProcessReport: no callback in %d ms", (int)timeout);
    }
    report->taken = true;
    for (sim_report_t **link = &sim_reports; *link != NULL; link = &(*link)->next)
        if (*link == report) {
            *link = report->next;
            break;
        }
    pthread_mutex_unlock(&sim_lock);
    report->fn(report->user_data);
    if (!report->block) {
        free(report);
        return ACL_SUCCESS;
    }
    pthread_mutex_lock(&sim_lock);
    report->done = true;
    pthread_cond_broadcast(&sim_changed);
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}
