/* kernels.h: the CUDA backend's run-time compiled programs (kernels.c):
 * NVRTC, compiling a program for a device's architecture through the disk
 * kernel cache, and loading it once per device into a module slot. Below
 * the backend: it includes loader.h and types.h only, and sees a device
 * through accel_cuda_kernel_target_t, never the backend's state.
 * Threads: any thread; a device's modules load under the target's lock. */
#ifndef ACCEL_BACKENDS_CUDA_KERNELS_H
#define ACCEL_BACKENDS_CUDA_KERNELS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "accel/accel_backend.h"
#include "backends/cuda/loader.h"
#include "backends/cuda/types.h"

typedef struct accel_nvrtc_api {
    void *library;
#define ACCEL_NVRTC_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/cuda/nvrtc_symbols.h"
#undef ACCEL_NVRTC_SYMBOL
} accel_nvrtc_api_t;

/* The driver's version (cuDriverGetVersion), so that NVRTC's first load
 * looks for the driver's CUDA major first. Call before the first
 * accel_cuda_nvrtc; any thread. */
void accel_cuda_nvrtc_prefer(int driver_version);

/* NVRTC, loaded on first use; NULL with `reason` when absent. */
const accel_nvrtc_api_t *accel_cuda_nvrtc(char *reason, size_t cap);

/* The programs compiled at run time, each loaded into its own module slot
 * of a device: the Philox fills (kernels.c) and the optimizer ops
 * (fused_optim.c). */
typedef enum accel_cuda_program_id {
    ACCEL_CUDA_PROGRAM_RNG = 0,
    ACCEL_CUDA_PROGRAM_OPTIM = 1,
    ACCEL_CUDA_PROGRAM_COUNT_ = 2
} accel_cuda_program_id_t;

#define ACCEL_CUDA_PROGRAM_MAX_KERNELS 8

/* One program loaded on one device. The load is tried once, under the
 * device's lock; its functions are then published atomically for the
 * lock-free fast path. A failure is remembered (retrying a broken compile
 * on every launch would only repeat it slowly). */
typedef struct accel_cuda_module {
    bool tried;            /* under lock */
    accel_status_t status; /* under lock, valid once tried */
    char error[512];       /* under lock */
    accel_cu_module_t handle;
    _Atomic(accel_cu_function_t) functions[ACCEL_CUDA_PROGRAM_MAX_KERNELS];
} accel_cuda_module_t;

/* CUDA C compiled at run time with NVRTC (--fmad=false). Constant. */
typedef struct accel_cuda_program {
    accel_cuda_program_id_t id; /* its module slot on a device */
    const char *file_name;      /* NVRTC's name for it, "accel_philox.cu"; in the cache key */
    const char *what;           /* "the Philox kernels", for messages */
    const char *source;         /* NUL-terminated; kernels are extern "C" */
    const char *const *kernel_names;
    int kernel_count; /* <= ACCEL_CUDA_PROGRAM_MAX_KERNELS */
} accel_cuda_program_t;

/* One device as the kernels see it, made by the backend for each call
 * (cuda_backend.h, accel_cuda_kernel_target): the facts an image depends on,
 * and the device's module slots with the lock that guards their loading.
 * `lock` and `modules` (ACCEL_CUDA_PROGRAM_COUNT_ slots) belong to the
 * backend's device and outlive the call. */
typedef struct accel_cuda_kernel_target {
    const accel_cuda_api_t *cu;
    int cc_major, cc_minor; /* compute capability */
    int driver_version;     /* cuDriverGetVersion; in the cache key */
    pthread_mutex_t *lock;
    accel_cuda_module_t *modules;
} accel_cuda_kernel_target_t;

/* The Philox fills' program (tests/ and the build-time NVRTC check). */
extern const accel_cuda_program_t accel_cuda_rng_program;

/* Compile `program` for `arch`: "sm_XY" gives a cubin (cubin true), and
 * "compute_XY" PTX. On success *out is a malloc'ed image (PTX
 * NUL-terminated). *out_result is NVRTC's own result of the last call. */
accel_status_t accel_cuda_program_compile(const accel_nvrtc_api_t *nvrtc,
                                          const accel_cuda_program_t *program, const char *arch,
                                          bool cubin, void **out, size_t *out_size,
                                          accel_nvrtc_result_t *out_result);

/* An image of `program` for the target's architecture: from the kernel
 * cache, else compiled (cubin for sm_XY; PTX for compute_XY when NVRTC does
 * not know sm_XY) and cached. Needs no context. */
accel_status_t accel_cuda_target_image(const accel_cuda_kernel_target_t *target,
                                       const accel_cuda_program_t *program, void **out,
                                       size_t *out_size);

/* Kernel `index` of `program` on the target, whose context is current on
 * the calling thread: the module is loaded on first use. Any thread. */
accel_status_t accel_cuda_target_kernel(const accel_cuda_kernel_target_t *target,
                                        const accel_cuda_program_t *program, int index,
                                        accel_cu_function_t *out);

/* Unload the target's modules (its context must be current). */
void accel_cuda_target_unload(const accel_cuda_kernel_target_t *target);

#endif /* ACCEL_BACKENDS_CUDA_KERNELS_H */
