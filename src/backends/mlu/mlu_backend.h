/* mlu_backend.h: the Cambricon mlu backend (docs/architecture.md, Backends) over CNRT
 * (libcnrt.so), shared by the files of src/backends/mlu/. Core needs only
 * accel_mlu_backend_ops(); the rest is private to this folder.
 *
 * Runtime library: libcnrt.so is dlopened once per process (ACCEL_MLU_LIBRARY,
 * then $NEUWARE_HOME/lib64, then the loader's path) and never unloaded;
 * nothing links against Neuware. CNRT has no explicit init call: the runtime
 * makes a thread's context on its first cnrtSetDevice, which the backend
 * issues lazily (never in probe). libcnpx.so, when present, carries the
 * profiler ranges (cnpx.c).
 *
 * Objects and who owns them:
 * - accel_mlu_backend_t: made by create(), freed by destroy(). Fields above
 *   `callbacks` are written in create()/init() before any other slot
 *   runs and are read-only afterwards.
 * - a backend stream is an accel_mlu_stream_t (the cnrtQueue_t and its
 *   emulated-callback count), owned by core's accel_stream_t; NULL is the
 *   device's default queue. Events are CNRT notifiers themselves; graphs are
 *   task-topology entities (graph.c).
 * - the callback thread (stream.c) exists only where CNRT lacks
 *   cnrtInvokeHostFunc; it is started by the first callback, joined by
 *   destroy().
 * Threads: every slot may run on any thread. Before calling CNRT a slot makes
 * its device the calling thread's (accel_mlu_activate: cnrtSetDevice once per
 * thread and device). Fork: in a child forked after the first cnrtSetDevice
 * every slot fails at once (accel_mlu_activate says why); nothing calls CNRT
 * there.
 */
#ifndef ACCEL_BACKENDS_MLU_MLU_BACKEND_H
#define ACCEL_BACKENDS_MLU_MLU_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "accel/accel_backend.h"
#include "accel/accel_backend_utils.h"
#include "backends/mlu/types.h"

/* The mlu backend's ops table (constant, process lifetime). */
const accel_backend_ops_t *accel_mlu_backend_ops(void);

typedef struct accel_mlu_api {
    void *library;
    char path[256]; /* the file that loaded (dladdr), for the report */
    bool memcpy_v2; /* cnrtMemcpyAsync is cnrtMemcpyAsync_V2 */
#define ACCEL_MLU_SYMBOL(required, ret, name, params, export_name) ret(*name) params;
#include "backends/mlu/symbols.h"
#undef ACCEL_MLU_SYMBOL
} accel_mlu_api_t;

/* The CNRT table, loaded once per process; NULL with `reason` (every place
 * tried) when libcnrt cannot be loaded or lacks a required symbol. */
const accel_mlu_api_t *accel_mlu_cnrt(char *reason, size_t cap);

/* True when the CNRT found can capture queues into task topologies (all six
 * capture symbols); otherwise `reason` says which is missing. */
bool accel_mlu_graphs_available(const accel_mlu_api_t *cnrt, char *reason, size_t cap);

/* A backend event: the notifier, the device it was created on (its queues
 * are the only ones that may wait for it, stream.c), and with emulated
 * callbacks the ticket of the last callback queued ahead of its record on
 * the same stream (0: none), so that query and synchronize also wait for
 * that callback to return. */
typedef struct accel_mlu_event {
    accel_cnrt_notifier_t notifier;
    int device; /* set at create, then read-only */
    _Atomic uint64_t callback;
} accel_mlu_event_t;

typedef struct accel_mlu_stream {
    accel_cnrt_queue_t queue;
    int device;
    atomic_bool capturing; /* between graph capture begin and end (graph.c) */
} accel_mlu_stream_t;

typedef struct accel_mlu_backend {
    const accel_mlu_api_t *cnrt;
    int device_count;
    uint64_t instance;       /* unique per create(), keys the per-thread device cache */
    int lib_version[3];      /* cnrtGetLibVersion, set by init() */
    int driver_version[3];   /* cnrtDriverGetVersion (0.0.0 when missing), set by init() */
    bool *bf16;              /* per device, cnrtAttrBF16ComputingSupported, set by init() */
    char graphs_reason[160]; /* why graphs are unsupported, or "" */
    /* emulated callbacks (only without cnrtInvokeHostFunc): one kit
     * emulator, one thread, for every queue (stream.c) */
    accel_callback_emulator_t callbacks;
} accel_mlu_backend_t;

