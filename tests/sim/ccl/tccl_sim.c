/* tccl_sim.c: the simulated Tecorigin libtccl.so (tests/sim/README.md):
 * TCCL's exported names and signatures as the early public tccl.h gives
 * them (vendor-apis.md §6.3: NCCL's function set under "tccl" names, its
 * own dtype numbering, no average), mapped onto the MPI collectives core
 * (ccl_sim.h). It links the simulated libsdaart.so: a communicator belongs
 * to the thread's SDAA device at tcclCommInitRank (sdaaGetDevice), and
 * every operation first synchronizes its sdaaStream_t there (NULL: the
 * device's default stream). Buffers follow NCCL's rules: in place is
 * send == recv (all-gather: send at recv + rank * count, reduce-scatter:
 * recv at send + rank * recvcount); any other overlap is refused with
 * tcclInvalidArgument. Unconfirmed and simulated as the engine assumes them:
 * tcclReduce/Send/Recv's and the comm queries' parameters (NCCL's), the
 * (void) group calls (absent from the public copy), tcclGetLastError(comm).
 * Faults: every exported call that returns tcclResult_t goes through
 * sim_fault. Threads: as ccl_sim.h; the thread's last error is per thread. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ccl_sim.h"
#include "sim_break.h"
#include "sim_fault.h"
#include "tccl_sim.h"

/* From the simulated libsdaart.so this library links (sdaaError_t: int). */
extern int sdaaStreamSynchronize(sdaaStream_t stream);
extern int sdaaGetDevice(int *device);
extern int sdaaGetDeviceCount(int *count);

/* What this file refuses before the core sees the call; the core's own
 * text otherwise (tcclGetLastError). */
static _Thread_local char tccl_last_error[256];

#define TCCL_ENTER(name)                                                                           \
    do {                                                                                           \
        tccl_last_error[0] = '\0';                                                                 \
        CCL_SIM_ENTER(name);                                                                       \
    } while (0)

static tcclResult_t tccl_refuse(tcclResult_t code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static tcclResult_t tccl_refuse(tcclResult_t code, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(tccl_last_error, sizeof tccl_last_error, fmt, args);
    va_end(args);
    return code;
}

static int tccl_sync(void *stream)
{
    return sdaaStreamSynchronize(stream);
}

static tcclResult_t tccl_result(ccl_sim_status_t status)
{
    switch (status) {
    case CCL_SIM_OK: return tcclSuccess;
    case CCL_SIM_INVALID: return tcclInvalidArgument;
    case CCL_SIM_USAGE: return tcclInvalidUsage;
    case CCL_SIM_STREAM: return tcclUnhandledSdaaError;
    default: return tcclInternalError;
    }
}

/* tcclDataType_t: Int8 0, Uint8 1, Int32 2, Uint32 3, Float32 4, Float64 5,
 * Int64 6, Uint64 7, Float16 8, BF16 9 (not NCCL's order). */
static int tccl_type(uint32_t code, ccl_sim_type_t *out)
{
    static const ccl_sim_type_t map[] = {CCL_SIM_I8,  CCL_SIM_U8,  CCL_SIM_I32, CCL_SIM_U32,
                                         CCL_SIM_F32, CCL_SIM_F64, CCL_SIM_I64, CCL_SIM_U64,
                                         CCL_SIM_F16, CCL_SIM_BF16};
    if (code >= sizeof map / sizeof map[0])
        return 0;
    *out = map[code];
    return 1;
}

/* tcclRedOp_t: Sum 0, Prod 1, Max 2, Min 3 (no average). */
static int tccl_op(uint32_t code, ccl_sim_op_t *out)
{
    static const ccl_sim_op_t map[] = {CCL_SIM_SUM, CCL_SIM_PROD, CCL_SIM_MAX, CCL_SIM_MIN};
    if (code >= sizeof map / sizeof map[0])
        return 0;
    *out = map[code];
    return 1;
}

#define TCCL_TYPE(code, var)                                                                       \
    ccl_sim_type_t var;                                                                            \
    if (!tccl_type(code, &var))                                                                    \
    return tccl_refuse(tcclInvalidArgument, "tccl sim: unknown tcclDataType_t %u", code)
#define TCCL_OP(code, var)                                                                         \
    ccl_sim_op_t var;                                                                              \
    if (!tccl_op(code, &var))                                                                      \
    return tccl_refuse(tcclInvalidArgument, "tccl sim: unknown tcclRedOp_t %u", code)

/* ---------------------------------------------------------------- buffer rules */

/* Bytes of `count` elements times `factor`, or 0 when that overflows (the
 * core then refuses the count itself). */
static size_t tccl_bytes(size_t count, ccl_sim_type_t type, size_t factor)
{
    size_t size = ccl_sim_type_size(type);
    if (size == 0 || factor == 0 || count > SIZE_MAX / size / factor)
        return 0;
    return count * size * factor;
}

static bool tccl_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    const char *x = a, *y = b;
    return a != NULL && b != NULL && a_bytes > 0 && b_bytes > 0 && x < y + b_bytes &&
           y < x + a_bytes;
}

