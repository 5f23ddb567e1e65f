/* thread_state.h: what each thread remembers per accel_t: its current device,
 * its current stream on each device, and its open profiling ranges.
 * Owned by the thread (a pthread key of the accel_t frees it at thread exit);
 * only the owning thread reads or writes it, so no locks. */
#ifndef ACCEL_CORE_THREAD_STATE_H
#define ACCEL_CORE_THREAD_STATE_H

#include "core.h"

typedef struct accel_thread_state {
    int device;
    int range_depth;
    accel_stream_t *current_streams[]; /* one per device; NULL = default */
} accel_thread_state_t;

/* Bumped whenever the calling thread changes one of its current streams (of
 * any accel_t): an answer cached per thread about "this thread's current
 * stream" holds while it is unchanged (the collectives' repeat path). */
extern _Thread_local uint64_t accel_thread_stream_epoch;

/* The calling thread's state for `acc`, created on first use; NULL only when
 * out of memory (error set). */
accel_thread_state_t *accel_thread_state(accel_t *acc);

/* The calling thread's current stream on `device` (in range, unchecked) of
 * a live, initialised `acc`: what accel_current_stream answers, for core's
 * own hot paths that have checked their arguments already. NULL only when
 * out of memory (error set). */
static inline accel_stream_t *accel_thread_stream(accel_t *acc, int device)
{
    accel_thread_state_t *state = accel_thread_state(acc);
    if (state == NULL)
        return NULL;
    return state->current_streams[device] != NULL ? state->current_streams[device]
                                                  : acc->devices[device].default_stream;
}

#endif
