/* memory.c: the sdaa backend's memory slots: raw device memory (core's
 * caching allocator sits on top), copies and fills ordered on a stream,
 * pinned host memory, the free/total figures and the random fills.
 * Random numbers: the same Philox bits as every backend, generated on the
 * host (accel_philox_fill) into pinned staging memory
 * (sdaaMallocHost) and copied to the device on the stream: this build has no
 * SDAA kernel compiler, so there is no device kernel to run. A fill does not
 * wait for its copy: the staging buffer is freed by a later fill (or
 * destroy()) once an event recorded after the copy has completed.
 * Threads: any thread; each slot makes its device current first. */
#include <stdint.h>
#include <stdlib.h>

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

/* Every kind, host-to-host included, goes through sdaaMemcpyAsync on the
 * stream; accel's synchronous copies are these plus a stream wait. A
 * device-to-host copy into pageable memory may return only when done (as
 * on CUDA); that changes timing, not results. */
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
    case ACCEL_COPY_HOST_TO_HOST: sdaa_kind = ACCEL_SDAA_MEMCPY_HOST_TO_HOST; break;
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

/* Free `entry` (its event complete, or the wait for it failed). */
static void sdaa_staging_free(accel_sdaa_backend_t *sdaa, accel_sdaa_staging_t *entry)
{
    accel_sdaa_error_t code = sdaa->rt->sdaaEventDestroy(entry->copied);
    if (code != ACCEL_SDAA_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "sdaa: sdaaEventDestroy (random fill) failed with sdaaError_t %d",
                  code);
    code = sdaa->rt->sdaaFreeHost(entry->ptr);
    if (code != ACCEL_SDAA_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "sdaa: sdaaFreeHost (random fill) failed with sdaaError_t %d",
                  code);
    free(entry);
}

/* Free the staging buffers of `device` whose copies have completed; the
 * calling thread's device is `device`. Never waits. */
static void sdaa_staging_sweep(accel_sdaa_backend_t *sdaa, int device)
{
    accel_sdaa_staging_t *done = NULL;
    pthread_mutex_lock(&sdaa->staging_lock);
    for (accel_sdaa_staging_t **link = &sdaa->staging; *link != NULL;) {
        accel_sdaa_staging_t *entry = *link;
        if (entry->device == device &&
            sdaa->rt->sdaaEventQuery(entry->copied) == ACCEL_SDAA_SUCCESS) {
            *link = entry->next;
            entry->next = done;
            done = entry;
        } else {
            link = &entry->next;
        }
    }
    pthread_mutex_unlock(&sdaa->staging_lock);
    while (done != NULL) {
        accel_sdaa_staging_t *next = done->next;
        sdaa_staging_free(sdaa, done);
        done = next;
    }
}

void accel_sdaa_staging_release(accel_sdaa_backend_t *sdaa)
{
    accel_sdaa_staging_t *entry;
    pthread_mutex_lock(&sdaa->staging_lock);
    entry = sdaa->staging;
    sdaa->staging = NULL;
    pthread_mutex_unlock(&sdaa->staging_lock);
    while (entry != NULL) {
        accel_sdaa_staging_t *next = entry->next;
        if (accel_sdaa_activate(sdaa, entry->device) == ACCEL_OK) {
            accel_sdaa_error_t code = sdaa->rt->sdaaEventSynchronize(entry->copied);
            /* The copy may still read the buffer: wait for the whole device
             * instead, and keep the buffer (a leak, said) if that fails too. */
            if (code != ACCEL_SDAA_SUCCESS) {
                accel_log(ACCEL_LOG_WARN,
                          "sdaa: sdaaEventSynchronize (random fill) failed with sdaaError_t %d; "
                          "waiting for device %d instead",
                          code, entry->device);
                code = sdaa->rt->sdaaDeviceSynchronize();
            }
            if (code == ACCEL_SDAA_SUCCESS)
                sdaa_staging_free(sdaa, entry);
            else
                accel_log(ACCEL_LOG_WARN, "sdaa: sdaaDeviceSynchronize failed too; a random "
                                          "fill's staging buffer is left allocated rather than "
                                          "freed under a copy that may still read it");
        } else {
            free(entry); /* the runtime is out of reach: only our own record can be freed */
        }
        entry = next;
    }
}

/* The fill is generated on the host at call time (the bits depend only on
 * seed and offset), so the call returns at once: the staging buffer stays
 * queued until an event recorded after its copy completes. */
accel_status_t accel_sdaa_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                   void *ptr, size_t count, uint64_t seed, uint64_t offset)
{
    accel_sdaa_backend_t *sdaa = self;
    const accel_sdaa_api_t *rt = sdaa->rt;
    size_t bytes = count * sizeof(uint32_t); /* u32 or float */
    accel_sdaa_staging_t *entry;
    accel_status_t status;

    if (count == 0)
        return ACCEL_OK;
    if ((status = accel_sdaa_activate(sdaa, device)) != ACCEL_OK)
        return status;
    sdaa_staging_sweep(sdaa, device);
    entry = calloc(1, sizeof *entry);
    if (entry == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "sdaa: out of host memory for a random fill");
    entry->device = device;
    status = accel_sdaa_check(rt, rt->sdaaMallocHost(&entry->ptr, bytes),
                              "sdaaMallocHost (random fill staging)");
    if (status != ACCEL_OK) {
        free(entry);
        return status;
    }
    status = accel_philox_fill(kind, entry->ptr, count, seed, offset);
    if (status == ACCEL_OK)
        status = accel_sdaa_check(rt, rt->sdaaEventCreate(&entry->copied),
                                  "sdaaEventCreate (random fill)");
    if (status != ACCEL_OK) {
        if (rt->sdaaFreeHost(entry->ptr) != ACCEL_SDAA_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "sdaa: sdaaFreeHost (random fill) failed");
        free(entry);
        return status;
    }
    status = accel_sdaa_check(
        rt, rt->sdaaMemcpyAsync(ptr, entry->ptr, bytes, ACCEL_SDAA_MEMCPY_HOST_TO_DEVICE, stream),
        "sdaaMemcpyAsync (random fill)");
    if (status != ACCEL_OK) {
        sdaa_staging_free(sdaa, entry); /* nothing was queued */
        return status;
    }
    status = accel_sdaa_check(rt, rt->sdaaEventRecord(entry->copied, stream),
                              "sdaaEventRecord (random fill)");
    if (status == ACCEL_OK) {
        pthread_mutex_lock(&sdaa->staging_lock);
        entry->next = sdaa->staging;
        sdaa->staging = entry;
        pthread_mutex_unlock(&sdaa->staging_lock);
        return ACCEL_OK;
    }
    /* The copy is queued but cannot be tracked: wait for it here. */
    if (rt->sdaaStreamSynchronize(stream) != ACCEL_SDAA_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "sdaa: sdaaStreamSynchronize after a failed random fill "
                                  "failed too; freeing its staging buffer anyway");
    sdaa_staging_free(sdaa, entry);
    return status;
}