/* TCCL-OVERLAP (harsher, tests/sim/README.md; no public source: NCCL's
 * nccl.h in-place rules): send and recv of one size are the same buffer or
 * apart. */
static tcclResult_t tccl_check_same_or_apart(const char *what, const void *send, const void *recv,
                                             size_t bytes)
{
    /* ACCEL_SIM_BREAK=TCCL-OVERLAP: in place (send == recv) refused too. */
    bool in_place_refused = send == recv && send != NULL && sim_rule_broken("TCCL-OVERLAP");
    if (in_place_refused || (send != recv && tccl_overlap(send, bytes, recv, bytes)))
        return tccl_refuse(tcclInvalidArgument,
                           "tccl sim: %s: send and recv overlap without being the same buffer",
                           what);
    return tcclSuccess;
}

/* TCCL-DEV (harsher, tests/sim/README.md; no public source). A collective
 * is queued on a stream of the communicator's device. The sim
 * asks more than NCCL-like libraries do (they switch to the communicator's
 * device themselves): the thread's SDAA device must already be the
 * communicator's, as the sdaa sim asks of every stream's work, so that a
 * binding that made the wrong device current at init or at the call is
 * caught. It also makes the NULL stream mean the communicator's device's
 * default stream, as it does on the device. */
static tcclResult_t tccl_check_device(const char *what, tcclComm_t comm)
{
    int current = -1, code;
    if (comm == NULL)
        return tcclSuccess; /* the core refuses it */
    code = sdaaGetDevice(&current);
    if (code != 0)
        return tccl_refuse(tcclUnhandledSdaaError, "tccl sim: %s: sdaaGetDevice failed with %d",
                           what, code);
    if (current != ccl_sim_comm_device((const ccl_sim_comm_t *)comm))
        return tccl_refuse(tcclInvalidUsage,
                           "tccl sim: %s: the communicator belongs to SDAA device %d but the "
                           "thread's device is %d",
                           what, ccl_sim_comm_device((const ccl_sim_comm_t *)comm), current);
    return tcclSuccess;
}

#define TCCL_DEVICE(what, comm)                                                                    \
    do {                                                                                           \
        tcclResult_t device_result_ = tccl_check_device(what, comm);                               \
        if (device_result_ != tcclSuccess)                                                         \
            return device_result_;                                                                 \
    } while (0)

/* ---------------------------------------------------------------- library and communicators */

SIM_EXPORT tcclResult_t tcclGetVersion(int *version)
{
    TCCL_ENTER("tcclGetVersion");
    if (version == NULL)
        return tccl_refuse(tcclInvalidArgument, "tccl sim: NULL version");
    *version = 1200; /* TCCL_VERSION_CODE of the public copy */
    return tcclSuccess;
}

