/* xpu_backend.h: the Intel xpu backend (docs/architecture.md, Backends) over Level Zero
 * (libze_loader.so.1), shared by the files of src/backends/xpu/. Core needs
 * only accel_xpu_backend_ops(); the rest is private to this folder.
 *
 * Runtime library: the Level Zero loader is dlopened once per process
 * (ACCEL_XPU_LIBRARY, then libze_loader.so.1 on the loader's path) and never
 * unloaded; nothing links against it. The loader finds the drivers itself
 * (libze_intel_gpu.so.1, or ZE_ENABLE_ALT_DRIVERS).
 * zeInit: Level Zero cannot count devices before zeInit, so the first probe
 * or create() calls zeInit(0) once per process (it creates no context and
 * every later call of it is a no-op); init() makes the context.
 *
 * Objects and who owns them:
 * - accel_xpu_backend_t: made by create(), freed by destroy(). Fields above
 *   `lock` are written by create()/init() before any other slot runs and are
 *   read-only afterwards.
 * - one Level Zero context per backend (the chosen driver's), made by init().
 * - a backend stream is an accel_xpu_stream_t: an immediate command list
 *   (kept in order with barriers) plus the marker events that tell the host when it has drained. It
 * is owned by core's accel_stream_t; NULL is the device's default stream, owned by the backend
 * (made by init(), destroyed by destroy()).
 * - a backend event is an accel_xpu_event_t: its own one-event pool
 *   (host-visible, with kernel timestamps when timed).
 * - device and host (pinned) USM allocations are the caller's; the backend
 *   keeps their ranges (sizes, for memory_info and for telling pinned host
 *   memory from pageable) until they are freed.
 * Threads: every slot may run on any thread. A command list is used by one
 *   thread at a time (Level Zero's rule): each stream's `lock` is held around
 *   every append. Fork: in a child forked after zeInit every slot fails at
 *   once (accel_xpu_usable says why); nothing calls Level Zero there.
 */
#ifndef ACCEL_BACKENDS_XPU_XPU_BACKEND_H
#define ACCEL_BACKENDS_XPU_XPU_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "accel/accel_backend.h"
#include "accel/accel_backend_utils.h"
#include "backends/xpu/types.h"

/* The xpu backend's ops table (constant, process lifetime). */
const accel_backend_ops_t *accel_xpu_backend_ops(void);

typedef struct accel_xpu_api {
    char path[256]; /* the loader that loaded (dladdr), for the report */
#define ACCEL_ZE_SYMBOL(required, ret, name, params, export_name) ret(*name) params;
#include "backends/xpu/symbols.h"
#undef ACCEL_ZE_SYMBOL
} accel_xpu_api_t;

/* The Level Zero table, loaded once per process; NULL with `reason` (every
 * place tried) when the loader cannot be loaded or lacks a symbol. */
const accel_xpu_api_t *accel_xpu_ze(char *reason, size_t cap);

/* The devices one backend uses at most (the first GPUs the driver lists). */
#define ACCEL_XPU_MAX_DEVICES 64

/* A queued command that names an event: the stream's id and its `appended`
 * once the command was in. */
typedef struct accel_xpu_mark {
    uint64_t stream;
    uint64_t at;
} accel_xpu_mark_t;

typedef struct accel_xpu_event {
    accel_ze_event_pool_t pool; /* visible to every device of the backend */
    accel_ze_event_t handle;
    int device;
    bool timing;                  /* the pool has kernel timestamps */
    atomic_bool recorded;         /* recorded at least once (else: complete) */
    struct accel_xpu_event *next; /* in a stream's marker lists */
    uint64_t at;                  /* as a marker: the stream's `appended` when signalled */
    /* As a user event re-recorded: the reset is appended to the stream ahead
     * of the new signal, so until the stream has passed `record_at` the
     * handle may still show the previous record's signal. Under the
     * backend's `lock`. */
    bool reset_pending;
    uint64_t record_stream; /* the stream's id */
    uint64_t record_at;     /* the stream's `appended` after the signal */
    /* As a user event: the streams whose queued records of it or waits for
     * it may not have run yet (stream.c prunes them at destroy). Under the
     * backend's `lock`. `marks_lost`: a mark could not be kept (no host
     * memory), so destroy waits for every device. */
    accel_xpu_mark_t *marks;
    size_t mark_count, mark_cap;
    bool marks_lost;
} accel_xpu_event_t;

typedef struct accel_xpu_stream {
    accel_ze_list_t list;
    int device;
    uint64_t id;          /* unique in the backend (a destroyed stream's address may be reused) */
    pthread_mutex_t lock; /* guards the list and everything below */
    uint64_t appended;    /* commands appended so far */
    uint64_t marked;      /* `appended` when the newest query marker was appended */
    uint64_t completed;   /* the largest `appended` a signalled marker covered */
    accel_xpu_event_t *pending;          /* query markers still in flight, oldest first */
    accel_xpu_event_t *idle;             /* reset markers ready for reuse */
    struct accel_xpu_stream *next;       /* in the backend's list (backend `lock`) */
    struct accel_xpu_backend *backend;   /* the owner, for the callback ops */
    accel_callback_emulator_t callbacks; /* host callbacks (callback.c) */
} accel_xpu_stream_t;

