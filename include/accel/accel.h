/* accel.h: the user API of libaccel, a portable accelerator runtime.
 *
 * One C interface over CUDA, Intel XPU, Ascend, Gaudi, Cambricon, Tecorigin,
 * Apple, OpenCL and the CPU, chosen at run time. It is the C form of
 * DeepSpeed's accelerator abstraction (`get_accelerator()`).
 *
 * Conventions (every function below follows them):
 * - Every call that can fail returns accel_status_t; ACCEL_OK is 0. On failure
 *   accel_last_error() gives a sentence naming what failed and why. A failed
 *   call changes nothing: outputs are written only on success.
 * - Inputs come before outputs; outputs are pointers named `out`.
 * - Device index ACCEL_CURRENT_DEVICE (-1) means the calling thread's current
 *   device. The current device and the current stream are per thread.
 * - Thread rules: every function may be called from any thread unless its
 *   comment says otherwise. A handle must not be destroyed while another thread
 *   is still using it.
 * - A vendor runtime is initialised lazily, once, by the first call that
 *   needs a device. Detection initialises none on most backends, but not on
 *   all (xpu's detection runs zeInit; opening opencl loads its driver), and
 *   after accel_get/accel_open some backends refuse all work in a forked
 *   child: docs/reliability.md has the rule of each backend ("fork()").
 * - fork(): the library holds its own locks across fork(), so a child never
 *   inherits one held by a thread that does not exist there. On cpu the child
 *   keeps working (memory, copies, fills, the default stream, new streams);
 *   streams created before fork() refuse work with INVALID_ARGUMENT (their
 *   worker threads were not copied), and an event whose record was queued on
 *   one reports an error instead of waiting for ever. Other backends state
 *   their rule in their README.
 * - Structs that may grow start with `size_t struct_size`; set it to
 *   sizeof(the struct) before passing it in (ACCEL_STRUCT_INIT does that).
 *   One rule for every such struct a caller passes in, for input and output
 *   alike: a struct_size smaller than the struct's size in the release that
 *   introduced it (today: sizeof) is refused with INVALID_ARGUMENT naming the
 *   struct, before anything is read or written; a larger one (a caller built
 *   against a newer header) is accepted, and only the part this library
 *   knows is read or written.
 */
#ifndef ACCEL_ACCEL_H
#define ACCEL_ACCEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(ACCEL_BUILDING_LIBRARY) && defined(__GNUC__)
#define ACCEL_API __attribute__((visibility("default")))
#else
#define ACCEL_API
#endif

#define ACCEL_VERSION_MAJOR 0
#define ACCEL_VERSION_MINOR 1
#define ACCEL_VERSION_PATCH 0

/* The library version this program runs against, as "MAJOR.MINOR.PATCH". */
ACCEL_API const char *accel_version(void);

/* ---------------------------------------------------------------- status */

typedef enum accel_status {
    ACCEL_OK = 0,
    ACCEL_ERROR_INVALID_ARGUMENT = 1, /* NULL handle, bad size, unknown name... */
    ACCEL_ERROR_NOT_FOUND = 2,        /* no such backend, op builder, key */
    ACCEL_ERROR_UNAVAILABLE = 3,      /* vendor runtime or hardware missing */
    ACCEL_ERROR_UNSUPPORTED = 4,      /* this backend lacks the capability */
    ACCEL_ERROR_OUT_OF_MEMORY = 5,
    ACCEL_ERROR_NOT_READY = 6,    /* queried work has not finished */
    ACCEL_ERROR_DEVICE_ERROR = 7, /* the vendor runtime failed (code kept) */
    ACCEL_ERROR_INTERNAL = 8,     /* a bug in accel */
} accel_status_t;

/* Constant name of a status, e.g. "ACCEL_ERROR_NOT_FOUND"; never NULL. */
ACCEL_API const char *accel_status_name(accel_status_t status);

/* The calling thread's sentence about its most recent failure ("" if none).
 * The pointer stays valid until this thread's next accel call. */
ACCEL_API const char *accel_last_error(void);

/* The vendor's own error code behind the thread's last DEVICE_ERROR (0 if the
 * last failure did not come from a vendor runtime). */
ACCEL_API int64_t accel_last_vendor_error(void);

/* ---------------------------------------------------------------- handles */

/* Destroyed handles: a stream, event or graph used after its destroy call is
 * refused with INVALID_ARGUMENT while its accel_t is open, until at least 64
 * more streams/events/graphs of that accel_t have been destroyed after it
 * (their structs are kept and reused only then). Beyond that, after
 * accel_close, or for a pointer that never was a handle, misuse is not
 * detected. */

/* An opened accelerator: one backend and its devices. Thread-safe. */
typedef struct accel accel_t;
/* An ordered queue of device work on one device. */
typedef struct accel_stream accel_stream_t;
/* A marker in a stream; can be waited on and timed. */
typedef struct accel_event accel_event_t;
/* Recorded stream work that can be replayed. */
typedef struct accel_graph accel_graph_t;
/* A named op builder of the backend (DeepSpeed's OpBuilder). */
typedef struct accel_op_builder accel_op_builder_t;

#define ACCEL_CURRENT_DEVICE    (-1)
#define ACCEL_STRUCT_INIT(type) ((type){.struct_size = sizeof(type)})

/* ---------------------------------------------------------------- selection */

/* The process-wide accelerator, chosen on the first call and cached.
 * Choice: ACCEL_ACCELERATOR, else DS_ACCELERATOR (exact names), else the
 * auto-detect cascade (see accel_detect). The handle is owned by the library;
 * do not close it. Thread-safe; concurrent first calls agree on one choice.
 * Called from plugin code while plugins load (a plugin's entry function or
 * constructor): INVALID_ARGUMENT, see docs/env-vars.md, ACCEL_PLUGIN_PATH. */
