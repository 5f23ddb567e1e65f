/* npu_backend.h: the Huawei Ascend npu backend (docs/architecture.md, Backends) over the ACL
 * runtime (libascendcl.so), shared by the files of src/backends/npu/. Core
 * needs only accel_npu_backend_ops(); the rest is private to this folder.
 *
 * Runtime library: libascendcl.so is dlopened once per process (found
 * through ACCEL_NPU_LIBRARY, then $ASCEND_HOME_PATH/lib64 and
 * $ASCEND_TOOLKIT_HOME/lib64, then the loader's path) and never unloaded;
 * there is no link-time dependency on any CANN file. aclInit runs once per
 * process, lazily (the first init(), never probe). aclFinalize is never
 * called: CANN allows aclInit again after it, but wants it only from an
 * explicit shutdown, never from a destructor or atexit, and accel has no
 * process-wide shutdown point (README.md).
 *
 * Objects and who owns them:
 * - accel_npu_backend_t: made by create(), freed by destroy(). Fields above
 *   `report_lock` are written in create()/init() before any other slot runs
 *   and are read-only afterwards.
 * - a backend stream is an accel_npu_stream_t (the aclrtStream and whether a
 *   report thread is subscribed to it), owned by core's accel_stream_t. NULL
 *   is the device's default stream: a created aclrtStream too (`defaults`,
 *   made by the first accel_npu_activate of the device, destroyed by
 *   destroy()), never ACL's NULL stream, which HCCL refuses.
 * - a backend event is an accel_npu_event_t (event.c), owned by core's
 *   accel_event_t until event_destroy; a WithFlag event whose record or
 *   waits are still queued then moves to `deferred_events` (the kit's
 *   deferred-release list, made by create(), drained by destroy()) until
 *   they complete.
 * - host callbacks: with aclrtLaunchHostFunc (host_func) the runtime runs
 *   them; otherwise one report thread per device (aclrtProcessReport),
 *   started by the device's first stream_add_callback, joined by destroy().
 * Threads: every slot may run on any thread. Before calling ACL a slot
 * makes its device the calling thread's ACL device (accel_npu_activate,
 * aclrtSetDevice once per thread and device), so no thread needs a prior
 * set_device. Fork: in a child forked after aclInit every slot fails at once
 * (accel_npu_activate says why); nothing calls ACL there.
 */
#ifndef ACCEL_BACKENDS_NPU_NPU_BACKEND_H
#define ACCEL_BACKENDS_NPU_NPU_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "accel/accel_backend.h"
#include "accel/accel_backend_utils.h"
#include "backends/npu/types.h"

/* The npu backend's ops table (constant, process lifetime). */
const accel_backend_ops_t *accel_npu_backend_ops(void);

typedef struct accel_npu_api {
    void *library;
    char path[256]; /* the file that loaded (dladdr), for the report */
#define ACCEL_NPU_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/npu/symbols.h"
#undef ACCEL_NPU_SYMBOL
} accel_npu_api_t;

/* The ACL table, loaded once per process; NULL with `reason` (every place
 * tried) when libascendcl cannot be loaded or lacks a required symbol. */
const accel_npu_api_t *accel_npu_acl(char *reason, size_t cap);

typedef struct accel_npu_stream {
    accel_acl_stream_t handle;
    int device;
    bool subscribed;  /* under the backend's report_lock */
    unsigned pending; /* report-thread callbacks launched, not yet run; report_lock */
} accel_npu_stream_t;

/* One device's report thread (the aclrtLaunchCallback path), under the
 * backend's report_lock. It serves that device's streams only: ACL refuses
 * one thread id on two devices (107012). */
typedef struct accel_npu_report {
    bool running;
    pthread_t thread;
    atomic_bool stop;
    bool failed;                      /* it gave up: aclrtProcessReport kept failing */
    char failure[200];                /* the sentence synchronize and add_callback give then */
    unsigned pending;                 /* callbacks of this device launched, not yet run */
    struct accel_npu_callback *calls; /* those callbacks' records */
} accel_npu_report_t;

/* A backend event (event.c). `recorded` is set by the first record. */
typedef struct accel_npu_event {
    accel_acl_event_t handle;
    int device;
    bool ex; /* aclrtCreateEventExWithFlag: destroy at once */
    atomic_bool recorded;
    atomic_bool waited;    /* a stream was made to wait on it */
    unsigned synchronized; /* the device's synchronize count when destroyed */
} accel_npu_event_t;

typedef struct accel_npu_backend {
    const accel_npu_api_t *acl;
    int device_count;
    uint64_t instance;             /* unique per create(), keys the per-thread device cache */
    char soc_name[64];             /* aclrtGetSocName, set by init() */
    bool bf16;                     /* Ascend 910B and later, from soc_name */
    accel_acl_mem_attr_t mem_attr; /* HBM, or DDR on 310-class parts */
    int32_t version[3];            /* aclrtGetVersion, set by init() */

    bool host_func; /* callbacks through aclrtLaunchHostFunc, never aclrtLaunchCallback */

    pthread_mutex_t defaults_lock; /* guards making `defaults` handles */
    accel_npu_stream_t *defaults;  /* per device: its default stream (handle NULL until made) */

    pthread_mutex_t report_lock;   /* guards `reports` and every stream's subscribed/pending */
    pthread_cond_t report_changed; /* a callback ran or a report thread gave up */
    accel_npu_report_t *reports;   /* per device */

    /* WithFlag events destroyed with work still queued (event.c), and per
     * device how many aclrtSynchronizeDevice calls have completed. */
    struct accel_deferred_release *deferred_events;
    atomic_uint *synchronized;

    /* The host ranges ACL page-locked for this backend (host_alloc,
     * host_register), no payload: a copy whose host side lies elsewhere is
     * pageable and takes the synchronous path (copy.c). */
    pthread_mutex_t pinned_lock;
    accel_range_map_t pinned;

    /* Staging buffers of unaligned device-to-device copies (copy.c), each
     * freed once an event recorded after its copy completes. Made by
     * create(), drained by destroy(); the list locks itself. */
    accel_deferred_release_t *copy_staging;
} accel_npu_backend_t;

