/* collectives.c: the collective and point-to-point calls of accel_comm.h:
 * every argument checked, the stream resolved, dtypes and ops turned into
 * the engine's codes, and what the engine lacks emulated (avg as sum then a
 * scale; 16-bit float reductions widened to f32 on host engines; bytes for
 * data movement in a dtype the engine has no code for; reduce through
 * all_reduce; in-place-only broadcast; barrier through all_reduce).
 * Threads: the communicator's lock is held from the stream ordering to the
 * end of the engine call. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "comm/comm_scale.h"
#include "core/error.h"
#include "core/thread_state.h"

typedef enum comm_kind {
    COMM_ALL_REDUCE,
    COMM_ALL_GATHER,
    COMM_REDUCE_SCATTER,
    COMM_BROADCAST,
    COMM_REDUCE,
    COMM_SEND,
    COMM_RECV,
} comm_kind_t;

static const char *const comm_kind_names[] = {
    "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "send", "recv"};

/* One call as the user made it, then as the engine gets it (codes). */
typedef struct comm_call {
    comm_kind_t kind;
    const void *send;
    void *recv;
    size_t count; /* the API's count (per rank for all_gather / reduce_scatter) */
    accel_dtype_t dtype;
    accel_reduce_op_t op;
    int root; /* root, or peer for send / recv */
    /* filled by the layer */
    accel_stream_t *stream;
    void *native;
    size_t elem; /* bytes per element as the engine sees it */
    int dtype_code, op_code;
} comm_call_t;

static bool comm_reduces(comm_kind_t kind)
{
    return kind == COMM_ALL_REDUCE || kind == COMM_REDUCE_SCATTER || kind == COMM_REDUCE;
}

const char *accel_reduce_op_name(accel_reduce_op_t op)
{
    static const char *const names[ACCEL_REDUCE_COUNT_] = {"sum", "prod", "min", "max", "avg"};
    return (unsigned)op < ACCEL_REDUCE_COUNT_ ? names[op] : NULL;
}

/* ---------------------------------------------------------------- checks */

/* Also sets call->elem (the dtype's size). */
static accel_status_t comm_validate(accel_comm_t *comm, comm_call_t *call)
{
    const char *name = comm_kind_names[call->kind];
    size_t elem = accel_comm_dtype_size(call->dtype), bytes, all;
    accel_status_t status;
    call->elem = elem;
    if (elem == 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", name,
                           (int)call->dtype);
    if (comm_reduces(call->kind) && (unsigned)call->op >= ACCEL_REDUCE_COUNT_)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: unknown reduce op %d (sum, prod, min, max or avg)", name,
                           (int)call->op);
    if (call->kind == COMM_BROADCAST || call->kind == COMM_REDUCE || call->kind == COMM_SEND ||
        call->kind == COMM_RECV) {
        const char *role = call->kind == COMM_SEND || call->kind == COMM_RECV ? "peer" : "root";
        if (call->root < 0 || call->root >= comm->size)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: %s %d is not a rank of this communicator (0 to %d)", name, role,
                               call->root, comm->size - 1);
        if ((call->kind == COMM_SEND || call->kind == COMM_RECV) && call->root == comm->rank &&
            !accel_comm_group_open())
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: peer %d is this rank: a send to itself needs its recv in the "
                               "same group (accel_comm_group_start/_end)",
                               name, call->root);
    }
    if (__builtin_mul_overflow(call->count, elem, &bytes))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: count %zu of %s elements overflows a byte size", name, call->count,
                           accel_dtype_name(call->dtype));
    if (__builtin_mul_overflow(bytes, (size_t)comm->size, &all))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: count %zu of %s elements times %d ranks overflows a byte size",
                           name, call->count, accel_dtype_name(call->dtype), comm->size);
    bool root = comm->rank == call->root;
    switch (call->kind) {
    case COMM_ALL_REDUCE:
        status = accel_comm_check_buffer(comm, call->send, bytes, "send buffer");
        return status != ACCEL_OK || call->recv == call->send
                   ? status
                   : accel_comm_check_buffer(comm, call->recv, bytes, "recv buffer");
    case COMM_ALL_GATHER:
        status = accel_comm_check_buffer(comm, call->send, bytes, "send buffer");
        return status != ACCEL_OK ? status
                                  : accel_comm_check_buffer(comm, call->recv, all, "recv buffer");
    case COMM_REDUCE_SCATTER:
        status = accel_comm_check_buffer(comm, call->send, all, "send buffer");
        return status != ACCEL_OK ? status
                                  : accel_comm_check_buffer(comm, call->recv, bytes, "recv buffer");
    case COMM_BROADCAST:
        status = root ? accel_comm_check_buffer(comm, call->send, bytes, "send buffer") : ACCEL_OK;
        return status != ACCEL_OK ? status
                                  : accel_comm_check_buffer(comm, call->recv, bytes, "recv buffer");
    case COMM_REDUCE:
        status = accel_comm_check_buffer(comm, call->send, bytes, "send buffer");
        return status != ACCEL_OK || !root
                   ? status
                   : accel_comm_check_buffer(comm, call->recv, bytes, "recv buffer");
    case COMM_SEND: return accel_comm_check_buffer(comm, call->send, bytes, "send buffer");
    case COMM_RECV: return accel_comm_check_buffer(comm, call->recv, bytes, "recv buffer");
    }
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- engine calls */

