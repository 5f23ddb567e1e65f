/* cuda_count.c: a libcuda that can only count devices, for the cascade
 * test of the "xpu only when no CUDA device is present" rule with the real
 * xpu and cuda backends (ze_driver/xpu_sim.cmake: xpu.cascade_*). cuInit
 * succeeds and cuDeviceGetCount reports ACCEL_SIM_CUDA_DEVICES (default 2);
 * every other function the cuda backend resolves exists (so the library
 * loads) and answers CUDA_ERROR_NOT_SUPPORTED without looking at its
 * arguments: nothing past detection can work on it, and the test reads only
 * the cascade. Never installed. */
#include <stdlib.h>

#include "backends/cuda/types.h"

#define CUDA_COUNT_EXPORT        __attribute__((visibility("default")))
#define CUDA_COUNT_NOT_SUPPORTED 801u

/* Every symbol of the backend's list as a function that refuses; the two
 * that count are renamed out of the way and defined below. */
#define cuInit           cuda_count_unused_cuInit
#define cuDeviceGetCount cuda_count_unused_cuDeviceGetCount
#define ACCEL_CUDA_SYMBOL(required, ret, name, params, export_name)                                \
    CUDA_COUNT_EXPORT unsigned int name(void);                                                     \
    CUDA_COUNT_EXPORT unsigned int name(void)                                                      \
    {                                                                                              \
        return CUDA_COUNT_NOT_SUPPORTED;                                                           \
    }
#include "backends/cuda/symbols.h"
#undef ACCEL_CUDA_SYMBOL
#undef cuInit
#undef cuDeviceGetCount

CUDA_COUNT_EXPORT accel_cu_result_t cuInit(unsigned int flags);
CUDA_COUNT_EXPORT accel_cu_result_t cuInit(unsigned int flags)
{
    return flags == 0 ? ACCEL_CUDA_SUCCESS : CUDA_COUNT_NOT_SUPPORTED;
}

CUDA_COUNT_EXPORT accel_cu_result_t cuDeviceGetCount(int *count);
CUDA_COUNT_EXPORT accel_cu_result_t cuDeviceGetCount(int *count)
{
    const char *text = getenv("ACCEL_SIM_CUDA_DEVICES");
    *count = text != NULL ? atoi(text) : 2;
    return ACCEL_CUDA_SUCCESS;
}
