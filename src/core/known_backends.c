/* known_backends.c: the backend names accel knows whether or not they are
 * built in: DeepSpeed's accelerator names (plus accel's own "opencl") with
 * the runtime each drives, so "not built" errors can still name it, and the
 * seed's auto-detect order. Which backends ARE built comes from the table
 * cmake generates (cmake/backends.cmake); nothing here names a backend's
 * code. Constant tables; safe to read from any thread. */
#include "registry.h"

/* DeepSpeed's SUPPORTED_ACCELERATOR_LIST order (0.19.2+, with supa), then
 * accel's own names. This
 * order, followed by built backends not listed here, is the one
 * accel_supported_names() prints. */
const accel_known_backend_t accel_known_backends[] = {
    {"cuda", "libcuda.so.1", "NVIDIA driver", true},
    {"cpu", "libc", "host CPU", true},
    {"xpu", "libze_loader.so.1", "Intel Level Zero", true},
    {"npu", "libascendcl.so", "Huawei Ascend CANN", true},
    {"mps", "Metal.framework", "Apple Metal, macOS only", true},
    {"hpu", "libSynapse.so", "Habana SynapseAI", true},
    {"mlu", "libcnrt.so", "Cambricon Neuware", true},
    {"sdaa", "libsdaart.so", "Tecorigin SDAA runtime", true},
    {"supa", "the SUPA runtime behind torch_supa", "Biren SUPA", true},
    {"opencl", "libOpenCL.so.1", "an OpenCL ICD loader and driver", false},
};

const size_t accel_known_backend_count =
    sizeof accel_known_backends / sizeof accel_known_backends[0];

/* Auto-detect: first available wins (DESIGN.md §5). "xpu" is skipped while a
 * CUDA device is present (selection.c). "xpu.external" has no builtin: only a
 * registered or plugin backend of that name fills the slot. A built backend
 * missing from this list is never auto-detected, only opened by name.
 * This is the seed's order; DeepSpeed's HEAD (0.18.7+) dropped xpu.external
 * and the no-CUDA rule and probes supa before cuda (docs/parity.md). */
const char *const accel_cascade_order[] = {
    "xpu.external", "xpu", "npu", "sdaa", "mps", "hpu", "mlu", "cuda", "opencl", "cpu", NULL,
};