/* Make `device` the calling thread's ACL device (aclrtSetDevice when it is
 * not already). Fails at once in a child forked after aclInit. */
accel_status_t accel_npu_activate(accel_npu_backend_t *npu, int device);
/* The device the calling thread last activated for this backend, or 0. */
int accel_npu_thread_device(const accel_npu_backend_t *npu);
/* True in a child forked after this process ran aclInit. */
bool accel_npu_forked(void);

/* Turn a failed aclError into a status and the thread's last error:
 * "npu: <what> failed with aclError <code> (<name>): <runtime's message>".
 * Out-of-memory codes give OUT_OF_MEMORY, everything else DEVICE_ERROR, the
 * code kept as the vendor code. Call on the thread that made the call (the
 * runtime's message is per thread). */
accel_status_t accel_npu_error(const accel_npu_api_t *acl, accel_acl_error_t code,
                               const char *what);

static inline accel_status_t accel_npu_check(const accel_npu_api_t *acl, accel_acl_error_t code,
                                             const char *what)
{
    return code == ACCEL_ACL_SUCCESS ? ACCEL_OK : accel_npu_error(acl, code, what);
}

/* Make `device` the calling thread's ACL device (accel_npu_activate) and
 * give the aclrtStream behind the backend stream `stream` in *out: NULL is
 * the device's created default stream (made by its first activation), never
 * ACL's NULL stream, which HCCL refuses. Every slot that names a stream
 * gets its handle here, so the default stream exists whatever the order. */
accel_status_t accel_npu_stream_handle(accel_npu_backend_t *npu, int device, void *stream,
                                       accel_acl_stream_t *out);

/* ---------------------------------------------------------------- copy.c */

/* npu->copy_staging over the backend's own events (create()); OUT_OF_MEMORY. */
accel_status_t accel_npu_copy_staging_open(accel_npu_backend_t *npu);
/* Wait for and free what it holds, then free it; in a forked child free the
 * list alone, calling nothing (destroy()). */
void accel_npu_copy_staging_close(accel_npu_backend_t *npu);

/* ---------------------------------------------------------------- memory.c */

/* Whether [ptr, ptr + size) lies in one range ACL page-locked for `npu`
 * (npu->pinned). Any thread. */
bool accel_npu_host_pinned(accel_npu_backend_t *npu, const void *ptr, size_t size);

ACCEL_BACKEND_DECLARE_MEMORY_SLOTS(accel_npu);
ACCEL_BACKEND_DECLARE_PINNED_SLOTS(accel_npu);
ACCEL_BACKEND_DECLARE_REGISTER_SLOTS(accel_npu);
accel_status_t accel_npu_memory_info(void *self, int device, uint64_t *free_bytes,
                                     uint64_t *total_bytes);

/* ---------------------------------------------------------------- stream.c */

/* Make device `device`'s default stream if it is not made yet (the calling
 * thread's device is `device`); its handle in *out. */
accel_status_t accel_npu_default_stream_make(accel_npu_backend_t *npu, int device,
                                             accel_acl_stream_t *out);
/* Destroy the default streams (destroy(), after the report threads). */
void accel_npu_default_streams_release(accel_npu_backend_t *npu);

accel_status_t accel_npu_synchronize(void *self, int device);
ACCEL_BACKEND_DECLARE_STREAM_SLOTS(accel_npu);
/* For a collectives engine (HCCL): the device made the calling thread's ACL
 * device (aclrtSetDevice, as HCCL expects) and the aclrtStream behind
 * `stream` (NULL: the device's created default stream; HCCL refuses ACL's
 * NULL stream with HCCL_E_PTR). */
accel_status_t accel_npu_native_stream(void *self, int device, void *stream, void **out);
ACCEL_BACKEND_DECLARE_EVENT_SLOTS(accel_npu);
/* Stream before event, as the event_record slot takes them. */
/* Stop the report threads and unsubscribe the default streams (destroy()). */
void accel_npu_report_stop(accel_npu_backend_t *npu);

/* ---------------------------------------------------------------- event.c */

/* The deferred-release list of destroyed WithFlag events (create()). */
accel_status_t accel_npu_events_init(accel_npu_backend_t *npu);
/* `device` (the calling thread's) was just synchronized: count it and free
 * the deferred events that are now idle. */
void accel_npu_events_settled(accel_npu_backend_t *npu, int device);
/* Wait for and destroy every deferred event, then free the list
 * (destroy(); in a forked child only the list's own records). */
void accel_npu_events_release(accel_npu_backend_t *npu);

#endif /* ACCEL_BACKENDS_NPU_NPU_BACKEND_H */
