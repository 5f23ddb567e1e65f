/* event.c: the CPU backend's events: numbered records completed by stream
 * workers (or inline on the default stream), with host timestamps for
 * elapsed_ms. Threads: any thread; an event's state is guarded by its lock.
 * Lifetime: reference counted, see event.h. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/event.h"
#include "backends/cpu/spin.h"
#include "backends/cpu/stream.h"
#include "backends/cpu/work.h"
#include "accel/accel_backend_utils.h"

static int64_t event_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* An event is complete when the newest record issued (`generation`) has run
 * (`completed` caught up). Records are numbered so that re-recording an event
 * makes it pending again and so that a wait refers to the record that was
 * newest when the wait was issued, as in CUDA. Generation 0 = never recorded. */
struct accel_cpu_event {
    accel_cpu_backend_t *backend; /* whose `events` list holds it */
    unsigned flags;
    atomic_uint refs;
    accel_cpu_event_t *prev_live, *next_live; /* backend->events, under events_lock */
    pthread_mutex_t lock;                     /* guards the fields below */
    pthread_cond_t completed_cond;            /* broadcast when `completed` advances */
    unsigned waiters;                         /* threads sleeping on completed_cond */
    uint64_t generation;                      /* records issued so far */
    /* Highest record that has run. Written under `lock`; also read without it
     * by waiters spinning before they sleep (spin.h). */
    _Atomic uint64_t completed;
    int64_t timestamp_ns;      /* CLOCK_MONOTONIC when `completed` ran */
    const void *record_stream; /* where the newest record is queued (NULL: inline) */
    uint64_t lost;             /* in a fork() child: records up to this one never run */
};

/* Records up to `lost` were pending on a stream whose worker did not survive
 * fork(); waiting for one would never end. Called with the event's lock. */
static bool event_record_lost(const accel_cpu_event_t *event, uint64_t generation)
{
    return generation <= event->lost && event->completed < generation;
}

static accel_status_t event_lost_error(void)
{
    return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "cpu: the event's record was queued before fork() on a stream "
                               "whose worker thread does not exist in this process, so it will "
                               "never complete: record it again in the child");
}

void accel_cpu_event_retain(accel_cpu_event_t *event)
{
    atomic_fetch_add_explicit(&event->refs, 1, memory_order_relaxed);
}

void accel_cpu_event_release(accel_cpu_event_t *event)
{
    accel_cpu_backend_t *cpu = event->backend;
    if (atomic_fetch_sub_explicit(&event->refs, 1, memory_order_acq_rel) != 1)
        return;
    pthread_mutex_lock(&cpu->events_lock);
    if (event->prev_live != NULL)
        event->prev_live->next_live = event->next_live;
    else
        cpu->events = event->next_live;
    if (event->next_live != NULL)
        event->next_live->prev_live = event->prev_live;
    pthread_mutex_unlock(&cpu->events_lock);
    pthread_cond_destroy(&event->completed_cond);
    pthread_mutex_destroy(&event->lock);
    free(event);
}

/* Issue a new record: the event is pending until accel_cpu_event_complete(generation). */
uint64_t accel_cpu_event_issue_record(accel_cpu_event_t *event, const void *stream)
{
    uint64_t generation;
    pthread_mutex_lock(&event->lock);
    generation = ++event->generation;
    event->record_stream = stream;
    pthread_mutex_unlock(&event->lock);
    return generation;
}

/* The record a wait issued now refers to (0: never recorded, nothing to wait for). */
uint64_t accel_cpu_event_current_record(accel_cpu_event_t *event)
{
    uint64_t generation;
    pthread_mutex_lock(&event->lock);
    generation = event->generation;
    pthread_mutex_unlock(&event->lock);
    return generation;
}

/* Record `generation` ran now. An older record finishing after a newer one
 * (two streams) changes nothing: completion only moves forward. */
