/* stream.c: the CPU backend's streams and host callbacks.
 * The default stream (NULL) runs each item at once on the calling thread; a
 * created stream is a FIFO of work items served by its own worker thread, so
 * items on one stream run in order and items on different streams overlap.
 * Threads: every function here may be called from any thread. A stream's
 * queue and counters are guarded by its lock; see cpu_backend.h for the lock order
 * and for who owns what. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/event.h"
#include "backends/cpu/graph.h"
#include "backends/cpu/rng.h"
#include "backends/cpu/spin.h"
#include "backends/cpu/stream.h"
#include "accel/accel_backend_utils.h"

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

/* Drop the event references a batch's items hold (taken at submission). */
static void batch_release_items(accel_cpu_batch_t *batch)
{
    for (size_t i = 0; i < batch->count; i++)
        if (work_has_event(&batch->items[i]))
            accel_cpu_event_release(batch->items[i].u.event.event);
}

/* Busy-wait (no lock held) until something is submitted or the stream is
 * stopping, or the spin budget runs out. */
static void stream_worker_spin(accel_cpu_stream_t *stream, uint64_t seen)
{
    accel_cpu_spin_t spin;
    accel_cpu_spin_start(&spin, stream->backend->spin_ns);
    while (atomic_load_explicit(&stream->submitted, memory_order_acquire) == seen &&
           !atomic_load_explicit(&stream->stopping, memory_order_acquire) &&
           accel_cpu_spin_more(&spin)) {
    }
}

/* A batch a waiting thread may run itself: no host callback (those run on
 * the worker thread, as documented, and may call back into accel). */
static bool batch_stealable(const accel_cpu_batch_t *batch)
{
    for (size_t i = 0; i < batch->count; i++)
        if (batch->items[i].kind == ACCEL_CPU_WORK_CALLBACK)
            return false;
    return true;
}

/* Called with stream->lock held, the queue non-empty and nobody running a
 * batch, by the worker or by a synchronizing thread: run the oldest batch
 * (lock released meanwhile; `busy` keeps everyone else from starting the
 * next one, so items still run in order), then count it done and wake
 * whoever waits for that. */
static void stream_run_head_locked(accel_cpu_stream_t *stream)
{
    accel_cpu_batch_t *batch = stream->head;
    stream->head = batch->next;
    if (stream->head == NULL)
        stream->tail = NULL;
    stream->busy = true;
    pthread_mutex_unlock(&stream->lock);

    for (size_t i = 0; i < batch->count; i++)
        work_run_traced(&batch->items[i], stream);
    batch_release_items(batch);

    pthread_mutex_lock(&stream->lock);
    stream->busy = false;
    atomic_store_explicit(&stream->completed,
                          atomic_load_explicit(&stream->completed, memory_order_relaxed) +
                              batch->count,
                          memory_order_release);
    if (stream->done_waiters > 0)
        pthread_cond_broadcast(&stream->work_done);
    /* A worker that slept while another thread ran this batch. */
    if (stream->worker_sleeping &&
        (stream->head != NULL || atomic_load_explicit(&stream->stopping, memory_order_relaxed)))
        pthread_cond_signal(&stream->work_ready);
    if (stream->spare == NULL) {
        stream->spare = batch;
        batch = NULL;
    }
    if (batch != NULL) {
        pthread_mutex_unlock(&stream->lock);
        free(batch);
        pthread_mutex_lock(&stream->lock);
    }
}

/* The worker takes whole batches: one wake-up (or none, while it spins) per
 * submission. It spins briefly after each batch before sleeping, so work
 * submitted right after the previous batch finished starts at once. */