typedef struct accel_xpu_device {
    accel_ze_device_t handle;
    accel_ze_device_properties_t props;
    /* ns per timer tick: 1e9 / timerResolution read with the 1.2 stype
     * (ticks per second) when the driver is 1.2 or later, else the 1.0
     * stype's whole ns per tick (ze_api.h:1171-1175: 52 for a 19.2 MHz
     * timer's 52.083, 0.16 % short). */
    double tick_ns;
    uint64_t total_memory;    /* sum of zeDeviceGetMemoryProperties' totalSize */
    uint32_t compute_ordinal; /* the first command queue group with COMPUTE */
    accel_xpu_stream_t *default_stream;
} accel_xpu_device_t;

typedef struct accel_xpu_backend {
    const accel_xpu_api_t *ze;
    accel_ze_driver_t driver;
    uint32_t driver_count;
    int device_count;
    accel_xpu_device_t *devices;
    accel_ze_context_t context; /* init() */
    uint32_t driver_version;    /* init() */
    /* Destroyed events still named by queued commands (stream.c), freed
     * once the streams pass them; made by create(), drained by destroy().
     * The list has its own lock. */
    accel_deferred_release_t *deferred;

    pthread_mutex_t lock;            /* guards everything below */
    accel_xpu_stream_t *streams;     /* every live stream, default ones included */
    uint64_t stream_ids;             /* the last stream id given */
    accel_range_map_t device_ranges; /* device USM: payload int device */
    accel_range_map_t host_ranges;   /* host USM (pinned): no payload */
    uint64_t *allocated;             /* per device: bytes in device USM */
} accel_xpu_backend_t;

/* ACCEL_OK, or the fork error when this is a child forked after zeInit. */
accel_status_t accel_xpu_usable(void);

/* Turn a failed ze_result_t into a status and the thread's last error:
 * "xpu: <what> failed with ze_result_t 0x<code> (<name>)". Out-of-memory
 * codes give OUT_OF_MEMORY, the rest DEVICE_ERROR; the code is kept as the
 * vendor code. */
accel_status_t accel_xpu_error(accel_ze_result_t code, const char *what);

static inline accel_status_t accel_xpu_check(accel_ze_result_t code, const char *what)
{
    return code == ACCEL_ZE_SUCCESS ? ACCEL_OK : accel_xpu_error(code, what);
}

/* The stream to use: `stream`, or the device's default one. */
static inline accel_xpu_stream_t *accel_xpu_stream(accel_xpu_backend_t *xpu, int device,
                                                   void *stream)
{
    return stream != NULL ? stream : xpu->devices[device].default_stream;
}

/* ---------------------------------------------------------------- memory.c */

ACCEL_BACKEND_DECLARE_MEMORY_SLOTS(accel_xpu);
ACCEL_BACKEND_DECLARE_PINNED_SLOTS(accel_xpu);
accel_status_t accel_xpu_memory_info(void *self, int device, uint64_t *free_bytes,
                                     uint64_t *total_bytes);

/* ---------------------------------------------------------------- stream.c */

/* The backend's deferred-release list over stream marks (create()). */
accel_status_t accel_xpu_deferred_new(accel_xpu_backend_t *xpu);
/* An event with its own pool; `timing` adds kernel timestamps. */
accel_status_t accel_xpu_event_new(accel_xpu_backend_t *xpu, int device, bool timing,
                                   accel_xpu_event_t **out);
void accel_xpu_event_free(accel_xpu_backend_t *xpu, accel_xpu_event_t *event);
/* Make a stream (an immediate command list) and list it in the backend. */
accel_status_t accel_xpu_stream_new(accel_xpu_backend_t *xpu, int device, unsigned priority,
                                    accel_xpu_stream_t **out);
void accel_xpu_stream_free(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream);
/* Append a barrier: what comes next starts after everything before it.
 * Under the stream's lock. */
accel_status_t accel_xpu_barrier(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream);
/* Wait until everything appended to `stream` so far has run. */
accel_status_t accel_xpu_stream_drain(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream);

accel_status_t accel_xpu_synchronize(void *self, int device);
ACCEL_BACKEND_DECLARE_STREAM_SLOTS(accel_xpu);
ACCEL_BACKEND_DECLARE_EVENT_SLOTS(accel_xpu);

/* ---------------------------------------------------------------- callback.c */

/* The stream of `device` whose callback the calling thread runs, or NULL. */
accel_xpu_stream_t *accel_xpu_callback_stream(accel_xpu_backend_t *xpu, int device);
/* Set up a new stream's host-callback emulator (no thread yet). */
void accel_xpu_callbacks_init(accel_xpu_backend_t *xpu, accel_xpu_stream_t *stream);
/* Let the stream's callback thread finish and join it (stream destruction,
 * after a drain). */
void accel_xpu_callbacks_stop(accel_xpu_stream_t *stream);

#endif /* ACCEL_BACKENDS_XPU_XPU_BACKEND_H */
