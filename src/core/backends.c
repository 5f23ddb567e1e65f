/* backends.c: the backends compiled into this library and the auto-detect
 * order. Adding a backend is one line in each list below (plus its folder and
 * build option). Both tables are constant: safe to read from any thread. */
#include "registry.h"

#ifdef ACCEL_HAVE_BACKEND_CPU
#include "backends/cpu/cpu.h"
#define ACCEL_BUILTIN_CPU accel_cpu_backend_ops
#else
#define ACCEL_BUILTIN_CPU NULL
#endif

#ifdef ACCEL_HAVE_BACKEND_CUDA
#include "backends/cuda/cuda_backend.h"
#define ACCEL_BUILTIN_CUDA accel_cuda_backend_ops
#else
#define ACCEL_BUILTIN_CUDA NULL
#endif

#ifdef ACCEL_HAVE_BACKEND_NPU
#include "backends/npu/npu_backend.h"
#define ACCEL_BUILTIN_NPU accel_npu_backend_ops
#else
#define ACCEL_BUILTIN_NPU NULL
#endif

#ifdef ACCEL_HAVE_BACKEND_OPENCL
#include "backends/opencl/opencl.h"
#define ACCEL_BUILTIN_OPENCL accel_opencl_backend_ops
#else
#define ACCEL_BUILTIN_OPENCL NULL
#endif

/* DeepSpeed's SUPPORTED_ACCELERATOR_LIST order, then ours. This order is the
 * one accel_supported_names() prints. A NULL function means the backend is
 * not built into this library (its folder is missing or its option is off). */
const accel_builtin_backend_t accel_builtin_backends[] = {
    {"cuda", ACCEL_BUILTIN_CUDA, "libcuda.so.1", "NVIDIA driver"},
    {"cpu", ACCEL_BUILTIN_CPU, "libc", "host CPU"},
    {"xpu", NULL, "libze_loader.so.1", "Intel Level Zero"},
    {"npu", ACCEL_BUILTIN_NPU, "libascendcl.so", "Huawei Ascend CANN"},
    {"mps", NULL, "Metal.framework", "Apple Metal, macOS only"},
    {"hpu", NULL, "libSynapse.so", "Habana SynapseAI"},
    {"mlu", NULL, "libcnrt.so", "Cambricon Neuware"},
    {"sdaa", NULL, "libsdaart.so", "Tecorigin SDAA runtime"},
    {"opencl", ACCEL_BUILTIN_OPENCL, "libOpenCL.so.1", "an OpenCL ICD loader and driver"},
};

const size_t accel_builtin_backend_count =
    sizeof accel_builtin_backends / sizeof accel_builtin_backends[0];

/* Auto-detect: first available wins (DESIGN.md §5). "xpu" is skipped while a
 * CUDA device is present (selection.c). "xpu.external" has no builtin: only a
 * registered or plugin backend of that name fills the slot. */
const char *const accel_cascade_order[] = {
    "xpu.external",
    "xpu",
    "npu",
    "sdaa",
    "mps",
    "hpu",
    "mlu",
    "cuda",
    "opencl",
    "cpu",
    NULL,
};