ACCEL_API accel_status_t accel_get(accel_t **out);

/* Replace the process-wide accelerator with `acc` (from accel_open). The
 * library takes ownership of `acc`; the previous process-wide accelerator
 * stays valid until process exit, since other threads may still hold it. */
ACCEL_API accel_status_t accel_set(accel_t *acc);

/* Open the backend named `name` explicitly (not process-wide). The caller
 * owns the result and releases it with accel_close. NOT_FOUND for an unknown
 * name, UNAVAILABLE when its runtime is missing. A backend whose runtime is
 * present but reports 0 devices opens (so do the override variables of
 * accel_get; auto-detect skips it): names, flags, dtypes, op builders and
 * environment lists work, and every call that needs a device returns
 * UNAVAILABLE saying the backend has no devices. */
ACCEL_API accel_status_t accel_open(const char *name, accel_t **out);

/* Release an accelerator from accel_open: frees cached memory, streams it
 * owns and the backend state. Fails for the process-wide accelerator, and
 * fails with INVALID_ARGUMENT (changing nothing) while any stream, event or
 * graph created on `acc` is alive: destroy them first. Allocations should be
 * freed first too; the memory of any left is released with `acc`, and so
 * is what every thread remembers about `acc` (current device and streams),
 * threads still running included. After accel_close every handle of `acc`
 * is invalid and using one is undefined. */
ACCEL_API accel_status_t accel_close(accel_t *acc);

/* How `acc` was chosen: "override", "auto detect", "model specified"
 * (accel_set) or "explicit" (accel_open). NULL for a NULL handle. */
ACCEL_API const char *accel_selection_method(const accel_t *acc);

struct accel_backend_ops; /* declared in accel_backend.h */

/* Add a backend (the C form of subclassing DeepSpeedAccelerator). `ops` must
 * stay valid for the process lifetime. Refused when the name is taken, the ABI
 * version differs or required slots are NULL. A backend registered under a
 * name of the cascade (e.g. "xpu.external") takes that slot in auto-detect. */
ACCEL_API accel_status_t accel_register_backend(const struct accel_backend_ops *ops);

/* One candidate of the auto-detect cascade and why it was or was not taken. */
typedef struct accel_candidate {
    size_t struct_size;
    char name[32];
    bool built;       /* compiled into this library or registered */
    bool available;   /* runtime loaded, >= 1 device, and auto-detect may pick it
                         (false for a backend usable only when named) */
    bool chosen;      /* auto-detect would pick it */
    int device_count; /* -1 when unknown */
    char reason[256]; /* e.g. "libcuda.so.1 not found (tried ...)" */
} accel_candidate_t;

/* Run the cascade's probes now (no runtime is initialised) and describe every
 * candidate in cascade order. Writes min(cap, total) entries; *out_count gets
 * the total. Each entry's struct_size must be set by the caller. */
ACCEL_API accel_status_t accel_detect(accel_candidate_t *candidates, size_t cap, size_t *out_count);

/* Names accepted by ACCEL_ACCELERATOR / DS_ACCELERATOR / accel_open, as one
 * string "['cuda', 'cpu', ...]" in DeepSpeed's list order plus registered
 * backends. Owned by the library, valid until the next registration. */
ACCEL_API const char *accel_supported_names(void);

/* DeepSpeed's is_current_accelerator_supported(): whether the process-wide
 * accelerator (from accel_get, chosen now if it was not yet) is one of
 * DeepSpeed's own accelerators (its SUPPORTED_ACCELERATOR_LIST: cuda, cpu,
 * xpu, npu, mps, hpu, mlu, sdaa, supa). accel's own backends (opencl,
 * plugins under other names) give false; "xpu.external" gives true, as
 * DeepSpeed's external XPU accelerator names its device "xpu". Fails as
 * accel_get fails. */
ACCEL_API accel_status_t accel_is_current_accelerator_supported(bool *out);

/* ---------------------------------------------------------------- identity and flags */

/* Backend name, e.g. "cuda". NULL (with last error set) for a bad handle. */
ACCEL_API const char *accel_name(const accel_t *acc);

/* Device string in DeepSpeed's form: a negative index gives the bare name
 * ("cuda", DeepSpeed's device_name(None)), index >= 0 gives "cuda:1". Backends
 * that ignore the index in DeepSpeed (cpu, hpu) always give the bare name.
 * Writes at most `cap` bytes including the NUL; INVALID_ARGUMENT if too small. */
ACCEL_API accel_status_t accel_device_name(const accel_t *acc, int device, char *out, size_t cap);

/* The current device's string, e.g. "cuda:3" (cpu: "cpu"). */
ACCEL_API accel_status_t accel_current_device_name(accel_t *acc, char *out, size_t cap);

typedef enum accel_flag {
    ACCEL_FLAG_IS_AVAILABLE = 0,
    ACCEL_FLAG_SYNCHRONIZED_DEVICE = 1,
    ACCEL_FLAG_USE_HOST_TIMERS = 2,
    ACCEL_FLAG_RESOLVES_DATA_DEPENDENCY = 3,
    ACCEL_FLAG_HANDLES_MEMORY_BACKPRESSURE = 4,
    ACCEL_FLAG_TRITON_SUPPORTED = 5,
    ACCEL_FLAG_NVTX_DOMAIN_SUPPORTED = 6,
    ACCEL_FLAG_PREFER_TRITON_GROUPED_MM = 7,
    ACCEL_FLAG_BF16_SUPPORTED = 8,
    ACCEL_FLAG_FP16_SUPPORTED = 9,
    ACCEL_FLAG_GRAPHS_SUPPORTED = 10,
    ACCEL_FLAG_STREAMS_SUPPORTED = 11,
    ACCEL_FLAG_EVENTS_SUPPORTED = 12,
    /* accel_host_alloc / accel_host_free work (the backend has pinned memory) */
    ACCEL_FLAG_PINNED_MEMORY_SUPPORTED = 13,
    /* accel_host_register / accel_host_unregister work */
    ACCEL_FLAG_HOST_REGISTER_SUPPORTED = 14,
    /* accel_stream_add_callback works on created streams */
    ACCEL_FLAG_HOST_CALLBACKS_SUPPORTED = 15,
    ACCEL_FLAG_COUNT_ = 16
} accel_flag_t;

