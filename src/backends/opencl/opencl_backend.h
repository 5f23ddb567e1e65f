/* opencl_backend.h: the OpenCL backend, any OpenCL 1.2+ device reached through the
 * ICD loader (docs/architecture.md, Backends). Core needs only accel_opencl_backend_ops();
 * everything below is shared between the files of src/backends/opencl/.
 *
 * Objects and who owns them:
 * - accel_cl_api_t: the loader's function table, loaded once per process and
 *   never unloaded (ICDs keep threads of their own); read-only once loaded.
 * - accel_opencl_backend_t: made by create(), freed by destroy(). `devices`
 *   is the flattened platform x device list, fixed at create(). Each device's
 *   context, default queue and kernels are made by init() and read-only
 *   afterwards; `kernel_lock` serialises setting kernel arguments + enqueue.
 * - Device memory: one cl_mem per mem_alloc, handed out as the start of a
 *   reserved (PROT_NONE) host address range of the same size, so interior
 *   pointers work; `buffers` maps addresses back to (cl_mem, offset).
 *   Pinned host memory (host_alloc / host_register) is kept in `pinned`.
 * - accel_opencl_stream_t / accel_opencl_event_t: owned by core's handles.
 * Threads: every slot is thread-safe. OpenCL calls are thread-safe except
 * clSetKernelArg on one kernel, hence kernel_lock. Lock order: streams_lock,
 * then an event's lock; the range maps' locks are leaves.
 */
#ifndef ACCEL_BACKENDS_OPENCL_OPENCL_BACKEND_H
#define ACCEL_BACKENDS_OPENCL_OPENCL_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "accel/accel_backend.h"
#include "accel/accel_backend_utils.h"
#include "backends/opencl/cl_types.h"

/* The OpenCL backend's ops table (constant, process lifetime). */
const accel_backend_ops_t *accel_opencl_backend_ops(void);

/* ---------------------------------------------------------------- loader (loader.c) */

typedef struct accel_cl_api {
    void *library;
#define ACCEL_CL_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/opencl/symbols.h"
#undef ACCEL_CL_SYMBOL
} accel_cl_api_t;

/* The loaded loader, or NULL with the reason in `reason` (why it failed
 * stays the same for the process). Thread-safe. */
const accel_cl_api_t *accel_opencl_api(char *reason, size_t cap);

/* The fork rule (torch's for CUDA): once the loader is loaded, a forked
 * child gets this sentence (UNAVAILABLE) from every slot that would reach the
 * OpenCL runtime, at once, and the slots that return nothing do nothing; the
 * runtime's threads and locks did not survive the fork. */
#define ACCEL_OPENCL_FORK_SENTENCE                                                                 \
    "opencl: the opencl runtime was initialised before fork(); a forked child cannot use "         \
    "it: initialise accel after fork or use spawn"
/* true in a child forked after the loader was loaded (pthread_atfork). */
bool accel_opencl_forked(void);
/* Sets the fork sentence as the error; returns UNAVAILABLE. */
accel_status_t accel_opencl_fork_refuse(void);
/* First line of every slot that reaches the runtime. */
#define ACCEL_OPENCL_FORK_GUARD()                                                                  \
    do {                                                                                           \
        if (accel_opencl_forked())                                                                 \
            return accel_opencl_fork_refuse();                                                     \
    } while (0)
/* The same for slots that return nothing: do nothing. */
#define ACCEL_OPENCL_FORK_GUARD_VOID()                                                             \
    do {                                                                                           \
        if (accel_opencl_forked())                                                                 \
            return;                                                                                \
    } while (0)

/* "CL_INVALID_VALUE" for a status code; "CL_UNKNOWN_ERROR" when unknown. */
const char *accel_opencl_error_name(accel_cl_int code);

/* DEVICE_ERROR (OUT_OF_MEMORY for allocation failures) naming the failed
 * call and the CL error name and number: "opencl: clFinish failed:
 * CL_OUT_OF_RESOURCES (-5)". */
accel_status_t accel_opencl_fail(const char *call, accel_cl_int code);

/* One device of the flattened list, as enumeration found it. */
typedef struct accel_opencl_found {
    accel_cl_platform_id platform;
    accel_cl_device_id id;
    accel_cl_device_type type;
    char name[256];
} accel_opencl_found_t;

/* Every device of every platform, platform order then device order, then
 * filtered by ACCEL_OPENCL_VISIBLE_DEVICES. *out is malloc'ed (free it);
 * `reason` says what went wrong or how many were hidden. Creates no context. */
accel_status_t accel_opencl_enumerate(const accel_cl_api_t *api, accel_opencl_found_t **out,
                                      int *out_count, char *reason, size_t cap);

