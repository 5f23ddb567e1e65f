/* loader.c: loading libcuda and NVML with dlopen (once per process, never
 * unloaded) and the driver's error text used in every message. The lowest
 * layer of the backend: it knows the vendor tables (loader.h) and nothing of
 * the backend's state. Thread-safe: the tables are filled under
 * pthread_once and read-only afterwards. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "accel/accel_backend_utils.h"
#include "backends/cuda/loader.h"

/* ---------------------------------------------------------------- loading the libraries */

static pthread_once_t cuda_driver_once = PTHREAD_ONCE_INIT;
static accel_cuda_api_t cuda_driver_api;
static bool cuda_driver_ok;
static char cuda_driver_reason[256];

static void cuda_driver_load(void)
{
    static const char *const candidates[] = {"libcuda.so.1", "libcuda.so", NULL};
    char tried[200] = "";
    void *library = accel_backend_load_library("cuda", candidates, tried, sizeof tried);
    if (library == NULL) {
        snprintf(cuda_driver_reason, sizeof cuda_driver_reason,
                 "no NVIDIA driver (libcuda.so.1) found (tried %s)", tried);
        return;
    }
#define ACCEL_CUDA_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(cuda_driver_api, required, name, export),
    const accel_symbol_t symbols[] = {
#include "backends/cuda/symbols.h"
    };
#undef ACCEL_CUDA_SYMBOL
    char missing[200];
    if (accel_symbol_table_resolve(library, symbols, sizeof symbols / sizeof symbols[0], "cuda",
                                   "the NVIDIA driver's libcuda", missing,
                                   sizeof missing) != ACCEL_OK) {
        snprintf(cuda_driver_reason, sizeof cuda_driver_reason, "%s (driver too old)", missing);
        dlclose(library);
        return;
    }
    cuda_driver_api.library = library;
    cuda_driver_ok = true;
}

const accel_cuda_api_t *accel_cuda_driver(char *reason, size_t cap)
{
    pthread_once(&cuda_driver_once, cuda_driver_load);
    if (cuda_driver_ok)
        return &cuda_driver_api;
    if (reason != NULL && cap > 0)
        snprintf(reason, cap, "%s", cuda_driver_reason);
    return NULL;
}

static pthread_once_t cuda_nvml_once = PTHREAD_ONCE_INIT;
static accel_nvml_api_t cuda_nvml_api;
static bool cuda_nvml_ok;

static void cuda_nvml_load(void)
{
    static const char *const candidates[] = {"libnvidia-ml.so.1", "libnvidia-ml.so", NULL};
    char tried[200] = "";
    void *library = accel_backend_load_library("nvml", candidates, tried, sizeof tried);
    if (library == NULL) {
        accel_log(ACCEL_LOG_DEBUG, "cuda: NVML not loaded (tried %s)", tried);
        return;
    }
#define ACCEL_NVML_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(cuda_nvml_api, required, name, export),
    const accel_symbol_t symbols[] = {
#include "backends/cuda/nvml_symbols.h"
    };
#undef ACCEL_NVML_SYMBOL
    char reason[160];
    if (accel_symbol_table_resolve(library, symbols, sizeof symbols / sizeof symbols[0], "cuda",
                                   "NVML (libnvidia-ml)", reason, sizeof reason) != ACCEL_OK) {
        accel_log(ACCEL_LOG_DEBUG, "%s; not using NVML", reason);
        dlclose(library);
        return;
    }
    cuda_nvml_api.library = library;
    cuda_nvml_ok = true;
}

const accel_nvml_api_t *accel_cuda_nvml(void)
{
    pthread_once(&cuda_nvml_once, cuda_nvml_load);
    return cuda_nvml_ok ? &cuda_nvml_api : NULL;
}

/* ---------------------------------------------------------------- errors */

accel_status_t accel_cuda_error(const accel_cuda_api_t *cu, accel_cu_result_t result,
                                const char *what)
{
    const char *name = NULL, *text = NULL;
    if (cu != NULL) {
        if (cu->cuGetErrorName(result, &name) != ACCEL_CUDA_SUCCESS)
            name = NULL;
        if (cu->cuGetErrorString(result, &text) != ACCEL_CUDA_SUCCESS)
            text = NULL;
    }
    accel_backend_vendor_error((int64_t)result, "cuda: %s failed: %s (%u): %s", what,
                               name != NULL ? name : "CUDA_ERROR_UNKNOWN", result,
                               text != NULL ? text : "unrecognised error code");
    if (result == ACCEL_CUDA_ERROR_OUT_OF_MEMORY)
        return ACCEL_ERROR_OUT_OF_MEMORY; /* lets the caching allocator free and retry */
    if (result == ACCEL_CUDA_ERROR_NOT_READY)
        return ACCEL_ERROR_NOT_READY;
    return ACCEL_ERROR_DEVICE_ERROR;
}
