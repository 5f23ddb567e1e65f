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
 * the stream waits for it to finish. aclrtLaunchHostFunc runs its function
 * on the stream's own worker thread, and the stream waits for it.
 * The vendor rules it enforces (C*, E* in tests/sim/README.md) each cite
 * their source where they are checked.
 * Everything shared is guarded by sim_lock (acl_sim_internal.h); the queue
 * and its worker loop are tests/sim/common/sim_queue.h's. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
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
    SIM_CALLBACK,
    SIM_HOSTFUNC
} sim_task_kind_t;

typedef struct sim_event {
    sim_handle_t handle; /* first: in sim_events while not destroyed */
    unsigned flags;
    int device;
    sim_event_marks_t marks; /* records, and the queued tasks naming it */
    bool ex;                 /* aclrtCreateEventExWithFlag (new mode) */
    bool pooled;             /* holds one of the device's WithFlag ids (rule E1) */
    bool violated;           /* destroyed with work queued on it (rule E3) */
    unsigned long waits;     /* queued aclrtStreamWaitEvent tasks naming it */
} sim_event_t;

typedef struct sim_report {
    aclrtCallback fn;
    void *user_data;
    uint64_t thread_id;
    int device;       /* the stream's device: the runner needs its context (C1) */
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
    bool used_callback, used_hostfunc; /* rule C9: one mechanism per stream */
    bool failed;                       /* rule E3: a task met a destroyed event */
};

static sim_report_t *sim_reports;                    /* callbacks waiting for a thread */
static sim_handles_t sim_events;                     /* every event not destroyed */
static unsigned long sim_event_ids[SIM_MAX_DEVICES]; /* WithFlag ids in use (rule E1) */
static bool sim_device_failed[SIM_MAX_DEVICES];      /* a stream of it failed (rule E3) */

/* Under sim_lock: free an event whose last queued task has run or that was
 * destroyed with none; its WithFlag id goes back to the pool. */
static void sim_event_free(sim_event_t *event)
{
    /* ACCEL_SIM_BREAK=E1, the test-only broken mode of rule E1: a
     * destroyed event's id never returns to the pool. */
    if (event->pooled && !sim_rule_broken("E1"))
        sim_event_ids[event->device]--;
    free(event);
}

/* Under sim_lock: rule E3's consequence for the stream running `task`. */
static void sim_stream_fail(sim_stream_t *stream)
{
    stream->failed = true;
    sim_device_failed[stream->core.device] = true;
}

/* ---------------------------------------------------------------- workers */

