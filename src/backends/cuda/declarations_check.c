/* declarations_check.c: the cuda backend's own CUDA declarations (types.h,
 * symbols.h, nvrtc_symbols.h, nvml_symbols.h) compared with the real vendor
 * headers. Built only when cuda.h and nvrtc.h are found; building it is the
 * check (ctest cuda.declarations runs the trivial result). Every mismatch is
 * a compile error: a static assertion per constant, type and size, and per
 * symbol both a type comparison and an assignment of the real function (as
 * the header spells it, versioned by its macros) to our pointer type under
 * -Werror=incompatible-pointer-types. Nothing here is ever called or linked. */
#include <stdio.h>

#include <cuda.h>
#include <nvrtc.h>
#if defined(__has_include)
#if __has_include(<nvml.h>)
#include <nvml.h>
#define ACCEL_CHECK_NVML 1
#endif
#endif

#include "backends/cuda/types.h"
#include "backends/declarations_check.h"

/* ---------------------------------------------------------------- types and sizes */

_Static_assert(SAME_TYPE(CUresult, accel_cu_result_t), "CUresult");
_Static_assert(sizeof(CUresult) == sizeof(accel_cu_result_t), "sizeof CUresult");
_Static_assert(SAME_TYPE(CUdevice, accel_cu_device_t), "CUdevice");
_Static_assert(SAME_TYPE(CUdeviceptr, accel_cu_deviceptr_t), "CUdeviceptr");
_Static_assert(sizeof(CUdeviceptr) == 8, "CUdeviceptr is 64-bit");
_Static_assert(SAME_TYPE(CUcontext, accel_cu_context_t), "CUcontext");
_Static_assert(SAME_TYPE(CUstream, accel_cu_stream_t), "CUstream");
_Static_assert(SAME_TYPE(CUevent, accel_cu_event_t), "CUevent");
_Static_assert(SAME_TYPE(CUmodule, accel_cu_module_t), "CUmodule");
_Static_assert(SAME_TYPE(CUfunction, accel_cu_function_t), "CUfunction");
_Static_assert(SAME_TYPE(CUgraph, accel_cu_graph_t), "CUgraph");
_Static_assert(SAME_TYPE(CUgraphExec, accel_cu_graph_exec_t), "CUgraphExec");
_Static_assert(SAME_TYPE(CUhostFn, accel_cu_host_fn_t), "CUhostFn");
_Static_assert(SAME_TYPE(CUdevice_attribute, accel_cu_device_attribute_t), "CUdevice_attribute");
_Static_assert(SAME_TYPE(CUstreamCaptureMode, accel_cu_capture_mode_t), "CUstreamCaptureMode");
_Static_assert(SAME_TYPE(CUuuid, accel_cu_uuid_t), "CUuuid");
_Static_assert(sizeof(CUuuid) == 16, "sizeof CUuuid");
_Static_assert(SAME_TYPE(nvrtcResult, accel_nvrtc_result_t), "nvrtcResult");
_Static_assert(SAME_TYPE(nvrtcProgram, accel_nvrtc_program_t), "nvrtcProgram");

/* ---------------------------------------------------------------- constants */

SAME_VALUE(CUDA_SUCCESS, ACCEL_CUDA_SUCCESS);
SAME_VALUE(CUDA_ERROR_OUT_OF_MEMORY, ACCEL_CUDA_ERROR_OUT_OF_MEMORY);
SAME_VALUE(CUDA_ERROR_NOT_INITIALIZED, ACCEL_CUDA_ERROR_NOT_INITIALIZED);
SAME_VALUE(CUDA_ERROR_STUB_LIBRARY, ACCEL_CUDA_ERROR_STUB_LIBRARY);
SAME_VALUE(CUDA_ERROR_NO_DEVICE, ACCEL_CUDA_ERROR_NO_DEVICE);
SAME_VALUE(CUDA_ERROR_NOT_READY, ACCEL_CUDA_ERROR_NOT_READY);
SAME_VALUE(CUDA_ERROR_NOT_SUPPORTED, ACCEL_CUDA_ERROR_NOT_SUPPORTED);
SAME_VALUE(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, ACCEL_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
           ACCEL_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, ACCEL_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
           ACCEL_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
           ACCEL_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
SAME_VALUE(CU_STREAM_NON_BLOCKING, ACCEL_CU_STREAM_NON_BLOCKING);
SAME_VALUE(CU_EVENT_DEFAULT, ACCEL_CU_EVENT_DEFAULT);
SAME_VALUE(CU_EVENT_DISABLE_TIMING, ACCEL_CU_EVENT_DISABLE_TIMING);
SAME_VALUE(CU_MEMHOSTALLOC_PORTABLE, ACCEL_CU_MEMHOSTALLOC_PORTABLE);
SAME_VALUE(CU_MEMHOSTREGISTER_PORTABLE, ACCEL_CU_MEMHOSTREGISTER_PORTABLE);
SAME_VALUE(CU_STREAM_CAPTURE_MODE_RELAXED, ACCEL_CU_STREAM_CAPTURE_MODE_RELAXED);
SAME_VALUE(NVRTC_SUCCESS, ACCEL_NVRTC_SUCCESS);
SAME_VALUE(NVRTC_ERROR_INVALID_OPTION, 5); /* kernels.c's PTX fallback test */

/* ---------------------------------------------------------------- functions */

#define ACCEL_CUDA_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_DECLARATION_SYMBOL(ret, name, params)
#define ACCEL_DECLARATIONS_LIST   "backends/cuda/symbols.h"
#define ACCEL_DECLARATIONS_HEADER "cuda.h"
#include "backends/declarations_check_symbols.h"
#undef ACCEL_CUDA_SYMBOL

#define ACCEL_NVRTC_SYMBOL(required, ret, name, params, export)                                    \
    ACCEL_DECLARATION_SYMBOL(ret, name, params)
#define ACCEL_DECLARATIONS_LIST   "backends/cuda/nvrtc_symbols.h"
#define ACCEL_DECLARATIONS_HEADER "nvrtc.h"
#include "backends/declarations_check_symbols.h"
#undef ACCEL_NVRTC_SYMBOL

#ifdef ACCEL_CHECK_NVML
_Static_assert(SAME_TYPE(nvmlReturn_t, accel_nvml_return_t), "nvmlReturn_t");
_Static_assert(SAME_TYPE(nvmlDevice_t, accel_nvml_device_t), "nvmlDevice_t");
_Static_assert(SAME_TYPE(nvmlMemory_t, accel_nvml_memory_t), "nvmlMemory_t");
#define ACCEL_NVML_SYMBOL(required, ret, name, params, export)                                     \
    _Static_assert(SAME_TYPE(__typeof__(&name), ret(*) params), #name " differs from nvml.h");
#include "backends/cuda/nvml_symbols.h"
#undef ACCEL_NVML_SYMBOL
#endif

int main(void)
{
    printf("cuda declarations match cuda.h (CUDA_VERSION %d) and nvrtc.h%s\n", CUDA_VERSION,
#ifdef ACCEL_CHECK_NVML
           " and nvml.h"
#else
           " (nvml.h not found: NVML declarations unchecked)"
#endif
    );
    return 0;
}
