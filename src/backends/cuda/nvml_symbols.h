/* nvml_symbols.h: the NVML functions the cuda backend calls (device counting
 * in probe/create, free memory), as an X-macro:
 *   ACCEL_NVML_SYMBOL(return type, name, (parameters))
 * All are required; NVML is optional as a whole. No include guard. */
ACCEL_NVML_SYMBOL(accel_nvml_return_t, nvmlInit_v2, (void))
ACCEL_NVML_SYMBOL(accel_nvml_return_t, nvmlShutdown, (void))
ACCEL_NVML_SYMBOL(accel_nvml_return_t, nvmlDeviceGetCount_v2, (unsigned int *count))
ACCEL_NVML_SYMBOL(accel_nvml_return_t, nvmlDeviceGetHandleByIndex_v2,
                  (unsigned int index, accel_nvml_device_t *device))
ACCEL_NVML_SYMBOL(accel_nvml_return_t, nvmlDeviceGetMemoryInfo,
                  (accel_nvml_device_t device, accel_nvml_memory_t *memory))
