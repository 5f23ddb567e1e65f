/* collectives.c: the collective and point-to-point calls of accel_comm.h.
 * A call goes through the whole layer (checked, call_check.c; ordered on its
 * stream, comm_stream.c; turned into the engine's codes with what the engine
 * lacks emulated, call_dispatch.c), or, when a loop repeats a call that
 * needed only the engine, straight to the engine (the repeat path below).
 * Threads: the communicator's lock is held from the stream ordering to the
 * end of the engine call; the repeat record is per thread. */
#include <stdint.h>

#include "comm/call.h"
#include "core/thread_state.h"

const char *accel_reduce_op_name(accel_reduce_op_t op)
{
    static const char *const names[ACCEL_REDUCE_COUNT_] = {"sum", "prod", "min", "max", "avg"};
    return (unsigned)op < ACCEL_REDUCE_COUNT_ ? names[op] : NULL;
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
typedef struct comm_record {
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
    const uint64_t *thread_epoch; /* this thread's accel_thread_stream_epoch */
    accel_stream_t *stream;
    int dtype_code, op_code;
} comm_record_t;

static _Thread_local comm_record_t comm_last;

void accel_comm_forget_repeat(void)
{
    comm_last.repeat = false;
}

static inline __attribute__((always_inline)) bool comm_same_call(const accel_comm_t *comm,
                                                                 const comm_call_t *call,
                                                                 uint64_t generation,
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
    accel_status_t status = accel_comm_call_check(comm, call);
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
        !stream->is_default || !comm->acc->ops->info->synchronized_device ||
        !comm_direct(comm, call))
        return;
    comm_last.repeat = true;
    comm_last.stream_epoch = accel_thread_stream_epoch;
    comm_last.thread_epoch = &accel_thread_stream_epoch;
    comm_last.stream = call->stream;
    comm_last.dtype_code = call->dtype_code;
    comm_last.op_code = call->op_code;
}

/* Whether `call` may take the repeat path: it is comm_last's, which went
 * through the whole layer and needed only the engine (see comm_last). */
static inline __attribute__((always_inline)) bool
comm_repeats(const comm_record_t *last, const accel_comm_t *comm, const comm_call_t *call)
{
    return last->repeat && last->stream_epoch == *last->thread_epoch && last->comm == comm &&
           last->comm_generation == comm_live_generation() && last->kind == call->kind &&
           last->send == call->send && last->recv == call->recv && last->count == call->count &&
           last->dtype == call->dtype && last->op == call->op && last->root == call->root &&
           last->generation == comm_block_generation(comm);
}

/* A call through the whole layer: checks, stream order, dispatch. */
static __attribute__((noinline)) accel_status_t
comm_run_layer(accel_comm_t *comm, comm_call_t *call, accel_stream_t *stream)
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
        status = accel_comm_dispatch(comm, call);
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
    const comm_record_t *last = &comm_last;
    /* An empty asm that owns `last`: the compiler then keeps the address in
     * a register instead of repeating the TLS lookup (a call) at each use. */
    __asm__("" : "+r"(last));
    if (stream == NULL && comm_repeats(last, comm, &call)) {
        /* Locked first: the call completed after the lock's atomic lets the
         * compiler see its constant kind and pick the engine function. */
        accel_comm_lock(comm);
        comm_call_t repeat = call; /* completed as the layer would have */
        repeat.stream = last->stream;
        repeat.native = NULL;
        repeat.elem = last->elem;
        repeat.dtype_code = last->dtype_code;
        repeat.op_code = last->op_code;
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
