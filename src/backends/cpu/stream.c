/* stream.c: the CPU backend's streams and host callbacks.
 * The default stream (NULL) runs each item at once on the calling thread; a
 * created stream is a FIFO of work items served by its own worker thread, so
 * items on one stream run in order and items on different streams overlap.
 * Threads: every function here may be called from any thread. A stream's
 * queue and counters are guarded by its lock; see cpu_backend.h for the lock order
 * and for who owns what. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/event.h"
#include "backends/cpu/graph.h"
#include "backends/cpu/rng.h"
#include "backends/cpu/stream.h"
#include "core/stream_worker.h"

static int64_t clock_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---------------------------------------------------------------- running work */

/* Fill in an event item's generation as it enters a running stream. Must be
 * called in submission order, which is what makes waits and records on one
 * stream refer to each other correctly. */
static void work_prepare(accel_cpu_work_t *work, const accel_cpu_stream_t *stream)
{
    if (work->kind == ACCEL_CPU_WORK_EVENT_RECORD)
        work->u.event.generation = accel_cpu_event_issue_record(work->u.event.event, stream);
    else if (work->kind == ACCEL_CPU_WORK_EVENT_WAIT)
        work->u.event.generation = accel_cpu_event_current_record(work->u.event.event);
}

static void work_run(const accel_cpu_work_t *work)
{
    switch (work->kind) {
    case ACCEL_CPU_WORK_COPY:
        /* memmove: a device-to-device copy inside one block may overlap. */
        memmove(work->u.copy.dst, work->u.copy.src, work->u.copy.size);
        break;
    case ACCEL_CPU_WORK_SET: memset(work->u.set.dst, work->u.set.value, work->u.set.size); break;
    case ACCEL_CPU_WORK_RNG:
        accel_cpu_rng_run(work->u.rng.kind, work->u.rng.ptr, work->u.rng.count, work->u.rng.seed,
                          work->u.rng.offset);
        break;
    case ACCEL_CPU_WORK_CALLBACK: work->u.callback.fn(work->u.callback.user_data); break;
    case ACCEL_CPU_WORK_EVENT_RECORD:
        accel_cpu_event_complete(work->u.event.event, work->u.event.generation);
        break;
    case ACCEL_CPU_WORK_EVENT_WAIT:
        accel_cpu_event_wait_for(work->u.event.event, work->u.event.generation);
        break;
    }
}

/* Name of a work item on the trace's stream tracks. */
static const char *work_trace_name(const accel_cpu_work_t *work)
{
    switch (work->kind) {
    case ACCEL_CPU_WORK_COPY: return "memcpy";
    case ACCEL_CPU_WORK_SET: return "memset";
    case ACCEL_CPU_WORK_RNG: return "rng fill";
    case ACCEL_CPU_WORK_CALLBACK: return "host callback";
    case ACCEL_CPU_WORK_EVENT_RECORD: return "event record";
    case ACCEL_CPU_WORK_EVENT_WAIT: return "event wait";
    }
    return "work";
}

/* Run an item, timing it for the trace recorder when it is on: on the track
 * of `stream` (NULL: the calling thread's own track). */
static void work_run_traced(const accel_cpu_work_t *work, const accel_cpu_stream_t *stream)
{
    int64_t begin;
    if (!accel_trace_enabled()) {
        work_run(work);
        return;
    }
    begin = clock_now_ns();
    work_run(work);
    accel_trace_stream_work(stream, stream ? stream->device : -1, work_trace_name(work),
                            (uint64_t)begin, (uint64_t)clock_now_ns());
}

static bool work_has_event(const accel_cpu_work_t *work)
{
    return work->kind == ACCEL_CPU_WORK_EVENT_RECORD || work->kind == ACCEL_CPU_WORK_EVENT_WAIT;
}

static void work_free(accel_cpu_work_t *work)
{
    if (work_has_event(work))
        accel_cpu_event_release(work->u.event.event);
    free(work);
}

static void *stream_worker_main(void *arg)
{
    accel_cpu_stream_t *stream = arg;
    accel_stream_worker_enter(stream->backend, stream->device, stream);
    pthread_mutex_lock(&stream->lock);
    for (;;) {
        accel_cpu_work_t *work;
        while (stream->head == NULL && !stream->stopping)
            pthread_cond_wait(&stream->work_ready, &stream->lock);
        if (stream->head == NULL)
            break; /* stopping and drained */
        work = stream->head;
        stream->head = work->next;
        if (stream->head == NULL)
            stream->tail = NULL;
        pthread_mutex_unlock(&stream->lock);

        work_run_traced(work, stream);
        work_free(work);

        pthread_mutex_lock(&stream->lock);
        stream->completed++;
        pthread_cond_broadcast(&stream->work_done);
    }
    pthread_mutex_unlock(&stream->lock);
    return NULL;
}

