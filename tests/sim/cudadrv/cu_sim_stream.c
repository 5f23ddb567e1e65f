/* cu_sim_stream.c: the simulated CUDA driver's streams, copies, fills,
 * events, host functions, stream-ordered allocation and graphs.
 * - Each stream (a context's legacy default stream too) is a worker thread
 *   running its queue in order, so work really is asynchronous and a binding
 *   that forgets to wait or to order streams reads stale data; with
 *   ACCEL_SIM_STREAM_DELAY_US each task starts that much later.
 * - The legacy default stream (NULL, CU_STREAM_LEGACY) waits for the work
 *   already queued on every blocking stream of its context, and a blocking
 *   stream's work waits for the legacy stream's; CU_STREAM_NON_BLOCKING
 *   streams take part in neither.
 * - Copies follow the driver's host-synchronisation rules: a copy from
 *   pageable memory to the device reads the source into a staging buffer
 *   before returning; a copy into pageable memory returns once it is done;
 *   pinned memory (cuMemHostAlloc, cuMemHostRegister) is fully async.
 * - A host function runs on the stream's worker, which waits for it; any
 *   driver call from it fails with CUDA_ERROR_NOT_PERMITTED.
 * - Capture (cuStreamBeginCapture_v2) turns the stream's work into graph
 *   nodes instead of running it. A stream that waits on an event recorded
 *   in a capture joins that capture (its work is captured too) and must be
 *   joined back (the origin, or another stream of the capture, waits on an
 *   event recorded after its last node) before the capture ends. What CUDA
 *   refuses during capture is refused here and invalidates the capture: a
 *   query or synchronize of a capturing stream, a query or synchronize of
 *   an event last recorded in a capture, a copy with pageable memory, a
 *   wait on an event recorded outside the capture, a context synchronize
 *   (cu_sim_device.c), an unsafe call (cuMemFree_v2) under a GLOBAL or
 *   THREAD_LOCAL capture, and use of the legacy stream while a blocking
 *   stream captures. tests/sim/README.md's cudadrv table cites each rule.
 *   Stream-ordered allocation inside a capture is not simulated (refused).
 * Stricter than CUDA where that catches binding mistakes: work queued on a
 * stream of another context than the thread's current one is refused with
 * CUDA_ERROR_INVALID_HANDLE, and fills must lie in device memory.
 * Everything shared is guarded by sim_lock (cu_sim_internal.h); the queue
 * and its worker loop are tests/sim/common/sim_queue.h's. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cu_sim_internal.h"
#include "sim_event.h"
#include "sim_stream.h"

typedef enum sim_task_kind {
    SIM_COPY,
    SIM_FILL,
    SIM_RECORD,
    SIM_WAIT,
    SIM_WAIT_STREAM,
    SIM_HOST_FN,
    SIM_KERNEL,
    SIM_FREE,
    SIM_GRAPH
} sim_task_kind_t;

struct CUevent_st {
    sim_handle_t handle; /* first: in sim_events while not destroyed */
    unsigned flags;
    int device;
    sim_event_marks_t marks;          /* records, and the tasks and waits naming it */
    const void *captured_in;          /* the graph whose capture last recorded it, or NULL */
    struct sim_stream *captured_from; /* the stream of that record, while it captures */
    unsigned long captured_at;        /* that stream's capture_nodes at the record */
};

typedef struct sim_task {
    sim_queue_task_t node; /* first: queues, captures and graphs hold tasks by it */
    sim_task_kind_t kind;
    void *dst;
    const void *src;
    void *staged; /* owned copy of a pageable source */
    size_t size;
    int value;
    struct CUevent_st *event;
    unsigned long generation;
    sim_stream_t *stream; /* SIM_WAIT_STREAM */
    CUhostFn fn;
    void *user_data;
    sim_launch_t *launch;         /* SIM_KERNEL: owned */
    struct CUgraphExec_st *graph; /* SIM_GRAPH: holds a reference */
} sim_task_t;
_Static_assert(offsetof(sim_task_t, node) == 0, "a queued node is its task");

struct CUgraph_st {
    sim_queue_list_t nodes; /* in capture order */
    bool instantiable;
    bool invalid; /* met something CUDA refuses while capturing */
};

struct CUgraphExec_st {
    sim_queue_list_t nodes; /* owned copies */
    unsigned long refs;
    int device;
};

/* cuStreamDestroy releases the core (sim_stream.h): the detached worker
 * runs the queue dry, then frees the stream once no synchronize and no
 * other stream's SIM_WAIT_STREAM task (each counted in the queue's
 * waiters) still looks at it. */
struct sim_stream {
    sim_stream_core_t core;      /* first: the stream is its handle */
    bool blocking;               /* orders with the legacy default stream */
    struct CUgraph_st *capture;  /* the graph being captured, or NULL */
    bool capture_joined;         /* joined `capture` through an event wait (not its origin) */
    bool capture_unjoined;       /* joined, and its last node not yet waited on */
    unsigned long capture_nodes; /* nodes this stream added to `capture` */
    int capture_mode;            /* CU_STREAM_CAPTURE_MODE_* of the capture */
    pthread_t capture_thread;    /* the thread that began it */
};

static sim_stream_t *sim_defaults[SIM_MAX_DEVICES]; /* made on first use, never freed */
static sim_handles_t sim_events;                    /* every event not destroyed */

/* Frees a task and what it owns; under sim_lock. */
static void sim_task_free_locked(sim_task_t *task);
static bool sim_legacy_conflict_locked(int device);

/* ---------------------------------------------------------------- workers */

static void sim_run(sim_stream_t *stream, sim_task_t *task, bool in_graph);

/* Runs one node of a launched graph, as its own task would run. */
static void sim_run_graph(sim_stream_t *stream, struct CUgraphExec_st *exec)
{
    for (sim_queue_task_t *node = exec->nodes.head; node != NULL; node = node->next)
        sim_run(stream, (sim_task_t *)node, true);
}

