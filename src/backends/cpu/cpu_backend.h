/* cpu_backend.h: the CPU backend, the host itself as an accel device (docs/architecture.md,
 * Backends). Core needs only accel_cpu_backend_ops(); the backend state below is shared by the
 * files of src/backends/cpu/ and is not part of any contract. Each object has its own header
 * (work.h, stream.h, event.h, graph.h, rng.h, memory.h); none of them includes another except
 * work.h, so no cycle.
 *
 * Objects and who owns them:
 * - accel_cpu_backend_t: made by create(), freed by destroy(). Fields above
 *   `streams_lock` are written once in create() and read-only afterwards.
 * - accel_cpu_stream_t: made by stream_create, owned by core's accel_stream_t.
 *   Each has one worker thread that runs its queue in order. Reference
 *   counted so synchronize(device) can wait on it while another thread
 *   destroys it; the worker is joined by stream_destroy.
 * - accel_cpu_event_t: reference counted; the user's handle is one reference
 *   and every queued or captured work item naming it is another, so an event
 *   destroyed with a record still pending stays alive until that record ran.
 * - accel_cpu_graph_t: a flat array of work items copied by value; built by
 *   one capturing stream (under that stream's lock), read-only once returned.
 * Lock order: fork.c's backends lock -> backend streams_lock -> stream lock
 * -> backend events_lock -> event lock; the worker never holds its stream
 * lock while it runs an item. Core's locks (allocators included) come before
 * all of these (core/fork.h).
 */
#ifndef ACCEL_BACKENDS_CPU_CPU_BACKEND_H
#define ACCEL_BACKENDS_CPU_CPU_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "accel/accel_backend.h"

/* The CPU backend's ops table (constant, process lifetime). */
const accel_backend_ops_t *accel_cpu_backend_ops(void);

/* ---------------------------------------------------------------- shared state */

typedef struct accel_cpu_stream accel_cpu_stream_t;

typedef struct accel_cpu_backend {
    int device_count;
    bool fp16_supported;
    long page_size;
    int online_cpus;
    int64_t spin_ns; /* busy-wait before sleeping (spin.h); 0 with one CPU */
    int *node_cpus;  /* online CPUs of each counted NUMA node, node_count entries */
    int node_count;
    char cpu_name[256];  /* /proc/cpuinfo "model name", or the machine type */
    char cpu_vendor[64]; /* cpuid vendor string, or /proc/cpuinfo's, or "" */

    pthread_mutex_t streams_lock;   /* guards `streams` */
    accel_cpu_stream_t *streams;    /* live created streams, every device */
    pthread_mutex_t events_lock;    /* guards `events` */
    struct accel_cpu_event *events; /* live events (any reference), every device */

    struct accel_cpu_backend *next_backend; /* fork.c's list, under its lock */
} accel_cpu_backend_t;

/* ---------------------------------------------------------------- fork (fork.c) */

/* Track a backend state for the fork handler from create() to destroy().
 * In a child, streams created before fork() are refused with a sentence
 * (their workers do not exist there) and event records queued on them are
 * reported lost; everything else, the default stream included, works. */
accel_status_t accel_cpu_fork_track(accel_cpu_backend_t *cpu);
void accel_cpu_fork_untrack(accel_cpu_backend_t *cpu);

#endif /* ACCEL_BACKENDS_CPU_CPU_BACKEND_H */
