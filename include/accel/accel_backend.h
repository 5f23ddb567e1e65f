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
 * Argument order: (self, device, ...); a slot that takes a stream and another
 * handle (event_record, stream_wait_event, graph_launch) takes the stream
 * first; copies, fills and rng_fill name their stream as the vendor APIs do.
 *
 * Groups: streams (create, destroy, synchronize, query), events (create,
 * destroy, record, synchronize, query), graphs (all four), pinned allocation
 * (host_alloc + host_free), registration (host_register + host_unregister)
 * and profiling (range_push + range_pop) are all-or-nothing: registration
 * refuses a table that fills only part of a group. stream_wait_event needs
 * the events group; stream_add_callback and event_elapsed_ms are optional
 * on their own.
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

/* Bumped only when an existing slot changes meaning (never for appended slots).
 * Version 2: event_record takes (stream, event) like stream_wait_event, and
 * the fused_optim slot was appended. Tables of version 1 are refused. */
#define ACCEL_BACKEND_ABI_VERSION 2u

#define ACCEL_BACKEND_ENTRY_SYMBOL "accel_backend_entry"
typedef const struct accel_backend_ops *(*accel_backend_entry_fn_t)(void);

/* What a probe learned without initialising the runtime. */
typedef struct accel_probe_result {
    size_t struct_size;
    bool available;   /* runtime loaded; with device_count 0 the backend
                         still opens when named (core then calls no slot
                         that needs a device) but auto-detect skips it */
    int device_count; /* -1 unknown */
    char reason[256]; /* why not available, or how it was detected */
    /* Usable when named (ACCEL_ACCELERATOR, accel_open) but never picked by
     * auto-detect: e.g. OpenCL with only a CPU device. */
    bool explicit_only;
    /* (in) Set by core when only auto-detect's answer matters (accel_get's
     * walk of the cascade): the probe may then report "not usable" from
     * cheap evidence (no device node, no driver file) without loading its
     * runtime. accel_detect and named selection leave it false and get the
     * full answer. A probe that ignores it is always right. */
    bool auto_detect_only;
} accel_probe_result_t;

/* Static, per-backend facts (DeepSpeed's per-backend constants). */
typedef struct accel_backend_info {
    size_t struct_size;
    const char *communication_backend;   /* NULL where DeepSpeed says None */
    const char *default_compile_backend; /* "inductor" */
    const char *const *compile_backends; /* names set_compile_backend accepts */
    size_t compile_backend_count;
    const char *const *visible_devices_envs;
    size_t visible_devices_env_count;
    const char *const *export_envs;
    size_t export_env_count;
    int32_t dlpack_device_type;     /* kDLCPU, kDLCUDA, ... */
    bool device_name_ignores_index; /* cpu, hpu */
    bool synchronized_device;
    bool use_host_timers;
    bool resolves_data_dependency;
    bool handles_memory_backpressure;
    bool nvtx_domain_supported;
    bool lazy_call_runs_immediately; /* cpu, hpu */
    const char *runtime_library;     /* "libcuda.so.1", for messages */
    const char *vendor_stack;        /* "NVIDIA driver", for messages */
    /* Threads start on device LOCAL_RANK (DeepSpeed's cpu current_device)
     * instead of device 0. */
    bool current_device_from_local_rank;
    /* Appended: why the fused device optimizers cannot run here (no kernel
     * compiler...), without the "<name>: " core puts in front. Core then
     * lists FusedAdamBuilder, FusedLionBuilder and FusedLambBuilder as not
     * compatible with this reason (a backend with fused_optim, or whose
     * memory is host memory, gets working ones instead). Read only when
     * struct_size covers it. (optional: NULL lists none) */
    const char *fused_ops_unavailable;
} accel_backend_info_t;

/* info->fused_ops_unavailable, or NULL where the struct predates it. */
#define ACCEL_BACKEND_INFO_FUSED_OPS_UNAVAILABLE(info)                                             \
    ((info)->struct_size >=                                                                        \
             offsetof(accel_backend_info_t, fused_ops_unavailable) + sizeof(const char *)          \
         ? (info)->fused_ops_unavailable                                                           \
         : NULL)

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

/* ---- fused device optimizer kernels (the fused_optim slot)
 *
 * Core owns FusedAdamBuilder, FusedLionBuilder and FusedLambBuilder for
 * every backend that fills this slot: it validates the step's tensors and hyper-parameters,
 * resolves the stream, initialises the backend, computes the per-step
 * scalars and only then calls a kernel slot with a checked launch. */

