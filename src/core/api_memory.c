/* api_memory.c: device memory through the caching allocator, copies and
 * fills ordered on streams, pinned host memory, and allocator statistics.
 * Every device pointer is checked against the allocator's live blocks before
 * a backend sees it, so a wrong size or a stale pointer is refused, not run.
 * Thread-safe (the allocator and the pinned registry lock internally). */
#include <stddef.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "core.h"
#include "error.h"
#include "memory_stat_keys.h"
#include "thread_state.h"
#include "trace.h"

/* While a graph captures on the device, the block may be named by captured
 * work: it comes from the private pool of the graph capturing `stream`, or
 * else of the newest graph capturing on the device (api_graph.c), so that
 * freeing it after the capture never hands it to another owner. The
 * capture lock keeps the graph capturing (and its pool alive) meanwhile. */
static accel_status_t memory_alloc_block(accel_t *acc, accel_stream_t *stream, size_t size,
                                         void **out)
{
    accel_device_state_t *dev = &acc->devices[stream->device];
    accel_status_t status;
    pthread_mutex_lock(&dev->capture_lock);
    accel_graph_t *graph = atomic_load(&stream->capturing);
    if (graph == NULL)
        graph = dev->capturing;
    status = accel_allocator_alloc_in(dev->allocator, graph != NULL ? graph->pool : NULL, size,
                                      stream->impl, out);
    pthread_mutex_unlock(&dev->capture_lock);
    return status;
}

static accel_status_t memory_alloc_on(accel_t *acc, accel_stream_t *stream, size_t size, void **out)
{
    void *ptr = NULL;
    accel_status_t status = accel_ensure_init(acc);
    if (status != ACCEL_OK)
        return status;
    status = memory_alloc_block(acc, stream, size, &ptr);
    if (status != ACCEL_OK)
        return status;
    if (ptr != NULL && accel_trace_active())
        accel_trace_memory(acc, stream->device, "malloc", size);
    *out = ptr;
    return ACCEL_OK;
}

accel_status_t accel_malloc(accel_t *acc, size_t size, void **out)
{
    accel_stream_t *stream;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    status = accel_resolve_stream(acc, NULL, &stream);
    if (status != ACCEL_OK)
        return status;
    return memory_alloc_on(acc, stream, size, out);
}

accel_status_t accel_malloc_async(accel_t *acc, size_t size, accel_stream_t *stream, void **out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    status = accel_resolve_stream(acc, stream, &stream);
    if (status != ACCEL_OK)
        return status;
    return memory_alloc_on(acc, stream, size, out);
}

/* While a graph captures on the device, the block may be named by captured
 * work: it is held for the newest capturing graph (reusable once that graph
 * is destroyed) instead of going back to the cache. */
static accel_status_t memory_free_block(accel_t *acc, int device, void *ptr, accel_stream_t *stream)
{
    accel_device_state_t *dev = &acc->devices[device];
    accel_status_t status;
    pthread_mutex_lock(&dev->capture_lock);
    if (dev->capturing != NULL)
        status = accel_allocator_hold(dev->allocator, ptr, stream->impl,
                                      atomic_load(&stream->capturing) == NULL, dev->capturing);
    else
        status = accel_allocator_free(dev->allocator, ptr, stream->impl);
    pthread_mutex_unlock(&dev->capture_lock);
    return status;
}

static accel_status_t memory_not_allocated(accel_t *acc, void *ptr)
{
    return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                       "pointer %p was not allocated by accel_malloc on this %s accelerator, or "
                       "was already freed",
                       ptr, acc->ops->name);
}

static accel_status_t memory_tensor_owned(void *ptr)
{
    return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                       "pointer %p is the data of a tensor from accel_tensor_empty/zeros: "
                       "free it with accel_tensor_free, which also frees its shape",
                       ptr);
}

/* One device (the common case): lookup, tensor check and free (or hold,
 * while a graph captures) in one allocator call instead of three. */
