/* npu_backend.h: the Huawei Ascend npu backend (DESIGN.md §6) over the ACL
 * runtime (libascendcl.so), shared by the files of src/backends/npu/. Core
 * needs only accel_npu_backend_ops(); the rest is private to this folder.
 *
 * Runtime library: libascendcl.so is dlopened once per process (found
 * through ACCEL_NPU_LIBRARY, then $ASCEND_HOME_PATH/lib64 and
 * $ASCEND_TOOLKIT_HOME/lib64, then the loader's path) and never unloaded;
 * there is no link-time dependency on any CANN file. aclInit runs once per
 * process, lazily (the first init(), never probe); aclFinalize is never
 * called, since CANN refuses a second aclInit in the same process.
 *
 * Objects and who owns them:
 * - accel_npu_backend_t: made by create(), freed by destroy(). Fields above
 *   `report_lock` are written in create()/init() before any other slot runs
 *   and are read-only afterwards.
 * - a backend stream is an accel_npu_stream_t (the aclrtStream and whether a
 *   report thread is subscribed to it), owned by core's accel_stream_t; NULL
 *   is the device's default stream. Events are ACL's own aclrtEvent.
 * - the report thread, which runs host callbacks (aclrtProcessReport), is
 *   started by the first stream_add_callback and joined by destroy().
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
    bool subscribed; /* under the backend's report_lock */
} accel_npu_stream_t;

typedef struct accel_npu_backend {
    const accel_npu_api_t *acl;
    int device_count;
    uint64_t instance;             /* unique per create(), keys the per-thread device cache */
    char soc_name[64];             /* aclrtGetSocName, set by init() */
    bool bf16;                     /* Ascend 910B and later, from soc_name */
    accel_acl_mem_attr_t mem_attr; /* HBM, or DDR on 310-class parts */
    int32_t version[3];            /* aclrtGetVersion, set by init() */

    pthread_mutex_t report_lock; /* guards everything below */
    bool report_running;
    pthread_t report_thread;
    atomic_bool report_stop;
    bool *default_subscribed; /* per device: the default stream is subscribed */
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

/* The aclrtStream of a backend stream (NULL stays NULL: the default stream). */
static inline accel_acl_stream_t accel_npu_handle(void *stream)
{
    return stream != NULL ? ((accel_npu_stream_t *)stream)->handle : NULL;
}

/* ---------------------------------------------------------------- memory.c */

accel_status_t accel_npu_mem_alloc(void *self, int device, size_t size, void **out);
void accel_npu_mem_free(void *self, int device, void *ptr);
accel_status_t accel_npu_memcpy_async(void *self, int device, void *dst, const void *src,
                                      size_t size, accel_copy_kind_t kind, void *stream);
accel_status_t accel_npu_memset_async(void *self, int device, void *dst, int value, size_t size,
                                      void *stream);
accel_status_t accel_npu_host_alloc(void *self, size_t size, void **out);
void accel_npu_host_free(void *self, void *ptr, size_t size);
accel_status_t accel_npu_host_register(void *self, void *ptr, size_t size);
void accel_npu_host_unregister(void *self, void *ptr, size_t size);
accel_status_t accel_npu_memory_info(void *self, int device, uint64_t *free_bytes,
                                     uint64_t *total_bytes);

/* ---------------------------------------------------------------- stream.c */

accel_status_t accel_npu_synchronize(void *self, int device);
accel_status_t accel_npu_stream_create(void *self, int device, int priority, void **out);
void accel_npu_stream_destroy(void *self, int device, void *stream);
accel_status_t accel_npu_stream_synchronize(void *self, int device, void *stream);
/* For a collectives engine (HCCL): the device made the calling thread's ACL
 * device (aclrtSetDevice, as HCCL expects) and the aclrtStream behind
 * `stream` (NULL: the device's default stream, NULL to ACL too). */
accel_status_t accel_npu_native_stream(void *self, int device, void *stream, void **out);
accel_status_t accel_npu_stream_query(void *self, int device, void *stream);
accel_status_t accel_npu_stream_wait_event(void *self, int device, void *stream, void *event);
accel_status_t accel_npu_stream_add_callback(void *self, int device, void *stream,
                                             accel_host_fn_t fn, void *user_data);
accel_status_t accel_npu_event_create(void *self, int device, unsigned flags, void **out);
void accel_npu_event_destroy(void *self, int device, void *event);
/* Stream before event, as the event_record slot takes them. */
accel_status_t accel_npu_event_record(void *self, int device, void *stream, void *event);
accel_status_t accel_npu_event_synchronize(void *self, int device, void *event);
accel_status_t accel_npu_event_query(void *self, int device, void *event);
accel_status_t accel_npu_event_elapsed_ms(void *self, int device, void *start, void *end,
                                          float *out);
/* Stop the report thread and unsubscribe the default streams (destroy()). */
void accel_npu_report_stop(accel_npu_backend_t *npu);

#endif /* ACCEL_BACKENDS_NPU_NPU_BACKEND_H */
