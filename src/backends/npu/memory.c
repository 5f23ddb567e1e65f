/* memory.c: the npu backend's memory slots: raw device memory (core's
 * caching allocator sits on top) with ACL's huge-page-first policy, fills
 * ordered on a stream (copies: copy.c), pinned host memory and the
 * free/total figures. Random fills are core's (no Ascend C kernel compiler
 * here): the host Philox bits in pinned staging, copied with memcpy_async.
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

accel_status_t accel_npu_memset_async(void *self, int device, void *dst, int value, size_t size,
                                      void *stream)
{
    accel_npu_backend_t *npu = self;
    accel_acl_stream_t handle = NULL;
    accel_status_t status = accel_npu_stream_handle(npu, device, stream, &handle);
    if (status != ACCEL_OK)
        return status;
    return accel_npu_check(
        npu->acl,
        npu->acl->aclrtMemsetAsync(dst, size, (int32_t)(unsigned char)value, size, handle),
        "aclrtMemsetAsync");
}

bool accel_npu_host_pinned(accel_npu_backend_t *npu, const void *ptr, size_t size)
{
    bool inside;
    pthread_mutex_lock(&npu->pinned_lock);
    inside = accel_range_map_find(&npu->pinned, ptr, size) != NULL;
    pthread_mutex_unlock(&npu->pinned_lock);
    return inside;
}

/* Record a range ACL page-locked; OUT_OF_MEMORY (the caller undoes it). */
static accel_status_t npu_pinned_add(accel_npu_backend_t *npu, const void *ptr, size_t size)
{
    accel_status_t status;
    pthread_mutex_lock(&npu->pinned_lock);
    status = accel_range_map_insert(&npu->pinned, ptr, size, NULL, NULL);
    pthread_mutex_unlock(&npu->pinned_lock);
    if (status != ACCEL_OK)
        return accel_backend_error(status, "npu: cannot record the pinned range %p..+%zu", ptr,
                                   size);
    return ACCEL_OK;
}

static void npu_pinned_remove(accel_npu_backend_t *npu, const void *ptr)
{
    pthread_mutex_lock(&npu->pinned_lock);
    (void)accel_range_map_remove(&npu->pinned, ptr, NULL, NULL);
    pthread_mutex_unlock(&npu->pinned_lock);
}

/* Pinned memory needs a current ACL device: the thread's own, or 0. */
accel_status_t accel_npu_host_alloc(void *self, size_t size, void **out)
{
    accel_npu_backend_t *npu = self;
    accel_status_t status = accel_npu_activate(npu, accel_npu_thread_device(npu));
    if (status == ACCEL_OK)
        status = accel_npu_check(npu->acl, npu->acl->aclrtMallocHost(out, size), "aclrtMallocHost");
    if (status == ACCEL_OK && (status = npu_pinned_add(npu, *out, size)) != ACCEL_OK)
        (void)npu->acl->aclrtFreeHost(*out);
    return status;
}

void accel_npu_host_free(void *self, void *ptr, size_t size)
{
    accel_npu_backend_t *npu = self;
    accel_acl_error_t code;
    (void)size;
    npu_pinned_remove(npu, ptr);
    if (accel_npu_activate(npu, accel_npu_thread_device(npu)) != ACCEL_OK)
        return;
    code = npu->acl->aclrtFreeHost(ptr);
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtFreeHost(%p) failed with aclError %d", ptr, code);
}

/* Pinning an existing range, as cudaHostRegister does, is
 * aclrtHostRegisterV2(ptr, size, ACL_HOST_REG_PINNED) (acl_rt.h; CANN 8.5's
 * aclrtHostRegisterV2 page). Its ptr must be 4 KiB aligned, as
 * aclrtHostRegister's page says of that call (harsher reading for V2), so the
 * whole pages holding [ptr, ptr + size) are registered: two registrations
 * that share a page are refused by ACL (said in the README).
 * Without V2 the slot refuses with UNSUPPORTED: aclrtHostRegister(MAPPED)
 * only maps the range for device-side access and its address "cannot be
 * used for memory copy" (CANN 8.5's aclrtHostRegister page), so it pins
 * nothing accel's copies could use. Copies from such memory still work:
 * CANN 8.5 and later turn an async copy from pageable memory into a
 * synchronous one (hicann/runtime api_error.cc). */
#define NPU_HOST_REGISTER_PAGE ((uintptr_t)4096)

static void *npu_page_base(const void *ptr)
{
    return (void *)((uintptr_t)ptr & ~(NPU_HOST_REGISTER_PAGE - 1));
}

accel_status_t accel_npu_host_register(void *self, void *ptr, size_t size)
{
    accel_npu_backend_t *npu = self;
    void *base = npu_page_base(ptr);
    uintptr_t end = (uintptr_t)ptr + size;
    uint64_t pages =
        (uint64_t)(((end + NPU_HOST_REGISTER_PAGE - 1) & ~(NPU_HOST_REGISTER_PAGE - 1)) -
                   (uintptr_t)base);
    accel_status_t status;
    if (npu->acl->aclrtHostRegisterV2 == NULL || npu->acl->aclrtHostUnregister == NULL)
        return accel_backend_error(
            ACCEL_ERROR_UNSUPPORTED,
            "npu: this CANN has no aclrtHostRegisterV2 (CANN 8.5 and later), the only ACL call "
            "that pins an existing host range for copies; use accel_host_alloc for pinned "
            "memory (copies from unpinned memory still work, synchronously)");
    status = accel_npu_activate(npu, accel_npu_thread_device(npu));
    if (status == ACCEL_OK)
        status = accel_npu_check(
            npu->acl, npu->acl->aclrtHostRegisterV2(base, pages, ACCEL_ACL_HOST_REG_PINNED),
            "aclrtHostRegisterV2(ACL_HOST_REG_PINNED) of the 4 KiB pages holding the range");
    if (status == ACCEL_OK && (status = npu_pinned_add(npu, ptr, size)) != ACCEL_OK)
        (void)npu->acl->aclrtHostUnregister(base);
    return status;
}

void accel_npu_host_unregister(void *self, void *ptr, size_t size)
{
    accel_npu_backend_t *npu = self;
    accel_acl_error_t code;
    (void)size;
    npu_pinned_remove(npu, ptr);
    if (accel_npu_activate(npu, accel_npu_thread_device(npu)) != ACCEL_OK)
        return;
    code = npu->acl->aclrtHostUnregister(npu_page_base(ptr));
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtHostUnregister(%p) failed with aclError %d",
                  npu_page_base(ptr), code);
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
