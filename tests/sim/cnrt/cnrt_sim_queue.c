/* cnrt_sim_queue.c: the simulated CNRT's queues, copies, fills, notifiers,
 * host functions and queue capture. Each queue (a device's default queue
 * too) is a worker thread running its tasks in order, so work really is
 * asynchronous and a binding that forgets to wait or to order queues reads
 * stale data; ACCEL_SIM_STREAM_DELAY_US starts every task that much later.
 * Notifiers carry a place count and a CLOCK_MONOTONIC time. Host functions
 * run on the queue's worker, in order, holding later work back.
 * Capture (cnrtQueueBeginCapture .. cnrtQueueEndCapture) records the tasks
 * queued on a created queue into a task topology instead of running them;
 * an instantiated entity queues copies of them on each invoke. A queue that
 * waits on a notifier placed in a capture joins it (torch_mlu asks
 * cnrtQueueGetCaptureInfo which queues are in a capture, MLUGraph.cpp) and
 * leaves it when the capture ends. While any queue of a device captures,
 * the calls torch_mlu keeps out of captures are refused and invalidate
 * every capture of the device (harsher: no public CNRT document settles
 * them): cnrtSyncDevice, cnrtFree (cnrt_sim_device.c), cnrtQueryNotifier
 * and cnrtWaitNotifier, and a sync or query of a capturing queue; a
 * notifier last placed in a capture cannot be queried or waited on even
 * after it ended. tests/sim/README.md's cnrt table cites each rule.
 * Everything shared is guarded by sim_lock (cnrt_sim_internal.h); the
 * queue and its worker loop are tests/sim/common/sim_queue.h's. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cnrt_sim_internal.h"
#include "sim_event.h"
#include "sim_queue.h"

typedef enum sim_task_kind { SIM_COPY, SIM_FILL, SIM_PLACE, SIM_WAIT, SIM_HOST } sim_task_kind_t;

#define SIM_NOTIFIER_MAGIC 0x6e6f7466u
#define SIM_TOPO_MAGIC     0x746f706fu
#define SIM_ENTITY_MAGIC   0x656e7479u

struct cnrtNotifier {
    unsigned magic;
    unsigned flags;
    int device; /* current at creation: the only device whose queues take it (CNRT-XDEV) */
    sim_event_marks_t marks;   /* places, and the queued or captured tasks naming it */
    const void *captured_in;   /* origin queue of the capture that last placed it, or NULL */
    struct cnrtNotifier *next; /* in sim_notifiers until destroyed */
};

typedef struct sim_task {
    sim_queue_task_t node; /* first: queues, captures and topologies hold tasks by it */
    sim_task_kind_t kind;
    void *dst;
    const void *src;
    size_t size;
    int value;
    struct cnrtNotifier *notifier;
    unsigned long generation;
    cnrtHostFn_t fn;
    void *user_data;
} sim_task_t;
_Static_assert(offsetof(sim_task_t, node) == 0, "a queued node is its task");

struct cnrtQueue {
    int device;
    bool is_default;
    pthread_t worker;
    sim_queue_t queue; /* cnrtQueueDestroy joins the worker, then frees the queue */
    bool capturing;
    bool capture_invalid;           /* origin: met something refused during the capture */
    struct cnrtQueue *capture_into; /* joined: the origin whose capture it joined */
    sim_queue_list_t captured;
    struct cnrtQueue *next; /* in sim_queues */
};

struct cnrtTaskTopo {
    unsigned magic;
    int device;
    sim_queue_list_t tasks;
    struct cnrtTaskTopo *next; /* in sim_topos until destroyed */
};

struct cnrtTaskTopoEntity {
    unsigned magic;
    int device;
    sim_queue_list_t tasks;
    struct cnrtTaskTopoEntity *next; /* in sim_entities until destroyed */
};

/* Every live notifier, topology and entity: an object whose destroy failed
 * (an injected fault) stays reachable here, as it stays alive in a real
 * runtime, rather than reading as a leak. */
static struct cnrtNotifier *sim_notifiers;
static struct cnrtTaskTopo *sim_topos;
static struct cnrtTaskTopoEntity *sim_entities;

/* Unlink `item` from the list at `head` (any of the three). */
#define SIM_UNLINK(head, item)                                                                     \
    do {                                                                                           \
        for (__typeof__(head) *link_ = &(head); *link_ != NULL; link_ = &(*link_)->next)           \
            if (*link_ == (item)) {                                                                \
                *link_ = (item)->next;                                                             \
                break;                                                                             \
            }                                                                                      \
    } while (0)

