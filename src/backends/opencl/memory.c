/* memory.c: the OpenCL backend's memory: cl_mem device buffers handed out as
 * addresses (see README.md, "Device memory"), stream-ordered copies and fills,
 * and pinned host memory (ALLOC_HOST_PTR buffers mapped once, USE_HOST_PTR
 * buffers over registered ranges).
 * Threads: each range map (core's accel_range_map_t) sits behind its own
 * mutex, taken by the range_* helpers below; OpenCL enqueue calls are
 * thread-safe, so every slot may run on several threads at once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backends/opencl/opencl_backend.h"

/* ---------------------------------------------------------------- range maps */

/* What each range carries in the map. */
typedef struct opencl_range_payload {
    accel_cl_mem mem;
    int device;
} opencl_range_payload_t;

void accel_opencl_range_map_init(accel_opencl_range_map_t *map)
{
    pthread_mutex_init(&map->lock, NULL);
    accel_range_map_init(&map->ranges, sizeof(opencl_range_payload_t));
}

void accel_opencl_range_map_destroy(accel_opencl_range_map_t *map)
{
    accel_range_map_fini(&map->ranges);
    pthread_mutex_destroy(&map->lock);
}

/* The caller's copy of a range in the map. */
static accel_opencl_range_t range_copy(const accel_range_t *range)
{
    opencl_range_payload_t payload;
    memcpy(&payload, accel_range_payload(range), sizeof payload);
    return (accel_opencl_range_t){
        .base = range->base, .size = range->size, .mem = payload.mem, .device = payload.device};
}

/* A size-0 query may name the end of a range (a zero-byte copy at the end of
 * a buffer): that is the range holding the byte before it. */
bool accel_opencl_range_find(accel_opencl_range_map_t *map, const void *ptr, size_t size,
                             accel_opencl_range_t *out)
{
    const accel_range_t *range;
    pthread_mutex_lock(&map->lock);
    range = accel_range_map_find(&map->ranges, ptr, size);
    if (range == NULL && size == 0 && (uintptr_t)ptr > 1)
        range = accel_range_map_find(&map->ranges, (const char *)ptr - 1, 1);
    if (range != NULL && out != NULL)
        *out = range_copy(range);
    pthread_mutex_unlock(&map->lock);
    return range != NULL;
}

/* Insert a range; false when it would overlap one already there or memory
 * runs out (the map is then unchanged). */
static bool range_insert(accel_opencl_range_map_t *map, const accel_opencl_range_t *range)
{
    opencl_range_payload_t payload = {.mem = range->mem, .device = range->device};
    accel_status_t status;
    pthread_mutex_lock(&map->lock);
    status = accel_range_map_insert(&map->ranges, (const void *)range->base, range->size, &payload,
                                    NULL);
    pthread_mutex_unlock(&map->lock);
    return status == ACCEL_OK;
}

/* Remove the range starting exactly at `ptr` into *out; false when none does. */
static bool range_remove(accel_opencl_range_map_t *map, const void *ptr, accel_opencl_range_t *out)
{
    accel_range_t removed;
    opencl_range_payload_t payload;
    bool found;
    pthread_mutex_lock(&map->lock);
    found = accel_range_map_remove(&map->ranges, ptr, &removed, &payload);
    pthread_mutex_unlock(&map->lock);
    if (found)
        *out = (accel_opencl_range_t){.base = removed.base,
                                      .size = removed.size,
                                      .mem = payload.mem,
                                      .device = payload.device};
    return found;
}

/* Take the highest range out of the map into *out (teardown: no other thread
 * uses the backend any more); false when the map is empty. */
static bool range_pop_last(accel_opencl_range_map_t *map, accel_opencl_range_t *out)
{
    const accel_range_t *last = accel_range_map_at(&map->ranges, map->ranges.count - 1);
    return last != NULL && range_remove(map, (const void *)last->base, out);
}

/* ---------------------------------------------------------------- device memory */

/* Each buffer gets a PROT_NONE reservation of its own size: no memory, only
 * addresses, so that ptr + offset names a byte of the buffer and no host
 * allocation can ever share an address with device memory. */
