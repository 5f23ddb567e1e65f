/* dispatch.c: the checks every public call makes before reaching a backend:
 * handle tags, device indices, stream resolution, device-pointer ranges,
 * host ranges that are really device memory; and "current device" and
 * "current stream" resolved from the thread's state (thread_state.c).
 * All functions are thread-safe; the thread state is touched only by its
 * own thread. */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "error.h"
#include "thread_state.h"

accel_status_t accel_check_handle(const accel_t *acc)
{
    if (acc == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "accelerator handle is NULL");
    if (acc->tag != ACCEL_TAG_ACCEL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "accelerator handle is not a live accel_t (closed or corrupt)");
    return ACCEL_OK;
}

accel_status_t accel_check_struct_size(const char *type, bool present, size_t given,
                                       size_t first_size)
{
    if (!present)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s pointer is NULL", type);
    if (given < first_size)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s.struct_size is %zu, smaller than the struct (%zu bytes): set it to "
                           "sizeof(%s), e.g. with ACCEL_STRUCT_INIT",
                           type, given, first_size, type);
    return ACCEL_OK;
}

accel_status_t accel_check_has_devices(const accel_t *acc)
{
    if (acc->device_count > 0)
        return ACCEL_OK;
    return accel_error(ACCEL_ERROR_UNAVAILABLE,
                       "%s has no devices: its runtime is present but reports 0 devices, so "
                       "nothing that needs a device can run (names, flags, dtypes, op builders "
                       "and environment lists still work)",
                       acc->ops->name);
}

accel_status_t accel_resolve_device(accel_t *acc, int device, int *out)
{
    accel_status_t status = accel_check_has_devices(acc);
    if (status != ACCEL_OK)
        return status;
    if (device == ACCEL_CURRENT_DEVICE) {
        accel_thread_state_t *state = accel_thread_state(acc);
        if (state == NULL)
            return ACCEL_ERROR_OUT_OF_MEMORY;
        *out = state->device;
        return ACCEL_OK;
    }
    if (device < 0 || device >= acc->device_count)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: device index %d is out of range (%d device%s; -1 = current)",
                           acc->ops->name, device, acc->device_count,
                           acc->device_count == 1 ? "" : "s");
    *out = device;
    return ACCEL_OK;
}

accel_status_t accel_check_stream(const accel_stream_t *stream)
{
    if (stream == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "stream handle is NULL");
    if (stream->tag != ACCEL_TAG_STREAM)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "stream handle is not a live accel_stream_t (destroyed or corrupt)");
    return ACCEL_OK;
}

accel_status_t accel_check_event(const accel_event_t *event)
{
    if (event == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "event handle is NULL");
    if (event->tag != ACCEL_TAG_EVENT)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "event handle is not a live accel_event_t (destroyed or corrupt)");
    return ACCEL_OK;
}

accel_status_t accel_resolve_stream(accel_t *acc, accel_stream_t *stream, accel_stream_t **out)
{
    accel_status_t status;
    if (stream == NULL) {
        accel_thread_state_t *state;
        status = accel_check_has_devices(acc);
        if (status != ACCEL_OK)
            return status;
        state = accel_thread_state(acc);
        if (state == NULL)
            return ACCEL_ERROR_OUT_OF_MEMORY;
        stream = state->current_streams[state->device];
        *out = stream != NULL ? stream : acc->devices[state->device].default_stream;
        return ACCEL_OK;
    }
    status = accel_check_stream(stream);
    if (status != ACCEL_OK)
        return status;
    if (stream->acc != acc)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "stream belongs to a different accelerator handle");
    *out = stream;
    return ACCEL_OK;
}

/* accel_find_block's recent answers on this thread, found blocks and
 * pointers in none, all for one accel_t at one block generation (core.h):
 * while that generation is unchanged they are still true, so repeated
 * checks of the same buffers (a training loop's collectives and copies)
 * take no allocator lock. */
