/* comm_split.c: accel_comm_split (MPI_Comm_split's rule) and accel_barrier.
 * Split exchanges every rank's (color, key) with an all_gather so that the
 * layer knows each new communicator's ranks, then lets the engine split, or
 * (engines without split) hands every color's unique id around with a
 * second all_gather and initialises the new communicators.
 * Threads: the parent communicator's lock is held throughout. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "core/error.h"

/* all[r * bytes ..] = rank r's `mine` (bytes each), on host memory; device
 * engines go through device scratch on the communicator's device's current
 * stream. Lock held. */
static accel_status_t comm_exchange(accel_comm_t *comm, const void *mine, size_t bytes, void *all)
{
    const accel_comm_engine_t *engine = comm->engine;
    int code = engine->dtype_codes[ACCEL_DTYPE_U8];
    size_t total = bytes * (size_t)comm->size;
    accel_stream_t *stream;
    void *native, *scratch = NULL;
    accel_status_t status;
    if (code == ACCEL_COMM_NO_CODE)
        return accel_error(ACCEL_ERROR_UNSUPPORTED, "the %s engine has no byte type to split with",
                           engine->name);
    status = accel_comm_order(comm, NULL, &stream, &native);
    if (status != ACCEL_OK)
        return status;
    if (engine->kind == ACCEL_COMM_ENGINE_HOST)
        return engine->all_gather(comm->engine_comm, mine, all, bytes, code, NULL);
    /* On the stream, so on the communicator's device whatever the calling
     * thread's current device is. */
    status = accel_malloc_async(comm->acc, total + bytes, stream, &scratch);
    if (status != ACCEL_OK)
        return status;
    status = accel_memcpy_async(comm->acc, scratch, mine, bytes, ACCEL_COPY_HOST_TO_DEVICE, stream);
    if (status == ACCEL_OK)
        status = engine->all_gather(comm->engine_comm, scratch, (char *)scratch + bytes, bytes,
                                    code, native);
    if (status == ACCEL_OK)
        status = accel_memcpy_async(comm->acc, all, (char *)scratch + bytes, total,
                                    ACCEL_COPY_DEVICE_TO_HOST, stream);
    accel_free_async(comm->acc, scratch, stream);
    accel_status_t synced = accel_stream_synchronize(stream);
    return status != ACCEL_OK ? status : synced;
}

typedef struct comm_member {
    int32_t color, key;
} comm_member_t;

/* The new communicator of `rank`: its size, its rank in it, and the parent
 * rank that becomes its rank 0 (MPI_Comm_split's order: key, then rank). */
static void comm_split_place(const comm_member_t *all, int size, int rank, int *new_size,
                             int *new_rank, int *leader)
{
    *new_size = *new_rank = 0;
    *leader = -1;
    for (int r = 0; r < size; r++) {
        if (all[r].color != all[rank].color)
            continue;
        (*new_size)++;
        if (all[r].key < all[rank].key || (all[r].key == all[rank].key && r < rank))
            (*new_rank)++;
        if (*leader < 0 || all[r].key < all[*leader].key)
            *leader = r;
    }
}

/* Engines without split: every color's leader makes a unique id, the ids go
 * around, and each member initialises with its leader's. Each rank's entry
 * is the id, then one byte saying whether it made it (1; 0 when it failed
 * or has none to make): a member whose leader failed fails at once,
 * saying so, instead of initialising with an id nobody made. */
static accel_status_t comm_split_by_id(accel_comm_t *comm, const comm_member_t *all, int color,
                                       int new_size, int new_rank, int leader, void **out)
{
    const accel_comm_engine_t *engine = comm->engine;
    size_t entry = 1 + engine->unique_id_size;
    accel_comm_engine_ctx_t ctx = {comm->acc->ops, comm->acc->self, comm->device, comm->timeout_s};
    unsigned char *mine = calloc(1, entry), *ids = calloc((size_t)comm->size, entry);
    accel_status_t status = ACCEL_OK;
    char made[512] = "";
    (void)all;
    if (engine->unique_id == NULL || engine->init == NULL)
        status = accel_error(ACCEL_ERROR_INTERNAL, "the %s engine has neither split nor init",
                             engine->name);
    else if (engine->unique_id_every_rank && engine->rendezvous_env != NULL &&
             accel_env_get(engine->rendezvous_env) != NULL)
        /* Every rank sees the variable (comm_init sets it in each process),
         * so every rank refuses alike; the exchange below still runs, so
         * that none is left waiting. */
        status = accel_error(ACCEL_ERROR_UNSUPPORTED,
                             "split: with %s set (the rendezvous without MPI) every color's "
                             "leader would get the same %s unique id, that address, and each "
                             "color's rank 0 would start its root there and collide; this %s "
                             "library has no split call of its own (NCCL: ncclCommSplit, 2.18 "
                             "and later): upgrade it, or start the job with mpirun",
                             engine->rendezvous_env, engine->name, engine->name);
    else if (mine == NULL || ids == NULL)
        status = accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of memory for split's unique ids");
    if (status == ACCEL_OK && color != ACCEL_COMM_SPLIT_NONE && new_rank == 0) {
        status = accel_comm_engine_unique_id(engine, &ctx, mine);
        mine[entry - 1] = status == ACCEL_OK;
    }
    if (status != ACCEL_OK)
        accel_error_copy(made, sizeof made);
    /* Every rank takes part in the exchange, even after a local failure, so
     * that the others are not left waiting. */
    accel_status_t exchanged =
        mine != NULL && ids != NULL ? comm_exchange(comm, mine, entry, ids) : status;
    if (status != ACCEL_OK)
        accel_error(status, "%s", made); /* this rank's own failure */
    else
        status = exchanged;
    if (status == ACCEL_OK && color != ACCEL_COMM_SPLIT_NONE) {
        const unsigned char *theirs = ids + (size_t)leader * entry;
        if (theirs[entry - 1] != 1)
            status = accel_error(ACCEL_ERROR_DEVICE_ERROR,
                                 "split: rank %d, the first of color %d, could not make the %s "
                                 "unique id (its own error says why): no communicator was made",
                                 leader, color, engine->name);
        else /* into `mine`: malloc's alignment, as the engine's id type wants */
            status = engine->init(&ctx, new_size, new_rank, memcpy(mine, theirs, entry - 1), out);
    }
    free(mine);
    free(ids);
    return status;
}