accel_status_t accel_opencl_mem_alloc(void *self, int device, size_t size, void **out)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_opencl_device_t *dev = &cl->devices[device];
    accel_opencl_range_t range = {.size = size, .device = device};
    accel_cl_int err = ACCEL_CL_SUCCESS;
    void *reserved;

    if (size == 0 || size > dev->max_alloc_size)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "opencl: cannot allocate %zu bytes on %s: one buffer may hold "
                                   "1 to %llu bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                                   size, dev->name, (unsigned long long)dev->max_alloc_size);
    range.mem = cl->api->clCreateBuffer(dev->context, ACCEL_CL_MEM_READ_WRITE, size, NULL, &err);
    if (err != ACCEL_CL_SUCCESS)
        return accel_opencl_fail("clCreateBuffer", err);
    reserved = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) {
        int saved = errno;
        cl->api->clReleaseMemObject(range.mem);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "opencl: cannot reserve %zu bytes of address space for a "
                                   "device buffer: %s",
                                   size, strerror(saved));
    }
    range.base = (uintptr_t)reserved;
    if (!range_insert(&cl->buffers, &range)) {
        munmap(reserved, size);
        cl->api->clReleaseMemObject(range.mem);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "opencl: out of host memory");
    }
    atomic_fetch_add(&dev->allocated, size);
    *out = reserved;
    return ACCEL_OK;
}

/* OpenCL keeps the buffer alive until queued commands that use it finish. */
void accel_opencl_mem_free(void *self, int device, void *ptr)
{
    ACCEL_OPENCL_FORK_GUARD_VOID();
    accel_opencl_backend_t *cl = self;
    accel_opencl_range_t range;
    if (ptr == NULL || !range_remove(&cl->buffers, ptr, &range))
        return;
    munmap(ptr, range.size);
    cl->api->clReleaseMemObject(range.mem);
    atomic_fetch_sub(&cl->devices[range.device].allocated, range.size);
}

accel_status_t accel_opencl_resolve(accel_opencl_backend_t *cl, int device, const void *ptr,
                                    size_t size, accel_cl_mem *out_mem, size_t *out_offset)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_range_t range;
    if (!accel_opencl_range_find(&cl->buffers, ptr, size, &range) || range.device != device)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "opencl: %p + %zu bytes is not inside one buffer of device %d",
                                   ptr, size, device);
    *out_mem = range.mem;
    *out_offset = (size_t)((uintptr_t)ptr - range.base);
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- copies and fills */

/* Copies with pinned host memory are asynchronous; with pageable memory they
 * wait until done, so the caller may reuse the host buffer at once (CUDA's
 * rule for pageable memory). */
static bool host_is_pinned(accel_opencl_backend_t *cl, const void *ptr, size_t size)
{
    return accel_opencl_range_find(&cl->pinned, ptr, size, NULL);
}

/* One device-to-device copy; the caller holds queue->lock. Overlapping
 * regions of one buffer (which clEnqueueCopyBuffer refuses with
 * CL_MEM_COPY_OVERLAP) go through a temporary buffer, released at once:
 * OpenCL frees it after the two copies ran. */
static accel_cl_int enqueue_copy(accel_opencl_backend_t *cl, accel_opencl_device_t *dev,
                                 accel_cl_command_queue queue, accel_cl_mem src_mem, size_t src_off,
                                 accel_cl_mem dst_mem, size_t dst_off, size_t size,
                                 accel_cl_event *done)
{
    const accel_cl_api_t *api = cl->api;
    accel_cl_int err = ACCEL_CL_SUCCESS;
    accel_cl_mem temp;
    if (src_mem != dst_mem || src_off >= dst_off + size || dst_off >= src_off + size)
        return api->clEnqueueCopyBuffer(queue, src_mem, dst_mem, src_off, dst_off, size, 0, NULL,
                                        done);
    temp = api->clCreateBuffer(dev->context, ACCEL_CL_MEM_READ_WRITE, size, NULL, &err);
    if (err != ACCEL_CL_SUCCESS)
        return err;
    err = api->clEnqueueCopyBuffer(queue, src_mem, temp, src_off, 0, size, 0, NULL, NULL);
    if (err == ACCEL_CL_SUCCESS)
        err = api->clEnqueueCopyBuffer(queue, temp, dst_mem, 0, dst_off, size, 0, NULL, done);
    api->clReleaseMemObject(temp);
    return err;
}

static accel_status_t copy_device_to_device(accel_opencl_backend_t *cl, int device,
                                            accel_opencl_queue_t *queue, void *dst, const void *src,
                                            size_t size)
{
    accel_cl_mem src_mem = NULL, dst_mem = NULL;
    size_t src_off = 0, dst_off = 0;
    accel_cl_event done = NULL;
    accel_cl_int err;
    accel_status_t status = accel_opencl_resolve(cl, device, src, size, &src_mem, &src_off);
    if (status == ACCEL_OK)
        status = accel_opencl_resolve(cl, device, dst, size, &dst_mem, &dst_off);
    if (status != ACCEL_OK || (src_mem == dst_mem && src_off == dst_off))
        return status;
    pthread_mutex_lock(&queue->lock);
    err = enqueue_copy(cl, &cl->devices[device], queue->handle, src_mem, src_off, dst_mem, dst_off,
                       size, &done);
    return accel_opencl_queue_commit(cl, queue, err, done, false, "clEnqueueCopyBuffer");
}