#define FIND_CACHE_SIZE 4
static _Thread_local struct {
    const accel_t *acc;
    uint64_t serial, generation;
    unsigned next;
    struct {
        uintptr_t base;
        size_t size; /* 0: `base` is a pointer in no block (or an empty slot) */
        int device;
    } entries[FIND_CACHE_SIZE];
} find_cache;

accel_status_t accel_find_block(accel_t *acc, const void *ptr, int *out_device, void **out_base,
                                size_t *out_size)
{
    uintptr_t at = (uintptr_t)ptr;
    uint64_t generation = atomic_load_explicit(&acc->block_generation, memory_order_acquire);
    if (find_cache.acc == acc && find_cache.serial == acc->serial &&
        find_cache.generation == generation) {
        for (int i = 0; i < FIND_CACHE_SIZE; i++) {
            uintptr_t base = find_cache.entries[i].base;
            size_t size = find_cache.entries[i].size;
            if (size != 0 && at - base < size) {
                *out_device = find_cache.entries[i].device;
                *out_base = (void *)base;
                *out_size = size;
                return ACCEL_OK;
            }
            if (size == 0 && base == at && at != 0)
                return ACCEL_ERROR_NOT_FOUND;
        }
    } else {
        memset(&find_cache, 0, sizeof find_cache);
        find_cache.acc = acc;
        find_cache.serial = acc->serial;
        find_cache.generation = generation;
    }
    unsigned slot = find_cache.next++ % FIND_CACHE_SIZE;
    find_cache.entries[slot].base = at;
    find_cache.entries[slot].size = 0;
    for (int d = 0; d < acc->device_count; d++) {
        if (accel_allocator_lookup(acc->devices[d].allocator, ptr, out_base, out_size) ==
            ACCEL_OK) {
            *out_device = d;
            find_cache.entries[slot].base = *out_size != 0 ? (uintptr_t)*out_base : 0;
            find_cache.entries[slot].size = *out_size;
            find_cache.entries[slot].device = d;
            return ACCEL_OK;
        }
    }
    return ACCEL_ERROR_NOT_FOUND;
}

accel_status_t accel_check_device_range(accel_t *acc, const void *ptr, size_t size,
                                        const char *what, int *out_device)
{
    void *base;
    size_t block_size, start;
    int device;
    if (ptr == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s pointer is NULL", what);
    if (accel_find_block(acc, ptr, &device, &base, &block_size) != ACCEL_OK)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s pointer %p is not inside any live %s allocation (allocate it with "
                           "accel_malloc)",
                           what, ptr, acc->ops->name);
    start = (size_t)((const char *)ptr - (const char *)base);
    if (size > block_size - start)
        return accel_error(
            ACCEL_ERROR_INVALID_ARGUMENT,
            "%s range of %zu bytes at offset %zu overruns its allocation of %zu bytes", what, size,
            start, block_size);
    *out_device = device;
    return ACCEL_OK;
}

/* The cpu backend's device memory is host memory, so a device pointer used as
 * host memory works there, inside its block: a range that starts in a live
 * block and runs past its end would touch the next block's owner. Elsewhere
 * touching device memory would fault or corrupt. */
accel_status_t accel_check_host_range(accel_t *acc, const void *ptr, size_t size, const char *what)
{
    if (ptr == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s host pointer is NULL", what);
    if (acc->ops->info->dlpack_device_type == kDLCPU) {
        void *base;
        size_t block_size, start;
        int device;
        if (size == 0 || accel_find_block(acc, ptr, &device, &base, &block_size) != ACCEL_OK)
            return ACCEL_OK;
        start = (size_t)((const char *)ptr - (const char *)base);
        if (size > block_size - start)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s range of %zu bytes at offset %zu overruns its %s allocation of "
                               "%zu bytes",
                               what, size, start, acc->ops->name, block_size);
        return ACCEL_OK;
    }
    for (int d = 0; d < acc->device_count; d++) {
        if (accel_allocator_overlaps(acc->devices[d].allocator, ptr, size))
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s pointer %p is given as host memory but lies in %s device %d "
                               "memory, which the host cannot address (use a device copy kind, "
                               "or a device op)",
                               what, ptr, acc->ops->name, d);
    }
    return ACCEL_OK;
}
