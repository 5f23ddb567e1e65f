/* transfer.c: one worker's part of an async_io request. The request is cut
 * into block_size blocks; worker w of P moves blocks w, w + P, w + 2P...
 * Host memory that suits the descriptor (any address for the page cache,
 * `alignment`-aligned for O_DIRECT) is read or written in place through the
 * engine, queue_depth blocks at a time. Device memory, and host memory too
 * misaligned for O_DIRECT, goes through the worker's two bounce buffers:
 * the device copy of one block overlaps the file I/O of the next (an event
 * per buffer says when its copy is done). Under O_DIRECT the part of a
 * block past the last aligned byte of the request goes through the page
 * cache descriptor. Runs on the worker thread; the request's outcome is
 * updated under the handle lock. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "core/error.h"
#include "ops/aio/aio.h"

/* Blocks handed to the engine per call in place (bounds the list's size). */
#define TRANSFER_BATCH 256

typedef struct transfer {
    accel_aio_worker_t *worker;
    accel_aio_request_t *request;
    uint64_t block_size;
    uint64_t body; /* bytes [0, body) go through fd_direct when it is open */
    accel_aio_outcome_t outcome;
    char message[320]; /* a failure that is not a file I/O error */
} transfer_t;

/* The I/Os of bytes [begin, end) of the request to or from `buf`: one, or
 * two where the range crosses the end of the O_DIRECT body. */
static size_t transfer_split(const transfer_t *t, uint64_t begin, uint64_t end, uint8_t *buf,
                             accel_aio_block_t out[2])
{
    const accel_aio_request_t *r = t->request;
    size_t n = 0;
    if (r->fd_direct >= 0 && begin < t->body) {
        uint64_t stop = end < t->body ? end : t->body;
        out[n++] =
            (accel_aio_block_t){r->fd_direct, buf, (size_t)(stop - begin), r->offset + begin};
        buf += stop - begin;
        begin = stop;
    }
    if (begin < end)
        out[n++] =
            (accel_aio_block_t){r->fd_buffered, buf, (size_t)(end - begin), r->offset + begin};
    return n;
}

static uint64_t transfer_blocks(const transfer_t *t)
{
    return (t->request->size + t->block_size - 1) / t->block_size;
}

static bool transfer_failed(const transfer_t *t)
{
    return t->outcome.error != 0 || t->outcome.eof || t->message[0] != '\0';
}

/* In place: the tensor's own memory is the I/O buffer. */
static void transfer_in_place(transfer_t *t)
{
    accel_aio_worker_t *w = t->worker;
    accel_aio_request_t *r = t->request;
    unsigned p = w->handle->worker_count;
    accel_aio_block_t list[2 * TRANSFER_BATCH];
    size_t n = 0;
    for (uint64_t k = w->index; k < transfer_blocks(t) && !transfer_failed(t); k += p) {
        uint64_t begin = k * t->block_size;
        uint64_t end = begin + t->block_size < r->size ? begin + t->block_size : r->size;
        n += transfer_split(t, begin, end, r->data + begin, &list[n]);
        if (n >= 2 * TRANSFER_BATCH - 1) {
            accel_aio_engine_run(w->engine, r->read, list, n, &t->outcome);
            n = 0;
        }
    }
    if (n > 0 && !transfer_failed(t))
        accel_aio_engine_run(w->engine, r->read, list, n, &t->outcome);
}

/* The worker's stream and events on the request's device. */
static accel_status_t transfer_stream(transfer_t *t)
{
    accel_aio_worker_t *w = t->worker;
    accel_t *acc = w->handle->acc;
    int device = t->request->device_id;
    accel_status_t status = ACCEL_OK;
    if (w->stream != NULL && w->stream_device == device)
        return ACCEL_OK;
    for (int b = 0; b < 2; b++)
        if (w->events[b] != NULL) {
            accel_event_destroy(w->events[b]);
            w->events[b] = NULL;
        }
    if (w->stream != NULL) {
        accel_stream_destroy(w->stream);
        w->stream = NULL;
    }
    status = accel_stream_create(acc, device, 0, &w->stream);
    for (int b = 0; b < 2 && status == ACCEL_OK; b++)
        status = accel_event_create(acc, device, 0, &w->events[b]);
    if (status == ACCEL_OK)
        w->stream_device = device;
    return status;
}

/* Copy between a bounce buffer and the tensor: queued on the worker's
 * stream for device memory (then an event marks the buffer), memcpy for
 * host memory. */
