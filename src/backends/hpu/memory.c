/* memory.c: the hpu backend's memory slots: raw device memory (core's
 * caching allocator sits on top), copies and fills ordered on a stream,
 * pinned host memory and the free/total figures.
 * - Device memory is a Synapse device address (uint64_t), handed to core as
 *   a pointer-sized value: it is not host-addressable.
 * - Synapse DMA only reads or writes host memory from synHostMalloc or
 *   mapped with synHostMap, which is what host_alloc/host_register give;
 *   those ranges are kept in `pinned`. A copy from pageable memory is first
 *   copied into a pinned staging buffer (so the caller may reuse its memory
 *   at once, as with CUDA); a copy to pageable memory goes through a staging
 *   buffer and returns when it has arrived. Synapse has no host-to-host
 *   DMA: such a copy waits for the stream and is a memmove.
 * - Staging buffers whose copy was handed to Synapse go on the backend's
 *   deferred-release list (accel_backend_utils.h) behind an event recorded
 *   after the copy, and are freed once it completes: by a later staged copy
 *   or destroy(). One whose copy cannot be known finished is never freed.
 * - Random numbers are core's (Gaudi's TPC kernels need Habana's TPC
 *   compiler, which this build does not use): host Philox bits in pinned
 *   memory from host_alloc, copied with memcpy_async.
 * Threads: any thread; `pinned` is under pinned_lock; the deferred-release
 * list is thread-safe itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/hpu/hpu_backend.h"

#define HPU_ADDR(p) ((uint64_t)(uintptr_t)(p))

accel_status_t accel_hpu_mem_alloc(void *self, int device, size_t size, void **out)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_device_t *dev;
    uint64_t addr = 0;
    accel_status_t status = accel_hpu_acquire(hpu, device, &dev);
    if (status == ACCEL_OK)
        status = accel_hpu_check(hpu->syn, hpu->syn->synDeviceMalloc(dev->id, size, 0, 0, &addr),
                                 "synDeviceMalloc");
    if (status == ACCEL_OK)
        *out = (void *)(uintptr_t)addr;
    return status;
}

void accel_hpu_mem_free(void *self, int device, void *ptr)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_device_t *dev;
    accel_syn_status_t code;
    if (accel_hpu_acquire(hpu, device, &dev) != ACCEL_OK)
        return;
    code = hpu->syn->synDeviceFree(dev->id, HPU_ADDR(ptr), 0);
    if (code != ACCEL_SYN_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "hpu: synDeviceFree(%p) on device %d failed with synStatus %u",
                  ptr, device, code);
}

/* ---------------------------------------------------------------- staging */

/* The deferred-release list's fences are Synapse events, its resources
 * synHostMalloc buffers; `self` is the backend. */
static accel_status_t hpu_fence_query(void *self, int device, void *fence)
{
    accel_hpu_backend_t *hpu = self;
    accel_syn_status_t code = hpu->syn->synEventQuery((accel_syn_event_t)fence);
    (void)device;
    if (code == ACCEL_SYN_BUSY)
        return ACCEL_ERROR_NOT_READY;
    return accel_hpu_check(hpu->syn, code, "synEventQuery (staging)");
}

static accel_status_t hpu_fence_wait(void *self, int device, void *fence)
{
    accel_hpu_backend_t *hpu = self;
    (void)device;
    return accel_hpu_check(hpu->syn, hpu->syn->synEventSynchronize((accel_syn_event_t)fence),
                           "synEventSynchronize (staging)");
}

static void hpu_fence_destroy(void *self, int device, void *fence)
{
    accel_hpu_backend_t *hpu = self;
    (void)device;
    if (hpu->syn->synEventDestroy((accel_syn_event_t)fence) != ACCEL_SYN_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "hpu: synEventDestroy (staging) failed");
}

static accel_status_t hpu_fence_device_wait(void *self, int device)
{
    accel_hpu_backend_t *hpu = self;
    return accel_hpu_check(hpu->syn, hpu->syn->synDeviceSynchronize(hpu->devices[device].id),
                           "synDeviceSynchronize (staging)");
}

