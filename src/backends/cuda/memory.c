/* memory.c: the CUDA backend's memory slots: raw device memory (core's
 * caching allocator sits on top), copies and fills ordered on a stream,
 * pinned host memory and the free/total figures.
 * Copies: each direction uses its own driver call; host-to-host goes through
 * cuMemcpyAsync, which with unified addressing (every 64-bit driver) sees
 * two host pointers and copies them in stream order, so every kind of copy
 * is ordered with the stream's other work (and can be captured into a graph
 * when the host side is pinned). Threads: any thread; each slot makes the
 * device's context current first. */
#include <stdint.h>

#include "backends/cuda/cuda_backend.h"

#define CUDA_DPTR(ptr) ((accel_cu_deviceptr_t)(uintptr_t)(ptr))

accel_status_t accel_cuda_mem_alloc(void *self, int device, size_t size, void **out)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_deviceptr_t ptr = 0;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status == ACCEL_OK)
        status = accel_cuda_check(cuda->cu, cuda->cu->cuMemAlloc_v2(&ptr, size), "cuMemAlloc_v2");
    if (status == ACCEL_OK)
        *out = (void *)(uintptr_t)ptr;
    return status;
}

void accel_cuda_mem_free(void *self, int device, void *ptr)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_result_t result;
    if (accel_cuda_activate(cuda, device) != ACCEL_OK)
        return;
    result = cuda->cu->cuMemFree_v2(CUDA_DPTR(ptr));
    if (result != ACCEL_CUDA_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "cuda: cuMemFree_v2(%p) on device %d failed with CUresult %u",
                  ptr, device, result);
}

accel_status_t accel_cuda_memcpy_async(void *self, int device, void *dst, const void *src,
                                       size_t size, accel_copy_kind_t kind, void *stream)
{
    accel_cuda_backend_t *cuda = self;
    const accel_cuda_api_t *cu = cuda->cu;
    accel_cu_stream_t s = stream;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    switch (kind) {
    case ACCEL_COPY_HOST_TO_DEVICE:
        return accel_cuda_check(cu, cu->cuMemcpyHtoDAsync_v2(CUDA_DPTR(dst), src, size, s),
                                "cuMemcpyHtoDAsync_v2");
    case ACCEL_COPY_DEVICE_TO_HOST:
        return accel_cuda_check(cu, cu->cuMemcpyDtoHAsync_v2(dst, CUDA_DPTR(src), size, s),
                                "cuMemcpyDtoHAsync_v2");
    case ACCEL_COPY_DEVICE_TO_DEVICE:
        return accel_cuda_check(cu,
                                cu->cuMemcpyDtoDAsync_v2(CUDA_DPTR(dst), CUDA_DPTR(src), size, s),
                                "cuMemcpyDtoDAsync_v2");
    case ACCEL_COPY_HOST_TO_HOST:
        return accel_cuda_check(cu, cu->cuMemcpyAsync(CUDA_DPTR(dst), CUDA_DPTR(src), size, s),
                                "cuMemcpyAsync (host to host)");
    }
    return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT, "cuda: unknown copy kind %d",
                               (int)kind);
}

accel_status_t accel_cuda_memset_async(void *self, int device, void *dst, int value, size_t size,
                                       void *stream)
{
    accel_cuda_backend_t *cuda = self;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    return accel_cuda_check(
        cuda->cu, cuda->cu->cuMemsetD8Async(CUDA_DPTR(dst), (unsigned char)value, size, stream),
        "cuMemsetD8Async");
}

/* Pinned memory is portable (usable from every device's context), but it
 * belongs to the context that made it and dies with it: it is made in one of
 * accel's own primary contexts, the thread's current one when that is
 * accel's, else device 0's. A foreign context the thread had current (another
 * library's) is current again afterwards. */
static bool cuda_is_own_context(const accel_cuda_backend_t *cuda, accel_cu_context_t context)
{
    for (int d = 0; d < cuda->device_count && context != NULL; d++)
        if (atomic_load_explicit(&cuda->devices[d].context, memory_order_acquire) == context)
            return true;
    return false;
}