/* Name of a flag as DeepSpeed spells the method, e.g. "is_synchronized_device". */
ACCEL_API const char *accel_flag_name(accel_flag_t flag);

/* DeepSpeed's boolean methods (is_synchronized_device, use_host_timers, ...)
 * for this backend, on the current device where it matters (bf16/fp16). */
ACCEL_API accel_status_t accel_query_flag(accel_t *acc, accel_flag_t flag, bool *out);

/* torch.distributed backend name: "nccl", "gloo", "hccl"...; UNSUPPORTED
 * where DeepSpeed answers None (mps). */
ACCEL_API accel_status_t accel_communication_backend_name(const accel_t *acc, const char **out);

/* DeepSpeed's communication_backend_version() (CUDA: torch.cuda.nccl.version()):
 * the version of the collectives library behind accel_communication_backend_name,
 * written as "MAJOR.MINOR.PATCH" (at most `cap` bytes with the NUL).
 * accel never loads that library itself (the framework does): the version is
 * read from the copy already loaded in this process (NCCL: ncclGetVersion);
 * when none is loaded, or the library has no C version query (gloo, oneCCL),
 * the text is "unknown". UNSUPPORTED where there is no communication
 * backend (DeepSpeed's None). */
ACCEL_API accel_status_t accel_communication_backend_version(const accel_t *acc, char *out,
                                                             size_t cap);

/* The current torch.compile backend name (default per backend: "inductor",
 * "hpu_backend" on hpu). The pointer is valid until the next set. */
ACCEL_API accel_status_t accel_get_compile_backend(accel_t *acc, const char **out);

/* Set it; INVALID_ARGUMENT with DeepSpeed's sentence ("X not supported by cpu.
 * Supported Backends are [...]") when `name` is not in the backend's list. */
ACCEL_API accel_status_t accel_set_compile_backend(accel_t *acc, const char *name);

/* ---------------------------------------------------------------- devices */

ACCEL_API accel_status_t accel_device_count(accel_t *acc, int *out);

/* Make `device` the calling thread's current device. */
ACCEL_API accel_status_t accel_set_device(accel_t *acc, int device);

/* The calling thread's current device index. */
ACCEL_API accel_status_t accel_current_device(accel_t *acc, int *out);

/* Block until all work on the device (every stream) has finished.
 * INVALID_ARGUMENT while a graph captures on one of its streams (a device
 * synchronize then fails on CUDA and invalidates the capture). */
ACCEL_API accel_status_t accel_synchronize(accel_t *acc, int device);

/* What a device is. Fields a runtime does not report hold "" or -1. */
typedef struct accel_device_properties {
    size_t struct_size;
    char name[256];
    char vendor[64];
    uint64_t total_memory; /* bytes */
    int compute_major;     /* compute capability or equivalent; -1 unknown */
    int compute_minor;
    int multiprocessor_count; /* SMs, compute units, cores; -1 unknown */
    char pci_bus_id[32];      /* "0000:3b:00.0" or "" */
    char uuid[64];            /* or "" */
    char driver_version[64];  /* or "" */
} accel_device_properties_t;

ACCEL_API accel_status_t accel_device_properties(accel_t *acc, int device,
                                                 accel_device_properties_t *out);

/* ---------------------------------------------------------------- random numbers */
/* Every backend runs the same Philox4x32-10 stream (docs/architecture.md, Random numbers), so the
 * same seed gives the same bits everywhere. A device's state is (seed, offset). */

#define ACCEL_RNG_STATE_SIZE 16 /* seed then offset, little-endian u64 each */

/* Seed the current device's generator (offset back to 0). */
ACCEL_API accel_status_t accel_manual_seed(accel_t *acc, uint64_t seed);
/* Seed every device's generator. */
ACCEL_API accel_status_t accel_manual_seed_all(accel_t *acc, uint64_t seed);
/* Seed the current device from the OS entropy source; the seed used is in out. */
ACCEL_API accel_status_t accel_seed(accel_t *acc, uint64_t *out);
/* The seed the current device's generator was last seeded with. */
ACCEL_API accel_status_t accel_initial_seed(accel_t *acc, uint64_t *out);
/* Copy a device's state blob (ACCEL_RNG_STATE_SIZE bytes) into `out`. */
ACCEL_API accel_status_t accel_get_rng_state(accel_t *acc, int device, uint8_t *out, size_t cap);
/* Restore it; INVALID_ARGUMENT unless size == ACCEL_RNG_STATE_SIZE and the
 * offset is a multiple of 4 (every state accel produces is). */
ACCEL_API accel_status_t accel_set_rng_state(accel_t *acc, int device, const uint8_t *state,
                                             size_t size);

/* Fills of `count` elements of device memory at `ptr`, queued on `stream`
 * (NULL = the thread's current stream of the current device). The generator
 * offset advances when the call returns, so consecutive fills never overlap.
 * INVALID_ARGUMENT if ptr is not 4-byte aligned (allocations are; an
 * interior pointer must keep the alignment), if [ptr, ptr + 4*count) is not
 * inside one live allocation,
 * or if the fill would move the offset past 2^64 - 1 (it would wrap to 0 and
 * repeat earlier numbers: reseed instead); nothing is reserved then. */
