/* memory.c: the mlu backend's memory slots: raw device memory (core's
 * caching allocator sits on top), copies and fills ordered on a queue,
 * pinned host memory and the free/total figures. Random fills are core's
 * (no BANG C compiler here): the host Philox bits in pinned staging, copied
 * with memcpy_async and freed after a notifier.
 * Threads: any thread; each slot makes its device current first. */
#include <stdint.h>
#include <stdlib.h>

#include "backends/mlu/mlu_backend.h"

accel_status_t accel_mlu_mem_alloc(void *self, int device, size_t size, void **out)
{
    accel_mlu_backend_t *mlu = self;
    void *ptr = NULL;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status == ACCEL_OK)
        status = accel_mlu_check(mlu->cnrt, mlu->cnrt->cnrtMalloc(&ptr, size), "cnrtMalloc");
    if (status == ACCEL_OK)
        *out = ptr;
    return status;
}

/* Core frees a segment only when it returns memory to the runtime
 * (empty_cache, an out-of-memory retry, close), possibly right after queued
 * work that uses it; cnrtFree is not documented to wait for that work, so
 * the device is synchronized first (as cuMemFree does implicitly). When
 * that fails the work may still use the memory: it is left to the runtime
 * (a leak, said), never freed under it (docs/reliability.md). */
void accel_mlu_mem_free(void *self, int device, void *ptr)
{
    accel_mlu_backend_t *mlu = self;
    accel_cnrt_ret_t code;
    if (accel_mlu_activate(mlu, device) != ACCEL_OK)
        return;
    code = mlu->cnrt->cnrtSyncDevice();
    if (code != ACCEL_CNRT_SUCCESS) {
        accel_log(ACCEL_LOG_WARN,
                  "mlu: cnrtSyncDevice before cnrtFree(%p) on device %d failed with "
                  "cnrtRet_t %u; the memory is left to the runtime rather than freed under "
                  "work that may still use it",
                  ptr, device, code);
        return;
    }
    code = mlu->cnrt->cnrtFree(ptr);
    if (code != ACCEL_CNRT_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "mlu: cnrtFree(%p) on device %d failed with cnrtRet_t %u", ptr,
                  device, code);
}

accel_status_t accel_mlu_memcpy_async(void *self, int device, void *dst, const void *src,
                                      size_t size, accel_copy_kind_t kind, void *stream)
{
    accel_mlu_backend_t *mlu = self;
    accel_cnrt_mem_dir_t dir;
    accel_status_t status;
    switch (kind) {
    case ACCEL_COPY_HOST_TO_DEVICE: dir = ACCEL_CNRT_MEMCPY_HOST_TO_DEV; break;
    case ACCEL_COPY_DEVICE_TO_HOST: dir = ACCEL_CNRT_MEMCPY_DEV_TO_HOST; break;
    case ACCEL_COPY_DEVICE_TO_DEVICE: dir = ACCEL_CNRT_MEMCPY_DEV_TO_DEV; break;
    case ACCEL_COPY_HOST_TO_HOST: dir = ACCEL_CNRT_MEMCPY_HOST_TO_HOST; break;
    default:
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT, "mlu: unknown copy kind %d",
                                   (int)kind);
    }
    if ((status = accel_mlu_activate(mlu, device)) != ACCEL_OK)
        return status;
    /* CNRT's source is not const; it is only read. */
    return accel_mlu_check(
        mlu->cnrt,
        mlu->cnrt->cnrtMemcpyAsync(dst, (void *)(uintptr_t)src, size, accel_mlu_queue(stream), dir),
        accel_mlu_memcpy_name(mlu->cnrt));
}

accel_status_t accel_mlu_memset_async(void *self, int device, void *dst, int value, size_t size,
                                      void *stream)
{
    accel_mlu_backend_t *mlu = self;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status != ACCEL_OK)
        return status;
    return accel_mlu_check(
        mlu->cnrt,
        mlu->cnrt->cnrtMemsetAsync(dst, (int)(unsigned char)value, size, accel_mlu_queue(stream)),
        "cnrtMemsetAsync");
}

/* Pinned memory needs a current CNRT device: the thread's own, or 0. */
accel_status_t accel_mlu_host_alloc(void *self, size_t size, void **out)
{
    accel_mlu_backend_t *mlu = self;
    accel_status_t status = accel_mlu_activate(mlu, accel_mlu_thread_device(mlu));
    if (status == ACCEL_OK)
        status = accel_mlu_check(mlu->cnrt, mlu->cnrt->cnrtHostMalloc(out, size), "cnrtHostMalloc");
    return status;
}

void accel_mlu_host_free(void *self, void *ptr, size_t size)
{
    accel_mlu_backend_t *mlu = self;
    accel_cnrt_ret_t code;
    (void)size;
    if (accel_mlu_activate(mlu, accel_mlu_thread_device(mlu)) != ACCEL_OK)
        return;
    code = mlu->cnrt->cnrtFreeHost(ptr);
    if (code != ACCEL_CNRT_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "mlu: cnrtFreeHost(%p) failed with cnrtRet_t %u", ptr, code);
}

/* cnrtMemGetInfo answers for the calling thread's current device. */
accel_status_t accel_mlu_memory_info(void *self, int device, uint64_t *free_bytes,
                                     uint64_t *total_bytes)
{
    accel_mlu_backend_t *mlu = self;
    size_t free_now = 0, total = 0;
    accel_status_t status = accel_mlu_activate(mlu, device);
    if (status == ACCEL_OK)
        status = accel_mlu_check(mlu->cnrt, mlu->cnrt->cnrtMemGetInfo(&free_now, &total),
                                 "cnrtMemGetInfo");
    if (status == ACCEL_OK) {
        *free_bytes = free_now;
        *total_bytes = total;
    }
    return status;
}
