/* loader.c: loading libcuda and NVML with dlopen (once per process, never
 * unloaded) and the driver's error text used in every message. The lowest
 * layer of the backend: it knows the vendor tables (loader.h) and nothing of
 * the backend's state. Thread-safe: the tables are filled once by the
 * vendor-library loader (accel_backend_utils.h) and read-only afterwards. */
#include <pthread.h>
#include <stdio.h>

#include "accel/accel_backend_utils.h"
#include "backends/cuda/loader.h"

/* ---------------------------------------------------------------- loading the libraries */

static accel_cuda_api_t cuda_driver_api;

static const accel_symbol_t cuda_driver_symbols[] = {
#define ACCEL_CUDA_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(cuda_driver_api, required, name, export),
#include "backends/cuda/symbols.h"
#undef ACCEL_CUDA_SYMBOL
};

static const char *const cuda_driver_names[] = {"libcuda.so.1", "libcuda.so", NULL};

static accel_vendor_library_t cuda_driver = {
    .name = "cuda",
    .candidates = cuda_driver_names,
    .symbols = cuda_driver_symbols,
    .symbol_count = sizeof cuda_driver_symbols / sizeof cuda_driver_symbols[0],
    .not_found = "no NVIDIA driver (libcuda.so.1) found",
    .symbols_in = "the NVIDIA driver's libcuda",
    .too_old = "driver too old",
    .handle_out = &cuda_driver_api.library,
};

const accel_cuda_api_t *accel_cuda_driver(char *reason, size_t cap)
{
    return accel_vendor_library_open(&cuda_driver, reason, cap) ? &cuda_driver_api : NULL;
}

static accel_nvml_api_t cuda_nvml_api;
static accel_vendor_library_t cuda_nvml;

/* NVML is optional: why it is not used goes to the debug log, once. */
static void cuda_nvml_say_why(void)
{
    accel_log(ACCEL_LOG_DEBUG, "%s; not using NVML", cuda_nvml.text);
}

static const accel_symbol_t cuda_nvml_symbols[] = {
#define ACCEL_NVML_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(cuda_nvml_api, required, name, export),
#include "backends/cuda/nvml_symbols.h"
#undef ACCEL_NVML_SYMBOL
};

static const char *const cuda_nvml_names[] = {"libnvidia-ml.so.1", "libnvidia-ml.so", NULL};

static accel_vendor_library_t cuda_nvml = {
    .name = "nvml",
    .backend = "cuda",
    .candidates = cuda_nvml_names,
    .symbols = cuda_nvml_symbols,
    .symbol_count = sizeof cuda_nvml_symbols / sizeof cuda_nvml_symbols[0],
    .not_found = "cuda: NVML not loaded",
    .symbols_in = "NVML (libnvidia-ml)",
    .handle_out = &cuda_nvml_api.library,
};

const accel_nvml_api_t *accel_cuda_nvml(void)
{
    static pthread_once_t said = PTHREAD_ONCE_INIT;
    if (accel_vendor_library_open(&cuda_nvml, NULL, 0))
        return &cuda_nvml_api;
    pthread_once(&said, cuda_nvml_say_why);
    return NULL;
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
