/* hccl_sim.h: the Ascend HCCL types and exported functions the simulated
 * library defines (hccl_sim.c), declared from the spec, not from accel's
 * engine declarations. */
#ifndef ACCEL_TESTS_SIM_CCL_HCCL_SIM_H
#define ACCEL_TESTS_SIM_CCL_HCCL_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "sim_fault.h"

typedef int HcclResult; /* an enum in hccl_types.h */
typedef void *HcclComm;
typedef void *aclrtStream;
typedef struct HcclRootInfoDef {
    char internal[4108];
} HcclRootInfo;

enum {
    HCCL_SUCCESS = 0,
    HCCL_E_PARA = 1,
    HCCL_E_PTR = 2,
    HCCL_E_INTERNAL = 4,
    HCCL_E_NOT_SUPPORT = 5,
    HCCL_E_TIMEOUT = 9,
    HCCL_E_RUNTIME = 15,
};

SIM_EXPORT HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
SIM_EXPORT HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                           uint32_t rank, HcclComm *comm);
SIM_EXPORT HcclResult HcclCommDestroy(HcclComm comm);
SIM_EXPORT HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
SIM_EXPORT HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);
SIM_EXPORT HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, uint32_t dataType,
                                    uint32_t op, HcclComm comm, aclrtStream stream);
SIM_EXPORT HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                                    uint32_t dataType, HcclComm comm, aclrtStream stream);
SIM_EXPORT HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                        uint32_t dataType, uint32_t op, HcclComm comm,
                                        aclrtStream stream);
SIM_EXPORT HcclResult HcclBroadcast(void *buf, uint64_t count, uint32_t dataType, uint32_t root,
                                    HcclComm comm, aclrtStream stream);
SIM_EXPORT HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, uint32_t dataType,
                                 uint32_t op, uint32_t root, HcclComm comm, aclrtStream stream);
SIM_EXPORT HcclResult HcclSend(void *sendBuf, uint64_t count, uint32_t dataType, uint32_t destRank,
                               HcclComm comm, aclrtStream stream);
SIM_EXPORT HcclResult HcclRecv(void *recvBuf, uint64_t count, uint32_t dataType, uint32_t srcRank,
                               HcclComm comm, aclrtStream stream);
SIM_EXPORT HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);
/* The group calls under the names libhccl's sim exports them by; the
 * simulated libhcomm.so exports HcclGroupStart/End (hcomm_sim.c). */
SIM_EXPORT HcclResult hccl_sim_group_start(void);
SIM_EXPORT HcclResult hccl_sim_group_end(void);
/* libhcomm.so's (hcomm_sim.c). */
SIM_EXPORT HcclResult HcclGroupStart(void);
SIM_EXPORT HcclResult HcclGroupEnd(void);
SIM_EXPORT HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);
SIM_EXPORT const char *HcclGetErrorString(HcclResult code);

#endif /* ACCEL_TESTS_SIM_CCL_HCCL_SIM_H */
