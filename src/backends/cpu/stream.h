/* stream.h: created CPU streams (stream.c): a FIFO of work batches served by
 * one worker thread (a synchronizing thread may run callback-free batches
 * the worker has not started itself). Ownership and lock order: cpu_backend.h. */
#ifndef ACCEL_BACKENDS_CPU_STREAM_H
#define ACCEL_BACKENDS_CPU_STREAM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "accel/accel_backend_utils.h"
#include "backends/cpu/work.h"

struct accel_cpu_backend;
typedef struct accel_cpu_graph accel_cpu_graph_t;

/* One submission: the items of one submit call (a single op, or a whole
 * graph replay), queued and run as a unit so the worker wakes once per
 * batch, not per item. Allocated with room for `capacity` items. */
typedef struct accel_cpu_batch {
    struct accel_cpu_batch *next; /* queue link, under the stream's lock */
    size_t count, capacity;
    accel_cpu_work_t items[];
} accel_cpu_batch_t;

struct accel_cpu_stream {
    struct accel_cpu_backend *backend; /* the backend state that made it */
    int device;
    atomic_uint refs;

    pthread_mutex_t lock;      /* guards every field below */
    pthread_cond_t work_ready; /* worker: queue non-empty or stopping */
    pthread_cond_t work_done;  /* waiters: `completed` advanced */
    accel_cpu_batch_t *head, *tail;
    accel_cpu_batch_t *spare; /* one run batch kept for reuse (saves a malloc/free) */
    /* Items queued / finished, ever. Written under `lock`; also read without
     * it by threads spinning before they sleep (spin.h). */
    _Atomic uint64_t submitted, completed;
    atomic_bool stopping;  /* written under `lock`, read by the spinning worker */
    bool worker_sleeping;  /* the worker waits on work_ready: submit must signal */
    bool busy;             /* a batch is running (on the worker, or on a waiter that
                              took it): the next one waits */
    unsigned done_waiters; /* threads waiting on work_done: the worker must broadcast */
    bool forked;           /* in a fork() child: the worker is gone, the stream refuses work */
    accel_cpu_batch_t *orphaned; /* queue dropped at fork, freed by the child after */
    accel_cpu_graph_t *capture;  /* non-NULL while capturing */
    pthread_t worker;

    accel_cpu_stream_t *next_live; /* backend->streams list, under streams_lock */
};

/* Put a created stream in capture mode into `graph` / take the graph back.
 * INVALID_ARGUMENT when it already is / is not capturing. */
accel_status_t accel_cpu_stream_capture_begin(accel_cpu_stream_t *stream, accel_cpu_graph_t *graph);
accel_status_t accel_cpu_stream_capture_end(accel_cpu_stream_t *stream,
                                            accel_cpu_graph_t **out_graph);

/* fork(): take every stream lock of `cpu` (streams_lock first); release them
 * in the parent, or in the child after marking each stream forked (queue
 * dropped, counters caught up, condition variables reset). Then, in the child
 * with no lock held, free the dropped queues. */
void accel_cpu_streams_fork_lock(struct accel_cpu_backend *cpu);
void accel_cpu_streams_fork_unlock(struct accel_cpu_backend *cpu, bool child);
void accel_cpu_streams_fork_cleanup(struct accel_cpu_backend *cpu);

/* A reference that keeps the stream's memory alive (not its worker): taken
 * by an event waiter that saw a record still pending on it, which proves the
 * stream is not yet destroyed; dropped with accel_cpu_stream_unref. */
void accel_cpu_stream_retain(accel_cpu_stream_t *stream);
void accel_cpu_stream_unref(accel_cpu_stream_t *stream);

/* Run on the calling thread, oldest first, queued batches of `stream` that
 * nobody has started and that hold no host callback, until done(arg) or the
 * head batch is not such a one; the worker keeps the rest. Lets a waiter
 * finish work instead of waiting for a worker that may be asleep or off the
 * CPU. Call with no lock held. */
void accel_cpu_stream_run_queued(accel_cpu_stream_t *stream, bool (*done)(const void *arg),
                                 const void *arg);

/* Backend slots implemented in stream.c. */
ACCEL_BACKEND_DECLARE_STREAM_SLOTS(accel_cpu);
accel_status_t accel_cpu_device_synchronize(void *self, int device);

#endif /* ACCEL_BACKENDS_CPU_STREAM_H */
