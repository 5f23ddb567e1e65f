/* handle.c: async_io handles (DeepSpeed's aio_handle): configuration
 * checks, the worker threads, request submission (opening the file, with
 * O_DIRECT when asked) and wait(), which collects finished requests and
 * turns their outcome into a status and a sentence.
 * Ownership: the handle owns its workers and every request until wait()
 * collects it (and closes its descriptors). Threads: API calls on one handle
 * are serialised by call_lock; the request list is guarded by `lock`. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "core/error.h"
#include "core/tensor_check.h"
#include "ops/aio/aio.h"

#define AIO_MAX_BLOCK       ((size_t)1 << 30)
#define AIO_MAX_QUEUE_DEPTH 4096u
#define AIO_MAX_THREADS     256u

static void pinned_release_all(accel_aio_handle_t *h);

/* ---------------------------------------------------------------- workers */

static void *worker_main(void *arg)
{
    accel_aio_worker_t *w = arg;
    accel_aio_handle_t *h = w->handle;
    pthread_mutex_lock(&h->lock);
    for (;;) {
        accel_aio_request_t *r = h->head;
        while (r != NULL && r->sequence != w->next_sequence)
            r = r->next;
        if (r == NULL) {
            if (h->stop)
                break;
            pthread_cond_wait(&h->work, &h->lock);
            continue;
        }
        pthread_mutex_unlock(&h->lock);
        accel_aio_worker_transfer(w, r);
        pthread_mutex_lock(&h->lock);
        w->next_sequence++;
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* Bounce buffers: aligned for O_DIRECT, pinned where the backend pins (so
 * device copies from them are asynchronous); unpinned still works. */
static accel_status_t worker_buffers(accel_aio_handle_t *h, accel_aio_worker_t *w)
{
    int32_t type = kDLCPU;
    accel_dlpack_device_type(h->acc, &type);
    for (int b = 0; b < 2; b++) {
        void *buf = NULL;
        if (posix_memalign(&buf, ACCEL_AIO_ALIGNMENT, h->config.block_size) != 0)
            return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                               "async_io: out of host memory for a %zu-byte bounce buffer",
                               h->config.block_size);
        w->bounce[b] = buf;
        if (type != kDLCPU)
            w->bounce_pinned[b] =
                accel_host_register(h->acc, buf, h->config.block_size) == ACCEL_OK;
    }
    return ACCEL_OK;
}

static void worker_release(accel_aio_handle_t *h, accel_aio_worker_t *w)
{
    for (int b = 0; b < 2; b++) {
        if (w->events[b] != NULL)
            accel_event_destroy(w->events[b]);
        if (w->bounce_pinned[b])
            accel_host_unregister(h->acc, w->bounce[b]);
        free(w->bounce[b]);
    }
    if (w->stream != NULL)
        accel_stream_destroy(w->stream);
    accel_aio_engine_destroy(w->engine);
}

/* ---------------------------------------------------------------- create */

static accel_status_t config_check(const accel_aio_config_t *c)
{
    accel_status_t status =
        accel_check_struct_size("accel_aio_config_t", true, c->struct_size, sizeof *c);
    if (status != ACCEL_OK)
        return status;
    if (c->block_size == 0 || c->block_size > AIO_MAX_BLOCK)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "async_io: block_size %zu must be in [1, %zu]", c->block_size,
                           AIO_MAX_BLOCK);
    if (c->direct && c->block_size % ACCEL_AIO_ALIGNMENT != 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "async_io: block_size %zu is not a multiple of %u, which O_DIRECT "
                           "needs (or set direct = false)",
                           c->block_size, ACCEL_AIO_ALIGNMENT);
    if (c->queue_depth == 0 || c->queue_depth > AIO_MAX_QUEUE_DEPTH)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "async_io: queue_depth %u must be in [1, %u]", c->queue_depth,
                           AIO_MAX_QUEUE_DEPTH);
    if (c->intra_op_parallelism == 0 || c->intra_op_parallelism > AIO_MAX_THREADS)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "async_io: intra_op_parallelism %u must be in [1, %u]",
                           c->intra_op_parallelism, AIO_MAX_THREADS);
    return ACCEL_OK;
}

