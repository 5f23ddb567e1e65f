/* hpu_backend.h: the Habana Gaudi hpu backend (docs/architecture.md, Backends) over SynapseAI
 * (libSynapse.so), shared by the files of src/backends/hpu/. Core needs only
 * accel_hpu_backend_ops(); the rest is private to this folder.
 *
 * Libraries: libSynapse.so (ACCEL_HPU_LIBRARY, then the loader's path, then
 * /usr/lib/habanalabs) and, for counting devices without acquiring one,
 * libhlml.so (ACCEL_HPU_HLML_LIBRARY, the loader's path, /usr/lib/habanalabs)
 * are dlopened once per process and never unloaded. synInitialize runs once
 * per process, lazily (the first init(), never probe); synDestroy is never
 * called (another user of Synapse in the process may still need it).
 *
 * Devices: accel device i is the Gaudi with module id module_ids[i]
 * (HABANA_VISIBLE_MODULES' i-th entry, else HLML's module id of index i, else
 * i). A Gaudi is acquired (synDeviceAcquireByModuleId) on first use only, and
 * a process can hold a Gaudi once: the acquisitions are a process-wide table
 * shared by every backend instance, released when the last instance that
 * used it is destroyed. Properties, fp16 and free memory of devices not in
 * use are asked by module id, which acquires nothing.
 *
 * Streams and host callbacks: Synapse has no host callback, so a backend
 * stream keeps a host-side queue of deferred work. Work is handed to
 * Synapse at once while that queue is empty; a callback goes in the queue,
 * and everything queued behind it (copies, fills, event records, waits)
 * waits there until the stream's worker thread has seen the stream drain
 * (synStreamSynchronize), run the callback and submitted it, in order. So
 * later work waits for the callback, as CUDA's host functions make it.
 * A failure in deferred work is kept on the stream and returned by its next
 * synchronize or query (and the device's synchronize).
 *
 * Objects and who owns them:
 * - accel_hpu_backend_t: made by create(), freed by destroy(); the fields
 *   above `lock` are written by create()/init() and read-only afterwards.
 * - accel_hpu_stream_t: made by stream_create (owned by core's stream) or per
 *   device on acquisition (the default stream, NULL in the slots; owned by
 *   the backend).
 * - accel_hpu_event_t: owned by core's event; destroy marks it and the last
 *   deferred item naming it frees it.
 * - staging buffers (pinned copies of pageable sources) belong to their copy's
 *   queue item until the copy is handed to Synapse, then to the backend's
 *   deferred-release list until an event recorded after the copy completes.
 * Threads: every slot may run on any thread. `lock` guards every stream's
 * queue, every event's counters and the acquisitions' default streams;
 * `changed` is broadcast whenever any of them moves. Fork: in a child forked
 * after synInitialize every slot fails at once; nothing calls Synapse there.
 */
#ifndef ACCEL_BACKENDS_HPU_HPU_BACKEND_H
#define ACCEL_BACKENDS_HPU_HPU_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "accel/accel_backend.h"
#include "accel/accel_backend_utils.h"
#include "backends/hpu/types.h"

#define ACCEL_HPU_MAX_DEVICES 64

/* The hpu backend's ops table (constant, process lifetime). */
const accel_backend_ops_t *accel_hpu_backend_ops(void);

typedef struct accel_hpu_api {
    void *library;
    char path[256]; /* the file that loaded (dladdr), for messages */
#define ACCEL_HPU_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/hpu/symbols.h"
#undef ACCEL_HPU_SYMBOL
} accel_hpu_api_t;

/* The Synapse table, loaded once per process; NULL with `reason` (every
 * place tried, or the symbol missing) when it cannot be had. */
const accel_hpu_api_t *accel_hpu_synapse(char *reason, size_t cap);

typedef enum accel_hpu_item_kind {
    ACCEL_HPU_ITEM_COPY,
    ACCEL_HPU_ITEM_MEMSET,
    ACCEL_HPU_ITEM_RECORD,
    ACCEL_HPU_ITEM_WAIT,
    ACCEL_HPU_ITEM_CALLBACK,
} accel_hpu_item_kind_t;

typedef struct accel_hpu_stream accel_hpu_stream_t;

