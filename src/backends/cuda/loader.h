/* loader.h: the CUDA backend's vendor tables for libcuda and NVML, loaded
 * with dlopen by loader.c once per process and never unloaded, and the
 * driver's error text. The bottom layer of src/backends/cuda/: it includes
 * only types.h and knows nothing of the backend's state.
 * Threads: the tables are read-only once returned; any thread. */
#ifndef ACCEL_BACKENDS_CUDA_LOADER_H
#define ACCEL_BACKENDS_CUDA_LOADER_H

#include <stddef.h>

#include "accel/accel_backend.h"
#include "backends/cuda/types.h"

typedef struct accel_cuda_api {
    void *library;
#define ACCEL_CUDA_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/cuda/symbols.h"
#undef ACCEL_CUDA_SYMBOL
} accel_cuda_api_t;

typedef struct accel_nvml_api {
    void *library;
#define ACCEL_NVML_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/cuda/nvml_symbols.h"
#undef ACCEL_NVML_SYMBOL
} accel_nvml_api_t;

/* The driver table, loaded once per process; NULL with `reason` (what was
 * tried) when libcuda cannot be loaded or lacks a required symbol. */
const accel_cuda_api_t *accel_cuda_driver(char *reason, size_t cap);
/* NVML, loaded once per process; NULL when absent (not an error). */
const accel_nvml_api_t *accel_cuda_nvml(void);

/* Turn a failed CUresult into a status and the thread's last error:
 * "cuda: <what> failed: CUDA_ERROR_X (n): text". NOT_READY and OUT_OF_MEMORY
 * keep their own statuses; everything else is DEVICE_ERROR with the code. */
accel_status_t accel_cuda_error(const accel_cuda_api_t *cu, accel_cu_result_t result,
                                const char *what);

/* `result` checked: ACCEL_OK on success, else accel_cuda_error. */
static inline accel_status_t accel_cuda_check(const accel_cuda_api_t *cu, accel_cu_result_t result,
                                              const char *what)
{
    return result == ACCEL_CUDA_SUCCESS ? ACCEL_OK : accel_cuda_error(cu, result, what);
}

#endif /* ACCEL_BACKENDS_CUDA_LOADER_H */
