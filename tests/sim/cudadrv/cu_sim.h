/* cu_sim.h: the CUDA driver API as the simulated libcuda.so defines it:
 * the types, constants and functions the sim exports, declared from NVIDIA's
 * CUDA Driver API reference (not from the cuda backend's own types.h, so the
 * two can disagree and a test shows it). Only what the sim implements is
 * here. Versioned exports are declared under the names libcuda.so exports
 * (cuMemAlloc_v2, cuStreamDestroy_v2, ...), as cuda.h's macros spell them. */
#ifndef ACCEL_TESTS_SIM_CU_SIM_H
#define ACCEL_TESTS_SIM_CU_SIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef void (*CUhostFn)(void *userData);
typedef struct CUuuid_st {
    char bytes[16];
} CUuuid;

/* CUresult values the sim returns. */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_ILLEGAL_STATE = 401,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
    CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
    CUDA_ERROR_NOT_PERMITTED = 800,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
    CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 903,
    CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904,
    CUDA_ERROR_STREAM_CAPTURE_ISOLATION = 905, /* cuda.h; was 906 here, which is IMPLICIT */
    CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
    CUDA_ERROR_CAPTURED_EVENT = 907,
    CUDA_ERROR_UNKNOWN = 999
};

/* CUdevice_attribute values the sim answers. */
enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
    CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
};

#define CU_STREAM_DEFAULT                   0x0
#define CU_STREAM_NON_BLOCKING              0x1
#define CU_STREAM_LEGACY                    ((CUstream)0x1)
#define CU_STREAM_PER_THREAD                ((CUstream)0x2)
#define CU_EVENT_DEFAULT                    0x0
#define CU_EVENT_BLOCKING_SYNC              0x1
#define CU_EVENT_DISABLE_TIMING             0x2
#define CU_EVENT_INTERPROCESS               0x4
#define CU_MEMHOSTALLOC_PORTABLE            0x1
#define CU_MEMHOSTALLOC_DEVICEMAP           0x2
#define CU_MEMHOSTALLOC_WRITECOMBINED       0x4
#define CU_MEMHOSTREGISTER_PORTABLE         0x1
#define CU_MEMHOSTREGISTER_DEVICEMAP        0x2
#define CU_STREAM_CAPTURE_MODE_GLOBAL       0
#define CU_STREAM_CAPTURE_MODE_THREAD_LOCAL 1
#define CU_STREAM_CAPTURE_MODE_RELAXED      2

/* CUpointer_attribute values cuPointerGetAttribute answers, and the
 * CUmemorytype values it reports. */
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE      2
#define CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL   9
#define CU_POINTER_ATTRIBUTE_RANGE_START_ADDR 11
#define CU_POINTER_ATTRIBUTE_RANGE_SIZE       12
#define CU_MEMORYTYPE_HOST                    0x01
#define CU_MEMORYTYPE_DEVICE                  0x02

#ifndef SIM_API
#define SIM_API __attribute__((visibility("default")))
#endif

/* The exported functions (each a default-visibility symbol of the sim). */
SIM_API CUresult cuInit(unsigned int flags);
SIM_API CUresult cuDriverGetVersion(int *version);
SIM_API CUresult cuDeviceGetCount(int *count);
SIM_API CUresult cuDeviceGet(CUdevice *device, int ordinal);
SIM_API CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
SIM_API CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice dev);
SIM_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
SIM_API CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
SIM_API CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev);
SIM_API CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev);
SIM_API CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
SIM_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
SIM_API CUresult cuCtxSetCurrent(CUcontext ctx);
SIM_API CUresult cuCtxGetCurrent(CUcontext *pctx);
SIM_API CUresult cuCtxGetDevice(CUdevice *device);
SIM_API CUresult cuCtxSynchronize(void);
SIM_API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
SIM_API CUresult cuMemFree_v2(CUdeviceptr dptr);
SIM_API CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
SIM_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream);
SIM_API CUresult cuMemGetInfo_v2(size_t *free, size_t *total);
SIM_API CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags);
SIM_API CUresult cuMemFreeHost(void *p);
SIM_API CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags);
SIM_API CUresult cuMemHostUnregister(void *p);
SIM_API CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr);
SIM_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                      CUstream hStream);
SIM_API CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                      CUstream hStream);
SIM_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                      size_t ByteCount, CUstream hStream);
SIM_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                               CUstream hStream);
SIM_API CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                 CUstream hStream);
SIM_API CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority);
SIM_API CUresult cuStreamDestroy_v2(CUstream hStream);
SIM_API CUresult cuStreamSynchronize(CUstream hStream);
SIM_API CUresult cuStreamQuery(CUstream hStream);
SIM_API CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags);
SIM_API CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData);
SIM_API CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags);
SIM_API CUresult cuEventDestroy_v2(CUevent hEvent);
SIM_API CUresult cuEventRecord(CUevent hEvent, CUstream hStream);
SIM_API CUresult cuEventSynchronize(CUevent hEvent);
SIM_API CUresult cuEventQuery(CUevent hEvent);
SIM_API CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd);
SIM_API CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd);
SIM_API CUresult cuModuleLoadData(CUmodule *module, const void *image);
SIM_API CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
SIM_API CUresult cuModuleUnload(CUmodule hmod);
SIM_API CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX,
                                unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream, void **kernelParams,
                                void **extra);
SIM_API CUresult cuGetErrorName(CUresult error, const char **pStr);
SIM_API CUresult cuGetErrorString(CUresult error, const char **pStr);
SIM_API CUresult cuStreamBeginCapture_v2(CUstream hStream, int mode);
SIM_API CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph);
SIM_API CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
                                             unsigned long long flags);
SIM_API CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream);
SIM_API CUresult cuGraphExecDestroy(CUgraphExec hGraphExec);
SIM_API CUresult cuGraphDestroy(CUgraph hGraph);

#ifdef __cplusplus
}
#endif

#endif /* ACCEL_TESTS_SIM_CU_SIM_H */
