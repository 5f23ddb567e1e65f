/* accel_backend.h: the backend contract, what a backend implements.
 *
 * A backend (in-tree under src/backends/<name>/, or a plugin) is one constant
 * accel_backend_ops_t. The table is append-only and versioned like SQLite's
 * VFS: it starts with abi_version and struct_size, new slots are only ever
 * added at the end, and core checks struct_size before touching a slot.
 * A NULL slot marked (optional) means "not supported": core answers
 * ACCEL_ERROR_UNSUPPORTED (or the documented default) and never calls it.
 *
 * Division of labour: core validates every argument, keeps the per-thread
 * current device and stream, the caching allocator, pinned-range registry,
 * RNG state and statistics. A backend only drives its runtime with arguments
 * that core has already checked. Core serialises nothing: every slot may be
 * called from several threads at once and must be thread-safe.
 *
 * Handles: `self` is what create() returned. A backend stream, event or graph
 * is an opaque `void *` of the backend's own; stream NULL means the device's
 * default stream. Devices are always valid indices in [0, device_count).
 *
 * Errors: a slot returns accel_status_t and, on failure, describes it with
 * accel_backend_error() / accel_backend_vendor_error() (core keeps that text as
 * the thread's last error).
 *
 * Plugins: a shared object named libaccel-backend-<anything>.so found on
 * ACCEL_PLUGIN_PATH exports ACCEL_BACKEND_ENTRY_SYMBOL returning its table.
 */
#ifndef ACCEL_ACCEL_BACKEND_H
#define ACCEL_ACCEL_BACKEND_H

#include <accel/accel.h>

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped only when an existing slot changes meaning (never for appended slots). */
#define ACCEL_BACKEND_ABI_VERSION 1u

#define ACCEL_BACKEND_ENTRY_SYMBOL "accel_backend_entry"
typedef const struct accel_backend_ops *(*accel_backend_entry_fn_t)(void);

/* What a probe learned without initialising the runtime. */
typedef struct accel_probe_result {
    size_t struct_size;
    bool available;    /* runtime loaded and at least one device */
    int device_count;  /* -1 unknown */
    char reason[256];  /* why not available, or how it was detected */
    /* Usable when named (ACCEL_ACCELERATOR, accel_open) but never picked by
     * auto-detect: e.g. OpenCL with only a CPU device. */
    bool explicit_only;
} accel_probe_result_t;

/* Static, per-backend facts (DeepSpeed's per-backend constants). */
typedef struct accel_backend_info {
    size_t struct_size;
    const char *communication_backend;     /* NULL where DeepSpeed says None */
    const char *default_compile_backend;   /* "inductor" */
    const char *const *compile_backends;   /* names set_compile_backend accepts */
    size_t compile_backend_count;
    const char *const *visible_devices_envs;
    size_t visible_devices_env_count;
    const char *const *export_envs;
    size_t export_env_count;
    int32_t dlpack_device_type;            /* kDLCPU, kDLCUDA, ... */
    bool device_name_ignores_index;        /* cpu, hpu */
    bool synchronized_device;
    bool use_host_timers;
    bool resolves_data_dependency;
    bool handles_memory_backpressure;
    bool nvtx_domain_supported;
    bool lazy_call_runs_immediately;       /* cpu, hpu */
    const char *runtime_library;           /* "libcuda.so.1", for messages */
    const char *vendor_stack;              /* "NVIDIA driver", for messages */
    /* Threads start on device LOCAL_RANK (DeepSpeed's cpu current_device)
     * instead of device 0. */
    bool current_device_from_local_rank;
} accel_backend_info_t;

typedef enum accel_rng_kind {
    ACCEL_RNG_U32 = 0,     /* 1 word per element */
    ACCEL_RNG_UNIFORM = 1, /* 1 word per element */
    ACCEL_RNG_NORMAL = 2,  /* 2 words per element */
} accel_rng_kind_t;