SIM_EXPORT const char *tcclGetErrorString(tcclResult_t result)
{
    switch (result) {
    case tcclSuccess: return "no error";
    case tcclUnhandledSdaaError: return "unhandled sdaa error";
    case tcclSystemError: return "unhandled system error";
    case tcclInternalError: return "internal error";
    case tcclInvalidArgument: return "invalid argument";
    case tcclInvalidUsage: return "invalid usage";
    case tcclInProgress: return "TCCL operation in progress";
    default: return "unknown result code";
    }
}

/* The thread's last failure (the comm is not needed to find it). */
SIM_EXPORT const char *tcclGetLastError(tcclComm_t comm)
{
    (void)comm;
    return tccl_last_error[0] != '\0' ? tccl_last_error : ccl_sim_last_error();
}

SIM_EXPORT tcclResult_t tcclGetUniqueId(tcclUniqueId *uniqueId)
{
    TCCL_ENTER("tcclGetUniqueId");
    if (uniqueId == NULL)
        return tccl_refuse(tcclInvalidArgument, "tccl sim: NULL unique id");
    return tccl_result(ccl_sim_unique_id(uniqueId->internal, sizeof uniqueId->internal));
}

/* The id comes by value (tccl.h); the communicator is the thread's SDAA
 * device's (TCCL-DEV, harsher, no public source). */
SIM_EXPORT tcclResult_t tcclCommInitRank(tcclComm_t *comm, int nranks, tcclUniqueId commId,
                                         int rank)
{
    ccl_sim_comm_t *made = NULL;
    int device = -1, code;
    tcclResult_t result;
    TCCL_ENTER("tcclCommInitRank");
    if (comm == NULL)
        return tccl_refuse(tcclInvalidArgument, "tccl sim: NULL communicator");
    code = sdaaGetDevice(&device);
    if (code != 0)
        return tccl_refuse(tcclUnhandledSdaaError,
                           "tccl sim: sdaaGetDevice failed with %d: no SDAA device to bind", code);
    /* ACCEL_SIM_BREAK=TCCL-DEV: the communicator is the next device's, not
     * the thread's. */
    if (sim_rule_broken("TCCL-DEV")) {
        int count = 1;
        if (sdaaGetDeviceCount(&count) == 0 && count > 1)
            device = (device + 1) % count;
    }
    result = tccl_result(ccl_sim_comm_init(commId.internal, nranks, rank, device, &made));
    if (result == tcclSuccess)
        *comm = (tcclComm_t)made;
    return result;
}

SIM_EXPORT tcclResult_t tcclCommDestroy(tcclComm_t comm)
{
    TCCL_ENTER("tcclCommDestroy");
    if (comm == NULL)
        return tccl_refuse(tcclInvalidArgument, "tccl sim: NULL communicator");
    /* Nothing is ever left queued: every call ran to completion. */
    return tccl_result(ccl_sim_comm_free((ccl_sim_comm_t *)comm));
}

SIM_EXPORT tcclResult_t tcclCommCount(const tcclComm_t comm, int *count)
{
    TCCL_ENTER("tcclCommCount");
    if (comm == NULL || count == NULL)
        return tccl_refuse(tcclInvalidArgument, "tccl sim: NULL argument");
    *count = ccl_sim_comm_size((const ccl_sim_comm_t *)comm);
    return tcclSuccess;
}

SIM_EXPORT tcclResult_t tcclCommDevice(const tcclComm_t comm, int *device)
{
    TCCL_ENTER("tcclCommDevice");
    if (comm == NULL || device == NULL)
        return tccl_refuse(tcclInvalidArgument, "tccl sim: NULL argument");
    *device = ccl_sim_comm_device((const ccl_sim_comm_t *)comm);
    return tcclSuccess;
}