ACCEL_API accel_status_t accel_rng_uniform_f32(accel_t *acc, float *ptr, size_t count,
                                               accel_stream_t *stream);
ACCEL_API accel_status_t accel_rng_normal_f32(accel_t *acc, float *ptr, size_t count,
                                              accel_stream_t *stream);
ACCEL_API accel_status_t accel_rng_u32(accel_t *acc, uint32_t *ptr, size_t count,
                                       accel_stream_t *stream);

/* ---------------------------------------------------------------- streams */

/* Create a stream on `device`. priority: 0 normal, negative = higher (CUDA's
 * convention); clamped to what the backend supports. Caller owns it. */
ACCEL_API accel_status_t accel_stream_create(accel_t *acc, int device, int priority,
                                             accel_stream_t **out);
/* Waits for the stream's queued work, then frees it. Default streams and NULL
 * are refused, and so is a stream that is capturing a graph (INVALID_ARGUMENT,
 * nothing changes): end the capture with accel_graph_capture_end first. */
ACCEL_API accel_status_t accel_stream_destroy(accel_stream_t *stream);
/* Synchronize and query refuse a stream that is capturing a graph
 * (INVALID_ARGUMENT; the capture goes on): its captured work runs only when
 * the graph is replayed. */
ACCEL_API accel_status_t accel_stream_synchronize(accel_stream_t *stream);
/* ACCEL_OK when all queued work finished, ACCEL_ERROR_NOT_READY otherwise. */
ACCEL_API accel_status_t accel_stream_query(accel_stream_t *stream);
/* Work queued on `stream` after this call waits for `event` to complete. */
ACCEL_API accel_status_t accel_stream_wait_event(accel_stream_t *stream, accel_event_t *event);

typedef void (*accel_host_fn_t)(void *user_data);
/* Run `fn(user_data)` on a library thread once the work queued before it on
 * `stream` has finished. `fn` must not call accel functions on this stream:
 * work queued after the callback waits for it. Waits that would be for `fn`
 * itself are refused with INVALID_ARGUMENT rather than deadlocking, where the
 * backend can tell (cpu and opencl; docs/reliability.md says what each
 * detects): accel_synchronize of the stream's device, synchronize of this
 * stream (or, on cpu, of an event recorded after `fn` on it), a synchronous
 * copy on it (opencl), and destroying it. Every backend refuses (core,
 * docs/reliability.md "Host callbacks"): synchronize of the device, of this
 * stream, of an event of the device not yet complete, destroying this
 * stream, empty_cache, a synchronous copy or fill on the device, an async
 * copy with pageable host memory on this stream, accel_host_free, and
 * destroying a graph whose release synchronizes the device. */
ACCEL_API accel_status_t accel_stream_add_callback(accel_stream_t *stream, accel_host_fn_t fn,
                                                   void *user_data);

/* The device's default stream (owned by `acc`, never destroyed by the user). */
ACCEL_API accel_status_t accel_default_stream(accel_t *acc, int device, accel_stream_t **out);
/* The calling thread's current stream on `device` (its default stream until
 * set otherwise). */
ACCEL_API accel_status_t accel_current_stream(accel_t *acc, int device, accel_stream_t **out);
/* Make `stream` current on its device for the calling thread (DeepSpeed's
 * `with stream(s)`); NULL restores the default stream of the current device. */
ACCEL_API accel_status_t accel_set_current_stream(accel_t *acc, accel_stream_t *stream);
/* The device a stream belongs to. */
ACCEL_API accel_status_t accel_stream_device(const accel_stream_t *stream, int *out);

/* ---------------------------------------------------------------- events */

#define ACCEL_EVENT_DEFAULT 0u
#define ACCEL_EVENT_TIMING  1u /* record timestamps for accel_event_elapsed_ms */

ACCEL_API accel_status_t accel_event_create(accel_t *acc, int device, unsigned flags,
                                            accel_event_t **out);
ACCEL_API accel_status_t accel_event_destroy(accel_event_t *event);
/* Mark the point in `stream` (NULL = current stream) the event completes at. */
ACCEL_API accel_status_t accel_event_record(accel_event_t *event, accel_stream_t *stream);
ACCEL_API accel_status_t accel_event_synchronize(accel_event_t *event);
/* ACCEL_OK when complete (or never recorded), ACCEL_ERROR_NOT_READY otherwise. */
ACCEL_API accel_status_t accel_event_query(accel_event_t *event);
/* Milliseconds between two completed events created with ACCEL_EVENT_TIMING.
 * INVALID_ARGUMENT when either was never recorded. */
ACCEL_API accel_status_t accel_event_elapsed_ms(accel_event_t *start, accel_event_t *end,
                                                float *out);

/* ---------------------------------------------------------------- memory */

typedef enum accel_copy_kind {
    ACCEL_COPY_HOST_TO_HOST = 0,
    ACCEL_COPY_HOST_TO_DEVICE = 1,
    ACCEL_COPY_DEVICE_TO_HOST = 2,
    ACCEL_COPY_DEVICE_TO_DEVICE = 3,
} accel_copy_kind_t;

/* Device memory from the caching allocator of the current device, ordered on
 * the thread's current stream. size 0 gives NULL and ACCEL_OK. */
ACCEL_API accel_status_t accel_malloc(accel_t *acc, size_t size, void **out);
/* Return memory from accel_malloc/_async, ordered on the thread's current
 * stream of the block's device: other streams reuse the block only after the
 * work queued there before the free has finished. NULL is a no-op.
 * INVALID_ARGUMENT for a pointer accel did not allocate (or already freed),
 * and for the data of a tensor from accel_tensor_empty/zeros (free that with
 * accel_tensor_free, which also frees the shape); nothing is freed then. */
ACCEL_API accel_status_t accel_free(accel_t *acc, void *ptr);
/* Same, ordered on `stream`: the block is reused by other streams only after
 * the work queued on `stream` before the free has finished. */
