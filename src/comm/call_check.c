/* call_check.c: the argument checks of every collective and point-to-point
 * call (call.h): dtype, op, root or peer, sizes that overflow, and each
 * buffer against what accel's allocator knows. Stateless; any thread. */
#include "comm/call.h"
#include "comm/comm_scale.h"

const char *const accel_comm_kind_names[] = {
    "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "send", "recv"};

accel_status_t accel_comm_call_check(accel_comm_t *comm, comm_call_t *call)
{
    const char *name = accel_comm_kind_names[call->kind];
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
