/* memory.c: the mlu backend's memory slots: raw device memory (core's
 * caching allocator sits on top), copies and fills ordered on a queue,
 * pinned host memory, the free/total figures and the random fills.
 * Random numbers: the same Philox bits as every backend (accel_philox_fill),
 * generated on the host into pinned staging memory (cnrtHostMalloc) and
 * copied to the device on the queue: this build has no BANG C compiler, so
 * there is no device kernel to run. A fill does not wait for its copy: the
 * staging buffer is freed by a later fill (or destroy()) once a notifier
 * placed after the copy has completed.
 * Threads: any thread; each slot makes its device current first. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
 * the device is synchronized first (as cuMemFree does implicitly). */
void accel_mlu_mem_free(void *self, int device, void *ptr)
{
    accel_mlu_backend_t *mlu = self;
    accel_cnrt_ret_t code;
    if (accel_mlu_activate(mlu, device) != ACCEL_OK)
        return;
    code = mlu->cnrt->cnrtSyncDevice();
    if (code != ACCEL_CNRT_SUCCESS)
        accel_log(ACCEL_LOG_WARN,
                  "mlu: cnrtSyncDevice before cnrtFree on device %d failed with "
                  "cnrtRet_t %u; freeing anyway",
                  device, code);
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
    case ACCEL_COPY_HOST_TO_HOST:
        /* No public source says cnrtMemcpyAsync takes cnrtMemcpyHostToHost on
         * a queue, and torch_mlu never issues one: taking the harsher reading
         * (refused), the copy is made on the host in queue order, after the
         * queue (and its host callbacks) has drained. */
        if ((status = accel_mlu_stream_synchronize(mlu, device, stream)) == ACCEL_OK)
            memmove(dst, src, size);
        return status;
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

/* Free `entry` (its notifier complete, or the wait for it failed). */
static void mlu_staging_free(accel_mlu_backend_t *mlu, accel_mlu_staging_t *entry)
{
    accel_cnrt_ret_t code = mlu->cnrt->cnrtNotifierDestroy(entry->copied);
    if (code != ACCEL_CNRT_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "mlu: cnrtNotifierDestroy (random fill) failed with cnrtRet_t %u",
                  code);
    code = mlu->cnrt->cnrtFreeHost(entry->ptr);
    if (code != ACCEL_CNRT_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "mlu: cnrtFreeHost (random fill) failed with cnrtRet_t %u", code);
    free(entry);
}

/* Free the staging buffers of `device` whose copies have completed; the
 * calling thread's device is `device`. Never waits. */
static void mlu_staging_sweep(accel_mlu_backend_t *mlu, int device)
{
    accel_mlu_staging_t *done = NULL;
    pthread_mutex_lock(&mlu->staging_lock);
    for (accel_mlu_staging_t **link = &mlu->staging; *link != NULL;) {
        accel_mlu_staging_t *entry = *link;
        if (entry->device == device &&
            mlu->cnrt->cnrtQueryNotifier(entry->copied) == ACCEL_CNRT_SUCCESS) {
            *link = entry->next;
            entry->next = done;
            done = entry;
        } else {
            link = &entry->next;
        }
    }
    pthread_mutex_unlock(&mlu->staging_lock);
    while (done != NULL) {
        accel_mlu_staging_t *next = done->next;
        mlu_staging_free(mlu, done);
        done = next;
    }
}

void accel_mlu_staging_release(accel_mlu_backend_t *mlu)
{
    accel_mlu_staging_t *entry;
    pthread_mutex_lock(&mlu->staging_lock);
    entry = mlu->staging;
    mlu->staging = NULL;
    pthread_mutex_unlock(&mlu->staging_lock);
    while (entry != NULL) {
        accel_mlu_staging_t *next = entry->next;
        if (accel_mlu_activate(mlu, entry->device) == ACCEL_OK) {
            accel_cnrt_ret_t code = mlu->cnrt->cnrtWaitNotifier(entry->copied);
            /* The copy may still read the buffer: wait for the whole device
             * instead, and keep the buffer (a leak, said) if that fails too. */
            if (code != ACCEL_CNRT_SUCCESS) {
                accel_log(ACCEL_LOG_WARN,
                          "mlu: cnrtWaitNotifier (random fill) failed with cnrtRet_t %u; "
                          "waiting for device %d instead",
                          code, entry->device);
                code = mlu->cnrt->cnrtSyncDevice();
            }
            if (code == ACCEL_CNRT_SUCCESS)
                mlu_staging_free(mlu, entry);
            else
                accel_log(ACCEL_LOG_WARN, "mlu: cnrtSyncDevice failed too; a random fill's "
                                          "staging buffer is left allocated rather than freed "
                                          "under a copy that may still read it");
        } else {
            free(entry); /* a forked child: only our own record can be freed */
        }
        entry = next;
    }
}

/* The fill is generated on the host at call time (the bits depend only on
 * seed and offset), so the call returns at once: the staging buffer stays
 * queued until a notifier placed after its copy completes. */
accel_status_t accel_mlu_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                  void *ptr, size_t count, uint64_t seed, uint64_t offset)
{
    accel_mlu_backend_t *mlu = self;
    const accel_mlu_api_t *cnrt = mlu->cnrt;
    accel_cnrt_queue_t queue = accel_mlu_queue(stream);
    size_t bytes = count * sizeof(uint32_t); /* u32 or float */
    accel_mlu_staging_t *entry;
    accel_status_t status;

    if (count == 0)
        return ACCEL_OK;
    if (stream != NULL && atomic_load(&((accel_mlu_stream_t *)stream)->capturing))
        return accel_backend_error(ACCEL_ERROR_UNSUPPORTED,
                                   "mlu: a random fill cannot be captured into a graph: its bits "
                                   "are made on the host at call time, so a replay would copy "
                                   "the same numbers from a freed buffer");
    if ((status = accel_mlu_activate(mlu, device)) != ACCEL_OK)
        return status;
    mlu_staging_sweep(mlu, device);
    entry = calloc(1, sizeof *entry);
    if (entry == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "mlu: out of host memory for a random fill");
    entry->device = device;
    status = accel_mlu_check(cnrt, cnrt->cnrtHostMalloc(&entry->ptr, bytes),
                             "cnrtHostMalloc (random fill staging)");
    if (status != ACCEL_OK) {
        free(entry);
        return status;
    }
    status = accel_philox_fill(kind, entry->ptr, count, seed, offset);
    if (status == ACCEL_OK)
        status = accel_mlu_check(cnrt,
                                 cnrt->cnrtNotifierCreateWithFlags(
                                     &entry->copied, ACCEL_CNRT_NOTIFIER_DISABLE_TIMING_ALL),
                                 "cnrtNotifierCreateWithFlags (random fill)");
    if (status != ACCEL_OK) {
        if (cnrt->cnrtFreeHost(entry->ptr) != ACCEL_CNRT_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "mlu: cnrtFreeHost (random fill) failed");
        free(entry);
        return status;
    }
    status = accel_mlu_check(
        cnrt, cnrt->cnrtMemcpyAsync(ptr, entry->ptr, bytes, queue, ACCEL_CNRT_MEMCPY_HOST_TO_DEV),
        accel_mlu_memcpy_name(cnrt));
    if (status != ACCEL_OK) {
        mlu_staging_free(mlu, entry); /* nothing was queued */
        return status;
    }
    status = accel_mlu_check(cnrt, cnrt->cnrtPlaceNotifier(entry->copied, queue),
                             "cnrtPlaceNotifier (random fill)");
    if (status == ACCEL_OK) {
        pthread_mutex_lock(&mlu->staging_lock);
        entry->next = mlu->staging;
        mlu->staging = entry;
        pthread_mutex_unlock(&mlu->staging_lock);
        return ACCEL_OK;
    }
    /* The copy is queued but cannot be tracked: wait for it here, or keep
     * the buffer (a leak, said) rather than free it under the copy. */
    if (cnrt->cnrtQueueSync(queue) == ACCEL_CNRT_SUCCESS)
        mlu_staging_free(mlu, entry);
    else
        accel_log(ACCEL_LOG_WARN, "mlu: cnrtQueueSync after a failed random fill failed too; "
                                  "its staging buffer is left allocated rather than freed under "
                                  "a copy that may still read it");
    return status;
}