static accel_status_t memory_free_one_device(accel_t *acc, void *ptr, accel_stream_t *stream,
                                             bool as_tensor)
{
    accel_device_state_t *dev = &acc->devices[0];
    size_t size = 0;
    bool tensor_owned = false;
    accel_status_t status;
    if (stream == NULL) {
        accel_thread_state_t *state = accel_thread_state(acc);
        if (state == NULL)
            return ACCEL_ERROR_OUT_OF_MEMORY;
        stream = state->current_streams[0];
        if (stream == NULL)
            stream = dev->default_stream;
    }
    pthread_mutex_lock(&dev->capture_lock);
    status = accel_allocator_free_user(dev->allocator, ptr, stream->impl, dev->capturing,
                                       atomic_load(&stream->capturing) == NULL, as_tensor, &size,
                                       &tensor_owned);
    pthread_mutex_unlock(&dev->capture_lock);
    if (status == ACCEL_ERROR_NOT_FOUND)
        return memory_not_allocated(acc, ptr);
    if (tensor_owned)
        return memory_tensor_owned(ptr);
    if (status == ACCEL_OK && accel_trace_active())
        accel_trace_memory(acc, 0, "free", size);
    return status;
}

/* `as_tensor`: the caller is accel_tensor_free, which may free a block a
 * tensor owns; accel_free and accel_free_async may not. */
static accel_status_t memory_free_on(accel_t *acc, void *ptr, accel_stream_t *stream,
                                     bool as_tensor)
{
    int device = 0;
    void *base = NULL;
    size_t size = 0;
    if (acc->device_count == 1 && (stream == NULL || stream->device == 0))
        return memory_free_one_device(acc, ptr, stream, as_tensor);
    if (accel_find_block(acc, ptr, &device, &base, &size) != ACCEL_OK)
        return memory_not_allocated(acc, ptr);
    if (!as_tensor && accel_allocator_tensor_owned(acc->devices[device].allocator, ptr))
        return memory_tensor_owned(ptr);
    if (stream == NULL) {
        accel_thread_state_t *state = accel_thread_state(acc);
        if (state == NULL)
            return ACCEL_ERROR_OUT_OF_MEMORY;
        stream = state->current_streams[device];
        if (stream == NULL)
            stream = acc->devices[device].default_stream;
    } else if (stream->device != device) {
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "pointer %p lives on device %d but the stream is on device %d", ptr,
                           device, stream->device);
    }
    accel_status_t freed = memory_free_block(acc, device, ptr, stream);
    if (freed == ACCEL_OK && accel_trace_active())
        accel_trace_memory(acc, device, "free", size);
    return freed;
}

accel_status_t accel_free(accel_t *acc, void *ptr)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK || ptr == NULL)
        return status;
    return memory_free_on(acc, ptr, NULL, false);
}

accel_status_t accel_memory_free_tensor_data(accel_t *acc, void *ptr)
{
    if (ptr == NULL)
        return ACCEL_OK;
    return memory_free_on(acc, ptr, NULL, true);
}

accel_status_t accel_free_async(accel_t *acc, void *ptr, accel_stream_t *stream)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK || ptr == NULL)
        return status;
    status = accel_resolve_stream(acc, stream, &stream);
    if (status != ACCEL_OK)
        return status;
    return memory_free_on(acc, ptr, stream, false);
}

static accel_status_t memory_stream_wait(accel_t *acc, accel_stream_t *stream)
{
    if (ACCEL_BACKEND_HAS(acc->ops, stream_synchronize))
        return acc->ops->stream_synchronize(acc->self, stream->device, stream->impl);
    return acc->ops->synchronize(acc->self, stream->device);
}

/* Check one side of a copy: device memory must be a live range on the
 * stream's device; host memory must be non-NULL and not device memory the
 * host cannot address. */
static accel_status_t memory_check_side(accel_t *acc, const void *ptr, size_t size, bool on_device,
                                        const char *what, const accel_stream_t *stream)
{
    int device = 0;
    accel_status_t status;
    if (!on_device)
        return accel_check_host_range(acc, ptr, size, what);
    status = accel_check_device_range(acc, ptr, size, what, &device);
    if (status != ACCEL_OK)
        return status;
    if (device != stream->device)
        return accel_error(ACCEL_ERROR_UNSUPPORTED,
                           "%s is on device %d but the stream is on device %d (copies between "
                           "devices are not supported yet)",
                           what, device, stream->device);
    return ACCEL_OK;
}

