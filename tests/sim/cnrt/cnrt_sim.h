/* cnrt_sim.h: the CNRT declarations the simulated libcnrt.so implements,
 * written from spec/vendor-apis.md §3 (CNRT 6.0.2's cnrt.h as that section
 * restates it), not from the backend's own declarations. Only what the sim
 * exports is here: the types, the return codes it uses and the functions. */
#ifndef ACCEL_TESTS_SIM_CNRT_SIM_H
#define ACCEL_TESTS_SIM_CNRT_SIM_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    cnrtSuccess = 0,
    cnrtErrorNotReady = 1,
    cnrtErrorInit = 100002,
    cnrtErrorNoDevice = 100004,
    cnrtErrorDeviceInvalid = 100005,
    cnrtErrorArgsInvalid = 100006,
    cnrtErrorSysNoMem = 100010,
    cnrtErrorInvalidResourceHandle = 100014,
    cnrtErrorIllegalState = 100015,
    cnrtErrorNotSupport = 100050,
    cnrtErrorNoMem = 100100,
    cnrtErrorQueueCaptureUnsupported = 100360,
    cnrtErrorQueueCaptureInvalidated = 100361,
    cnrtErrorDevice = 632006,
    cnrtErrorMemcpyDirectionInvalid = 632013,
    cnrtErrorBusy = 632014,
    cnrtErrorNoCnrtContext = 632019,
    cnrtErrorUnknown = 999991,
} cnrtRet_t;

typedef enum {
    cnrtMemcpyHostToDev = 0,
    cnrtMemcpyDevToDev = 1,
    cnrtMemcpyDevToHost = 2,
    cnrtMemcpyHostToHost = 3,
    cnrtMemcpyPeerToPeer = 4,
    cnrtMemcpyNoDirection = 5,
} cnrtMemTransDir_t;

typedef enum {
    cnrtAttrComputeCapabilityMajor = 0x01,
    cnrtAttrComputeCapabilityMinor = 0x02,
    cnrtAttrFP16ComputingSupported = 0x04,
    cnrtAttrBF16ComputingSupported = 0x07,
    cnrtAttrClusterCount = 0x205,
    cnrtAttrMcorePerCluster = 0x206,
    cnrtAttrMaxL2CacheSize = 0x301,
    cnrtAttrTotalMemSize = 0x405,
} cnrtDeviceAttr_t;

typedef enum cnrtQueueCaptureMode {
    cnrtQueueCaptureModeGlobal = 0,
    cnrtQueueCaptureModeThreadLocal = 1,
    cnrtQueueCaptureModeRelaxed = 2,
} cnrtQueueCaptureMode_t;

#define CNRT_NOTIFIER_DEFAULT            0x0
#define CNRT_NOTIFIER_DISABLE_TIMING_SW  0x2
#define CNRT_NOTIFIER_DISABLE_TIMING_ALL 0x4

typedef struct cnrtQueue *cnrtQueue_t;
typedef struct cnrtNotifier *cnrtNotifier_t;
typedef struct cnrtTaskTopo *cnrtTaskTopo_t;
typedef struct cnrtTaskTopoEntity *cnrtTaskTopoEntity_t;
typedef struct cnrtTaskTopoNode *cnrtTaskTopoNode_t;
typedef void (*cnrtHostFn_t)(void *userData);

typedef struct cnrtDeviceProp {
    char name[256];
} cnrtDeviceProp_t;

/* devices */
cnrtRet_t cnrtGetDeviceCount(unsigned int *pCount);
cnrtRet_t cnrtSetDevice(int ordinal);
cnrtRet_t cnrtGetDevice(int *pOrdinal);
cnrtRet_t cnrtSyncDevice(void);
cnrtRet_t cnrtGetDeviceProperties(cnrtDeviceProp_t *prop, int device);
cnrtRet_t cnrtDeviceGetAttribute(int *pValue, cnrtDeviceAttr_t attr, int device);
cnrtRet_t cnrtGetLibVersion(int *major, int *minor, int *patch);
cnrtRet_t cnrtDriverGetVersion(int *major, int *minor, int *patch);
const char *cnrtGetErrorName(cnrtRet_t error);
const char *cnrtGetErrorStr(cnrtRet_t error);

/* memory */
cnrtRet_t cnrtMalloc(void **pPtr, size_t bytes);
cnrtRet_t cnrtFree(void *ptr);
cnrtRet_t cnrtHostMalloc(void **pPtr, size_t bytes);
cnrtRet_t cnrtFreeHost(void *ptr);
cnrtRet_t cnrtMemGetInfo(size_t *free_bytes, size_t *total);
cnrtRet_t cnrtMemcpyAsync(void *dst, void *src, size_t bytes, cnrtQueue_t queue,
                          cnrtMemTransDir_t dir);
cnrtRet_t cnrtMemcpyAsync_V2(void *dst, void *src, size_t bytes, cnrtQueue_t queue,
                             cnrtMemTransDir_t dir);
cnrtRet_t cnrtMemsetAsync(void *ptr, int value, size_t bytes, cnrtQueue_t queue);

/* queues and notifiers */
cnrtRet_t cnrtQueueCreate(cnrtQueue_t *pQueue);
cnrtRet_t cnrtQueueDestroy(cnrtQueue_t queue);
cnrtRet_t cnrtQueueSync(cnrtQueue_t queue);
cnrtRet_t cnrtQueueQuery(cnrtQueue_t queue);
cnrtRet_t cnrtQueueWaitNotifier(cnrtNotifier_t notifier, cnrtQueue_t queue, unsigned int flag);
cnrtRet_t cnrtNotifierCreate(cnrtNotifier_t *pNotifier);
cnrtRet_t cnrtNotifierCreateWithFlags(cnrtNotifier_t *pNotifier, unsigned int flags);
cnrtRet_t cnrtNotifierDestroy(cnrtNotifier_t notifier);
cnrtRet_t cnrtPlaceNotifier(cnrtNotifier_t notifier, cnrtQueue_t queue);
cnrtRet_t cnrtWaitNotifier(cnrtNotifier_t notifier);
cnrtRet_t cnrtQueryNotifier(cnrtNotifier_t notifier);
cnrtRet_t cnrtNotifierElapsedTime(cnrtNotifier_t start, cnrtNotifier_t end, float *ms);
cnrtRet_t cnrtNotifierDuration(cnrtNotifier_t start, cnrtNotifier_t end, float *us);
cnrtRet_t cnrtInvokeHostFunc(cnrtQueue_t queue, cnrtHostFn_t fn, void *userData);

/* capture into task topologies */
cnrtRet_t cnrtQueueBeginCapture(cnrtQueue_t queue, enum cnrtQueueCaptureMode mode);
cnrtRet_t cnrtQueueEndCapture(cnrtQueue_t queue, cnrtTaskTopo_t *pTaskTopo);
cnrtRet_t cnrtTaskTopoInstantiate(cnrtTaskTopoEntity_t *pEntity, cnrtTaskTopo_t topo,
                                  cnrtTaskTopoNode_t *pErrorNode, char *pLogBuffer,
                                  size_t bufferSize);
cnrtRet_t cnrtTaskTopoDestroy(cnrtTaskTopo_t topo);
cnrtRet_t cnrtTaskTopoEntityInvoke(cnrtTaskTopoEntity_t entity, cnrtQueue_t queue);
cnrtRet_t cnrtTaskTopoEntityDestroy(cnrtTaskTopoEntity_t entity);

#endif /* ACCEL_TESTS_SIM_CNRT_SIM_H */