SIM_EXPORT tcclResult_t tcclCommUserRank(const tcclComm_t comm, int *rank)
{
    TCCL_ENTER("tcclCommUserRank");
    if (comm == NULL || rank == NULL)
        return tccl_refuse(tcclInvalidArgument, "tccl sim: NULL argument");
    *rank = ccl_sim_comm_rank((const ccl_sim_comm_t *)comm);
    return tcclSuccess;
}

SIM_EXPORT tcclResult_t tcclCommGetAsyncError(tcclComm_t comm, tcclResult_t *asyncError)
{
    TCCL_ENTER("tcclCommGetAsyncError");
    if (comm == NULL || asyncError == NULL)
        return tccl_refuse(tcclInvalidArgument, "tccl sim: NULL argument");
    *asyncError = tcclSuccess; /* the sim finishes every operation before returning */
    return tcclSuccess;
}

/* ---------------------------------------------------------------- collectives */

SIM_EXPORT tcclResult_t tcclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                                      uint32_t datatype, uint32_t op, tcclComm_t comm,
                                      sdaaStream_t stream)
{
    tcclResult_t result;
    TCCL_ENTER("tcclAllReduce");
    TCCL_DEVICE("tcclAllReduce", comm);
    TCCL_TYPE(datatype, type);
    TCCL_OP(op, sim_op);
    result =
        tccl_check_same_or_apart("tcclAllReduce", sendbuff, recvbuff, tccl_bytes(count, type, 1));
    if (result != tcclSuccess)
        return result;
    return tccl_result(ccl_sim_all_reduce((ccl_sim_comm_t *)comm, sendbuff, recvbuff, count, type,
                                          sim_op, tccl_sync, stream));
}

/* sendbuff is read on the root only; sendbuff == recvbuff: in place. */
SIM_EXPORT tcclResult_t tcclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                                      uint32_t datatype, int root, tcclComm_t comm,
                                      sdaaStream_t stream)
{
    TCCL_ENTER("tcclBroadcast");
    TCCL_DEVICE("tcclBroadcast", comm);
    TCCL_TYPE(datatype, type);
    if (comm != NULL && ccl_sim_comm_rank((const ccl_sim_comm_t *)comm) == root) {
        tcclResult_t result = tccl_check_same_or_apart("tcclBroadcast", sendbuff, recvbuff,
                                                       tccl_bytes(count, type, 1));
        if (result != tcclSuccess)
            return result;
    }
    return tccl_result(ccl_sim_broadcast((ccl_sim_comm_t *)comm, sendbuff, recvbuff, count, type,
                                         root, tccl_sync, stream));
}

/* recvbuff is written on the root only. */
SIM_EXPORT tcclResult_t tcclReduce(const void *sendbuff, void *recvbuff, size_t count,
                                   uint32_t datatype, uint32_t op, int root, tcclComm_t comm,
                                   sdaaStream_t stream)
{
    TCCL_ENTER("tcclReduce");
    /* ACCEL_SIM_BREAK=TCCL-NCCL-PARAMS: root and op in the other order. */
    if (sim_rule_broken("TCCL-NCCL-PARAMS")) {
        uint32_t swapped = op;
        op = (uint32_t)root;
        root = (int)swapped;
    }
    TCCL_DEVICE("tcclReduce", comm);
    TCCL_TYPE(datatype, type);
    TCCL_OP(op, sim_op);
    if (comm != NULL && ccl_sim_comm_rank((const ccl_sim_comm_t *)comm) == root) {
        tcclResult_t result =
            tccl_check_same_or_apart("tcclReduce", sendbuff, recvbuff, tccl_bytes(count, type, 1));
        if (result != tcclSuccess)
            return result;
    }
    return tccl_result(ccl_sim_reduce((ccl_sim_comm_t *)comm, sendbuff, recvbuff, count, type,
                                      sim_op, root, tccl_sync, stream));
}

/* In place: recvbuff == sendbuff + rank * recvcount (the core refuses any
 * other overlap: TCCL-OVERLAP). */