void accel_cpu_event_complete(accel_cpu_event_t *event, uint64_t generation)
{
    int64_t now = event_clock_ns();
    pthread_mutex_lock(&event->lock);
    if (generation > atomic_load_explicit(&event->completed, memory_order_relaxed)) {
        event->timestamp_ns = now;
        atomic_store_explicit(&event->completed, generation, memory_order_release);
        if (event->waiters > 0)
            pthread_cond_broadcast(&event->completed_cond);
    }
    pthread_mutex_unlock(&event->lock);
}

/* Spin briefly on the completed counter, then sleep (the completing thread
 * broadcasts only when someone sleeps). */
void accel_cpu_event_wait_for(accel_cpu_event_t *event, uint64_t generation)
{
    accel_cpu_spin_t spin;
    if (atomic_load_explicit(&event->completed, memory_order_acquire) >= generation)
        return;
    accel_cpu_spin_start(&spin, event->backend->spin_ns);
    while (accel_cpu_spin_more(&spin))
        if (atomic_load_explicit(&event->completed, memory_order_acquire) >= generation)
            return;
    pthread_mutex_lock(&event->lock);
    while (event->completed < generation && !event_record_lost(event, generation)) {
        event->waiters++;
        pthread_cond_wait(&event->completed_cond, &event->lock);
        event->waiters--;
    }
    pthread_mutex_unlock(&event->lock);
}

accel_status_t accel_cpu_event_create(void *self, int device, unsigned flags, void **out)
{
    accel_cpu_event_t *event;
    if ((flags & ~ACCEL_EVENT_TIMING) != 0)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: event flags 0x%x include unknown bits (only "
                                   "ACCEL_EVENT_TIMING = 0x%x is defined)",
                                   flags, ACCEL_EVENT_TIMING);
    event = calloc(1, sizeof *event);
    if (event == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "cpu: out of host memory for an event");
    event->backend = self;
    event->flags = flags;
    atomic_init(&event->refs, 1);
    atomic_init(&event->completed, 0);
    pthread_mutex_init(&event->lock, NULL);
    pthread_cond_init(&event->completed_cond, NULL);
    pthread_mutex_lock(&event->backend->events_lock);
    event->next_live = event->backend->events;
    if (event->next_live != NULL)
        event->next_live->prev_live = event;
    event->backend->events = event;
    pthread_mutex_unlock(&event->backend->events_lock);
    *out = event;
    return ACCEL_OK;
}

void accel_cpu_event_destroy(void *self, int device, void *event)
{
    if (event != NULL)
        accel_cpu_event_release(event); /* queued records keep their own reference */
}

accel_status_t accel_cpu_event_record(void *self, int device, void *stream, void *event)
{
    accel_cpu_work_t work = {.kind = ACCEL_CPU_WORK_EVENT_RECORD};
    work.u.event.event = event;
    return accel_cpu_stream_submit(stream, &work, 1);
}

typedef struct event_target {
    accel_cpu_event_t *event;
    uint64_t generation;
} event_target_t;

static bool event_target_done(const void *arg)
{
    const event_target_t *t = arg;
    return atomic_load_explicit(&t->event->completed, memory_order_acquire) >= t->generation;
}

/* A host callback may not wait for a record queued behind it on its own
 * stream: that record runs only after the callback returns. A record still
 * queued on a created stream is run by the waiter itself when nothing ahead
 * of it needs the worker (accel_cpu_stream_run_queued): while it is pending
 * under the event's lock the stream cannot be destroyed (destroy drains the
 * queue, and completing the record needs that lock), so a reference taken
 * then is safe. */
