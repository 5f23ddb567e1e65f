/* nccl_sim.h: the NCCL types and exported functions the simulated
 * libnccl.so.2 defines (nccl_sim.c), declared from NVIDIA's NCCL
 * documentation (the C API reference: types, result codes, communicator,
 * collective, group and point-to-point calls), not from accel's engine
 * declarations (src/comm/nccl/types.h), so that the two can disagree and a
 * test shows it. Only what the sim implements is here. Enums are 32-bit ints
 * in NCCL's ABI; the streams are the simulated driver's CUstream
 * (cudaStream_t and CUstream are the same type). */
#ifndef ACCEL_TESTS_SIM_CCL_NCCL_SIM_H
#define ACCEL_TESTS_SIM_CCL_NCCL_SIM_H

#include <stddef.h>

#include "sim_fault.h"

typedef int ncclResult_t;
typedef int ncclDataType_t;
typedef int ncclRedOp_t;
typedef struct ncclComm *ncclComm_t;
typedef struct CUstream_st *cudaStream_t;

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

/* ncclResult_t */
enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
};

/* ncclDataType_t: the 8-bit float types (10, 11) of newer releases are not
 * simulated. */
enum {
    ncclInt8 = 0,
    ncclUint8 = 1,
    ncclInt32 = 2,
    ncclUint32 = 3,
    ncclInt64 = 4,
    ncclUint64 = 5,
    ncclFloat16 = 6,
    ncclFloat32 = 7,
    ncclFloat64 = 8,
    ncclBfloat16 = 9,
};

/* ncclRedOp_t: the built-in operations (ncclAvg since NCCL 2.10); custom
 * operations (ncclRedOpCreatePreMulSum) are not simulated. */
enum {
    ncclSum = 0,
    ncclProd = 1,
    ncclMax = 2,
    ncclMin = 3,
    ncclAvg = 4,
};

SIM_EXPORT ncclResult_t ncclGetVersion(int *version);
SIM_EXPORT const char *ncclGetErrorString(ncclResult_t result);
SIM_EXPORT const char *ncclGetLastError(ncclComm_t comm);
SIM_EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId);
SIM_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId,
                                         int rank);
SIM_EXPORT ncclResult_t ncclCommFinalize(ncclComm_t comm);
SIM_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm);
typedef struct ncclConfig ncclConfig_t; /* only NULL is taken */
#define NCCL_SPLIT_NOCOLOR (-1)
SIM_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                                      ncclConfig_t *config);
SIM_EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int *count);
SIM_EXPORT ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device);
SIM_EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank);
SIM_EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError);
SIM_EXPORT ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                                      ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                      cudaStream_t stream);
SIM_EXPORT ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                                      ncclDataType_t datatype, int root, ncclComm_t comm,
                                      cudaStream_t stream);
SIM_EXPORT ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                                   ncclDataType_t datatype, ncclRedOp_t op, int root,
                                   ncclComm_t comm, cudaStream_t stream);
SIM_EXPORT ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                                      ncclDataType_t datatype, ncclComm_t comm,
                                      cudaStream_t stream);
SIM_EXPORT ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                          ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                          cudaStream_t stream);
SIM_EXPORT ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype,
                                 int peer, ncclComm_t comm, cudaStream_t stream);
SIM_EXPORT ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
                                 ncclComm_t comm, cudaStream_t stream);
SIM_EXPORT ncclResult_t ncclGroupStart(void);
SIM_EXPORT ncclResult_t ncclGroupEnd(void);

#endif /* ACCEL_TESTS_SIM_CCL_NCCL_SIM_H */
