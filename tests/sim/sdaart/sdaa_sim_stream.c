/* sdaa_sim_stream.c: the simulated SDAA runtime's streams, copies, fills,
 * events and host callbacks. Each stream (a device's default stream too) is
 * a worker thread running its queue in order, so work really is
 * asynchronous and a binding that forgets to wait or to order streams reads
 * stale data; with ACCEL_SIM_STREAM_DELAY_US each task starts that much
 * later, to widen such windows. Events carry a record count and a
 * CLOCK_MONOTONIC time. A callback added with sdaaStreamAddCallback runs on
 * the stream's worker when the stream reaches it, and the stream waits for
 * it (CUDA's rule). sdaaStreamDestroy does not wait (CUDA's rule too).
 * Stricter than CUDA where that catches binding mistakes: work queued on a
 * stream of another device than the thread's current one is refused
 * (sdaaErrorInvalidHandle), and fills must lie in device memory.
 * Everything shared is guarded by sim_lock (sdaa_sim_internal.h); the queue
 * and its worker loop are tests/sim/common/sim_queue.h's. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sdaa_sim_internal.h"
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

typedef struct sim_task {
    sim_queue_task_t node; /* first: the queue holds tasks by it */
    sim_task_kind_t kind;
    void *dst;
    const void *src;
    size_t size;
    int value;
    sim_event_t *event;
    unsigned long generation;
    sdaaStreamCallback_t fn;
    void *user_data;
    void *staging; /* (owned) a pageable source read at the call (SDAA-PAGEABLE) */
} sim_task_t;
_Static_assert(offsetof(sim_task_t, node) == 0, "a queued node is its task");

/* A stream is the core's: sdaaStreamDestroy releases it (sim_stream.h),
 * and its worker frees it once its queue has run. */
struct sim_stream {
    sim_stream_core_t core;
};

static sim_handles_t sim_events; /* every event not destroyed */

/* ---------------------------------------------------------------- workers */

/* What a query answers for "not yet": sdaaErrorNotReady (600). Test-only
 * broken mode of rule SDAA-NOTREADY: another code (sdaaErrorUnknown). */
static sdaaError_t sim_not_ready(void)
{
    return sim_rule_broken("SDAA-NOTREADY") ? sdaaErrorUnknown : sdaaErrorNotReady;
}

typedef struct sim_detached_callback {
    sdaaStreamCallback_t fn;
    sdaaStream_t stream;
    void *user_data;
} sim_detached_callback_t;

static void *sim_detached_callback_run(void *arg)
{
    sim_detached_callback_t *call = arg;
    call->fn(call->stream, sdaaSuccess, call->user_data);
    free(call);
    return NULL;
}

/* Test-only broken mode of rule SDAA-CALLBACK: the callback runs on a
 * thread of its own and the stream goes on without waiting for it. False
 * when that thread cannot start (the callback then runs in order). */
static bool sim_callback_detached(sdaaStreamCallback_t fn, sdaaStream_t stream, void *user_data)
{
    pthread_t thread;
    sim_detached_callback_t *call;
    if (!sim_rule_broken("SDAA-CALLBACK") || (call = malloc(sizeof *call)) == NULL)
        return false;
    *call = (sim_detached_callback_t){fn, stream, user_data};
    if (pthread_create(&thread, NULL, sim_detached_callback_run, call) != 0) {
        free(call);
        return false;
    }
    pthread_detach(thread);
    return true;
}

/* Runs one task of a stream; called with sim_lock held, may drop it. */
static void sim_run(sim_queue_t *queue, sim_queue_task_t *node)
{
    sim_stream_t *stream = (sim_stream_t *)((char *)queue - offsetof(sim_stream_core_t, queue));
    sim_task_t *task = (sim_task_t *)node;
    switch (task->kind) {
    case SIM_COPY: sim_queue_memmove(&sim_lock, task->dst, task->src, task->size); break;
    case SIM_FILL: sim_queue_memset(&sim_lock, task->dst, task->value, task->size); break;
    case SIM_RECORD: sim_event_reach(&task->event->marks, task->generation); break;
    case SIM_WAIT: sim_event_wait(&task->event->marks, task->generation); break;
    case SIM_CALLBACK:
        /* The default stream's handle is NULL to its users. */
        pthread_mutex_unlock(&sim_lock);
        if (!sim_callback_detached(task->fn, stream->core.is_default ? NULL : (sdaaStream_t)stream,
                                   task->user_data))
            task->fn(stream->core.is_default ? NULL : (sdaaStream_t)stream, sdaaSuccess,
                     task->user_data);
        pthread_mutex_lock(&sim_lock);
        break;
    }
}