accel_status_t accel_comm_split(accel_comm_t *comm, int color, int key, accel_comm_t **out)
{
    comm_member_t me = {color, key}, *all;
    int new_size, new_rank, leader;
    void *made = NULL;
    accel_status_t status = accel_comm_check(comm);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = NULL;
    if (color < 0 && color != ACCEL_COMM_SPLIT_NONE)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "split color %d is negative (colors are >= 0, or "
                           "ACCEL_COMM_SPLIT_NONE to take part without a new communicator)",
                           color);
    if (accel_comm_group_open())
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "accel_comm_split inside a group: end the group first");
    all = calloc((size_t)comm->size, sizeof *all);
    if (all == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of memory for split's colors");
    accel_comm_lock(comm);
    status = comm_exchange(comm, &me, sizeof me, all);
    if (status == ACCEL_OK) {
        comm_split_place(all, comm->size, comm->rank, &new_size, &new_rank, &leader);
        if (comm->engine->split != NULL)
            status = comm->engine->split(comm->engine_comm, color, key, &made);
        else
            status = comm_split_by_id(comm, all, color, new_size, new_rank, leader, &made);
    }
    accel_comm_unlock(comm);
    free(all);
    if (status != ACCEL_OK || color == ACCEL_COMM_SPLIT_NONE) {
        if (made != NULL)
            comm->engine->destroy(made);
        return status;
    }
    return accel_comm_wrap(comm->acc, comm->engine, made, new_rank, new_size, comm->device,
                           comm->timeout_s, out);
}

/* ---------------------------------------------------------------- barrier */

/* Engines without barrier: an all_reduce of one zeroed element, in scratch
 * that the layer frees after the call (inside a group: after its end, when
 * the engine has issued it). Lock held. */
static accel_status_t comm_barrier_by_all_reduce(accel_comm_t *comm, accel_stream_t *stream,
                                                 void *native)
{
    const accel_comm_engine_t *engine = comm->engine;
    int code = ACCEL_COMM_NO_CODE;
    void *buffer, *job;
    accel_status_t status;
    for (int d = 0; d < ACCEL_DTYPE_COUNT_ && code == ACCEL_COMM_NO_CODE; d++)
        code = engine->dtype_codes[d];
    if (code == ACCEL_COMM_NO_CODE || engine->op_codes[ACCEL_REDUCE_SUM] == ACCEL_COMM_NO_CODE)
        return accel_error(ACCEL_ERROR_INTERNAL, "the %s engine has no barrier and no sum",
                           engine->name);
    status = accel_comm_scratch(comm, stream, sizeof(int64_t), NULL, &buffer, &job);
    if (status != ACCEL_OK)
        return status;
    if (engine->kind == ACCEL_COMM_ENGINE_DEVICE)
        status = accel_memset_async(comm->acc, buffer, 0, sizeof(int64_t), stream);
    else
        memset(buffer, 0, sizeof(int64_t));
    if (status == ACCEL_OK)
        status = engine->all_reduce(comm->engine_comm, buffer, buffer, 1, code,
                                    engine->op_codes[ACCEL_REDUCE_SUM], native);
    return accel_comm_scratch_done(job, status);
}

accel_status_t accel_barrier(accel_comm_t *comm, accel_stream_t *stream)
{
    void *native;
    accel_status_t status = accel_comm_check(comm);
    if (status != ACCEL_OK)
        return status;
    accel_comm_lock(comm);
    status = accel_comm_group_join(comm->engine);
    if (status == ACCEL_OK)
        status = accel_comm_order(comm, stream, &stream, &native);
    if (status == ACCEL_OK)
        status = comm->engine->barrier != NULL ? comm->engine->barrier(comm->engine_comm, native)
                                               : comm_barrier_by_all_reduce(comm, stream, native);
    accel_comm_unlock(comm);
    return status;
}
