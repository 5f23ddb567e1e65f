/* copy.c: the npu backend's memcpy_async slot, with the two copies that
 * aclrtMemcpyAsync itself must not be given:
 * - host to host: the runtime refuses it (ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
 *   207000; CANN's aclrtMemcpyAsync page and hicann/runtime
 *   src/runtime/api/impl/api_error.cc "H2H is not supported"). It is done as
 *   aclrtSynchronizeStream, then memmove on the calling thread: the same
 *   stream order, and the copy is complete when the slot returns.
 * - device to device with `dst` or `src` not 64-byte aligned: acl_rt.h's
 *   restriction on aclrtMemcpyAsync ("for on-chip Device-to-Device memory
 *   copy, both the source and destination addresses must be 64-byte
 *   aligned"; older CANN documents say it of every copy). It is bounced
 *   through pinned staging on the same stream (device to host, host to
 *   device: no D2D rule applies to either) and returns at once: an event
 *   recorded after the second copy hands the staging buffer to the
 *   backend's deferred-release list (accel_backend_utils.h), which frees it
 *   once the event has completed (a later bounce polls, destroy() drains).
 * - host to device and device to host whose host side ACL has not
 *   page-locked for this backend (accel_host_alloc, accel_host_register:
 *   npu->pinned): CANN 8.0.RC3 and older call such an async copy
 *   "unpredictable" (hiascend.com 80RC3 aclcppdevg_03_0106); CANN 8.5 turns
 *   it into a stream synchronize plus a synchronous copy itself
 *   (hicann/runtime api_error.cc). The slot does that on every release:
 *   aclrtSynchronizeStream, then aclrtMemcpy, complete on return.
 * Threads: any thread; the slot makes its device current first. The list
 * and the pinned map lock themselves. */
#include <stdint.h>
#include <string.h>

#include "backends/npu/npu_backend.h"

/* The alignment acl_rt.h asks of both addresses of an on-chip D2D copy. */
#define NPU_D2D_ALIGN 64u

static accel_status_t npu_copy_enqueue(const accel_npu_api_t *acl, void *dst, const void *src,
                                       size_t size, accel_acl_memcpy_kind_t kind,
                                       accel_acl_stream_t stream)
{
    return accel_npu_check(acl, acl->aclrtMemcpyAsync(dst, size, src, size, kind, stream),
                           "aclrtMemcpyAsync");
}

/* H2H: wait for the stream's earlier work, then copy here. */
static accel_status_t npu_copy_host_to_host(const accel_npu_api_t *acl, void *dst, const void *src,
                                            size_t size, accel_acl_stream_t stream)
{
    accel_status_t status =
        accel_npu_check(acl, acl->aclrtSynchronizeStream(stream),
                        "aclrtSynchronizeStream (before a host-to-host copy, which "
                        "aclrtMemcpyAsync refuses)");
    if (status == ACCEL_OK)
        memmove(dst, src, size);
    return status;
}

/* H2D/D2H from or to pageable host memory: wait for the stream's earlier
 * work, then copy synchronously. */
static accel_status_t npu_copy_pageable(const accel_npu_api_t *acl, void *dst, const void *src,
                                        size_t size, accel_acl_memcpy_kind_t kind,
                                        accel_acl_stream_t stream)
{
    accel_status_t status =
        accel_npu_check(acl, acl->aclrtSynchronizeStream(stream),
                        "aclrtSynchronizeStream (before a copy with pageable host memory)");
    if (status == ACCEL_OK)
        status = accel_npu_check(acl, acl->aclrtMemcpy(dst, size, src, size, kind),
                                 "aclrtMemcpy (pageable host memory)");
    return status;
}

/* The deferred list's release: the staging buffer back to ACL once its
 * copies are known finished; otherwise it stays with the runtime. */
static void npu_staging_release(void *ctx, int device, void *resource, size_t size, bool finished)
{
    (void)device;
    if (finished)
        accel_npu_host_free(ctx, resource, size);
}

accel_status_t accel_npu_copy_staging_open(accel_npu_backend_t *npu)
{
    const accel_deferred_fence_ops_t fence = {
        .self = npu,
        .query = accel_npu_event_query,
        .wait = accel_npu_event_synchronize,
        .destroy = accel_npu_event_destroy,
        .forget = accel_npu_event_destroy, /* defers a WithFlag event itself (event.c) */
        .device_wait = accel_npu_synchronize,
    };
    return accel_deferred_release_create(&fence, &npu->copy_staging);
}

void accel_npu_copy_staging_close(accel_npu_backend_t *npu)
{
    if (accel_npu_forked())
        accel_deferred_release_abandon(npu->copy_staging);
    else
        accel_deferred_release_destroy(npu->copy_staging);
    npu->copy_staging = NULL;
}

