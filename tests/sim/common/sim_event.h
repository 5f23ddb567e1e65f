/* sim_event.h: a simulated event as a stream sees it (ACL's and SDAA's
 * events, CNRT's notifiers): the records queued on streams, the latest one
 * a stream has reached and when, and the queued tasks that still name the
 * event. A task that names an event holds a reference, so an event the
 * caller destroyed lives until the last of its queued records and waits
 * has run. A sim's event struct embeds a sim_event_marks_t.
 * Thread rules: every function here is called with sim_lock (sim_core.h)
 * held; the waits drop it while they wait on sim_changed. */
#ifndef ACCEL_TESTS_SIM_EVENT_H
#define ACCEL_TESTS_SIM_EVENT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_event_marks {
    unsigned long recorded;  /* records queued */
    unsigned long completed; /* the latest record a stream reached */
    uint64_t time_ns;        /* CLOCK_MONOTONIC when `completed` was reached */
    unsigned long refs;      /* queued tasks naming the event */
    bool destroyed;          /* the caller destroyed it: freed when refs reach 0 */
} sim_event_marks_t;

/* A task naming the event is queued: a record (its generation, the next
 * one) or a wait (for the latest record queued now; 0: none, no wait). */
unsigned long sim_event_queue_record(sim_event_marks_t *marks);
unsigned long sim_event_queue_wait(sim_event_marks_t *marks);

/* On a stream's worker: the record of `generation` ran; a wait for
 * `generation` waits until a stream reached it. */
void sim_event_reach(sim_event_marks_t *marks, unsigned long generation);
void sim_event_wait(sim_event_marks_t *marks, unsigned long generation);

/* On the host: waits until the latest record queued now has run. */
void sim_event_synchronize(sim_event_marks_t *marks);

/* Every record queued has run (an event never recorded too). */
bool sim_event_done(const sim_event_marks_t *marks);

/* A task naming the event retired; true when the event must now be freed
 * (destroyed, and no other task names it). */
bool sim_event_release_task(sim_event_marks_t *marks);

/* The caller destroys the event; true when it can be freed now. */
bool sim_event_destroy(sim_event_marks_t *marks);

#endif /* ACCEL_TESTS_SIM_EVENT_H */