/* Runs one task; called with sim_lock held, may drop it while waiting. */
static void sim_run(sim_queue_t *queue, sim_queue_task_t *node)
{
    sim_task_t *task = (sim_task_t *)node;
    sim_stream_t *stream = (sim_stream_t *)((char *)queue - offsetof(sim_stream_t, core.queue));
    if (task->event != NULL && task->event->violated) {
        /* Rule E3: the destroyed event's id may already name another event,
         * so the task cannot mean what it was queued for: the stream fails
         * (a record still counts as reached, so that no wait hangs). */
        if (task->kind == SIM_RECORD)
            sim_event_reach(&task->event->marks, task->generation);
        sim_stream_fail(stream);
        return;
    }
    switch (task->kind) {
    case SIM_COPY: sim_queue_memmove(&sim_lock, task->dst, task->src, task->size); break;
    case SIM_FILL: sim_queue_memset(&sim_lock, task->dst, task->value, task->size); break;
    case SIM_RECORD: sim_event_reach(&task->event->marks, task->generation); break;
    case SIM_WAIT:
        sim_event_wait(&task->event->marks, task->generation);
        if (task->event->violated)
            sim_stream_fail(stream);
        break;
    case SIM_HOSTFUNC:
        /* ACCEL_SIM_BREAK=C10, the test-only broken mode of rule C10: the
         * stream passes its host functions by without running them. */
        if (sim_rule_broken("C10"))
            break;
        pthread_mutex_unlock(&sim_lock);
        sim_set_in_callback(true);
        task->fn(task->user_data);
        sim_set_in_callback(false);
        pthread_mutex_lock(&sim_lock);
        break;
    case SIM_CALLBACK: {
        sim_report_t *report = calloc(1, sizeof *report);
        if (report == NULL)
            abort(); /* a test harness: no way to report this to the caller */
        report->fn = task->fn;
        report->user_data = task->user_data;
        report->thread_id = task->thread_id;
        report->device = stream->core.device;
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
    if (task->event != NULL && task->kind == SIM_WAIT)
        task->event->waits--;
    if (task->event != NULL && sim_event_release_task(&task->event->marks))
        sim_event_free(task->event);
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

bool sim_streams_drain(int device)
{
    bool failed;
    sim_stream_drain_device(&sim_streams, device);
    pthread_mutex_lock(&sim_lock);
    failed = sim_device_failed[device];
    pthread_mutex_unlock(&sim_lock);
    return failed;
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
    bool failed;
    SIM_ENTER("aclrtSynchronizeStream");
    if ((stream = sim_stream_resolve(handle, &code, "aclrtSynchronizeStream")) == NULL)
        return code;
    if ((code = sim_refuse_in_callback("aclrtSynchronizeStream")) != ACL_SUCCESS)
        return code;
    sim_stream_wait(&stream->core);
    pthread_mutex_lock(&sim_lock);
    failed = stream->failed;
    pthread_mutex_unlock(&sim_lock);
    if (failed)
        return sim_error(ACL_ERROR_RT_INTERNAL_ERROR,
                         "aclrtSynchronizeStream: the stream failed: a task of it named an event "
                         "destroyed while queued (rule E3)");
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
    /* M7 (CANN 8.5 aclrtHostRegister page): a MAPPED address "cannot be used
     * for memory operations, such as memory copy". */
    if (sim_is_mapped_address(dst) || sim_is_mapped_address(src))
        return sim_error(ACL_ERROR_RT_PARAM_INVALID,
                         "%s: %p is an aclrtHostRegister(MAPPED) device address, which cannot be "
                         "used for memory copies",
                         function, sim_is_mapped_address(dst) ? dst : (void *)src);
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

/* What aclrtMemcpyAsync refuses beyond aclrtMemcpy (after sim_check_copy
 * has matched the kind with the pointers):
 * - M1, host to host: ACL_ERROR_RT_FEATURE_NOT_SUPPORT (hicann/runtime
 *   src/runtime/api/impl/api_error.cc "H2H is not supported"; CANN 8.0.0
 *   and 8.5 aclrtMemcpyAsync pages).
 * - M2, device to device with `dst` or `src` not 64-byte aligned:
 *   ACL_ERROR_RT_ADDR_UNALIGNED. acl_rt.h (aclrtMemcpyAsync, Restriction):
 *   "For on-chip Device-to-Device memory copy, both the source and
 *   destination addresses must be 64-byte aligned". The runtime has no such
 *   check (and torch_npu issues unaligned D2D copies): refusing is the
 *   sim's harsher reading, and the code is its choice.
 * - M3, with ACCEL_SIM_ACL_PAGEABLE=refuse: host to device or device to
 *   host whose host side is neither aclrtMallocHost memory nor a registered
 *   range: 107000. CANN 8.0.RC3 and older: "no error, but unpredictable
 *   errors when the task runs" (hiascend.com 80RC3 aclcppdevg_03_0106); the
 *   sim refuses at once (harsher). Unset, the copy runs as CANN 8.5's does
 *   (hicann/runtime api_error.cc: synchronous there; queued here). */
static aclError sim_check_async_copy(void *dst, const void *src, size_t count, aclrtMemcpyKind kind)
{
    const char *pageable = getenv("ACCEL_SIM_ACL_PAGEABLE");
    const void *host = kind == ACL_MEMCPY_HOST_TO_DEVICE   ? src
                       : kind == ACL_MEMCPY_DEVICE_TO_HOST ? dst
                                                           : NULL;
    /* ACCEL_SIM_BREAK=M3, the test-only broken mode of rule M3: even
     * memory ACL page-locked counts as pageable and is refused. */
    if (host != NULL && count > 0 && sim_rule_broken("M3"))
        return sim_error(ACL_ERROR_RT_PARAM_INVALID,
                         "aclrtMemcpyAsync: host memory %p is pageable (ACCEL_SIM_BREAK=M3)", host);
    if (host != NULL && count > 0 && pageable != NULL && strcmp(pageable, "refuse") == 0 &&
        !sim_is_acl_host_range(host, count))
        return sim_error(ACL_ERROR_RT_PARAM_INVALID,
                         "aclrtMemcpyAsync: host memory %p..+%zu is not from aclrtMallocHost or "
                         "registered (ACCEL_SIM_ACL_PAGEABLE=refuse plays CANN 8.0.RC3 and "
                         "older, where such a copy is unpredictable)",
                         host, count);
    /* ACCEL_SIM_BREAK=M1, the test-only broken mode of rule M1: host to
     * host is queued as any copy. */
    if (kind == ACL_MEMCPY_HOST_TO_HOST && !sim_rule_broken("M1"))
        return sim_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "aclrtMemcpyAsync: host-to-host copies are not supported");
    if (kind == ACL_MEMCPY_DEVICE_TO_DEVICE && (((uintptr_t)dst | (uintptr_t)src) % 64) != 0 &&
        !sim_rule_broken("M2"))
        return sim_error(ACL_ERROR_RT_ADDR_UNALIGNED,
                         "aclrtMemcpyAsync: device-to-device copy with dst %p, src %p: both must "
                         "be 64-byte aligned",
                         dst, src);
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
    if ((code = sim_check_async_copy(dst, src, count, kind)) != ACL_SUCCESS)
        return code;
    /* ACCEL_SIM_BREAK=M2, the test-only broken mode of rule M2: an
     * unaligned device-to-device copy is taken, and the low six bits of
     * both addresses are dropped, as hardware that needs the alignment
     * might. */
    if (kind == ACL_MEMCPY_DEVICE_TO_DEVICE && sim_rule_broken("M2")) {
        task.dst = (void *)((uintptr_t)dst & ~(uintptr_t)63);
        task.src = (const void *)((uintptr_t)src & ~(uintptr_t)63);
    }
    return sim_submit(stream, &task, "aclrtMemcpyAsync");
}

/* M9: the memory must be device memory or ACL host memory (aclrtMallocHost,
 * a registered range). CANN's aclrtMemsetAsync page (hicann/runtime
 * docs/zh/api_ref/11-03): host memory not allocated by ACL is undefined
 * behaviour; the sim refuses it (harsher; the code is its choice). */
static aclError sim_check_fill(void *devPtr, size_t maxCount, size_t count, const char *function)
{
    if (devPtr == NULL || count > maxCount)
        return sim_error(ACL_ERROR_INVALID_PARAM, "%s: NULL pointer or count %zu > maxCount %zu",
                         function, count, maxCount);
    if (count > 0 && !sim_is_device_range(devPtr, count) && !sim_is_acl_host_range(devPtr, count))
        return sim_error(ACL_ERROR_RT_PARAM_INVALID,
                         "%s: %p..+%zu is neither device memory nor host memory ACL allocated or "
                         "registered",
                         function, devPtr, count);
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
    /* ACCEL_SIM_BREAK=M9, the test-only broken mode of rule M9: what M9
     * calls undefined (here: nothing written) happens to device memory
     * too. */
    if (sim_rule_broken("M9"))
        return ACL_SUCCESS;
    return sim_submit(stream, &task, "aclrtMemsetAsync");
}

/* ---------------------------------------------------------------- events */

/* Rule E1: the per-device pool of WithFlag event ids:
 * ACCEL_SIM_ACL_EVENT_LIMIT, default 65536 (A2/A3/950/310B; 65535 on 910,
 * 1023 on 310P: CANN runtime docs/zh/api_ref/07_event_management.md
 * aclrtCreateEventWithFlag constraints). Under sim_lock. */
static unsigned long sim_event_limit(void)
{
    static unsigned long limit;
    if (limit == 0) {
        const char *text = getenv("ACCEL_SIM_ACL_EVENT_LIMIT");
        char *end = NULL;
        unsigned long value = text != NULL ? strtoul(text, &end, 10) : 0;
        limit = value > 0 && end != NULL && *end == '\0' ? value : 65536;
    }
    return limit;
}

/* `ex`: made by aclrtCreateEventExWithFlag (no pool, CUDA-like rules). */
static aclError sim_event_new(aclrtEvent *event, uint32_t flag, bool ex, const char *function)
{
    aclError code;
    sim_event_t *created;
    /* Rule E1: SYNC (or EXTERNAL) WithFlag events take an id at creation
     * (hicann/runtime api_impl.cc EventCreate → GenEventId); none left is
     * 207007 ACL_ERROR_RT_NO_EVENT_RESOURCE (errcode_manage.cc:93). The
     * runtime may instead wait for an id (event.cc AllocEventIdResource): the
     * sim fails, the harsher reading. */
    bool pooled = !ex && (flag & (ACL_EVENT_SYNC | ACL_EVENT_EXTERNAL)) != 0;
    if ((code = sim_need_device(function)) != ACL_SUCCESS)
        return code;
    if (event == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "%s: event is NULL", function);
    created = calloc(1, sizeof *created);
    if (created == NULL)
        return sim_error(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", function);
    created->flags = flag;
    created->ex = ex;
    created->pooled = pooled;
    created->device = sim_current_device();
    pthread_mutex_lock(&sim_lock);
    if (pooled && sim_event_ids[created->device] >= sim_event_limit()) {
        unsigned long limit = sim_event_limit();
        pthread_mutex_unlock(&sim_lock);
        free(created);
        return sim_error(ACL_ERROR_RT_NO_EVENT_RESOURCE,
                         "%s: device %d has no event id left (%lu in use; rule E1)", function,
                         sim_current_device(), limit);
    }
    if (pooled)
        sim_event_ids[created->device]++;
    sim_handles_add(&sim_events, created);
    pthread_mutex_unlock(&sim_lock);
    *event = created;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtCreateEvent(aclrtEvent *event)
{
    SIM_ENTER("aclrtCreateEvent");
    /* Not a rule: the backend never calls it; modelled as an Ex event. */
    return sim_event_new(event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE, true, "aclrtCreateEvent");
}

SIM_API aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    SIM_ENTER("aclrtCreateEventWithFlag");
    return sim_event_new(event, flag, false, "aclrtCreateEventWithFlag");
}

/* Rule E2: new-mode events (acl_rt.h:1660; CANN 8.0.0+, leave it out with
 * OMIT for older runtimes): no id pool, reusable, destroyed asynchronously. */
SIM_API aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    SIM_ENTER("aclrtCreateEventExWithFlag");
    return sim_event_new(event, flag, true, "aclrtCreateEventExWithFlag");
}

/* An Ex event may go with a record or wait still queued (freed when the last
 * has run). A WithFlag event may not (rule E3: acl_rt.h:1666-1679 "ensure
 * the tasks involved in aclrtSynchronizeEvent or aclrtStreamWaitEvent are
 * completed before" destroying; torch_npu NPUEventManager.cpp defers the
 * destroy for that reason): the sim records a violation, returns 0 as the
 * runtime does, and fails every stream whose queued task still names it. */
SIM_API aclError aclrtDestroyEvent(aclrtEvent event)
{
    sim_event_t *e = event;
    bool free_now, violated = false;
    SIM_ENTER("aclrtDestroyEvent");
    if (e == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent: event is NULL");
    pthread_mutex_lock(&sim_lock);
    sim_handles_remove(&sim_events, e);
    free_now = sim_event_destroy(&e->marks);
    /* ACCEL_SIM_BREAK=E3, the test-only broken mode of rule E3: destroying
     * a WithFlag event fails every stream of its device, even once its
     * record and waits completed. */
    if (!e->ex && sim_rule_broken("E3")) {
        SIM_HANDLES_EACH(sim_stream_t, s, &sim_streams.live)
        if (s->core.device == e->device)
            sim_stream_fail(s);
    }
    /* ACCEL_SIM_BREAK=E2, the test-only broken mode of rule E2: an Ex
     * event may not go while queued either (rule E3's consequence). */
    if (!free_now && (!e->ex || sim_rule_broken("E2"))) {
        e->violated = violated = true;
        pthread_cond_broadcast(&sim_changed);
    }
    if (free_now)
        sim_event_free(e);
    pthread_mutex_unlock(&sim_lock);
    if (violated)
        sim_violation("E3", "aclrtDestroyEvent on a WithFlag event while a record or wait naming "
                            "it is still queued");
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
    task->event->waits++;
    sim_enqueue(stream, task);
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    sim_event_t *e = event;
    aclError code;
    SIM_ENTER("aclrtSynchronizeEvent");
    if (e == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeEvent: event is NULL");
    if ((code = sim_refuse_in_callback("aclrtSynchronizeEvent")) != ACL_SUCCESS)
        return code;
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
    /* Rule E4: a WithFlag (old-mode) event never recorded is RT_EVENT_INIT,
     * NOT_READY; an Ex event then answers COMPLETE (hicann/runtime
     * src/runtime/core/src/event/event.cc:1189-1198 Event::QueryEventStatus). */
    pthread_mutex_lock(&sim_lock);
    /* ACCEL_SIM_BREAK=E4, the test-only broken mode of rule E4: a WithFlag
     * event never recorded answers COMPLETE. */
    *status = sim_event_done(&e->marks) && (e->ex || e->marks.recorded > 0 || sim_rule_broken("E4"))
                  ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                  : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

/* Rule E6: whether the aclrtStreamWaitEvent tasks naming a WithFlag event
 * have all run (acl_rt.h:1745; COMPLETE 0, NOT_READY 1: the opposite
 * polarity of the recorded status). On an Ex event it is an error
 * (torch_npu AclInterface.cpp:302-307 "aclrtQueryEventWaitStatus [is] not
 * supported"). Older runtimes lack it: leave it out with OMIT. */
SIM_API aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    sim_event_t *e = event;
    SIM_ENTER("aclrtQueryEventWaitStatus");
    if (e == NULL || status == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventWaitStatus: NULL argument");
    if (e->ex)
        return sim_error(ACL_ERROR_RT_PARAM_INVALID,
                         "aclrtQueryEventWaitStatus: not supported on an Ex event (rule E6)");
    pthread_mutex_lock(&sim_lock);
    *status = e->waits == 0 ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
    /* ACCEL_SIM_BREAK=E6, the test-only broken mode of rule E6: the
     * recorded status's polarity (COMPLETE 1, NOT_READY 0). */
    if (sim_rule_broken("E6"))
        *status = e->waits == 0 ? 1 : 0;
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

/* Rules C2-C4 (CANN runtime docs/zh/api_ref/12_execution_control.md
 * aclrtSubscribeReport constraints; enforced in hicann/runtime
 * src/runtime/core/src/utils/subscribe.cc CbSubscribe::CheckForInsert and
 * ::Delete): a thread serves streams of one device only (another device:
 * 107012), a stream has one thread (a second subscription: 107011).
 * Rule C9 (same doc, aclrtLaunchCallback: the two callback interfaces are
 * not to be mixed on one stream): 107011 once the stream used host
 * functions, the harsher reading of "may be abnormal". */
SIM_API aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream handle)
{
    aclError code;
    sim_stream_t *stream;
    SIM_ENTER("aclrtSubscribeReport");
    if ((stream = sim_stream_for_work(handle, &code, "aclrtSubscribeReport")) == NULL)
        return code;
    pthread_mutex_lock(&sim_lock);
    /* ACCEL_SIM_BREAK=C3, the test-only broken mode of rule C3: a second
     * subscription silently takes the stream over. */
    if (stream->subscribed && !sim_rule_broken("C3")) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                         "aclrtSubscribeReport: the stream is already subscribed (rule C3)");
    }
    /* ACCEL_SIM_BREAK=C9, the test-only broken mode of rule C9: every
     * stream counts as already using the other callback interface. */
    if (stream->used_hostfunc || sim_rule_broken("C9")) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                         "aclrtSubscribeReport: the stream runs aclrtLaunchHostFunc work; the two "
                         "callback interfaces must not be mixed (rule C9)");
    }
    {
        int other = -1;
        SIM_HANDLES_EACH(sim_stream_t, s, &sim_streams.live)
        if (other < 0 && s->subscribed && s->subscriber == threadId &&
            s->core.device != stream->core.device)
            other = s->core.device;
        /* ACCEL_SIM_BREAK=C2, the test-only broken mode of rule C2: one
         * thread may serve several devices. */
        if (other >= 0 && !sim_rule_broken("C2")) {
            pthread_mutex_unlock(&sim_lock);
            return sim_error(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                             "aclrtSubscribeReport: the thread already serves device %d's "
                             "streams; a report thread serves one device (rule C2)",
                             other);
        }
    }
    stream->subscribed = true;
    stream->used_callback = true;
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
    if (!stream->subscribed) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                         "aclrtUnSubscribeReport: the stream is not subscribed (rule C4)");
    }
    if (stream->subscriber != threadId) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                         "aclrtUnSubscribeReport: another thread serves the stream (rule C4)");
    }
    stream->subscribed = false;
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