ACCEL_API accel_status_t accel_malloc_async(accel_t *acc, size_t size, accel_stream_t *stream,
                                            void **out);
ACCEL_API accel_status_t accel_free_async(accel_t *acc, void *ptr, accel_stream_t *stream);

/* Copy `size` bytes. Device ranges must lie inside one live allocation.
 * A side the kind calls host memory must not be device memory, unless the
 * backend's device memory is host memory (DLPack kDLCPU: the cpu backend);
 * elsewhere (opencl) such a copy is refused with INVALID_ARGUMENT.
 * The synchronous form returns when the copy is done. */
ACCEL_API accel_status_t accel_memcpy(accel_t *acc, void *dst, const void *src, size_t size,
                                      accel_copy_kind_t kind);
ACCEL_API accel_status_t accel_memcpy_async(accel_t *acc, void *dst, const void *src, size_t size,
                                            accel_copy_kind_t kind, accel_stream_t *stream);
/* Set `size` bytes of device memory to the byte `value`. */
ACCEL_API accel_status_t accel_memset(accel_t *acc, void *dst, int value, size_t size);
ACCEL_API accel_status_t accel_memset_async(accel_t *acc, void *dst, int value, size_t size,
                                            accel_stream_t *stream);

/* Page-locked host memory (fast, asynchronous copies). Caller frees it with
 * accel_host_free.
 * The pinned host cache (torch's caching host allocator): accel_host_free,
 * and accel_unpin_memory of a buffer of the default pin backend, keep the
 * block; a later accel_host_alloc or default-backend accel_pin_memory of
 * the same byte size gets it back instead of pinning new memory, once
 * accel_synchronize has finished on every device of `acc` after the free
 * (so no work queued before the free still uses it; until then new memory
 * is pinned). accel_empty_host_cache releases the blocks that rule allows,
 * accel_close all of them. */
ACCEL_API accel_status_t accel_host_alloc(accel_t *acc, size_t size, void **out);
ACCEL_API accel_status_t accel_host_free(accel_t *acc, void *ptr);
/* torch's empty_host_cache: give the pinned host cache's blocks back to the
 * backend, except those freed since the last accel_synchronize of some
 * device (work queued before their free may still use them; they stay
 * cached until every device has been synchronized). Changes nothing when
 * the cache is empty, on every backend. */
ACCEL_API accel_status_t accel_empty_host_cache(accel_t *acc);
/* Pin an existing host range in place; undo with accel_host_unregister(ptr). */
ACCEL_API accel_status_t accel_host_register(accel_t *acc, void *ptr, size_t size);
ACCEL_API accel_status_t accel_host_unregister(accel_t *acc, void *ptr);
/* True when `ptr` lies anywhere inside memory pinned through this accelerator. */
ACCEL_API accel_status_t accel_is_pinned(accel_t *acc, const void *ptr, bool *out);

/* DeepSpeed's tensor pinning (pin_memory(t, make_copy, match_shape),
 * is_pinned, unpin_memory) with its two backends, chosen per accelerator at
 * the first call from ACCEL_PIN_MEMORY_BACKEND ("native", "torch" or
 * "default"), else DeepSpeed's DS_PIN_MEMORY_BACKEND (native when it reads
 * "native" after stripping and lower-casing; the default otherwise), or set
 * with accel_set_pin_memory_backend:
 * - DEFAULT (DeepSpeed's "torch"): the backend's pinned allocator, as
 *   accel_host_alloc (needs ACCEL_FLAG_PINNED_MEMORY_SUPPORTED and a device);
 * - NATIVE: page-aligned host memory locked with mlock (kept pageable where
 *   the memlock limit refuses), on every backend, with or without a device. */
typedef enum accel_pin_backend {
    ACCEL_PIN_BACKEND_DEFAULT = 0,
    ACCEL_PIN_BACKEND_NATIVE = 1,
} accel_pin_backend_t;

ACCEL_API accel_status_t accel_pin_memory_backend(accel_t *acc, accel_pin_backend_t *out);
ACCEL_API accel_status_t accel_set_pin_memory_backend(accel_t *acc, accel_pin_backend_t backend);

/* A pinned host copy of the contiguous host tensor `tensor` (kDLCPU, or a
 * *Host DLPack type): `out` gets a new kDLCPU tensor of the same dtype whose
 * buffer is pinned and recorded (accel_is_pinned is true for every byte of
 * it, views included). make_copy: the bytes are copied (else the contents
 * are undefined); match_shape: `out` has the tensor's shape (else it is flat,
 * one dimension of numel). The buffer and the shape array belong to `out`
 * until accel_unpin_memory (unpin before accel_close, which does not). INVALID_ARGUMENT for an
 * empty, strided or device tensor; UNSUPPORTED when the default backend cannot pin here. */
ACCEL_API accel_status_t accel_pin_memory(accel_t *acc, const DLTensor *tensor, bool make_copy,
                                          bool match_shape, DLTensor *out);
/* Free a tensor from accel_pin_memory (buffer and shape; *tensor is zeroed)
 * and set *out_freed. A tensor that is not one (a view of one, a tensor
 * already unpinned, any other memory) is left alone and *out_freed is false,
 * as DeepSpeed's unpin_memory returns False. */
ACCEL_API accel_status_t accel_unpin_memory(accel_t *acc, DLTensor *tensor, bool *out_freed);