/* What a host callback of the stream's device may not copy or fill: a
 * synchronous one waits for the device's work, and an asynchronous copy with
 * pageable host memory on the callback's own stream drains that stream
 * (staging backends) or is refused by the runtime; either way the callback
 * would wait for itself. Refused alike on every backend, before any work. */
static accel_status_t memory_check_callback(accel_t *acc, const accel_stream_t *stream, bool wait,
                                            const void *host)
{
    if (wait)
        return accel_callback_refuse_device_wait(acc->self, stream->device,
                                                 "make a synchronous copy or fill on its device "
                                                 "(it waits for the device's work)");
    if (host == NULL || accel_pinned_contains(&acc->pinned, host))
        return ACCEL_OK;
    return accel_callback_refuse_stream_wait(acc->self, stream->device, stream->impl,
                                             "copy to or from pageable host memory on the "
                                             "stream it runs on (the copy waits for the "
                                             "stream)");
}

/* Trace event names, [synchronous][kind]. */
static const char *const memory_copy_names[2][4] = {
    {"memcpy_async H2H", "memcpy_async H2D", "memcpy_async D2H", "memcpy_async D2D"},
    {"memcpy H2H", "memcpy H2D", "memcpy D2H", "memcpy D2D"},
};

static accel_status_t memory_copy(accel_t *acc, void *dst, const void *src, size_t size,
                                  accel_copy_kind_t kind, accel_stream_t *stream, bool wait)
{
    bool dst_device = kind == ACCEL_COPY_HOST_TO_DEVICE || kind == ACCEL_COPY_DEVICE_TO_DEVICE;
    bool src_device = kind == ACCEL_COPY_DEVICE_TO_HOST || kind == ACCEL_COPY_DEVICE_TO_DEVICE;
    uint64_t trace_begin = accel_trace_begin();
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if ((unsigned)kind > ACCEL_COPY_DEVICE_TO_DEVICE)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "unknown copy kind %d", (int)kind);
    status = accel_resolve_stream(acc, stream, &stream);
    if (status != ACCEL_OK || size == 0)
        return status;
    status = memory_check_side(acc, dst, size, dst_device, "destination", stream);
    if (status == ACCEL_OK)
        status = memory_check_side(acc, src, size, src_device, "source", stream);
    if (status == ACCEL_OK)
        status = memory_check_callback(acc, stream, wait,
                                       dst_device == src_device ? NULL
                                       : dst_device             ? src
                                                                : dst);
    if (status == ACCEL_OK)
        status = accel_ensure_init(acc);
    if (status == ACCEL_OK)
        status =
            acc->ops->memcpy_async(acc->self, stream->device, dst, src, size, kind, stream->impl);
    if (status == ACCEL_OK && wait)
        status = memory_stream_wait(acc, stream);
    if (trace_begin != 0 && status == ACCEL_OK)
        accel_trace_op(trace_begin, memory_copy_names[wait][kind], size, stream->device);
    return status;
}

accel_status_t accel_memcpy(accel_t *acc, void *dst, const void *src, size_t size,
                            accel_copy_kind_t kind)
{
    return memory_copy(acc, dst, src, size, kind, NULL, true);
}

accel_status_t accel_memcpy_async(accel_t *acc, void *dst, const void *src, size_t size,
                                  accel_copy_kind_t kind, accel_stream_t *stream)
{
    return memory_copy(acc, dst, src, size, kind, stream, false);
}