/* Under sim_lock: frees a run task, and its event when destroyed and unnamed. */
static void sim_retire(sim_queue_task_t *node)
{
    sim_task_t *task = (sim_task_t *)node;
    if (task->event != NULL && sim_event_release_task(&task->event->marks))
        free(task->event);
    free(task->staging);
    free(task);
}

static const sim_queue_ops_t sim_queue_ops = {sim_run, sim_retire};
static sim_streams_t sim_streams = {.ops = &sim_queue_ops}; /* every live stream */

static sim_stream_t *sim_default_stream(int device)
{
    return (sim_stream_t *)sim_streams_default(&sim_streams, sizeof(sim_stream_t), device);
}

sim_stream_t *sim_stream_resolve(sdaaStream_t handle, sdaaError_t *code, const char *function)
{
    sim_stream_t *found = NULL;
    if ((*code = sim_need_device(function)) != sdaaSuccess)
        return NULL;
    if (handle == NULL) {
        found = sim_default_stream(sim_current_device());
        if (found == NULL)
            *code = sim_error(sdaaErrorOutOfMemory, "%s: no default stream", function);
        return found;
    }
    found = (sim_stream_t *)sim_streams_find(&sim_streams, handle);
    if (found == NULL)
        *code = sim_error(sdaaErrorInvalidHandle, "%s: %p is not a live stream", function,
                          (void *)handle);
    return found;
}

