/* cu_sim_nvml.c: the few NVML calls the cuda backend makes (counting
 * devices without a CUDA context, free memory), exported by the same
 * simulated libcuda.so so that a test points ACCEL_NVML_LIBRARY at that file
 * too. NVML counts every physical device (CUDA_VISIBLE_DEVICES does not
 * apply to it) and needs no cuInit, so a probe through it leaves a forked
 * child free to use CUDA. Memory figures are the driver sim's own. Any
 * thread. */
#include "cu_sim_internal.h"

#define NVML_SUCCESS                0
#define NVML_ERROR_UNINITIALIZED    1
#define NVML_ERROR_INVALID_ARGUMENT 2

typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlMemory_st {
    unsigned long long total, free, used;
} nvmlMemory_t;

SIM_API int nvmlInit_v2(void);
SIM_API int nvmlShutdown(void);
SIM_API int nvmlDeviceGetCount_v2(unsigned int *count);
SIM_API int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
SIM_API int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);

static int sim_nvml_refs; /* under sim_lock */

SIM_API int nvmlInit_v2(void)
{
    int injected = sim_fault_hit("nvmlInit_v2");
    if (injected != 0)
        return injected;
    pthread_mutex_lock(&sim_lock);
    sim_nvml_refs++;
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

SIM_API int nvmlShutdown(void)
{
    int code = NVML_SUCCESS;
    pthread_mutex_lock(&sim_lock);
    if (sim_nvml_refs == 0)
        code = NVML_ERROR_UNINITIALIZED;
    else
        sim_nvml_refs--;
    pthread_mutex_unlock(&sim_lock);
    return code;
}

/* NVML_ERROR_UNINITIALIZED unless nvmlInit_v2 ran. */
static int sim_nvml_ready(void)
{
    int refs;
    pthread_mutex_lock(&sim_lock);
    refs = sim_nvml_refs;
    pthread_mutex_unlock(&sim_lock);
    return refs > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

SIM_API int nvmlDeviceGetCount_v2(unsigned int *count)
{
    int code = sim_fault_hit("nvmlDeviceGetCount_v2");
    if (code == 0)
        code = sim_nvml_ready();
    if (code != NVML_SUCCESS)
        return code;
    if (count == NULL)
        return NVML_ERROR_INVALID_ARGUMENT;
    *count = (unsigned)sim_fault_device_count(2, SIM_MAX_DEVICES);
    return NVML_SUCCESS;
}

SIM_API int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    int code = sim_fault_hit("nvmlDeviceGetHandleByIndex_v2");
    if (code == 0)
        code = sim_nvml_ready();
    if (code != NVML_SUCCESS)
        return code;
    if (device == NULL || index >= (unsigned)sim_fault_device_count(2, SIM_MAX_DEVICES))
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = (nvmlDevice_t)(uintptr_t)(index + 1);
    return NVML_SUCCESS;
}

SIM_API int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    uintptr_t index = (uintptr_t)device - 1;
    int code = sim_fault_hit("nvmlDeviceGetMemoryInfo");
    if (code == 0)
        code = sim_nvml_ready();
    if (code != NVML_SUCCESS)
        return code;
    if (memory == NULL || device == NULL ||
        index >= (uintptr_t)sim_fault_device_count(2, SIM_MAX_DEVICES))
        return NVML_ERROR_INVALID_ARGUMENT;
    memory->total = sim_device_capacity();
    memory->used = sim_device_used((int)index);
    memory->free = memory->total - memory->used;
    return NVML_SUCCESS;
}