accel_status_t accel_aio_handle_create(accel_t *acc, const accel_aio_config_t *config,
                                       accel_aio_handle_t **out)
{
    static const accel_aio_config_t defaults = ACCEL_AIO_CONFIG_DEFAULT;
    accel_aio_handle_t *h;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "async_io: out is NULL");
    if (config == NULL)
        config = &defaults;
    if ((status = config_check(config)) != ACCEL_OK)
        return status;
    h = calloc(1, sizeof *h);
    if (h != NULL)
        h->workers = calloc(config->intra_op_parallelism, sizeof *h->workers);
    if (h == NULL || h->workers == NULL) {
        free(h);
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "async_io: out of host memory for a handle");
    }
    h->acc = acc;
    h->config = *config;
    h->config.struct_size = sizeof h->config;
    h->engine_kind = accel_aio_engine_selected(NULL);
    pthread_mutex_init(&h->lock, NULL);
    pthread_mutex_init(&h->call_lock, NULL);
    pthread_mutex_init(&h->pinned_lock, NULL);
    accel_range_map_init(&h->pinned, sizeof(bool));
    pthread_cond_init(&h->work, NULL);
    pthread_cond_init(&h->done, NULL);
    for (unsigned i = 0; i < config->intra_op_parallelism && status == ACCEL_OK; i++) {
        accel_aio_worker_t *w = &h->workers[i];
        char reason[256] = "";
        w->handle = h;
        w->index = i;
        w->stream_device = -1;
        w->engine = accel_aio_engine_create(h->engine_kind, &h->config, reason, sizeof reason);
        if (w->engine == NULL && h->engine_kind == ACCEL_AIO_ENGINE_URING) {
            /* io_uring worked when probed but not now (locked-memory limit,
             * too many rings): this worker uses pread/pwrite instead */
            accel_log(ACCEL_LOG_WARN, "async_io: %s; I/O thread %u uses pread/pwrite", reason, i);
            w->engine = accel_aio_engine_create(ACCEL_AIO_ENGINE_THREADS, &h->config, reason,
                                                sizeof reason);
        }
        if (w->engine == NULL)
            status = accel_error(ACCEL_ERROR_UNAVAILABLE, "async_io: %s", reason);
        if (status == ACCEL_OK)
            status = worker_buffers(h, w);
        if (status == ACCEL_OK && accel_thread_start(&w->thread, NULL, worker_main, w) != 0)
            status = accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                 "async_io: could not start I/O thread %u: %s", i, strerror(errno));
        if (status != ACCEL_OK)
            worker_release(h, w);
        else
            h->worker_count++;
    }
    if (status != ACCEL_OK) {
        accel_aio_handle_destroy(h);
        return status;
    }
    *out = h;
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- wait */

/* The status and sentence of one finished request (ACCEL_OK if it did all
 * its bytes). */
static accel_status_t request_result(const accel_aio_request_t *r)
{
    const char *verb = r->read ? "read" : "write";
    if (r->message[0] != '\0')
        return accel_error(ACCEL_ERROR_DEVICE_ERROR, "async_io: %s of %llu bytes %s %s failed: %s",
                           verb, (unsigned long long)r->size, r->read ? "from" : "to", r->path,
                           r->message);
    if (r->outcome.eof)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "async_io: read of %llu bytes from %s at offset %llu: the file ends "
                           "at or before byte %llu (%llu bytes read in whole blocks); the tensor "
                           "is only partly filled",
                           (unsigned long long)r->size, r->path, (unsigned long long)r->offset,
                           (unsigned long long)r->outcome.failed_off,
                           (unsigned long long)r->outcome.bytes);
    if (r->outcome.error != 0)
        return accel_error(ACCEL_ERROR_DEVICE_ERROR,
                           "async_io: %s of %llu bytes %s %s at offset %llu failed at file "
                           "offset %llu: %s (%llu bytes %s in whole blocks)",
                           verb, (unsigned long long)r->size, r->read ? "from" : "to", r->path,
                           (unsigned long long)r->offset, (unsigned long long)r->outcome.failed_off,
                           strerror(r->outcome.error), (unsigned long long)r->outcome.bytes,
                           r->read ? "read" : "written");
    return ACCEL_OK;
}