static struct cnrtQueue *sim_queues;                    /* every created queue */
static struct cnrtQueue *sim_defaults[SIM_MAX_DEVICES]; /* made on first use, never freed */

/* Under sim_lock: drop one reference to a notifier, freeing a destroyed one. */
static void sim_notifier_unref(struct cnrtNotifier *n)
{
    if (n != NULL && sim_event_release_task(&n->marks)) {
        n->magic = 0;
        free(n);
    }
}

/* Under sim_lock: free every task of `list` and its notifier references. */
static void sim_list_free(sim_queue_list_t *list)
{
    while (list->head != NULL) {
        sim_task_t *task = (sim_task_t *)list->head;
        list->head = task->node.next;
        sim_notifier_unref(task->notifier);
        free(task);
    }
    list->tail = NULL;
}

/* ---------------------------------------------------------------- workers */

/* Runs one task; called with sim_lock held, may drop it. */
static void sim_run(sim_queue_t *queue, sim_queue_task_t *node)
{
    sim_task_t *task = (sim_task_t *)node;
    (void)queue;
    switch (task->kind) {
    case SIM_COPY: sim_queue_memmove(&sim_lock, task->dst, task->src, task->size); break;
    case SIM_FILL: sim_queue_memset(&sim_lock, task->dst, task->value, task->size); break;
    case SIM_PLACE: sim_event_reach(&task->notifier->marks, task->generation); break;
    case SIM_WAIT: sim_event_wait(&task->notifier->marks, task->generation); break;
    case SIM_HOST:
        pthread_mutex_unlock(&sim_lock);
        task->fn(task->user_data);
        pthread_mutex_lock(&sim_lock);
        break;
    }
}

/* Under sim_lock: frees a run task and its notifier reference. */
static void sim_retire(sim_queue_task_t *node)
{
    sim_task_t *task = (sim_task_t *)node;
    sim_notifier_unref(task->notifier);
    free(task);
}

static const sim_queue_ops_t sim_queue_ops = {sim_run, sim_retire};

/* A default queue's worker never stops; a created one's ends in
 * cnrtQueueDestroy. */
static void *sim_worker(void *arg)
{
    struct cnrtQueue *queue = arg;
    pthread_mutex_lock(&sim_lock);
    sim_queue_serve(&queue->queue, &sim_lock, &sim_changed, &sim_queue_ops);
    pthread_mutex_unlock(&sim_lock);
    return NULL;
}

static struct cnrtQueue *sim_queue_new(int device, bool is_default)
{
    struct cnrtQueue *queue = calloc(1, sizeof *queue);
    if (queue == NULL)
        return NULL;
    queue->device = device;
    queue->is_default = is_default;
    if (pthread_create(&queue->worker, NULL, sim_worker, queue) != 0) {
        free(queue);
        return NULL;
    }
    if (!is_default) {
        pthread_mutex_lock(&sim_lock);
        queue->next = sim_queues;
        sim_queues = queue;
        pthread_mutex_unlock(&sim_lock);
    }
    return queue;
}

static struct cnrtQueue *sim_default_queue(int device)
{
    static pthread_mutex_t make_lock = PTHREAD_MUTEX_INITIALIZER;
    struct cnrtQueue *queue;
    pthread_mutex_lock(&make_lock);
    if (sim_defaults[device] == NULL)
        sim_defaults[device] = sim_queue_new(device, true);
    queue = sim_defaults[device];
    pthread_mutex_unlock(&make_lock);
    return queue;
}

/* `handle` as a live queue of the thread's device (NULL: its default
 * queue), or NULL with the code in *code. */
static struct cnrtQueue *sim_queue_resolve(cnrtQueue_t handle, cnrtRet_t *code)
{
    struct cnrtQueue *found = NULL;
    if ((*code = sim_need_device()) != cnrtSuccess)
        return NULL;
    if (handle == NULL) {
        found = sim_default_queue(sim_current_device());
        *code = found != NULL ? cnrtSuccess : cnrtErrorSysNoMem;
        return found;
    }
    pthread_mutex_lock(&sim_lock);
    for (struct cnrtQueue *q = sim_queues; q != NULL; q = q->next)
        if (q == handle)
            found = q;
    pthread_mutex_unlock(&sim_lock);
    if (found == NULL)
        *code = cnrtErrorInvalidResourceHandle;
    else if (found->device != sim_current_device())
        *code = cnrtErrorDevice, found = NULL;
    return found;
}

