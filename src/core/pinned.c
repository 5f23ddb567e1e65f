/* pinned.c: the registry of pinned host ranges: an accel_range_map_t (sorted
 * non-overlapping ranges, binary search) with the range kind as payload,
 * behind the registry's mutex.
 * Ownership: the registry owns only its map; it never frees user memory.
 * Threads: every function except init/fini takes the registry's mutex.
 */
#include "pinned.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

void accel_pinned_init(accel_pinned_registry_t *registry)
{
    pthread_mutex_init(&registry->lock, NULL);
    accel_range_map_init(&registry->ranges, sizeof(accel_pinned_kind_t));
    registry->bytes = registry->bytes_peak = 0;
}

/* Not thread-safe: nobody may use the registry during or after fini. */
void accel_pinned_fini(accel_pinned_registry_t *registry)
{
    accel_range_map_fini(&registry->ranges);
    pthread_mutex_destroy(&registry->lock);
}

static accel_pinned_kind_t pinned_kind(const accel_range_t *range)
{
    accel_pinned_kind_t kind;
    memcpy(&kind, accel_range_payload(range), sizeof kind);
    return kind;
}

static accel_status_t pinned_add_locked(accel_pinned_registry_t *registry, const void *base,
                                        size_t size, accel_pinned_kind_t kind)
{
    const accel_range_t *in_the_way = NULL;
    accel_status_t status =
        accel_range_map_insert(&registry->ranges, base, size, &kind, &in_the_way);
    if (status == ACCEL_OK) {
        registry->bytes += size;
        if (registry->bytes > registry->bytes_peak)
            registry->bytes_peak = registry->bytes;
        return ACCEL_OK;
    }
    if (in_the_way != NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "pinned memory: range %p + %zu bytes overlaps the pinned range "
                           "%p + %zu bytes",
                           base, size, (void *)in_the_way->base, in_the_way->size);
    return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                       "pinned memory: host out of memory recording range %p + %zu bytes", base,
                       size);
}

accel_status_t accel_pinned_add(accel_pinned_registry_t *registry, const void *base, size_t size,
                                accel_pinned_kind_t kind)
{
    uintptr_t start = (uintptr_t)base;
    if (!registry || !base)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "pinned memory: cannot record a range at a NULL address");
    if (size == 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "pinned memory: cannot record the empty range at %p", base);
    if (start + size < start)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "pinned memory: range %p + %zu bytes runs past the end of the "
                           "address space",
                           base, size);
    if (kind < ACCEL_PINNED_ALLOCATED || kind > ACCEL_PINNED_NATIVE)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "pinned memory: unknown range kind %d",
                           (int)kind);
    pthread_mutex_lock(&registry->lock);
    accel_status_t status = pinned_add_locked(registry, base, size, kind);
    pthread_mutex_unlock(&registry->lock);
    return status;
}

accel_status_t accel_pinned_remove(accel_pinned_registry_t *registry, const void *base,
                                   accel_pinned_kind_t kind, size_t *out_size)
{
    if (!registry || !base)
        return ACCEL_ERROR_NOT_FOUND;
    accel_status_t status = ACCEL_ERROR_NOT_FOUND;
    accel_range_t removed;
    pthread_mutex_lock(&registry->lock);
    const accel_range_t *range = accel_range_map_find(&registry->ranges, base, 0);
    if (range && range->base == (uintptr_t)base && pinned_kind(range) == kind &&
        accel_range_map_remove(&registry->ranges, base, &removed, NULL)) {
        if (out_size)
            *out_size = removed.size;
        registry->bytes -= removed.size;
        status = ACCEL_OK;
    }
    pthread_mutex_unlock(&registry->lock);
    return status;
}

bool accel_pinned_contains(accel_pinned_registry_t *registry, const void *ptr)
{
    if (!registry || !ptr)
        return false;
    pthread_mutex_lock(&registry->lock);
    bool found = accel_range_map_find(&registry->ranges, ptr, 0) != NULL;
    pthread_mutex_unlock(&registry->lock);
    return found;
}

/* A size of 0 asks only whether `ptr` itself lies in a range. */
bool accel_pinned_find(accel_pinned_registry_t *registry, const void *ptr, size_t size,
                       accel_pinned_range_t *out)
{
    if (!registry || !ptr)
        return false;
    pthread_mutex_lock(&registry->lock);
    const accel_range_t *range = accel_range_map_find(&registry->ranges, ptr, size);
    if (range && out)
        *out = (accel_pinned_range_t){
            .base = range->base, .size = range->size, .kind = pinned_kind(range)};
    pthread_mutex_unlock(&registry->lock);
    return range != NULL;
}

void accel_pinned_bytes(accel_pinned_registry_t *registry, uint64_t *out_bytes, uint64_t *out_peak)
{
    pthread_mutex_lock(&registry->lock);
    *out_bytes = registry->bytes;
    *out_peak = registry->bytes_peak;
    pthread_mutex_unlock(&registry->lock);
}