static void request_close(accel_aio_request_t *r)
{
    if (r->fd_direct >= 0)
        close(r->fd_direct);
    if (r->fd_buffered >= 0)
        close(r->fd_buffered);
    free(r);
}

/* Wait for every queued request and free them; caller holds call_lock. */
static accel_status_t handle_wait(accel_aio_handle_t *h, size_t *completed)
{
    accel_status_t first = ACCEL_OK;
    char message[512] = "";
    size_t count = 0;
    pthread_mutex_lock(&h->lock);
    for (accel_aio_request_t *r = h->head; r != NULL; r = r->next)
        while (r->workers_left > 0)
            pthread_cond_wait(&h->done, &h->lock);
    accel_aio_request_t *r = h->head;
    h->head = h->tail = NULL;
    pthread_mutex_unlock(&h->lock);
    while (r != NULL) {
        accel_aio_request_t *next = r->next;
        accel_status_t status = request_result(r);
        if (status != ACCEL_OK && first == ACCEL_OK) {
            first = status;
            accel_error_copy(message, sizeof message);
        }
        count++;
        request_close(r);
        r = next;
    }
    if (completed != NULL)
        *completed = count;
    if (first != ACCEL_OK)
        return accel_error(first, "%s", message);
    return ACCEL_OK;
}

accel_status_t accel_aio_wait(accel_aio_handle_t *h, size_t *completed)
{
    accel_status_t status;
    if (h == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "async_io: wait on a NULL handle");
    pthread_mutex_lock(&h->call_lock);
    status = handle_wait(h, completed);
    pthread_mutex_unlock(&h->call_lock);
    return status;
}

void accel_aio_handle_destroy(accel_aio_handle_t *h)
{
    if (h == NULL)
        return;
    pthread_mutex_lock(&h->call_lock);
    handle_wait(h, NULL);
    pthread_mutex_lock(&h->lock);
    h->stop = true;
    pthread_cond_broadcast(&h->work);
    pthread_mutex_unlock(&h->lock);
    for (unsigned i = 0; i < h->worker_count; i++) {
        pthread_join(h->workers[i].thread, NULL);
        worker_release(h, &h->workers[i]);
    }
    pthread_mutex_unlock(&h->call_lock);
    pinned_release_all(h);
    pthread_cond_destroy(&h->work);
    pthread_cond_destroy(&h->done);
    pthread_mutex_destroy(&h->lock);
    pthread_mutex_destroy(&h->call_lock);
    pthread_mutex_destroy(&h->pinned_lock);
    free(h->workers);
    free(h);
}