/* `finished` false: the copy may still use it, so it stays allocated. */
static void hpu_staging_release(void *self, int device, void *ptr, size_t size, bool finished)
{
    accel_hpu_backend_t *hpu = self;
    (void)size;
    if (finished && hpu->syn->synHostFree(hpu->devices[device].id, ptr, 0) != ACCEL_SYN_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "hpu: synHostFree (staging) failed");
}

accel_status_t accel_hpu_staging_open(accel_hpu_backend_t *hpu)
{
    const accel_deferred_fence_ops_t fence = {
        .self = hpu,
        .query = hpu_fence_query,
        .wait = hpu_fence_wait,
        .destroy = hpu_fence_destroy,
        .device_wait = hpu_fence_device_wait,
    };
    return accel_deferred_release_create(&fence, &hpu->staging);
}

void accel_hpu_staging_close(accel_hpu_backend_t *hpu, bool forked)
{
    if (forked)
        accel_deferred_release_abandon(hpu->staging); /* the parent's Synapse: not ours */
    else
        accel_deferred_release_destroy(hpu->staging);
    hpu->staging = NULL;
}

void accel_hpu_staging_free(accel_hpu_backend_t *hpu, accel_hpu_staging_t *staging)
{
    hpu_fence_destroy(hpu, staging->device, staging->copied);
    hpu_staging_release(hpu, staging->device, staging->ptr, staging->size, true);
    free(staging);
}

void accel_hpu_staging_queued(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream,
                              accel_hpu_staging_t *staging, bool recorded)
{
    if (recorded) {
        accel_deferred_release_add(hpu->staging, staging->device, staging->copied, staging->ptr,
                                   staging->size, hpu_staging_release, hpu);
        free(staging);
        return;
    }
    /* No event follows the copy: wait for the stream instead. */
    if (hpu->syn->synStreamSynchronize(stream->handle) == ACCEL_SYN_SUCCESS) {
        accel_hpu_staging_free(hpu, staging);
        return;
    }
    accel_log(ACCEL_LOG_WARN,
              "hpu: a staged copy on device %d can be neither tracked nor waited "
              "for; its %zu-byte staging buffer is left to the runtime rather "
              "than freed under the copy",
              staging->device, staging->size);
    free(staging);
}

/* A staging buffer of a copy to pageable memory, `size` bytes at `ptr`,
 * whose wait failed: the copy may still write into it. It goes on the
 * deferred-release list behind an event recorded now (the copy was handed
 * to Synapse before the wait), or is left to the runtime. */
static void hpu_staging_after_failed_wait(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream,
                                          void *ptr, size_t size)
{
    accel_syn_event_t event = NULL;
    accel_syn_status_t code = hpu->syn->synEventCreate(&event, hpu->devices[stream->device].id, 0);
    if (code == ACCEL_SYN_SUCCESS) {
        pthread_mutex_lock(&hpu->lock); /* in order with the other submissions */
        code = hpu->syn->synEventRecord(event, stream->handle);
        pthread_mutex_unlock(&hpu->lock);
        if (code != ACCEL_SYN_SUCCESS)
            hpu_fence_destroy(hpu, stream->device, event);
    }
    if (code == ACCEL_SYN_SUCCESS) {
        accel_deferred_release_add(hpu->staging, stream->device, event, ptr, size,
                                   hpu_staging_release, hpu);
        return;
    }
    accel_log(ACCEL_LOG_WARN,
              "hpu: a copy to pageable memory on device %d cannot be waited for "
              "or tracked (synStatus %u); its %zu-byte staging buffer is left to "
              "the runtime rather than freed under the copy",
              stream->device, code, size);
}

