/* symbols.h: the Level Zero functions the xpu backend calls, one line each,
 * in accel_backend_utils.h's symbol shape:
 *   ACCEL_ZE_SYMBOL(required, return type, name, (parameters), export)
 * All are core API of spec 1.0-1.4, exported unversioned by every loader
 * (Debian's 1.8.12 included), so all are required and `export` is NULL.
 * backend.c expands this into the function table and its descriptors;
 * declarations_check.c expands it against the real ze_api.h.
 * No include guard: include it after defining ACCEL_ZE_SYMBOL. */

/* drivers and devices */
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeInit, (accel_ze_flags_t flags), NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeDriverGet,
                (uint32_t * pCount, accel_ze_driver_t *phDrivers), NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeDriverGetProperties,
                (accel_ze_driver_t hDriver, accel_ze_driver_properties_t *pDriverProperties), NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeDriverGetApiVersion,
                (accel_ze_driver_t hDriver, accel_ze_api_version_t *version), NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeDeviceGet,
                (accel_ze_driver_t hDriver, uint32_t *pCount, accel_ze_device_t *phDevices), NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeDeviceGetProperties,
                (accel_ze_device_t hDevice, accel_ze_device_properties_t *pDeviceProperties), NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeDeviceGetMemoryProperties,
                (accel_ze_device_t hDevice, uint32_t *pCount,
                 accel_ze_memory_properties_t *pMemProperties),
                NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeDeviceGetCommandQueueGroupProperties,
                (accel_ze_device_t hDevice, uint32_t *pCount,
                 accel_ze_queue_group_properties_t *pCommandQueueGroupProperties),
                NULL)

/* the one context */
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeContextCreate,
                (accel_ze_driver_t hDriver, const accel_ze_context_desc_t *desc,
                 accel_ze_context_t *phContext),
                NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeContextDestroy, (accel_ze_context_t hContext), NULL)

/* unified shared memory: device allocations, host allocations (pinned) */
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeMemAllocDevice,
                (accel_ze_context_t hContext, const accel_ze_device_alloc_desc_t *device_desc,
                 size_t size, size_t alignment, accel_ze_device_t hDevice, void **pptr),
                NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeMemAllocHost,
                (accel_ze_context_t hContext, const accel_ze_host_alloc_desc_t *host_desc,
                 size_t size, size_t alignment, void **pptr),
                NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeMemFree, (accel_ze_context_t hContext, void *ptr), NULL)

/* immediate command lists: the streams */
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeCommandListCreateImmediate,
                (accel_ze_context_t hContext, accel_ze_device_t hDevice,
                 const accel_ze_queue_desc_t *altdesc, accel_ze_list_t *phCommandList),
                NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeCommandListDestroy, (accel_ze_list_t hCommandList), NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeCommandListAppendMemoryCopy,
                (accel_ze_list_t hCommandList, void *dstptr, const void *srcptr, size_t size,
                 accel_ze_event_t hSignalEvent, uint32_t numWaitEvents,
                 accel_ze_event_t *phWaitEvents),
                NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeCommandListAppendMemoryFill,
                (accel_ze_list_t hCommandList, void *ptr, const void *pattern, size_t pattern_size,
                 size_t size, accel_ze_event_t hSignalEvent, uint32_t numWaitEvents,
                 accel_ze_event_t *phWaitEvents),
                NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeCommandListAppendBarrier,
                (accel_ze_list_t hCommandList, accel_ze_event_t hSignalEvent,
                 uint32_t numWaitEvents, accel_ze_event_t *phWaitEvents),
                NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeCommandListAppendWaitOnEvents,
                (accel_ze_list_t hCommandList, uint32_t numEvents, accel_ze_event_t *phEvents),
                NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeCommandListAppendEventReset,
                (accel_ze_list_t hCommandList, accel_ze_event_t hEvent), NULL)

/* events: one pool per event, with kernel timestamps */
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeEventPoolCreate,
                (accel_ze_context_t hContext, const accel_ze_event_pool_desc_t *desc,
                 uint32_t numDevices, accel_ze_device_t *phDevices,
                 accel_ze_event_pool_t *phEventPool),
                NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeEventPoolDestroy, (accel_ze_event_pool_t hEventPool),
                NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeEventCreate,
                (accel_ze_event_pool_t hEventPool, const accel_ze_event_desc_t *desc,
                 accel_ze_event_t *phEvent),
                NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeEventDestroy, (accel_ze_event_t hEvent), NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeEventHostSynchronize,
                (accel_ze_event_t hEvent, uint64_t timeout), NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeEventQueryStatus, (accel_ze_event_t hEvent), NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeEventHostSignal, (accel_ze_event_t hEvent), NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeEventHostReset, (accel_ze_event_t hEvent), NULL)
ACCEL_ZE_SYMBOL(true, accel_ze_result_t, zeEventQueryKernelTimestamp,
                (accel_ze_event_t hEvent, accel_ze_kernel_timestamp_t *dstptr), NULL)
