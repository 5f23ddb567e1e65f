/* scratch.c: the layer's scratch memory for what it emulates (comm.h's
 * accel_comm_scratch: host memory for a host engine, device memory ordered
 * on the stream otherwise), copies in the communicator's memory, and reduce
 * for engines without one. Callers hold the communicator's lock; a group's
 * deferred copy takes it at the group's end. */
#include <stdlib.h>
#include <string.h>

#include "comm/call.h"

/* Scratch and what follows the engine call that writes it: the copy into
 * `copy_to`, then the free; inside a group both wait for the group's end
 * (comm_scratch_finish). */
typedef struct comm_scratch_job {
    accel_comm_t *comm;
    accel_stream_t *stream;
    void *scratch; /* owned by the job */
    void *copy_to; /* NULL: nothing to copy (not the root, or a barrier's word) */
    size_t bytes;
} comm_scratch_job_t;

static void comm_scratch_free(accel_comm_t *comm, void *scratch, accel_stream_t *stream)
{
    if (comm_on_host(comm))
        free(scratch);
    else
        accel_free_async(comm->acc, scratch, stream);
}

accel_status_t accel_comm_copy(accel_comm_t *comm, accel_stream_t *stream, void *dst,
                               const void *src, size_t bytes)
{
    if (comm_on_host(comm)) {
        memmove(dst, src, bytes);
        return ACCEL_OK;
    }
    return accel_memcpy_async(comm->acc, dst, src, bytes, ACCEL_COPY_DEVICE_TO_DEVICE, stream);
}

/* The copy out of scratch (when `ok`) and the free; takes the job. Called
 * with the communicator's lock held, or from a group's end (it locks). */
static accel_status_t comm_scratch_run(comm_scratch_job_t *job, bool ok)
{
    accel_status_t status = ACCEL_OK;
    if (ok && job->copy_to != NULL)
        status = accel_comm_copy(job->comm, job->stream, job->copy_to, job->scratch, job->bytes);
    comm_scratch_free(job->comm, job->scratch, job->stream);
    free(job);
    return status;
}

static accel_status_t comm_scratch_finish(void *ctx, bool ok)
{
    comm_scratch_job_t *job = ctx;
    accel_comm_t *comm = job->comm;
    accel_comm_lock(comm);
    accel_status_t status = comm_scratch_run(job, ok);
    accel_comm_unlock(comm);
    return status;
}

accel_status_t accel_comm_scratch(accel_comm_t *comm, accel_stream_t *stream, size_t bytes,
                                  void *copy_to, void **scratch_out, void **job_out)
{
    comm_scratch_job_t *job = calloc(1, sizeof *job);
    void *scratch = NULL;
    accel_status_t status;
    if (job == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of memory for a scratch job");
    if (comm_on_host(comm)) {
        scratch = malloc(bytes);
        status = scratch != NULL
                     ? ACCEL_OK
                     : accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "out of memory for a %zu-byte scratch buffer", bytes);
    } else {
        status = accel_malloc_async(comm->acc, bytes, stream, &scratch);
    }
    if (status != ACCEL_OK) {
        free(job);
        return status;
    }
    *job = (comm_scratch_job_t){comm, stream, scratch, copy_to, bytes};
    *scratch_out = scratch;
    *job_out = job;
    return ACCEL_OK;
}

accel_status_t accel_comm_scratch_done(void *job, accel_status_t called)
{
    if (called == ACCEL_OK && accel_comm_group_open())
        return accel_comm_group_defer(comm_scratch_finish, job);
    accel_status_t finished = comm_scratch_run(job, called == ACCEL_OK);
    return called != ACCEL_OK ? called : finished;
}

/* The all_reduce into scratch; the root's copy into recv and the free
 * follow it (accel_comm_scratch_done). */
accel_status_t accel_comm_reduce_by_all_reduce(accel_comm_t *comm, const comm_call_t *call)
{
    size_t bytes = call->count * call->elem;
    void *scratch = NULL, *job = NULL;
    accel_status_t status = accel_comm_scratch(
        comm, call->stream, bytes, comm->rank == call->root ? call->recv : NULL, &scratch, &job);
    if (status != ACCEL_OK)
        return status;
    status = comm->engine->all_reduce(comm->engine_comm, call->send, scratch, call->count,
                                      call->dtype_code, call->op_code, call->native);
    return accel_comm_scratch_done(job, status);
}
