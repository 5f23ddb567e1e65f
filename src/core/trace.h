/* trace.h: the built-in trace recorder's hooks for the files of src/core/.
 * Events (ranges, allocations, copies, fills, stream work) go into one
 * bounded buffer and are written as Chrome trace-event JSON by
 * accel_trace_flush/stop and at exit; see trace.c for the file layout.
 *
 * Cost when off: every hook site tests accel_trace_active(), one relaxed
 * atomic load and a branch predicted not taken. The very first test in a
 * process reads ACCEL_TRACE (once, under pthread_once) and settles the state.
 * Threads: every function here may be called from any thread. */
#ifndef ACCEL_CORE_TRACE_H
#define ACCEL_CORE_TRACE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

/* The recorder's state: UNKNOWN until ACCEL_TRACE has been read. */
enum {
    ACCEL_TRACE_STATE_UNKNOWN = 0,
    ACCEL_TRACE_STATE_OFF = 1,
    ACCEL_TRACE_STATE_ON = 2,
};
extern atomic_int accel_trace_state;

/* Slow path of accel_trace_active: read ACCEL_TRACE once; true when on. */
bool accel_trace_resolve(void);

static inline bool accel_trace_active(void)
{
    int state = atomic_load_explicit(&accel_trace_state, memory_order_relaxed);
    if (__builtin_expect(state == ACCEL_TRACE_STATE_OFF, 1))
        return false;
    return state == ACCEL_TRACE_STATE_ON || accel_trace_resolve();
}

/* CLOCK_MONOTONIC in nanoseconds (never 0). */
uint64_t accel_trace_now_ns(void);

/* The start time of a traced operation, or 0 when tracing is off: pass it to
 * accel_trace_op after the operation when it is not 0. */
static inline uint64_t accel_trace_begin(void)
{
    return accel_trace_active() ? accel_trace_now_ns() : 0;
}

/* A range opened / closed on the calling thread's track (B / E events). */
void accel_trace_range_push(const char *msg);
void accel_trace_range_pop(void);

/* A public call that did work (copy, memset, fill) on the calling thread's
 * track, from `begin_ns` to now; `bytes` and `device` become its args. */
void accel_trace_op(uint64_t begin_ns, const char *name, size_t bytes, int device);

/* An allocation ("malloc") or release ("free") of `bytes` on `device` of
 * `acc`: an instant event, then a counter of the device's allocated and
 * reserved bytes as the allocator reports them now. */
void accel_trace_memory(accel_t *acc, int device, const char *what, size_t bytes);

/* The stream keyed `stream_key` is gone (core calls it from
 * accel_stream_destroy with the backend's stream handle, after the backend
 * destroyed it): its track is closed, so a new stream that reuses the same
 * address gets a track of its own. Cheap when tracing is off. */
void accel_trace_stream_destroyed(const void *stream_key);

#endif /* ACCEL_CORE_TRACE_H */