/* Runs one task of `stream`; called with sim_lock held, may drop it. */
static void sim_run(sim_stream_t *stream, sim_task_t *task, bool in_graph)
{
    CUresult code;
    switch (task->kind) {
    case SIM_COPY:
        sim_queue_memmove(&sim_lock, task->dst, task->staged != NULL ? task->staged : task->src,
                          task->size);
        break;
    case SIM_FILL: sim_queue_memset(&sim_lock, task->dst, task->value, task->size); break;
    case SIM_RECORD:
        if (in_graph)
            break; /* an event node of a capture only ordered the capture */
        sim_event_reach(&task->event->marks, task->generation);
        break;
    case SIM_WAIT:
        if (in_graph)
            break;
        sim_event_wait(&task->event->marks, task->generation);
        break;
    case SIM_WAIT_STREAM:
        while (task->stream->core.queue.finished < task->generation)
            pthread_cond_wait(&sim_changed, &sim_lock);
        break;
    case SIM_HOST_FN:
        pthread_mutex_unlock(&sim_lock);
        sim_in_host_fn = true;
        task->fn(task->user_data);
        sim_in_host_fn = false;
        pthread_mutex_lock(&sim_lock);
        break;
    case SIM_KERNEL:
        pthread_mutex_unlock(&sim_lock);
        code = sim_launch_run(task->launch);
        if (code != CUDA_SUCCESS)
            sim_context_poison(stream->core.device, code);
        pthread_mutex_lock(&sim_lock);
        break;
    case SIM_FREE:
        pthread_mutex_unlock(&sim_lock);
        sim_device_free(task->dst);
        pthread_mutex_lock(&sim_lock);
        break;
    case SIM_GRAPH: sim_run_graph(stream, task->graph); break;
    }
}

static void sim_exec_release_locked(struct CUgraphExec_st *exec)
{
    if (--exec->refs > 0)
        return;
    while (exec->nodes.head != NULL) {
        sim_task_t *node = (sim_task_t *)exec->nodes.head;
        exec->nodes.head = node->node.next;
        sim_task_free_locked(node);
    }
    free(exec);
}

static void sim_task_free_locked(sim_task_t *task)
{
    if (task->kind == SIM_WAIT_STREAM && --task->stream->core.queue.waiters == 0)
        pthread_cond_broadcast(&sim_changed); /* its worker may end now */
    if (task->event != NULL && sim_event_release_task(&task->event->marks))
        free(task->event);
    if (task->launch != NULL)
        sim_launch_free(task->launch);
    if (task->graph != NULL)
        sim_exec_release_locked(task->graph);
    free(task->staged);
    free(task);
}

/* The queue's run: a task on its stream (never a graph's node). */
static void sim_run_queued(sim_queue_t *queue, sim_queue_task_t *node)
{
    sim_run((sim_stream_t *)((char *)queue - offsetof(sim_stream_t, core.queue)),
            (sim_task_t *)node, false);
}

static void sim_retire(sim_queue_task_t *node)
{
    sim_task_free_locked((sim_task_t *)node);
}

static const sim_queue_ops_t sim_queue_ops = {sim_run_queued, sim_retire};

static sim_streams_t sim_streams = {.ops = &sim_queue_ops}; /* every live stream */

/* Under no lock. NULL when out of memory or no thread could start. */
static sim_stream_t *sim_stream_new(int device, bool is_default, bool blocking)
{
    sim_stream_t *stream = calloc(1, sizeof *stream);
    if (stream == NULL)
        return NULL;
    stream->blocking = blocking;
    if (!sim_stream_start(&sim_streams, &stream->core, device, is_default, true)) {
        free(stream);
        return NULL;
    }
    return stream;
}

static sim_stream_t *sim_default_stream(int device)
{
    static pthread_mutex_t make_lock = PTHREAD_MUTEX_INITIALIZER;
    sim_stream_t *stream;
    pthread_mutex_lock(&make_lock);
    if (sim_defaults[device] == NULL)
        sim_defaults[device] = sim_stream_new(device, true, true);
    stream = sim_defaults[device];
    pthread_mutex_unlock(&make_lock);
    return stream;
}

/* `handle` as the sim's stream in the current context, or NULL with the code
 * in *code. NULL and CU_STREAM_LEGACY are the context's legacy stream. */
static sim_stream_t *sim_stream_resolve(CUstream handle, CUresult *code, const char *function)
{
    sim_stream_t *found = NULL;
    CUcontext ctx = sim_need_context(function, code);
    if (ctx == NULL)
        return NULL;
    if (handle == NULL || handle == CU_STREAM_LEGACY) {
        found = sim_default_stream(ctx->device);
        if (found == NULL)
            *code = sim_error(CUDA_ERROR_OUT_OF_MEMORY, "%s: no default stream", function);
        return found;
    }
    if (handle == CU_STREAM_PER_THREAD) {
        *code = sim_error(CUDA_ERROR_INVALID_HANDLE,
                          "%s: the per-thread default stream is not simulated", function);
        return NULL;
    }
    found = (sim_stream_t *)sim_streams_find(&sim_streams, handle);
    if (found == NULL) {
        *code = sim_error(CUDA_ERROR_INVALID_HANDLE, "%s: %p is not a live stream", function,
                          (void *)handle);
        return NULL;
    }
    if (found->core.device != ctx->device) {
        *code = sim_error(CUDA_ERROR_INVALID_HANDLE,
                          "%s: the stream belongs to device %d's context but device %d's is "
                          "current",
                          function, found->core.device, ctx->device);
        return NULL;
    }
    return found;
}

/* Under sim_lock: append `task` to `stream`'s queue. */
static void sim_enqueue_locked(sim_stream_t *stream, sim_task_t *task)
{
    sim_queue_push(&stream->core.queue, &task->node, &sim_changed);
}