/* Host to host: wait for the queue's earlier work, then copy on the caller's
 * thread (OpenCL has no host-to-host command). */
static accel_status_t copy_host_to_host(accel_opencl_backend_t *cl, int device,
                                        accel_opencl_queue_t *queue, void *dst, const void *src,
                                        size_t size)
{
    if (accel_opencl_in_callback_of(cl, device, queue))
        return accel_opencl_callback_wait_refused("a host-to-host copy on the callback's stream");
    accel_cl_int err = cl->api->clFinish(queue->handle);
    if (err != ACCEL_CL_SUCCESS)
        return accel_opencl_fail("clFinish", err);
    memmove(dst, src, size);
    return ACCEL_OK;
}

static accel_status_t copy_host_to_device(accel_opencl_backend_t *cl, int device,
                                          accel_opencl_queue_t *queue, void *dst, const void *src,
                                          size_t size)
{
    accel_cl_mem mem = NULL;
    size_t offset = 0;
    accel_cl_event done = NULL;
    accel_cl_int err;
    bool wait = !host_is_pinned(cl, src, size);
    if (wait && accel_opencl_in_callback_of(cl, device, queue))
        return accel_opencl_callback_wait_refused(
            "a copy with pageable host memory on the callback's stream");
    accel_status_t status = accel_opencl_resolve(cl, device, dst, size, &mem, &offset);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&queue->lock);
    err = cl->api->clEnqueueWriteBuffer(queue->handle, mem, ACCEL_CL_FALSE, offset, size, src, 0,
                                        NULL, &done);
    return accel_opencl_queue_commit(cl, queue, err, done, wait, "clEnqueueWriteBuffer");
}

static accel_status_t copy_device_to_host(accel_opencl_backend_t *cl, int device,
                                          accel_opencl_queue_t *queue, void *dst, const void *src,
                                          size_t size)
{
    accel_cl_mem mem = NULL;
    size_t offset = 0;
    accel_cl_event done = NULL;
    accel_cl_int err;
    bool wait = !host_is_pinned(cl, dst, size);
    if (wait && accel_opencl_in_callback_of(cl, device, queue))
        return accel_opencl_callback_wait_refused(
            "a copy with pageable host memory on the callback's stream");
    accel_status_t status = accel_opencl_resolve(cl, device, src, size, &mem, &offset);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&queue->lock);
    err = cl->api->clEnqueueReadBuffer(queue->handle, mem, ACCEL_CL_FALSE, offset, size, dst, 0,
                                       NULL, &done);
    return accel_opencl_queue_commit(cl, queue, err, done, wait, "clEnqueueReadBuffer");
}

accel_status_t accel_opencl_memcpy_async(void *self, int device, void *dst, const void *src,
                                         size_t size, accel_copy_kind_t kind, void *stream)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_opencl_queue_t *queue = accel_opencl_queue_of(cl, device, stream);
    if (size == 0)
        return ACCEL_OK;
    switch (kind) {
    case ACCEL_COPY_HOST_TO_HOST: return copy_host_to_host(cl, device, queue, dst, src, size);
    case ACCEL_COPY_HOST_TO_DEVICE: return copy_host_to_device(cl, device, queue, dst, src, size);
    case ACCEL_COPY_DEVICE_TO_HOST: return copy_device_to_host(cl, device, queue, dst, src, size);
    case ACCEL_COPY_DEVICE_TO_DEVICE:
        return copy_device_to_device(cl, device, queue, dst, src, size);
    }
    return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT, "opencl: unknown copy kind %d",
                               (int)kind);
}

accel_status_t accel_opencl_memset_async(void *self, int device, void *dst, int value, size_t size,
                                         void *stream)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_opencl_queue_t *queue = accel_opencl_queue_of(cl, device, stream);
    unsigned char pattern = (unsigned char)value;
    accel_cl_mem mem = NULL;
    size_t offset = 0;
    accel_cl_event done = NULL;
    accel_cl_int err;
    accel_status_t status;
    if (size == 0)
        return ACCEL_OK;
    status = accel_opencl_resolve(cl, device, dst, size, &mem, &offset);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&queue->lock);
    err =
        cl->api->clEnqueueFillBuffer(queue->handle, mem, &pattern, 1, offset, size, 0, NULL, &done);
    return accel_opencl_queue_commit(cl, queue, err, done, false, "clEnqueueFillBuffer");
}

/* ---------------------------------------------------------------- pinned host memory */

/* Pinned memory lives in device 0's context: OpenCL has no context-free
 * host allocation. Its pointer is ordinary host memory for every device. */
