/* cuda_backend.h: the CUDA backend (DESIGN.md §6) over the driver API, shared
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
 */
#ifndef ACCEL_BACKENDS_CUDA_CUDA_BACKEND_H
#define ACCEL_BACKENDS_CUDA_CUDA_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "accel/accel_backend.h"
#include "backends/cuda/types.h"

/* The CUDA backend's ops table (constant, process lifetime). */
const accel_backend_ops_t *accel_cuda_backend_ops(void);

/* ---------------------------------------------------------------- vendor tables */

typedef struct accel_cuda_api {
    void *library;
#define ACCEL_CUDA_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/cuda/symbols.h"
#undef ACCEL_CUDA_SYMBOL
} accel_cuda_api_t;

typedef struct accel_nvml_api {
    void *library;
#define ACCEL_NVML_SYMBOL(ret, name, params) ret(*name) params;
#include "backends/cuda/nvml_symbols.h"
#undef ACCEL_NVML_SYMBOL
} accel_nvml_api_t;

typedef struct accel_nvrtc_api {
    void *library;
#define ACCEL_NVRTC_SYMBOL(required, ret, name, params) ret(*name) params;
#include "backends/cuda/nvrtc_symbols.h"
#undef ACCEL_NVRTC_SYMBOL
} accel_nvrtc_api_t;

/* The driver table, loaded once per process; NULL with `reason` (what was
 * tried) when libcuda cannot be loaded or lacks a required symbol. */
const accel_cuda_api_t *accel_cuda_driver(char *reason, size_t cap);
/* NVML, loaded once per process; NULL when absent (not an error). */
const accel_nvml_api_t *accel_cuda_nvml(void);
/* NVRTC, loaded on first use; NULL with `reason` when absent. */
const accel_nvrtc_api_t *accel_cuda_nvrtc(char *reason, size_t cap);

/* ---------------------------------------------------------------- backend state */

/* The programs compiled at run time, each loaded into its own module slot
 * of a device: the Philox fills (kernels.c) and the optimizer ops
 * (src/backends/cuda/fused_optim.c). */
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
} accel_cuda_backend_t;

/* Make `device`'s primary context current on the calling thread, retaining
 * it on first use. The driver's own current context is checked first, so
 * contexts made current by other code on this thread are noticed. */
accel_status_t accel_cuda_activate(accel_cuda_backend_t *cuda, int device);

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

/* ---------------------------------------------------------------- memory.c */

accel_status_t accel_cuda_mem_alloc(void *self, int device, size_t size, void **out);
void accel_cuda_mem_free(void *self, int device, void *ptr);
accel_status_t accel_cuda_memcpy_async(void *self, int device, void *dst, const void *src,
                                       size_t size, accel_copy_kind_t kind, void *stream);
accel_status_t accel_cuda_memset_async(void *self, int device, void *dst, int value, size_t size,
                                       void *stream);
accel_status_t accel_cuda_host_alloc(void *self, size_t size, void **out);
void accel_cuda_host_free(void *self, void *ptr, size_t size);
accel_status_t accel_cuda_host_register(void *self, void *ptr, size_t size);
void accel_cuda_host_unregister(void *self, void *ptr, size_t size);
accel_status_t accel_cuda_memory_info(void *self, int device, uint64_t *free_bytes,
                                      uint64_t *total_bytes);

/* ---------------------------------------------------------------- stream.c */

accel_status_t accel_cuda_synchronize(void *self, int device);
accel_status_t accel_cuda_stream_create(void *self, int device, int priority, void **out);
void accel_cuda_stream_destroy(void *self, int device, void *stream);
accel_status_t accel_cuda_stream_synchronize(void *self, int device, void *stream);
accel_status_t accel_cuda_stream_query(void *self, int device, void *stream);
accel_status_t accel_cuda_stream_wait_event(void *self, int device, void *stream, void *event);
accel_status_t accel_cuda_stream_add_callback(void *self, int device, void *stream,
                                              accel_host_fn_t fn, void *user_data);
accel_status_t accel_cuda_event_create(void *self, int device, unsigned flags, void **out);
void accel_cuda_event_destroy(void *self, int device, void *event);
accel_status_t accel_cuda_event_record(void *self, int device, void *stream, void *event);
accel_status_t accel_cuda_event_synchronize(void *self, int device, void *event);
accel_status_t accel_cuda_event_query(void *self, int device, void *event);
accel_status_t accel_cuda_event_elapsed_ms(void *self, int device, void *start, void *end,
                                           float *out);
accel_status_t accel_cuda_graph_capture_begin(void *self, int device, void *stream);
accel_status_t accel_cuda_graph_capture_end(void *self, int device, void *stream,
                                            void **out_graph);
accel_status_t accel_cuda_graph_launch(void *self, int device, void *stream, void *graph);
void accel_cuda_graph_destroy(void *self, void *graph);

/* ---------------------------------------------------------------- kernels.c */

/* CUDA C compiled at run time with NVRTC (--fmad=false). Constant. */
typedef struct accel_cuda_program {
    accel_cuda_program_id_t id; /* its slot in accel_cuda_device_t.modules */
    const char *file_name;      /* NVRTC's name for it, "accel_philox.cu"; in the cache key */
    const char *what;           /* "the Philox kernels", for messages */
    const char *source;         /* NUL-terminated; kernels are extern "C" */
    const char *const *kernel_names;
    int kernel_count; /* <= ACCEL_CUDA_PROGRAM_MAX_KERNELS */
} accel_cuda_program_t;

/* The Philox fills' program (tests/ and the build-time NVRTC check). */
extern const accel_cuda_program_t accel_cuda_rng_program;

/* Compile `program` for `arch`: "sm_XY" gives a cubin (cubin true), and
 * "compute_XY" PTX. On success *out is a malloc'ed image (PTX
 * NUL-terminated). *out_result is NVRTC's own result of the last call. */
accel_status_t accel_cuda_program_compile(const accel_nvrtc_api_t *nvrtc,
                                          const accel_cuda_program_t *program, const char *arch,
                                          bool cubin, void **out, size_t *out_size,
                                          accel_nvrtc_result_t *out_result);

/* An image of `program` for `device`'s architecture (init() has run): from
 * the kernel cache, else compiled (cubin for sm_XY; PTX for compute_XY when
 * NVRTC does not know sm_XY) and cached. Needs no context. */
accel_status_t accel_cuda_program_image(accel_cuda_backend_t *cuda, int device,
                                        const accel_cuda_program_t *program, void **out,
                                        size_t *out_size);

/* Kernel `index` of `program` on `device`, whose context is current on the
 * calling thread: the module is loaded on first use. Any thread. */
accel_status_t accel_cuda_kernel(accel_cuda_backend_t *cuda, int device,
                                 const accel_cuda_program_t *program, int index,
                                 accel_cu_function_t *out);

accel_status_t accel_cuda_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                   void *ptr, size_t count, uint64_t seed, uint64_t offset);
/* Unload the device's modules (destroy(); its context must be current). */
void accel_cuda_kernels_unload(accel_cuda_backend_t *cuda, int device);

#endif /* ACCEL_BACKENDS_CUDA_CUDA_BACKEND_H */