/* Queue `proto` on `queue`, or record it when the queue is capturing. A
 * place takes the notifier's next generation, a wait its latest. Under no
 * lock. */
/* Under sim_lock: queues `task` on `queue`, a place taking the next
 * generation of its notifier and a wait the latest one placed. */
static void sim_queue_task_locked(struct cnrtQueue *queue, sim_task_t *task)
{
    if (task->kind == SIM_PLACE)
        task->generation = ++task->notifier->marks.recorded;
    else if (task->kind == SIM_WAIT)
        task->generation = task->notifier->marks.recorded;
    sim_queue_push(&queue->queue, &task->node, &sim_changed);
}

static cnrtRet_t sim_submit(struct cnrtQueue *queue, const sim_task_t *proto)
{
    sim_task_t *task = malloc(sizeof *task);
    if (task == NULL)
        return cnrtErrorSysNoMem;
    *task = *proto;
    pthread_mutex_lock(&sim_lock);
    if (task->notifier != NULL)
        task->notifier->marks.refs++;
    if (queue->capturing)
        sim_queue_list_push(queue->capture_into != NULL ? &queue->capture_into->captured
                                                        : &queue->captured,
                            &task->node);
    else
        sim_queue_task_locked(queue, task);
    pthread_mutex_unlock(&sim_lock);
    return cnrtSuccess;
}

/* Under sim_lock: wait until `queue` has run everything enqueued so far. */
static void sim_queue_wait_locked(struct cnrtQueue *queue)
{
    sim_queue_wait(&queue->queue, &sim_lock, &sim_changed);
}

void sim_queues_drain(int device)
{
    struct cnrtQueue *fallback = sim_default_queue(device);
    pthread_mutex_lock(&sim_lock);
    for (struct cnrtQueue *q = sim_queues; q != NULL; q = q->next)
        if (q->device == device)
            sim_queue_wait_locked(q);
    if (fallback != NULL)
        sim_queue_wait_locked(fallback);
    pthread_mutex_unlock(&sim_lock);
}

/* Under sim_lock: whether `origin` is a live queue capturing as the origin
 * of its capture (compares pointers before touching it). */
static bool sim_capture_active_locked(const void *origin)
{
    for (struct cnrtQueue *q = sim_queues; q != NULL; q = q->next)
        if (q == origin)
            return q->capturing && q->capture_into == NULL;
    return false;
}

/* Under sim_lock: invalidate the capture `queue` takes part in. */
static void sim_capture_invalidate_locked(struct cnrtQueue *queue)
{
    (queue->capture_into != NULL ? queue->capture_into : queue)->capture_invalid = true;
}

cnrtRet_t sim_device_capture_conflict(int device)
{
    bool hit = false;
    pthread_mutex_lock(&sim_lock);
    for (struct cnrtQueue *q = sim_queues; q != NULL; q = q->next)
        if (q->device == device && q->capturing) {
            sim_capture_invalidate_locked(q);
            hit = true;
        }
    pthread_mutex_unlock(&sim_lock);
    return hit ? cnrtErrorQueueCaptureUnsupported : cnrtSuccess;
}

/* ---------------------------------------------------------------- queues */

SIM_API cnrtRet_t cnrtQueueCreate(cnrtQueue_t *pQueue)
{
    struct cnrtQueue *queue;
    SIM_ENTER("cnrtQueueCreate");
    if (pQueue == NULL)
        return cnrtErrorArgsInvalid;
    if (sim_need_device() != cnrtSuccess)
        return cnrtErrorNoCnrtContext;
    if ((queue = sim_queue_new(sim_current_device(), false)) == NULL)
        return cnrtErrorSysNoMem;
    *pQueue = queue;
    return cnrtSuccess;
}

