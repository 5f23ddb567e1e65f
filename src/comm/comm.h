/* comm.h: the private layout of accel_comm_t and what the files of the
 * communicator layer (the .c files of src/comm/) share: the engine table, argument
 * checks, stream resolution, group state. Nothing here is public.
 *
 * Ownership: a communicator owns its engine communicator; it points at its
 * accel_t, which must outlive it. Live communicators are recorded in a
 * process-wide list so a destroyed or foreign handle is refused without
 * reading freed memory.
 * Threads: the communicator's lock (`busy`, accel_comm_lock) is held around
 * every engine call on the communicator (engine.h); the other fields are set
 * at creation and read-only afterwards. */
#ifndef ACCEL_COMM_COMM_H
#define ACCEL_COMM_COMM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "comm/engine.h"
#include "core/core.h"

struct accel_comm {
    accel_comm_t *next_live; /* the live list (comm_init.c) */
    accel_t *acc;
    const accel_comm_engine_t *engine;
    void *engine_comm;
    int rank, size, device;
    double timeout_s;
    _Atomic bool busy; /* the lock below */
};

/* ---- the communicator's lock (comm_lock.c)
 * accel_comm.h allows one thread at a time on a communicator, so the lock is
 * almost never contended and is built for that: taking it is one atomic
 * exchange and releasing it one store, with nothing to wake. A thread that
 * finds it held waits by polling (spinning briefly, then yielding, then
 * sleeping in steps of up to 1 ms): it may wait behind a collective that
 * lasts until the communicator's timeout. Not recursive. */
void accel_comm_lock_wait(accel_comm_t *comm);

static inline __attribute__((always_inline)) void accel_comm_lock(accel_comm_t *comm)
{
    if (atomic_exchange_explicit(&comm->busy, true, memory_order_acquire))
        accel_comm_lock_wait(comm);
}

static inline void accel_comm_unlock(accel_comm_t *comm)
{
    atomic_store_explicit(&comm->busy, false, memory_order_release);
}

/* ---- engines.c: the engine table */

/* Every engine built in, NULL-terminated. */
extern const accel_comm_engine_t *const accel_comm_engines[];
/* The engine called `name`, or NULL. */
const accel_comm_engine_t *accel_comm_engine_find(const char *name);
/* engine->unique_id with ctx's device made current first for a DEVICE
 * engine (engine.h): Ascend HCCL's HcclGetRootInfo works on the thread's ACL
 * device and fails without one (hcomm's HcclGetRootInfo begins with
 * hrtGetDeviceRefresh), and the root info carries that device. */
accel_status_t accel_comm_engine_unique_id(const accel_comm_engine_t *engine,
                                           const accel_comm_engine_ctx_t *ctx, void *out);
/* The engine name that DeepSpeed's communication backend name stands for on
 * `backend` ("nccl" -> "nccl", "gloo" on cpu -> "mpi", "hccl" on hpu ->
 * "habana-hccl"...), or NULL when none does. */
const char *accel_comm_engine_for(const char *backend, const char *comm_backend);
/* Whether `engine` serves `acc`'s backend (its list, or "*" for host memory). */
bool accel_comm_engine_serves(const accel_comm_engine_t *engine, const accel_t *acc);

/* ---- comm_init.c */

/* INVALID_ARGUMENT with a sentence unless `comm` is a live communicator. */
accel_status_t accel_comm_check(const accel_comm_t *comm);
/* Bumped whenever a communicator is destroyed, so that a thread's cached
 * answers about a handle (accel_comm_check's "live", collectives.c's
 * "this call was valid") are dropped once the handle may name another
 * communicator. */
extern _Atomic uint64_t accel_comm_live_generation;
/* Wrap an engine communicator into a new live accel_comm_t (rank, size,
 * device and timeout as given); destroys the engine's on failure. */
accel_status_t accel_comm_wrap(accel_t *acc, const accel_comm_engine_t *engine, void *engine_comm,
                               int rank, int size, int device, double timeout_s,
                               accel_comm_t **out);

/* ---- comm_stream.c */

/* The stream a call on `comm` is ordered on: `stream`, or the calling
 * thread's current stream of the communicator's device when NULL; and, for
 * a device engine, its vendor stream (native_stream) in *native. For a host
 * engine the stream's earlier work is waited for here. */
accel_status_t accel_comm_order(accel_comm_t *comm, accel_stream_t *stream, accel_stream_t **out,
                                void **native);
/* Check a buffer of `bytes` given to a call on `comm` (what: "send buffer"):
 * NULL refused when bytes > 0; memory accel's allocator knows must hold the
 * whole range and be on the communicator's device; device engines accept
 * only such memory. */
accel_status_t accel_comm_check_buffer(accel_comm_t *comm, const void *ptr, size_t bytes,
                                       const char *what);

/* ---- collectives.c: scratch for the layer's fallbacks */

/* `bytes` of scratch in the communicator's memory (host for a host engine,
 * else device memory ordered on `stream`) and a job that owns it. After the
 * engine call that writes the scratch, accel_comm_scratch_done(job, status
 * of that call) copies the scratch into `copy_to` (unless NULL, or the call
 * failed) and frees it, now or, inside a group, at the group's end. Lock held. */
accel_status_t accel_comm_scratch(accel_comm_t *comm, accel_stream_t *stream, size_t bytes,
                                  void *copy_to, void **scratch, void **job);
accel_status_t accel_comm_scratch_done(void *job, accel_status_t called);

/* The calling thread's next collective goes through the whole layer again
 * (its repeat path assumes no open group: accel_comm_group_start calls it). */
void accel_comm_forget_repeat(void);

/* ---- group.c */

/* Called before each engine call: inside a group, starts the engine's group
 * on first use in this group. */
accel_status_t accel_comm_group_join(const accel_comm_engine_t *engine);
/* Whether the calling thread is inside a group. */
bool accel_comm_group_open(void);
/* Work that must follow a call issued inside a group (avg's scale, a
 * fallback's copy out of scratch, freeing that scratch): device engines run
 * a group's calls only at its end, so `finish(ctx, ok)` runs on this thread
 * after the outermost accel_comm_group_end has ended the engines' groups (ok:
 * they all succeeded; else it only frees). In order of deferral; no
 * communicator lock is held when it runs. Takes `ctx` in every case: when it
 * cannot be recorded, finish(ctx, false) runs at once and OUT_OF_MEMORY comes
 * back. */
typedef accel_status_t (*accel_comm_finish_fn)(void *ctx, bool ok);
accel_status_t accel_comm_group_defer(accel_comm_finish_fn finish, void *ctx);

#endif /* ACCEL_COMM_COMM_H */
