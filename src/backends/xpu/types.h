/* types.h: the Level Zero (oneAPI, spec 1.4) types and constants the xpu
 * backend uses, declared here so the backend builds without ze_api.h.
 * declarations_check.c compares every one of them with the real header
 * (Debian's libze-dev) in the test xpu.declarations.
 * Handles and structures carry ze_api.h's own struct tags, so that our
 * function types are the header's; the structures are only defined here when
 * ze_api.h has not defined them (the check includes both). Enums are the
 * 32-bit unsigned types gcc and clang give them; names are prefixed
 * (accel_ze_*, ACCEL_ZE_*). Only the fields the backend reads or sets are
 * named beyond their layout: every structure is complete, in header order. */
#ifndef ACCEL_BACKENDS_XPU_TYPES_H
#define ACCEL_BACKENDS_XPU_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned int accel_ze_result_t;      /* ze_result_t */
typedef unsigned int accel_ze_structure_t;   /* ze_structure_type_t */
typedef uint32_t accel_ze_flags_t;           /* every ze_*_flags_t */
typedef unsigned int accel_ze_api_version_t; /* ze_api_version_t */

typedef struct _ze_driver_handle_t *accel_ze_driver_t;
typedef struct _ze_device_handle_t *accel_ze_device_t;
typedef struct _ze_context_handle_t *accel_ze_context_t;
typedef struct _ze_command_list_handle_t *accel_ze_list_t;
typedef struct _ze_event_pool_handle_t *accel_ze_event_pool_t;
typedef struct _ze_event_handle_t *accel_ze_event_t;

#ifndef _ZE_API_H
struct _ze_driver_uuid_t {
    uint8_t id[16];
};
struct _ze_device_uuid_t {
    uint8_t id[16];
};
struct _ze_driver_properties_t {
    accel_ze_structure_t stype;
    void *pNext;
    struct _ze_driver_uuid_t uuid;
    uint32_t driverVersion;
};
struct _ze_device_properties_t {
    accel_ze_structure_t stype;
    void *pNext;
    unsigned int type; /* ze_device_type_t */
    uint32_t vendorId;
    uint32_t deviceId;
    accel_ze_flags_t flags;
    uint32_t subdeviceId;
    uint32_t coreClockRate;
    uint64_t maxMemAllocSize;
    uint32_t maxHardwareContexts;
    uint32_t maxCommandQueuePriority;
    uint32_t numThreadsPerEU;
    uint32_t physicalEUSimdWidth;
    uint32_t numEUsPerSubslice;
    uint32_t numSubslicesPerSlice;
    uint32_t numSlices;
    uint64_t timerResolution; /* whole ns per tick with stype DEVICE_PROPERTIES,
                                 ticks per second with DEVICE_PROPERTIES_1_2 */
    uint32_t timestampValidBits;
    uint32_t kernelTimestampValidBits;
    struct _ze_device_uuid_t uuid;
    char name[256];
};
struct _ze_command_queue_group_properties_t {
    accel_ze_structure_t stype;
    void *pNext;
    accel_ze_flags_t flags;
    size_t maxMemoryFillPatternSize;
    uint32_t numQueues;
};
struct _ze_device_memory_properties_t {
    accel_ze_structure_t stype;
    void *pNext;
    accel_ze_flags_t flags;
    uint32_t maxClockRate;
    uint32_t maxBusWidth;
    uint64_t totalSize;
    char name[256];
};
struct _ze_context_desc_t {
    accel_ze_structure_t stype;
    const void *pNext;
    accel_ze_flags_t flags;
};
struct _ze_command_queue_desc_t {
    accel_ze_structure_t stype;
    const void *pNext;
    uint32_t ordinal;
    uint32_t index;
    accel_ze_flags_t flags;
    unsigned int mode;     /* ze_command_queue_mode_t */
    unsigned int priority; /* ze_command_queue_priority_t */
};
struct _ze_event_pool_desc_t {
    accel_ze_structure_t stype;
    const void *pNext;
    accel_ze_flags_t flags;
    uint32_t count;
};
struct _ze_event_desc_t {
    accel_ze_structure_t stype;
    const void *pNext;
    uint32_t index;
    accel_ze_flags_t signal;
    accel_ze_flags_t wait;
};
struct _ze_kernel_timestamp_data_t {
    uint64_t kernelStart;
    uint64_t kernelEnd;
};
struct _ze_kernel_timestamp_result_t {
    struct _ze_kernel_timestamp_data_t global;
    struct _ze_kernel_timestamp_data_t context;
};
struct _ze_device_mem_alloc_desc_t {
    accel_ze_structure_t stype;
    const void *pNext;
    accel_ze_flags_t flags;
    uint32_t ordinal;
};
struct _ze_host_mem_alloc_desc_t {
    accel_ze_structure_t stype;
    const void *pNext;
    accel_ze_flags_t flags;
};
#endif /* _ZE_API_H */