/* ---------------------------------------------------------------- submission */

static void submit_inline(const accel_cpu_work_t *items, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        accel_cpu_work_t work = items[i];
        work_prepare(&work, NULL);
        work_run_traced(&work, NULL);
    }
}

/* Called with stream->lock held. */
static accel_status_t submit_capture(accel_cpu_stream_t *stream, const accel_cpu_work_t *items,
                                     size_t count)
{
    accel_status_t status = accel_cpu_graph_reserve(stream->capture, count);
    if (status != ACCEL_OK)
        return status;
    for (size_t i = 0; i < count; i++)
        accel_cpu_graph_append(stream->capture, &items[i]);
    return ACCEL_OK;
}

/* Called with stream->lock held. Allocates every node before touching any
 * state, so a failure leaves the stream and the events as they were. */
static accel_status_t submit_queue(accel_cpu_stream_t *stream, const accel_cpu_work_t *items,
                                   size_t count)
{
    accel_cpu_work_t *first = NULL, *last = NULL;
    for (size_t i = 0; i < count; i++) {
        accel_cpu_work_t *node = malloc(sizeof *node);
        if (node == NULL) {
            while (first != NULL) {
                accel_cpu_work_t *next = first->next;
                free(first);
                first = next;
            }
            return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                       "cpu: out of host memory queueing %zu work item(s) on a "
                                       "stream",
                                       count);
        }
        *node = items[i];
        node->next = NULL;
        if (last != NULL)
            last->next = node;
        else
            first = node;
        last = node;
    }
    for (accel_cpu_work_t *node = first; node != NULL; node = node->next) {
        if (work_has_event(node))
            accel_cpu_event_retain(node->u.event.event);
        work_prepare(node, stream);
    }
    if (stream->tail != NULL)
        stream->tail->next = first;
    else
        stream->head = first;
    stream->tail = last;
    stream->submitted += count;
    pthread_cond_signal(&stream->work_ready);
    return ACCEL_OK;
}

/* A stream created before fork() has no worker in the child. */
static accel_status_t stream_forked_error(void)
{
    return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "cpu: this stream was created before fork(); its worker thread "
                               "does not exist in this process, so it cannot run work: create "
                               "a new stream in the child (the default stream works)");
}

accel_status_t accel_cpu_stream_submit(accel_cpu_stream_t *stream, const accel_cpu_work_t *items,
                                       size_t count)
{
    accel_status_t status;
    if (count == 0)
        return ACCEL_OK;
    if (stream == NULL) {
        submit_inline(items, count);
        return ACCEL_OK;
    }
    pthread_mutex_lock(&stream->lock);
    if (stream->forked)
        status = stream_forked_error();
    else if (stream->capture != NULL)
        status = submit_capture(stream, items, count);
    else
        status = submit_queue(stream, items, count);
    pthread_mutex_unlock(&stream->lock);
    return status;
}

accel_status_t accel_cpu_stream_capture_begin(accel_cpu_stream_t *stream, accel_cpu_graph_t *graph)
{
    accel_status_t status = ACCEL_OK;
    pthread_mutex_lock(&stream->lock);
    if (stream->forked)
        status = stream_forked_error();
    else if (stream->capture != NULL)
        status = accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                     "cpu: the stream is already capturing a graph");
    else
        stream->capture = graph;
    pthread_mutex_unlock(&stream->lock);
    return status;
}

accel_status_t accel_cpu_stream_capture_end(accel_cpu_stream_t *stream,
                                            accel_cpu_graph_t **out_graph)
{
    accel_status_t status = ACCEL_OK;
    pthread_mutex_lock(&stream->lock);
    if (stream->capture == NULL) {
        status = accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                     "cpu: graph capture end on a stream that is not capturing");
    } else {
        *out_graph = stream->capture;
        stream->capture = NULL;
    }
    pthread_mutex_unlock(&stream->lock);
    return status;
}

/* ---------------------------------------------------------------- stream lifetime */

static void stream_release(accel_cpu_stream_t *stream)
{
    if (atomic_fetch_sub_explicit(&stream->refs, 1, memory_order_acq_rel) != 1)
        return;
    pthread_cond_destroy(&stream->work_done);
    pthread_cond_destroy(&stream->work_ready);
    pthread_mutex_destroy(&stream->lock);
    free(stream);
}

/* Start the worker with every signal blocked, so the application's signal
 * handlers keep running on its own threads. */