static accel_status_t transfer_copy(transfer_t *t, int b, bool to_bounce, uint64_t begin,
                                    size_t len)
{
    accel_aio_worker_t *w = t->worker;
    accel_aio_request_t *r = t->request;
    accel_status_t status;
    if (!r->device) {
        if (to_bounce)
            memcpy(w->bounce[b], r->data + begin, len);
        else
            memcpy(r->data + begin, w->bounce[b], len);
        return ACCEL_OK;
    }
    status = to_bounce ? accel_memcpy_async(w->handle->acc, w->bounce[b], r->data + begin, len,
                                            ACCEL_COPY_DEVICE_TO_HOST, w->stream)
                       : accel_memcpy_async(w->handle->acc, r->data + begin, w->bounce[b], len,
                                            ACCEL_COPY_HOST_TO_DEVICE, w->stream);
    if (status == ACCEL_OK)
        status = accel_event_record(w->events[b], w->stream);
    return status;
}

static accel_status_t transfer_copy_wait(transfer_t *t, int b)
{
    return t->request->device ? accel_event_synchronize(t->worker->events[b]) : ACCEL_OK;
}

static void transfer_note(transfer_t *t, accel_status_t status, const char *what)
{
    if (status != ACCEL_OK && t->message[0] == '\0')
        snprintf(t->message, sizeof t->message, "%s: %s", what, accel_last_error());
}

/* Through the bounce buffers, one block at a time, copies overlapping I/O. */
static void transfer_bounced(transfer_t *t)
{
    accel_aio_worker_t *w = t->worker;
    accel_aio_request_t *r = t->request;
    unsigned p = w->handle->worker_count;
    uint64_t blocks = transfer_blocks(t);
    accel_status_t status = r->device ? transfer_stream(t) : ACCEL_OK;
    uint64_t k = w->index;
    int b = 0;
    transfer_note(t, status, "the device stream for bounce copies");
    if (transfer_failed(t) || k >= blocks)
        return;
#define BLOCK_BEGIN(k) ((k)*t->block_size)
#define BLOCK_LEN(k)                                                                               \
    ((size_t)(BLOCK_BEGIN(k) + t->block_size < r->size ? t->block_size : r->size - BLOCK_BEGIN(k)))
    if (!r->read) /* writes: the first copy out of the tensor */
        transfer_note(t, transfer_copy(t, b, true, BLOCK_BEGIN(k), BLOCK_LEN(k)),
                      "copying a block out of the tensor");
    for (; k < blocks && !transfer_failed(t); k += p, b ^= 1) {
        accel_aio_block_t list[2];
        size_t n =
            transfer_split(t, BLOCK_BEGIN(k), BLOCK_BEGIN(k) + BLOCK_LEN(k), w->bounce[b], list);
        if (r->read) {
            /* the copy that last used this buffer must be done */
            transfer_note(t, transfer_copy_wait(t, b), "waiting for a device copy");
            if (transfer_failed(t))
                break;
            accel_aio_engine_run(w->engine, true, list, n, &t->outcome);
            if (!transfer_failed(t))
                transfer_note(t, transfer_copy(t, b, false, BLOCK_BEGIN(k), BLOCK_LEN(k)),
                              "copying a block into the tensor");
        } else {
            transfer_note(t, transfer_copy_wait(t, b), "waiting for a device copy");
            if (!transfer_failed(t) && k + p < blocks) /* the next copy runs during this write */
                transfer_note(t,
                              transfer_copy(t, b ^ 1, true, BLOCK_BEGIN(k + p), BLOCK_LEN(k + p)),
                              "copying a block out of the tensor");
            if (!transfer_failed(t))
                accel_aio_engine_run(w->engine, false, list, n, &t->outcome);
        }
    }
#undef BLOCK_BEGIN
#undef BLOCK_LEN
    /* Leave no copy running into the tensor or out of a bounce buffer. */
    if (r->device && w->stream != NULL)
        transfer_note(t, accel_stream_synchronize(w->stream), "waiting for the device copies");
}

void accel_aio_worker_transfer(accel_aio_worker_t *worker, accel_aio_request_t *request)
{
    accel_aio_handle_t *h = worker->handle;
    transfer_t t = {.worker = worker, .request = request, .block_size = h->config.block_size};
    t.body =
        request->fd_direct >= 0 ? request->size / ACCEL_AIO_ALIGNMENT * ACCEL_AIO_ALIGNMENT : 0;
    if (request->size > 0) {
        bool aligned = ((uintptr_t)request->data % ACCEL_AIO_ALIGNMENT) == 0;
        if (!request->device && (request->fd_direct < 0 || aligned))
            transfer_in_place(&t);
        else
            transfer_bounced(&t);
    }
    pthread_mutex_lock(&h->lock);
    request->outcome.bytes += t.outcome.bytes;
    if (request->outcome.error == 0 && !request->outcome.eof &&
        (t.outcome.error != 0 || t.outcome.eof)) {
        request->outcome.error = t.outcome.error;
        request->outcome.eof = t.outcome.eof;
        request->outcome.failed_off = t.outcome.failed_off;
    }
    if (request->message[0] == '\0' && t.message[0] != '\0')
        memcpy(request->message, t.message, sizeof request->message);
    request->workers_left--;
    pthread_cond_broadcast(&h->done);
    pthread_mutex_unlock(&h->lock);
}
