/* sdaa_sim.h: the SDAA runtime declarations the simulated libsdaart.so is
 * written against: the names, values and prototypes of the public (early)
 * sdaa_runtime.h as vendor-apis.md §6 and that header give them, declared
 * here independently of the sdaa backend's own declarations
 * (src/backends/sdaa/types.h), so that a mistake shared by both would have
 * to be made twice. No vendor header is used: the Teco SDK is not
 * published. */
#ifndef ACCEL_TESTS_SIM_SDAA_SIM_H
#define ACCEL_TESTS_SIM_SDAA_SIM_H

#include <stddef.h>
#include <stdint.h>

typedef enum sdaaError_t {
    sdaaSuccess = 0,
    sdaaErrorInvalidValue = 1,
    sdaaErrorOutOfMemory = 2,
    sdaaErrorNotInitialized = 3,
    sdaaErrorInvalidDevicePointer = 17,
    sdaaErrorInvalidMemcpyDirection = 21,
    sdaaErrorNoDevice = 100,
    sdaaErrorInvalidDevice = 101,
    sdaaErrorInvalidHandle = 400,
    sdaaErrorNotReady = 600,
    sdaaErrorHostMemoryNotRegistered = 713,
    sdaaErrorNotSupported = 801,
    sdaaErrorUnknown = 999,
} sdaaError_t;

typedef struct isdaaStream_t *sdaaStream_t;
typedef struct isdaaEvent_t *sdaaEvent_t;

typedef enum sdaaMemcpyKind {
    sdaaMemcpyHostToHost = 0,
    sdaaMemcpyHostToDevice = 1,
    sdaaMemcpyDeviceToHost = 2,
    sdaaMemcpyDeviceToDevice = 3,
    sdaaMemcpyDefault = 4,
} sdaaMemcpyKind;

#define sdaaStreamDefault     0x00
#define sdaaStreamNonBlocking 0x01

#define sdaaEventDefault       0x0
#define sdaaEventBlockingSync  0x1
#define sdaaEventDisableTiming 0x2
#define sdaaEventInterprocess  0x4

typedef struct sdaaDeviceProp_t {
    char name[256];
    size_t totalGlobalMem;
    int chipsetID;
    int pciDeviceID;
    int pciVendor;
    int pciBusID;
    int clockRate;
} sdaaDeviceProp_t;

typedef void (*sdaaStreamCallback_t)(sdaaStream_t stream, sdaaError_t status, void *userData);

/* The functions the sim defines, with the early header's prototypes. */
sdaaError_t sdaaGetDeviceCount(int *count);
sdaaError_t sdaaSetDevice(int device);
sdaaError_t sdaaGetDevice(int *device);
sdaaError_t sdaaDeviceSynchronize(void);
sdaaError_t sdaaGetDeviceProperties(sdaaDeviceProp_t *props, int device);
sdaaError_t sdaaRuntimeGetVersion(int *runtimeVersion);
sdaaError_t sdaaDriverGetVersion(int *driverVersion);
const char *sdaaGetErrorName(sdaaError_t error);
const char *sdaaGetErrorString(sdaaError_t error);
sdaaError_t sdaaGetLastError(void);
sdaaError_t sdaaPeekAtLastError(void);

sdaaError_t sdaaMalloc(void **ptr, size_t size);
sdaaError_t sdaaFree(void *ptr);
sdaaError_t sdaaMallocHost(void **ptr, size_t size);
sdaaError_t sdaaFreeHost(void *ptr);
sdaaError_t sdaaMemGetInfo(size_t *free, size_t *total);
sdaaError_t sdaaMemcpy(void *dst, const void *src, size_t sizeBytes, sdaaMemcpyKind kind);
sdaaError_t sdaaMemcpyAsync(void *dst, const void *src, size_t sizeBytes, sdaaMemcpyKind kind,
                            sdaaStream_t stream);
sdaaError_t sdaaMemset(void *dst, int value, size_t sizeBytes);
sdaaError_t sdaaMemsetAsync(void *dst, int value, size_t sizeBytes, sdaaStream_t stream);

sdaaError_t sdaaStreamCreate(sdaaStream_t *stream);
sdaaError_t sdaaStreamCreateWithFlags(sdaaStream_t *pStream, unsigned int flags);
sdaaError_t sdaaStreamDestroy(sdaaStream_t stream);
sdaaError_t sdaaStreamSynchronize(sdaaStream_t stream);
sdaaError_t sdaaStreamQuery(sdaaStream_t stream);
sdaaError_t sdaaStreamWaitEvent(sdaaStream_t stream, sdaaEvent_t event, unsigned int flags);
sdaaError_t sdaaStreamAddCallback(sdaaStream_t stream, sdaaStreamCallback_t callback,
                                  void *userData, unsigned int flags);

sdaaError_t sdaaEventCreate(sdaaEvent_t *event);
sdaaError_t sdaaEventCreateWithFlags(sdaaEvent_t *event, unsigned flags);
sdaaError_t sdaaEventRecord(sdaaEvent_t event, sdaaStream_t stream);
sdaaError_t sdaaEventDestroy(sdaaEvent_t event);
sdaaError_t sdaaEventQuery(sdaaEvent_t event);
sdaaError_t sdaaEventSynchronize(sdaaEvent_t event);
sdaaError_t sdaaEventElapsedTime(float *ms, sdaaEvent_t start, sdaaEvent_t end);

#endif /* ACCEL_TESTS_SIM_SDAA_SIM_H */