accel_status_t accel_cpu_event_synchronize(void *self, int device, void *event)
{
    accel_cpu_event_t *e = event;
    const void *own = NULL;
    bool waits_on_itself = false, lost;
    bool worker = accel_callback_thread_of(self, device, &own);
    uint64_t generation;
    accel_cpu_stream_t *queued_on = NULL;
    pthread_mutex_lock(&e->lock);
    generation = e->generation;
    waits_on_itself = worker && e->completed < generation && e->record_stream == own;
    lost = event_record_lost(e, generation);
    if (!lost && !waits_on_itself && e->completed < generation && e->record_stream != NULL) {
        queued_on = (accel_cpu_stream_t *)e->record_stream;
        accel_cpu_stream_retain(queued_on);
    }
    pthread_mutex_unlock(&e->lock);
    if (lost)
        return event_lost_error();
    if (waits_on_itself)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: a host callback cannot synchronize an event recorded "
                                   "after it on its own stream: the record runs only once the "
                                   "callback returns");
    if (queued_on != NULL) {
        event_target_t target = {e, generation};
        accel_cpu_stream_run_queued(queued_on, event_target_done, &target);
        accel_cpu_stream_unref(queued_on);
    }
    accel_cpu_event_wait_for(e, generation);
    return ACCEL_OK;
}

accel_status_t accel_cpu_event_query(void *self, int device, void *event)
{
    accel_cpu_event_t *e = event;
    bool done, lost;
    pthread_mutex_lock(&e->lock);
    done = e->completed >= e->generation;
    lost = event_record_lost(e, e->generation);
    pthread_mutex_unlock(&e->lock);
    if (lost)
        return event_lost_error();
    return done ? ACCEL_OK : ACCEL_ERROR_NOT_READY; /* NOT_READY is an answer, not an error */
}

/* Copy what elapsed_ms needs out of one event under its lock. */
static void event_timing_state(accel_cpu_event_t *event, bool *recorded, bool *done,
                               int64_t *timestamp_ns)
{
    pthread_mutex_lock(&event->lock);
    *recorded = event->generation > 0;
    *done = event->completed >= event->generation;
    *timestamp_ns = event->timestamp_ns;
    pthread_mutex_unlock(&event->lock);
}

accel_status_t accel_cpu_event_elapsed_ms(void *self, int device, void *start, void *end,
                                          float *out)
{
    accel_cpu_event_t *a = start, *b = end;
    bool a_recorded, a_done, b_recorded, b_done;
    int64_t a_ns, b_ns;

    if (!(a->flags & ACCEL_EVENT_TIMING) || !(b->flags & ACCEL_EVENT_TIMING))
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: elapsed time needs two events created with "
                                   "ACCEL_EVENT_TIMING (the %s event was not)",
                                   !(a->flags & ACCEL_EVENT_TIMING) ? "start" : "end");
    event_timing_state(a, &a_recorded, &a_done, &a_ns);
    event_timing_state(b, &b_recorded, &b_done, &b_ns);
    if (!a_recorded || !b_recorded)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: elapsed time of an event that was never recorded "
                                   "(the %s event)",
                                   !a_recorded ? "start" : "end");
    if (!a_done || !b_done)
        return accel_backend_error(ACCEL_ERROR_NOT_READY, "cpu: the %s event has not completed yet",
                                   !a_done ? "start" : "end");
    *out = (float)((double)(b_ns - a_ns) / 1e6);
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- fork */

void accel_cpu_events_fork_lock(accel_cpu_backend_t *cpu)
{
    pthread_mutex_lock(&cpu->events_lock);
    for (accel_cpu_event_t *e = cpu->events; e != NULL; e = e->next_live)
        pthread_mutex_lock(&e->lock);
}

/* In the child the waiters of the parent's threads are gone, so each
 * condition variable starts afresh (a broadcast must not wait for them). */
void accel_cpu_events_fork_unlock(accel_cpu_backend_t *cpu, bool child)
{
    for (accel_cpu_event_t *e = cpu->events; e != NULL; e = e->next_live) {
        if (child) {
            if (e->completed < e->generation && e->record_stream != NULL)
                e->lost = e->generation;
            e->waiters = 0;
            pthread_cond_init(&e->completed_cond, NULL);
        }
        pthread_mutex_unlock(&e->lock);
    }
    pthread_mutex_unlock(&cpu->events_lock);
}