typedef struct _ze_driver_properties_t accel_ze_driver_properties_t;
typedef struct _ze_device_properties_t accel_ze_device_properties_t;
typedef struct _ze_command_queue_group_properties_t accel_ze_queue_group_properties_t;
typedef struct _ze_device_memory_properties_t accel_ze_memory_properties_t;
typedef struct _ze_context_desc_t accel_ze_context_desc_t;
typedef struct _ze_command_queue_desc_t accel_ze_queue_desc_t;
typedef struct _ze_event_pool_desc_t accel_ze_event_pool_desc_t;
typedef struct _ze_event_desc_t accel_ze_event_desc_t;
typedef struct _ze_kernel_timestamp_result_t accel_ze_kernel_timestamp_t;
typedef struct _ze_device_mem_alloc_desc_t accel_ze_device_alloc_desc_t;
typedef struct _ze_host_mem_alloc_desc_t accel_ze_host_alloc_desc_t;

/* ze_result_t */
#define ACCEL_ZE_SUCCESS                    0u
#define ACCEL_ZE_NOT_READY                  1u
#define ACCEL_ZE_ERROR_DEVICE_LOST          0x70000001u
#define ACCEL_ZE_ERROR_OUT_OF_HOST_MEMORY   0x70000002u
#define ACCEL_ZE_ERROR_OUT_OF_DEVICE_MEMORY 0x70000003u
#define ACCEL_ZE_ERROR_UNINITIALIZED        0x78000001u
#define ACCEL_ZE_ERROR_UNSUPPORTED_VERSION  0x78000002u
#define ACCEL_ZE_ERROR_UNSUPPORTED_FEATURE  0x78000003u
#define ACCEL_ZE_ERROR_INVALID_ARGUMENT     0x78000004u
#define ACCEL_ZE_ERROR_INVALID_NULL_HANDLE  0x78000005u
#define ACCEL_ZE_ERROR_INVALID_NULL_POINTER 0x78000007u
#define ACCEL_ZE_ERROR_INVALID_SIZE         0x78000008u
#define ACCEL_ZE_ERROR_UNKNOWN              0x7ffffffeu

/* ze_structure_type_t */
#define ACCEL_ZE_STYPE_DRIVER_PROPERTIES      0x1u
#define ACCEL_ZE_STYPE_DEVICE_PROPERTIES      0x3u
#define ACCEL_ZE_STYPE_DEVICE_PROPERTIES_1_2  0x00020006u
#define ACCEL_ZE_STYPE_QUEUE_GROUP_PROPERTIES 0x6u
#define ACCEL_ZE_STYPE_MEMORY_PROPERTIES      0x7u
#define ACCEL_ZE_STYPE_CONTEXT_DESC           0xdu
#define ACCEL_ZE_STYPE_QUEUE_DESC             0xeu
#define ACCEL_ZE_STYPE_EVENT_POOL_DESC        0x10u
#define ACCEL_ZE_STYPE_EVENT_DESC             0x11u
#define ACCEL_ZE_STYPE_DEVICE_ALLOC_DESC      0x15u
#define ACCEL_ZE_STYPE_HOST_ALLOC_DESC        0x16u

#define ACCEL_ZE_API_VERSION_1_2                  0x00010002u /* ZE_MAKE_VERSION(1, 2) */
#define ACCEL_ZE_INIT_FLAG_GPU_ONLY               1u
#define ACCEL_ZE_DEVICE_TYPE_GPU                  1u
#define ACCEL_ZE_QUEUE_GROUP_FLAG_COMPUTE         1u
#define ACCEL_ZE_QUEUE_MODE_ASYNCHRONOUS          2u
#define ACCEL_ZE_QUEUE_PRIORITY_NORMAL            0u
#define ACCEL_ZE_QUEUE_PRIORITY_LOW               1u
#define ACCEL_ZE_QUEUE_PRIORITY_HIGH              2u
#define ACCEL_ZE_EVENT_POOL_FLAG_HOST_VISIBLE     1u
#define ACCEL_ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP 4u
#define ACCEL_ZE_EVENT_SCOPE_FLAG_DEVICE          2u
#define ACCEL_ZE_EVENT_SCOPE_FLAG_HOST            4u

#endif /* ACCEL_BACKENDS_XPU_TYPES_H */