/* ---------------------------------------------------------------- backend state */

typedef struct accel_opencl_stream accel_opencl_stream_t;

/* The programs a device builds at run time, each in its own slot of the
 * device: the Philox fills (kernels.c) and the optimizer ops
 * (src/backends/opencl/fused_optim.c). */
typedef enum accel_opencl_program_id {
    ACCEL_OPENCL_PROGRAM_RNG = 0,
    ACCEL_OPENCL_PROGRAM_OPTIM = 1,
    ACCEL_OPENCL_PROGRAM_COUNT_ = 2
} accel_opencl_program_id_t;

#define ACCEL_OPENCL_PROGRAM_MAX_KERNELS 8

/* A program built for one device and its kernels (NULL until built). */
typedef struct accel_opencl_program {
    accel_cl_program handle;
    accel_cl_kernel kernels[ACCEL_OPENCL_PROGRAM_MAX_KERNELS];
} accel_opencl_program_t;

/* An in-order command queue and the event of the last command queued on it
 * (`tail`), which stream_query checks: in an in-order queue everything
 * before it has finished once it has. `lock` is held from an enqueue to the
 * tail update, so the tail is always the newest command. */
typedef struct accel_opencl_queue {
    accel_cl_command_queue handle;
    pthread_mutex_t lock;
    accel_cl_event tail; /* NULL until the first command */
} accel_opencl_queue_t;

typedef struct accel_opencl_device {
    accel_cl_platform_id platform;
    accel_cl_device_id id;
    accel_cl_device_type type;
    char name[256];
    char vendor[64];
    char driver_version[64];
    char device_version[128];           /* "OpenCL 3.0 PoCL ..." */
    char platform_version[128];         /* "OpenCL 3.0 PoCL 3.1 ..." */
    int version_major, version_minor;   /* of the device */
    int platform_major, platform_minor; /* of the platform */
    uint64_t global_mem_size;
    uint64_t max_alloc_size;
    int compute_units;
    bool fp16, fp64;
    bool compiler_available;         /* CL_DEVICE_COMPILER_AVAILABLE */
    bool correctly_rounded_div_sqrt; /* CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT (float) */

    /* made by init() */
    accel_cl_context context;
    accel_opencl_queue_t default_queue; /* the default stream (NULL) */
    /* Built on first use under kernel_lock (kernels.c). */
    accel_opencl_program_t programs[ACCEL_OPENCL_PROGRAM_COUNT_];
    pthread_mutex_t kernel_lock;

    atomic_uint_fast64_t allocated; /* bytes of live mem_alloc buffers */
} accel_opencl_device_t;

/* A range and the cl_mem behind it, as memory.c hands it around (a copy). */
typedef struct accel_opencl_range {
    uintptr_t base;
    size_t size;
    accel_cl_mem mem;
    int device;
} accel_opencl_range_t;

/* Address ranges -> cl_mem: core's accel_range_map_t (payload: mem and
 * device) behind its own mutex, a leaf lock. */
typedef struct accel_opencl_range_map {
    pthread_mutex_t lock; /* guards `ranges` */
    accel_range_map_t ranges;
} accel_opencl_range_map_t;

typedef struct accel_opencl_backend {
    const accel_cl_api_t *api;
    int device_count;
    accel_opencl_device_t *devices;
    bool initialized;
    long page_size;

    accel_opencl_range_map_t buffers; /* device memory */
    accel_opencl_range_map_t pinned;  /* host_alloc and host_register ranges */
    /* Made by init() on device 0: maps and unmaps pinned buffers, so that
     * pinning never waits behind user work on the default queue. */
    accel_cl_command_queue pin_queue;

    pthread_mutex_t streams_lock;   /* guards `streams` */
    accel_opencl_stream_t *streams; /* live created streams, every device */
} accel_opencl_backend_t;

/* ---------------------------------------------------------------- memory (memory.c) */

void accel_opencl_range_map_init(accel_opencl_range_map_t *map);
void accel_opencl_range_map_destroy(accel_opencl_range_map_t *map);
/* The range holding [ptr, ptr + size); false when none does. */
bool accel_opencl_range_find(accel_opencl_range_map_t *map, const void *ptr, size_t size,
                             accel_opencl_range_t *out);

ACCEL_BACKEND_DECLARE_MEMORY_SLOTS(accel_opencl);
ACCEL_BACKEND_DECLARE_PINNED_SLOTS(accel_opencl);
ACCEL_BACKEND_DECLARE_REGISTER_SLOTS(accel_opencl);
/* Release what the memory files hold at destroy (pinned ranges left by a
 * careless program; device buffers are released by core's allocator). */
void accel_opencl_memory_release_all(accel_opencl_backend_t *cl);

