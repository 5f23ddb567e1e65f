/* core.h: the private layout of accel_t and its child handles, shared by the
 * files of src/core/. Nothing here is visible to users or backends.
 *
 * Ownership: an accel_t owns its backend state (`self`), one caching allocator
 * and one RNG state per device, the devices' default streams, and the op
 * builder wrappers. Streams, events and graphs created by the user are owned by
 * the user and point back at their accel_t.
 * Threads: fields set at creation are read-only afterwards; `lock` guards the
 * lazy-init state, the lazy-call list and the compile backend; each device's
 * `rng_lock` guards its generator. Per-thread state lives behind `thread_key`.
 */
#ifndef ACCEL_CORE_CORE_H
#define ACCEL_CORE_CORE_H

#include <pthread.h>
#include <stdatomic.h>

#include "accel/accel_backend.h"
#include "allocator.h"
#include "handles.h"
#include "host_cache.h"
#include "pinned.h"

/* Handle tags: checked on entry so a wrong or destroyed handle is refused
 * (user streams, events and graphs live in `handles`, see handles.h, so the
 * check never reads freed memory while their accel_t is open). */
#define ACCEL_TAG_ACCEL  0x61636331u
#define ACCEL_TAG_STREAM 0x61637374u
#define ACCEL_TAG_EVENT  0x61636576u
#define ACCEL_TAG_GRAPH  0x61636772u
#define ACCEL_TAG_DEAD   0xdeadacc1u

typedef struct accel_device_state {
    accel_allocator_t *allocator;
    void *allocator_ctx; /* what the allocator's callbacks receive; freed with it */
    pthread_mutex_t rng_lock;
    uint64_t rng_seed;
    uint64_t rng_offset;
    accel_stream_t *default_stream;
    /* Graphs capturing on a stream of this device, newest first (linked by
     * next_capturing). A block freed while one is capturing is held for the
     * newest until that graph is destroyed (see api_memory.c). */
    pthread_mutex_t capture_lock;
    accel_graph_t *capturing;
} accel_device_state_t;

typedef struct accel_lazy_entry {
    accel_lazy_fn_t fn;
    void *user_data;
    struct accel_lazy_entry *next;
} accel_lazy_entry_t;

struct accel_op_builder {
    accel_t *acc;
    const accel_op_builder_desc_t *desc;
    void *self; /* what desc's functions receive: the backend's state, or acc
                 * for builders core provides over the backend's tables */
    pthread_mutex_t lock;
    const void *loaded; /* the op table once load() succeeded */
};

struct accel {
    uint32_t tag;
    accel_t *next_instance, *prev_instance; /* every open accel_t, see instance.c */
    const accel_backend_ops_t *ops;
    void *self;
    const char *selection_method;
    bool process_wide;

    pthread_mutex_t lock;
    atomic_bool initialized;
    accel_status_t init_status; /* valid once init was attempted */
    char init_error[512];
    bool init_attempted;
    accel_lazy_entry_t *lazy_head;
    char compile_backend[64];

    int device_count;
    accel_device_state_t *devices;
    int initial_device; /* each thread's current device until it sets one */
    pthread_key_t thread_key;

    accel_pinned_registry_t pinned;
    /* accel_pin_memory (api_pinning.c): the backend, read from the
     * environment at first use (0 = not read yet), and DeepSpeed's
     * track_pinned_memory counters. */
    atomic_int pin_backend;
    _Atomic uint64_t pin_tracked_bytes, pin_count;
    /* Freed pinned blocks kept for reuse (host_cache.h). */
    accel_host_cache_t host_cache;

    accel_op_builder_t *builders;
    size_t builder_count;

    accel_handles_t handles; /* the user's streams, events and graphs */

    /* Core's random fills when the backend has no rng_fill: their staging
     * buffers (rng_fallback.c); NULL otherwise. */
    struct accel_rng_fallback *rng_fallback;

    /* accel_find_block's per-thread cache (dispatch.c): every device's
     * allocator bumps `block_generation` when its live blocks change, and
     * `serial` (unique in the process, set at open) tells this accel_t from
     * a later one at the same address. */
    _Atomic uint64_t block_generation;
    uint64_t serial;
};

struct accel_stream {
    uint32_t tag;
    accel_t *acc;
    int device;
    int priority;
    void *impl; /* backend stream; NULL for a default stream */
    bool is_default;
    /* The graph capturing this stream, NULL when none: set and cleared by
     * accel_graph_capture_begin/_end under that graph's lock; read by
     * accel_stream_destroy, which refuses while it is set. */
    _Atomic(accel_graph_t *) capturing;
};

struct accel_event {
    uint32_t tag;
    accel_t *acc;
    int device;
    unsigned flags;
    void *impl;
    /* Set once accel_event_record succeeded (never cleared): elapsed time of
     * an event never recorded is refused in core, whatever the runtime says. */
    atomic_bool recorded;
    /* The backend stream (impl) of its latest record, NULL before one: a
     * host callback of that stream may not wait for it (accel_event_synchronize). */
    _Atomic(void *) recorded_on;
};

