/* known_backends.c: the backend names accel knows whether or not they are
 * built in: DeepSpeed's accelerator names (plus accel's own "opencl") with
 * the runtime each drives, so "not built" errors can still name it, and the
 * seed's auto-detect order. Which backends ARE built comes from the table
 * cmake generates (cmake/backends.cmake); nothing here names a backend's
 * code. Constant tables; safe to read from any thread. */
#include "registry.h"

/* Apple Metal exists on macOS only: elsewhere mps is reported as such, not as
 * a backend this build left out. */
#if defined(__APPLE__)
#define KNOWN_MPS_ELSEWHERE NULL
#else
#define KNOWN_MPS_ELSEWHERE                                                                        \
    "unavailable: Apple Metal (mps) is macOS only, and this library was built for another system"
#endif

/* DeepSpeed's SUPPORTED_ACCELERATOR_LIST order (0.19.2+, with supa), then
 * accel's own names. This
 * order, followed by built backends not listed here, is the one
 * accel_supported_names() prints. */
const accel_known_backend_t accel_known_backends[] = {
    {"cuda", "libcuda.so.1", "NVIDIA driver", true, NULL},
    {"cpu", "libc", "host CPU", true, NULL},
    {"xpu", "libze_loader.so.1", "Intel Level Zero", true, NULL},
    {"npu", "libascendcl.so", "Huawei Ascend CANN", true, NULL},
    {"mps", "Metal.framework", "Apple Metal, macOS only", true, KNOWN_MPS_ELSEWHERE},
    {"hpu", "libSynapse.so", "Habana SynapseAI", true, NULL},
    {"mlu", "libcnrt.so", "Cambricon Neuware", true, NULL},
    {"sdaa", "libsdaart.so", "Tecorigin SDAA runtime", true, NULL},
    {"supa", "the SUPA runtime behind torch_supa", "Biren SUPA", true, NULL},
    {"opencl", "libOpenCL.so.1", "an OpenCL ICD loader and driver", false, NULL},
};

const size_t accel_known_backend_count =
    sizeof accel_known_backends / sizeof accel_known_backends[0];

/* Auto-detect: first available wins (docs/architecture.md, Selection). "xpu" is skipped while a
 * CUDA device is present (selection.c). "xpu.external" has no builtin: only a
 * registered or plugin backend of that name fills the slot. A built backend
 * missing from this list is never auto-detected, only opened by name.
 * This is the seed's order; DeepSpeed's HEAD (0.18.7+) dropped xpu.external
 * and the no-CUDA rule and probes supa before cuda (docs/parity.md). */
const char *const accel_cascade_order[] = {
    "xpu.external", "xpu", "npu", "sdaa", "mps", "hpu", "mlu", "cuda", "opencl", "cpu", NULL,
};
