/* symbols.h: the vendor functions the hpu backend calls, one line each, as
 * X-macros in accel_backend_utils.h's shape:
 *   ACCEL_HPU_SYMBOL(required, return type, name, (parameters), export)
 *     SynapseAI, libSynapse.so (every function returns synStatus)
 *   ACCEL_HLML_SYMBOL(required, return type, name, (parameters), export)
 *     HLML, libhlml.so: counting devices without acquiring one
 * `name` is both the table field and the exported name (neither library
 * versions its exports, so `export` is NULL). Define either macro, or both,
 * before including; a section whose macro is undefined is skipped.
 * backend.c expands these into its function tables; declarations_check.c
 * expands the Synapse list against the real synapse_api.h.
 * No include guard. */

#ifdef ACCEL_HPU_SYMBOL
/* initialisation and devices */
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synInitialize, (void), NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synDriverGetVersion,
                 (char *pDriverVersion, const int len), NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synDeviceGetCount, (uint32_t * pCount), NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synDeviceAcquireByModuleId,
                 (accel_syn_device_id_t * pDeviceId, const accel_syn_module_id_t moduleId), NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synDeviceRelease, (const accel_syn_device_id_t deviceId),
                 NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synDeviceGetAttributeByModuleId,
                 (uint64_t * retVal, const accel_syn_device_attr_t *deviceAttr,
                  const unsigned querySize, const accel_syn_module_id_t moduleId),
                 NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synDeviceGetMemoryInfo,
                 (const accel_syn_device_id_t deviceId, uint64_t *free, uint64_t *total), NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synDeviceSynchronize,
                 (const accel_syn_device_id_t deviceId), NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synStatusGetBriefDescription,
                 (accel_syn_status_t status, char *statusDescription, size_t len), NULL)

/* memory: device addresses are uint64_t; host memory used by a DMA must
 * come from synHostMalloc or be mapped with synHostMap */
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synDeviceMalloc,
                 (const accel_syn_device_id_t deviceId, const uint64_t size, uint64_t reqAddr,
                  const uint32_t flags, uint64_t *buffer),
                 NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synDeviceFree,
                 (const accel_syn_device_id_t deviceId, const uint64_t buffer,
                  const uint32_t flags),
                 NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synHostMalloc,
                 (const accel_syn_device_id_t deviceId, const uint64_t size, const uint32_t flags,
                  void **buffer),
                 NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synHostFree,
                 (const accel_syn_device_id_t deviceId, const void *buffer, const uint32_t flags),
                 NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synHostMap,
                 (const accel_syn_device_id_t deviceId, const uint64_t size, const void *buffer),
                 NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synHostUnmap,
                 (const accel_syn_device_id_t deviceId, const void *buffer), NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synMemCopyAsync,
                 (const accel_syn_stream_t streamHandle, const uint64_t src, const uint64_t size,
                  const uint64_t dst, const accel_syn_dma_dir_t direction),
                 NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synMemsetD8Async,
                 (uint64_t pDeviceMem, const unsigned char value, const size_t numOfElements,
                  const accel_syn_stream_t streamHandle),
                 NULL)

/* streams */
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synStreamCreateGeneric,
                 (accel_syn_stream_t * pStreamHandle, const accel_syn_device_id_t deviceId,
                  const uint32_t flags),
                 NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synStreamDestroy,
                 (const accel_syn_stream_t streamHandle), NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synStreamSynchronize,
                 (const accel_syn_stream_t streamHandle), NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synStreamQuery, (const accel_syn_stream_t streamHandle),
                 NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synStreamWaitEvent,
                 (const accel_syn_stream_t streamHandle, accel_syn_event_t eventHandle,
                  const uint32_t flags),
                 NULL)

/* events */
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synEventCreate,
                 (accel_syn_event_t * pEventHandler, const accel_syn_device_id_t deviceId,
                  const uint32_t flags),
                 NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synEventDestroy, (accel_syn_event_t eventHandle), NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synEventRecord,
                 (accel_syn_event_t eventHandle, const accel_syn_stream_t streamHandle), NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synEventQuery, (const accel_syn_event_t eventHandle),
                 NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synEventSynchronize,
                 (const accel_syn_event_t eventHandle), NULL)
ACCEL_HPU_SYMBOL(true, accel_syn_status_t, synEventElapsedTime,
                 (uint64_t * pNanoSeconds, const accel_syn_event_t eventHandleStart,
                  const accel_syn_event_t eventHandleEnd),
                 NULL)
#endif /* ACCEL_HPU_SYMBOL */

#ifdef ACCEL_HLML_SYMBOL
ACCEL_HLML_SYMBOL(true, accel_hlml_return_t, hlml_init, (void), NULL)
ACCEL_HLML_SYMBOL(true, accel_hlml_return_t, hlml_shutdown, (void), NULL)
ACCEL_HLML_SYMBOL(true, accel_hlml_return_t, hlml_device_get_count, (unsigned int *device_count),
                  NULL)
ACCEL_HLML_SYMBOL(true, accel_hlml_return_t, hlml_device_get_handle_by_index,
                  (unsigned int index, accel_hlml_device_t *device), NULL)
ACCEL_HLML_SYMBOL(true, accel_hlml_return_t, hlml_device_get_name,
                  (accel_hlml_device_t device, char *name, unsigned int length), NULL)
ACCEL_HLML_SYMBOL(true, accel_hlml_return_t, hlml_device_get_module_id,
                  (accel_hlml_device_t device, unsigned int *module_id), NULL)
#endif /* ACCEL_HLML_SYMBOL */