/* Rule C5: a stream no thread subscribed to is 107015
 * ACL_ERROR_RT_STREAM_NO_CB_REG (hicann/runtime api_impl.cc:5353-5372,
 * errcode_manage.cc:135). */
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
        return sim_error(ACL_ERROR_RT_STREAM_NO_CB_REG,
                         "aclrtLaunchCallback: no thread subscribed to the stream "
                         "(aclrtSubscribeReport; rule C5)");
    }
    task->thread_id = stream->subscriber;
    sim_enqueue(stream, task);
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

/* Runs one callback queued for the calling thread; waits up to `timeout`
 * ms for one (-1: forever).
 * Rule C6: the timeout is -1 or > 0, else 100000 (hicann/runtime
 * src/acl/aclrt_impl/callback.cpp aclrtProcessReportImpl).
 * Rule C7: the same function's codes: a thread subscribed to nothing is
 * 107012 ACL_ERROR_RT_THREAD_SUBSCRIBE, a timeout 507012
 * ACL_ERROR_RT_REPORT_TIMEOUT (errcode_manage.cc:326,569); older headers'
 * 100035/100036 are not what it returns.
 * Rule C1: the callback runs only on a thread whose current context is the
 * stream's device's (aclrtSetDevice or aclrtSetCurrentContext), as CANN's
 * callback sample (example/2_advanced_features/callback/0_simple_callback
 * ThreadFunc) and torch_npu (npu/Graph.cpp process_callback) set it first;
 * otherwise the report stays queued and the call returns 107002. The
 * harsher reading: the open-source runtime falls back to the device's
 * primary context (api_impl.cc:5382 ApiImpl::ProcessReport). */