typedef struct accel_hpu_event {
    accel_syn_event_t handle;
    int device;
    bool timing;
    /* under the backend's lock: */
    uint64_t requested;              /* records asked for */
    uint64_t submitted;              /* records handed to Synapse */
    accel_hpu_stream_t *last_stream; /* the stream of the latest record */
    unsigned refs;                   /* deferred items naming the event */
    bool destroyed;                  /* destroy ran; freed when refs reach 0 */
} accel_hpu_event_t;

/* A pinned buffer a queued copy reads from, with the event to record after
 * that copy (memory.c makes it; stream.c hands it on). */
typedef struct accel_hpu_staging {
    void *ptr;
    size_t size;
    int device;
    accel_syn_event_t copied;
} accel_hpu_staging_t;

typedef struct accel_hpu_item {
    accel_hpu_item_kind_t kind;
    uint64_t src, dst, size;      /* COPY (size: MEMSET too) */
    accel_syn_dma_dir_t dir;      /* COPY */
    unsigned char value;          /* MEMSET */
    accel_hpu_staging_t *staging; /* COPY from/to a staging buffer, or NULL */
    accel_hpu_event_t *event;     /* RECORD, WAIT */
    uint64_t target;              /* WAIT: the record count to wait for */
    accel_host_fn_t fn;           /* CALLBACK */
    void *user_data;
    struct accel_hpu_item *next;
} accel_hpu_item_t;

struct accel_hpu_stream {
    struct accel_hpu_backend *backend; /* the owner, for the worker */
    accel_syn_stream_t handle;
    int device;
    /* under the backend's lock: */
    accel_hpu_item_t *head, *tail; /* deferred work, in order */
    bool worker_running, stop;
    pthread_t worker;
    struct accel_hpu_stream *next; /* in the backend's `streams` */
    bool failed;                   /* a deferred submission failed */
    accel_syn_status_t fail_code;
    char fail_what[96];
};

typedef struct accel_hpu_device {
    accel_syn_module_id_t module;
    uint64_t type;      /* synDeviceType, by module id at init */
    uint64_t dram_size; /* bytes, by module id at init */
    uint64_t clock_mhz;
    bool used;                          /* this instance holds a reference on the acquisition */
    accel_syn_device_id_t id;           /* valid when used */
    accel_hpu_stream_t *default_stream; /* made when first used */
} accel_hpu_device_t;

typedef struct accel_hpu_backend {
    const accel_hpu_api_t *syn;
    int device_count;
    uint64_t instance;
    char detection[200];     /* how the devices were counted, for messages */
    char driver_version[64]; /* synDriverGetVersion */
    accel_hpu_device_t devices[ACCEL_HPU_MAX_DEVICES];

    pthread_mutex_t acquire_lock; /* guards devices[].used/id/default_stream */
    pthread_mutex_t lock;         /* see the header comment */
    pthread_cond_t changed;
    accel_hpu_stream_t *streams; /* every live stream, default ones too */
    pthread_mutex_t pinned_lock; /* guards `pinned` */
    accel_range_map_t pinned;    /* host ranges from host_alloc/host_register */
    /* Pinned buffers of copies handed to Synapse, freed once the event after
     * each completes (thread-safe itself; made by create(), drained by
     * destroy()). */
    accel_deferred_release_t *staging;
} accel_hpu_backend_t;

/* Pinned ranges carry this payload. */
typedef struct accel_hpu_pinned {
    accel_syn_device_id_t device_id; /* the Gaudi it was allocated or mapped on */
    bool allocated;                  /* synHostMalloc (else synHostMap) */
} accel_hpu_pinned_t;

/* ---------------------------------------------------------------- backend.c */

/* "hpu: <what> failed with synStatus <code> (<name>: <description>)" as the
 * thread's last error. Out-of-memory codes give OUT_OF_MEMORY (so the
 * caching allocator frees and retries), everything else DEVICE_ERROR, the
 * code kept as the vendor code. */
accel_status_t accel_hpu_error(const accel_hpu_api_t *syn, accel_syn_status_t code,
                               const char *what);
