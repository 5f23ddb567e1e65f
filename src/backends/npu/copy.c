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
 *   device: no D2D rule applies to either), then the slot waits for the
 *   stream and frees the staging, so it too is complete on return.
 * Threads: any thread; the slot makes its device current first. */
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

/* Unaligned D2D: src -> pinned staging -> dst on `stream`, then wait. The
 * staging buffer is freed only once the stream has passed both copies (or
 * the wait failed and the whole device has been waited for instead). */
static accel_status_t npu_copy_bounced(const accel_npu_api_t *acl, void *dst, const void *src,
                                       size_t size, accel_acl_stream_t stream)
{
    void *staging = NULL;
    accel_acl_error_t code;
    accel_status_t status =
        accel_npu_check(acl, acl->aclrtMallocHost(&staging, size),
                        "aclrtMallocHost (staging for an unaligned device-to-device copy)");
    if (status != ACCEL_OK)
        return status;
    status = npu_copy_enqueue(acl, staging, src, size, ACCEL_ACL_MEMCPY_DEVICE_TO_HOST, stream);
    if (status == ACCEL_OK)
        status = npu_copy_enqueue(acl, dst, staging, size, ACCEL_ACL_MEMCPY_HOST_TO_DEVICE, stream);
    /* Even after a failed enqueue the first copy may be queued: wait. */
    code = acl->aclrtSynchronizeStream(stream);
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
    accel_acl_stream_t handle = accel_npu_handle(stream);
    accel_status_t status;
    if ((unsigned)kind > ACCEL_COPY_DEVICE_TO_DEVICE)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT, "npu: unknown copy kind %d",
                                   (int)kind);
    if ((status = accel_npu_activate(npu, device)) != ACCEL_OK)
        return status;
    switch (kind) {
    case ACCEL_COPY_HOST_TO_HOST: return npu_copy_host_to_host(npu->acl, dst, src, size, handle);
    case ACCEL_COPY_HOST_TO_DEVICE:
        return npu_copy_enqueue(npu->acl, dst, src, size, ACCEL_ACL_MEMCPY_HOST_TO_DEVICE, handle);
    case ACCEL_COPY_DEVICE_TO_HOST:
        return npu_copy_enqueue(npu->acl, dst, src, size, ACCEL_ACL_MEMCPY_DEVICE_TO_HOST, handle);
    default: /* device to device */
        if (((uintptr_t)dst | (uintptr_t)src) % NPU_D2D_ALIGN != 0)
            return npu_copy_bounced(npu->acl, dst, src, size, handle);
        return npu_copy_enqueue(npu->acl, dst, src, size, ACCEL_ACL_MEMCPY_DEVICE_TO_DEVICE,
                                handle);
    }
}
