/* call_dispatch.c: a checked call turned into the engine's dtype and op
 * codes, and what the engine lacks emulated: avg as a sum then a scale (on
 * the host, or for device engines through pinned memory on the stream);
 * 16-bit float reductions widened to f32 on host engines; data movement in a
 * dtype without a code sent as bytes. Inside a group, the scale waits for
 * the group's end. Called with the communicator's lock held. */
#include <stdint.h>
#include <stdlib.h>

#include "comm/call.h"
#include "comm/comm_scale.h"

/* Elements of the result this rank holds after the call (0: none). */
static size_t comm_result_count(const accel_comm_t *comm, const comm_call_t *call)
{
    if (call->kind == COMM_REDUCE && comm->rank != call->root)
        return 0;
    return call->count;
}

typedef struct comm_scale_job {
    void *host;
    size_t count;
    accel_dtype_t dtype;
    int divisor;
} comm_scale_job_t;

static void comm_scale_callback(void *user_data)
{
    comm_scale_job_t *job = user_data;
    accel_comm_scale(job->host, job->count, job->dtype, job->divisor);
}

/* Device engines' avg, the slow path: the sum is copied into pinned host
 * memory, scaled by a host callback and copied back, all on the stream; the
 * call then waits for the stream, so the pinned buffer can be freed. */
static accel_status_t comm_scale_on_device(accel_comm_t *comm, accel_stream_t *stream, void *recv,
                                           size_t count, accel_dtype_t dtype)
{
    accel_t *acc = comm->acc;
    size_t bytes = count * accel_comm_dtype_size(dtype);
    comm_scale_job_t job = {NULL, count, dtype, comm->size};
    bool callbacks = false;
    accel_status_t status = accel_host_alloc(acc, bytes, &job.host), copied;
    if (status != ACCEL_OK)
        return status;
    accel_query_flag(acc, ACCEL_FLAG_HOST_CALLBACKS_SUPPORTED, &callbacks);
    status = accel_memcpy_async(acc, job.host, recv, bytes, ACCEL_COPY_DEVICE_TO_HOST, stream);
    if (status == ACCEL_OK && callbacks) {
        status = accel_stream_add_callback(stream, comm_scale_callback, &job);
    } else if (status == ACCEL_OK) {
        status = accel_stream_synchronize(stream);
        if (status == ACCEL_OK)
            comm_scale_callback(&job);
    }
    if (status == ACCEL_OK)
        status = accel_memcpy_async(acc, recv, job.host, bytes, ACCEL_COPY_HOST_TO_DEVICE, stream);
    /* Whatever was queued must finish before the pinned buffer goes. */
    copied = accel_stream_synchronize(stream);
    accel_host_free(acc, job.host);
    return status != ACCEL_OK ? status : copied;
}

/* The scale of an emulated avg, once the sum is in `recv`. */
typedef struct comm_avg_job {
    accel_comm_t *comm;
    accel_stream_t *stream;
    void *recv;
    size_t count;
    accel_dtype_t dtype;
} comm_avg_job_t;

static accel_status_t comm_avg_run(const comm_avg_job_t *job)
{
    if (comm_on_host(job->comm)) {
        accel_comm_scale(job->recv, job->count, job->dtype, job->comm->size);
        return ACCEL_OK;
    }
    return comm_scale_on_device(job->comm, job->stream, job->recv, job->count, job->dtype);
}

/* At a group's end: the grouped sum has been issued by now. */
static accel_status_t comm_avg_finish(void *ctx, bool ok)
{
    comm_avg_job_t *job = ctx;
    accel_status_t status = ACCEL_OK;
    if (ok) {
        accel_comm_lock(job->comm);
        status = comm_avg_run(job);
        accel_comm_unlock(job->comm);
    }
    free(job);
    return status;
}

