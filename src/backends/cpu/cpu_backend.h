/* cpu_backend.h: the CPU backend, the host itself as an accel device (DESIGN.md §6).
 * Core needs only accel_cpu_backend_ops(); everything below it is shared
 * between the files of src/backends/cpu/ and is not part of any contract.
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
 * Lock order: backend streams_lock -> stream lock -> event lock; the worker
 * never holds its stream lock while it runs an item.
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
typedef struct accel_cpu_event accel_cpu_event_t;
typedef struct accel_cpu_graph accel_cpu_graph_t;

typedef struct accel_cpu_backend {
    int device_count;
    bool fp16_supported;
    long page_size;
    int online_cpus;
    int *node_cpus; /* online CPUs of each counted NUMA node, node_count entries */
    int node_count;
    char cpu_name[256];  /* /proc/cpuinfo "model name", or the machine type */
    char cpu_vendor[64]; /* cpuid vendor string, or /proc/cpuinfo's, or "" */

    pthread_mutex_t streams_lock; /* guards `streams` */
    accel_cpu_stream_t *streams;  /* live created streams, every device */
} accel_cpu_backend_t;

/* ---------------------------------------------------------------- work items */

typedef enum accel_cpu_work_kind {
    ACCEL_CPU_WORK_COPY = 0,
    ACCEL_CPU_WORK_SET = 1,
    ACCEL_CPU_WORK_RNG = 2,
    ACCEL_CPU_WORK_CALLBACK = 3,
    ACCEL_CPU_WORK_EVENT_RECORD = 4,
    ACCEL_CPU_WORK_EVENT_WAIT = 5,
} accel_cpu_work_kind_t;

/* One unit of stream work, copied by value into queues and graphs. For the
 * event kinds, `generation` is filled in when the item is submitted to a
 * running stream (never while captured), so a replayed graph records and
 * waits afresh each time. */
typedef struct accel_cpu_work {
    accel_cpu_work_kind_t kind;
    union {
        struct {
            void *dst;
            const void *src;
            size_t size;
        } copy;
        struct {
            void *dst;
            int value;
            size_t size;
        } set;
        struct {
            accel_rng_kind_t kind;
            void *ptr;
            size_t count;
            uint64_t seed;
            uint64_t offset;
        } rng;
        struct {
            accel_host_fn_t fn;
            void *user_data;
        } callback;
        struct {
            accel_cpu_event_t *event;
            uint64_t generation;
        } event;
    } u;
    struct accel_cpu_work *next; /* queue link; meaningless outside a queue */
} accel_cpu_work_t;

/* ---------------------------------------------------------------- streams (stream.c) */

struct accel_cpu_stream {
    int device;
    atomic_uint refs;

    pthread_mutex_t lock;      /* guards every field below */
    pthread_cond_t work_ready; /* worker: queue non-empty or stopping */
    pthread_cond_t work_done;  /* waiters: `completed` advanced */
    accel_cpu_work_t *head, *tail;
    uint64_t submitted, completed; /* items queued / finished, ever */
    bool stopping;
    accel_cpu_graph_t *capture; /* non-NULL while capturing */
    pthread_t worker;

    accel_cpu_stream_t *next_live; /* backend->streams list, under streams_lock */
};

/* Queue `count` items (copied) on `stream` in order, as one atomic step:
 * either all are queued, captured or run, or none is (OUT_OF_MEMORY).
 * stream NULL = the default stream: run each item now on the calling thread. */
accel_status_t accel_cpu_stream_submit(accel_cpu_stream_t *stream, const accel_cpu_work_t *items,
                                       size_t count);

/* Put a created stream in capture mode into `graph` / take the graph back.
 * INVALID_ARGUMENT when it already is / is not capturing. */
accel_status_t accel_cpu_stream_capture_begin(accel_cpu_stream_t *stream, accel_cpu_graph_t *graph);
accel_status_t accel_cpu_stream_capture_end(accel_cpu_stream_t *stream,
                                            accel_cpu_graph_t **out_graph);