SIM_API aclError aclrtProcessReport(int32_t timeout)
{
    uint64_t self = (uint64_t)pthread_self();
    struct timespec deadline;
    sim_report_t *report = NULL;
    bool subscribed = false;
    SIM_ENTER("aclrtProcessReport");
    /* ACCEL_SIM_BREAK=C6, the test-only broken mode of rule C6: any
     * timeout but -1 below 1 ms is taken as a 1 ms poll. */
    if ((timeout == 0 || timeout < -1) && sim_rule_broken("C6"))
        timeout = 1;
    if (timeout == 0 || timeout < -1)
        return sim_error(ACL_ERROR_INVALID_PARAM,
                         "aclrtProcessReport: timeout %d is neither -1 nor positive (rule C6)",
                         (int)timeout);
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
        else if (pthread_cond_timedwait(&sim_changed, &sim_lock, &deadline) == ETIMEDOUT)
            break;
    }
    if (report == NULL) {
        pthread_mutex_unlock(&sim_lock);
        /* ACCEL_SIM_BREAK=C7, the test-only broken mode of rule C7: the
         * older headers' codes (ACL_ERROR_THREAD_NOT_SUBSCRIBE 100035,
         * ACL_ERROR_WAIT_CALLBACK_TIMEOUT 100036). */
        bool old_codes = sim_rule_broken("C7");
        if (!subscribed)
            return sim_error(old_codes ? 100035 : ACL_ERROR_RT_THREAD_SUBSCRIBE,
                             "aclrtProcessReport: the thread is subscribed to no stream");
        return sim_error(old_codes ? 100036 : ACL_ERROR_RT_REPORT_TIMEOUT,
                         "aclrtProcessReport: no callback in %d ms", (int)timeout);
    }
    /* ACCEL_SIM_BREAK=C1, the test-only broken mode of rule C1: no context
     * is ever the right one, so callbacks are never delivered. */
    if (sim_current_device() != report->device || sim_rule_broken("C1")) {
        int device = report->device;
        pthread_mutex_unlock(&sim_lock);
        return sim_error(ACL_ERROR_RT_CONTEXT_NULL,
                         "aclrtProcessReport: a callback of device %d waits, but this thread's "
                         "current context is not that device's (aclrtSetDevice or "
                         "aclrtSetCurrentContext first; rule C1)",
                         device);
    }
    report->taken = true;
    for (sim_report_t **link = &sim_reports; *link != NULL; link = &(*link)->next)
        if (*link == report) {
            *link = report->next;
            break;
        }
    pthread_mutex_unlock(&sim_lock);
    sim_set_in_callback(true);
    report->fn(report->user_data);
    sim_set_in_callback(false);
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