/* Adam's per-step scalars, computed by core in double and rounded to f32:
 * every backend applies exactly these (the host kernels included). */
typedef struct accel_adam_coeffs {
    float beta1, one_minus_beta1;
    float beta2, one_minus_beta2;
    float eps;
    float step_size;       /* -lr / bc1 */
    float bc2;             /* 1 / sqrt(1 - beta2^t), or 1 */
    float l2_decay;        /* weight_decay when L2 mode (added to g), else 0 */
    float decoupled_decay; /* -lr * weight_decay when AdamW mode, else 0 */
} accel_adam_coeffs_t;

/* Lion's per-step scalars. */
typedef struct accel_lion_coeffs {
    float beta1, one_minus_beta1;
    float beta2, one_minus_beta2;
    float step_size;   /* -lr */
    float after_decay; /* 1 - lr * weight_decay */
    int has_decay;     /* weight_decay > 0 */
} accel_lion_coeffs_t;

/* LAMB's per-step scalars (DeepSpeed's fused_lamb). */
typedef struct accel_lamb_coeffs {
    float beta1, one_minus_beta1;
    float beta2, one_minus_beta2;
    float eps;
    int eps_inside_sqrt; /* 1: sqrt(v + eps); 0: sqrt(v) + eps */
    float grad_scale;    /* g is divided by it */
    float weight_decay;
    float step_size; /* lr * sqrt(1 - beta2^t) / (1 - beta1^t), or lr */
    float max_coeff, min_coeff;
} accel_lamb_coeffs_t;

/* LAMB needs two norms per tensor (of p and of the update). Every kernel
 * (host and device) reduces them in the same order so that results agree
 * bit for bit: the squares are accumulated with fma in f32 over segments of
 * ACCEL_LAMB_SEGMENT elements, element order, one partial per segment; the
 * partials are then summed (plain f32 adds, in order) in groups of
 * ACCEL_LAMB_SEGMENT, level after level, until one sum is left. */
#define ACCEL_LAMB_SEGMENT 1024u

/* One validated step as a kernel slot receives it. Every pointer is device
 * memory of `device` (byte_offset applied), aligned to its element size, and
 * the tensors do not overlap; count > 0. Borrowed for the call only. */
typedef struct accel_optim_launch {
    size_t struct_size;
    int device;
    void *stream; /* backend stream; NULL = the device's default stream */
    void *param;
    const void *grad; /* param_dtype */
    void *state1;     /* exp_avg */
    void *state2;     /* exp_avg_sq; NULL for one-state optimizers (Lion) */
    uint64_t count;
    accel_dtype_t param_dtype;
    accel_dtype_t state_dtype; /* (param, state): f32/f32 f16/f32 bf16/f32 f16/f16 bf16/bf16 */
} accel_optim_launch_t;

typedef struct accel_fused_optim_ops {
    size_t struct_size;
    /* Can the kernels run here (a compiler present, devices usable)? If not,
     * write why into reason. Called before init. (required) */
    bool (*is_compatible)(void *self, char *reason, size_t reason_cap);
    /* Build the kernels for every device now, so a builder's load reports a
     * compile failure. Core has initialised the backend. (required) */
    accel_status_t (*build)(void *self);
    /* Queue one step on launch->stream. (optional each: NULL = no builder) */
    accel_status_t (*adam)(void *self, const accel_optim_launch_t *launch,
                           const accel_adam_coeffs_t *coeffs);
    accel_status_t (*lion)(void *self, const accel_optim_launch_t *launch,
                           const accel_lion_coeffs_t *coeffs);
    /* Appended (FusedLamb): read only when struct_size covers it. state1 is
     * exp_avg, state2 exp_avg_sq; the reduction order is fixed above. */
    accel_status_t (*lamb)(void *self, const accel_optim_launch_t *launch,
                           const accel_lamb_coeffs_t *coeffs);
} accel_fused_optim_ops_t;

/* The lamb kernel of a fused_optim table, or NULL where the table predates
 * the slot or leaves it empty. */