static accel_status_t cuda_host_enter(accel_cuda_backend_t *cuda, accel_cu_context_t *saved)
{
    *saved = NULL;
    if (cuda->cu->cuCtxGetCurrent(saved) == ACCEL_CUDA_SUCCESS && cuda_is_own_context(cuda, *saved))
        return ACCEL_OK;
    return accel_cuda_activate(cuda, 0);
}

static void cuda_host_leave(accel_cuda_backend_t *cuda, accel_cu_context_t saved)
{
    if (saved != NULL && !cuda_is_own_context(cuda, saved))
        cuda->cu->cuCtxSetCurrent(saved);
}

accel_status_t accel_cuda_host_alloc(void *self, size_t size, void **out)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_context_t saved;
    accel_status_t status = cuda_host_enter(cuda, &saved);
    if (status == ACCEL_OK)
        status = accel_cuda_check(
            cuda->cu, cuda->cu->cuMemHostAlloc(out, size, ACCEL_CU_MEMHOSTALLOC_PORTABLE),
            "cuMemHostAlloc");
    cuda_host_leave(cuda, saved);
    return status;
}

void accel_cuda_host_free(void *self, void *ptr, size_t size)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_context_t saved;
    accel_cu_result_t result;
    if (cuda_host_enter(cuda, &saved) != ACCEL_OK)
        return;
    result = cuda->cu->cuMemFreeHost(ptr);
    cuda_host_leave(cuda, saved);
    if (result != ACCEL_CUDA_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "cuda: cuMemFreeHost(%p) failed with CUresult %u", ptr, result);
}

accel_status_t accel_cuda_host_register(void *self, void *ptr, size_t size)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_context_t saved;
    accel_status_t status = cuda_host_enter(cuda, &saved);
    if (status == ACCEL_OK)
        status = accel_cuda_check(
            cuda->cu, cuda->cu->cuMemHostRegister_v2(ptr, size, ACCEL_CU_MEMHOSTREGISTER_PORTABLE),
            "cuMemHostRegister_v2");
    cuda_host_leave(cuda, saved);
    return status;
}

void accel_cuda_host_unregister(void *self, void *ptr, size_t size)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_context_t saved;
    accel_cu_result_t result;
    if (cuda_host_enter(cuda, &saved) != ACCEL_OK)
        return;
    result = cuda->cu->cuMemHostUnregister(ptr);
    cuda_host_leave(cuda, saved);
    if (result != ACCEL_CUDA_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "cuda: cuMemHostUnregister(%p) failed with CUresult %u", ptr,
                  result);
}

/* Free memory as DeepSpeed's available_memory reads it: NVML's figure for the
 * whole device (other processes included) when NVML maps this device, with
 * the total from cuDeviceTotalMem_v2; neither needs a context, so a report
 * retains none. Without NVML: cuMemGetInfo_v2 in the device's context. */
accel_status_t accel_cuda_memory_info(void *self, int device, uint64_t *free_bytes,
                                      uint64_t *total_bytes)
{
    accel_cuda_backend_t *cuda = self;
    const accel_cuda_device_t *dev = &cuda->devices[device];
    size_t free_now = 0, total = 0;
    accel_status_t status;

    if (cuda->nvml != NULL && dev->nvml_index >= 0) {
        accel_nvml_device_t handle;
        accel_nvml_memory_t memory;
        if (cuda->nvml->nvmlDeviceGetHandleByIndex_v2((unsigned)dev->nvml_index, &handle) ==
                ACCEL_NVML_SUCCESS &&
            cuda->nvml->nvmlDeviceGetMemoryInfo(handle, &memory) == ACCEL_NVML_SUCCESS &&
            cuda->cu->cuDeviceTotalMem_v2(&total, dev->handle) == ACCEL_CUDA_SUCCESS) {
            *free_bytes = memory.free;
            *total_bytes = total;
            return ACCEL_OK;
        }
    }
    status = accel_cuda_activate(cuda, device);
    if (status == ACCEL_OK)
        status = accel_cuda_check(cuda->cu, cuda->cu->cuMemGetInfo_v2(&free_now, &total),
                                  "cuMemGetInfo_v2");
    if (status == ACCEL_OK) {
        *free_bytes = free_now;
        *total_bytes = total;
    }
    return status;
}