/* One op builder of a backend. */
typedef struct accel_op_builder_desc {
    size_t struct_size;
    const char *class_name; /* "CPUAdamBuilder" */
    const char *op_name;    /* "cpu_adam" */
    /* true if it can build and run here; else writes why into reason. */
    bool (*is_compatible)(void *self, char *reason, size_t reason_cap);
    /* Build/load and return the op's function table (stable for the process). */
    accel_status_t (*load)(void *self, const void **out);
} accel_op_builder_desc_t;

typedef struct accel_backend_ops {
    uint32_t abi_version; /* ACCEL_BACKEND_ABI_VERSION */
    size_t struct_size;   /* sizeof(accel_backend_ops_t) as the backend saw it */
    const char *name;     /* "cuda", "xpu.external", ... */
    const accel_backend_info_t *info;

    /* ---- lifecycle (required) */
    /* Look for the runtime and count devices WITHOUT creating a context. */
    void (*probe)(accel_probe_result_t *out);
    /* Load the runtime library and make backend state; no context yet. */
    accel_status_t (*create)(void **out_self);
    void (*destroy)(void *self);
    /* Initialise the runtime (contexts...). Called once by core, lazily. */
    accel_status_t (*init)(void *self);

    /* ---- devices */
    accel_status_t (*device_count)(void *self, int *out); /* required; no init needed */
    accel_status_t (*device_properties)(void *self, int device,
                                        accel_device_properties_t *out); /* optional */
    /* Bind the calling thread to `device` (cuCtxSetCurrent). (optional) */
    accel_status_t (*set_device)(void *self, int device);
    accel_status_t (*synchronize)(void *self, int device); /* required */
    /* free/total bytes as the runtime sees them. (optional) */
    accel_status_t (*memory_info)(void *self, int device, uint64_t *free_bytes,
                                  uint64_t *total_bytes);
    /* Dynamic flags (bf16, fp16, triton, graphs...); return UNSUPPORTED for a
     * flag it does not decide, and core answers from info. (optional) */
    accel_status_t (*query_flag)(void *self, int device, accel_flag_t flag, bool *out);
    /* DeepSpeed's supported_dtypes order for `device`. (required) */
    accel_status_t (*supported_dtypes)(void *self, int device, accel_dtype_t *out, size_t cap,
                                       size_t *out_count);

    /* ---- raw device memory (required); core's caching allocator sits on top */
    accel_status_t (*mem_alloc)(void *self, int device, size_t size, void **out);
    void (*mem_free)(void *self, int device, void *ptr);

    /* ---- copies and fills, ordered on a stream (required) */
    accel_status_t (*memcpy_async)(void *self, int device, void *dst, const void *src,
                                   size_t size, accel_copy_kind_t kind, void *stream);
    accel_status_t (*memset_async)(void *self, int device, void *dst, int value, size_t size,
                                   void *stream);

    /* ---- pinned host memory (optional as a group) */
    accel_status_t (*host_alloc)(void *self, size_t size, void **out);
    void (*host_free)(void *self, void *ptr, size_t size);
    accel_status_t (*host_register)(void *self, void *ptr, size_t size);
    void (*host_unregister)(void *self, void *ptr, size_t size);

    /* ---- streams (optional as a group; NULL = only the default stream) */
    accel_status_t (*stream_create)(void *self, int device, int priority, void **out);
    void (*stream_destroy)(void *self, int device, void *stream);
    accel_status_t (*stream_synchronize)(void *self, int device, void *stream);
    accel_status_t (*stream_query)(void *self, int device, void *stream); /* OK / NOT_READY */
    accel_status_t (*stream_wait_event)(void *self, int device, void *stream, void *event);
    accel_status_t (*stream_add_callback)(void *self, int device, void *stream,
                                          accel_host_fn_t fn, void *user_data);

    /* ---- events (optional as a group) */
    accel_status_t (*event_create)(void *self, int device, unsigned flags, void **out);
    void (*event_destroy)(void *self, int device, void *event);
    accel_status_t (*event_record)(void *self, int device, void *event, void *stream);
    accel_status_t (*event_synchronize)(void *self, int device, void *event);
    accel_status_t (*event_query)(void *self, int device, void *event); /* OK / NOT_READY */
    accel_status_t (*event_elapsed_ms)(void *self, int device, void *start, void *end,
                                       float *out);

    /* ---- graphs (optional as a group) */
    accel_status_t (*graph_capture_begin)(void *self, int device, void *stream);
    accel_status_t (*graph_capture_end)(void *self, int device, void *stream, void **out_graph);
    accel_status_t (*graph_launch)(void *self, int device, void *graph, void *stream);
    void (*graph_destroy)(void *self, void *graph);

    /* ---- random numbers (required): fill `count` elements at `ptr` from the
     * Philox stream (seed, offset) as DESIGN.md §4 defines. */
    accel_status_t (*rng_fill)(void *self, int device, void *stream, accel_rng_kind_t kind,
                               void *ptr, size_t count, uint64_t seed, uint64_t offset);

    /* ---- profiling (optional): vendor profiler ranges */
    void (*range_push)(void *self, const char *msg, const char *domain, const char *category);
    void (*range_pop)(void *self, const char *domain);

    /* ---- op builders (optional): the backend's builder table */
    const accel_op_builder_desc_t *(*op_builders)(void *self, size_t *out_count);
} accel_backend_ops_t;