static void *stream_worker_main(void *arg)
{
    accel_cpu_stream_t *stream = arg;
    bool spun = false;
    accel_callback_thread_mark(stream->backend, stream->device, stream);
    pthread_mutex_lock(&stream->lock);
    for (;;) {
        if (stream->head != NULL && !stream->busy) {
            spun = false;
            stream_run_head_locked(stream);
            continue;
        }
        if (stream->head == NULL && !stream->busy &&
            atomic_load_explicit(&stream->stopping, memory_order_relaxed))
            break; /* stopping and drained */
        if (!spun) {
            uint64_t seen = atomic_load_explicit(&stream->submitted, memory_order_relaxed);
            pthread_mutex_unlock(&stream->lock);
            stream_worker_spin(stream, seen);
            pthread_mutex_lock(&stream->lock);
            spun = true;
            continue;
        }
        stream->worker_sleeping = true;
        pthread_cond_wait(&stream->work_ready, &stream->lock);
        stream->worker_sleeping = false;
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

#define BATCH_MIN_CAPACITY 8

/* Called with stream->lock held. The whole submission becomes one batch (the
 * stream's spare one when it is large enough, else a new allocation made
 * before any state changes, so a failure leaves the stream and the events as
 * they were). The worker is signalled only when it sleeps. */
static accel_status_t submit_queue(accel_cpu_stream_t *stream, const accel_cpu_work_t *items,
                                   size_t count)
{
    accel_cpu_batch_t *batch = stream->spare;
    if (batch != NULL && batch->capacity >= count) {
        stream->spare = NULL;
    } else {
        size_t capacity = count < BATCH_MIN_CAPACITY ? BATCH_MIN_CAPACITY : count;
        batch = NULL;
        if (capacity <= (SIZE_MAX - sizeof *batch) / sizeof batch->items[0])
            batch = malloc(sizeof *batch + capacity * sizeof batch->items[0]);
        if (batch == NULL)
            return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                       "cpu: out of host memory queueing %zu work item(s) on a "
                                       "stream",
                                       count);
        batch->capacity = capacity;
    }
    batch->next = NULL;
    batch->count = count;
    memcpy(batch->items, items, count * sizeof items[0]);
    for (size_t i = 0; i < count; i++) {
        if (work_has_event(&batch->items[i]))
            accel_cpu_event_retain(batch->items[i].u.event.event);
        work_prepare(&batch->items[i], stream);
    }
    if (stream->tail != NULL)
        stream->tail->next = batch;
    else
        stream->head = batch;
    stream->tail = batch;
    atomic_store_explicit(&stream->submitted,
                          atomic_load_explicit(&stream->submitted, memory_order_relaxed) + count,
                          memory_order_release);
    if (stream->worker_sleeping)
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
    free(stream->spare);
    free(stream);
}

void accel_cpu_stream_retain(accel_cpu_stream_t *stream)
{
    atomic_fetch_add_explicit(&stream->refs, 1, memory_order_relaxed);
}

void accel_cpu_stream_unref(accel_cpu_stream_t *stream)
{
    stream_release(stream);
}

void accel_cpu_stream_run_queued(accel_cpu_stream_t *stream, bool (*done)(const void *arg),
                                 const void *arg)
{
    pthread_mutex_lock(&stream->lock);
    while (!stream->forked && !done(arg) && !stream->busy && stream->head != NULL &&
           batch_stealable(stream->head))
        stream_run_head_locked(stream);
    pthread_mutex_unlock(&stream->lock);
}

/* Start the worker with every signal blocked (accel_thread_start), so the
 * application's signal handlers keep running on its own threads. */
static int stream_start_worker(accel_cpu_stream_t *stream)
{
    int rc = accel_thread_start(&stream->worker, NULL, stream_worker_main, stream);
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
    atomic_init(&stream->submitted, 0);
    atomic_init(&stream->completed, 0);
    atomic_init(&stream->stopping, false);
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
    atomic_store_explicit(&stream->stopping, true, memory_order_release);
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

/* Wait until the first `ticket` items ever submitted have run. A batch the
 * worker has not started yet the waiter runs itself (in order, never two at
 * once: `busy`), rather than wait for a worker that may be asleep or off the
 * CPU; a batch with a host callback, or one already running, it waits for:
 * spinning briefly on the counter, then sleeping (the worker broadcasts only
 * to sleepers). */
static void stream_wait_ticket(accel_cpu_stream_t *stream, uint64_t ticket)
{
    bool spun = false;
    if (atomic_load_explicit(&stream->completed, memory_order_acquire) >= ticket)
        return;
    pthread_mutex_lock(&stream->lock);
    while (atomic_load_explicit(&stream->completed, memory_order_relaxed) < ticket) {
        if (!stream->busy && stream->head != NULL && batch_stealable(stream->head)) {
            stream_run_head_locked(stream);
            continue;
        }
        if (!spun) {
            accel_cpu_spin_t spin;
            pthread_mutex_unlock(&stream->lock);
            accel_cpu_spin_start(&spin, stream->backend->spin_ns);
            while (atomic_load_explicit(&stream->completed, memory_order_acquire) < ticket &&
                   accel_cpu_spin_more(&spin)) {
            }
            pthread_mutex_lock(&stream->lock);
            spun = true;
            continue;
        }
        stream->done_waiters++;
        pthread_cond_wait(&stream->work_done, &stream->lock);
        stream->done_waiters--;
    }
    pthread_mutex_unlock(&stream->lock);
}

static uint64_t stream_ticket(accel_cpu_stream_t *stream)
{
    return atomic_load_explicit(&stream->submitted, memory_order_acquire);
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
    if (stream != NULL && accel_callback_thread_of(self, device, &own) && own == stream)
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
    idle = atomic_load(&stream->completed) == atomic_load(&stream->submitted);
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

    if (accel_callback_thread_of(self, device, NULL))
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
            atomic_store(&s->completed, atomic_load(&s->submitted));
            s->worker_sleeping = false;
            s->busy = false;
            s->done_waiters = 0;
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
        accel_cpu_batch_t *batch;
        pthread_mutex_lock(&s->lock);
        batch = s->orphaned;
        s->orphaned = NULL;
        pthread_mutex_unlock(&s->lock);
        while (batch != NULL) {
            accel_cpu_batch_t *next = batch->next;
            batch_release_items(batch);
            free(batch);
            batch = next;
        }
    }
    pthread_mutex_unlock(&cpu->streams_lock);
}