accel_status_t accel_aio_get_config(const accel_aio_handle_t *h, accel_aio_config_t *out)
{
    if (h == NULL || out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "async_io: get_config: NULL argument");
    *out = h->config;
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- pinned */

static void pinned_buffer_free(accel_aio_handle_t *h, void *ptr, size_t size, bool registered)
{
    if (registered)
        accel_host_unregister(h->acc, ptr);
    accel_host_pages_free(ptr, size);
}

/* Buffers the caller did not free before destroying the handle (accel_ops.h
 * asks them to): released with it, and said. */
static void pinned_release_all(accel_aio_handle_t *h)
{
    size_t left = h->pinned.count;
    if (left > 0)
        accel_log(ACCEL_LOG_WARN,
                  "async_io: handle destroyed with %zu pinned buffer(s) not freed; they are "
                  "freed with it",
                  left);
    for (size_t i = 0; i < left; i++) {
        const accel_range_t *range = accel_range_map_at(&h->pinned, i);
        pinned_buffer_free(h, (void *)range->base, range->size,
                           *(bool *)accel_range_payload(range));
    }
    accel_range_map_fini(&h->pinned);
}

accel_status_t accel_aio_pinned_alloc(accel_aio_handle_t *h, size_t size, void **out)
{
    void *ptr = NULL;
    size_t rounded;
    bool supported = false, registered = false;
    accel_status_t status = ACCEL_OK;
    if (h == NULL || out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "async_io: pinned_alloc: NULL argument");
    if (size == 0 || size > SIZE_MAX - ACCEL_AIO_ALIGNMENT)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "async_io: pinned_alloc of %zu bytes",
                           size);
    rounded = (size + ACCEL_AIO_ALIGNMENT - 1) / ACCEL_AIO_ALIGNMENT * ACCEL_AIO_ALIGNMENT;
    /* Huge pages where the kernel allows: each O_DIRECT transfer pins every
     * page of the buffer (docs/ops.md, Async I/O, buffers). */
    if (accel_host_pages_alloc(rounded, ACCEL_AIO_ALIGNMENT, &ptr) != 0)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "async_io: out of host memory for %zu pinned bytes", size);
    accel_query_flag(h->acc, ACCEL_FLAG_HOST_REGISTER_SUPPORTED, &supported);
    if (supported) {
        status = accel_host_register(h->acc, ptr, rounded);
        registered = status == ACCEL_OK;
    }
    if (status == ACCEL_OK) {
        pthread_mutex_lock(&h->pinned_lock);
        if (accel_range_map_insert(&h->pinned, ptr, rounded, &registered, NULL) != ACCEL_OK)
            status = accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                 "async_io: out of host memory recording a pinned buffer");
        pthread_mutex_unlock(&h->pinned_lock);
    }
    if (status != ACCEL_OK) {
        pinned_buffer_free(h, ptr, rounded, registered);
        return status;
    }
    *out = ptr;
    return ACCEL_OK;
}

/* Only a pointer this handle's pinned_alloc returned and that is not freed
 * yet is released; anything else (a pointer into a buffer, another
 * allocator's memory, a second free) is refused and nothing changes. */
accel_status_t accel_aio_pinned_free(accel_aio_handle_t *h, void *ptr)
{
    bool registered = false, found;
    accel_range_t range;
    if (h == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "async_io: pinned_free: NULL handle");
    if (ptr == NULL)
        return ACCEL_OK;
    pthread_mutex_lock(&h->pinned_lock);
    found = accel_range_map_remove(&h->pinned, ptr, &range, &registered);
    pthread_mutex_unlock(&h->pinned_lock);
    if (!found)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "async_io: pinned_free of %p, which this handle's pinned_alloc did not "
                           "return or which was already freed",
                           ptr);
    pinned_buffer_free(h, ptr, range.size, registered);
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- submit */

/* The tensor's first byte, its size in bytes, and where it lives: the
 * check every tensor-taking call shares (core/tensor_check.h). */
static accel_status_t tensor_check(accel_aio_handle_t *h, const DLTensor *t, accel_aio_request_t *r)
{
    accel_tensor_span_t span;
    accel_tensor_memory_t where = ACCEL_TENSOR_HOST;
    accel_status_t status = accel_tensor_span_check("async_io:", t, &span);
    if (status == ACCEL_OK)
        status = accel_tensor_span_locate(h->acc, "async_io:", t, &span,
                                          ACCEL_TENSOR_HOST | ACCEL_TENSOR_DEVICE, &where,
                                          &r->device_id);
    if (status != ACCEL_OK)
        return status;
    r->data = (uint8_t *)span.start;
    r->size = span.bytes;
    r->device = where == ACCEL_TENSOR_DEVICE;
    return ACCEL_OK;
}