/* True when the table is long enough to hold `member` and the slot is set. */
#define ACCEL_BACKEND_HAS(ops, member)                                                 \
    ((ops)->struct_size >= offsetof(accel_backend_ops_t, member) + sizeof((ops)->member) && \
     (ops)->member != NULL)

/* ---- services core offers backends (exported by libaccel) */

/* Set the thread's last error; returns `status` so a slot can `return` it. */
ACCEL_API accel_status_t accel_backend_error(accel_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A vendor runtime failure: DEVICE_ERROR with the vendor's code kept. */
ACCEL_API accel_status_t accel_backend_vendor_error(int64_t vendor_code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

typedef enum accel_log_level {
    ACCEL_LOG_ERROR = 0,
    ACCEL_LOG_WARN = 1,
    ACCEL_LOG_INFO = 2,
    ACCEL_LOG_DEBUG = 3,
} accel_log_level_t;

/* The library's logger (ACCEL_LOG=error|warn|info|debug, default warn; stderr). */
ACCEL_API void accel_log(accel_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
ACCEL_API bool accel_log_enabled(accel_log_level_t level);

/* dlopen a vendor runtime: ACCEL_<NAME>_LIBRARY first, then each of the
 * NULL-terminated `candidates` (sonames or paths). On failure returns NULL and
 * writes the list of what was tried into `tried`. RTLD_NOW | RTLD_LOCAL. */
ACCEL_API void *accel_backend_load_library(const char *backend_name,
                                           const char *const *candidates, char *tried,
                                           size_t tried_cap);

/* The trace recorder (accel_trace_start, ACCEL_TRACE). accel_trace_enabled is
 * cheap (one relaxed load) and says whether work should be timed at all.
 * accel_trace_stream_work puts one executed work item on the track of the
 * stream identified by `stream_key` (any pointer unique to a live stream, e.g.
 * the backend's stream object; the track is named "stream N (device D)"), or,
 * with stream_key NULL, on the calling thread's track (inline default-stream
 * work). begin_ns/end_ns are CLOCK_MONOTONIC nanoseconds. Any thread. */
ACCEL_API bool accel_trace_enabled(void);
ACCEL_API void accel_trace_stream_work(const void *stream_key, int device, const char *name,
                                       uint64_t begin_ns, uint64_t end_ns);

#ifdef __cplusplus
}
#endif

#endif /* ACCEL_ACCEL_BACKEND_H */