/* Under sim_lock: a task that waits for `other` to finish what it has queued. */
static bool sim_order_after_locked(sim_stream_t *stream, sim_stream_t *other)
{
    sim_task_t *wait;
    if (other == NULL || other == stream || sim_queue_idle(&other->core.queue))
        return true;
    wait = calloc(1, sizeof *wait);
    if (wait == NULL)
        return false;
    wait->kind = SIM_WAIT_STREAM;
    wait->stream = other;
    wait->generation = other->core.queue.enqueued;
    other->core.queue.waiters++; /* released when the wait task is freed: see below */
    sim_enqueue_locked(stream, wait);
    return true;
}

/* Queue a copy of `proto` on `stream`, or append it to the stream's capture.
 * Takes ownership of proto's staged buffer and launch, also on failure. */
static CUresult sim_submit(sim_stream_t *stream, const sim_task_t *proto, const char *function)
{
    sim_task_t *task = malloc(sizeof *task);
    bool ordered = true;
    if (task == NULL) {
        free(proto->staged);
        if (proto->launch != NULL)
            sim_launch_free(proto->launch);
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "%s: out of host memory", function);
    }
    *task = *proto;
    pthread_mutex_lock(&sim_lock);
    if (stream->capture != NULL) {
        sim_queue_list_push(&stream->capture->nodes, &task->node);
        stream->capture_nodes++;
        stream->capture_unjoined = stream->capture_joined;
        pthread_mutex_unlock(&sim_lock);
        return CUDA_SUCCESS;
    }
    /* CU-LEGACY (the Driver API's stream synchronization page): the legacy
     * stream's ordering with blocking streams. CAP-LEGACY (programming
     * guide, prohibited operations; error 906): none while one of them
     * captures (the capture would depend on it implicitly). */
    /* Test-only broken mode of rule CAP-LEGACY: legacy-stream work runs
     * beside a blocking stream's capture, unordered with it. */
    if (stream->core.is_default && !sim_rule_broken("CAP-LEGACY") &&
        sim_legacy_conflict_locked(stream->core.device)) {
        sim_task_free_locked(task);
        pthread_mutex_unlock(&sim_lock);
        return sim_error(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                         "%s: the legacy stream is used while a blocking stream of its context "
                         "captures (the capture is invalidated)",
                         function);
    }
    if (stream->core.is_default) {
        SIM_HANDLES_EACH(sim_stream_t, s, &sim_streams.live)
        if (ordered && s != stream && s->core.device == stream->core.device && s->blocking &&
            !s->core.queue.stop)
            ordered = sim_order_after_locked(stream, s);
    } else if (stream->blocking) {
        ordered = sim_order_after_locked(stream, sim_defaults[stream->core.device]);
    }
    sim_enqueue_locked(stream, task);
    pthread_mutex_unlock(&sim_lock);
    return ordered ? CUDA_SUCCESS
                   : sim_error(CUDA_ERROR_OUT_OF_MEMORY, "%s: out of host memory", function);
}

void sim_streams_drain(int device, bool drop)
{
    pthread_mutex_lock(&sim_lock);
    SIM_HANDLES_EACH(sim_stream_t, s, &sim_streams.live)
    if (s->core.device == device) {
        sim_stream_wait_locked(&s->core);
        if (drop && !s->core.is_default)
            sim_stream_release_locked(&s->core); /* its worker frees it */
    }
    pthread_cond_broadcast(&sim_changed);
    pthread_mutex_unlock(&sim_lock);
}

/* A capture that met something CUDA refuses: it ends invalid. */
static CUresult sim_capture_refuse(sim_stream_t *stream, CUresult code, const char *what,
                                   const char *function)
{
    pthread_mutex_lock(&sim_lock);
    if (stream->capture != NULL)
        stream->capture->invalid = true;
    pthread_mutex_unlock(&sim_lock);
    return sim_error(code, "%s: %s while the stream is capturing (the capture is invalidated)",
                     function, what);
}

/* Whether `graph` is still being captured (its origin stream is live and
 * capturing it). Compares pointers only: `graph` may be gone. Under sim_lock. */
static bool sim_capture_active_locked(const void *graph)
{
    SIM_HANDLES_EACH(sim_stream_t, s, &sim_streams.live)
    if (graph != NULL && s->capture == graph && !s->capture_joined)
        return true;
    return false;
}

CUresult sim_device_capture_conflict(int device, bool unsafe_call, const char *function)
{
    bool hit = false;
    /* Test-only broken mode of rule CAP-FREE: an unsafe call is refused in
     * RELAXED mode too. */
    bool every_mode = unsafe_call && sim_rule_broken("CAP-FREE");
    pthread_mutex_lock(&sim_lock);
    SIM_HANDLES_EACH(sim_stream_t, s, &sim_streams.live)
    if (s->core.device == device && s->capture != NULL &&
        (!unsafe_call || every_mode || s->capture_mode == CU_STREAM_CAPTURE_MODE_GLOBAL ||
         (s->capture_mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
          pthread_equal(s->capture_thread, pthread_self())))) {
        s->capture->invalid = true;
        hit = true;
    }
    pthread_mutex_unlock(&sim_lock);
    if (!hit)
        return CUDA_SUCCESS;
    return sim_error(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                     "%s: not permitted while a stream of the context captures%s (the capture "
                     "is invalidated)",
                     function, unsafe_call ? " in GLOBAL or this thread's THREAD_LOCAL mode" : "");
}

/* Whether a blocking stream of `device` captures: the legacy stream may not
 * be used then; those captures are invalidated. Under sim_lock. */
static bool sim_legacy_conflict_locked(int device)
{
    bool hit = false;
    SIM_HANDLES_EACH(sim_stream_t, s, &sim_streams.live)
    if (s->core.device == device && s->blocking && s->capture != NULL) {
        s->capture->invalid = true;
        hit = true;
    }
    return hit;
}

static bool sim_capturing(sim_stream_t *stream)
{
    bool capturing;
    pthread_mutex_lock(&sim_lock);
    capturing = stream->capture != NULL;
    pthread_mutex_unlock(&sim_lock);
    return capturing;
}

