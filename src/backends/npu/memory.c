/* memory.c: the npu backend's memory slots: raw device memory (core's
 * caching allocator sits on top) with ACL's huge-page-first policy, copies
 * and fills ordered on a stream, pinned host memory and the free/total
 * figures. Random fills are core's (no Ascend C kernel compiler here): the
 * host Philox bits in pinned staging, copied with memcpy_async.
 * Threads: any thread; each slot makes its device current first. */
#include <stdint.h>
#include <stdlib.h>

#include "backends/npu/npu_backend.h"

accel_status_t accel_npu_mem_alloc(void *self, int device, size_t size, void **out)
{
    accel_npu_backend_t *npu = self;
    void *ptr = NULL;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status == ACCEL_OK)
        status = accel_npu_check(npu->acl,
                                 npu->acl->aclrtMalloc(&ptr, size, ACCEL_ACL_MEM_MALLOC_HUGE_FIRST),
                                 "aclrtMalloc");
    if (status == ACCEL_OK)
        *out = ptr;
    return status;
}

void accel_npu_mem_free(void *self, int device, void *ptr)
{
    accel_npu_backend_t *npu = self;
    accel_acl_error_t code;
    if (accel_npu_activate(npu, device) != ACCEL_OK)
        return;
    code = npu->acl->aclrtFree(ptr);
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtFree(%p) on device %d failed with aclError %d", ptr,
                  device, code);
}

accel_status_t accel_npu_memcpy_async(void *self, int device, void *dst, const void *src,
                                      size_t size, accel_copy_kind_t kind, void *stream)
{
    accel_npu_backend_t *npu = self;
    accel_acl_memcpy_kind_t acl_kind;
    accel_status_t status;
    switch (kind) {
    case ACCEL_COPY_HOST_TO_DEVICE: acl_kind = ACCEL_ACL_MEMCPY_HOST_TO_DEVICE; break;
    case ACCEL_COPY_DEVICE_TO_HOST: acl_kind = ACCEL_ACL_MEMCPY_DEVICE_TO_HOST; break;
    case ACCEL_COPY_DEVICE_TO_DEVICE: acl_kind = ACCEL_ACL_MEMCPY_DEVICE_TO_DEVICE; break;
    case ACCEL_COPY_HOST_TO_HOST: acl_kind = ACCEL_ACL_MEMCPY_HOST_TO_HOST; break;
    default:
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT, "npu: unknown copy kind %d",
                                   (int)kind);
    }
    if ((status = accel_npu_activate(npu, device)) != ACCEL_OK)
        return status;
    return accel_npu_check(
        npu->acl,
        npu->acl->aclrtMemcpyAsync(dst, size, src, size, acl_kind, accel_npu_handle(stream)),
        "aclrtMemcpyAsync");
}

accel_status_t accel_npu_memset_async(void *self, int device, void *dst, int value, size_t size,
                                      void *stream)
{
    accel_npu_backend_t *npu = self;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK)
        return status;
    return accel_npu_check(npu->acl,
                           npu->acl->aclrtMemsetAsync(dst, size, (int32_t)(unsigned char)value,
                                                      size, accel_npu_handle(stream)),
                           "aclrtMemsetAsync");
}

/* Pinned memory needs a current ACL device: the thread's own, or 0. */
accel_status_t accel_npu_host_alloc(void *self, size_t size, void **out)
{
    accel_npu_backend_t *npu = self;
    accel_status_t status = accel_npu_activate(npu, accel_npu_thread_device(npu));
    if (status == ACCEL_OK)
        status = accel_npu_check(npu->acl, npu->acl->aclrtMallocHost(out, size), "aclrtMallocHost");
    return status;
}

void accel_npu_host_free(void *self, void *ptr, size_t size)
{
    accel_npu_backend_t *npu = self;
    accel_acl_error_t code;
    (void)size;
    if (accel_npu_activate(npu, accel_npu_thread_device(npu)) != ACCEL_OK)
        return;
    code = npu->acl->aclrtFreeHost(ptr);
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtFreeHost(%p) failed with aclError %d", ptr, code);
}

/* Registered as ACL_HOST_REGISTER_MAPPED; the device address ACL returns is
 * not kept: accel copies name the host address and ACL maps it. */
accel_status_t accel_npu_host_register(void *self, void *ptr, size_t size)
{
    accel_npu_backend_t *npu = self;
    void *device_ptr = NULL;
    accel_status_t status = accel_npu_activate(npu, accel_npu_thread_device(npu));
    if (status == ACCEL_OK)
        status =
            accel_npu_check(npu->acl,
                            npu->acl->aclrtHostRegister(
                                ptr, (uint64_t)size, ACCEL_ACL_HOST_REGISTER_MAPPED, &device_ptr),
                            "aclrtHostRegister");
    return status;
}

void accel_npu_host_unregister(void *self, void *ptr, size_t size)
{
    accel_npu_backend_t *npu = self;
    accel_acl_error_t code;
    (void)size;
    if (accel_npu_activate(npu, accel_npu_thread_device(npu)) != ACCEL_OK)
        return;
    code = npu->acl->aclrtHostUnregister(ptr);
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtHostUnregister(%p) failed with aclError %d", ptr,
                  code);
}

/* aclrtGetMemInfo on the device: HBM on 910-class parts, DDR on 310-class. */
accel_status_t accel_npu_memory_info(void *self, int device, uint64_t *free_bytes,
                                     uint64_t *total_bytes)
{
    accel_npu_backend_t *npu = self;
    size_t free_now = 0, total = 0;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status == ACCEL_OK)
        status =
            accel_npu_check(npu->acl, npu->acl->aclrtGetMemInfo(npu->mem_attr, &free_now, &total),
                            "aclrtGetMemInfo");
    if (status == ACCEL_OK) {
        *free_bytes = free_now;
        *total_bytes = total;
    }
    return status;
}