static accel_status_t memory_set(accel_t *acc, void *dst, int value, size_t size,
                                 accel_stream_t *stream, bool wait)
{
    uint64_t trace_begin = accel_trace_begin();
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (value < -128 || value > 255)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "memset value %d is not a byte", value);
    status = accel_resolve_stream(acc, stream, &stream);
    if (status != ACCEL_OK || size == 0)
        return status;
    status = memory_check_side(acc, dst, size, true, "destination", stream);
    if (status == ACCEL_OK)
        status = memory_check_callback(acc, stream, wait, NULL);
    if (status == ACCEL_OK)
        status = accel_ensure_init(acc);
    if (status == ACCEL_OK)
        status = acc->ops->memset_async(acc->self, stream->device, dst, value & 0xff, size,
                                        stream->impl);
    if (status == ACCEL_OK && wait)
        status = memory_stream_wait(acc, stream);
    if (trace_begin != 0 && status == ACCEL_OK)
        accel_trace_op(trace_begin, wait ? "memset" : "memset_async", size, stream->device);
    return status;
}

accel_status_t accel_memset(accel_t *acc, void *dst, int value, size_t size)
{
    return memory_set(acc, dst, value, size, NULL, true);
}

accel_status_t accel_memset_async(accel_t *acc, void *dst, int value, size_t size,
                                  accel_stream_t *stream)
{
    return memory_set(acc, dst, value, size, stream, false);
}

static accel_status_t memory_check_pinning(accel_t *acc, bool registering)
{
    accel_status_t status = accel_check_handle(acc);
    if (status == ACCEL_OK)
        status = accel_check_has_devices(acc); /* vendor pinning needs a device context */
    if (status != ACCEL_OK)
        return status;
    if (registering ? !ACCEL_BACKEND_HAS(acc->ops, host_register)
                    : !ACCEL_BACKEND_HAS(acc->ops, host_alloc))
        return accel_error(ACCEL_ERROR_UNSUPPORTED, "%s cannot %s host memory", acc->ops->name,
                           registering ? "pin existing" : "allocate pinned");
    return accel_ensure_init(acc);
}

accel_status_t accel_host_alloc(accel_t *acc, size_t size, void **out)
{
    void *ptr = NULL;
    accel_status_t status = memory_check_pinning(acc, false);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    if (size == 0) {
        *out = NULL;
        return ACCEL_OK;
    }
    ptr = accel_host_cache_take(&acc->host_cache, size);
    if (ptr == NULL)
        status = acc->ops->host_alloc(acc->self, size, &ptr);
    if (status != ACCEL_OK)
        return status;
    status = accel_pinned_add(&acc->pinned, ptr, size, ACCEL_PINNED_ALLOCATED);
    if (status != ACCEL_OK) {
        accel_host_release(acc, ptr, size);
        return status;
    }
    *out = ptr;
    return ACCEL_OK;
}

accel_status_t accel_host_free(accel_t *acc, void *ptr)
{
    size_t size;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK || ptr == NULL)
        return status;
    /* Copies queued after the callback may still use the memory, and the
     * wait for them (cuMemFreeHost's, or the backend's) would wait for the
     * callback itself; a backend that skips that wait there frees memory a
     * queued copy then writes into. Refused before anything changes. */
    status = accel_callback_refuse_device_wait(acc->self, ACCEL_CALLBACK_ANY_DEVICE,
                                               "free pinned memory (copies queued after it may "
                                               "still use the memory)");
    if (status != ACCEL_OK)
        return status;
    if (accel_pinned_remove(&acc->pinned, ptr, ACCEL_PINNED_ALLOCATED, &size) != ACCEL_OK)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "pointer %p did not come from accel_host_alloc or was already freed",
                           ptr);
    accel_host_release(acc, ptr, size);
    return ACCEL_OK;
}

/* The pinned host cache's release function (host_cache.h). */
static void memory_host_free_block(void *ctx, void *ptr, size_t size)
{
    accel_t *acc = ctx;
    acc->ops->host_free(acc->self, ptr, size);
}

void accel_host_release(accel_t *acc, void *ptr, size_t size)
{
    if (!accel_host_cache_put(&acc->host_cache, ptr, size))
        memory_host_free_block(acc, ptr, size);
}