/* ---------------------------------------------------------------- streams */

SIM_API CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    CUresult code;
    CUcontext ctx;
    sim_stream_t *created;
    SIM_ENTER("cuStreamCreateWithPriority");
    if ((ctx = sim_need_context("cuStreamCreateWithPriority", &code)) == NULL)
        return code;
    if (phStream == NULL || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING) != 0)
        return sim_error(CUDA_ERROR_INVALID_VALUE,
                         "cuStreamCreateWithPriority: phStream NULL or flags %#x unknown", flags);
    (void)priority; /* clamped to the device's range by CUDA; nothing to order here */
    created = sim_stream_new(ctx->device, false, (flags & CU_STREAM_NON_BLOCKING) == 0);
    if (created == NULL)
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "cuStreamCreateWithPriority: no worker thread");
    *phStream = (CUstream)created;
    return CUDA_SUCCESS;
}

/* Returns at once, as CUDA's does: work already queued still runs, then the
 * worker ends and frees the stream; the handle is invalid from now on. */
SIM_API CUresult cuStreamDestroy_v2(CUstream hStream)
{
    CUresult code;
    sim_stream_t *stream;
    SIM_ENTER("cuStreamDestroy_v2");
    if (hStream == NULL || hStream == CU_STREAM_LEGACY)
        return sim_error(CUDA_ERROR_INVALID_HANDLE,
                         "cuStreamDestroy_v2: the legacy default stream cannot be destroyed");
    if ((stream = sim_stream_resolve(hStream, &code, "cuStreamDestroy_v2")) == NULL)
        return code;
    pthread_mutex_lock(&sim_lock);
    if (stream->capture != NULL) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                         "cuStreamDestroy_v2: the stream is capturing");
    }
    sim_stream_release_locked(&stream->core);
    pthread_mutex_unlock(&sim_lock);
    return CUDA_SUCCESS;
}

SIM_API CUresult cuStreamSynchronize(CUstream hStream)
{
    CUresult code;
    sim_stream_t *stream;
    SIM_ENTER("cuStreamSynchronize");
    if ((stream = sim_stream_resolve(hStream, &code, "cuStreamSynchronize")) == NULL)
        return code;
    if (sim_capturing(stream))
        return sim_capture_refuse(stream, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "synchronize",
                                  "cuStreamSynchronize");
    pthread_mutex_lock(&sim_lock);
    sim_stream_wait_locked(&stream->core);
    pthread_mutex_unlock(&sim_lock);
    return sim_need_context("cuStreamSynchronize", &code) != NULL ? CUDA_SUCCESS : code;
}

SIM_API CUresult cuStreamQuery(CUstream hStream)
{
    CUresult code;
    sim_stream_t *stream;
    bool idle;
    SIM_ENTER("cuStreamQuery");
    if ((stream = sim_stream_resolve(hStream, &code, "cuStreamQuery")) == NULL)
        return code;
    if (sim_capturing(stream))
        return sim_capture_refuse(stream, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "query",
                                  "cuStreamQuery");
    pthread_mutex_lock(&sim_lock);
    idle = sim_queue_idle(&stream->core.queue);
    pthread_mutex_unlock(&sim_lock);
    return idle ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

/* ---------------------------------------------------------------- copies and fills */

/* A copy of `size` bytes whose destination and source lie where the call
 * says (want_*: true for device memory). Pageable host sides decide the
 * host synchronisation (see the file comment): CU-PAGEABLE, the Driver
 * API's "API synchronization behavior" page. */
static CUresult sim_copy(CUstream handle, void *dst, const void *src, size_t size, int want_dst,
                         int want_src, const char *function)
{
    CUresult code;
    sim_stream_t *stream;
    sim_mem_kind_t dst_kind, src_kind;
    sim_task_t task = {.kind = SIM_COPY, .dst = dst, .src = src, .size = size};
    bool wait_after;
    if ((stream = sim_stream_resolve(handle, &code, function)) == NULL)
        return code;
    if (size == 0)
        return CUDA_SUCCESS;
    if (dst == NULL || src == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "%s: dst or src is NULL", function);
    dst_kind = sim_memory_kind(dst, size, NULL);
    src_kind = sim_memory_kind(src, size, NULL);
    /* want: 1 device memory, 0 host memory, -1 either (cuMemcpyAsync) */
    if ((want_dst >= 0 && (dst_kind == SIM_MEM_DEVICE) != (want_dst == 1)) ||
        (want_src >= 0 && (src_kind == SIM_MEM_DEVICE) != (want_src == 1)))
        return sim_error(CUDA_ERROR_INVALID_VALUE, "%s: dst %p is %s and src %p is %s (%zu bytes)",
                         function, dst,
                         dst_kind == SIM_MEM_DEVICE ? "device memory" : "not device memory", src,
                         src_kind == SIM_MEM_DEVICE ? "device memory" : "not device memory", size);
    if (sim_capturing(stream)) {
        if (dst_kind == SIM_MEM_HOST || src_kind == SIM_MEM_HOST)
            return sim_capture_refuse(stream, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                                      "a copy with pageable host memory", function);
        return sim_submit(stream, &task, function);
    }
    if (src_kind == SIM_MEM_HOST && dst_kind == SIM_MEM_DEVICE) {
        task.staged = malloc(size);
        if (task.staged == NULL)
            return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "%s: no staging buffer", function);
        memcpy(task.staged, src, size);
    }
    wait_after = dst_kind == SIM_MEM_HOST;
    if ((code = sim_submit(stream, &task, function)) != CUDA_SUCCESS)
        return code;
    if (wait_after) {
        pthread_mutex_lock(&sim_lock);
        sim_stream_wait_locked(&stream->core);
        pthread_mutex_unlock(&sim_lock);
    }
    return CUDA_SUCCESS;
}

#define SIM_PTR(dptr) ((void *)(uintptr_t)(dptr))

