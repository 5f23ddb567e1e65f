/* sim_stream.h: a simulated stream or queue (ACL's, SDAA's and CUDA's
 * streams): a worker thread serving a sim_queue_t in order, on a device,
 * one of the sim's live streams. A sim's stream struct starts with a
 * sim_stream_core_t; the sim keeps its streams in one sim_streams_t and
 * says what a task does (its sim_queue_ops_t).
 * Lifetime: a device's default stream lives as long as the process. A
 * created stream ends one of two ways, the runtime's: sim_stream_end waits
 * for its work, stops and joins the worker, and the caller frees it (ACL);
 * or sim_stream_release stops it and returns at once, and the worker,
 * once the queue has run dry and no one waits on the stream, takes it out
 * of the live set and frees it (CUDA, SDAA).
 * Thread rules: sim_lock and sim_changed (sim_core.h) guard every stream
 * and the set; each function says whether it takes sim_lock. */
#ifndef ACCEL_TESTS_SIM_STREAM_H
#define ACCEL_TESTS_SIM_STREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim_handle.h"
#include "sim_queue.h"

typedef struct sim_streams sim_streams_t;

typedef struct sim_stream_core {
    sim_handle_t handle; /* first: in the live set; its address is the handle */
    sim_queue_t queue;
    int device;
    bool is_default; /* a device's default stream: no handle a caller passes */
    pthread_t worker;
    bool detached;        /* its worker was started detached */
    bool released;        /* sim_stream_release ran: the worker frees it */
    sim_streams_t *owner; /* the set it is in */
} sim_stream_core_t;

#define SIM_STREAM_MAX_DEVICES 64

struct sim_streams {
    sim_handles_t live;         /* every stream not yet ended */
    const sim_queue_ops_t *ops; /* what the sim's tasks do */
    /* Each device's default stream, made on first use, never freed. */
    sim_stream_core_t *defaults[SIM_STREAM_MAX_DEVICES];
};

/* Starts `stream` (zeroed, the sim's allocation) on `device`: its worker
 * (detached when the stream will free itself, sim_stream_release) and its
 * place in the live set. False when no thread could start (the caller
 * frees it). Takes sim_lock. */
bool sim_stream_start(sim_streams_t *streams, sim_stream_core_t *stream, int device,
                      bool is_default, bool detached);

/* A new stream of `size` bytes (the sim's struct, zeroed, starting with
 * its core) on `device`, started; NULL when out of memory or no thread
 * could start. Takes sim_lock. */
sim_stream_core_t *sim_stream_create(sim_streams_t *streams, size_t size, int device,
                                     bool detached);

/* `device`'s default stream (a joinable worker that never stops), made on
 * first use; NULL when it cannot be made. Takes sim_lock. */
sim_stream_core_t *sim_streams_default(sim_streams_t *streams, size_t size, int device);

/* The live created stream `handle` names (not a default one, not being
 * destroyed), or NULL. Takes sim_lock. */
sim_stream_core_t *sim_streams_find(sim_streams_t *streams, const void *handle);

/* Queues a copy of `task` (`size` bytes, a sim_queue_task_t first) on
 * `stream`. False when out of memory. Takes sim_lock. */
bool sim_stream_submit(sim_stream_core_t *stream, const void *task, size_t size);

/* Waits until `stream` has run everything queued before the call. Under
 * sim_lock (sim_stream_wait_locked) or taking it (sim_stream_wait). */
void sim_stream_wait_locked(sim_stream_core_t *stream);
void sim_stream_wait(sim_stream_core_t *stream);

/* Waits for every stream of `device`. Takes sim_lock. */
void sim_stream_drain_device(sim_streams_t *streams, int device);

/* Waits for the work, leaves the live set, stops and joins the worker; the
 * caller frees the stream. Takes sim_lock. */
void sim_stream_end(sim_stream_core_t *stream);

/* Stops the stream and returns at once: queued work still runs, then the
 * worker frees the stream (a worker not started detached is joined here
 * when nothing was queued, else detached). Takes sim_lock. */
void sim_stream_release(sim_stream_core_t *stream);
/* The same under sim_lock, for a stream whose worker started detached. */
void sim_stream_release_locked(sim_stream_core_t *stream);

#endif /* ACCEL_TESTS_SIM_STREAM_H */