/* Device memory at `ptr` (checked by core) as buffer + byte offset. */
accel_status_t accel_opencl_resolve(accel_opencl_backend_t *cl, int device, const void *ptr,
                                    size_t size, accel_cl_mem *out_mem, size_t *out_offset);

/* ---------------------------------------------------------------- streams and events (stream.c) */

struct accel_opencl_stream {
    int device;
    accel_opencl_queue_t queue;
    accel_opencl_stream_t *next_live; /* backend->streams, under streams_lock */
};

/* Whether the calling thread is running a host callback of `queue` (whose
 * later work waits for the callback: waiting for it there never returns). */
bool accel_opencl_in_callback_of(accel_opencl_backend_t *cl, int device,
                                 const accel_opencl_queue_t *queue);
/* INVALID_ARGUMENT saying that `what` from a host callback would wait for the
 * callback itself. */
accel_status_t accel_opencl_callback_wait_refused(const char *what);

/* An in-order queue with profiling on `dev`. */
accel_status_t accel_opencl_queue_create(accel_opencl_backend_t *cl, accel_opencl_device_t *dev,
                                         accel_cl_command_queue *out);
/* The same, wrapped with its lock and tail; _release waits for its work. */
accel_status_t accel_opencl_queue_init(accel_opencl_backend_t *cl, accel_opencl_device_t *dev,
                                       accel_opencl_queue_t *out);
void accel_opencl_queue_release(accel_opencl_backend_t *cl, accel_opencl_queue_t *queue);
/* The queue behind a backend stream (NULL = the device's default queue). */
accel_opencl_queue_t *accel_opencl_queue_of(accel_opencl_backend_t *cl, int device, void *stream);

/* Every enqueue is: lock queue->lock, call clEnqueue...(..., &event), then
 * accel_opencl_queue_commit, which makes `event` the tail (on success),
 * unlocks, flushes (OpenCL may hold commands until a flush) and, with
 * `wait`, waits for the command. On failure it unlocks and reports `call`
 * with the CL error. */
accel_status_t accel_opencl_queue_commit(accel_opencl_backend_t *cl, accel_opencl_queue_t *queue,
                                         accel_cl_int err, accel_cl_event event, bool wait,
                                         const char *call);

ACCEL_BACKEND_DECLARE_STREAM_SLOTS(accel_opencl);
accel_status_t accel_opencl_device_synchronize(void *self, int device);

ACCEL_BACKEND_DECLARE_EVENT_SLOTS(accel_opencl);

/* ---------------------------------------------------------------- kernels (kernels.c) */

/* Device code built at run time: OpenCL C source, the kernels it defines and
 * its build options. Constant, process lifetime. */
typedef struct accel_opencl_program_source {
    accel_opencl_program_id_t id; /* its slot in accel_opencl_device_t.programs */
    const char *what;             /* "the Philox kernels", for messages */
    const char *text;             /* NUL-terminated OpenCL C */
    const char *const *kernel_names;
    size_t kernel_count; /* <= ACCEL_OPENCL_PROGRAM_MAX_KERNELS */
    /* Writes the clBuildProgram options for `dev` (optional: NULL = none). */
    void (*options)(const accel_opencl_device_t *dev, char *out, size_t cap);
} accel_opencl_program_source_t;

/* Make sure `source` is built for `dev`: from a program binary in the kernel
 * cache when one matches (source, options, device, driver), else from source,
 * then cached. Caller holds dev->kernel_lock; the device is initialised. */
accel_status_t accel_opencl_program_ensure(accel_opencl_backend_t *cl, accel_opencl_device_t *dev,
                                           const accel_opencl_program_source_t *source);

/* One kernel argument: clSetKernelArg(kernel, index, size, value). */
typedef struct accel_opencl_arg {
    size_t size;
    const void *value;
} accel_opencl_arg_t;

/* Queue kernel `kernel` of `source` on `stream` (a backend stream, NULL = the
 * default queue) of `device` over `items` work-items (local size left to the
 * driver), building the program on first use. Arguments are set and the
 * kernel enqueued under the device's kernel_lock. Returns once queued. */
accel_status_t accel_opencl_launch(accel_opencl_backend_t *cl, int device, void *stream,
                                   const accel_opencl_program_source_t *source, size_t kernel,
                                   const accel_opencl_arg_t *args, size_t arg_count, size_t items);

/* Release a device's programs and kernels (destroy()). */
void accel_opencl_kernels_release(accel_opencl_backend_t *cl, accel_opencl_device_t *dev);

accel_status_t accel_opencl_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                     void *ptr, size_t count, uint64_t seed, uint64_t offset);

#endif /* ACCEL_BACKENDS_OPENCL_OPENCL_BACKEND_H */