SIM_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                      CUstream hStream)
{
    SIM_ENTER("cuMemcpyHtoDAsync_v2");
    return sim_copy(hStream, SIM_PTR(dstDevice), srcHost, ByteCount, 1, 0, "cuMemcpyHtoDAsync_v2");
}

SIM_API CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                      CUstream hStream)
{
    SIM_ENTER("cuMemcpyDtoHAsync_v2");
    return sim_copy(hStream, dstHost, SIM_PTR(srcDevice), ByteCount, 0, 1, "cuMemcpyDtoHAsync_v2");
}

SIM_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                      size_t ByteCount, CUstream hStream)
{
    SIM_ENTER("cuMemcpyDtoDAsync_v2");
    return sim_copy(hStream, SIM_PTR(dstDevice), SIM_PTR(srcDevice), ByteCount, 1, 1,
                    "cuMemcpyDtoDAsync_v2");
}

SIM_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
    SIM_ENTER("cuMemcpyAsync");
    return sim_copy(hStream, SIM_PTR(dst), SIM_PTR(src), ByteCount, -1, -1, "cuMemcpyAsync");
}

SIM_API CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                 CUstream hStream)
{
    CUresult code;
    sim_stream_t *stream;
    sim_task_t task = {.kind = SIM_FILL, .dst = SIM_PTR(dstDevice), .size = N, .value = uc};
    SIM_ENTER("cuMemsetD8Async");
    if ((stream = sim_stream_resolve(hStream, &code, "cuMemsetD8Async")) == NULL)
        return code;
    if (N == 0)
        return CUDA_SUCCESS;
    if (sim_memory_kind(task.dst, N, NULL) != SIM_MEM_DEVICE)
        return sim_error(CUDA_ERROR_INVALID_VALUE,
                         "cuMemsetD8Async: [%#llx, +%zu) is not inside one device allocation",
                         dstDevice, N);
    return sim_submit(stream, &task, "cuMemsetD8Async");
}

/* ---------------------------------------------------------------- stream-ordered memory */

SIM_API CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    CUresult code;
    sim_stream_t *stream;
    void *ptr = NULL;
    SIM_ENTER("cuMemAllocAsync");
    if ((stream = sim_stream_resolve(hStream, &code, "cuMemAllocAsync")) == NULL)
        return code;
    if (dptr == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuMemAllocAsync: dptr is NULL");
    if (sim_capturing(stream))
        return sim_capture_refuse(stream, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                                  "stream-ordered allocation (not simulated in captures)",
                                  "cuMemAllocAsync");
    /* Allocated now: usable by the stream's later work, as CUDA promises.
     * A pool reuses what frees queued earlier on the stream give back, in
     * stream order: short of memory, the sim lets the stream run them. */
    code = sim_device_alloc(stream->core.device, bytesize, &ptr, "cuMemAllocAsync");
    if (code == CUDA_ERROR_OUT_OF_MEMORY) {
        pthread_mutex_lock(&sim_lock);
        sim_stream_wait_locked(&stream->core);
        pthread_mutex_unlock(&sim_lock);
        code = sim_device_alloc(stream->core.device, bytesize, &ptr, "cuMemAllocAsync");
    }
    if (code != CUDA_SUCCESS)
        return code;
    *dptr = (CUdeviceptr)(uintptr_t)ptr;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    CUresult code;
    sim_stream_t *stream;
    sim_task_t task = {.kind = SIM_FREE, .dst = SIM_PTR(dptr)};
    SIM_ENTER("cuMemFreeAsync");
    if ((stream = sim_stream_resolve(hStream, &code, "cuMemFreeAsync")) == NULL)
        return code;
    if (sim_memory_kind(task.dst, 1, NULL) != SIM_MEM_DEVICE)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuMemFreeAsync: %#llx is not device memory",
                         dptr);
    if (sim_capturing(stream))
        return sim_capture_refuse(stream, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                                  "stream-ordered free (not simulated in captures)",
                                  "cuMemFreeAsync");
    return sim_submit(stream, &task, "cuMemFreeAsync");
}

/* ---------------------------------------------------------------- host functions, kernels */

SIM_API CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    CUresult code;
    sim_stream_t *stream;
    sim_task_t task = {.kind = SIM_HOST_FN, .fn = fn, .user_data = userData};
    SIM_ENTER("cuLaunchHostFunc");
    if ((stream = sim_stream_resolve(hStream, &code, "cuLaunchHostFunc")) == NULL)
        return code;
    if (fn == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuLaunchHostFunc: fn is NULL");
    return sim_submit(stream, &task, "cuLaunchHostFunc");
}

CUresult sim_stream_launch(CUstream handle, sim_launch_t *launch, const char *function)
{
    CUresult code;
    sim_task_t task = {.kind = SIM_KERNEL, .launch = launch};
    sim_stream_t *stream = sim_stream_resolve(handle, &code, function);
    if (stream == NULL) {
        sim_launch_free(launch);
        return code;
    }
    return sim_submit(stream, &task, function);
}

/* ---------------------------------------------------------------- events */

/* `handle` as a live event; NULL with the code in *code. */
static struct CUevent_st *sim_event_resolve(CUevent handle, CUresult *code, const char *function)
{
    struct CUevent_st *found = NULL;
    if (sim_need_context(function, code) == NULL)
        return NULL;
    pthread_mutex_lock(&sim_lock);
    if (sim_handles_contains(&sim_events, handle))
        found = handle;
    pthread_mutex_unlock(&sim_lock);
    if (found == NULL)
        *code = sim_error(CUDA_ERROR_INVALID_HANDLE, "%s: %p is not a live event", function,
                          (void *)handle);
    return found;
}

