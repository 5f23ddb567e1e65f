/* comm_stream.c: where a collective is ordered (the stream, and the vendor
 * stream a device engine enqueues on) and the checks of the buffers it is
 * given against what accel's allocator knows. Stateless; any thread. */
#include "accel/accel_backend_utils.h"
#include "comm/comm.h"
#include "core/error.h"
#include "core/thread_state.h"

accel_status_t accel_comm_order(accel_comm_t *comm, accel_stream_t *stream, accel_stream_t **out,
                                void **native)
{
    accel_t *acc = comm->acc;
    accel_status_t status = ACCEL_OK;
    *native = NULL;
    if (stream == NULL) {
        /* The communicator was made on this live, initialised acc and
         * device, so the thread's current stream needs no checks. */
        stream = accel_thread_stream(acc, comm->device);
        if (stream == NULL)
            return ACCEL_ERROR_OUT_OF_MEMORY;
    } else {
        status = accel_resolve_stream(acc, stream, &stream);
        if (status == ACCEL_OK && stream->device != comm->device)
            status = accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                 "the stream is on device %d but the communicator's device is %d",
                                 stream->device, comm->device);
    }
    if (status != ACCEL_OK)
        return status;
    *out = stream;
    if (comm->engine->kind == ACCEL_COMM_ENGINE_HOST) {
        /* The engine runs on this thread, after the stream's earlier work:
         * from a host callback of that stream it would wait for itself. */
        status = accel_callback_refuse_stream_wait(acc->self, stream->device, stream->impl,
                                                   "run a host-engine collective on the stream "
                                                   "it runs on");
        return status != ACCEL_OK ? status : accel_stream_wait(stream);
    }
    if (!ACCEL_BACKEND_HAS(acc->ops, native_stream))
        return accel_error(ACCEL_ERROR_UNSUPPORTED,
                           "the %s backend gives no vendor stream (native_stream) for the %s "
                           "engine to enqueue on",
                           acc->ops->name, comm->engine->name);
    return acc->ops->native_stream(acc->self, comm->device, stream->impl, native);
}

accel_status_t accel_comm_check_buffer(accel_comm_t *comm, const void *ptr, size_t bytes,
                                       const char *what)
{
    accel_t *acc = comm->acc;
    void *base;
    size_t block_size, start;
    int device;
    if (bytes == 0)
        return ACCEL_OK;
    if (ptr == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "the %s is NULL (%zu bytes expected)",
                           what, bytes);
    /* The tensors' rule (core/tensor_check.h) for raw buffers: a range that
     * wraps names memory before `ptr`. */
    if (bytes > UINTPTR_MAX - (uintptr_t)ptr)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "the %s %p plus its %zu bytes wraps past the end of the address space",
                           what, ptr, bytes);
    if (accel_find_block(acc, ptr, &device, &base, &block_size) != ACCEL_OK) {
        if (comm->engine->kind == ACCEL_COMM_ENGINE_HOST)
            return ACCEL_OK; /* host memory accel did not allocate: the caller's */
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "the %s %p is not inside any live %s allocation, and the %s engine "
                           "needs device memory (allocate it with accel_malloc)",
                           what, ptr, acc->ops->name, comm->engine->name);
    }
    start = (size_t)((const char *)ptr - (const char *)base);
    if (bytes > block_size - start)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "the %s needs %zu bytes at offset %zu of its allocation, which holds "
                           "only %zu bytes",
                           what, bytes, start, block_size);
    if (device != comm->device)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "the %s lives on device %d but the communicator's device is %d", what,
                           device, comm->device);
    return ACCEL_OK;
}
