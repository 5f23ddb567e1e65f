/* handles.h: where an accel_t's user streams, events and graphs live.
 * Their structs are never handed back to the C library while the accel_t is
 * open: a destroyed one gets ACCEL_TAG_DEAD and waits in a FIFO, and is
 * reused only once ACCEL_HANDLE_QUARANTINE later handles have been destroyed
 * after it. So the tag check on entry reads memory that is still the
 * library's, and a stale handle is refused until its slot is reused; after
 * that (or after accel_close) a stale handle is not detected.
 * Threads: every function takes the registry's own lock.
 * Ownership: the registry owns every slot; accel_handles_fini frees them. */
#ifndef ACCEL_CORE_HANDLES_H
#define ACCEL_CORE_HANDLES_H

#include <pthread.h>
#include <stddef.h>

/* Destroyed handles that must follow one before its slot is reused. */
#define ACCEL_HANDLE_QUARANTINE 64

typedef enum accel_handle_kind {
    ACCEL_HANDLE_STREAM = 0,
    ACCEL_HANDLE_EVENT = 1,
    ACCEL_HANDLE_GRAPH = 2,
    ACCEL_HANDLE_KINDS = 3,
} accel_handle_kind_t;

typedef struct accel_handle_slot accel_handle_slot_t;

typedef struct accel_handles {
    pthread_mutex_t lock;                             /* guards every field below */
    accel_handle_slot_t *live;                        /* live handles, any kind (doubly linked) */
    accel_handle_slot_t *retired_head, *retired_tail; /* destroyed, oldest first */
    size_t retired_count;
    size_t live_count[ACCEL_HANDLE_KINDS];
} accel_handles_t;

void accel_handles_init(accel_handles_t *handles);
/* Free every slot, live or retired (the accel_t is going away). */
void accel_handles_fini(accel_handles_t *handles);

/* Zeroed memory for one handle of `kind` (NULL when out of host memory; no
 * error text). The caller fills it in, tag included. */
void *accel_handle_new(accel_handles_t *handles, accel_handle_kind_t kind);
/* Mark a handle from accel_handle_new destroyed (its tag becomes
 * ACCEL_TAG_DEAD) and queue its slot for reuse. */
void accel_handle_retire(accel_handles_t *handles, void *object);

/* Live handles of `kind`. */
size_t accel_handles_live(accel_handles_t *handles, accel_handle_kind_t kind);

/* Call fn on every live handle of `kind` with the registry locked (fn must
 * not create or destroy handles). */
void accel_handles_each(accel_handles_t *handles, accel_handle_kind_t kind,
                        void (*fn)(void *object, void *arg), void *arg);

/* Hold the registry lock and every live graph's lock across fork() (a graph
 * lock is held while a backend queues work, so they come before any
 * allocator or backend lock); called by instance.c's fork helpers only. */
void accel_handles_fork_lock(accel_handles_t *handles);
void accel_handles_fork_unlock(accel_handles_t *handles);

#endif /* ACCEL_CORE_HANDLES_H */