static bool comm_on_host(const accel_comm_t *comm)
{
    return comm->engine->kind == ACCEL_COMM_ENGINE_HOST;
}

/* reduce for engines without one: all_reduce into scratch, then on the
 * root the scratch copied into recv, then the scratch freed; inside a group
 * the copy and the free wait for the group's end (comm_scratch_finish). */
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

/* dst = src, `bytes` of the communicator's memory, ordered on `stream`. */
static accel_status_t comm_copy(accel_comm_t *comm, accel_stream_t *stream, void *dst,
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
        status = comm_copy(job->comm, job->stream, job->copy_to, job->scratch, job->bytes);
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

static accel_status_t comm_reduce_by_all_reduce(accel_comm_t *comm, const comm_call_t *call)
{
    size_t bytes = call->count * call->elem;
    void *scratch, *job;
    accel_status_t status = accel_comm_scratch(
        comm, call->stream, bytes, comm->rank == call->root ? call->recv : NULL, &scratch, &job);
    if (status != ACCEL_OK)
        return status;
    status = comm->engine->all_reduce(comm->engine_comm, call->send, scratch, call->count,
                                      call->dtype_code, call->op_code, call->native);
    return accel_comm_scratch_done(job, status);
}

/* Inlined, so that the API functions' repeat path (comm_run), whose kind is
 * a constant there, calls its engine function directly. */
static inline __attribute__((always_inline)) accel_status_t
comm_engine_call(accel_comm_t *comm, const comm_call_t *call)
{
    const accel_comm_engine_t *engine = comm->engine;
    void *ec = comm->engine_comm;
    accel_status_t status;
    switch (call->kind) {
    case COMM_ALL_REDUCE:
        return engine->all_reduce(ec, call->send, call->recv, call->count, call->dtype_code,
                                  call->op_code, call->native);
    case COMM_ALL_GATHER:
        return engine->all_gather(ec, call->send, call->recv, call->count, call->dtype_code,
                                  call->native);
    case COMM_REDUCE_SCATTER:
        return engine->reduce_scatter(ec, call->send, call->recv, call->count, call->dtype_code,
                                      call->op_code, call->native);
    case COMM_BROADCAST:
        if (!engine->broadcast_in_place_only)
            return engine->broadcast(ec, call->send, call->recv, call->count, call->dtype_code,
                                     call->root, call->native);
        if (comm->rank == call->root && call->send != call->recv) {
            status =
                comm_copy(comm, call->stream, call->recv, call->send, call->count * call->elem);
            if (status != ACCEL_OK)
                return status;
        }
        return engine->broadcast(ec, call->recv, call->recv, call->count, call->dtype_code,
                                 call->root, call->native);
    case COMM_REDUCE:
        if (engine->reduce == NULL)
            return comm_reduce_by_all_reduce(comm, call);
        return engine->reduce(ec, call->send, call->recv, call->count, call->dtype_code,
                              call->op_code, call->root, call->native);
    case COMM_SEND:
        return engine->send(ec, call->send, call->count, call->dtype_code, call->root,
                            call->native);
    case COMM_RECV:
        return engine->recv(ec, call->recv, call->count, call->dtype_code, call->root,
                            call->native);
    }
    return accel_error(ACCEL_ERROR_INTERNAL, "unknown collective %d", (int)call->kind);
}

/* ---------------------------------------------------------------- avg and widening */

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
                           comm_kind_names[call->kind], sent);
    float *send = malloc(sent * sizeof(float)), *recv = malloc(call->count * sizeof(float));
    if (send == NULL || recv == NULL) {
        free(send);
        free(recv);
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "%s: out of memory widening %zu %s elements to f32",
                           comm_kind_names[call->kind], sent, accel_dtype_name(call->dtype));
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