SIM_API CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    CUresult code;
    CUcontext ctx;
    struct CUevent_st *event;
    SIM_ENTER("cuEventCreate");
    if ((ctx = sim_need_context("cuEventCreate", &code)) == NULL)
        return code;
    if (phEvent == NULL ||
        (Flags & ~(unsigned)(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING |
                             CU_EVENT_INTERPROCESS)) != 0 ||
        ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING)))
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuEventCreate: phEvent NULL or flags %#x",
                         Flags);
    if ((event = calloc(1, sizeof *event)) == NULL)
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "cuEventCreate: out of host memory");
    event->flags = Flags;
    event->device = ctx->device;
    pthread_mutex_lock(&sim_lock);
    sim_handles_add(&sim_events, event);
    pthread_mutex_unlock(&sim_lock);
    *phEvent = event;
    return CUDA_SUCCESS;
}

/* Under sim_lock: unlink `event`; freed now or by the last task naming it. */
static void sim_event_destroy_locked(struct CUevent_st *event)
{
    sim_handles_remove(&sim_events, event);
    if (sim_event_destroy(&event->marks))
        free(event);
}

/* Returns at once; a record still queued completes first (CUDA's rule). */
SIM_API CUresult cuEventDestroy_v2(CUevent hEvent)
{
    CUresult code;
    struct CUevent_st *event;
    SIM_ENTER("cuEventDestroy_v2");
    if ((event = sim_event_resolve(hEvent, &code, "cuEventDestroy_v2")) == NULL)
        return code;
    pthread_mutex_lock(&sim_lock);
    sim_event_destroy_locked(event);
    pthread_mutex_unlock(&sim_lock);
    return CUDA_SUCCESS;
}

void sim_events_drop(int device)
{
    pthread_mutex_lock(&sim_lock);
    for (sim_handle_t *h = sim_events.head, *next; h != NULL; h = next) {
        struct CUevent_st *e = (struct CUevent_st *)h;
        next = h->next;
        if (e->device == device)
            sim_event_destroy_locked(e);
    }
    pthread_mutex_unlock(&sim_lock);
}

SIM_API CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    CUresult code;
    struct CUevent_st *event;
    sim_stream_t *stream;
    sim_task_t task = {.kind = SIM_RECORD};
    SIM_ENTER("cuEventRecord");
    if ((event = sim_event_resolve(hEvent, &code, "cuEventRecord")) == NULL ||
        (stream = sim_stream_resolve(hStream, &code, "cuEventRecord")) == NULL)
        return code;
    if (event->device != stream->core.device)
        return sim_error(CUDA_ERROR_INVALID_HANDLE,
                         "cuEventRecord: the event is device %d's, the stream device %d's",
                         event->device, stream->core.device);
    pthread_mutex_lock(&sim_lock);
    if (stream->capture != NULL) {
        event->captured_in = stream->capture; /* orders the capture; no state to change */
        event->captured_from = stream;
        event->captured_at = stream->capture_nodes;
        pthread_mutex_unlock(&sim_lock);
        return CUDA_SUCCESS;
    }
    event->captured_in = NULL;
    event->captured_from = NULL;
    task.event = event;
    task.generation = sim_event_queue_record(&event->marks);
    pthread_mutex_unlock(&sim_lock);
    return sim_submit(stream, &task, "cuEventRecord");
}

/* An event never recorded is complete: waiting on it waits for nothing. */
SIM_API CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    CUresult code;
    struct CUevent_st *event;
    sim_stream_t *stream;
    sim_task_t task = {.kind = SIM_WAIT};
    SIM_ENTER("cuStreamWaitEvent");
    if ((stream = sim_stream_resolve(hStream, &code, "cuStreamWaitEvent")) == NULL ||
        (event = sim_event_resolve(hEvent, &code, "cuStreamWaitEvent")) == NULL)
        return code;
    if (Flags != 0)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuStreamWaitEvent: flags %#x", Flags);
    pthread_mutex_lock(&sim_lock);
    /* Test-only broken mode of rule CAP-JOIN: the wait is dropped and the
     * stream stays outside the capture, running its later work at once. */
    if (stream->capture == NULL && sim_capture_active_locked(event->captured_in) &&
        sim_rule_broken("CAP-JOIN")) {
        pthread_mutex_unlock(&sim_lock);
        return CUDA_SUCCESS;
    }
    if (stream->capture == NULL && sim_capture_active_locked(event->captured_in)) {
        /* CAP-JOIN, a fork: the stream joins the capture (CUDA programming
         * guide, "Cross-stream Dependencies and Events"); it must be joined
         * back. */
        const sim_stream_t *origin = event->captured_from;
        stream->capture = (struct CUgraph_st *)event->captured_in;
        stream->capture_joined = true;
        stream->capture_unjoined = true;
        stream->capture_nodes = 0;
        stream->capture_mode = origin->capture_mode;
        stream->capture_thread = origin->capture_thread;
        pthread_mutex_unlock(&sim_lock);
        return CUDA_SUCCESS;
    }
    if (stream->capture != NULL) {
        bool inside = event->captured_in == stream->capture;
        sim_stream_t *from = event->captured_from;
        /* A join: `from`'s work up to the record is ordered before this
         * stream's, so `from` is joined when that was its last node. */
        if (inside && from != stream && from->capture == stream->capture &&
            from->capture_nodes == event->captured_at)
            from->capture_unjoined = false;
        pthread_mutex_unlock(&sim_lock);
        if (inside)
            return CUDA_SUCCESS; /* already in capture order */
        return sim_capture_refuse(stream, CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
                                  "a wait on an event recorded outside the capture",
                                  "cuStreamWaitEvent");
    }
    if (sim_event_done(&event->marks)) {
        pthread_mutex_unlock(&sim_lock);
        return CUDA_SUCCESS;
    }
    task.event = event;
    task.generation = sim_event_queue_wait(&event->marks);
    pthread_mutex_unlock(&sim_lock);
    return sim_submit(stream, &task, "cuStreamWaitEvent");
}

/* CAP-QUERY-CAPTURED: CUDA_ERROR_CAPTURED_EVENT for an event last recorded
 * in a capture: it stands for no work that will run (error 907's text; the
 * capture-mode text of cuThreadExchangeStreamCaptureMode forbids
 * cuEventQuery of it even in RELAXED mode). A capture still underway is
 * invalidated (harsher: the guide invalidates captures on any prohibited
 * call). */