static accel_status_t comm_finish_avg(accel_comm_t *comm, const comm_call_t *call)
{
    comm_avg_job_t job = {comm, call->stream, call->recv, comm_result_count(comm, call),
                          call->dtype};
    comm_avg_job_t *later;
    if (job.count == 0)
        return ACCEL_OK;
    if (!accel_comm_group_open())
        return comm_avg_run(&job);
    /* Inside a group the engine issues the sum only at the group's end. */
    later = malloc(sizeof *later);
    if (later == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of memory deferring avg's scale");
    *later = job;
    return accel_comm_group_defer(comm_avg_finish, later);
}

/* f16 / bf16 reductions on a host engine without those types: reduced in
 * f32 (widened copies), rounded once on the way back. */
static accel_status_t comm_widened(accel_comm_t *comm, const comm_call_t *call, bool avg)
{
    size_t sent =
        call->kind == COMM_REDUCE_SCATTER ? call->count * (size_t)comm->size : call->count;
    size_t result = comm_result_count(comm, call);
    comm_call_t wide = *call;
    accel_status_t status;
    if (sent > SIZE_MAX / 4 / 2)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: %zu elements are too many to widen",
                           accel_comm_kind_names[call->kind], sent);
    float *send = malloc(sent * sizeof(float)), *recv = malloc(call->count * sizeof(float));
    if (send == NULL || recv == NULL) {
        free(send);
        free(recv);
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "%s: out of memory widening %zu %s elements to f32",
                           accel_comm_kind_names[call->kind], sent, accel_dtype_name(call->dtype));
    }
    accel_comm_widen(call->send, send, sent, call->dtype);
    wide.send = send;
    wide.recv = recv;
    wide.elem = sizeof(float);
    wide.dtype_code = comm->engine->dtype_codes[ACCEL_DTYPE_F32];
    status = comm_engine_call(comm, &wide);
    if (status == ACCEL_OK && result > 0) {
        if (avg)
            accel_comm_scale(recv, result, ACCEL_DTYPE_F32, comm->size);
        accel_comm_narrow(recv, call->recv, result, call->dtype);
    }
    free(send);
    free(recv);
    return status;
}

/* ---------------------------------------------------------------- dispatch */

accel_status_t accel_comm_dispatch(accel_comm_t *comm, comm_call_t *call)
{
    const accel_comm_engine_t *engine = comm->engine;
    const char *name = accel_comm_kind_names[call->kind];
    bool reduces = comm_reduces(call->kind);
    bool avg = reduces && call->op == ACCEL_REDUCE_AVG &&
               engine->op_codes[ACCEL_REDUCE_AVG] == ACCEL_COMM_NO_CODE;
    accel_status_t status;
    call->dtype_code = engine->dtype_codes[call->dtype];
    call->op_code = reduces ? engine->op_codes[avg ? ACCEL_REDUCE_SUM : call->op] : 0;
    if (reduces && call->op_code == ACCEL_COMM_NO_CODE)
        return accel_error(ACCEL_ERROR_UNSUPPORTED, "%s: the %s engine has no %s reduction", name,
                           engine->name, accel_reduce_op_name(avg ? ACCEL_REDUCE_SUM : call->op));
    if (reduces && call->dtype_code != ACCEL_COMM_NO_CODE && engine->reduce_supported != NULL) {
        accel_comm_engine_ctx_t ctx = {comm->acc->ops, comm->acc->self, comm->device,
                                       comm->timeout_s};
        accel_reduce_op_t op = avg ? ACCEL_REDUCE_SUM : call->op;
        char why[256] = "";
        if (!engine->reduce_supported(&ctx, call->dtype, op, why, sizeof why))
            return accel_error(ACCEL_ERROR_UNSUPPORTED,
                               "%s: the %s engine cannot reduce %s with %s: %s", name, engine->name,
                               accel_dtype_name(call->dtype), accel_reduce_op_name(op), why);
    }
    if (call->dtype_code == ACCEL_COMM_NO_CODE) {
        int bytes_code = engine->dtype_codes[ACCEL_DTYPE_U8];
        bool half = call->dtype == ACCEL_DTYPE_F16 || call->dtype == ACCEL_DTYPE_BF16;
        if (!reduces && bytes_code != ACCEL_COMM_NO_CODE) {
            /* Moving data needs no arithmetic: the elements go as bytes. */
            call->count *= call->elem;
            call->elem = 1;
            call->dtype_code = bytes_code;
            return comm_engine_call(comm, call);
        }
        if (reduces && half && comm_on_host(comm) &&
            engine->dtype_codes[ACCEL_DTYPE_F32] != ACCEL_COMM_NO_CODE)
            return comm_widened(comm, call, avg);
        return accel_error(ACCEL_ERROR_UNSUPPORTED, "%s: the %s engine has no %s type", name,
                           engine->name, accel_dtype_name(call->dtype));
    }
    status = comm_engine_call(comm, call);
    if (status == ACCEL_OK && avg)
        status = comm_finish_avg(comm, call);
    return status;
}