/* Backend slots implemented in stream.c. */
accel_status_t accel_cpu_stream_create(void *self, int device, int priority, void **out);
void accel_cpu_stream_destroy(void *self, int device, void *stream);
accel_status_t accel_cpu_stream_synchronize(void *self, int device, void *stream);
accel_status_t accel_cpu_stream_query(void *self, int device, void *stream);
accel_status_t accel_cpu_stream_wait_event(void *self, int device, void *stream, void *event);
accel_status_t accel_cpu_stream_add_callback(void *self, int device, void *stream,
                                             accel_host_fn_t fn, void *user_data);
accel_status_t accel_cpu_device_synchronize(void *self, int device);

/* ---------------------------------------------------------------- events (stream.c) */

void accel_cpu_event_retain(accel_cpu_event_t *event);
void accel_cpu_event_release(accel_cpu_event_t *event);

accel_status_t accel_cpu_event_create(void *self, int device, unsigned flags, void **out);
void accel_cpu_event_destroy(void *self, int device, void *event);
accel_status_t accel_cpu_event_record(void *self, int device, void *stream, void *event);
accel_status_t accel_cpu_event_synchronize(void *self, int device, void *event);
accel_status_t accel_cpu_event_query(void *self, int device, void *event);
accel_status_t accel_cpu_event_elapsed_ms(void *self, int device, void *start, void *end,
                                          float *out);

/* ---------------------------------------------------------------- graphs (graph.c) */

struct accel_cpu_graph {
    accel_cpu_work_t *items;
    size_t count, capacity;
};

/* Make room for `extra` more items (so appends after it cannot fail). */
accel_status_t accel_cpu_graph_reserve(accel_cpu_graph_t *graph, size_t extra);
/* Append a copy of `work` (room must have been reserved); takes an event
 * reference for the event kinds. */
void accel_cpu_graph_append(accel_cpu_graph_t *graph, const accel_cpu_work_t *work);
/* Free a graph and drop its event references. */
void accel_cpu_graph_free(accel_cpu_graph_t *graph);

accel_status_t accel_cpu_graph_capture_begin(void *self, int device, void *stream);
accel_status_t accel_cpu_graph_capture_end(void *self, int device, void *stream, void **out_graph);
accel_status_t accel_cpu_graph_launch(void *self, int device, void *stream, void *graph);
void accel_cpu_graph_destroy(void *self, void *graph);

/* ---------------------------------------------------------------- memory (memory.c) */

accel_status_t accel_cpu_mem_alloc(void *self, int device, size_t size, void **out);
void accel_cpu_mem_free(void *self, int device, void *ptr);
accel_status_t accel_cpu_memcpy_async(void *self, int device, void *dst, const void *src,
                                      size_t size, accel_copy_kind_t kind, void *stream);
accel_status_t accel_cpu_memset_async(void *self, int device, void *dst, int value, size_t size,
                                      void *stream);
accel_status_t accel_cpu_host_alloc(void *self, size_t size, void **out);
void accel_cpu_host_free(void *self, void *ptr, size_t size);
accel_status_t accel_cpu_host_register(void *self, void *ptr, size_t size);
void accel_cpu_host_unregister(void *self, void *ptr, size_t size);

/* ---------------------------------------------------------------- random numbers (rng.c) */

accel_status_t accel_cpu_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                  void *ptr, size_t count, uint64_t seed, uint64_t offset);
/* Run one fill now on the calling thread, helped by the host thread pool for
 * large fills; the bits do not depend on how it was split. */
void accel_cpu_rng_run(accel_rng_kind_t kind, void *ptr, size_t count, uint64_t seed,
                       uint64_t offset);

#endif /* ACCEL_BACKENDS_CPU_CPU_BACKEND_H */
