/* thread_state.c: each thread's state per accel_t (thread_state.h), made on
 * first use and kept in a process-wide registry so that it is freed exactly
 * once: by its thread's exit (the accel_t's pthread key), or by accel_close
 * for threads still alive then (a deleted key runs no destructors).
 * Threads: the registry and every state's registry fields are under
 * `states_lock`, a leaf lock. A destructor touches a state only after
 * finding it in the registry as its own thread's: glibc may still run the
 * destructor of a key accel_close is deleting, with a state close has just
 * freed (and whose address may be in use again). */
#include <stdlib.h>

#include "error.h"
#include "thread_state.h"

static pthread_mutex_t states_lock = PTHREAD_MUTEX_INITIALIZER;
static accel_thread_state_t *states_head;
static size_t states_count;

static void states_unlink(accel_thread_state_t *state)
{
    if (state->prev_state != NULL)
        state->prev_state->next_state = state->next_state;
    else
        states_head = state->next_state;
    if (state->next_state != NULL)
        state->next_state->prev_state = state->prev_state;
    states_count--;
}

accel_thread_state_t *accel_thread_state(accel_t *acc)
{
    accel_thread_state_t *state = pthread_getspecific(acc->thread_key);
    if (state != NULL)
        return state;
    state = calloc(1, sizeof *state + (size_t)acc->device_count * sizeof(accel_stream_t *));
    if (state == NULL) {
        accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory for thread state");
        return NULL;
    }
    state->device = acc->initial_device;
    state->owner = acc;
    state->thread = pthread_self();
    if (pthread_setspecific(acc->thread_key, state) != 0) {
        free(state);
        accel_error(ACCEL_ERROR_INTERNAL, "could not store thread state");
        return NULL;
    }
    pthread_mutex_lock(&states_lock);
    state->next_state = states_head;
    if (states_head != NULL)
        states_head->prev_state = state;
    states_head = state;
    states_count++;
    pthread_mutex_unlock(&states_lock);
    return state;
}

void accel_thread_state_exit(void *state)
{
    pthread_t self = pthread_self();
    pthread_mutex_lock(&states_lock);
    for (accel_thread_state_t *s = states_head; s != NULL; s = s->next_state) {
        if (s == state && pthread_equal(s->thread, self)) {
            states_unlink(s);
            free(s);
            break;
        }
    }
    pthread_mutex_unlock(&states_lock);
}

void accel_thread_states_free(accel_t *acc)
{
    pthread_mutex_lock(&states_lock);
    accel_thread_state_t *s = states_head;
    while (s != NULL) {
        accel_thread_state_t *next = s->next_state;
        if (s->owner == acc) {
            states_unlink(s);
            free(s);
        }
        s = next;
    }
    pthread_mutex_unlock(&states_lock);
}

size_t accel_thread_states_live(void)
{
    pthread_mutex_lock(&states_lock);
    size_t count = states_count;
    pthread_mutex_unlock(&states_lock);
    return count;
}

void accel_thread_states_fork_lock(void)
{
    pthread_mutex_lock(&states_lock);
}

void accel_thread_states_fork_unlock(void)
{
    pthread_mutex_unlock(&states_lock);
}
