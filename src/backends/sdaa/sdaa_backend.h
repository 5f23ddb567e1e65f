/* sdaa_backend.h: the Tecorigin sdaa backend (docs/architecture.md, Backends) over the SDAA
 * runtime (libsdaart.so), shared by the files of src/backends/sdaa/. Core
 * needs only accel_sdaa_backend_ops(); the rest is private to this folder.
 *
 * Runtime library: libsdaart.so is dlopened once per process (found through
 * ACCEL_SDAA_LIBRARY, then /opt/tecoai/lib64, then the loader's path) and
 * never unloaded; there is no link-time dependency on any Teco file. The
 * runtime, a HIP/CUDA-runtime clone, has no explicit init call: it starts on
 * first use. Probe calls only sdaaGetDeviceCount; init() (once per backend,
 * lazily) is the first call that opens a device, and from then on the
 * process counts as having started the runtime (the fork rule below).
 *
 * Objects and who owns them:
 * - accel_sdaa_backend_t: made by create(), freed by destroy(). Its fields
 *   are written in create()/init() before any other slot runs and are
 *   read-only afterwards.
 * - a backend stream is the runtime's sdaaStream_t itself, owned by core's
 *   accel_stream_t; NULL is the device's default stream. Events are the
 *   runtime's sdaaEvent_t.
 * - a host callback's record (stream.c) is owned by the runtime from a
 *   successful sdaaStreamAddCallback until the callback has run, which frees
 *   it.
 * Threads: every slot may run on any thread. Before calling the runtime a
 * slot makes its device the calling thread's device (accel_sdaa_activate,
 * sdaaSetDevice once per thread and device), so no thread needs a prior
 * set_device. A host callback runs on a runtime thread and may not call the
 * runtime (the CUDA rule the API copies): every slot refuses, with a
 * sentence, when called from inside one. Fork: in a child forked after the
 * runtime was started every slot fails at once; nothing calls the runtime
 * there.
 */
#ifndef ACCEL_BACKENDS_SDAA_SDAA_BACKEND_H
#define ACCEL_BACKENDS_SDAA_SDAA_BACKEND_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "accel/accel_backend.h"
#include "accel/accel_backend_utils.h"
#include "backends/sdaa/types.h"

/* The sdaa backend's ops table (constant, process lifetime). */
const accel_backend_ops_t *accel_sdaa_backend_ops(void);

typedef struct accel_sdaa_api {
    void *library;
    char path[256]; /* the file that loaded (dladdr), for the report */
#define ACCEL_SDAA_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/sdaa/symbols.h"
#undef ACCEL_SDAA_SYMBOL
} accel_sdaa_api_t;

/* The runtime table, loaded once per process; NULL with `reason` (every
 * place tried) when libsdaart cannot be loaded or lacks a required symbol. */
const accel_sdaa_api_t *accel_sdaa_runtime(char *reason, size_t cap);

typedef struct accel_sdaa_backend {
    const accel_sdaa_api_t *rt;
    /* Destroyed events whose record was still queued: each is destroyed once
     * a query says it completed (stream.c); drained at destroy(). */
    accel_deferred_release_t *destroyed_events;
    int device_count;
    uint64_t instance;   /* unique per create(), keys the per-thread device cache */
    int runtime_version; /* sdaaRuntimeGetVersion, set by init() */
    int driver_version;  /* sdaaDriverGetVersion, or -1 when not exported */
} accel_sdaa_backend_t;

/* The fence callbacks of `destroyed_events` (stream.c): the events
 * themselves are the fences. */
extern const accel_deferred_fence_ops_t accel_sdaa_event_fence;

/* Make `device` the calling thread's device (sdaaSetDevice when it is not
 * already). Fails at once in a child forked after the runtime was started,
 * and inside a host callback. */
accel_status_t accel_sdaa_activate(accel_sdaa_backend_t *sdaa, int device);
/* The device the calling thread last activated for this backend, or 0. */
int accel_sdaa_thread_device(const accel_sdaa_backend_t *sdaa);
/* True in a child forked after this process started the runtime. */
bool accel_sdaa_forked(void);

/* Turn a failed sdaaError_t into a status and the thread's last error:
 * "sdaa: <what> failed with sdaaError_t <code> (<name>): <description>".
 * sdaaErrorOutOfMemory gives OUT_OF_MEMORY, everything else DEVICE_ERROR,
 * the code kept as the vendor code. */
accel_status_t accel_sdaa_error(const accel_sdaa_api_t *rt, accel_sdaa_error_t code,
                                const char *what);

static inline accel_status_t accel_sdaa_check(const accel_sdaa_api_t *rt, accel_sdaa_error_t code,
                                              const char *what)
{
    return code == ACCEL_SDAA_SUCCESS ? ACCEL_OK : accel_sdaa_error(rt, code, what);
}

/* ---------------------------------------------------------------- memory.c */

ACCEL_BACKEND_DECLARE_MEMORY_SLOTS(accel_sdaa);
ACCEL_BACKEND_DECLARE_PINNED_SLOTS(accel_sdaa);
accel_status_t accel_sdaa_memory_info(void *self, int device, uint64_t *free_bytes,
                                      uint64_t *total_bytes);

/* ---------------------------------------------------------------- stream.c */

accel_status_t accel_sdaa_synchronize(void *self, int device);
ACCEL_BACKEND_DECLARE_STREAM_SLOTS(accel_sdaa);
/* For a collectives engine (TCCL): the device made the calling thread's
 * device (sdaaSetDevice) and the sdaaStream_t itself (NULL: the default
 * stream). */
accel_status_t accel_sdaa_native_stream(void *self, int device, void *stream, void **out);
ACCEL_BACKEND_DECLARE_EVENT_SLOTS(accel_sdaa);
/* Stream before event, as the event_record slot takes them. */

#endif /* ACCEL_BACKENDS_SDAA_SDAA_BACKEND_H */
