/* event.h: CPU events (event.c): numbered records completed in stream
 * order. Reference counted: the user's handle is one reference and every
 * queued or captured work item naming the event is another. */
#ifndef ACCEL_BACKENDS_CPU_EVENT_H
#define ACCEL_BACKENDS_CPU_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "accel/accel_backend.h"
#include "accel/accel_backend_utils.h"

struct accel_cpu_backend;
typedef struct accel_cpu_event accel_cpu_event_t;

void accel_cpu_event_retain(accel_cpu_event_t *event);
void accel_cpu_event_release(accel_cpu_event_t *event);

/* Issue a new record (the event is pending until it completes); the record a
 * wait issued now refers to (0: none); mark a record as run; block until a
 * record has run. Used by stream workers and the default stream; `stream`
 * is where the record is queued (NULL: the default stream). */
uint64_t accel_cpu_event_issue_record(accel_cpu_event_t *event, const void *stream);
/* fork(): take every event lock of `cpu` (events_lock first); release them in
 * the parent, or in the child after marking records still pending as lost
 * (their stream's worker is gone) and resetting condition variables. */
void accel_cpu_events_fork_lock(struct accel_cpu_backend *cpu);
void accel_cpu_events_fork_unlock(struct accel_cpu_backend *cpu, bool child);
uint64_t accel_cpu_event_current_record(accel_cpu_event_t *event);
void accel_cpu_event_complete(accel_cpu_event_t *event, uint64_t generation);
void accel_cpu_event_wait_for(accel_cpu_event_t *event, uint64_t generation);

ACCEL_BACKEND_DECLARE_EVENT_SLOTS(accel_cpu);

#endif /* ACCEL_BACKENDS_CPU_EVENT_H */