/* Rule C10: aclrtLaunchHostFunc (acl_rt.h:5143; CANN 8.3.RC1+, leave it out
 * with OMIT for older runtimes) queues `fn` on the stream, which waits for
 * it; it runs on a thread of the runtime's own (here the stream's worker),
 * with no subscription. It needs the current context and the stream on it
 * (107002/107003; hicann/runtime api_impl.cc:9139). Rule C9: not on a
 * stream that uses aclrtLaunchCallback. */
SIM_API aclError aclrtLaunchHostFunc(aclrtStream handle, aclrtHostFunc fn, void *args)
{
    aclError code;
    sim_stream_t *stream;
    sim_task_t *task;
    SIM_ENTER("aclrtLaunchHostFunc");
    if (fn == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtLaunchHostFunc: fn is NULL");
    if ((stream = sim_stream_for_work(handle, &code, "aclrtLaunchHostFunc")) == NULL)
        return code;
    if ((task = calloc(1, sizeof *task)) == NULL)
        return sim_error(ACL_ERROR_BAD_ALLOC, "aclrtLaunchHostFunc: out of host memory");
    task->kind = SIM_HOSTFUNC;
    task->fn = fn;
    task->user_data = args;
    pthread_mutex_lock(&sim_lock);
    if (stream->used_callback || sim_rule_broken("C9")) {
        pthread_mutex_unlock(&sim_lock);
        free(task);
        return sim_error(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                         "aclrtLaunchHostFunc: the stream uses aclrtLaunchCallback; the two "
                         "callback interfaces must not be mixed (rule C9)");
    }
    stream->used_hostfunc = true;
    sim_enqueue(stream, task);
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}
