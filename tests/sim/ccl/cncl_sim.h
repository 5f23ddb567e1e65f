/* cncl_sim.h: the Cambricon CNCL types and exported functions the simulated
 * library defines (cncl_sim.c), declared from the spec, not from accel's
 * engine declarations. */
#ifndef ACCEL_TESTS_SIM_CCL_CNCL_SIM_H
#define ACCEL_TESTS_SIM_CCL_CNCL_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "sim_fault.h"

typedef int cnclResult_t; /* an enum in cncl.h */
typedef struct cnclComm *cnclComm_t;
typedef void *cnrtQueue_t;
struct cnclCliqueId {
    char data[128];
    uint64_t hash;
};
typedef struct cnclCliqueId *cnclCliqueId_t;

enum {
    CNCL_RET_SUCCESS = 0,
    CNCL_RET_ERR_INTERNAL = 0x01,
    CNCL_RET_ERR_MLU_RUNTIME = 0x03,
    CNCL_RET_ERR_ARGUMENTS = 0x07,
    CNCL_RET_ERR_UNSUPPORTED = 0x08,
};

SIM_EXPORT cnclResult_t cnclGetLibVersion(int *major, int *minor, int *patch);
SIM_EXPORT const char *cnclGetErrorStr(cnclResult_t result);
SIM_EXPORT cnclResult_t cnclGetCliqueId(cnclCliqueId_t clique_id);
SIM_EXPORT cnclResult_t cnclInitComms(cnclComm_t *comms, int num_comm, const int *dev_list,
                                      const int *rank_list, int nrank,
                                      const cnclCliqueId_t clique_id);
SIM_EXPORT cnclResult_t cnclDestroyComms(cnclComm_t *comms, int num_comm);
SIM_EXPORT cnclResult_t cnclFreeComm(cnclComm_t comm);
SIM_EXPORT cnclResult_t cnclGetCommCount(int *count, const cnclComm_t comm);
SIM_EXPORT cnclResult_t cnclGetCommRank(int *rank, const cnclComm_t comm);
SIM_EXPORT cnclResult_t cnclGetCommDevice(int *device, const cnclComm_t comm);
SIM_EXPORT cnclResult_t cnclGetCommAsyncError(const cnclComm_t comm);
SIM_EXPORT cnclResult_t cnclAllReduce(const void *send, void *recv, size_t count, uint32_t datatype,
                                      uint32_t op, cnclComm_t comm, cnrtQueue_t queue);
SIM_EXPORT cnclResult_t cnclBroadcast(const void *send, void *recv, size_t count, uint32_t datatype,
                                      int root, cnclComm_t comm, cnrtQueue_t queue);
SIM_EXPORT cnclResult_t cnclBcast(void *buf, size_t count, uint32_t datatype, int root,
                                  cnclComm_t comm, cnrtQueue_t queue);
SIM_EXPORT cnclResult_t cnclAllGather(const void *send, void *recv, size_t count, uint32_t datatype,
                                      cnclComm_t comm, cnrtQueue_t queue);
SIM_EXPORT cnclResult_t cnclReduceScatter(const void *send, void *recv, size_t count,
                                          uint32_t datatype, uint32_t op, cnclComm_t comm,
                                          cnrtQueue_t queue);
SIM_EXPORT cnclResult_t cnclReduce(const void *send, void *recv, size_t count, uint32_t datatype,
                                   uint32_t op, int root, cnclComm_t comm, cnrtQueue_t queue);
SIM_EXPORT cnclResult_t cnclSend(void *buf, const size_t count, uint32_t datatype, const int peer,
                                 const cnclComm_t comm, cnrtQueue_t queue);
SIM_EXPORT cnclResult_t cnclRecv(void *buf, const size_t count, uint32_t datatype, const int peer,
                                 const cnclComm_t comm, cnrtQueue_t queue);
SIM_EXPORT cnclResult_t cnclGroupStart(void);
SIM_EXPORT cnclResult_t cnclGroupEnd(void);

#endif /* ACCEL_TESTS_SIM_CCL_CNCL_SIM_H */