static accel_status_t comm_dispatch(accel_comm_t *comm, comm_call_t *call)
{
    const accel_comm_engine_t *engine = comm->engine;
    const char *name = comm_kind_names[call->kind];
    bool reduces = comm_reduces(call->kind);
    bool avg = reduces && call->op == ACCEL_REDUCE_AVG &&
               engine->op_codes[ACCEL_REDUCE_AVG] == ACCEL_COMM_NO_CODE;
    accel_status_t status;
    call->dtype_code = engine->dtype_codes[call->dtype];
    call->op_code = reduces ? engine->op_codes[avg ? ACCEL_REDUCE_SUM : call->op] : 0;
    if (reduces && call->op_code == ACCEL_COMM_NO_CODE)
        return accel_error(ACCEL_ERROR_UNSUPPORTED, "%s: the %s engine has no %s reduction", name,
                           engine->name, accel_reduce_op_name(avg ? ACCEL_REDUCE_SUM : call->op));
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

/* The last collective this thread validated, and the state its answer
 * depended on: the same call on the same communicator is valid again while
 * no allocation has changed (the accel_t's block generation) and no
 * communicator was destroyed (the handle could now name another with
 * another size), so a loop's repeated calls skip the buffer checks.
 * Point-to-point calls, whose check also depends on the thread's group, are
 * not remembered.
 *
 * When that call also needed none of the layer's other work, `repeat` says
 * so and the next identical call goes straight to the engine (comm_run):
 * a host engine, outside a group, on the thread's current stream (NULL
 * given) which was the device's default stream of a synchronized device
 * (its work completes before each call returns, so there is nothing to wait
 * for) and is still (accel_thread_stream_epoch), with the engine's own
 * dtype and op (nothing emulated). accel_comm_group_start clears `repeat`.
 * Per thread; only its thread reads or writes it. */
static _Thread_local struct {
    const accel_comm_t *comm;
    comm_kind_t kind;
    const void *send;
    void *recv;
    size_t count, elem;
    accel_dtype_t dtype;
    accel_reduce_op_t op;
    int root;
    uint64_t generation, comm_generation;
    /* the repeat path */
    bool repeat;
    uint64_t stream_epoch;
    accel_stream_t *stream;
    int dtype_code, op_code;
} comm_last;

void accel_comm_forget_repeat(void)
{
    comm_last.repeat = false;
}

static inline __attribute__((always_inline)) bool
comm_same_call(const accel_comm_t *comm, const comm_call_t *call, uint64_t generation,
               uint64_t comm_generation)
{
    return comm_last.comm == comm && comm_last.comm_generation == comm_generation &&
           comm_last.kind == call->kind && comm_last.send == call->send &&
           comm_last.recv == call->recv && comm_last.count == call->count &&
           comm_last.dtype == call->dtype && comm_last.op == call->op &&
           comm_last.root == call->root && comm_last.generation == generation;
}

static uint64_t comm_block_generation(const accel_comm_t *comm)
{
    return atomic_load_explicit(&comm->acc->block_generation, memory_order_acquire);
}

static uint64_t comm_live_generation(void)
{
    return atomic_load_explicit(&accel_comm_live_generation, memory_order_acquire);
}

static accel_status_t comm_validate_once(accel_comm_t *comm, comm_call_t *call)
{
    uint64_t generation = comm_block_generation(comm), comm_generation = comm_live_generation();
    if (comm_same_call(comm, call, generation, comm_generation)) {
        call->elem = comm_last.elem;
        return ACCEL_OK;
    }
    accel_status_t status = comm_validate(comm, call);
    comm_last.repeat = false;
    if (status == ACCEL_OK && call->kind != COMM_SEND && call->kind != COMM_RECV) {
        comm_last.comm = comm;
        comm_last.kind = call->kind;
        comm_last.send = call->send;
        comm_last.recv = call->recv;
        comm_last.count = call->count;
        comm_last.elem = call->elem;
        comm_last.dtype = call->dtype;
        comm_last.op = call->op;
        comm_last.root = call->root;
        comm_last.generation = generation;
        comm_last.comm_generation = comm_generation;
    }
    return status;
}

/* The engine's own dtype and op serve the call: comm_dispatch adds nothing. */
static bool comm_direct(const accel_comm_t *comm, const comm_call_t *call)
{
    const accel_comm_engine_t *engine = comm->engine;
    return engine->dtype_codes[call->dtype] != ACCEL_COMM_NO_CODE &&
           (!comm_reduces(call->kind) || engine->op_codes[call->op] != ACCEL_COMM_NO_CODE);
}

/* After a successful call that went through the whole layer (its validation
 * is comm_last's): whether the next identical call may take the repeat path. */
static void comm_remember_repeat(const accel_comm_t *comm, const comm_call_t *call,
                                 const accel_stream_t *given)
{
    const accel_stream_t *stream = call->stream;
    if (given != NULL || comm_last.comm != comm || call->kind == COMM_SEND ||
        call->kind == COMM_RECV || !comm_on_host(comm) || accel_comm_group_open() ||
        !stream->is_default || !comm->acc->ops->info->synchronized_device || !comm_direct(comm, call))
        return;
    comm_last.repeat = true;
    comm_last.stream_epoch = accel_thread_stream_epoch;
    comm_last.stream = call->stream;
    comm_last.dtype_code = call->dtype_code;
    comm_last.op_code = call->op_code;
}

/* Whether `call` may take the repeat path: it is comm_last's, which went
 * through the whole layer and needed only the engine (see comm_last). */
static inline __attribute__((always_inline)) bool comm_repeats(const accel_comm_t *comm,
                                                               const comm_call_t *call)
{
    return comm_last.repeat && comm_last.stream_epoch == accel_thread_stream_epoch &&
           comm_same_call(comm, call, comm_block_generation(comm), comm_live_generation());
}

/* A call through the whole layer: checks, stream order, dispatch. */
static __attribute__((noinline)) accel_status_t comm_run_layer(accel_comm_t *comm,
                                                               comm_call_t *call,
                                                               accel_stream_t *stream)
{
    accel_status_t status = accel_comm_check(comm);
    if (status != ACCEL_OK)
        return status;
    status = comm_validate_once(comm, call);
    if (status != ACCEL_OK || call->count == 0)
        return status;
    accel_comm_lock(comm);
    status = accel_comm_group_join(comm->engine);
    if (status == ACCEL_OK)
        status = accel_comm_order(comm, stream, &call->stream, &call->native);
    if (status == ACCEL_OK)
        status = comm_dispatch(comm, call);
    accel_comm_unlock(comm);
    if (status == ACCEL_OK)
        comm_remember_repeat(comm, call, stream);
    return status;
}

/* Inlined into each API function (its kind a constant): the repeat path is
 * then the record's comparison, the lock and one engine call. */
static inline __attribute__((always_inline)) accel_status_t
comm_run(accel_comm_t *comm, comm_call_t call, accel_stream_t *stream)
{
    /* `call` by value: on the repeat path it stays in registers, and only
     * the layer's path needs it in memory. */
    if (stream == NULL && comm_repeats(comm, &call)) {
        comm_call_t repeat = call; /* completed as the layer would have */
        repeat.stream = comm_last.stream;
        repeat.native = NULL;
        repeat.elem = comm_last.elem;
        repeat.dtype_code = comm_last.dtype_code;
        repeat.op_code = comm_last.op_code;
        accel_comm_lock(comm);
        accel_status_t status = comm_engine_call(comm, &repeat);
        accel_comm_unlock(comm);
        return status;
    }
    comm_call_t layer = call;
    return comm_run_layer(comm, &layer, stream);
}

/* ---------------------------------------------------------------- the API */

accel_status_t accel_all_reduce(accel_comm_t *comm, const void *send, void *recv, size_t count,
                                accel_dtype_t dtype, accel_reduce_op_t op, accel_stream_t *stream)
{
    comm_call_t call = {.kind = COMM_ALL_REDUCE, send, recv, count, dtype, op};
    return comm_run(comm, call, stream);
}

accel_status_t accel_all_gather(accel_comm_t *comm, const void *send, void *recv, size_t send_count,
                                accel_dtype_t dtype, accel_stream_t *stream)
{
    comm_call_t call = {.kind = COMM_ALL_GATHER, send, recv, send_count, dtype};
    return comm_run(comm, call, stream);
}

accel_status_t accel_reduce_scatter(accel_comm_t *comm, const void *send, void *recv,
                                    size_t recv_count, accel_dtype_t dtype, accel_reduce_op_t op,
                                    accel_stream_t *stream)
{
    comm_call_t call = {.kind = COMM_REDUCE_SCATTER, send, recv, recv_count, dtype, op};
    return comm_run(comm, call, stream);
}

accel_status_t accel_broadcast(accel_comm_t *comm, const void *send, void *recv, size_t count,
                               accel_dtype_t dtype, int root, accel_stream_t *stream)
{
    comm_call_t call = {.kind = COMM_BROADCAST, send, recv, count, dtype, .root = root};
    return comm_run(comm, call, stream);
}

accel_status_t accel_reduce(accel_comm_t *comm, const void *send, void *recv, size_t count,
                            accel_dtype_t dtype, accel_reduce_op_t op, int root,
                            accel_stream_t *stream)
{
    comm_call_t call = {.kind = COMM_REDUCE, send, recv, count, dtype, op, root};
    return comm_run(comm, call, stream);
}

accel_status_t accel_send(accel_comm_t *comm, const void *buf, size_t count, accel_dtype_t dtype,
                          int peer, accel_stream_t *stream)
{
    comm_call_t call = {
        .kind = COMM_SEND, .send = buf, .count = count, .dtype = dtype, .root = peer};
    return comm_run(comm, call, stream);
}

accel_status_t accel_recv(accel_comm_t *comm, void *buf, size_t count, accel_dtype_t dtype,
                          int peer, accel_stream_t *stream)
{
    comm_call_t call = {
        .kind = COMM_RECV, .recv = buf, .count = count, .dtype = dtype, .root = peer};
    return comm_run(comm, call, stream);
}
