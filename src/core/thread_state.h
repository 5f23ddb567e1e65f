/* thread_state.h: what each thread remembers per accel_t: its current device,
 * its current stream on each device, and its open profiling ranges.
 * Used only by its thread, so its fields need no lock. Freed at thread exit
 * (a pthread key of the accel_t), or by accel_close for threads still alive
 * then: every state is also in one process-wide registry (thread_state.c),
 * which is what lets the two frees never meet. */
#ifndef ACCEL_CORE_THREAD_STATE_H
#define ACCEL_CORE_THREAD_STATE_H

#include <pthread.h>

#include "core.h"

typedef struct accel_thread_state {
    int device;
    int range_depth;
    /* the registry (thread_state.c), under its lock */
    accel_t *owner;
    pthread_t thread;
    struct accel_thread_state *next_state, *prev_state;
    accel_stream_t *current_streams[]; /* one per device; NULL = default */
} accel_thread_state_t;

/* Bumped whenever the calling thread changes one of its current streams (of
 * any accel_t): an answer cached per thread about "this thread's current
 * stream" holds while it is unchanged (the collectives' repeat path). */
extern _Thread_local uint64_t accel_thread_stream_epoch;

/* The calling thread's state for `acc`, created on first use; NULL only when
 * out of memory (error set). */
accel_thread_state_t *accel_thread_state(accel_t *acc);

/* The pthread key's destructor: frees a state at its thread's exit unless
 * accel_thread_states_free already did. */
void accel_thread_state_exit(void *state);
/* Frees every thread's state of `acc` (accel_close: its key is deleted
 * next, so the states of threads still alive would otherwise never go). */
void accel_thread_states_free(accel_t *acc);
/* How many states are registered (tests). */
size_t accel_thread_states_live(void);
/* fork.c's handler: the registry's lock, a leaf. */
void accel_thread_states_fork_lock(void);
void accel_thread_states_fork_unlock(void);

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