/* Make `device` the calling thread's CNRT device (cnrtSetDevice when it is
 * not already). Fails at once in a child forked after CNRT was used. */
accel_status_t accel_mlu_activate(accel_mlu_backend_t *mlu, int device);
/* The device the calling thread last activated for this backend, or 0. */
int accel_mlu_thread_device(const accel_mlu_backend_t *mlu);
/* True in a child forked after this process made a CNRT context. */
bool accel_mlu_forked(void);
/* The fork refusal: status and sentence. */
accel_status_t accel_mlu_fork_error(void);

/* Turn a failed cnrtRet_t into a status and the thread's last error:
 * "mlu: <what> failed with cnrtRet_t <code> (<name>): <description>".
 * Out-of-memory codes give OUT_OF_MEMORY, everything else DEVICE_ERROR, the
 * code kept as the vendor code. */
accel_status_t accel_mlu_error(const accel_mlu_api_t *cnrt, accel_cnrt_ret_t code,
                               const char *what);

static inline accel_status_t accel_mlu_check(const accel_mlu_api_t *cnrt, accel_cnrt_ret_t code,
                                             const char *what)
{
    return code == ACCEL_CNRT_SUCCESS ? ACCEL_OK : accel_mlu_error(cnrt, code, what);
}

/* Both "not finished" answers of cnrtQueueQuery / cnrtQueryNotifier. */
static inline bool accel_mlu_not_ready(accel_cnrt_ret_t code)
{
    return code == ACCEL_CNRT_ERROR_NOT_READY || code == ACCEL_CNRT_ERROR_BUSY;
}

/* The cnrtQueue_t of a backend stream (NULL stays NULL: the default queue). */
/* The name of the copy call the table holds, for messages. */
static inline const char *accel_mlu_memcpy_name(const accel_mlu_api_t *cnrt)
{
    return cnrt->memcpy_v2 ? "cnrtMemcpyAsync_V2" : "cnrtMemcpyAsync";
}

static inline accel_cnrt_queue_t accel_mlu_queue(void *stream)
{
    return stream != NULL ? ((accel_mlu_stream_t *)stream)->queue : NULL;
}

/* ---------------------------------------------------------------- memory.c */

ACCEL_BACKEND_DECLARE_MEMORY_SLOTS(accel_mlu);
ACCEL_BACKEND_DECLARE_PINNED_SLOTS(accel_mlu);
accel_status_t accel_mlu_memory_info(void *self, int device, uint64_t *free_bytes,
                                     uint64_t *total_bytes);

/* ---------------------------------------------------------------- stream.c */

accel_status_t accel_mlu_synchronize(void *self, int device);
ACCEL_BACKEND_DECLARE_STREAM_SLOTS(accel_mlu);
/* For a collectives engine (CNCL): the device made the calling thread's CNRT
 * device (cnrtSetDevice) and the cnrtQueue_t behind `stream` (NULL: the
 * default queue, NULL to CNRT too). */
accel_status_t accel_mlu_native_stream(void *self, int device, void *stream, void **out);
ACCEL_BACKEND_DECLARE_EVENT_SLOTS(accel_mlu);
/* Set up the callback emulator (create(); no thread yet). */
void accel_mlu_callbacks_init(accel_mlu_backend_t *mlu);
/* Run what is left of the emulated callbacks and join their thread (destroy()). */
void accel_mlu_callbacks_stop(accel_mlu_backend_t *mlu);

/* ---------------------------------------------------------------- graph.c */

ACCEL_BACKEND_DECLARE_GRAPH_SLOTS(accel_mlu);

/* ---------------------------------------------------------------- cnpx.c */

void accel_mlu_range_push(void *self, const char *msg, const char *domain, const char *category);
void accel_mlu_range_pop(void *self, const char *domain);

#endif /* ACCEL_BACKENDS_MLU_MLU_BACKEND_H */