/* Pinned-bytes accounting of one accelerator. */
typedef struct accel_pinned_stats {
    size_t struct_size;
    uint64_t pinned_bytes; /* pinned through accel now: host_alloc, host_register, pin_memory */
    uint64_t pinned_bytes_peak; /* the most pinned at once */
    uint64_t tracked_bytes;     /* every byte ever passed to accel_pin_memory
                                   (DeepSpeed's track_pinned_memory counter) */
    uint64_t pin_count;         /* accel_pin_memory calls that succeeded */
    /* Appended later: struct_size offsetof(cached_bytes) (a caller built
     * before it) is still accepted and this field is then not written; a
     * size between that and sizeof is refused. */
    uint64_t cached_bytes; /* freed pinned blocks held by the pinned host cache (not in
                              pinned_bytes) */
} accel_pinned_stats_t;

ACCEL_API accel_status_t accel_pinned_memory_stats(accel_t *acc, accel_pinned_stats_t *out);

/* Allocator statistics of one device, with torch's meanings: "allocated" is
 * memory in blocks handed out, "reserved" (= DeepSpeed's "cached") is memory
 * obtained from the runtime, used or cached. */
typedef struct accel_memory_stats {
    size_t struct_size;
    uint64_t allocated_bytes, allocated_bytes_peak;
    uint64_t reserved_bytes, reserved_bytes_peak;
    uint64_t requested_bytes, requested_bytes_peak; /* sizes as asked, before rounding */
    uint64_t allocation_count, allocation_count_peak;
    uint64_t segment_count, segment_count_peak; /* runtime allocations */
    uint64_t alloc_retries;                     /* cache freed after an OOM */
    uint64_t ooms;                              /* OOM returned to the caller */
} accel_memory_stats_t;

/* The two reset_max_* calls reset EVERY peak (allocated, reserved, requested,
 * allocations, segments), as torch's do: they are reset_peak_memory_stats
 * under older names. */
ACCEL_API accel_status_t accel_memory_allocated(accel_t *acc, int device, uint64_t *out);
ACCEL_API accel_status_t accel_max_memory_allocated(accel_t *acc, int device, uint64_t *out);
ACCEL_API accel_status_t accel_reset_max_memory_allocated(accel_t *acc, int device);
ACCEL_API accel_status_t accel_memory_reserved(accel_t *acc, int device, uint64_t *out);
ACCEL_API accel_status_t accel_max_memory_reserved(accel_t *acc, int device, uint64_t *out);
ACCEL_API accel_status_t accel_reset_max_memory_reserved(accel_t *acc, int device);
/* DeepSpeed's legacy names: memory_cached == memory_reserved. */
#define accel_memory_cached           accel_memory_reserved
#define accel_max_memory_cached       accel_max_memory_reserved
#define accel_reset_max_memory_cached accel_reset_max_memory_reserved
/* Reset every peak to the current value. */
ACCEL_API accel_status_t accel_reset_peak_memory_stats(accel_t *acc, int device);
ACCEL_API accel_status_t accel_memory_stats(accel_t *acc, int device, accel_memory_stats_t *out);
/* Every statistic torch's memory_stats() has for a caching allocator, under
 * torch's key names and in torch's order (sorted by name): entry `index` of
 * the list; NOT_FOUND past the end. The keys are
 * "<kind>.<pool>.<metric>" for kind allocation, segment, active,
 * inactive_split, allocated_bytes, reserved_bytes, active_bytes,
 * inactive_split_bytes, requested_bytes; pool all, small_pool (requests under
 * 1 MiB), large_pool; metric current, peak, allocated, freed (cumulative) -
 * then num_alloc_retries, num_ooms, num_sync_all_streams, num_device_alloc,
 * num_device_free, max_split_size and oversize_allocations/_segments.<metric>.
 * accel's allocator returns a freed block to its pool at once, so active
 * equals allocation; it never synchronizes every stream and splits blocks of
 * any size, so num_sync_all_streams and oversize_* are 0 and max_split_size
 * is UINT64_MAX (torch's -1). num_oom_rejections counts, of num_ooms, the
 * requests refused without asking the device (larger than any device can
 * hold; accel has no memory-fraction limit that would refuse others). */
ACCEL_API accel_status_t accel_memory_stats_entry(accel_t *acc, int device, size_t index,
                                                  const char **out_key, uint64_t *out_value);
/* torch's reset_accumulated_memory_stats: set the cumulative figures of
 * one device's statistics to 0, i.e. the ".allocated" and ".freed" keys of
 * accel_memory_stats_entry and its event counters (num_alloc_retries,
 * num_ooms, num_oom_rejections, num_device_alloc, num_device_free; so also
 * accel_memory_stats_t's alloc_retries and ooms). Current values and peaks
 * stay (accel_reset_peak_memory_stats resets those). */
ACCEL_API accel_status_t accel_reset_accumulated_memory_stats(accel_t *acc, int device);
/* Give cached, unused blocks of every device back to the runtime. Waits, as
 * torch's emptyCache does, only for the work queued before the frees of
 * blocks freed while their stream was busy, never for a whole stream or
 * device. Memory of graphs' private pools stays reserved. A device on which
 * a graph is capturing keeps its cache (its event waits and frees are what
 * a capture forbids). */
ACCEL_API accel_status_t accel_empty_cache(accel_t *acc);
/* Device memory in bytes: total, and free right now (as the runtime sees it). */
ACCEL_API accel_status_t accel_total_memory(accel_t *acc, int device, uint64_t *out);
ACCEL_API accel_status_t accel_available_memory(accel_t *acc, int device, uint64_t *out);

/* ---------------------------------------------------------------- dtypes and tensors */

typedef enum accel_dtype {
    ACCEL_DTYPE_F32 = 0, /* torch.float */
    ACCEL_DTYPE_F16 = 1, /* torch.half */
    ACCEL_DTYPE_BF16 = 2,
    ACCEL_DTYPE_F64 = 3,
    ACCEL_DTYPE_U8 = 4,
    ACCEL_DTYPE_I32 = 5,
    ACCEL_DTYPE_I64 = 6,
    ACCEL_DTYPE_COUNT_ = 7
} accel_dtype_t;