accel_status_t accel_empty_host_cache(accel_t *acc)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    accel_host_cache_release(&acc->host_cache, memory_host_free_block, acc);
    return ACCEL_OK;
}

accel_status_t accel_host_register(accel_t *acc, void *ptr, size_t size)
{
    accel_status_t status = memory_check_pinning(acc, true);
    if (status != ACCEL_OK)
        return status;
    if (ptr == NULL || size == 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "host_register needs a non-NULL pointer and a size > 0");
    status = accel_check_host_range(acc, ptr, size, "host_register");
    if (status != ACCEL_OK)
        return status;
    status = accel_pinned_add(&acc->pinned, ptr, size, ACCEL_PINNED_REGISTERED);
    if (status != ACCEL_OK)
        return status;
    status = acc->ops->host_register(acc->self, ptr, size);
    if (status != ACCEL_OK) {
        size_t ignored;
        accel_pinned_remove(&acc->pinned, ptr, ACCEL_PINNED_REGISTERED, &ignored);
    }
    return status;
}

accel_status_t accel_host_unregister(accel_t *acc, void *ptr)
{
    size_t size;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (ptr == NULL ||
        accel_pinned_remove(&acc->pinned, ptr, ACCEL_PINNED_REGISTERED, &size) != ACCEL_OK)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "pointer %p is not the start of a range pinned by accel_host_register",
                           ptr);
    if (ACCEL_BACKEND_HAS(acc->ops, host_unregister))
        acc->ops->host_unregister(acc->self, ptr, size);
    return ACCEL_OK;
}

accel_status_t accel_is_pinned(accel_t *acc, const void *ptr, bool *out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = ptr != NULL && accel_pinned_contains(&acc->pinned, ptr);
    return ACCEL_OK;
}

/* ---- statistics */

static accel_status_t memory_stats_of(accel_t *acc, int device, accel_memory_stats_t *out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status == ACCEL_OK)
        status = accel_resolve_device(acc, device, &device);
    if (status != ACCEL_OK)
        return status;
    *out = (accel_memory_stats_t){.struct_size = sizeof *out};
    accel_allocator_stats(acc->devices[device].allocator, out);
    return ACCEL_OK;
}

