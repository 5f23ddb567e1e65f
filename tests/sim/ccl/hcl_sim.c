/* hcl_sim.c: the simulated Habana libhcl.so (tests/sim/README.md): Habana
 * HCCL's real exported names and signatures (HabanaAI/HCL hccl.h as
 * vendor-apis.md §4.4 records it: NCCL's API under "hccl" names, min and
 * max swapped), mapped onto the MPI collectives core (ccl_sim.h). It links
 * the simulated libSynapse.so: every operation first synchronizes its
 * synStreamHandle there (synStreamSynchronize). Buffers are device
 * addresses, host memory in the sim. Faults: every exported call goes
 * through sim_fault. Rendezvous: as HabanaAI/HCL's hccl_context::
 * get_unique_id, the process's first hcclGetUniqueId with HCCL_COMM_ID set
 * gives the id of that address, the same on every process
 * (ccl_sim_unique_id_at); later ones are fresh ids. Threads: as ccl_sim.h. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ccl_sim.h"
#include "hcl_sim.h"
#include "sim_fault.h"

/* From the simulated libSynapse.so this library links. */
extern int synStreamSynchronize(void *stream);

/* Synapse has no default stream object: a NULL stream is refused. */
static int hcl_sync(void *stream)
{
    return stream != NULL ? synStreamSynchronize(stream) : -1;
}

static hcclResult_t hcl_result(ccl_sim_status_t status)
{
    switch (status) {
    case CCL_SIM_OK: return hcclSuccess;
    case CCL_SIM_INVALID: return hcclInvalidArgument;
    case CCL_SIM_USAGE: return hcclInvalidUsage;
    case CCL_SIM_STREAM: return hcclUnhandledSynapseError;
    default: return hcclInternalError;
    }
}

/* hcclDataType_t: NCCL's numbering, Int8 0 .. Bfloat16 9. */
static int hcl_type(uint32_t code, ccl_sim_type_t *out)
{
    static const ccl_sim_type_t map[] = {CCL_SIM_I8,  CCL_SIM_U8,  CCL_SIM_I32, CCL_SIM_U32,
                                         CCL_SIM_I64, CCL_SIM_U64, CCL_SIM_F16, CCL_SIM_F32,
                                         CCL_SIM_F64, CCL_SIM_BF16};
    if (code >= sizeof map / sizeof map[0])
        return 0;
    *out = map[code];
    return 1;
}

/* hcclRedOp_t: Sum 0, Prod 1, Min 2, Max 3, Avg 4. */
static int hcl_op(uint32_t code, ccl_sim_op_t *out)
{
    static const ccl_sim_op_t map[] = {CCL_SIM_SUM, CCL_SIM_PROD, CCL_SIM_MIN, CCL_SIM_MAX,
                                       CCL_SIM_AVG};
    if (code >= sizeof map / sizeof map[0])
        return 0;
    *out = map[code];
    return 1;
}

#define HCL_TYPE(code, var)                                                                        \
    ccl_sim_type_t var;                                                                            \
    if (!hcl_type(code, &var))                                                                     \
    return hcclInvalidArgument
#define HCL_OP(code, var)                                                                          \
    ccl_sim_op_t var;                                                                              \
    if (!hcl_op(code, &var))                                                                       \
    return hcclInvalidArgument

SIM_EXPORT hcclResult_t hcclGetVersion(int *version)
{
    CCL_SIM_ENTER("hcclGetVersion");
    if (version == NULL)
        return hcclInvalidArgument;
    *version = 2604; /* X*1000 + Y*100 + Z: 2.6.4 */
    return hcclSuccess;
}

SIM_EXPORT const char *hcclGetErrorString(hcclResult_t result)
{
    switch (result) {
    case hcclSuccess: return "hcclSuccess";
    case hcclUnhandledSynapseError: return "hcclUnhandledSynapseError";
    case hcclInternalError: return "hcclInternalError";
    case hcclInvalidArgument: return "hcclInvalidArgument";
    case hcclInvalidUsage: return "hcclInvalidUsage";
    default: return "simulated HCCL failure";
    }
}

SIM_EXPORT const char *hcclGetLastErrorMessage(void)
{
    const char *last = ccl_sim_last_error();
    return last[0] != '\0' ? last : NULL;
}

static atomic_bool hcl_address_used; /* the first id came from HCCL_COMM_ID */

SIM_EXPORT hcclResult_t hcclGetUniqueId(hcclUniqueId *uniqueId)
{
    const char *address = getenv("HCCL_COMM_ID");
    CCL_SIM_ENTER("hcclGetUniqueId");
    if (uniqueId == NULL)
        return hcclInvalidArgument;
    uniqueId->length = CCL_SIM_ID_BYTES;
    if (address != NULL && address[0] != '\0' && !atomic_exchange(&hcl_address_used, true))
        return strchr(address, ':') != NULL
                   ? hcl_result(ccl_sim_unique_id_at(address, uniqueId->internal,
                                                     sizeof uniqueId->internal))
                   : hcclInvalidArgument; /* not IP:PORT */
    return hcl_result(ccl_sim_unique_id(uniqueId->internal, sizeof uniqueId->internal));
}

SIM_EXPORT hcclResult_t hcclCommInitRank(hcclComm_t *comm, int nranks, hcclUniqueId commId,
                                         int rank)
{
    ccl_sim_comm_t *made = NULL;
    hcclResult_t result;
    CCL_SIM_ENTER("hcclCommInitRank");
    if (comm == NULL || commId.length != CCL_SIM_ID_BYTES)
        return hcclInvalidArgument;
    result = hcl_result(ccl_sim_comm_init(commId.internal, nranks, rank, 0, &made));
    if (result == hcclSuccess)
        *comm = made;
    return result;
}