/* Unaligned D2D: src -> pinned staging -> dst on `stream`, the staging
 * listed until an event recorded after both copies completes. When the
 * event cannot be made or recorded, the slot waits for the stream instead
 * and frees the staging itself (or, if even that wait fails, the device's). */
static accel_status_t npu_copy_bounced(accel_npu_backend_t *npu, int device, void *dst,
                                       const void *src, size_t size, void *stream)
{
    const accel_npu_api_t *acl = npu->acl;
    accel_acl_stream_t handle = NULL;
    void *staging = NULL, *copied = NULL;
    accel_acl_error_t code;
    accel_status_t status = accel_npu_stream_handle(npu, device, stream, &handle);
    if (status != ACCEL_OK)
        return status;
    status = accel_npu_check(acl, acl->aclrtMallocHost(&staging, size),
                             "aclrtMallocHost (staging for an unaligned device-to-device copy)");
    if (status != ACCEL_OK)
        return status;
    status = npu_copy_enqueue(acl, staging, src, size, ACCEL_ACL_MEMCPY_DEVICE_TO_HOST, handle);
    if (status == ACCEL_OK)
        status = npu_copy_enqueue(acl, dst, staging, size, ACCEL_ACL_MEMCPY_HOST_TO_DEVICE, handle);
    if (status == ACCEL_OK && accel_npu_event_create(npu, device, 0, &copied) == ACCEL_OK) {
        if (accel_npu_event_record(npu, device, stream, copied) == ACCEL_OK) {
            accel_deferred_release_add(npu->copy_staging, device, copied, staging, size,
                                       npu_staging_release, npu);
            return ACCEL_OK;
        }
        accel_npu_event_destroy(npu, device, copied);
    }
    /* Even after a failed enqueue the first copy may be queued: wait. */
    code = acl->aclrtSynchronizeStream(handle);
    if (code != ACCEL_ACL_SUCCESS) {
        if (status == ACCEL_OK)
            status = accel_npu_error(acl, code,
                                     "aclrtSynchronizeStream (unaligned "
                                     "device-to-device copy through staging)");
        if (acl->aclrtSynchronizeDevice() != ACCEL_ACL_SUCCESS) {
            accel_log(ACCEL_LOG_WARN, "npu: cannot wait for an unaligned device-to-device copy; "
                                      "its staging buffer is left allocated rather than freed "
                                      "under a copy that may still use it");
            return status;
        }
    }
    code = acl->aclrtFreeHost(staging);
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtFreeHost (copy staging) failed with aclError %d",
                  code);
    return status;
}

accel_status_t accel_npu_memcpy_async(void *self, int device, void *dst, const void *src,
                                      size_t size, accel_copy_kind_t kind, void *stream)
{
    accel_npu_backend_t *npu = self;
    accel_acl_stream_t handle = NULL;
    accel_status_t status;
    if ((unsigned)kind > ACCEL_COPY_DEVICE_TO_DEVICE)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT, "npu: unknown copy kind %d",
                                   (int)kind);
    if ((status = accel_npu_stream_handle(npu, device, stream, &handle)) != ACCEL_OK)
        return status;
    switch (kind) {
    case ACCEL_COPY_HOST_TO_HOST: return npu_copy_host_to_host(npu->acl, dst, src, size, handle);
    case ACCEL_COPY_HOST_TO_DEVICE:
        if (!accel_npu_host_pinned(npu, src, size))
            return npu_copy_pageable(npu->acl, dst, src, size, ACCEL_ACL_MEMCPY_HOST_TO_DEVICE,
                                     handle);
        return npu_copy_enqueue(npu->acl, dst, src, size, ACCEL_ACL_MEMCPY_HOST_TO_DEVICE, handle);
    case ACCEL_COPY_DEVICE_TO_HOST:
        if (!accel_npu_host_pinned(npu, dst, size))
            return npu_copy_pageable(npu->acl, dst, src, size, ACCEL_ACL_MEMCPY_DEVICE_TO_HOST,
                                     handle);
        return npu_copy_enqueue(npu->acl, dst, src, size, ACCEL_ACL_MEMCPY_DEVICE_TO_HOST, handle);
    default: /* device to device */
        if (((uintptr_t)dst | (uintptr_t)src) % NPU_D2D_ALIGN != 0)
            return npu_copy_bounced(npu, device, dst, src, size, stream);
        return npu_copy_enqueue(npu->acl, dst, src, size, ACCEL_ACL_MEMCPY_DEVICE_TO_DEVICE,
                                handle);
    }
}