static accel_status_t request_open(accel_aio_handle_t *h, accel_aio_request_t *r)
{
    int flags = r->read ? O_RDONLY : (O_WRONLY | O_CREAT);
    r->fd_buffered = open(r->path, flags | O_CLOEXEC, 0644);
    if (r->fd_buffered < 0)
        return accel_error(errno == ENOENT ? ACCEL_ERROR_NOT_FOUND : ACCEL_ERROR_INVALID_ARGUMENT,
                           "async_io: cannot open %s for %s: %s", r->path,
                           r->read ? "reading" : "writing", strerror(errno));
    if (!h->config.direct || r->size < ACCEL_AIO_ALIGNMENT)
        return ACCEL_OK;
    r->fd_direct = open(r->path, flags | O_CLOEXEC | O_DIRECT, 0644);
    if (r->fd_direct < 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "async_io: cannot open %s with O_DIRECT: %s%s", r->path, strerror(errno),
                           errno == EINVAL ? " (the file system does not support O_DIRECT; "
                                             "create the handle with direct = false)"
                                           : "");
    return ACCEL_OK;
}

static accel_status_t handle_submit(accel_aio_handle_t *h, const DLTensor *tensor, const char *path,
                                    uint64_t file_offset, bool read, bool async)
{
    accel_aio_request_t *r;
    accel_status_t status;
    if (h == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "async_io: handle is NULL");
    if (path == NULL || path[0] == '\0')
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "async_io: path is NULL or empty");
    if (strlen(path) >= sizeof r->path)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "async_io: path is longer than %zu bytes",
                           sizeof r->path - 1);
    if (h->config.direct && file_offset % ACCEL_AIO_ALIGNMENT != 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "async_io: file_offset %llu is not a multiple of %u, which O_DIRECT "
                           "needs; align it or create the handle with direct = false",
                           (unsigned long long)file_offset, ACCEL_AIO_ALIGNMENT);
    if (file_offset > (uint64_t)INT64_MAX)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "async_io: file_offset %llu is too large",
                           (unsigned long long)file_offset);
    r = calloc(1, sizeof *r);
    if (r == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "async_io: out of host memory");
    r->read = read;
    r->offset = file_offset;
    r->fd_direct = r->fd_buffered = -1;
    snprintf(r->path, sizeof r->path, "%s", path);
    pthread_mutex_lock(&h->call_lock);
    status = tensor_check(h, tensor, r);
    if (status == ACCEL_OK && r->offset > (uint64_t)INT64_MAX - r->size)
        status = accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                             "async_io: file_offset + size overflows a file offset");
    if (status == ACCEL_OK)
        status = request_open(h, r);
    if (status != ACCEL_OK) {
        pthread_mutex_unlock(&h->call_lock);
        request_close(r);
        return status;
    }
    pthread_mutex_lock(&h->lock);
    r->sequence = h->next_sequence++;
    r->workers_left = h->worker_count;
    if (h->tail != NULL)
        h->tail->next = r;
    else
        h->head = r;
    h->tail = r;
    pthread_cond_broadcast(&h->work);
    pthread_mutex_unlock(&h->lock);
    status = async ? ACCEL_OK : handle_wait(h, NULL);
    pthread_mutex_unlock(&h->call_lock);
    return status;
}

accel_status_t accel_aio_pread(accel_aio_handle_t *h, DLTensor *tensor, const char *path,
                               uint64_t file_offset, bool async)
{
    return handle_submit(h, tensor, path, file_offset, true, async);
}

accel_status_t accel_aio_pwrite(accel_aio_handle_t *h, const DLTensor *tensor, const char *path,
                                uint64_t file_offset, bool async)
{
    return handle_submit(h, tensor, path, file_offset, false, async);
}