/* A resolved stream that also belongs to the thread's current device. */
static sim_stream_t *sim_stream_for_work(sdaaStream_t handle, sdaaError_t *code,
                                         const char *function)
{
    sim_stream_t *stream = sim_stream_resolve(handle, code, function);
    if (stream != NULL && stream->core.device != sim_current_device()) {
        *code = sim_error(sdaaErrorInvalidHandle,
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

static sdaaError_t sim_submit(sim_stream_t *stream, const sim_task_t *proto, const char *function)
{
    if (!sim_stream_submit(&stream->core, proto, sizeof *proto))
        return sim_error(sdaaErrorOutOfMemory, "%s: out of host memory", function);
    return sdaaSuccess;
}

void sim_streams_drain(int device)
{
    sim_stream_drain_device(&sim_streams, device);
}

/* ---------------------------------------------------------------- streams */

SIM_API sdaaError_t sdaaStreamCreateWithFlags(sdaaStream_t *stream, unsigned int flags)
{
    sdaaError_t code;
    sim_stream_t *created;
    SIM_ENTER("sdaaStreamCreateWithFlags");
    if ((code = sim_need_device("sdaaStreamCreateWithFlags")) != sdaaSuccess)
        return code;
    if (stream == NULL || (flags != sdaaStreamDefault && flags != sdaaStreamNonBlocking))
        return sim_error(sdaaErrorInvalidValue,
                         "sdaaStreamCreateWithFlags: stream NULL or flags %#x unknown", flags);
    created = (sim_stream_t *)sim_stream_create(&sim_streams, sizeof *created, sim_current_device(),
                                                false);
    if (created == NULL)
        return sim_error(sdaaErrorOutOfMemory, "sdaaStreamCreateWithFlags: no worker thread");
    *stream = (sdaaStream_t)created;
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaStreamCreate(sdaaStream_t *stream)
{
    SIM_ENTER("sdaaStreamCreate");
    return sdaaStreamCreateWithFlags(stream, sdaaStreamDefault);
}

/* Returns at once, as CUDA's does: work already queued still runs, then the
 * worker ends and frees the stream; the handle is invalid from now on. A
 * binding that must wait for the work synchronizes first. */
SIM_API sdaaError_t sdaaStreamDestroy(sdaaStream_t handle)
{
    sdaaError_t code;
    sim_stream_t *stream;
    SIM_ENTER("sdaaStreamDestroy");
    if (handle == NULL)
        return sim_error(sdaaErrorInvalidHandle, "sdaaStreamDestroy: stream is NULL");
    if ((stream = sim_stream_resolve(handle, &code, "sdaaStreamDestroy")) == NULL)
        return code;
    sim_stream_release(&stream->core);
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaStreamSynchronize(sdaaStream_t handle)
{
    sdaaError_t code;
    sim_stream_t *stream;
    SIM_ENTER("sdaaStreamSynchronize");
    if ((stream = sim_stream_resolve(handle, &code, "sdaaStreamSynchronize")) == NULL)
        return code;
    sim_stream_wait(&stream->core);
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaStreamQuery(sdaaStream_t handle)
{
    sdaaError_t code;
    sim_stream_t *stream;
    bool idle;
    SIM_ENTER("sdaaStreamQuery");
    if ((stream = sim_stream_resolve(handle, &code, "sdaaStreamQuery")) == NULL)
        return code;
    pthread_mutex_lock(&sim_lock);
    idle = sim_queue_idle(&stream->core.queue);
    pthread_mutex_unlock(&sim_lock);
    return idle ? sdaaSuccess : sim_not_ready();
}

/* ---------------------------------------------------------------- copies and fills */

/* The kind must say where each side really is: device memory for a device
 * side (inside one sdaaMalloc block), anything else for a host side;
 * sdaaMemcpyDefault takes them as they are. */
static sdaaError_t sim_check_copy(void *dst, const void *src, size_t size, sdaaMemcpyKind kind,
                                  bool async, const char *function)
{
    bool dst_device, src_device, want_dst, want_src;
    if (size == 0)
        return sdaaSuccess;
    if (dst == NULL || src == NULL)
        return sim_error(sdaaErrorInvalidValue, "%s: dst or src is NULL", function);
    dst_device = sim_is_device_range(dst, size);
    src_device = sim_is_device_range(src, size);
    switch ((int)kind) {
    case sdaaMemcpyHostToHost:
        /* SDAA-H2H (harsher reading, tests/sim/README.md): no public
         * source says sdaaMemcpyAsync takes a host-to-host copy, so the
         * sim refuses it there (the code is the sim's choice);
         * sdaaMemcpy, a host-side copy, still takes it. */
        if (async)
            return sim_error(sdaaErrorNotSupported, "%s: host-to-host copy on a stream", function);
        want_dst = want_src = false;
        break;
    case sdaaMemcpyHostToDevice: want_dst = true, want_src = false; break;
    case sdaaMemcpyDeviceToHost: want_dst = false, want_src = true; break;
    case sdaaMemcpyDeviceToDevice: want_dst = want_src = true; break;
    case sdaaMemcpyDefault: want_dst = dst_device, want_src = src_device; break;
    default:
        return sim_error(sdaaErrorInvalidMemcpyDirection, "%s: unknown kind %d", function,
                         (int)kind);
    }
    if (dst_device != want_dst || src_device != want_src)
        return sim_error(sdaaErrorInvalidValue, "%s: kind %d but dst %p is %s and src %p is %s",
                         function, (int)kind, dst,
                         dst_device ? "device memory" : "not device memory", src,
                         src_device ? "device memory" : "not device memory");
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaMemcpy(void *dst, const void *src, size_t sizeBytes, sdaaMemcpyKind kind)
{
    sdaaError_t code;
    SIM_ENTER("sdaaMemcpy");
    if ((code = sim_need_device("sdaaMemcpy")) != sdaaSuccess)
        return code;
    if ((code = sim_check_copy(dst, src, sizeBytes, kind, false, "sdaaMemcpy")) != sdaaSuccess)
        return code;
    sim_streams_drain(sim_current_device()); /* the legacy default stream's ordering */
    if (sizeBytes > 0)
        memmove(dst, src, sizeBytes);
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaMemcpyAsync(void *dst, const void *src, size_t sizeBytes,
                                    sdaaMemcpyKind kind, sdaaStream_t handle)
{
    sdaaError_t code;
    sim_stream_t *stream;
    sim_task_t task = {.kind = SIM_COPY, .dst = dst, .src = src, .size = sizeBytes};
    SIM_ENTER("sdaaMemcpyAsync");
    if ((stream = sim_stream_for_work(handle, &code, "sdaaMemcpyAsync")) == NULL)
        return code;
    /* Test-only broken mode of rule SDAA-H2H: a host-to-host copy is taken,
     * then lost (nothing runs). */
    if (kind == sdaaMemcpyHostToHost && sim_rule_broken("SDAA-H2H"))
        return sdaaSuccess;
    if ((code = sim_check_copy(dst, src, sizeBytes, kind, true, "sdaaMemcpyAsync")) != sdaaSuccess)
        return code;
    if (sizeBytes == 0)
        return sdaaSuccess;
    /* SDAA-PAGEABLE: CUDA's rule for a copy from pageable memory, which the
     * sim follows where SDAA's header is silent: the source is read before
     * the call returns (into staging the task owns). Test-only broken mode:
     * the source is read only when the copy runs. */
    if (!sim_is_device_range(src, sizeBytes) && !sim_is_pinned_range(src, sizeBytes) &&
        !sim_rule_broken("SDAA-PAGEABLE")) {
        if ((task.staging = malloc(sizeBytes)) == NULL)
            return sim_error(sdaaErrorOutOfMemory, "sdaaMemcpyAsync: out of host memory");
        memcpy(task.staging, src, sizeBytes);
        task.src = task.staging;
    }
    code = sim_submit(stream, &task, "sdaaMemcpyAsync");
    if (code != sdaaSuccess)
        free(task.staging);
    return code;
}

static sdaaError_t sim_check_fill(void *dst, size_t size, const char *function)
{
    if (size == 0)
        return sdaaSuccess;
    if (dst == NULL || !sim_is_device_range(dst, size))
        return sim_error(sdaaErrorInvalidValue, "%s: [%p, +%zu) is not device memory", function,
                         dst, size);
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaMemsetAsync(void *dst, int value, size_t sizeBytes, sdaaStream_t handle)
{
    sdaaError_t code;
    sim_stream_t *stream;
    sim_task_t task = {.kind = SIM_FILL, .dst = dst, .value = value, .size = sizeBytes};
    SIM_ENTER("sdaaMemsetAsync");
    if ((stream = sim_stream_for_work(handle, &code, "sdaaMemsetAsync")) == NULL)
        return code;
    if ((code = sim_check_fill(dst, sizeBytes, "sdaaMemsetAsync")) != sdaaSuccess)
        return code;
    if (sizeBytes == 0)
        return sdaaSuccess;
    return sim_submit(stream, &task, "sdaaMemsetAsync");
}

SIM_API sdaaError_t sdaaMemset(void *dst, int value, size_t sizeBytes)
{
    sdaaError_t code;
    SIM_ENTER("sdaaMemset");
    if ((code = sim_need_device("sdaaMemset")) != sdaaSuccess)
        return code;
    if ((code = sim_check_fill(dst, sizeBytes, "sdaaMemset")) != sdaaSuccess)
        return code;
    sim_streams_drain(sim_current_device());
    if (sizeBytes > 0)
        memset(dst, value, sizeBytes);
    return sdaaSuccess;
}

/* ---------------------------------------------------------------- events */

static sdaaError_t sim_event_create(sdaaEvent_t *event, unsigned flags, const char *function)
{
    sdaaError_t code;
    sim_event_t *created;
    if ((code = sim_need_device(function)) != sdaaSuccess)
        return code;
    if (event == NULL || (flags & ~(unsigned)(sdaaEventBlockingSync | sdaaEventDisableTiming |
                                              sdaaEventInterprocess)) != 0)
        return sim_error(sdaaErrorInvalidValue, "%s: event NULL or flags %#x unknown", function,
                         flags);
    /* SDAA-EVFLAGS (harsher reading): Tecorigin's own event wrapper
     * (PaddleCustomDevice backends/sdaa/runtime/sdaaEvent.h, createEvent)
     * has "TODO(teco): create event with sdaaEventCreateWithFlags when it
     * supports set flags" and calls sdaaEventCreate. No public source says
     * which flags work, so the sim supports none. */
    if (flags != sdaaEventDefault)
        return sim_error(sdaaErrorNotSupported, "%s: flags %#x not supported (only 0)", function,
                         flags);
    created = calloc(1, sizeof *created);
    if (created == NULL)
        return sim_error(sdaaErrorOutOfMemory, "%s: out of host memory", function);
    created->flags = flags;
    created->device = sim_current_device();
    pthread_mutex_lock(&sim_lock);
    sim_handles_add(&sim_events, created);
    pthread_mutex_unlock(&sim_lock);
    *event = (sdaaEvent_t)created;
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaEventCreateWithFlags(sdaaEvent_t *event, unsigned flags)
{
    SIM_ENTER("sdaaEventCreateWithFlags");
    return sim_event_create(event, flags, "sdaaEventCreateWithFlags");
}

SIM_API sdaaError_t sdaaEventCreate(sdaaEvent_t *event)
{
    sdaaError_t code;
    SIM_ENTER("sdaaEventCreate");
    code = sim_event_create(event, sdaaEventDefault, "sdaaEventCreate");
    /* Test-only broken mode of rule SDAA-EVFLAGS: a plain event does not
     * time (as if timing needed a flag that is not supported). */
    if (code == sdaaSuccess && sim_rule_broken("SDAA-EVFLAGS"))
        ((sim_event_t *)*event)->flags = sdaaEventDisableTiming;
    return code;
}

/* Under sim_lock: `handle` as a live event, or NULL. */
static sim_event_t *sim_event_find(sdaaEvent_t handle)
{
    return sim_handles_contains(&sim_events, handle) ? (sim_event_t *)handle : NULL;
}

/* SDAA-EVDESTROY (harsher reading): Tecorigin's event wrapper
 * (PaddleCustomDevice backends/sdaa/runtime/sdaaEvent.h, ~sdaaEventWrapper)
 * always synchronizes the event before sdaaEventDestroy, and no public
 * source says a destroy may run ahead of the event's record. So a destroy
 * while a record of the event is still queued is a violation (counted,
 * accel_sim_sdaa_violations). The sim still frees the event only when the
 * last task naming it has run, so that the run goes on to report it. */
SIM_API sdaaError_t sdaaEventDestroy(sdaaEvent_t event)
{
    sim_event_t *e;
    bool free_now, pending;
    SIM_ENTER("sdaaEventDestroy");
    pthread_mutex_lock(&sim_lock);
    if ((e = sim_event_find(event)) == NULL) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(sdaaErrorInvalidHandle, "sdaaEventDestroy: %p is not a live event",
                         (void *)event);
    }
    sim_handles_remove(&sim_events, e);
    pending = !sim_event_done(&e->marks);
    free_now = sim_event_destroy(&e->marks);
    pthread_mutex_unlock(&sim_lock);
    if (pending)
        sim_violation("SDAA-EVDESTROY",
                      "sdaaEventDestroy(%p) while a record of it is still queued "
                      "(Tecorigin synchronizes the event first)",
                      (void *)event);
    if (free_now)
        free(e);
    return sdaaSuccess;
}

/* A record or a wait (kind) of a live event on a stream of the thread's
 * device. */
static sdaaError_t sim_event_task(sdaaEvent_t event, sdaaStream_t handle, sim_task_kind_t kind,
                                  const char *function)
{
    sdaaError_t code;
    sim_stream_t *stream;
    sim_task_t *task;
    sim_event_t *e;
    if ((stream = sim_stream_for_work(handle, &code, function)) == NULL)
        return code;
    if ((task = calloc(1, sizeof *task)) == NULL)
        return sim_error(sdaaErrorOutOfMemory, "%s: out of host memory", function);
    pthread_mutex_lock(&sim_lock);
    if ((e = sim_event_find(event)) == NULL) {
        pthread_mutex_unlock(&sim_lock);
        free(task);
        return sim_error(sdaaErrorInvalidHandle, "%s: %p is not a live event", function,
                         (void *)event);
    }
    task->kind = kind;
    task->event = e;
    task->generation =
        kind == SIM_RECORD ? sim_event_queue_record(&e->marks) : sim_event_queue_wait(&e->marks);
    sim_enqueue(stream, task);
    pthread_mutex_unlock(&sim_lock);
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaEventRecord(sdaaEvent_t event, sdaaStream_t stream)
{
    SIM_ENTER("sdaaEventRecord");
    return sim_event_task(event, stream, SIM_RECORD, "sdaaEventRecord");
}

/* Waits for the event's latest record at the time of the call; an event
 * never recorded is no wait at all. Flags must be 0. */
SIM_API sdaaError_t sdaaStreamWaitEvent(sdaaStream_t stream, sdaaEvent_t event, unsigned int flags)
{
    SIM_ENTER("sdaaStreamWaitEvent");
    if (flags != 0)
        return sim_error(sdaaErrorInvalidValue, "sdaaStreamWaitEvent: flags %#x must be 0", flags);
    return sim_event_task(event, stream, SIM_WAIT, "sdaaStreamWaitEvent");
}

SIM_API sdaaError_t sdaaEventSynchronize(sdaaEvent_t event)
{
    sim_event_t *e;
    SIM_ENTER("sdaaEventSynchronize");
    pthread_mutex_lock(&sim_lock);
    if ((e = sim_event_find(event)) == NULL) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(sdaaErrorInvalidHandle, "sdaaEventSynchronize: %p is not a live event",
                         (void *)event);
    }
    {
        sim_event_synchronize(&e->marks);
    }
    pthread_mutex_unlock(&sim_lock);
    return sdaaSuccess;
}

/* sdaaErrorNotReady until the latest record is reached; never recorded is
 * complete (CUDA). */
SIM_API sdaaError_t sdaaEventQuery(sdaaEvent_t event)
{
    sim_event_t *e;
    bool done;
    SIM_ENTER("sdaaEventQuery");
    pthread_mutex_lock(&sim_lock);
    if ((e = sim_event_find(event)) == NULL) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(sdaaErrorInvalidHandle, "sdaaEventQuery: %p is not a live event",
                         (void *)event);
    }
    /* Test-only broken mode of rule SDAA-EVDESTROY: a recorded event never
     * says complete, so a destroy deferred until it does never runs. */
    done =
        sim_event_done(&e->marks) && !(e->marks.recorded > 0 && sim_rule_broken("SDAA-EVDESTROY"));
    pthread_mutex_unlock(&sim_lock);
    return done ? sdaaSuccess : sim_not_ready();
}

/* Both events need timing (no sdaaEventDisableTiming) and a record;
 * sdaaErrorNotReady while either record is pending. */
SIM_API sdaaError_t sdaaEventElapsedTime(float *ms, sdaaEvent_t startEvent, sdaaEvent_t endEvent)
{
    sim_event_t *start, *end;
    sdaaError_t code = sdaaSuccess;
    SIM_ENTER("sdaaEventElapsedTime");
    if (ms == NULL)
        return sim_error(sdaaErrorInvalidValue, "sdaaEventElapsedTime: ms is NULL");
    pthread_mutex_lock(&sim_lock);
    start = sim_event_find(startEvent);
    end = sim_event_find(endEvent);
    if (start == NULL || end == NULL || (start->flags & sdaaEventDisableTiming) ||
        (end->flags & sdaaEventDisableTiming) || start->marks.recorded == 0 ||
        end->marks.recorded == 0)
        code = sdaaErrorInvalidHandle;
    else if (start->marks.completed != start->marks.recorded ||
             end->marks.completed != end->marks.recorded)
        code = sdaaErrorNotReady;
    else
        *ms = (float)((double)((int64_t)(end->marks.time_ns - start->marks.time_ns)) / 1e6);
    pthread_mutex_unlock(&sim_lock);
    if (code != sdaaSuccess)
        return sim_error(code, "sdaaEventElapsedTime: an event is not live, not timed, not "
                               "recorded or not complete");
    return sdaaSuccess;
}

/* ---------------------------------------------------------------- callbacks */

/* Flags must be 0 (CUDA's rule). */
SIM_API sdaaError_t sdaaStreamAddCallback(sdaaStream_t handle, sdaaStreamCallback_t callback,
                                          void *userData, unsigned int flags)
{
    sdaaError_t code;
    sim_stream_t *stream;
    sim_task_t task = {.kind = SIM_CALLBACK, .fn = callback, .user_data = userData};
    SIM_ENTER("sdaaStreamAddCallback");
    if (callback == NULL || flags != 0)
        return sim_error(sdaaErrorInvalidValue,
                         "sdaaStreamAddCallback: callback NULL or flags %#x not 0", flags);
    if ((stream = sim_stream_for_work(handle, &code, "sdaaStreamAddCallback")) == NULL)
        return code;
    return sim_submit(stream, &task, "sdaaStreamAddCallback");
}