typedef enum accel_graph_state {
    ACCEL_GRAPH_EMPTY = 0,
    ACCEL_GRAPH_CAPTURING = 1,
    ACCEL_GRAPH_READY = 2,
} accel_graph_state_t;

/* A graph's private memory pool (api_graph.c): its address is the pool key
 * in every device's allocator. Owned jointly by the graphs using it (one,
 * or several through accel_graph_create_sharing_pool); `graphs` counts them
 * (atomic: graphs may be destroyed on any thread) and the last one destroyed
 * releases the pool's memory and frees this record. */
typedef struct accel_graph_pool {
    atomic_int graphs;
} accel_graph_pool_t;

struct accel_graph {
    uint32_t tag;
    accel_t *acc;
    pthread_mutex_t lock;
    accel_graph_state_t state;
    accel_stream_t *capture_stream;
    void *impl;
    int device;                    /* the capture's device, once capture began */
    accel_graph_t *next_capturing; /* the device's capturing list, under its capture_lock */
    accel_graph_pool_t *pool;      /* where memory allocated during its capture comes from */
};

/* ---- instance.c: making and releasing an accel_t */

/* Build an accel_t over `ops` (calls ops->create; never ops->init). */
accel_status_t accel_instance_create(const accel_backend_ops_t *ops, const char *method,
                                     accel_t **out);
void accel_instance_destroy(accel_t *acc);

/* Initialise the runtime once (thread-safe) and run deferred lazy calls. */
accel_status_t accel_ensure_init(accel_t *acc);

/* ---- api_memory.c: for api_tensor.c */

/* Free a tensor's data block (the one accel_free refuses); NULL is a no-op. */
accel_status_t accel_memory_free_tensor_data(accel_t *acc, void *ptr);

/* ---- validation helpers (dispatch.c); each sets the last error on failure */
accel_status_t accel_check_handle(const accel_t *acc);
/* The one struct_size rule of the structs a caller passes in (accel.h):
 * `given` (the caller's struct_size; the struct is NULL when `present` is
 * false) must be at least `first_size`, the struct's size in the release
 * that introduced it; a larger value is accepted and only this library's
 * part is read or written. INVALID_ARGUMENT naming `type` otherwise. */
accel_status_t accel_check_struct_size(const char *type, bool present, size_t given,
                                       size_t first_size);
/* UNAVAILABLE with a sentence when `acc` has no device (a backend opened by
 * name whose runtime reports 0 devices); every path to device work checks it
 * (accel_resolve_device and accel_resolve_stream do). */
accel_status_t accel_check_has_devices(const accel_t *acc);
/* Resolve ACCEL_CURRENT_DEVICE and range-check; writes the index into *out. */
accel_status_t accel_resolve_device(accel_t *acc, int device, int *out);
accel_status_t accel_check_stream(const accel_stream_t *stream);
/* INVALID_ARGUMENT, saying `what` cannot run, when a graph is capturing on
 * a stream of `device` (api_graph.c): a device synchronize (or anything that
 * waits for the whole device) then fails on CUDA and invalidates the capture
 * (vendor rules: src/backends/cuda/README.md, src/backends/mlu/README.md). */
accel_status_t accel_check_device_not_capturing(accel_t *acc, int device, const char *what);
/* Give back a pinned block from the backend's host_alloc (no longer
 * recorded in acc->pinned): into the pinned host cache, or to host_free
 * when the cache cannot take it (api_memory.c). */
void accel_host_release(accel_t *acc, void *ptr, size_t size);
/* accel_stream_synchronize without its checks, for a stream core already
 * holds as live on an initialised accel_t (a hot path's own checks done). */
accel_status_t accel_stream_wait(accel_stream_t *stream);
accel_status_t accel_check_event(const accel_event_t *event);
/* The stream to queue on: `stream` itself, or the thread's current stream on
 * the current device when NULL. Checks that it belongs to `acc`. */
accel_status_t accel_resolve_stream(accel_t *acc, accel_stream_t *stream, accel_stream_t **out);
/* Find the live block holding `ptr` on any device: its device, start and
 * requested size. NOT_FOUND (no error text) when none holds it. */
accel_status_t accel_find_block(accel_t *acc, const void *ptr, int *out_device, void **out_base,
                                size_t *out_size);
/* Check that [ptr, ptr+size) lies inside one live block of some device's
 * allocator; writes the device index. */
accel_status_t accel_check_device_range(accel_t *acc, const void *ptr, size_t size,
                                        const char *what, int *out_device);
/* Check that [ptr, ptr+size) given as host memory is not device memory the
 * host cannot address: on a backend whose DLPack device type is not kDLCPU
 * (opencl's device addresses are PROT_NONE reservations), a range touching a
 * live block of any device is refused; on one whose device memory is host
 * memory, a range that starts in a live block must end inside it. NULL is
 * refused; size 0 passes. */
accel_status_t accel_check_host_range(accel_t *acc, const void *ptr, size_t size, const char *what);

#endif /* ACCEL_CORE_CORE_H */