/* "float32", "float16", "bfloat16", ... (torch's names); NULL if unknown. */
ACCEL_API const char *accel_dtype_name(accel_dtype_t dtype);
/* The DLPack type of a dtype; INVALID_ARGUMENT if unknown. */
ACCEL_API accel_status_t accel_dtype_to_dlpack(accel_dtype_t dtype, DLDataType *out);

/* DeepSpeed's supported_dtypes() in its order. Writes min(cap, n), *out_count = n. */
ACCEL_API accel_status_t accel_supported_dtypes(accel_t *acc, accel_dtype_t *out, size_t cap,
                                                size_t *out_count);

/* The DLPack device type of this backend's memory (kDLCPU, kDLCUDA...). */
ACCEL_API accel_status_t accel_dlpack_device_type(const accel_t *acc, int32_t *out);

/* Allocate a contiguous tensor on `device`: fills `out` (data, device, ndim,
 * dtype; shape copied into library-owned storage, strides NULL = compact).
 * Release it with accel_tensor_free (accel_free and accel_free_async refuse
 * its data). _zeros also clears it. */
ACCEL_API accel_status_t accel_tensor_empty(accel_t *acc, int device, accel_dtype_t dtype,
                                            int32_t ndim, const int64_t *shape, DLTensor *out);
ACCEL_API accel_status_t accel_tensor_zeros(accel_t *acc, int device, accel_dtype_t dtype,
                                            int32_t ndim, const int64_t *shape, DLTensor *out);
/* DeepSpeed's FloatTensor(data), HalfTensor(data)... (torch.tensor(data,
 * dtype, device)): a tensor like accel_tensor_empty's holding a copy of the
 * host bytes at `data`, which are already elements of `dtype` in row-major
 * order (the element count times the dtype's size; no conversion). The copy
 * has finished when the call returns. `data` may be NULL only for an empty
 * tensor; device memory the host cannot address is refused as `data`.
 * Release it with accel_tensor_free. */
ACCEL_API accel_status_t accel_tensor_from_host(accel_t *acc, int device, accel_dtype_t dtype,
                                                int32_t ndim, const int64_t *shape,
                                                const void *data, DLTensor *out);
/* Frees data and shape of a tensor from accel_tensor_empty/zeros/from_host;
 * zeroes *t. */
ACCEL_API accel_status_t accel_tensor_free(accel_t *acc, DLTensor *tensor);
/* DeepSpeed's on_accelerator: the tensor's device type is this backend's. */
ACCEL_API accel_status_t accel_on_accelerator(const accel_t *acc, const DLTensor *tensor,
                                              bool *out);

/* ---------------------------------------------------------------- graphs */

/* A graph records the work queued on one stream between capture_begin and
 * capture_end, then replays it. UNSUPPORTED where the backend has none
 * (DeepSpeed's create_graph() returning None). Caller owns the graph. */
ACCEL_API accel_status_t accel_graph_create(accel_t *acc, accel_graph_t **out);
ACCEL_API accel_status_t accel_graph_capture_begin(accel_graph_t *graph, accel_stream_t *stream);
ACCEL_API accel_status_t accel_graph_capture_end(accel_graph_t *graph, accel_stream_t *stream);
/* Queue the recorded work again on `stream` (NULL = the capture stream). */
ACCEL_API accel_status_t accel_graph_replay(accel_graph_t *graph, accel_stream_t *stream);
/* Memory freed while a graph captures (accel_free or accel_free_async of a
 * block of the capture's device) stays reserved until the newest graph then
 * capturing is destroyed. Memory allocated while a graph captures (on any
 * stream of its device) comes from the graph's private pool: freed later,
 * it goes back to that pool, which only captures of the graphs sharing it
 * allocate from, and the pool's memory is released when the last of those
 * graphs is destroyed. So replays never write into a later allocation.
 * Destroy a graph only once its replays have completed. Releasing that
 * memory synchronizes its device: while another graph captures there, the
 * destroy is refused with INVALID_ARGUMENT (nothing changes; destroy it
 * after that capture ends). */
ACCEL_API accel_status_t accel_graph_destroy(accel_graph_t *graph);
/* Like accel_graph_create, but the new graph allocates from the private
 * pool of `pool_of` (a live graph of `acc`) instead of a pool of its own
 * (torch's graph(pool=other.pool())): memory one capture allocated and
 * freed is reused by the next, so graphs captured and always replayed in
 * the same order take less memory. Sharing is safe only when their replays
 * never run at the same time. The pool lives until every graph sharing it
 * is destroyed; destroying `pool_of` first is fine. */
ACCEL_API accel_status_t accel_graph_create_sharing_pool(accel_t *acc, accel_graph_t *pool_of,
                                                         accel_graph_t **out);

/* ---------------------------------------------------------------- profiling */

/* Open a named range in the vendor profiler (NVTX on cuda, CNPX on mlu) and
 * in accel's own trace recorder. domain and category may be NULL; they are
 * honoured where ACCEL_FLAG_NVTX_DOMAIN_SUPPORTED. Ranges nest per thread. */
ACCEL_API accel_status_t accel_range_push(accel_t *acc, const char *msg, const char *domain,
                                          const char *category);
/* Close the calling thread's innermost range; NOT_FOUND if none is open. */
ACCEL_API accel_status_t accel_range_pop(accel_t *acc, const char *domain);

/* The built-in trace recorder: Chrome trace-event JSON ({"traceEvents":[...]})
 * that Perfetto and chrome://tracing open, with one track per host thread
 * (its ranges, and the copies, fills, allocations and frees it called) and one
 * per stream (each work item with its real run time, where the backend
 * reports it). ACCEL_TRACE=path starts it on the first traced call; these
 * calls drive it explicitly. Events go to a fixed buffer (ACCEL_TRACE_BUFFER
 * events, default 1 << 20); when it is full, later events are dropped and
 * counted in the file. Recording costs one predictable branch per call while
 * off, and a mutex per event while on. Process-wide; any thread. */