accel_status_t accel_opencl_host_alloc(void *self, size_t size, void **out)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    const accel_cl_api_t *api = cl->api;
    accel_opencl_range_t range = {.size = size, .device = 0};
    accel_cl_int err = ACCEL_CL_SUCCESS;
    void *mapped;

    range.mem = api->clCreateBuffer(cl->devices[0].context,
                                    ACCEL_CL_MEM_READ_WRITE | ACCEL_CL_MEM_ALLOC_HOST_PTR, size,
                                    NULL, &err);
    if (err != ACCEL_CL_SUCCESS)
        return accel_opencl_fail("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)", err);
    mapped = api->clEnqueueMapBuffer(cl->pin_queue, range.mem, ACCEL_CL_TRUE,
                                     ACCEL_CL_MAP_READ | ACCEL_CL_MAP_WRITE, 0, size, 0, NULL, NULL,
                                     &err);
    if (err != ACCEL_CL_SUCCESS || mapped == NULL) {
        api->clReleaseMemObject(range.mem);
        return accel_opencl_fail("clEnqueueMapBuffer",
                                 err != ACCEL_CL_SUCCESS ? err : ACCEL_CL_MAP_FAILURE);
    }
    range.base = (uintptr_t)mapped;
    if (!range_insert(&cl->pinned, &range)) {
        api->clEnqueueUnmapMemObject(cl->pin_queue, range.mem, mapped, 0, NULL, NULL);
        api->clReleaseMemObject(range.mem);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "opencl: out of host memory");
    }
    *out = mapped;
    return ACCEL_OK;
}

static void pinned_release(accel_opencl_backend_t *cl, const accel_opencl_range_t *range,
                           bool mapped)
{
    /* Wait for this unmap only: clFinish on the shared pin queue made every
     * thread's free wait for every other thread's maps and unmaps. */
    if (mapped) {
        accel_cl_event unmapped = NULL;
        accel_cl_int err = cl->api->clEnqueueUnmapMemObject(
            cl->pin_queue, range->mem, (void *)range->base, 0, NULL, &unmapped);
        if (err == ACCEL_CL_SUCCESS && unmapped != NULL) {
            cl->api->clFlush(cl->pin_queue);
            cl->api->clWaitForEvents(1, &unmapped);
            cl->api->clReleaseEvent(unmapped);
        } else {
            cl->api->clFinish(cl->pin_queue);
        }
    }
    cl->api->clReleaseMemObject(range->mem);
}

void accel_opencl_host_free(void *self, void *ptr, size_t size)
{
    ACCEL_OPENCL_FORK_GUARD_VOID();
    accel_opencl_backend_t *cl = self;
    accel_opencl_range_t range;
    if (ptr != NULL && range_remove(&cl->pinned, ptr, &range))
        pinned_release(cl, &range, true);
}

/* A CL_MEM_USE_HOST_PTR buffer over the range, kept while it is registered:
 * drivers that pin such buffers pin it, and copies treat it as pinned. */
accel_status_t accel_opencl_host_register(void *self, void *ptr, size_t size)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_opencl_range_t range = {.base = (uintptr_t)ptr, .size = size, .device = -1};
    accel_cl_int err = ACCEL_CL_SUCCESS;
    range.mem = cl->api->clCreateBuffer(cl->devices[0].context,
                                        ACCEL_CL_MEM_READ_WRITE | ACCEL_CL_MEM_USE_HOST_PTR, size,
                                        ptr, &err);
    if (err != ACCEL_CL_SUCCESS)
        return accel_opencl_fail("clCreateBuffer(CL_MEM_USE_HOST_PTR)", err);
    if (!range_insert(&cl->pinned, &range)) {
        cl->api->clReleaseMemObject(range.mem);
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "opencl: host range %p + %zu bytes overlaps pinned memory", ptr,
                                   size);
    }
    return ACCEL_OK;
}

void accel_opencl_host_unregister(void *self, void *ptr, size_t size)
{
    ACCEL_OPENCL_FORK_GUARD_VOID();
    accel_opencl_backend_t *cl = self;
    accel_opencl_range_t range;
    if (ptr != NULL && range_remove(&cl->pinned, ptr, &range))
        pinned_release(cl, &range, false);
}

void accel_opencl_memory_release_all(accel_opencl_backend_t *cl)
{
    ACCEL_OPENCL_FORK_GUARD_VOID();
    accel_opencl_range_t range;
    while (range_pop_last(&cl->pinned, &range))
        pinned_release(cl, &range, range.device == 0);
    while (range_pop_last(&cl->buffers, &range)) {
        munmap((void *)range.base, range.size);
        cl->api->clReleaseMemObject(range.mem);
    }
}
