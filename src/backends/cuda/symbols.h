/* symbols.h: the CUDA driver API functions the cuda backend calls, one line
 * each, as an X-macro:
 *   ACCEL_CUDA_SYMBOL(required, return type, name, (parameters), export)
 * `name` is the table field and the name as <cuda.h> spells it (the header's
 * macros may map it to a versioned export); `export` is a versioned exported
 * name to dlsym first, or NULL, after which `name` itself is tried. The
 * `_v2` exports are named directly where the unversioned symbol has an older
 * ABI. A `required` false entry may be missing from an older driver; the
 * feature that needs it then answers UNSUPPORTED.
 * This is the one shape of accel/accel_backend_utils.h's symbol lists.
 * backend.c expands this into the function table it fills with
 * accel_symbol_table_resolve;
 * declarations_check.c expands it against the real <cuda.h>.
 * No include guard: include it after defining ACCEL_CUDA_SYMBOL. */
/* An X-macro list read as data, one vendor call per entry: not reformatted. */
/* clang-format off */

/* initialisation and devices */
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuInit, (unsigned int flags), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuDriverGetVersion, (int *version), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuDeviceGetCount, (int *count), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuDeviceGet, (accel_cu_device_t *device, int ordinal),
                  NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuDeviceGetName,
                  (char *name, int len, accel_cu_device_t device), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuDeviceGetAttribute,
                  (int *value, accel_cu_device_attribute_t attribute, accel_cu_device_t device),
                  NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuDeviceTotalMem_v2,
                  (size_t *bytes, accel_cu_device_t device), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuDeviceGetUuid,
                  (accel_cu_uuid_t *uuid, accel_cu_device_t device), "cuDeviceGetUuid_v2")
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuDeviceGetPCIBusId,
                  (char *bus_id, int len, accel_cu_device_t device), NULL)

/* primary contexts */
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuDevicePrimaryCtxRetain,
                  (accel_cu_context_t *context, accel_cu_device_t device), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuDevicePrimaryCtxRelease, (accel_cu_device_t device),
                  "cuDevicePrimaryCtxRelease_v2")
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuCtxSetCurrent, (accel_cu_context_t context), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuCtxGetCurrent, (accel_cu_context_t *context), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuCtxSynchronize, (void), NULL)

/* memory */
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuMemAlloc_v2, (accel_cu_deviceptr_t *ptr, size_t size),
                  NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuMemFree_v2, (accel_cu_deviceptr_t ptr), NULL)
/* stream-ordered allocation (CUDA 11.2+; fused_lamb's scratch) */
ACCEL_CUDA_SYMBOL(false, accel_cu_result_t, cuMemAllocAsync,
                  (accel_cu_deviceptr_t *ptr, size_t size, accel_cu_stream_t stream), NULL)
ACCEL_CUDA_SYMBOL(false, accel_cu_result_t, cuMemFreeAsync,
                  (accel_cu_deviceptr_t ptr, accel_cu_stream_t stream), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuMemGetInfo_v2, (size_t *free_bytes, size_t *total),
                  NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuMemHostAlloc,
                  (void **ptr, size_t size, unsigned int flags), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuMemFreeHost, (void *ptr), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuMemHostRegister_v2,
                  (void *ptr, size_t size, unsigned int flags), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuMemHostUnregister, (void *ptr), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuMemcpyHtoDAsync_v2,
                  (accel_cu_deviceptr_t dst, const void *src, size_t size,
                   accel_cu_stream_t stream),
                  NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuMemcpyDtoHAsync_v2,
                  (void *dst, accel_cu_deviceptr_t src, size_t size, accel_cu_stream_t stream),
                  NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuMemcpyDtoDAsync_v2,
                  (accel_cu_deviceptr_t dst, accel_cu_deviceptr_t src, size_t size,
                   accel_cu_stream_t stream),
                  NULL)
/* Unified addressing: either side may be host or device memory. */
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuMemcpyAsync,
                  (accel_cu_deviceptr_t dst, accel_cu_deviceptr_t src, size_t size,
                   accel_cu_stream_t stream),
                  NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuMemsetD8Async,
                  (accel_cu_deviceptr_t dst, unsigned char value, size_t count,
                   accel_cu_stream_t stream),
                  NULL)

/* streams and host callbacks */
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuStreamCreateWithPriority,
                  (accel_cu_stream_t *stream, unsigned int flags, int priority), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuStreamDestroy_v2, (accel_cu_stream_t stream), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuStreamSynchronize, (accel_cu_stream_t stream), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuStreamQuery, (accel_cu_stream_t stream), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuStreamWaitEvent,
                  (accel_cu_stream_t stream, accel_cu_event_t event, unsigned int flags), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuLaunchHostFunc,
                  (accel_cu_stream_t stream, accel_cu_host_fn_t fn, void *user_data), NULL)

/* events (CUDA 12.8+ headers map cuEventElapsedTime to an _v2 export) */
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuEventCreate,
                  (accel_cu_event_t *event, unsigned int flags), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuEventDestroy_v2, (accel_cu_event_t event), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuEventRecord,
                  (accel_cu_event_t event, accel_cu_stream_t stream), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuEventSynchronize, (accel_cu_event_t event), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuEventQuery, (accel_cu_event_t event), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuEventElapsedTime,
                  (float *milliseconds, accel_cu_event_t start, accel_cu_event_t end),
                  "cuEventElapsedTime_v2")

/* modules and kernels */
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuModuleLoadData,
                  (accel_cu_module_t *module, const void *image), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuModuleGetFunction,
                  (accel_cu_function_t *function, accel_cu_module_t module, const char *name),
                  NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuModuleUnload, (accel_cu_module_t module), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuLaunchKernel,
                  (accel_cu_function_t function, unsigned int grid_x, unsigned int grid_y,
                   unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                   unsigned int block_z, unsigned int shared_bytes, accel_cu_stream_t stream,
                   void **params, void **extra),
                  NULL)

/* errors */
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuGetErrorName,
                  (accel_cu_result_t error, const char **name), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuGetErrorString,
                  (accel_cu_result_t error, const char **text), NULL)

/* graphs (cuGraphInstantiateWithFlags: CUDA 11.4+) */
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuStreamBeginCapture_v2,
                  (accel_cu_stream_t stream, accel_cu_capture_mode_t mode), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuStreamEndCapture,
                  (accel_cu_stream_t stream, accel_cu_graph_t *graph), NULL)
ACCEL_CUDA_SYMBOL(false, accel_cu_result_t, cuGraphInstantiateWithFlags,
                  (accel_cu_graph_exec_t *exec, accel_cu_graph_t graph, unsigned long long flags),
                  NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuGraphLaunch,
                  (accel_cu_graph_exec_t exec, accel_cu_stream_t stream), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuGraphExecDestroy, (accel_cu_graph_exec_t exec), NULL)
ACCEL_CUDA_SYMBOL(true, accel_cu_result_t, cuGraphDestroy, (accel_cu_graph_t graph), NULL)
/* clang-format on */
