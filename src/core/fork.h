/* fork.h: keeping the library usable in a child after fork(). One
 * pthread_atfork handler (installed by the first accel_t) takes every lock
 * core holds on the cpu path before fork (selection, registry, each accel_t's
 * locks and allocators, the trace recorder) and releases it in both the
 * parent and the child, so the child never inherits a lock held by a thread
 * that does not exist there. Built-in backends add their own locks with
 * accel_fork_hooks_add; their prepare runs after core's (core's locks are
 * taken first, matching the order in which calls nest: a core lock may be
 * held while a backend lock is taken, never the reverse) and their
 * parent/child run before core's.
 * Threads: accel_fork_hooks_add may be called from any thread. */
#ifndef ACCEL_CORE_FORK_H
#define ACCEL_CORE_FORK_H

#include "core.h"

typedef struct accel_fork_hooks {
    void (*prepare)(void); /* take the backend's locks */
    void (*parent)(void);  /* release them in the parent */
    void (*child)(void);   /* release or reset them in the child, single-threaded */
} accel_fork_hooks_t;

/* Install core's handler once (idempotent). */
void accel_fork_install(void);

/* Add a backend's hooks (the struct must live for the process; adding the
 * same one twice is a no-op). At most ACCEL_FORK_MAX_HOOKS are kept;
 * INTERNAL beyond that. */
#define ACCEL_FORK_MAX_HOOKS 8
accel_status_t accel_fork_hooks_add(const accel_fork_hooks_t *hooks);

/* Lock / unlock helpers of the files that own each lock (called only by the
 * handler in fork.c). */
void accel_selection_fork_lock(void);
void accel_selection_fork_unlock(void);
void accel_registry_fork_lock(void);
void accel_registry_fork_unlock(void);
void accel_instances_fork_lock(void);
void accel_instances_fork_unlock(void);
void accel_trace_fork_lock(void);
void accel_trace_fork_unlock(void);

#endif /* ACCEL_CORE_FORK_H */