#define MEMORY_STAT_GETTER(fn, field)                                                              \
    accel_status_t fn(accel_t *acc, int device, uint64_t *out)                                     \
    {                                                                                              \
        accel_memory_stats_t stats;                                                                \
        accel_status_t status;                                                                     \
        if (out == NULL)                                                                           \
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");            \
        status = memory_stats_of(acc, device, &stats);                                             \
        if (status == ACCEL_OK)                                                                    \
            *out = stats.field;                                                                    \
        return status;                                                                             \
    }

MEMORY_STAT_GETTER(accel_memory_allocated, allocated_bytes)
MEMORY_STAT_GETTER(accel_max_memory_allocated, allocated_bytes_peak)
MEMORY_STAT_GETTER(accel_memory_reserved, reserved_bytes)
MEMORY_STAT_GETTER(accel_max_memory_reserved, reserved_bytes_peak)

static accel_status_t memory_reset_peaks(accel_t *acc, int device, unsigned which)
{
    accel_status_t status = accel_check_handle(acc);
    if (status == ACCEL_OK)
        status = accel_resolve_device(acc, device, &device);
    if (status == ACCEL_OK)
        accel_allocator_reset_peaks(acc->devices[device].allocator, which);
    return status;
}

/* torch's reset_max_memory_allocated and reset_max_memory_cached are
 * reset_peak_memory_stats under an old name (DeepSpeed calls them), so every
 * peak goes, not only the one the name mentions. */
accel_status_t accel_reset_max_memory_allocated(accel_t *acc, int device)
{
    return memory_reset_peaks(acc, device, ACCEL_PEAK_ALL);
}

accel_status_t accel_reset_max_memory_reserved(accel_t *acc, int device)
{
    return memory_reset_peaks(acc, device, ACCEL_PEAK_ALL);
}

accel_status_t accel_reset_peak_memory_stats(accel_t *acc, int device)
{
    return memory_reset_peaks(acc, device, ACCEL_PEAK_ALL);
}

accel_status_t accel_reset_accumulated_memory_stats(accel_t *acc, int device)
{
    accel_status_t status = accel_check_handle(acc);
    if (status == ACCEL_OK)
        status = accel_resolve_device(acc, device, &device);
    if (status == ACCEL_OK)
        accel_allocator_reset_accumulated(acc->devices[device].allocator);
    return status;
}

accel_status_t accel_memory_stats(accel_t *acc, int device, accel_memory_stats_t *out)
{
    accel_memory_stats_t stats;
    accel_status_t status;
    size_t caller_size;
    status = accel_check_struct_size("accel_memory_stats_t", out != NULL,
                                     out != NULL ? out->struct_size : 0, sizeof *out);
    if (status != ACCEL_OK)
        return status;
    caller_size = out->struct_size < sizeof stats ? out->struct_size : sizeof stats;
    status = memory_stats_of(acc, device, &stats);
    if (status != ACCEL_OK)
        return status;
    stats.struct_size = out->struct_size;
    memcpy(out, &stats, caller_size);
    return ACCEL_OK;
}

accel_status_t accel_memory_stats_entry(accel_t *acc, int device, size_t index,
                                        const char **out_key, uint64_t *out_value)
{
    accel_allocator_stats_t stats;
    accel_status_t status;
    if (out_key == NULL || out_value == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    status = accel_check_handle(acc);
    if (status == ACCEL_OK)
        status = accel_resolve_device(acc, device, &device);
    if (status != ACCEL_OK)
        return status;
    accel_allocator_stats_full(acc->devices[device].allocator, &stats);
    if (!accel_memory_stat_key(index, &stats, out_key, out_value))
        return accel_error(ACCEL_ERROR_NOT_FOUND,
                           "memory stats have %zu entries; %zu is past the end",
                           accel_memory_stat_key_count(), index);
    return ACCEL_OK;
}

accel_status_t accel_empty_cache(accel_t *acc)
{
    accel_status_t status = accel_check_handle(acc);
    /* It waits for the devices' work, which includes the calling callback. */
    if (status == ACCEL_OK)
        status = accel_callback_refuse_device_wait(acc->self, ACCEL_CALLBACK_ANY_DEVICE,
                                                   "empty the cache (it waits for every device)");
    if (status != ACCEL_OK)
        return status;
    /* As torch's emptyCache (synchronize_and_free_events): blocks freed while
     * stream work may still use them wait on their free events, and the
     * allocator waits for those events only, never for a whole device (a
     * stream blocked in a host callback that waits for this caller must not
     * stop it). */
    for (int d = 0; d < acc->device_count; d++)
        accel_allocator_empty_cache(acc->devices[d].allocator);
    return ACCEL_OK;
}

static accel_status_t memory_info(accel_t *acc, int device, uint64_t *free_bytes,
                                  uint64_t *total_bytes)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    status = accel_resolve_device(acc, device, &device);
    if (status != ACCEL_OK)
        return status;
    if (!ACCEL_BACKEND_HAS(acc->ops, memory_info))
        return accel_error(ACCEL_ERROR_UNSUPPORTED, "%s does not report device memory size",
                           acc->ops->name);
    status = accel_ensure_init(acc);
    if (status != ACCEL_OK)
        return status;
    return acc->ops->memory_info(acc->self, device, free_bytes, total_bytes);
}

accel_status_t accel_total_memory(accel_t *acc, int device, uint64_t *out)
{
    uint64_t free_bytes, total_bytes;
    accel_status_t status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    status = memory_info(acc, device, &free_bytes, &total_bytes);
    if (status == ACCEL_OK)
        *out = total_bytes;
    return status;
}

accel_status_t accel_available_memory(accel_t *acc, int device, uint64_t *out)
{
    uint64_t free_bytes, total_bytes;
    accel_status_t status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    status = memory_info(acc, device, &free_bytes, &total_bytes);
    if (status == ACCEL_OK)
        *out = free_bytes;
    return status;
}