/* A pinned buffer of `size` bytes on `dev`, with its completion event. */
static accel_status_t hpu_staging_new(accel_hpu_backend_t *hpu, int device, size_t size,
                                      accel_hpu_staging_t **out)
{
    const accel_hpu_api_t *syn = hpu->syn;
    accel_syn_device_id_t id = hpu->devices[device].id;
    accel_hpu_staging_t *staging = calloc(1, sizeof *staging);
    accel_status_t status;
    if (staging == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "hpu: out of host memory for a staging buffer");
    staging->device = device;
    staging->size = size;
    status = accel_hpu_check(syn, syn->synHostMalloc(id, size, 0, &staging->ptr),
                             "synHostMalloc (staging)");
    if (status == ACCEL_OK) {
        status = accel_hpu_check(syn, syn->synEventCreate(&staging->copied, id, 0),
                                 "synEventCreate (staging)");
        if (status != ACCEL_OK && syn->synHostFree(id, staging->ptr, 0) != ACCEL_SYN_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "hpu: synHostFree (staging) failed");
    }
    if (status != ACCEL_OK) {
        free(staging);
        return status;
    }
    *out = staging;
    return ACCEL_OK;
}

/* True when [ptr, ptr + size) lies in one range pinned or mapped on the
 * stream's Gaudi: Synapse maps host memory per device, so memory pinned on
 * another Gaudi is staged like pageable memory. */
static bool hpu_is_pinned(accel_hpu_backend_t *hpu, const accel_hpu_stream_t *stream,
                          const void *ptr, size_t size)
{
    const accel_range_t *range;
    bool pinned = false;
    pthread_mutex_lock(&hpu->pinned_lock);
    range = accel_range_map_find(&hpu->pinned, ptr, size);
    if (range != NULL)
        pinned = ((const accel_hpu_pinned_t *)accel_range_payload(range))->device_id ==
                 hpu->devices[stream->device].id;
    pthread_mutex_unlock(&hpu->pinned_lock);
    return pinned;
}

static accel_status_t hpu_copy(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream, uint64_t src,
                               uint64_t dst, size_t size, accel_syn_dma_dir_t dir,
                               accel_hpu_staging_t *staging)
{
    accel_hpu_item_t *item = calloc(1, sizeof *item);
    if (item == NULL) {
        if (staging != NULL)
            accel_hpu_staging_free(hpu, staging);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "hpu: out of host memory for a copy");
    }
    item->kind = ACCEL_HPU_ITEM_COPY;
    item->src = src;
    item->dst = dst;
    item->size = size;
    item->dir = dir;
    item->staging = staging;
    return accel_hpu_stream_submit(hpu, stream, item);
}

/* Host to device from `src` (pinned, or staged now). */
static accel_status_t hpu_copy_from_host(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream,
                                         void *dst, const void *src, size_t size)
{
    accel_hpu_staging_t *staging = NULL;
    accel_status_t status;
    if (hpu_is_pinned(hpu, stream, src, size))
        return hpu_copy(hpu, stream, HPU_ADDR(src), HPU_ADDR(dst), size, ACCEL_SYN_HOST_TO_DRAM,
                        NULL);
    accel_deferred_release_poll(hpu->staging);
    if ((status = hpu_staging_new(hpu, stream->device, size, &staging)) != ACCEL_OK)
        return status;
    memcpy(staging->ptr, src, size);
    return hpu_copy(hpu, stream, HPU_ADDR(staging->ptr), HPU_ADDR(dst), size,
                    ACCEL_SYN_HOST_TO_DRAM, staging);
}

/* Device to pageable host memory: through a staging buffer, waiting. When
 * the wait fails the copy may still be writing into the buffer, so it is
 * not freed here (issue 28 G2; docs/reliability.md). */
static accel_status_t hpu_copy_to_pageable(accel_hpu_backend_t *hpu, accel_hpu_stream_t *stream,
                                           void *dst, const void *src, size_t size)
{
    const accel_hpu_api_t *syn = hpu->syn;
    accel_syn_device_id_t id = hpu->devices[stream->device].id;
    void *staging = NULL;
    /* refused before anything is queued: a callback cannot wait for itself */
    accel_status_t status = accel_hpu_refuse_self_wait(hpu, stream->device, stream);
    if (status == ACCEL_OK)
        status = accel_hpu_check(syn, syn->synHostMalloc(id, size, 0, &staging),
                                 "synHostMalloc (staging)");
    if (status != ACCEL_OK)
        return status;
    status =
        hpu_copy(hpu, stream, HPU_ADDR(src), HPU_ADDR(staging), size, ACCEL_SYN_DRAM_TO_HOST, NULL);
    if (status == ACCEL_OK) {
        status = accel_hpu_stream_drain(hpu, stream);
        if (status != ACCEL_OK) {
            hpu_staging_after_failed_wait(hpu, stream, staging, size);
            return status;
        }
        memcpy(dst, staging, size);
    }
    /* Arrived, or never queued. */
    hpu_staging_release(hpu, stream->device, staging, size, true);
    return status;
}