static CUresult sim_event_captured(struct CUevent_st *event, const char *function)
{
    bool captured, active;
    /* Test-only broken mode of rule CAP-QUERY-CAPTURED: such an event
     * answers as a complete one. */
    if (sim_rule_broken("CAP-QUERY-CAPTURED"))
        return CUDA_SUCCESS;
    pthread_mutex_lock(&sim_lock);
    captured = event->captured_in != NULL;
    active = captured && sim_capture_active_locked(event->captured_in);
    if (active)
        ((struct CUgraph_st *)event->captured_in)->invalid = true;
    pthread_mutex_unlock(&sim_lock);
    if (!captured)
        return CUDA_SUCCESS;
    return sim_error(CUDA_ERROR_CAPTURED_EVENT,
                     "%s: the event was last recorded in a stream capture%s", function,
                     active ? " (the capture is invalidated)" : "");
}

SIM_API CUresult cuEventSynchronize(CUevent hEvent)
{
    CUresult code;
    struct CUevent_st *event;
    SIM_ENTER("cuEventSynchronize");
    if ((event = sim_event_resolve(hEvent, &code, "cuEventSynchronize")) == NULL)
        return code;
    if ((code = sim_event_captured(event, "cuEventSynchronize")) != CUDA_SUCCESS)
        return code;
    pthread_mutex_lock(&sim_lock);
    event->marks.refs++; /* a destroy meanwhile leaves the event to this wait */
    sim_event_synchronize(&event->marks);
    if (sim_event_release_task(&event->marks))
        free(event);
    pthread_mutex_unlock(&sim_lock);
    return CUDA_SUCCESS;
}

SIM_API CUresult cuEventQuery(CUevent hEvent)
{
    CUresult code;
    struct CUevent_st *event;
    bool done;
    SIM_ENTER("cuEventQuery");
    if ((event = sim_event_resolve(hEvent, &code, "cuEventQuery")) == NULL)
        return code;
    if ((code = sim_event_captured(event, "cuEventQuery")) != CUDA_SUCCESS)
        return code;
    pthread_mutex_lock(&sim_lock);
    done = sim_event_done(&event->marks);
    pthread_mutex_unlock(&sim_lock);
    return done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

/* Both events must time (no CU_EVENT_DISABLE_TIMING: CU-TIMING,
 * cuEventElapsedTime) and have been recorded; CUDA_ERROR_NOT_READY while
 * either record is pending. */
static CUresult sim_elapsed(float *ms, CUevent hStart, CUevent hEnd, const char *function)
{
    CUresult code;
    struct CUevent_st *start, *end;
    if ((start = sim_event_resolve(hStart, &code, function)) == NULL ||
        (end = sim_event_resolve(hEnd, &code, function)) == NULL)
        return code;
    if (ms == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "%s: pMilliseconds is NULL", function);
    pthread_mutex_lock(&sim_lock);
    if ((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING)
        code = sim_error(CUDA_ERROR_INVALID_HANDLE, "%s: an event has CU_EVENT_DISABLE_TIMING",
                         function);
    else if (start->marks.recorded == 0 || end->marks.recorded == 0)
        code = sim_error(CUDA_ERROR_INVALID_HANDLE, "%s: an event was never recorded", function);
    else if (!sim_event_done(&start->marks) || !sim_event_done(&end->marks))
        code = CUDA_ERROR_NOT_READY;
    else
        *ms = (float)((double)((int64_t)(end->marks.time_ns - start->marks.time_ns)) / 1e6);
    pthread_mutex_unlock(&sim_lock);
    return code;
}

SIM_API CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    SIM_ENTER("cuEventElapsedTime");
    return sim_elapsed(pMilliseconds, hStart, hEnd, "cuEventElapsedTime");
}

SIM_API CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    SIM_ENTER("cuEventElapsedTime_v2");
    return sim_elapsed(pMilliseconds, hStart, hEnd, "cuEventElapsedTime_v2");
}

/* ---------------------------------------------------------------- graphs */

SIM_API CUresult cuStreamBeginCapture_v2(CUstream hStream, int mode)
{
    CUresult code;
    sim_stream_t *stream;
    struct CUgraph_st *graph;
    SIM_ENTER("cuStreamBeginCapture_v2");
    if ((stream = sim_stream_resolve(hStream, &code, "cuStreamBeginCapture_v2")) == NULL)
        return code;
    if (stream->core.is_default)
        return sim_error(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                         "cuStreamBeginCapture_v2: the legacy stream cannot be captured");
    if (mode < CU_STREAM_CAPTURE_MODE_GLOBAL || mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuStreamBeginCapture_v2: mode %d", mode);
    if ((graph = calloc(1, sizeof *graph)) == NULL)
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "cuStreamBeginCapture_v2: out of host memory");
    pthread_mutex_lock(&sim_lock);
    if (stream->capture != NULL) {
        pthread_mutex_unlock(&sim_lock);
        free(graph);
        return sim_error(CUDA_ERROR_ILLEGAL_STATE,
                         "cuStreamBeginCapture_v2: the stream is already capturing");
    }
    stream->capture = graph;
    stream->capture_joined = false;
    stream->capture_unjoined = false;
    stream->capture_nodes = 0;
    stream->capture_mode = mode;
    stream->capture_thread = pthread_self();
    pthread_mutex_unlock(&sim_lock);
    return CUDA_SUCCESS;
}

static void sim_graph_free_locked(struct CUgraph_st *graph)
{
    while (graph->nodes.head != NULL) {
        sim_task_t *node = (sim_task_t *)graph->nodes.head;
        graph->nodes.head = node->node.next;
        sim_task_free_locked(node);
    }
    free(graph);
}