static inline accel_status_t accel_hpu_check(const accel_hpu_api_t *syn, accel_syn_status_t code,
                                             const char *what)
{
    return code == ACCEL_SYN_SUCCESS ? ACCEL_OK : accel_hpu_error(syn, code, what);
}
/* The name of a synStatus value ("synBusy"), or "an unlisted synStatus". */
const char *accel_hpu_status_name(accel_syn_status_t code);
/* True in a child forked after this process ran synInitialize. */
bool accel_hpu_forked(void);
/* The fork refusal sentence as the thread's error. */
accel_status_t accel_hpu_fork_error(void);
/* `device` acquired for this backend (once per process), with its default
 * stream; *out (when not NULL) gets its state. Fails at once in a forked
 * child; says so when another process holds the Gaudi. */
accel_status_t accel_hpu_acquire(accel_hpu_backend_t *hpu, int device, accel_hpu_device_t **out);
/* The device the calling thread last selected (set_device), or 0. */
int accel_hpu_thread_device(const accel_hpu_backend_t *hpu);

/* ---------------------------------------------------------------- memory.c */

ACCEL_BACKEND_DECLARE_MEMORY_SLOTS(accel_hpu);
ACCEL_BACKEND_DECLARE_PINNED_SLOTS(accel_hpu);
ACCEL_BACKEND_DECLARE_REGISTER_SLOTS(accel_hpu);
accel_status_t accel_hpu_memory_info(void *self, int device, uint64_t *free_bytes,
                                     uint64_t *total_bytes);
/* The deferred-release list of staging buffers (create()), and its end
 * (destroy(): waits for every copy, or in a forked child only forgets). */
accel_status_t accel_hpu_staging_open(accel_hpu_backend_t *hpu);
void accel_hpu_staging_close(accel_hpu_backend_t *hpu, bool forked);
/* The copy out of `staging` was handed to Synapse on `stream` and the event
 * after it recorded (`recorded`) or not: the buffer goes on the
 * deferred-release list, or is freed once the stream is known idle, or is
 * left to the runtime when that cannot be known. Takes the record. Under
 * the backend's lock. */
void accel_hpu_staging_queued(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream,
                              accel_hpu_staging_t *staging, bool recorded);
/* Free a staging buffer whose copy was never handed to Synapse. */
void accel_hpu_staging_free(accel_hpu_backend_t *hpu, accel_hpu_staging_t *staging);
/* Free every pinned range still registered (destroy()). */
void accel_hpu_pinned_release(accel_hpu_backend_t *hpu);

/* ---------------------------------------------------------------- stream.c */

/* The backend stream for a slot's `stream` (NULL: the device's default),
 * with `device` acquired. */
accel_status_t accel_hpu_stream_of(accel_hpu_backend_t *hpu, int device, void *stream,
                                   accel_hpu_stream_t **out);
/* Hand `item` (heap-allocated; ownership passes) to the stream: to Synapse
 * now when nothing is deferred, else behind the deferred work. */
accel_status_t accel_hpu_stream_submit(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream,
                                       accel_hpu_item_t *item);
/* Wait until nothing is deferred on `stream` and Synapse has finished it. */
accel_status_t accel_hpu_stream_drain(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream);
/* Make a Synapse stream object for `device` (acquired). */
accel_status_t accel_hpu_stream_new(accel_hpu_backend_t *hpu, int device, accel_syn_device_id_t id,
                                    accel_hpu_stream_t **out);
/* INVALID_ARGUMENT with a sentence when the calling thread is the worker of
 * `stream` (NULL: of any stream of `device`): it would wait for itself. */
accel_status_t accel_hpu_refuse_self_wait(accel_hpu_backend_t *hpu, int device,
                                          const accel_hpu_stream_t *stream);
/* Stop the worker, drain and destroy the Synapse stream, free `stream`. */
void accel_hpu_stream_free(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream);

accel_status_t accel_hpu_synchronize(void *self, int device);
ACCEL_BACKEND_DECLARE_STREAM_SLOTS(accel_hpu);
/* For a collectives engine (Habana HCCL): the Gaudi acquired (HCCL needs it
 * before hcclCommInitRank) and the synStreamHandle behind `stream` (NULL:
 * the device's default stream, a real Synapse stream here). Work deferred
 * behind a host callback is waited for until it has reached Synapse, so
 * that what the engine enqueues comes after it; from inside a callback of
 * that stream this is refused (it would wait for itself). */
accel_status_t accel_hpu_native_stream(void *self, int device, void *stream, void **out);
ACCEL_BACKEND_DECLARE_EVENT_SLOTS(accel_hpu);

#endif /* ACCEL_BACKENDS_HPU_HPU_BACKEND_H */
