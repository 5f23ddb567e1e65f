/* aio.h: the internals of async_io (AsyncIOBuilder): handles, their worker
 * threads and requests, and the two I/O engines (io_uring through a
 * dlopen'ed liburing.so.2, and plain pread/pwrite) that move blocks between
 * memory and a file. Public semantics are in accel_ops.h (accel_aio_op_t).
 * Ownership: a handle owns its workers, their engines and bounce buffers,
 * and its requests until wait() collects them. Threads: the handle lock
 * guards the request list; each worker touches only its own engine. */
#ifndef ACCEL_OPS_AIO_AIO_H
#define ACCEL_OPS_AIO_AIO_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accel/accel_backend_utils.h"
#include "accel/accel_ops.h"

#define ACCEL_AIO_ALIGNMENT 4096u

/* ---------------------------------------------------------------- engines */

typedef enum accel_aio_engine_kind {
    ACCEL_AIO_ENGINE_THREADS = 0,
    ACCEL_AIO_ENGINE_URING = 1,
} accel_aio_engine_kind_t;

/* One I/O of a batch: `len` bytes between buf and fd at off. */
typedef struct accel_aio_block {
    int fd;
    void *buf;
    size_t len;
    uint64_t off;
} accel_aio_block_t;

/* What a batch did: bytes moved by the blocks that completed in full, and
 * the first failure (errno, or 0 with `eof` for a read past the end). */
typedef struct accel_aio_outcome {
    uint64_t bytes;
    int error;
    bool eof;
    uint64_t failed_off; /* file offset of the first failure */
} accel_aio_outcome_t;

/* An engine instance belongs to one worker thread. */
typedef struct accel_aio_engine accel_aio_engine_t;

/* Make an engine of `kind` for one worker: queue_depth I/Os in flight. On
 * failure writes why into reason and returns NULL. */
accel_aio_engine_t *accel_aio_engine_create(accel_aio_engine_kind_t kind,
                                            const accel_aio_config_t *config, char *reason,
                                            size_t reason_cap);
void accel_aio_engine_destroy(accel_aio_engine_t *engine);

/* Move every block (reads when `read`), up to queue_depth at a time, and
 * add what happened to *outcome. Blocks after a failure may still run. */
void accel_aio_engine_run(accel_aio_engine_t *engine, bool read, const accel_aio_block_t *blocks,
                          size_t count, accel_aio_outcome_t *outcome);

/* Synchronous pread/pwrite of one block with retries on short counts
 * (engine_threads.c; the io_uring engine finishes short I/Os with it). */
void accel_aio_block_sync(bool read, const accel_aio_block_t *block, accel_aio_outcome_t *outcome);

/* One io_uring ring of `depth` entries (engine_uring.c), or NULL with the
 * reason. */
typedef struct accel_aio_uring accel_aio_uring_t;
accel_aio_uring_t *accel_aio_uring_create(unsigned depth, char *reason, size_t reason_cap);
void accel_aio_uring_destroy(accel_aio_uring_t *ring);
void accel_aio_uring_run(accel_aio_uring_t *ring, const accel_aio_config_t *config, bool read,
                         const accel_aio_block_t *blocks, size_t count,
                         accel_aio_outcome_t *outcome);

/* io_uring through liburing.so.2: can a ring be made here? If not, why
 * (no liburing, the kernel or a seccomp filter refuses io_uring_setup). */
bool accel_aio_uring_usable(char *reason, size_t reason_cap);

/* The engine handles use (ACCEL_AIO_ENGINE, else io_uring when usable),
 * decided once per process; `note` says what and why. */
accel_aio_engine_kind_t accel_aio_engine_selected(const char **note);

/* ---------------------------------------------------------------- handles */

/* One pread/pwrite. Fixed after submit except the outcome fields, which
 * workers update under the handle lock. */
typedef struct accel_aio_request {
    struct accel_aio_request *next;
    uint64_t sequence;
    bool read;
    bool device;   /* the tensor is device memory: copies through bounce buffers */
    int device_id; /* its device, when `device` */
    uint8_t *data; /* the tensor's first byte (host or device address) */
    uint64_t size;
    uint64_t offset;
    int fd_direct;   /* O_DIRECT descriptor for the aligned body, or -1 */
    int fd_buffered; /* the page-cache descriptor (tail, unaligned, non-direct) */
    char path[256];
    unsigned workers_left;
    accel_aio_outcome_t outcome; /* summed over workers */
    char message[320];           /* first failure that is not an I/O errno */
} accel_aio_request_t;

typedef struct accel_aio_worker {
    struct accel_aio_handle *handle;
    unsigned index;
    pthread_t thread;
    accel_aio_engine_t *engine;
    uint8_t *bounce[2]; /* block_size each, aligned, pinned when possible */
    bool bounce_pinned[2];
    accel_stream_t *stream;   /* device copies (device requests only), made lazily */
    int stream_device;        /* the device `stream` and `events` are on */
    accel_event_t *events[2]; /* one per bounce buffer: its last copy is done */
    uint64_t next_sequence;   /* the next request this worker takes */
} accel_aio_worker_t;

struct accel_aio_handle {
    accel_t *acc;
    accel_aio_config_t config;
    accel_aio_engine_kind_t engine_kind;
    pthread_mutex_t lock;
    pthread_cond_t work;              /* a request was queued, or stop */
    pthread_cond_t done;              /* a request finished */
    accel_aio_request_t *head, *tail; /* queued and not yet collected by wait() */
    uint64_t next_sequence;
    bool stop;
    accel_aio_worker_t *workers;
    unsigned worker_count;
    pthread_mutex_t call_lock; /* one API call at a time on this handle */
    /* Buffers from pinned_alloc not yet freed (payload: bool, registered
     * with the accelerator), so pinned_free refuses a pointer it did not
     * hand out or already freed. Guarded by pinned_lock (not call_lock:
     * pinned calls do not wait behind a synchronous read). */
    pthread_mutex_t pinned_lock;
    accel_range_map_t pinned;
};

/* The worker's part of one request: blocks index i with i % workers ==
 * worker->index (transfer.c). Updates the request's outcome under the lock. */
void accel_aio_worker_transfer(accel_aio_worker_t *worker, accel_aio_request_t *request);

/* The table handed out by the builder (handle.c). */
accel_status_t accel_aio_handle_create(accel_t *acc, const accel_aio_config_t *config,
                                       accel_aio_handle_t **out);
void accel_aio_handle_destroy(accel_aio_handle_t *handle);
accel_status_t accel_aio_pread(accel_aio_handle_t *handle, DLTensor *tensor, const char *path,
                               uint64_t file_offset, bool async);
accel_status_t accel_aio_pwrite(accel_aio_handle_t *handle, const DLTensor *tensor,
                                const char *path, uint64_t file_offset, bool async);
accel_status_t accel_aio_wait(accel_aio_handle_t *handle, size_t *completed);
accel_status_t accel_aio_get_config(const accel_aio_handle_t *handle, accel_aio_config_t *out);
accel_status_t accel_aio_pinned_alloc(accel_aio_handle_t *handle, size_t size, void **out);
accel_status_t accel_aio_pinned_free(accel_aio_handle_t *handle, void *ptr);

#endif /* ACCEL_OPS_AIO_AIO_H */