#define ACCEL_FUSED_OPTIM_LAMB(fused)                                                              \
    ((fused)->struct_size >= offsetof(accel_fused_optim_ops_t, lamb) + sizeof(void *)              \
         ? (fused)->lamb                                                                           \
         : NULL)

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
    accel_status_t (*memcpy_async)(void *self, int device, void *dst, const void *src, size_t size,
                                   accel_copy_kind_t kind, void *stream);
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
    accel_status_t (*stream_add_callback)(void *self, int device, void *stream, accel_host_fn_t fn,
                                          void *user_data);

    /* ---- events (optional as a group) */
    accel_status_t (*event_create)(void *self, int device, unsigned flags, void **out);
    void (*event_destroy)(void *self, int device, void *event);
    /* Record `event` on `stream`: stream first, as in stream_wait_event. */
    accel_status_t (*event_record)(void *self, int device, void *stream, void *event);
    accel_status_t (*event_synchronize)(void *self, int device, void *event);
    accel_status_t (*event_query)(void *self, int device, void *event); /* OK / NOT_READY */
    accel_status_t (*event_elapsed_ms)(void *self, int device, void *start, void *end, float *out);

    /* ---- graphs (optional as a group). graph_capture_end ends the capture
     * whether it succeeds or not: after a failure the stream no longer
     * captures and *out_graph is untouched. */
    accel_status_t (*graph_capture_begin)(void *self, int device, void *stream);
    accel_status_t (*graph_capture_end)(void *self, int device, void *stream, void **out_graph);
    accel_status_t (*graph_launch)(void *self, int device, void *stream, void *graph);
    void (*graph_destroy)(void *self, void *graph);

    /* ---- random numbers: fill `count` elements at `ptr` from the Philox
     * stream (seed, offset) as accel_backend_utils.h defines it. (optional
     * where the backend has pinned allocation, streams and events: NULL =
     * core generates the bits on the host into host_alloc staging, copies
     * them with memcpy_async on `stream` and frees the staging after an
     * event; required otherwise) */
    accel_status_t (*rng_fill)(void *self, int device, void *stream, accel_rng_kind_t kind,
                               void *ptr, size_t count, uint64_t seed, uint64_t offset);

    /* ---- profiling (optional): vendor profiler ranges */
    void (*range_push)(void *self, const char *msg, const char *domain, const char *category);
    void (*range_pop)(void *self, const char *domain);

    /* ---- op builders (optional): builders of the backend's own, listed after
     * the ones core provides (the host optimizer ops on every backend, and the
     * fused ones of fused_optim); a name core already lists is skipped. */
    const accel_op_builder_desc_t *(*op_builders)(void *self, size_t *out_count);

    /* ---- ABI 2: fused optimizer kernels on the backend's devices (optional) */
    const accel_fused_optim_ops_t *fused_optim;

    /* ---- collectives (optional; appended within ABI 2, so check it with
     * ACCEL_BACKEND_HAS): make `device` current on the calling thread the way
     * the vendor's own libraries expect (CUDA: the device's primary context;
     * ACL: aclrtSetDevice; CNRT: cnrtSetDevice) and give the vendor stream
     * behind `stream` (NULL: the device's default stream) in *out, for a
     * collectives engine (NCCL, HCCL, ...) to enqueue on. Backends whose
     * memory is host memory (cpu) leave it NULL: the MPI engine serves them. */
    accel_status_t (*native_stream)(void *self, int device, void *stream, void **out);
} accel_backend_ops_t;

/* True when the table is long enough to hold `member` and the slot is set. */
#define ACCEL_BACKEND_HAS(ops, member)                                                             \
    ((ops)->struct_size >= offsetof(accel_backend_ops_t, member) + sizeof((ops)->member) &&        \
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
ACCEL_API void *accel_backend_load_library(const char *backend_name, const char *const *candidates,
                                           char *tried, size_t tried_cap);

/* The trace recorder (accel_trace_start, ACCEL_TRACE). accel_trace_enabled is
 * cheap (one relaxed load) and says whether work should be timed at all.
 * accel_trace_stream_work puts one executed work item on the track of the
 * stream identified by `stream_key` (the backend's stream handle, so that core
 * closes the track when accel_stream_destroy destroys that stream and a new
 * stream reusing the address gets its own; the track is named "stream N
 * (device D)"), or,
 * with stream_key NULL, on the calling thread's track (inline default-stream
 * work). begin_ns/end_ns are CLOCK_MONOTONIC nanoseconds. Any thread. */
ACCEL_API bool accel_trace_enabled(void);
ACCEL_API void accel_trace_stream_work(const void *stream_key, int device, const char *name,
                                       uint64_t begin_ns, uint64_t end_ns);

#ifdef __cplusplus
}
#endif

#endif /* ACCEL_ACCEL_BACKEND_H */
