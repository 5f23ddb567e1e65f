/* declarations_layout.h: the structure fields xpu.declarations compares
 * between types.h and ze_api.h, as an X-macro of (our type, field), and the
 * row both sides are recorded in. Test-only (declarations_check.c and
 * declarations_layout.c). */
#ifndef ACCEL_BACKENDS_XPU_DECLARATIONS_LAYOUT_H
#define ACCEL_BACKENDS_XPU_DECLARATIONS_LAYOUT_H

#include <stddef.h>

typedef struct accel_xpu_layout {
    const char *field;
    size_t offset;
    size_t size; /* of the whole structure */
} accel_xpu_layout_t;

extern const accel_xpu_layout_t accel_xpu_layout_ours[];
extern const size_t accel_xpu_layout_count;

#define ACCEL_XPU_LAYOUT(X)                                                                        \
    X(accel_ze_driver_properties_t, stype)                                                         \
    X(accel_ze_driver_properties_t, pNext)                                                         \
    X(accel_ze_driver_properties_t, uuid)                                                          \
    X(accel_ze_driver_properties_t, driverVersion)                                                 \
    X(accel_ze_device_properties_t, type)                                                          \
    X(accel_ze_device_properties_t, vendorId)                                                      \
    X(accel_ze_device_properties_t, maxMemAllocSize)                                               \
    X(accel_ze_device_properties_t, numEUsPerSubslice)                                             \
    X(accel_ze_device_properties_t, numSubslicesPerSlice)                                          \
    X(accel_ze_device_properties_t, numSlices)                                                     \
    X(accel_ze_device_properties_t, timerResolution)                                               \
    X(accel_ze_device_properties_t, kernelTimestampValidBits)                                      \
    X(accel_ze_device_properties_t, uuid)                                                          \
    X(accel_ze_device_properties_t, name)                                                          \
    X(accel_ze_queue_group_properties_t, flags)                                                    \
    X(accel_ze_queue_group_properties_t, maxMemoryFillPatternSize)                                 \
    X(accel_ze_queue_group_properties_t, numQueues)                                                \
    X(accel_ze_memory_properties_t, flags)                                                         \
    X(accel_ze_memory_properties_t, totalSize)                                                     \
    X(accel_ze_memory_properties_t, name)                                                          \
    X(accel_ze_context_desc_t, flags)                                                              \
    X(accel_ze_queue_desc_t, ordinal)                                                              \
    X(accel_ze_queue_desc_t, index)                                                                \
    X(accel_ze_queue_desc_t, flags)                                                                \
    X(accel_ze_queue_desc_t, mode)                                                                 \
    X(accel_ze_queue_desc_t, priority)                                                             \
    X(accel_ze_event_pool_desc_t, flags)                                                           \
    X(accel_ze_event_pool_desc_t, count)                                                           \
    X(accel_ze_event_desc_t, index)                                                                \
    X(accel_ze_event_desc_t, signal)                                                               \
    X(accel_ze_event_desc_t, wait)                                                                 \
    X(accel_ze_kernel_timestamp_t, global)                                                         \
    X(accel_ze_kernel_timestamp_t, context)                                                        \
    X(accel_ze_device_alloc_desc_t, flags)                                                         \
    X(accel_ze_device_alloc_desc_t, ordinal)                                                       \
    X(accel_ze_host_alloc_desc_t, flags)

#endif /* ACCEL_BACKENDS_XPU_DECLARATIONS_LAYOUT_H */