static int stream_start_worker(accel_cpu_stream_t *stream)
{
    sigset_t all, saved;
    int rc;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    rc = pthread_create(&stream->worker, NULL, stream_worker_main, stream);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (rc == 0)
        pthread_setname_np(stream->worker, "accel-cpu-strm");
    return rc;
}

/* Priorities are accepted and ignored: every worker is an ordinary thread. */
accel_status_t accel_cpu_stream_create(void *self, int device, int priority, void **out)
{
    accel_cpu_backend_t *cpu = self;
    accel_cpu_stream_t *stream = calloc(1, sizeof *stream);
    int rc;

    if (stream == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "cpu: out of host memory for a stream");
    stream->backend = cpu;
    stream->device = device;
    atomic_init(&stream->refs, 1);
    pthread_mutex_init(&stream->lock, NULL);
    pthread_cond_init(&stream->work_ready, NULL);
    pthread_cond_init(&stream->work_done, NULL);
    rc = stream_start_worker(stream);
    if (rc != 0) {
        stream_release(stream);
        return accel_backend_error(rc == EAGAIN ? ACCEL_ERROR_OUT_OF_MEMORY : ACCEL_ERROR_INTERNAL,
                                   "cpu: could not start the stream's worker thread: %s",
                                   strerror(rc));
    }
    pthread_mutex_lock(&cpu->streams_lock);
    stream->next_live = cpu->streams;
    cpu->streams = stream;
    pthread_mutex_unlock(&cpu->streams_lock);
    *out = stream;
    return ACCEL_OK;
}

static void stream_unlink(accel_cpu_backend_t *cpu, accel_cpu_stream_t *stream)
{
    pthread_mutex_lock(&cpu->streams_lock);
    for (accel_cpu_stream_t **link = &cpu->streams; *link != NULL; link = &(*link)->next_live) {
        if (*link == stream) {
            *link = stream->next_live;
            break;
        }
    }
    pthread_mutex_unlock(&cpu->streams_lock);
}

/* Runs every queued item, then joins the worker. A capture still open on the
 * stream is abandoned (its partial graph freed). */
void accel_cpu_stream_destroy(void *self, int device, void *stream_handle)
{
    accel_cpu_stream_t *stream = stream_handle;
    accel_cpu_graph_t *abandoned;
    bool forked;
    if (stream == NULL)
        return;
    stream_unlink(self, stream);
    pthread_mutex_lock(&stream->lock);
    stream->stopping = true;
    forked = stream->forked;
    abandoned = stream->capture;
    stream->capture = NULL;
    pthread_cond_signal(&stream->work_ready);
    pthread_mutex_unlock(&stream->lock);
    if (!forked) /* in a fork() child there is no worker to join */
        pthread_join(stream->worker, NULL);
    if (abandoned != NULL)
        accel_cpu_graph_free(abandoned);
    stream_release(stream);
}

/* Wait until the first `ticket` items ever submitted have run. */
static void stream_wait_ticket(accel_cpu_stream_t *stream, uint64_t ticket)
{
    pthread_mutex_lock(&stream->lock);
    while (stream->completed < ticket)
        pthread_cond_wait(&stream->work_done, &stream->lock);
    pthread_mutex_unlock(&stream->lock);
}

static uint64_t stream_ticket(accel_cpu_stream_t *stream)
{
    uint64_t ticket;
    pthread_mutex_lock(&stream->lock);
    ticket = stream->submitted;
    pthread_mutex_unlock(&stream->lock);
    return ticket;
}

static accel_status_t stream_refuse_self_wait(int device, const char *what)
{
    return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "cpu: a host callback cannot synchronize %s: it runs on a worker "
                               "of a stream of device %d, which would wait for itself "
                               "(synchronize from another thread)",
                               what, device);
}

accel_status_t accel_cpu_stream_synchronize(void *self, int device, void *stream_handle)
{
    accel_cpu_stream_t *stream = stream_handle;
    const void *own = NULL;
    bool forked;
    if (stream != NULL && accel_stream_worker_of(self, device, &own) && own == stream)
        return stream_refuse_self_wait(device, "its own stream");
    if (stream == NULL)
        return ACCEL_OK; /* the default stream never has anything pending */
    pthread_mutex_lock(&stream->lock);
    forked = stream->forked;
    pthread_mutex_unlock(&stream->lock);
    if (forked)
        return stream_forked_error();
    stream_wait_ticket(stream, stream_ticket(stream));
    return ACCEL_OK;
}

