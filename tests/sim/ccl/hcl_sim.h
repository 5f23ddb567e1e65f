/* hcl_sim.h: the Habana HCCL types and exported functions the simulated
 * library defines (hcl_sim.c), declared from the spec, not from accel's
 * engine declarations. */
#ifndef ACCEL_TESTS_SIM_CCL_HCL_SIM_H
#define ACCEL_TESTS_SIM_CCL_HCL_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "sim_fault.h"

typedef int hcclResult_t; /* an enum with hcclUninitialized -1 */
typedef struct {
    uint8_t internal[1024];
    size_t length;
} hcclUniqueId;
#define hcclComm_t void *

enum {
    hcclSuccess = 0,
    hcclUnhandledSynapseError = 4,
    hcclInternalError = 6,
    hcclInvalidArgument = 7,
    hcclInvalidUsage = 8,
};

SIM_EXPORT hcclResult_t hcclGetVersion(int *version);
SIM_EXPORT const char *hcclGetErrorString(hcclResult_t result);
SIM_EXPORT const char *hcclGetLastErrorMessage(void);
SIM_EXPORT hcclResult_t hcclGetUniqueId(hcclUniqueId *uniqueId);
SIM_EXPORT hcclResult_t hcclCommInitRank(hcclComm_t *comm, int nranks, hcclUniqueId commId,
                                         int rank);
SIM_EXPORT hcclResult_t hcclCommFinalize(hcclComm_t comm);
SIM_EXPORT hcclResult_t hcclCommDestroy(hcclComm_t comm);
SIM_EXPORT hcclResult_t hcclCommCount(hcclComm_t comm, int *count);
SIM_EXPORT hcclResult_t hcclCommUserRank(hcclComm_t comm, int *rank);
SIM_EXPORT hcclResult_t hcclCommGetAsyncError(hcclComm_t comm, hcclResult_t *asyncError);
SIM_EXPORT hcclResult_t hcclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                                      uint32_t datatype, uint32_t reduceOp, hcclComm_t comm,
                                      void *stream_handle);
SIM_EXPORT hcclResult_t hcclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                                      uint32_t datatype, hcclComm_t comm, void *stream_handle);
SIM_EXPORT hcclResult_t hcclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                          uint32_t datatype, uint32_t reduceOp, hcclComm_t comm,
                                          void *stream_handle);
SIM_EXPORT hcclResult_t hcclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                                      uint32_t datatype, int root, hcclComm_t comm,
                                      void *stream_handle);
SIM_EXPORT hcclResult_t hcclReduce(const void *sendbuff, void *recvbuff, size_t count,
                                   uint32_t datatype, uint32_t reduceOp, int root, hcclComm_t comm,
                                   void *stream_handle);
SIM_EXPORT hcclResult_t hcclSend(const void *sendbuff, size_t count, uint32_t datatype, int peer,
                                 hcclComm_t comm, void *stream);
SIM_EXPORT hcclResult_t hcclRecv(void *recvbuff, size_t count, uint32_t datatype, int peer,
                                 hcclComm_t comm, void *stream);
SIM_EXPORT hcclResult_t hcclBarrier(hcclComm_t comm, void *stream_handle);
SIM_EXPORT hcclResult_t hcclGroupStart(void);
SIM_EXPORT hcclResult_t hcclGroupEnd(void);

#endif /* ACCEL_TESTS_SIM_CCL_HCL_SIM_H */