SIM_API CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
    CUresult code;
    sim_stream_t *stream;
    struct CUgraph_st *graph;
    bool invalid, unjoined = false;
    SIM_ENTER("cuStreamEndCapture");
    if ((stream = sim_stream_resolve(hStream, &code, "cuStreamEndCapture")) == NULL)
        return code;
    if (phGraph == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuStreamEndCapture: phGraph is NULL");
    pthread_mutex_lock(&sim_lock);
    graph = stream->capture;
    if (graph != NULL && stream->capture_joined) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
                         "cuStreamEndCapture: the stream joined a capture begun on another "
                         "stream; end it there");
    }
    /* Every joined stream leaves the capture; one not joined back makes it
     * fail (CUDA_ERROR_STREAM_CAPTURE_UNJOINED, 904). */
    if (graph != NULL) {
        SIM_HANDLES_EACH(sim_stream_t, s, &sim_streams.live)
        if (s != stream && s->capture == graph) {
            unjoined = unjoined || s->capture_unjoined;
            s->capture = NULL;
            s->capture_joined = s->capture_unjoined = false;
        }
    }
    unjoined = unjoined && graph != NULL && !graph->invalid; /* invalidated reads first */
    invalid = graph != NULL && (graph->invalid || unjoined);
    stream->capture = NULL;
    if (graph != NULL && invalid)
        sim_graph_free_locked(graph);
    pthread_mutex_unlock(&sim_lock);
    if (graph == NULL)
        return sim_error(CUDA_ERROR_ILLEGAL_STATE,
                         "cuStreamEndCapture: the stream is not capturing");
    if (unjoined) {
        *phGraph = NULL;
        return sim_error(CUDA_ERROR_STREAM_CAPTURE_UNJOINED,
                         "cuStreamEndCapture: a stream that joined the capture was not joined "
                         "back before its end");
    }
    if (invalid) {
        *phGraph = NULL;
        return sim_error(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
                         "cuStreamEndCapture: the capture was invalidated");
    }
    graph->instantiable = true;
    *phGraph = graph;
    return CUDA_SUCCESS;
}

/* Graphs are not tracked in a list: a handle the sim did not make is the
 * caller's undefined behaviour, as with CUDA. NULL is refused. */
SIM_API CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
                                             unsigned long long flags)
{
    CUresult code;
    CUcontext ctx;
    struct CUgraphExec_st *exec;
    SIM_ENTER("cuGraphInstantiateWithFlags");
    if ((ctx = sim_need_context("cuGraphInstantiateWithFlags", &code)) == NULL)
        return code;
    if (phGraphExec == NULL || hGraph == NULL || !hGraph->instantiable || flags != 0)
        return sim_error(CUDA_ERROR_INVALID_VALUE,
                         "cuGraphInstantiateWithFlags: NULL argument or flags %#llx", flags);
    if ((exec = calloc(1, sizeof *exec)) == NULL)
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "cuGraphInstantiateWithFlags: out of memory");
    exec->refs = 1;
    exec->device = ctx->device;
    pthread_mutex_lock(&sim_lock);
    for (sim_queue_task_t *link = hGraph->nodes.head; link != NULL; link = link->next) {
        const sim_task_t *node = (const sim_task_t *)link;
        sim_task_t *copy = malloc(sizeof *copy);
        if (copy == NULL ||
            (node->launch != NULL && (copy->launch = sim_launch_copy(node->launch)) == NULL)) {
            free(copy);
            sim_exec_release_locked(exec);
            pthread_mutex_unlock(&sim_lock);
            return sim_error(CUDA_ERROR_OUT_OF_MEMORY,
                             "cuGraphInstantiateWithFlags: out of memory");
        }
        sim_launch_t *launch = copy->launch;
        *copy = *node;
        copy->launch = node->launch != NULL ? launch : NULL;
        copy->event = NULL; /* event nodes are no-ops when the graph runs */
        sim_queue_list_push(&exec->nodes, &copy->node);
    }
    pthread_mutex_unlock(&sim_lock);
    *phGraphExec = exec;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    CUresult code;
    sim_stream_t *stream;
    sim_task_t task = {.kind = SIM_GRAPH};
    SIM_ENTER("cuGraphLaunch");
    if ((stream = sim_stream_resolve(hStream, &code, "cuGraphLaunch")) == NULL)
        return code;
    if (hGraphExec == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuGraphLaunch: hGraphExec is NULL");
    if (hGraphExec->device != stream->core.device)
        return sim_error(CUDA_ERROR_INVALID_VALUE,
                         "cuGraphLaunch: the graph was instantiated on device %d, the stream "
                         "is device %d's",
                         hGraphExec->device, stream->core.device);
    if (sim_capturing(stream))
        return sim_capture_refuse(stream, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                                  "a graph launch (child graphs are not simulated)",
                                  "cuGraphLaunch");
    /* Test-only broken mode of rule CAP-ADDR: the replay does not write the
     * addresses its capture saw (nothing is queued). */
    if (sim_rule_broken("CAP-ADDR"))
        return CUDA_SUCCESS;
    pthread_mutex_lock(&sim_lock);
    hGraphExec->refs++;
    pthread_mutex_unlock(&sim_lock);
    task.graph = hGraphExec;
    return sim_submit(stream, &task, "cuGraphLaunch");
}

/* A launched graph still running keeps its nodes until it finishes. */
SIM_API CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    SIM_ENTER("cuGraphExecDestroy");
    if (hGraphExec == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuGraphExecDestroy: hGraphExec is NULL");
    pthread_mutex_lock(&sim_lock);
    sim_exec_release_locked(hGraphExec);
    pthread_mutex_unlock(&sim_lock);
    return CUDA_SUCCESS;
}

SIM_API CUresult cuGraphDestroy(CUgraph hGraph)
{
    SIM_ENTER("cuGraphDestroy");
    if (hGraph == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuGraphDestroy: hGraph is NULL");
    pthread_mutex_lock(&sim_lock);
    sim_graph_free_locked(hGraph);
    pthread_mutex_unlock(&sim_lock);
    return CUDA_SUCCESS;
}
