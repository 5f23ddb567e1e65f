/* cuda_backend.h: the CUDA backend (docs/architecture.md, Backends) over the driver API, shared
 * by the files of src/backends/cuda/. Core needs only
 * accel_cuda_backend_ops(); the rest is private to this folder.
 *
 * Runtime libraries: libcuda.so.1 (required), libnvidia-ml.so.1 (optional:
 * counting without a context, free memory) and libnvrtc (optional until the
 * first random fill) are dlopened once per process and never unloaded; there
 * is no link-time dependency on any NVIDIA file.
 *
 * Objects and who owns them:
 * - accel_cuda_backend_t: made by create(), freed by destroy(). Fields above
 *   `devices` are written in create()/init() before any other slot runs and
 *   are read-only afterwards.
 * - accel_cuda_device_t: one per visible device, inside the backend. Its
 *   primary context is retained on first use (any thread) under `lock` and
 *   released by destroy(); run-time compiled modules load under the same lock.
 * - streams and events are the driver's own handles (CUstream, CUevent),
 *   owned by core's accel_stream_t / accel_event_t; graphs are an
 *   accel_cuda_graph_t owned by core's accel_graph_t.
 * Threads: every slot may run on any thread. Before calling the driver a
 * slot makes the device's primary context current on the calling thread
 * (accel_cuda_activate), so no thread needs a prior set_device.
 *
 * Layers (each includes only the ones below it): types.h (vendor types) <-
 * loader.h (libcuda/NVML tables, error text; loader.c) <- kernels.h (NVRTC,
 * run-time compiled programs and their modules; kernels.c) <- this header
 * (the backend's state and slots; backend.c, memory.c, stream.c, rng.c).
 */
#ifndef ACCEL_BACKENDS_CUDA_CUDA_BACKEND_H
#define ACCEL_BACKENDS_CUDA_CUDA_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "accel/accel_backend.h"
#include "accel/accel_backend_utils.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/loader.h"
#include "backends/cuda/types.h"

/* The CUDA backend's ops table (constant, process lifetime). */
const accel_backend_ops_t *accel_cuda_backend_ops(void);

/* ---------------------------------------------------------------- backend state */

typedef struct accel_cuda_device {
    accel_cu_device_t handle; /* cuDeviceGet of the ordinal, set by init() */
    int nvml_index;           /* NVML index of this device, -1 unknown */
    int cc_major, cc_minor;   /* compute capability, set by init() */

    pthread_mutex_t lock;                /* guards the retain and the module loads */
    _Atomic(accel_cu_context_t) context; /* retained primary context, NULL until used */
    accel_cuda_module_t modules[ACCEL_CUDA_PROGRAM_COUNT_];
} accel_cuda_device_t;

typedef struct accel_cuda_backend {
    const accel_cuda_api_t *cu;
    const accel_nvml_api_t *nvml; /* NULL when NVML is absent or failed to start */
    int device_count;
    int driver_version; /* cuDriverGetVersion, set by init() */
    accel_cuda_device_t *devices;
    /* Captures in progress (stream.c): a host callback added meanwhile may
     * be captured and replayed, so its call record is kept until destroy. */
    atomic_int captures;
} accel_cuda_backend_t;

/* Make `device`'s primary context current on the calling thread, retaining
 * it on first use. The driver's own current context is checked first, so
 * contexts made current by other code on this thread are noticed. */
accel_status_t accel_cuda_activate(accel_cuda_backend_t *cuda, int device);

/* ---------------------------------------------------------------- memory.c */

ACCEL_BACKEND_DECLARE_MEMORY_SLOTS(accel_cuda);
ACCEL_BACKEND_DECLARE_PINNED_SLOTS(accel_cuda);
ACCEL_BACKEND_DECLARE_REGISTER_SLOTS(accel_cuda);
accel_status_t accel_cuda_memory_info(void *self, int device, uint64_t *free_bytes,
                                      uint64_t *total_bytes);

/* ---------------------------------------------------------------- stream.c */

accel_status_t accel_cuda_synchronize(void *self, int device);
ACCEL_BACKEND_DECLARE_STREAM_SLOTS(accel_cuda);
/* For a collectives engine (NCCL): the device's primary context made current
 * on the calling thread, and the CUstream itself (NULL: the legacy default
 * stream, which NCCL takes as NULL too). */
accel_status_t accel_cuda_native_stream(void *self, int device, void *stream, void **out);
ACCEL_BACKEND_DECLARE_EVENT_SLOTS(accel_cuda);
ACCEL_BACKEND_DECLARE_GRAPH_SLOTS(accel_cuda);

/* ---------------------------------------------------------------- kernels */

/* How the kernels (kernels.h) see `device`: its facts and module slots.
 * Valid while the backend lives; init() has filled the facts. */
static inline accel_cuda_kernel_target_t accel_cuda_kernel_target(accel_cuda_backend_t *cuda,
                                                                  int device)
{
    accel_cuda_device_t *dev = &cuda->devices[device];
    accel_cuda_kernel_target_t target = {
        .cu = cuda->cu,
        .cc_major = dev->cc_major,
        .cc_minor = dev->cc_minor,
        .driver_version = cuda->driver_version,
        .lock = &dev->lock,
        .modules = dev->modules,
    };
    return target;
}

/* accel_cuda_target_image for `device` (init() has run). Needs no context. */
static inline accel_status_t accel_cuda_program_image(accel_cuda_backend_t *cuda, int device,
                                                      const accel_cuda_program_t *program,
                                                      void **out, size_t *out_size)
{
    accel_cuda_kernel_target_t target = accel_cuda_kernel_target(cuda, device);
    return accel_cuda_target_image(&target, program, out, out_size);
}

/* accel_cuda_target_kernel for `device`, whose context is current. */
static inline accel_status_t accel_cuda_kernel(accel_cuda_backend_t *cuda, int device,
                                               const accel_cuda_program_t *program, int index,
                                               accel_cu_function_t *out)
{
    accel_cuda_kernel_target_t target = accel_cuda_kernel_target(cuda, device);
    return accel_cuda_target_kernel(&target, program, index, out);
}

/* Unload the device's modules (destroy(); its context must be current). */
static inline void accel_cuda_kernels_unload(accel_cuda_backend_t *cuda, int device)
{
    accel_cuda_kernel_target_t target = accel_cuda_kernel_target(cuda, device);
    accel_cuda_target_unload(&target);
}

/* ---------------------------------------------------------------- op builders */

/* ---------------------------------------------------------------- rng.c */

accel_status_t accel_cuda_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                   void *ptr, size_t count, uint64_t seed, uint64_t offset);

#endif /* ACCEL_BACKENDS_CUDA_CUDA_BACKEND_H */