SIM_EXPORT tcclResult_t tcclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                          uint32_t datatype, uint32_t op, tcclComm_t comm,
                                          sdaaStream_t stream)
{
    TCCL_ENTER("tcclReduceScatter");
    TCCL_DEVICE("tcclReduceScatter", comm);
    TCCL_TYPE(datatype, type);
    TCCL_OP(op, sim_op);
    return tccl_result(ccl_sim_reduce_scatter((ccl_sim_comm_t *)comm, sendbuff, recvbuff, recvcount,
                                              type, sim_op, tccl_sync, stream));
}

/* count is what each rank sends; in place: sendbuff == recvbuff + rank *
 * count. */
SIM_EXPORT tcclResult_t tcclAllGather(const void *sendbuff, void *recvbuff, size_t count,
                                      uint32_t datatype, tcclComm_t comm, sdaaStream_t stream)
{
    TCCL_ENTER("tcclAllGather");
    TCCL_DEVICE("tcclAllGather", comm);
    TCCL_TYPE(datatype, type);
    if (comm != NULL) {
        const ccl_sim_comm_t *c = (const ccl_sim_comm_t *)comm;
        size_t bytes = tccl_bytes(count, type, 1);
        size_t all = tccl_bytes(count, type, (size_t)ccl_sim_comm_size(c));
        const char *own = (const char *)recvbuff + bytes * (size_t)ccl_sim_comm_rank(c);
        /* TCCL-OVERLAP: only this rank's block of recv is in place. */
        bool own_refused = sim_rule_broken("TCCL-OVERLAP"); /* ACCEL_SIM_BREAK */
        if (recvbuff != NULL && (sendbuff != own || own_refused) &&
            tccl_overlap(sendbuff, bytes, recvbuff, all))
            return tccl_refuse(tcclInvalidArgument,
                               "tccl sim: tcclAllGather: send overlaps recv without being this "
                               "rank's block of it");
    }
    return tccl_result(ccl_sim_all_gather((ccl_sim_comm_t *)comm, sendbuff, recvbuff, count, type,
                                          tccl_sync, stream));
}

SIM_EXPORT tcclResult_t tcclSend(const void *sendbuff, size_t count, uint32_t datatype, int peer,
                                 tcclComm_t comm, sdaaStream_t stream)
{
    TCCL_ENTER("tcclSend");
    TCCL_DEVICE("tcclSend", comm);
    TCCL_TYPE(datatype, type);
    return tccl_result(
        ccl_sim_send((ccl_sim_comm_t *)comm, sendbuff, count, type, peer, tccl_sync, stream));
}

SIM_EXPORT tcclResult_t tcclRecv(void *recvbuff, size_t count, uint32_t datatype, int peer,
                                 tcclComm_t comm, sdaaStream_t stream)
{
    TCCL_ENTER("tcclRecv");
    TCCL_DEVICE("tcclRecv", comm);
    TCCL_TYPE(datatype, type);
    return tccl_result(
        ccl_sim_recv((ccl_sim_comm_t *)comm, recvbuff, count, type, peer, tccl_sync, stream));
}

SIM_EXPORT tcclResult_t tcclGroupStart(void)
{
    TCCL_ENTER("tcclGroupStart");
    return tccl_result(ccl_sim_group_start());
}

SIM_EXPORT tcclResult_t tcclGroupEnd(void)
{
    /* An injected failure ends the group too (its calls are dropped). */
    int injected = sim_fault_hit("tcclGroupEnd");
    ccl_sim_clear_error();
    tccl_last_error[0] = '\0';
    if (injected != 0) {
        ccl_sim_group_abort();
        return injected;
    }
    /* ACCEL_SIM_BREAK=TCCL-GROUPS: the group calls are there but drop the
     * group's calls, reporting success. */
    if (sim_rule_broken("TCCL-GROUPS")) {
        ccl_sim_group_abort();
        return tcclSuccess;
    }
    return tccl_result(ccl_sim_group_end());
}