/* Start recording to `path` (created or truncated now). INVALID_ARGUMENT when
 * a trace is already recording (ACCEL_TRACE counts) or the file cannot be
 * opened. A trace still recording at exit is written then. */
ACCEL_API accel_status_t accel_trace_start(const char *path);
/* Write everything recorded so far to the file (rewritten whole, so it is
 * always one valid JSON document; ranges still open are shown closed now);
 * recording goes on. NOT_FOUND when nothing is recording. */
ACCEL_API accel_status_t accel_trace_flush(void);
/* Flush, close the file and free the buffer; a later accel_trace_start may
 * record again. NOT_FOUND when nothing is recording. */
ACCEL_API accel_status_t accel_trace_stop(void);

/* ---------------------------------------------------------------- lazy init */

typedef void (*accel_lazy_fn_t)(accel_t *acc, void *user_data);
/* Run `fn` now if the runtime is initialised, else when it first initialises
 * (on the initialising thread). Backends that run it at once in DeepSpeed
 * (cpu, hpu) do so here too. */
ACCEL_API accel_status_t accel_lazy_call(accel_t *acc, accel_lazy_fn_t fn, void *user_data);
/* Whether the backend's runtime has been initialised in this process. */
ACCEL_API accel_status_t accel_is_initialized(const accel_t *acc, bool *out);

/* ---------------------------------------------------------------- op builders */

/* Look a builder up by DeepSpeed's class name ("CPUAdamBuilder"). For a name
 * this accelerator has no builder for, DeepSpeed's NotImplementedBuilder
 * (class "NotImplementedBuilder", op "deepspeed_not_implemented"): not
 * compatible, its reason saying the op is not implemented on this backend,
 * and its load UNSUPPORTED; it is not one of the builders count/at list.
 * The builder is owned by `acc`. This is both DeepSpeed's get_op_builder and its
 * create_op_builder: a builder has no per-instance state, so one handle per
 * name serves both. The tables it loads are in accel/accel_ops.h. */
ACCEL_API accel_status_t accel_get_op_builder(accel_t *acc, const char *class_name,
                                              accel_op_builder_t **out);
/* Number of builders of this backend, and each by index (for reports). */
ACCEL_API accel_status_t accel_op_builder_count(accel_t *acc, size_t *out);
ACCEL_API accel_status_t accel_op_builder_at(accel_t *acc, size_t index, accel_op_builder_t **out);
/* Class name ("CPUAdamBuilder") and op name ("cpu_adam"). */
ACCEL_API const char *accel_op_builder_class_name(const accel_op_builder_t *builder);
ACCEL_API const char *accel_op_builder_op_name(const accel_op_builder_t *builder);
/* Can it build and run here? On false, `reason` (may be NULL) says why. */
ACCEL_API accel_status_t accel_op_builder_is_compatible(accel_op_builder_t *builder, bool *out,
                                                        char *reason, size_t reason_cap);
/* ds_report's "installed" column (DeepSpeed's installed_ops): true when the
 * op is compiled into this library, so loading builds nothing (the host ops:
 * CPUAdam, CPUAdagrad, CPULion, and the fused ops on a host-memory backend);
 * false for device ops, whose kernels are compiled at their first load
 * (NVRTC, OpenCL), a backend's own builders, and NotImplementedBuilder. */
ACCEL_API accel_status_t accel_op_builder_is_installed(const accel_op_builder_t *builder,
                                                       bool *out);
/* What the op runs, for reports: host ops "avx512, 16 threads" (the
 * instruction set the kernels use and the worker pool's threads, which this
 * starts), device ops "cuda device kernels" (", compiled at first load" until
 * loaded). UNSUPPORTED for NotImplementedBuilder; INVALID_ARGUMENT when `cap`
 * bytes cannot hold it. */
ACCEL_API accel_status_t accel_op_builder_implementation(accel_op_builder_t *builder, char *out,
                                                         size_t cap);
/* Build (JIT-compile where the backend compiles) and return the op's function
 * table, whose layout the op's own header defines. Cached: later calls return
 * the same table. */
ACCEL_API accel_status_t accel_op_builder_load(accel_op_builder_t *builder, const void **out);

/* ---------------------------------------------------------------- environment */

/* Names of the variables that restrict visible devices ("CUDA_VISIBLE_DEVICES").
 * The array and strings are owned by the library. */
ACCEL_API accel_status_t accel_visible_devices_envs(const accel_t *acc,
                                                    const char *const **out_names,
                                                    size_t *out_count);
/* Prefixes of variables a multi-node launcher forwards ("NCCL"). */
ACCEL_API accel_status_t accel_export_envs(const accel_t *acc, const char *const **out_prefixes,
                                           size_t *out_count);

/* Receives one variable assignment; return 0 on success, else a nonzero
 * accel_status_t saying why (accel_set_visible_devices_envs returns it; any
 * other nonzero value, such as setenv's -1, reads as INVALID_ARGUMENT). */
typedef int (*accel_env_setter_t)(void *ctx, const char *name, const char *value);
/* Write "0,2" style lists of `ids` into every visible-devices variable:
 * through `setter(ctx, ...)`, or into the process environment when setter is
 * NULL (not thread-safe against concurrent getenv, as setenv never is).
 * Stops at the first setter failure and returns its status (see above);
 * variables set before it keep their new values. */
ACCEL_API accel_status_t accel_set_visible_devices_envs(const accel_t *acc, const int *ids,
                                                        size_t count, accel_env_setter_t setter,
                                                        void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* ACCEL_ACCEL_H */