/* Waits for the queue's work, then ends its worker. */
SIM_API cnrtRet_t cnrtQueueDestroy(cnrtQueue_t handle)
{
    cnrtRet_t code;
    struct cnrtQueue *queue;
    SIM_ENTER("cnrtQueueDestroy");
    if (handle == NULL)
        return cnrtErrorArgsInvalid;
    if ((queue = sim_queue_resolve(handle, &code)) == NULL)
        return code;
    pthread_mutex_lock(&sim_lock);
    if (queue->capturing) {
        pthread_mutex_unlock(&sim_lock);
        return cnrtErrorIllegalState;
    }
    sim_queue_wait_locked(queue);
    for (struct cnrtQueue **link = &sim_queues; *link != NULL; link = &(*link)->next)
        if (*link == queue) {
            *link = queue->next;
            break;
        }
    sim_queue_stop(&queue->queue, &sim_changed);
    pthread_mutex_unlock(&sim_lock);
    pthread_join(queue->worker, NULL);
    free(queue);
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtQueueSync(cnrtQueue_t handle)
{
    cnrtRet_t code;
    struct cnrtQueue *queue;
    SIM_ENTER("cnrtQueueSync");
    if ((queue = sim_queue_resolve(handle, &code)) == NULL)
        return code;
    pthread_mutex_lock(&sim_lock);
    if (queue->capturing) {
        sim_capture_invalidate_locked(queue);
        code = cnrtErrorQueueCaptureUnsupported;
    } else {
        sim_queue_wait_locked(queue);
    }
    pthread_mutex_unlock(&sim_lock);
    return code;
}

/* cnrtErrorBusy while work is queued, as the CNRT 6.0 documentation has it. */
SIM_API cnrtRet_t cnrtQueueQuery(cnrtQueue_t handle)
{
    cnrtRet_t code;
    struct cnrtQueue *queue;
    SIM_ENTER("cnrtQueueQuery");
    if ((queue = sim_queue_resolve(handle, &code)) == NULL)
        return code;
    pthread_mutex_lock(&sim_lock);
    if (queue->capturing) {
        sim_capture_invalidate_locked(queue);
        code = cnrtErrorQueueCaptureUnsupported;
    } else if (!sim_queue_idle(&queue->queue))
        code = cnrtErrorBusy;
    pthread_mutex_unlock(&sim_lock);
    return code;
}

/* ---------------------------------------------------------------- copies and fills */

static cnrtRet_t sim_copy(void *dst, void *src, size_t bytes, cnrtQueue_t handle,
                          cnrtMemTransDir_t dir)
{
    cnrtRet_t code;
    struct cnrtQueue *queue;
    bool want_dst, want_src;
    sim_task_t task = {.kind = SIM_COPY, .dst = dst, .src = src, .size = bytes};
    if ((queue = sim_queue_resolve(handle, &code)) == NULL)
        return code;
    if (dst == NULL || src == NULL)
        return cnrtErrorArgsInvalid;
    switch ((int)dir) {
    case cnrtMemcpyHostToDev: want_dst = true, want_src = false; break;
    case cnrtMemcpyDevToDev: want_dst = want_src = true; break;
    case cnrtMemcpyDevToHost: want_dst = false, want_src = true; break;
    /* CNRT-H2H (harsher reading, tests/sim/README.md): no public source
     * says a queue takes a host-to-host copy, and torch_mlu never issues
     * one, so the sim refuses it. */
    /* Test-only broken mode of rule CNRT-H2H: the copy is taken and then
     * lost (nothing runs). */
    case cnrtMemcpyHostToHost:
        return sim_rule_broken("CNRT-H2H") ? cnrtSuccess : cnrtErrorNotSupport;
    default: return cnrtErrorMemcpyDirectionInvalid;
    }
    if (sim_is_device_range(dst, bytes) != want_dst || sim_is_device_range(src, bytes) != want_src)
        return cnrtErrorMemcpyDirectionInvalid;
    return sim_submit(queue, &task);
}

SIM_API cnrtRet_t cnrtMemcpyAsync(void *dst, void *src, size_t bytes, cnrtQueue_t queue,
                                  cnrtMemTransDir_t dir)
{
    SIM_ENTER("cnrtMemcpyAsync");
    return sim_copy(dst, src, bytes, queue, dir);
}

SIM_API cnrtRet_t cnrtMemcpyAsync_V2(void *dst, void *src, size_t bytes, cnrtQueue_t queue,
                                     cnrtMemTransDir_t dir)
{
    SIM_ENTER("cnrtMemcpyAsync_V2");
    return sim_copy(dst, src, bytes, queue, dir);
}

SIM_API cnrtRet_t cnrtMemsetAsync(void *ptr, int value, size_t bytes, cnrtQueue_t handle)
{
    cnrtRet_t code;
    struct cnrtQueue *queue;
    sim_task_t task = {.kind = SIM_FILL, .dst = ptr, .value = value, .size = bytes};
    SIM_ENTER("cnrtMemsetAsync");
    if ((queue = sim_queue_resolve(handle, &code)) == NULL)
        return code;
    if (ptr == NULL || !sim_is_device_range(ptr, bytes))
        return cnrtErrorArgsInvalid;
    return sim_submit(queue, &task);
}

/* ---------------------------------------------------------------- notifiers */

static bool sim_notifier_live(cnrtNotifier_t n)
{
    return n != NULL && n->magic == SIM_NOTIFIER_MAGIC && !n->marks.destroyed;
}

SIM_API cnrtRet_t cnrtNotifierCreateWithFlags(cnrtNotifier_t *pNotifier, unsigned int flags)
{
    struct cnrtNotifier *created;
    SIM_ENTER("cnrtNotifierCreateWithFlags");
    if (pNotifier == NULL || (flags & ~0x7u) != 0)
        return cnrtErrorArgsInvalid;
    if (sim_need_device() != cnrtSuccess)
        return cnrtErrorNoCnrtContext;
    if ((created = calloc(1, sizeof *created)) == NULL)
        return cnrtErrorSysNoMem;
    created->magic = SIM_NOTIFIER_MAGIC;
    created->flags = flags;
    created->device = sim_current_device();
    pthread_mutex_lock(&sim_lock);
    created->next = sim_notifiers;
    sim_notifiers = created;
    pthread_mutex_unlock(&sim_lock);
    *pNotifier = created;
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtNotifierCreate(cnrtNotifier_t *pNotifier)
{
    SIM_ENTER("cnrtNotifierCreate");
    return cnrtNotifierCreateWithFlags(pNotifier, CNRT_NOTIFIER_DEFAULT);
}

/* A destroy with a place or wait still queued is allowed: the notifier is
 * freed when the last of them has run. */
SIM_API cnrtRet_t cnrtNotifierDestroy(cnrtNotifier_t notifier)
{
    SIM_ENTER("cnrtNotifierDestroy");
    if (!sim_notifier_live(notifier))
        return cnrtErrorInvalidResourceHandle;
    pthread_mutex_lock(&sim_lock);
    SIM_UNLINK(sim_notifiers, notifier);
    if (sim_event_destroy(&notifier->marks)) {
        notifier->magic = 0;
        free(notifier);
    }
    pthread_mutex_unlock(&sim_lock);
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtPlaceNotifier(cnrtNotifier_t notifier, cnrtQueue_t handle)
{
    cnrtRet_t code;
    struct cnrtQueue *queue;
    sim_task_t task = {.kind = SIM_PLACE, .notifier = notifier};
    SIM_ENTER("cnrtPlaceNotifier");
    if (!sim_notifier_live(notifier))
        return cnrtErrorInvalidResourceHandle;
    if ((queue = sim_queue_resolve(handle, &code)) == NULL)
        return code;
    /* CNRT-XDEV; test-only broken mode: the place is taken. */
    if (queue->device != notifier->device && !sim_rule_broken("CNRT-XDEV"))
        return cnrtErrorNotSupport;
    pthread_mutex_lock(&sim_lock);
    notifier->captured_in = !queue->capturing             ? NULL
                            : queue->capture_into != NULL ? queue->capture_into
                                                          : queue;
    pthread_mutex_unlock(&sim_lock);
    return sim_submit(queue, &task);
}

/* Waits for the notifier's latest place at the time of the call; a
 * notifier never placed is no wait at all. CNRT-CAP-JOIN (torch_mlu
 * MLUGraph.cpp): a queue not capturing that waits on a notifier placed in a
 * capture still underway joins that capture.
 * CNRT-XDEV: only a queue of the notifier's own device may wait for it.
 * torch_mlu's copy_utils.cpp: "when MLUEvent and stream are not on the same
 * device. Wait and place operation can't be performed. See CNTOOLKIT-3871"
 * (the error code is the sim's choice: no public source names it). */
SIM_API cnrtRet_t cnrtQueueWaitNotifier(cnrtNotifier_t notifier, cnrtQueue_t handle,
                                        unsigned int flag)
{
    cnrtRet_t code;
    struct cnrtQueue *queue;
    sim_task_t task = {.kind = SIM_WAIT, .notifier = notifier};
    SIM_ENTER("cnrtQueueWaitNotifier");
    if (!sim_notifier_live(notifier) || flag != 0)
        return !sim_notifier_live(notifier) ? cnrtErrorInvalidResourceHandle : cnrtErrorArgsInvalid;
    if ((queue = sim_queue_resolve(handle, &code)) == NULL)
        return code;
    /* Test-only broken mode of rule CNRT-XDEV: the wait is taken. */
    if (queue->device != notifier->device && !sim_rule_broken("CNRT-XDEV"))
        return cnrtErrorNotSupport;
    pthread_mutex_lock(&sim_lock);
    /* Test-only broken mode of rule CNRT-CAP-JOIN: the wait is dropped and
     * the queue stays outside the capture. */
    if (!queue->capturing && sim_capture_active_locked(notifier->captured_in) &&
        sim_rule_broken("CNRT-CAP-JOIN")) {
        pthread_mutex_unlock(&sim_lock);
        return cnrtSuccess;
    }
    if (!queue->capturing && sim_capture_active_locked(notifier->captured_in)) {
        queue->capturing = true;
        queue->capture_into = (struct cnrtQueue *)notifier->captured_in;
        pthread_mutex_unlock(&sim_lock);
        return cnrtSuccess; /* in capture order already */
    }
    pthread_mutex_unlock(&sim_lock);
    return sim_submit(queue, &task);
}

/* cnrtErrorQueueCaptureUnsupported (harsher, torch_mlu
 * caching_allocator.cpp: notifier queries are "illegal during MLU graph
 * capture", and a notifier placed in a capture may not be queried) when a
 * capture is underway on the current device, invalidating it
 * (CNRT-CAP-QUERY), or when the notifier was last placed in a capture
 * (CNRT-CAP-RECORD). */
static cnrtRet_t sim_notifier_capture_conflict(struct cnrtNotifier *notifier)
{
    bool captured;
    pthread_mutex_lock(&sim_lock);
    captured = notifier->captured_in != NULL;
    pthread_mutex_unlock(&sim_lock);
    /* Test-only broken mode of rule CNRT-CAP-QUERY: a query during a
     * capture is answered. */
    if (sim_rule_broken("CNRT-CAP-QUERY"))
        return captured ? cnrtErrorQueueCaptureUnsupported : cnrtSuccess;
    if (sim_device_capture_conflict(sim_current_device()) != cnrtSuccess || captured)
        return cnrtErrorQueueCaptureUnsupported;
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtWaitNotifier(cnrtNotifier_t notifier)
{
    cnrtRet_t code;
    SIM_ENTER("cnrtWaitNotifier");
    if (!sim_notifier_live(notifier))
        return cnrtErrorInvalidResourceHandle;
    if ((code = sim_notifier_capture_conflict(notifier)) != cnrtSuccess)
        return code;
    pthread_mutex_lock(&sim_lock);
    {
        sim_event_synchronize(&notifier->marks);
    }
    pthread_mutex_unlock(&sim_lock);
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtQueryNotifier(cnrtNotifier_t notifier)
{
    cnrtRet_t code;
    SIM_ENTER("cnrtQueryNotifier");
    if (!sim_notifier_live(notifier))
        return cnrtErrorInvalidResourceHandle;
    if ((code = sim_notifier_capture_conflict(notifier)) != cnrtSuccess)
        return code;
    pthread_mutex_lock(&sim_lock);
    code = sim_event_done(&notifier->marks) ? cnrtSuccess : cnrtErrorNotReady;
    pthread_mutex_unlock(&sim_lock);
    return code;
}

/* Both notifiers need timing (no DISABLE_TIMING flag) and a completed place. */
static cnrtRet_t sim_elapsed_ns(cnrtNotifier_t start, cnrtNotifier_t end, int64_t *out)
{
    cnrtRet_t code = cnrtSuccess;
    if (!sim_notifier_live(start) || !sim_notifier_live(end))
        return cnrtErrorInvalidResourceHandle;
    if ((start->flags | end->flags) &
        (CNRT_NOTIFIER_DISABLE_TIMING_SW | CNRT_NOTIFIER_DISABLE_TIMING_ALL))
        return cnrtErrorArgsInvalid;
    pthread_mutex_lock(&sim_lock);
    if (start->marks.recorded == 0 || end->marks.recorded == 0 || !sim_event_done(&start->marks) ||
        !sim_event_done(&end->marks))
        code = cnrtErrorNotReady;
    else
        *out = (int64_t)(end->marks.time_ns - start->marks.time_ns);
    pthread_mutex_unlock(&sim_lock);
    return code;
}

SIM_API cnrtRet_t cnrtNotifierElapsedTime(cnrtNotifier_t start, cnrtNotifier_t end, float *ms)
{
    int64_t ns = 0;
    cnrtRet_t code;
    SIM_ENTER("cnrtNotifierElapsedTime");
    if (ms == NULL)
        return cnrtErrorArgsInvalid;
    if ((code = sim_elapsed_ns(start, end, &ns)) == cnrtSuccess)
        *ms = (float)((double)ns / 1e6);
    return code;
}

SIM_API cnrtRet_t cnrtNotifierDuration(cnrtNotifier_t start, cnrtNotifier_t end, float *us)
{
    int64_t ns = 0;
    cnrtRet_t code;
    SIM_ENTER("cnrtNotifierDuration");
    if (us == NULL)
        return cnrtErrorArgsInvalid;
    /* Test-only broken mode of rule CNRT-UNITS: milliseconds, not us. */
    if ((code = sim_elapsed_ns(start, end, &ns)) == cnrtSuccess)
        *us = (float)((double)ns / (sim_rule_broken("CNRT-UNITS") ? 1e6 : 1e3));
    return code;
}

/* ---------------------------------------------------------------- host functions */

SIM_API cnrtRet_t cnrtInvokeHostFunc(cnrtQueue_t handle, cnrtHostFn_t fn, void *userData)
{
    cnrtRet_t code;
    struct cnrtQueue *queue;
    sim_task_t task = {.kind = SIM_HOST, .fn = fn, .user_data = userData};
    SIM_ENTER("cnrtInvokeHostFunc");
    if (fn == NULL)
        return cnrtErrorArgsInvalid;
    if ((queue = sim_queue_resolve(handle, &code)) == NULL)
        return code;
    return sim_submit(queue, &task);
}

/* ---------------------------------------------------------------- capture */

/* Only created queues capture; ThreadLocal mode is not supported (as CNRT
 * documents). */
SIM_API cnrtRet_t cnrtQueueBeginCapture(cnrtQueue_t handle, enum cnrtQueueCaptureMode mode)
{
    cnrtRet_t code;
    struct cnrtQueue *queue;
    SIM_ENTER("cnrtQueueBeginCapture");
    if (handle == NULL)
        return sim_need_device() != cnrtSuccess ? cnrtErrorNoCnrtContext
                                                : cnrtErrorQueueCaptureUnsupported;
    /* Test-only broken mode of rule CNRT-CAP-RELAXED: Relaxed is refused. */
    if (mode == cnrtQueueCaptureModeThreadLocal ||
        (mode == cnrtQueueCaptureModeRelaxed && sim_rule_broken("CNRT-CAP-RELAXED")))
        return cnrtErrorNotSupport;
    if (mode != cnrtQueueCaptureModeGlobal && mode != cnrtQueueCaptureModeRelaxed)
        return cnrtErrorArgsInvalid;
    if ((queue = sim_queue_resolve(handle, &code)) == NULL)
        return code;
    pthread_mutex_lock(&sim_lock);
    if (queue->capturing)
        code = cnrtErrorIllegalState;
    else
        queue->capturing = true, queue->capture_invalid = false;
    pthread_mutex_unlock(&sim_lock);
    return code;
}

SIM_API cnrtRet_t cnrtQueueEndCapture(cnrtQueue_t handle, cnrtTaskTopo_t *pTaskTopo)
{
    cnrtRet_t code;
    struct cnrtQueue *queue;
    struct cnrtTaskTopo *topo;
    SIM_ENTER("cnrtQueueEndCapture");
    if (pTaskTopo == NULL)
        return cnrtErrorArgsInvalid;
    if ((queue = sim_queue_resolve(handle, &code)) == NULL)
        return code;
    if ((topo = calloc(1, sizeof *topo)) == NULL)
        return cnrtErrorSysNoMem;
    pthread_mutex_lock(&sim_lock);
    if (!queue->capturing || queue->capture_into != NULL) {
        pthread_mutex_unlock(&sim_lock);
        free(topo);
        return cnrtErrorIllegalState; /* not capturing, or joined another's (CNRT-CAP-JOIN) */
    }
    queue->capturing = false;
    for (struct cnrtQueue *q = sim_queues; q != NULL; q = q->next)
        if (q->capture_into == queue) {
            q->capturing = false;
            q->capture_into = NULL;
        }
    if (queue->capture_invalid) {
        queue->capture_invalid = false;
        sim_list_free(&queue->captured);
        queue->captured.head = queue->captured.tail = NULL;
        pthread_mutex_unlock(&sim_lock);
        free(topo);
        return cnrtErrorQueueCaptureInvalidated;
    }
    topo->next = sim_topos;
    sim_topos = topo;
    topo->magic = SIM_TOPO_MAGIC;
    topo->device = queue->device;
    topo->tasks = queue->captured;
    queue->captured.head = queue->captured.tail = NULL;
    pthread_mutex_unlock(&sim_lock);
    *pTaskTopo = topo;
    return cnrtSuccess;
}

/* Under sim_lock: copies of `from`'s tasks (each holding its notifier), or
 * false when out of memory (nothing copied then). */
static bool sim_list_copy(sim_queue_list_t *to, const sim_queue_list_t *from)
{
    sim_queue_list_t copy = {NULL, NULL};
    for (const sim_queue_task_t *node = from->head; node != NULL; node = node->next) {
        const sim_task_t *t = (const sim_task_t *)node;
        sim_task_t *task = malloc(sizeof *task);
        if (task == NULL) {
            sim_list_free(&copy);
            return false;
        }
        *task = *t;
        if (task->notifier != NULL)
            task->notifier->marks.refs++;
        sim_queue_list_push(&copy, &task->node);
    }
    *to = copy;
    return true;
}

SIM_API cnrtRet_t cnrtTaskTopoInstantiate(cnrtTaskTopoEntity_t *pEntity, cnrtTaskTopo_t topo,
                                          cnrtTaskTopoNode_t *pErrorNode, char *pLogBuffer,
                                          size_t bufferSize)
{
    struct cnrtTaskTopoEntity *entity;
    bool copied;
    (void)pErrorNode, (void)pLogBuffer, (void)bufferSize;
    SIM_ENTER("cnrtTaskTopoInstantiate");
    if (pEntity == NULL || topo == NULL || topo->magic != SIM_TOPO_MAGIC)
        return cnrtErrorArgsInvalid;
    if ((entity = calloc(1, sizeof *entity)) == NULL)
        return cnrtErrorSysNoMem;
    pthread_mutex_lock(&sim_lock);
    copied = sim_list_copy(&entity->tasks, &topo->tasks);
    if (copied) {
        entity->magic = SIM_ENTITY_MAGIC;
        entity->device = topo->device;
        entity->next = sim_entities;
        sim_entities = entity;
    }
    pthread_mutex_unlock(&sim_lock);
    if (!copied) {
        free(entity);
        return cnrtErrorSysNoMem;
    }
    *pEntity = entity;
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtTaskTopoDestroy(cnrtTaskTopo_t topo)
{
    SIM_ENTER("cnrtTaskTopoDestroy");
    if (topo == NULL || topo->magic != SIM_TOPO_MAGIC)
        return cnrtErrorArgsInvalid;
    pthread_mutex_lock(&sim_lock);
    SIM_UNLINK(sim_topos, topo);
    sim_list_free(&topo->tasks);
    pthread_mutex_unlock(&sim_lock);
    topo->magic = 0;
    free(topo);
    return cnrtSuccess;
}

/* Queues copies of the entity's tasks on `handle` (any queue of its device). */
SIM_API cnrtRet_t cnrtTaskTopoEntityInvoke(cnrtTaskTopoEntity_t entity, cnrtQueue_t handle)
{
    cnrtRet_t code;
    struct cnrtQueue *queue;
    sim_queue_list_t copy;
    SIM_ENTER("cnrtTaskTopoEntityInvoke");
    if (entity == NULL || entity->magic != SIM_ENTITY_MAGIC)
        return cnrtErrorArgsInvalid;
    if ((queue = sim_queue_resolve(handle, &code)) == NULL)
        return code;
    if (queue->device != entity->device)
        return cnrtErrorDevice;
    /* Test-only broken mode of rule CNRT-CAP-ADDR: the replay does not
     * write the addresses its capture saw (nothing is queued). */
    if (sim_rule_broken("CNRT-CAP-ADDR"))
        return cnrtSuccess;
    pthread_mutex_lock(&sim_lock);
    if (queue->capturing) {
        pthread_mutex_unlock(&sim_lock);
        return cnrtErrorQueueCaptureUnsupported;
    }
    if (!sim_list_copy(&copy, &entity->tasks)) {
        pthread_mutex_unlock(&sim_lock);
        return cnrtErrorSysNoMem;
    }
    while (copy.head != NULL) {
        sim_task_t *task = (sim_task_t *)copy.head;
        copy.head = task->node.next;
        sim_queue_task_locked(queue, task);
    }
    pthread_mutex_unlock(&sim_lock);
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtTaskTopoEntityDestroy(cnrtTaskTopoEntity_t entity)
{
    SIM_ENTER("cnrtTaskTopoEntityDestroy");
    if (entity == NULL || entity->magic != SIM_ENTITY_MAGIC)
        return cnrtErrorArgsInvalid;
    pthread_mutex_lock(&sim_lock);
    SIM_UNLINK(sim_entities, entity);
    sim_list_free(&entity->tasks);
    pthread_mutex_unlock(&sim_lock);
    entity->magic = 0;
    free(entity);
    return cnrtSuccess;
}
