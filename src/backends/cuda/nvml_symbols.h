/* nvml_symbols.h: the NVML functions the cuda backend calls (device counting
 * in probe/create, free memory), as an X-macro in the shape every backend's
 * symbol list has (accel/accel_backend_utils.h):
 *   ACCEL_NVML_SYMBOL(required, return type, name, (parameters), export)
 * All are required; NVML is optional as a whole. No include guard. */
/* An X-macro list read as data, one vendor call per entry: not reformatted. */
/* clang-format off */
ACCEL_NVML_SYMBOL(true, accel_nvml_return_t, nvmlInit_v2, (void), NULL)
ACCEL_NVML_SYMBOL(true, accel_nvml_return_t, nvmlShutdown, (void), NULL)
ACCEL_NVML_SYMBOL(true, accel_nvml_return_t, nvmlDeviceGetCount_v2, (unsigned int *count), NULL)
ACCEL_NVML_SYMBOL(true, accel_nvml_return_t, nvmlDeviceGetHandleByIndex_v2,
                  (unsigned int index, accel_nvml_device_t *device), NULL)
ACCEL_NVML_SYMBOL(true, accel_nvml_return_t, nvmlDeviceGetMemoryInfo,
                  (accel_nvml_device_t device, accel_nvml_memory_t *memory), NULL)
/* clang-format on */
