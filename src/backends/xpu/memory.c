/* memory.c: the xpu backend's memory on Level Zero unified shared memory:
 * device allocations (zeMemAllocDevice), host allocations as pinned memory
 * (zeMemAllocHost), copies and fills appended to a stream's command list,
 * and memory totals. Random fills are core's (Level Zero runs no code of
 * ours without a SPIR-V module): host Philox in host USM from host_alloc,
 * copied with memcpy_async.
 * Ownership: allocations are the caller's; the backend keeps their ranges
 * in the maps of accel_xpu_backend_t (under its `lock`) until freed.
 * Threads: any; see xpu_backend.h. */
#include <stdlib.h>

#include "backends/xpu/xpu_backend.h"

#define XPU_DEVICE_ALIGNMENT 256 /* what core's allocator and the kernels assume */
#define XPU_HOST_ALIGNMENT   4096

/* Fill patterns, one byte each; Level Zero reads the pattern at run time on
 * some drivers, so it must outlive the call: these live for the process. */
static const unsigned char xpu_bytes[256] = {
#define XPU_B4(n)  (n), (n) + 1, (n) + 2, (n) + 3
#define XPU_B16(n) XPU_B4(n), XPU_B4((n) + 4), XPU_B4((n) + 8), XPU_B4((n) + 12)
#define XPU_B64(n) XPU_B16(n), XPU_B16((n) + 16), XPU_B16((n) + 32), XPU_B16((n) + 48)
    XPU_B64(0),
    XPU_B64(64),
    XPU_B64(128),
    XPU_B64(192),
#undef XPU_B64
#undef XPU_B16
#undef XPU_B4
};

accel_status_t accel_xpu_mem_alloc(void *self, int device, size_t size, void **out)
{
    accel_xpu_backend_t *xpu = self;
    accel_ze_device_alloc_desc_t desc = {.stype = ACCEL_ZE_STYPE_DEVICE_ALLOC_DESC, .ordinal = 0};
    accel_status_t status = accel_xpu_usable();
    void *ptr = NULL;

    if (status != ACCEL_OK)
        return status;
    status =
        accel_xpu_check(xpu->ze->zeMemAllocDevice(xpu->context, &desc, size, XPU_DEVICE_ALIGNMENT,
                                                  xpu->devices[device].handle, &ptr),
                        "zeMemAllocDevice");
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&xpu->lock);
    status = accel_range_map_insert(&xpu->device_ranges, ptr, size, &device, NULL);
    if (status == ACCEL_OK)
        xpu->allocated[device] += size;
    pthread_mutex_unlock(&xpu->lock);
    if (status != ACCEL_OK) {
        if (xpu->ze->zeMemFree(xpu->context, ptr) != ACCEL_ZE_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "xpu: zeMemFree of an untracked allocation failed");
        return accel_backend_error(status,
                                   "xpu: zeMemAllocDevice returned %p, which overlaps "
                                   "memory already handed out",
                                   ptr);
    }
    *out = ptr;
    return ACCEL_OK;
}

/* zeMemFree does not wait for the device (the spec leaves that to the
 * caller), while core frees blocks whose last use was queued on a stream, as
 * cuMemFree allows because it synchronizes: so wait for the device's streams
 * (every device's, for host memory) first. From a stream callback, which
 * its device's streams wait for, that device cannot be waited for: the
 * memory is freed as is. False when a wait failed: the memory may still be
 * in use and the caller leaves it to the runtime (docs/reliability.md). */
static bool xpu_quiesce(accel_xpu_backend_t *xpu, int device)
{
    bool idle = true;
    for (int d = device < 0 ? 0 : device; d < (device < 0 ? xpu->device_count : device + 1); d++) {
        if (accel_xpu_callback_stream(xpu, d) != NULL)
            continue;
        if (accel_xpu_synchronize(xpu, d) != ACCEL_OK) {
            accel_log(ACCEL_LOG_WARN,
                      "xpu: could not wait for device %d before freeing memory (%s); the memory "
                      "is left to the runtime rather than freed under work that may use it",
                      d, accel_last_error());
            idle = false;
        }
    }
    return idle;
}

void accel_xpu_mem_free(void *self, int device, void *ptr)
{
    accel_xpu_backend_t *xpu = self;
    accel_range_t range;
    accel_ze_result_t code;
    bool known;

    if (accel_xpu_usable() != ACCEL_OK || !xpu_quiesce(xpu, device))
        return;
    pthread_mutex_lock(&xpu->lock);
    known = accel_range_map_remove(&xpu->device_ranges, ptr, &range, NULL);
    if (known)
        xpu->allocated[device] -= range.size;
    pthread_mutex_unlock(&xpu->lock);
    code = xpu->ze->zeMemFree(xpu->context, ptr);
    if (code != ACCEL_ZE_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "xpu: zeMemFree(%p) failed with ze_result_t 0x%x", ptr, code);
}

/* True when [ptr, ptr + size) is host USM from host_alloc (pinned). */
static bool xpu_is_pinned(accel_xpu_backend_t *xpu, const void *ptr, size_t size)
{
    bool pinned;
    pthread_mutex_lock(&xpu->lock);
    pinned = accel_range_map_find(&xpu->host_ranges, ptr, size) != NULL;
    pthread_mutex_unlock(&xpu->lock);
    return pinned;
}