accel_status_t accel_cpu_stream_query(void *self, int device, void *stream_handle)
{
    accel_cpu_stream_t *stream = stream_handle;
    bool idle;
    if (stream == NULL)
        return ACCEL_OK;
    bool forked;
    pthread_mutex_lock(&stream->lock);
    idle = stream->completed == stream->submitted;
    forked = stream->forked;
    pthread_mutex_unlock(&stream->lock);
    if (forked)
        return stream_forked_error();
    return idle ? ACCEL_OK : ACCEL_ERROR_NOT_READY;
}

/* On the default stream this blocks the caller until the event completes,
 * since later default-stream work runs inline right after it returns. */
accel_status_t accel_cpu_stream_wait_event(void *self, int device, void *stream, void *event)
{
    accel_cpu_work_t work = {.kind = ACCEL_CPU_WORK_EVENT_WAIT};
    work.u.event.event = event;
    return accel_cpu_stream_submit(stream, &work, 1);
}

accel_status_t accel_cpu_stream_add_callback(void *self, int device, void *stream,
                                             accel_host_fn_t fn, void *user_data)
{
    accel_cpu_work_t work = {.kind = ACCEL_CPU_WORK_CALLBACK};
    if (fn == NULL)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: host callback function is NULL");
    work.u.callback.fn = fn;
    work.u.callback.user_data = user_data;
    return accel_cpu_stream_submit(stream, &work, 1);
}

/* Waits for what was queued on the device's streams when the call began;
 * work queued afterwards (by other threads) is not waited for. Streams are
 * referenced while waited on, so a concurrent stream_destroy is safe. */
accel_status_t accel_cpu_device_synchronize(void *self, int device)
{
    accel_cpu_backend_t *cpu = self;
    accel_cpu_stream_t **streams = NULL;
    uint64_t *tickets = NULL;
    size_t count = 0, n = 0;

    if (accel_stream_worker_of(self, device, NULL))
        return stream_refuse_self_wait(device, "the device it runs on");
    pthread_mutex_lock(&cpu->streams_lock);
    for (accel_cpu_stream_t *s = cpu->streams; s != NULL; s = s->next_live)
        count += s->device == device;
    if (count > 0) {
        streams = malloc(count * sizeof *streams);
        tickets = malloc(count * sizeof *tickets);
    }
    if (count > 0 && (streams == NULL || tickets == NULL)) {
        pthread_mutex_unlock(&cpu->streams_lock);
        free(streams);
        free(tickets);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "cpu: out of host memory synchronizing device %d", device);
    }
    for (accel_cpu_stream_t *s = cpu->streams; s != NULL; s = s->next_live) {
        if (s->device != device)
            continue;
        atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
        tickets[n] = stream_ticket(s);
        streams[n++] = s;
    }
    pthread_mutex_unlock(&cpu->streams_lock);

    for (size_t i = 0; i < n; i++) {
        stream_wait_ticket(streams[i], tickets[i]);
        stream_release(streams[i]);
    }
    free(streams);
    free(tickets);
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- fork */

void accel_cpu_streams_fork_lock(accel_cpu_backend_t *cpu)
{
    pthread_mutex_lock(&cpu->streams_lock);
    for (accel_cpu_stream_t *s = cpu->streams; s != NULL; s = s->next_live)
        pthread_mutex_lock(&s->lock);
}

/* In the child: the queue is kept aside (freed by fork_cleanup once no lock
 * is held, since freeing drops event references), the counters catch up so
 * device-wide waits skip the stream, and the condition variables start
 * afresh because the parent's waiters do not exist here. */
void accel_cpu_streams_fork_unlock(accel_cpu_backend_t *cpu, bool child)
{
    for (accel_cpu_stream_t *s = cpu->streams; s != NULL; s = s->next_live) {
        if (child) {
            s->forked = true;
            s->orphaned = s->head;
            s->head = s->tail = NULL;
            s->completed = s->submitted;
            pthread_cond_init(&s->work_ready, NULL);
            pthread_cond_init(&s->work_done, NULL);
        }
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_unlock(&cpu->streams_lock);
}

void accel_cpu_streams_fork_cleanup(accel_cpu_backend_t *cpu)
{
    pthread_mutex_lock(&cpu->streams_lock);
    for (accel_cpu_stream_t *s = cpu->streams; s != NULL; s = s->next_live) {
        accel_cpu_work_t *work;
        pthread_mutex_lock(&s->lock);
        work = s->orphaned;
        s->orphaned = NULL;
        pthread_mutex_unlock(&s->lock);
        while (work != NULL) {
            accel_cpu_work_t *next = work->next;
            work_free(work);
            work = next;
        }
    }
    pthread_mutex_unlock(&cpu->streams_lock);
}
