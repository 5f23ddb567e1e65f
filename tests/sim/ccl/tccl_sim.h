/* tccl_sim.h: the Tecorigin TCCL types and exported functions the simulated
 * library defines (tccl_sim.c), declared from the spec (vendor-apis.md §6.3,
 * the early public tccl.h, TCCL_VERSION_CODE 1200), not from accel's engine
 * declarations. Where that copy gives a name without its parameters, the
 * prototype is NCCL's (unconfirmed, like the engine's). */
#ifndef ACCEL_TESTS_SIM_CCL_TCCL_SIM_H
#define ACCEL_TESTS_SIM_CCL_TCCL_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "sim_fault.h"

typedef int tcclResult_t; /* an enum in tccl.h */
typedef struct tcclComm *tcclComm_t;
typedef void *sdaaStream_t;
typedef struct {
    char internal[128];
} tcclUniqueId;

enum {
    tcclSuccess = 0,
    tcclUnhandledSdaaError = 1,
    tcclSystemError = 2,
    tcclInternalError = 3,
    tcclInvalidArgument = 4,
    tcclInvalidUsage = 5,
    tcclInProgress = 6,
};

SIM_EXPORT tcclResult_t tcclGetVersion(int *version);
SIM_EXPORT const char *tcclGetErrorString(tcclResult_t result);
SIM_EXPORT const char *tcclGetLastError(tcclComm_t comm);
SIM_EXPORT tcclResult_t tcclGetUniqueId(tcclUniqueId *uniqueId);
SIM_EXPORT tcclResult_t tcclCommInitRank(tcclComm_t *comm, int nranks, tcclUniqueId commId,
                                         int rank);
SIM_EXPORT tcclResult_t tcclCommDestroy(tcclComm_t comm);
SIM_EXPORT tcclResult_t tcclCommCount(const tcclComm_t comm, int *count);
SIM_EXPORT tcclResult_t tcclCommDevice(const tcclComm_t comm, int *device);
SIM_EXPORT tcclResult_t tcclCommUserRank(const tcclComm_t comm, int *rank);
SIM_EXPORT tcclResult_t tcclCommGetAsyncError(tcclComm_t comm, tcclResult_t *asyncError);
SIM_EXPORT tcclResult_t tcclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                                      uint32_t datatype, uint32_t op, tcclComm_t comm,
                                      sdaaStream_t stream);
SIM_EXPORT tcclResult_t tcclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                                      uint32_t datatype, int root, tcclComm_t comm,
                                      sdaaStream_t stream);
SIM_EXPORT tcclResult_t tcclReduce(const void *sendbuff, void *recvbuff, size_t count,
                                   uint32_t datatype, uint32_t op, int root, tcclComm_t comm,
                                   sdaaStream_t stream);
SIM_EXPORT tcclResult_t tcclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                          uint32_t datatype, uint32_t op, tcclComm_t comm,
                                          sdaaStream_t stream);
SIM_EXPORT tcclResult_t tcclAllGather(const void *sendbuff, void *recvbuff, size_t count,
                                      uint32_t datatype, tcclComm_t comm, sdaaStream_t stream);
SIM_EXPORT tcclResult_t tcclSend(const void *sendbuff, size_t count, uint32_t datatype, int peer,
                                 tcclComm_t comm, sdaaStream_t stream);
SIM_EXPORT tcclResult_t tcclRecv(void *recvbuff, size_t count, uint32_t datatype, int peer,
                                 tcclComm_t comm, sdaaStream_t stream);
/* Not in the public copy at all: (void) as NCCL's, as the engine assumes. */
SIM_EXPORT tcclResult_t tcclGroupStart(void);
SIM_EXPORT tcclResult_t tcclGroupEnd(void);

#endif /* ACCEL_TESTS_SIM_CCL_TCCL_SIM_H */
