/* memory.c: the sdaa backend's memory slots: raw device memory (core's
 * caching allocator sits on top), copies and fills ordered on a stream,
 * pinned host memory and the free/total figures. Random fills are core's
 * (no SDAA kernel compiler here): the host Philox bits in pinned staging,
 * copied with memcpy_async.
 * Threads: any thread; each slot makes its device current first. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "backends/sdaa/sdaa_backend.h"

accel_status_t accel_sdaa_mem_alloc(void *self, int device, size_t size, void **out)
{
    accel_sdaa_backend_t *sdaa = self;
    void *ptr = NULL;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status == ACCEL_OK)
        status = accel_sdaa_check(sdaa->rt, sdaa->rt->sdaaMalloc(&ptr, size), "sdaaMalloc");
    if (status == ACCEL_OK)
        *out = ptr;
    return status;
}

void accel_sdaa_mem_free(void *self, int device, void *ptr)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_sdaa_error_t code;
    if (accel_sdaa_activate(sdaa, device) != ACCEL_OK)
        return;
    code = sdaa->rt->sdaaFree(ptr);
    if (code != ACCEL_SDAA_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "sdaa: sdaaFree(%p) on device %d failed with sdaaError_t %d", ptr,
                  device, code);
}

/* Every device kind goes through sdaaMemcpyAsync on the stream; accel's
 * synchronous copies are these plus a stream wait. A device-to-host copy
 * into pageable memory may return only when done (as on CUDA); that
 * changes timing, not results. */
accel_status_t accel_sdaa_memcpy_async(void *self, int device, void *dst, const void *src,
                                       size_t size, accel_copy_kind_t kind, void *stream)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_sdaa_memcpy_kind_t sdaa_kind;
    accel_status_t status;
    switch (kind) {
    case ACCEL_COPY_HOST_TO_DEVICE: sdaa_kind = ACCEL_SDAA_MEMCPY_HOST_TO_DEVICE; break;
    case ACCEL_COPY_DEVICE_TO_HOST: sdaa_kind = ACCEL_SDAA_MEMCPY_DEVICE_TO_HOST; break;
    case ACCEL_COPY_DEVICE_TO_DEVICE: sdaa_kind = ACCEL_SDAA_MEMCPY_DEVICE_TO_DEVICE; break;
    case ACCEL_COPY_HOST_TO_HOST:
        /* SDAA-H2H: no public source says sdaaMemcpyAsync takes a
         * host-to-host copy. Taking the harsher reading (refused), the copy
         * is made on the calling thread in stream order, after the stream
         * (and its host callbacks) has drained. */
        if ((status = accel_sdaa_stream_synchronize(sdaa, device, stream)) == ACCEL_OK)
            memmove(dst, src, size);
        return status;
    default:
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT, "sdaa: unknown copy kind %d",
                                   (int)kind);
    }
    if ((status = accel_sdaa_activate(sdaa, device)) != ACCEL_OK)
        return status;
    return accel_sdaa_check(sdaa->rt, sdaa->rt->sdaaMemcpyAsync(dst, src, size, sdaa_kind, stream),
                            "sdaaMemcpyAsync");
}

accel_status_t accel_sdaa_memset_async(void *self, int device, void *dst, int value, size_t size,
                                       void *stream)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status != ACCEL_OK)
        return status;
    return accel_sdaa_check(sdaa->rt,
                            sdaa->rt->sdaaMemsetAsync(dst, (int)(unsigned char)value, size, stream),
                            "sdaaMemsetAsync");
}

/* Pinned memory is made with the thread's device current (its own, or 0),
 * as HIP and CUDA want a current device for it. */
accel_status_t accel_sdaa_host_alloc(void *self, size_t size, void **out)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_status_t status = accel_sdaa_activate(sdaa, accel_sdaa_thread_device(sdaa));
    if (status == ACCEL_OK)
        status = accel_sdaa_check(sdaa->rt, sdaa->rt->sdaaMallocHost(out, size), "sdaaMallocHost");
    return status;
}

void accel_sdaa_host_free(void *self, void *ptr, size_t size)
{
    accel_sdaa_backend_t *sdaa = self;
    accel_sdaa_error_t code;
    (void)size;
    if (accel_sdaa_activate(sdaa, accel_sdaa_thread_device(sdaa)) != ACCEL_OK)
        return;
    code = sdaa->rt->sdaaFreeHost(ptr);
    if (code != ACCEL_SDAA_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "sdaa: sdaaFreeHost(%p) failed with sdaaError_t %d", ptr, code);
}

/* sdaaMemGetInfo answers for the calling thread's current device. */
accel_status_t accel_sdaa_memory_info(void *self, int device, uint64_t *free_bytes,
                                      uint64_t *total_bytes)
{
    accel_sdaa_backend_t *sdaa = self;
    size_t free_now = 0, total = 0;
    accel_status_t status = accel_sdaa_activate(sdaa, device);
    if (status == ACCEL_OK)
        status = accel_sdaa_check(sdaa->rt, sdaa->rt->sdaaMemGetInfo(&free_now, &total),
                                  "sdaaMemGetInfo");
    if (status == ACCEL_OK) {
        *free_bytes = free_now;
        *total_bytes = total;
    }
    return status;
}