accel_status_t accel_hpu_memcpy_async(void *self, int device, void *dst, const void *src,
                                      size_t size, accel_copy_kind_t kind, void *stream)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_stream_t *s;
    accel_status_t status;
    if (kind > ACCEL_COPY_DEVICE_TO_DEVICE || (int)kind < 0)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT, "hpu: unknown copy kind %d",
                                   (int)kind);
    if ((status = accel_hpu_stream_of(hpu, device, stream, &s)) != ACCEL_OK)
        return status;
    if (size == 0)
        return ACCEL_OK;
    switch (kind) {
    case ACCEL_COPY_HOST_TO_DEVICE: return hpu_copy_from_host(hpu, s, dst, src, size);
    case ACCEL_COPY_DEVICE_TO_HOST:
        if (hpu_is_pinned(hpu, s, dst, size))
            return hpu_copy(hpu, s, HPU_ADDR(src), HPU_ADDR(dst), size, ACCEL_SYN_DRAM_TO_HOST,
                            NULL);
        return hpu_copy_to_pageable(hpu, s, dst, src, size);
    case ACCEL_COPY_DEVICE_TO_DEVICE:
        return hpu_copy(hpu, s, HPU_ADDR(src), HPU_ADDR(dst), size, ACCEL_SYN_DRAM_TO_DRAM, NULL);
    default: /* host to host: no such DMA; in stream order on the host */
        if ((status = accel_hpu_stream_drain(hpu, s)) == ACCEL_OK)
            memmove(dst, src, size);
        return status;
    }
}

accel_status_t accel_hpu_memset_async(void *self, int device, void *dst, int value, size_t size,
                                      void *stream)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_stream_t *s;
    accel_hpu_item_t *item;
    accel_status_t status = accel_hpu_stream_of(hpu, device, stream, &s);
    if (status != ACCEL_OK || size == 0)
        return status;
    if ((item = calloc(1, sizeof *item)) == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "hpu: out of host memory for a fill");
    item->kind = ACCEL_HPU_ITEM_MEMSET;
    item->dst = HPU_ADDR(dst);
    item->value = (unsigned char)value;
    item->size = size;
    return accel_hpu_stream_submit(hpu, s, item);
}

/* ---------------------------------------------------------------- pinned host memory */

/* Pinned memory is allocated or mapped on the calling thread's device
 * (set_device), or device 0. */
static accel_status_t hpu_pin_record(accel_hpu_backend_t *hpu, void *ptr, size_t size,
                                     accel_syn_device_id_t id, bool allocated)
{
    accel_hpu_pinned_t payload = {id, allocated};
    accel_status_t status;
    pthread_mutex_lock(&hpu->pinned_lock);
    status = accel_range_map_insert(&hpu->pinned, ptr, size, &payload, NULL);
    pthread_mutex_unlock(&hpu->pinned_lock);
    if (status != ACCEL_OK)
        return accel_backend_error(status,
                                   "hpu: host range %p (+%zu) overlaps a pinned range "
                                   "or cannot be recorded",
                                   ptr, size);
    return ACCEL_OK;
}

accel_status_t accel_hpu_host_alloc(void *self, size_t size, void **out)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_device_t *dev;
    void *ptr = NULL;
    accel_status_t status = accel_hpu_acquire(hpu, accel_hpu_thread_device(hpu), &dev);
    if (status == ACCEL_OK)
        status = accel_hpu_check(hpu->syn, hpu->syn->synHostMalloc(dev->id, size, 0, &ptr),
                                 "synHostMalloc");
    if (status != ACCEL_OK)
        return status;
    if ((status = hpu_pin_record(hpu, ptr, size, dev->id, true)) != ACCEL_OK) {
        if (hpu->syn->synHostFree(dev->id, ptr, 0) != ACCEL_SYN_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "hpu: synHostFree(%p) failed", ptr);
        return status;
    }
    *out = ptr;
    return ACCEL_OK;
}

