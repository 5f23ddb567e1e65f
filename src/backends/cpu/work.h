/* work.h: one unit of CPU stream work (copied by value into queues and
 * graphs) and the call that queues, captures or runs it. */
#ifndef ACCEL_BACKENDS_CPU_WORK_H
#define ACCEL_BACKENDS_CPU_WORK_H

#include <stddef.h>
#include <stdint.h>

#include "accel/accel_backend.h"

typedef struct accel_cpu_stream accel_cpu_stream_t;
typedef struct accel_cpu_event accel_cpu_event_t;

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
} accel_cpu_work_t;

/* Queue `count` items (copied) on `stream` in order, as one atomic step:
 * either all are queued, captured or run, or none is (OUT_OF_MEMORY).
 * stream NULL = the default stream: run each item now on the calling thread. */
accel_status_t accel_cpu_stream_submit(accel_cpu_stream_t *stream, const accel_cpu_work_t *items,
                                       size_t count);

#endif /* ACCEL_BACKENDS_CPU_WORK_H */