/* A copy touching pageable host memory returns when it is done, as CUDA's
 * does: the caller may reuse (or read) that memory as soon as we return. */
accel_status_t accel_xpu_memcpy_async(void *self, int device, void *dst, const void *src,
                                      size_t size, accel_copy_kind_t kind, void *handle)
{
    accel_xpu_backend_t *xpu = self;
    accel_xpu_stream_t *stream = accel_xpu_stream(xpu, device, handle);
    bool src_host = kind == ACCEL_COPY_HOST_TO_DEVICE || kind == ACCEL_COPY_HOST_TO_HOST;
    bool dst_host = kind == ACCEL_COPY_DEVICE_TO_HOST || kind == ACCEL_COPY_HOST_TO_HOST;
    accel_status_t status = accel_xpu_usable();

    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&stream->lock);
    status = accel_xpu_barrier(xpu, stream);
    if (status == ACCEL_OK)
        status = accel_xpu_check(
            xpu->ze->zeCommandListAppendMemoryCopy(stream->list, dst, src, size, NULL, 0, NULL),
            "zeCommandListAppendMemoryCopy");
    if (status == ACCEL_OK)
        stream->appended++;
    pthread_mutex_unlock(&stream->lock);
    if (status != ACCEL_OK)
        return status;
    if ((src_host && !xpu_is_pinned(xpu, src, size)) ||
        (dst_host && !xpu_is_pinned(xpu, dst, size)))
        return accel_xpu_stream_drain(xpu, stream);
    return ACCEL_OK;
}

accel_status_t accel_xpu_memset_async(void *self, int device, void *dst, int value, size_t size,
                                      void *handle)
{
    accel_xpu_backend_t *xpu = self;
    accel_xpu_stream_t *stream = accel_xpu_stream(xpu, device, handle);
    accel_status_t status = accel_xpu_usable();

    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&stream->lock);
    status = accel_xpu_barrier(xpu, stream);
    if (status == ACCEL_OK)
        status = accel_xpu_check(xpu->ze->zeCommandListAppendMemoryFill(stream->list, dst,
                                                                        &xpu_bytes[value & 0xff], 1,
                                                                        size, NULL, 0, NULL),
                                 "zeCommandListAppendMemoryFill");
    if (status == ACCEL_OK)
        stream->appended++;
    pthread_mutex_unlock(&stream->lock);
    return status;
}

accel_status_t accel_xpu_host_alloc(void *self, size_t size, void **out)
{
    accel_xpu_backend_t *xpu = self;
    accel_ze_host_alloc_desc_t desc = {.stype = ACCEL_ZE_STYPE_HOST_ALLOC_DESC};
    accel_status_t status = accel_xpu_usable();
    void *ptr = NULL;

    if (status != ACCEL_OK)
        return status;
    status = accel_xpu_check(
        xpu->ze->zeMemAllocHost(xpu->context, &desc, size, XPU_HOST_ALIGNMENT, &ptr),
        "zeMemAllocHost");
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&xpu->lock);
    status = accel_range_map_insert(&xpu->host_ranges, ptr, size, NULL, NULL);
    pthread_mutex_unlock(&xpu->lock);
    if (status != ACCEL_OK) {
        if (xpu->ze->zeMemFree(xpu->context, ptr) != ACCEL_ZE_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "xpu: zeMemFree of an untracked host allocation failed");
        return accel_backend_error(status,
                                   "xpu: zeMemAllocHost returned %p, which overlaps "
                                   "memory already handed out",
                                   ptr);
    }
    *out = ptr;
    return ACCEL_OK;
}

void accel_xpu_host_free(void *self, void *ptr, size_t size)
{
    accel_xpu_backend_t *xpu = self;
    accel_ze_result_t code;
    (void)size;
    if (accel_xpu_usable() != ACCEL_OK || !xpu_quiesce(xpu, -1))
        return;
    pthread_mutex_lock(&xpu->lock);
    accel_range_map_remove(&xpu->host_ranges, ptr, NULL, NULL);
    pthread_mutex_unlock(&xpu->lock);
    code = xpu->ze->zeMemFree(xpu->context, ptr);
    if (code != ACCEL_ZE_SUCCESS)
        accel_log(ACCEL_LOG_WARN,
                  "xpu: zeMemFree(%p) of host memory failed with ze_result_t "
                  "0x%x",
                  ptr, code);
}

/* Level Zero core reports sizes only (free memory is a Sysman query, which
 * needs ZES_ENABLE_SYSMAN before zeInit): free is the total less what this
 * backend holds in device allocations. */
accel_status_t accel_xpu_memory_info(void *self, int device, uint64_t *free_bytes,
                                     uint64_t *total_bytes)
{
    accel_xpu_backend_t *xpu = self;
    uint64_t total = xpu->devices[device].total_memory, used;
    accel_status_t status = accel_xpu_usable();
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&xpu->lock);
    used = xpu->allocated[device];
    pthread_mutex_unlock(&xpu->lock);
    *total_bytes = total;
    *free_bytes = used < total ? total - used : 0;
    return ACCEL_OK;
}
