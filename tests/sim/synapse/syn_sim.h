/* syn_sim.h: the SynapseAI declarations the simulated libSynapse.so is
 * written against. With SYN_SIM_REAL_HEADERS (CMake sets it when Synapse's
 * headers have been fetched, scripts/fetch-vendor-headers.sh hpu) they are
 * synapse_api.h itself, so the compiler checks every function the sim
 * defines against the real prototype. Otherwise they are declared here from
 * vendor-apis.md §4 (the production values of
 * HabanaAI/Intel_Gaudi3_Software's headers), independently of the hpu
 * backend's own declarations (src/backends/hpu/types.h), so that a shared
 * mistake does not go unseen. Only what the sim implements is declared. */
#ifndef ACCEL_TESTS_SIM_SYN_SIM_H
#define ACCEL_TESTS_SIM_SYN_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef SYN_SIM_REAL_HEADERS
#include <synapse_api.h>
/* synapse_api.h declares these with (), which is no prototype in C. */
synStatus synInitialize(void);
synStatus synDestroy(void);
#else

typedef enum synStatus {
    synSuccess = 0,
    synInvalidArgument = 1,
    synOutOfHostMemory = 3,
    synOutOfDeviceMemory = 4,
    synObjectNotInitialized = 6,
    synNoDeviceFound = 8,
    synUnsupported = 18,
    synDeviceAlreadyAcquired = 20,
    synBusy = 22,
    synUnavailable = 24,
    synFail = 26,
    synUninitialized = 28,
    synInvalidEventHandle = 33,
    synMappingNotFound = 34,
    synFailedToCollectTime = 41,
    synTimeout = 42,
    synResourceBadUsage = 43,
} synStatus;

typedef enum synDmaDir { HOST_TO_DRAM, DRAM_TO_HOST, DRAM_TO_DRAM } synDmaDir;

typedef enum synDeviceType {
    synDeviceGoya2 = 1,
    synDeviceGaudi = 2,
    synDeviceGaudi2 = 4,
    synDeviceGaudi3 = 5,
    synDeviceEmulator = 6,
    synDeviceTypeInvalid = 7,
} synDeviceType;

typedef enum synDeviceAttribute {
    DEVICE_ATTRIBUTE_SRAM_BASE_ADDRESS,
    DEVICE_ATTRIBUTE_DRAM_BASE_ADDRESS,
    DEVICE_ATTRIBUTE_SRAM_SIZE,
    DEVICE_ATTRIBUTE_DRAM_SIZE,
    DEVICE_ATTRIBUTE_DRAM_FREE_SIZE,
    DEVICE_ATTRIBUTE_TPC_ENABLED_MASK,
    DEVICE_ATTRIBUTE_DRAM_ENABLED,
    DEVICE_ATTRIBUTE_DEVICE_TYPE,
    DEVICE_ATTRIBUTE_CLK_RATE,
    DEVICE_ATTRIBUTE_MAX_RMW_SIZE,
    DEVICE_ATTRIBUTE_STREAMS_TOTAL_MEM_SIZE,
    DEVICE_ATTRIBUTE_ADDRESS_ALIGNMENT_SIZE,
} synDeviceAttribute;

enum { EVENT_COLLECT_TIME = 1 };

typedef uint32_t synDeviceId;
typedef uint32_t synModuleId;
typedef struct InternalStreamHandle *synStreamHandle;
typedef struct EventInterfaceExternal *synEventHandle;

/* The functions the sim exports (synapse_api.h's prototypes, one line each). */
synStatus synInitialize(void);
synStatus synDestroy(void);
synStatus synDriverGetVersion(char *pDriverVersion, const int len);
synStatus synDeviceGetCount(uint32_t *pCount);
synStatus synDeviceAcquireByModuleId(synDeviceId *pDeviceId, const synModuleId moduleId);
synStatus synDeviceRelease(const synDeviceId deviceId);
synStatus synDeviceGetName(char *pName, const int len, const synDeviceId deviceId);
synStatus synDeviceGetAttribute(uint64_t *retVal, const synDeviceAttribute *deviceAttr,
                                const unsigned querySize, const synDeviceId deviceId);
synStatus synDeviceGetAttributeByModuleId(uint64_t *retVal, const synDeviceAttribute *deviceAttr,
                                          const unsigned querySize, const synModuleId moduleId);
synStatus synDeviceGetMemoryInfo(const synDeviceId deviceId, uint64_t *free, uint64_t *total);
synStatus synDeviceSynchronize(const synDeviceId deviceId);
synStatus synDeviceMalloc(const synDeviceId deviceId, const uint64_t size, uint64_t reqAddr,
                          const uint32_t flags, uint64_t *buffer);
synStatus synDeviceFree(const synDeviceId deviceId, const uint64_t buffer, const uint32_t flags);
synStatus synHostMalloc(const synDeviceId deviceId, const uint64_t size, const uint32_t flags,
                        void **buffer);
synStatus synHostFree(const synDeviceId deviceId, const void *buffer, const uint32_t flags);
synStatus synHostMap(const synDeviceId deviceId, const uint64_t size, const void *buffer);
synStatus synHostUnmap(const synDeviceId deviceId, const void *buffer);
synStatus synStreamCreateGeneric(synStreamHandle *pStreamHandle, const synDeviceId deviceId,
                                 const uint32_t flags);
synStatus synStreamDestroy(const synStreamHandle streamHandle);
synStatus synStreamSynchronize(const synStreamHandle streamHandle);
synStatus synStreamQuery(const synStreamHandle streamHandle);
synStatus synStreamWaitEvent(const synStreamHandle streamHandle, synEventHandle eventHandle,
                             const uint32_t flags);
synStatus synMemCopyAsync(const synStreamHandle streamHandle, const uint64_t src,
                          const uint64_t size, const uint64_t dst, const synDmaDir direction);
synStatus synMemsetD8Async(uint64_t pDeviceMem, const unsigned char value,
                           const size_t numOfElements, const synStreamHandle streamHandle);
synStatus synEventCreate(synEventHandle *pEventHandler, const synDeviceId deviceId,
                         const uint32_t flags);
synStatus synEventDestroy(synEventHandle eventHandle);
synStatus synEventRecord(synEventHandle eventHandle, const synStreamHandle streamHandle);
synStatus synEventQuery(const synEventHandle eventHandle);
synStatus synEventSynchronize(const synEventHandle eventHandle);
synStatus synEventElapsedTime(uint64_t *pNanoSeconds, const synEventHandle eventHandleStart,
                              const synEventHandle eventHandleEnd);
synStatus synStatusGetBriefDescription(synStatus status, char *statusDescription, size_t len);

#endif /* SYN_SIM_REAL_HEADERS */

#endif /* ACCEL_TESTS_SIM_SYN_SIM_H */
