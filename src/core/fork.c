/* fork.c: core's pthread_atfork handler and the list of backend hooks it
 * calls (see fork.h for the lock order and why there is only one handler).
 * Threads: the hook list is append-only; its count is read atomically. */
#include "fork.h"

#include <pthread.h>
#include <stdatomic.h>

#include "error.h"
#include "thread_state.h"

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t fork_hooks_lock = PTHREAD_MUTEX_INITIALIZER; /* serialises adders */
static const accel_fork_hooks_t *fork_hooks[ACCEL_FORK_MAX_HOOKS];
static atomic_size_t fork_hook_count;

static void fork_prepare(void)
{
    size_t count = atomic_load(&fork_hook_count);
    accel_selection_fork_lock();
    accel_registry_fork_lock();
    accel_instances_fork_lock();
    for (size_t i = 0; i < count; i++)
        fork_hooks[i]->prepare();
    accel_thread_states_fork_lock(); /* leaves: nothing is taken while they are held */
    accel_trace_fork_lock();
}

static void fork_release(bool child)
{
    size_t count = atomic_load(&fork_hook_count);
    accel_trace_fork_unlock();
    accel_thread_states_fork_unlock();
    for (size_t i = count; i-- > 0;) {
        if (child)
            fork_hooks[i]->child();
        else
            fork_hooks[i]->parent();
    }
    accel_instances_fork_unlock();
    accel_registry_fork_unlock();
    accel_selection_fork_unlock();
}

static void fork_parent(void)
{
    fork_release(false);
}

static void fork_child(void)
{
    fork_release(true);
}

static void fork_install_once(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

void accel_fork_install(void)
{
    pthread_once(&fork_once, fork_install_once);
}

accel_status_t accel_fork_hooks_add(const accel_fork_hooks_t *hooks)
{
    accel_status_t status = ACCEL_OK;
    size_t count;
    accel_fork_install();
    pthread_mutex_lock(&fork_hooks_lock);
    count = atomic_load(&fork_hook_count);
    for (size_t i = 0; i < count; i++)
        if (fork_hooks[i] == hooks)
            goto out;
    if (count == ACCEL_FORK_MAX_HOOKS) {
        status = accel_error(ACCEL_ERROR_INTERNAL, "more than %d sets of fork hooks",
                             ACCEL_FORK_MAX_HOOKS);
        goto out;
    }
    fork_hooks[count] = hooks;
    atomic_store(&fork_hook_count, count + 1);
out:
    pthread_mutex_unlock(&fork_hooks_lock);
    return status;
}