SIM_EXPORT hcclResult_t hcclCommFinalize(hcclComm_t comm)
{
    CCL_SIM_ENTER("hcclCommFinalize");
    return comm != NULL ? hcclSuccess : hcclInvalidArgument; /* nothing is ever left queued */
}

SIM_EXPORT hcclResult_t hcclCommDestroy(hcclComm_t comm)
{
    CCL_SIM_ENTER("hcclCommDestroy");
    if (comm == NULL)
        return hcclInvalidArgument;
    return hcl_result(ccl_sim_comm_free(comm));
}

SIM_EXPORT hcclResult_t hcclCommCount(hcclComm_t comm, int *count)
{
    CCL_SIM_ENTER("hcclCommCount");
    if (comm == NULL || count == NULL)
        return hcclInvalidArgument;
    *count = ccl_sim_comm_size(comm);
    return hcclSuccess;
}

SIM_EXPORT hcclResult_t hcclCommUserRank(hcclComm_t comm, int *rank)
{
    CCL_SIM_ENTER("hcclCommUserRank");
    if (comm == NULL || rank == NULL)
        return hcclInvalidArgument;
    *rank = ccl_sim_comm_rank(comm);
    return hcclSuccess;
}

SIM_EXPORT hcclResult_t hcclCommGetAsyncError(hcclComm_t comm, hcclResult_t *asyncError)
{
    CCL_SIM_ENTER("hcclCommGetAsyncError");
    if (comm == NULL || asyncError == NULL)
        return hcclInvalidArgument;
    *asyncError = hcclSuccess;
    return hcclSuccess;
}

SIM_EXPORT hcclResult_t hcclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                                      uint32_t datatype, uint32_t reduceOp, hcclComm_t comm,
                                      void *stream_handle)
{
    CCL_SIM_ENTER("hcclAllReduce");
    HCL_TYPE(datatype, type);
    HCL_OP(reduceOp, op);
    return hcl_result(
        ccl_sim_all_reduce(comm, sendbuff, recvbuff, count, type, op, hcl_sync, stream_handle));
}

SIM_EXPORT hcclResult_t hcclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                                      uint32_t datatype, hcclComm_t comm, void *stream_handle)
{
    CCL_SIM_ENTER("hcclAllGather");
    HCL_TYPE(datatype, type);
    return hcl_result(
        ccl_sim_all_gather(comm, sendbuff, recvbuff, sendcount, type, hcl_sync, stream_handle));
}

SIM_EXPORT hcclResult_t hcclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                          uint32_t datatype, uint32_t reduceOp, hcclComm_t comm,
                                          void *stream_handle)
{
    CCL_SIM_ENTER("hcclReduceScatter");
    HCL_TYPE(datatype, type);
    HCL_OP(reduceOp, op);
    return hcl_result(ccl_sim_reduce_scatter(comm, sendbuff, recvbuff, recvcount, type, op,
                                             hcl_sync, stream_handle));
}

SIM_EXPORT hcclResult_t hcclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                                      uint32_t datatype, int root, hcclComm_t comm,
                                      void *stream_handle)
{
    CCL_SIM_ENTER("hcclBroadcast");
    HCL_TYPE(datatype, type);
    return hcl_result(
        ccl_sim_broadcast(comm, sendbuff, recvbuff, count, type, root, hcl_sync, stream_handle));
}

SIM_EXPORT hcclResult_t hcclReduce(const void *sendbuff, void *recvbuff, size_t count,
                                   uint32_t datatype, uint32_t reduceOp, int root, hcclComm_t comm,
                                   void *stream_handle)
{
    CCL_SIM_ENTER("hcclReduce");
    HCL_TYPE(datatype, type);
    HCL_OP(reduceOp, op);
    return hcl_result(
        ccl_sim_reduce(comm, sendbuff, recvbuff, count, type, op, root, hcl_sync, stream_handle));
}

SIM_EXPORT hcclResult_t hcclSend(const void *sendbuff, size_t count, uint32_t datatype, int peer,
                                 hcclComm_t comm, void *stream)
{
    CCL_SIM_ENTER("hcclSend");
    HCL_TYPE(datatype, type);
    return hcl_result(ccl_sim_send(comm, sendbuff, count, type, peer, hcl_sync, stream));
}

SIM_EXPORT hcclResult_t hcclRecv(void *recvbuff, size_t count, uint32_t datatype, int peer,
                                 hcclComm_t comm, void *stream)
{
    CCL_SIM_ENTER("hcclRecv");
    HCL_TYPE(datatype, type);
    return hcl_result(ccl_sim_recv(comm, recvbuff, count, type, peer, hcl_sync, stream));
}

SIM_EXPORT hcclResult_t hcclBarrier(hcclComm_t comm, void *stream_handle)
{
    CCL_SIM_ENTER("hcclBarrier");
    return hcl_result(ccl_sim_barrier(comm, hcl_sync, stream_handle));
}

SIM_EXPORT hcclResult_t hcclGroupStart(void)
{
    CCL_SIM_ENTER("hcclGroupStart");
    return hcl_result(ccl_sim_group_start());
}

SIM_EXPORT hcclResult_t hcclGroupEnd(void)
{
    /* An injected failure ends the group too (its calls are dropped). */
    int injected = sim_fault_hit("hcclGroupEnd");
    ccl_sim_clear_error();
    if (injected != 0) {
        ccl_sim_group_abort();
        return injected;
    }
    return hcl_result(ccl_sim_group_end());
}
