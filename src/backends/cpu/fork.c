/* fork.c: the CPU backend across fork(). Core's single atfork handler
 * (core/fork.h) calls these hooks after taking core's locks: every stream and
 * event lock of every live backend state is held across fork(), so the child
 * inherits none held; in the child, streams made before fork() are marked so
 * they refuse work (their worker threads were not copied) and event records
 * queued on them are marked lost.
 * Threads: `fork_backends` is guarded by fork_backends_lock, the outermost
 * lock of this backend. */
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/event.h"
#include "backends/cpu/stream.h"
#include "core/fork.h"

static pthread_mutex_t fork_backends_lock = PTHREAD_MUTEX_INITIALIZER;
static accel_cpu_backend_t *fork_backends;

static void cpu_fork_prepare(void)
{
    pthread_mutex_lock(&fork_backends_lock);
    for (accel_cpu_backend_t *cpu = fork_backends; cpu != NULL; cpu = cpu->next_backend) {
        accel_cpu_streams_fork_lock(cpu);
        accel_cpu_events_fork_lock(cpu);
    }
}

static void cpu_fork_release(bool child)
{
    for (accel_cpu_backend_t *cpu = fork_backends; cpu != NULL; cpu = cpu->next_backend) {
        accel_cpu_events_fork_unlock(cpu, child);
        accel_cpu_streams_fork_unlock(cpu, child);
    }
    if (child)
        for (accel_cpu_backend_t *cpu = fork_backends; cpu != NULL; cpu = cpu->next_backend)
            accel_cpu_streams_fork_cleanup(cpu);
    pthread_mutex_unlock(&fork_backends_lock);
}

static void cpu_fork_parent(void)
{
    cpu_fork_release(false);
}

static void cpu_fork_child(void)
{
    cpu_fork_release(true);
}

static const accel_fork_hooks_t cpu_fork_hooks = {
    .prepare = cpu_fork_prepare,
    .parent = cpu_fork_parent,
    .child = cpu_fork_child,
};

accel_status_t accel_cpu_fork_track(accel_cpu_backend_t *cpu)
{
    accel_status_t status = accel_fork_hooks_add(&cpu_fork_hooks);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&fork_backends_lock);
    cpu->next_backend = fork_backends;
    fork_backends = cpu;
    pthread_mutex_unlock(&fork_backends_lock);
    return ACCEL_OK;
}

void accel_cpu_fork_untrack(accel_cpu_backend_t *cpu)
{
    pthread_mutex_lock(&fork_backends_lock);
    for (accel_cpu_backend_t **link = &fork_backends; *link != NULL;
         link = &(*link)->next_backend) {
        if (*link == cpu) {
            *link = cpu->next_backend;
            break;
        }
    }
    pthread_mutex_unlock(&fork_backends_lock);
}
