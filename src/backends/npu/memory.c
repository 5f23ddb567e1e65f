/* memory.c: the npu backend's memory slots: raw device memory (core's
 * caching allocator sits on top) with ACL's huge-page-first policy, fills
 * ordered on a stream (copies: copy.c), pinned host memory, the free/total figures
 * and the random fills.
 * Random numbers: the same Philox bits as every backend (src/core/philox.h),
 * generated on the host into pinned staging memory (aclrtMallocHost) and
 * copied to the device on the stream: without a device kernel compiler
 * here there is no Ascend C kernel to run. A fill does not wait for its
 * copy: the staging buffer is freed by a later fill (or destroy()) once an
 * event recorded after the copy has completed.
 * Threads: any thread; each slot makes its device current first. */
#include <stdint.h>
#include <stdlib.h>

#include "backends/npu/npu_backend.h"
#include "core/philox.h"

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
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK)
        return status;
    return accel_npu_check(npu->acl,
                           npu->acl->aclrtMemsetAsync(dst, size, (int32_t)(unsigned char)value,
                                                      size, accel_npu_handle(stream)),
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

/* Free `entry` (its event complete, or the wait for it failed). */
static void npu_staging_free(accel_npu_backend_t *npu, accel_npu_staging_t *entry)
{
    accel_acl_error_t code = npu->acl->aclrtDestroyEvent(entry->copied);
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtDestroyEvent (random fill) failed with aclError %d",
                  code);
    code = npu->acl->aclrtFreeHost(entry->ptr);
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtFreeHost (random fill) failed with aclError %d", code);
    free(entry);
}

/* Free the staging buffers of `device` whose copies have completed; the
 * calling thread's device is `device`. Never waits. */
static void npu_staging_sweep(accel_npu_backend_t *npu, int device)
{
    accel_npu_staging_t *done = NULL;
    pthread_mutex_lock(&npu->staging_lock);
    for (accel_npu_staging_t **link = &npu->staging; *link != NULL;) {
        accel_npu_staging_t *entry = *link;
        accel_acl_event_status_t state = ACCEL_ACL_EVENT_RECORDED_STATUS_NOT_READY;
        if (entry->device == device &&
            npu->acl->aclrtQueryEventStatus(entry->copied, &state) == ACCEL_ACL_SUCCESS &&
            state == ACCEL_ACL_EVENT_RECORDED_STATUS_COMPLETE) {
            *link = entry->next;
            entry->next = done;
            done = entry;
        } else {
            link = &entry->next;
        }
    }
    pthread_mutex_unlock(&npu->staging_lock);
    while (done != NULL) {
        accel_npu_staging_t *next = done->next;
        npu_staging_free(npu, done);
        done = next;
    }
}

void accel_npu_staging_release(accel_npu_backend_t *npu)
{
    accel_npu_staging_t *entry;
    pthread_mutex_lock(&npu->staging_lock);
    entry = npu->staging;
    npu->staging = NULL;
    pthread_mutex_unlock(&npu->staging_lock);
    while (entry != NULL) {
        accel_npu_staging_t *next = entry->next;
        if (accel_npu_activate(npu, entry->device) == ACCEL_OK) {
            accel_acl_error_t code = npu->acl->aclrtSynchronizeEvent(entry->copied);
            /* The copy may still read the buffer: wait for the whole device
             * instead, and keep the buffer (a leak, said) if that fails too. */
            if (code != ACCEL_ACL_SUCCESS) {
                accel_log(ACCEL_LOG_WARN,
                          "npu: aclrtSynchronizeEvent (random fill) failed with aclError %d; "
                          "waiting for device %d instead",
                          code, entry->device);
                code = npu->acl->aclrtSynchronizeDevice();
            }
            if (code == ACCEL_ACL_SUCCESS)
                npu_staging_free(npu, entry);
            else
                accel_log(ACCEL_LOG_WARN, "npu: aclrtSynchronizeDevice failed too; a random "
                                          "fill's staging buffer is left allocated rather than "
                                          "freed under a copy that may still read it");
        } else {
            free(entry); /* the runtime is gone: only our own record can be freed */
        }
        entry = next;
    }
}

/* The fill is generated on the host at call time (the bits depend only on
 * seed and offset), so the call returns at once: the staging buffer stays
 * queued until an event recorded after its copy completes. */
accel_status_t accel_npu_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                  void *ptr, size_t count, uint64_t seed, uint64_t offset)
{
    accel_npu_backend_t *npu = self;
    const accel_npu_api_t *acl = npu->acl;
    accel_acl_stream_t handle = accel_npu_handle(stream);
    size_t bytes = count * sizeof(uint32_t); /* u32 or float */
    accel_npu_staging_t *entry;
    accel_status_t status;

    if (count == 0)
        return ACCEL_OK;
    if ((status = accel_npu_activate(npu, device)) != ACCEL_OK)
        return status;
    npu_staging_sweep(npu, device);
    entry = calloc(1, sizeof *entry);
    if (entry == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "npu: out of host memory for a random fill");
    entry->device = device;
    status = accel_npu_check(acl, acl->aclrtMallocHost(&entry->ptr, bytes),
                             "aclrtMallocHost (random fill staging)");
    if (status != ACCEL_OK) {
        free(entry);
        return status;
    }
    accel_philox_fill_range(kind, entry->ptr, 0, count, seed, offset);
    status =
        accel_npu_check(acl, acl->aclrtCreateEventWithFlag(&entry->copied, ACCEL_ACL_EVENT_SYNC),
                        "aclrtCreateEventWithFlag (random fill)");
    if (status == ACCEL_OK) {
        status = accel_npu_check(acl,
                                 acl->aclrtMemcpyAsync(ptr, bytes, entry->ptr, bytes,
                                                       ACCEL_ACL_MEMCPY_HOST_TO_DEVICE, handle),
                                 "aclrtMemcpyAsync (random fill)");
        if (status != ACCEL_OK) {
            npu_staging_free(npu, entry); /* nothing was queued */
            return status;
        }
        status = accel_npu_check(acl, acl->aclrtRecordEvent(entry->copied, handle),
                                 "aclrtRecordEvent (random fill)");
        if (status == ACCEL_OK) {
            pthread_mutex_lock(&npu->staging_lock);
            entry->next = npu->staging;
            npu->staging = entry;
            pthread_mutex_unlock(&npu->staging_lock);
            return ACCEL_OK;
        }
        /* The copy is queued but cannot be tracked: wait for it here. */
        if (acl->aclrtSynchronizeStream(handle) != ACCEL_ACL_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "npu: aclrtSynchronizeStream after a failed random fill "
                                      "failed too; freeing its staging buffer anyway");
        npu_staging_free(npu, entry);
        return status;
    }
    if (acl->aclrtFreeHost(entry->ptr) != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtFreeHost (random fill) failed");
    free(entry);
    return status;
}