static void hpu_unpin(accel_hpu_backend_t *hpu, void *ptr, bool allocated)
{
    accel_hpu_pinned_t payload;
    accel_syn_status_t code;
    bool found;
    if (accel_hpu_forked())
        return;
    pthread_mutex_lock(&hpu->pinned_lock);
    found = accel_range_map_remove(&hpu->pinned, ptr, NULL, &payload);
    pthread_mutex_unlock(&hpu->pinned_lock);
    if (!found) {
        accel_log(ACCEL_LOG_WARN, "hpu: %p is not pinned host memory of this backend", ptr);
        return;
    }
    code = allocated ? hpu->syn->synHostFree(payload.device_id, ptr, 0)
                     : hpu->syn->synHostUnmap(payload.device_id, ptr);
    if (code != ACCEL_SYN_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "hpu: %s(%p) failed with synStatus %u",
                  allocated ? "synHostFree" : "synHostUnmap", ptr, code);
}

void accel_hpu_host_free(void *self, void *ptr, size_t size)
{
    (void)size;
    hpu_unpin(self, ptr, true);
}

accel_status_t accel_hpu_host_register(void *self, void *ptr, size_t size)
{
    accel_hpu_backend_t *hpu = self;
    accel_hpu_device_t *dev;
    accel_status_t status = accel_hpu_acquire(hpu, accel_hpu_thread_device(hpu), &dev);
    if (status == ACCEL_OK)
        status = accel_hpu_check(hpu->syn, hpu->syn->synHostMap(dev->id, size, ptr), "synHostMap");
    if (status != ACCEL_OK)
        return status;
    if ((status = hpu_pin_record(hpu, ptr, size, dev->id, false)) != ACCEL_OK &&
        hpu->syn->synHostUnmap(dev->id, ptr) != ACCEL_SYN_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "hpu: synHostUnmap(%p) failed", ptr);
    return status;
}

void accel_hpu_host_unregister(void *self, void *ptr, size_t size)
{
    (void)size;
    hpu_unpin(self, ptr, false);
}

void accel_hpu_pinned_release(accel_hpu_backend_t *hpu)
{
    const accel_range_t *range;
    while ((range = accel_range_map_at(&hpu->pinned, 0)) != NULL) {
        const accel_hpu_pinned_t *payload = accel_range_payload(range);
        hpu_unpin(hpu, (void *)range->base, payload->allocated);
    }
}

/* The Gaudi's own figures when this process holds it, else by module id
 * (which acquires nothing, so a report does not take every Gaudi). */
accel_status_t accel_hpu_memory_info(void *self, int device, uint64_t *free_bytes,
                                     uint64_t *total_bytes)
{
    accel_hpu_backend_t *hpu = self;
    const accel_hpu_device_t *dev = &hpu->devices[device];
    bool used;
    uint64_t free_now = 0, total = 0;
    accel_status_t status;
    if (accel_hpu_forked())
        return accel_hpu_fork_error();
    pthread_mutex_lock(&hpu->acquire_lock);
    used = dev->used;
    pthread_mutex_unlock(&hpu->acquire_lock);
    if (used) {
        status =
            accel_hpu_check(hpu->syn, hpu->syn->synDeviceGetMemoryInfo(dev->id, &free_now, &total),
                            "synDeviceGetMemoryInfo");
    } else {
        static const accel_syn_device_attr_t attrs[] = {ACCEL_SYN_DEVICE_ATTRIBUTE_DRAM_FREE_SIZE,
                                                        ACCEL_SYN_DEVICE_ATTRIBUTE_DRAM_SIZE};
        uint64_t values[2] = {0, 0};
        status = accel_hpu_check(
            hpu->syn, hpu->syn->synDeviceGetAttributeByModuleId(values, attrs, 2, dev->module),
            "synDeviceGetAttributeByModuleId(DRAM_FREE_SIZE, DRAM_SIZE)");
        free_now = values[0];
        total = values[1];
    }
    if (status == ACCEL_OK) {
        *free_bytes = free_now;
        *total_bytes = total;
    }
    return status;
}
