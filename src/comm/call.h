/* call.h: one collective or point-to-point call as it goes through the
 * communicator layer, shared by the layer's files: collectives.c (the API and
 * its repeat path), call_check.c (argument checks), call_dispatch.c (codes
 * and what the engine lacks emulated) and scratch.c (the reduce fallback's
 * scratch). Private to src/comm. */
#ifndef ACCEL_COMM_CALL_H
#define ACCEL_COMM_CALL_H

#include "comm/comm.h"
#include "core/error.h"

typedef enum comm_kind {
    COMM_ALL_REDUCE,
    COMM_ALL_GATHER,
    COMM_REDUCE_SCATTER,
    COMM_BROADCAST,
    COMM_REDUCE,
    COMM_SEND,
    COMM_RECV,
} comm_kind_t;

/* "all_reduce"... by comm_kind_t (call_check.c). */
extern const char *const accel_comm_kind_names[];

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

static inline bool comm_reduces(comm_kind_t kind)
{
    return kind == COMM_ALL_REDUCE || kind == COMM_REDUCE_SCATTER || kind == COMM_REDUCE;
}

static inline bool comm_on_host(const accel_comm_t *comm)
{
    return comm->engine->kind == ACCEL_COMM_ENGINE_HOST;
}

/* ---- call_check.c */

/* Every argument of `call` on `comm` checked, with a sentence naming the bad
 * one; also sets call->elem (the dtype's size). */
accel_status_t accel_comm_call_check(accel_comm_t *comm, comm_call_t *call);

/* ---- call_dispatch.c */

/* The engine's codes for `call` (filled in), and the call made: directly,
 * or through what the layer emulates (avg, widened 16-bit floats, bytes).
 * The communicator's lock held; `call->stream` and `native` resolved. */
accel_status_t accel_comm_dispatch(accel_comm_t *comm, comm_call_t *call);

/* ---- scratch.c */

/* dst = src, `bytes` of the communicator's memory, ordered on `stream`. */
accel_status_t accel_comm_copy(accel_comm_t *comm, accel_stream_t *stream, void *dst,
                               const void *src, size_t bytes);
/* reduce for an engine without one: all_reduce into scratch, copied into
 * recv on the root. Lock held. */
accel_status_t accel_comm_reduce_by_all_reduce(accel_comm_t *comm, const comm_call_t *call);

/* The engine function for `call`, its codes filled in. Inlined, so that the
 * API functions' repeat path (collectives.c), whose kind is a constant there,
 * calls its engine function directly. */
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
            status = accel_comm_copy(comm, call->stream, call->recv, call->send,
                                     call->count * call->elem);
            if (status != ACCEL_OK)
                return status;
        }
        return engine->broadcast(ec, call->recv, call->recv, call->count, call->dtype_code,
                                 call->root, call->native);
    case COMM_REDUCE:
        if (engine->reduce == NULL)
            return accel_comm_reduce_by_all_reduce(comm, call);
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

#endif /* ACCEL_COMM_CALL_H */
