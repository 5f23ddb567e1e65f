/* pinned.c: the registry of pinned host ranges, a sorted array of
 * non-overlapping [base, base+size) ranges searched by binary search.
 * Ownership: the registry owns only its array; it never frees user memory.
 * Threads: every function except init/fini takes the registry's mutex.
 */
#include "pinned.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

void accel_pinned_init(accel_pinned_registry_t *registry)
{
    pthread_mutex_init(&registry->lock, NULL);
    registry->ranges = NULL;
    registry->count = 0;
    registry->capacity = 0;
}

/* Not thread-safe: nobody may use the registry during or after fini. */
void accel_pinned_fini(accel_pinned_registry_t *registry)
{
    free(registry->ranges);
    registry->ranges = NULL;
    registry->count = 0;
    registry->capacity = 0;
    pthread_mutex_destroy(&registry->lock);
}

/* Index of the first range whose base is greater than `addr` (count if none).
 * The range that may hold `addr` is the one just before it. */
static size_t pinned_upper_bound(const accel_pinned_registry_t *registry, uintptr_t addr)
{
    size_t lo = 0, hi = registry->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (registry->ranges[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The range holding `addr`, or NULL. Called with the lock held. */
static const accel_pinned_range_t *pinned_lookup(const accel_pinned_registry_t *registry,
                                                 uintptr_t addr)
{
    size_t index = pinned_upper_bound(registry, addr);
    if (index == 0)
        return NULL;
    const accel_pinned_range_t *range = &registry->ranges[index - 1];
    return addr - range->base < range->size ? range : NULL;
}

static bool pinned_reserve(accel_pinned_registry_t *registry)
{
    if (registry->count < registry->capacity)
        return true;
    size_t capacity = registry->capacity ? registry->capacity * 2 : 16;
    accel_pinned_range_t *ranges = realloc(registry->ranges, capacity * sizeof *ranges);
    if (!ranges)
        return false;
    registry->ranges = ranges;
    registry->capacity = capacity;
    return true;
}

static accel_status_t pinned_add_locked(accel_pinned_registry_t *registry, uintptr_t base,
                                        size_t size, accel_pinned_kind_t kind)
{
    size_t index = pinned_upper_bound(registry, base);
    if (index > 0) {
        const accel_pinned_range_t *before = &registry->ranges[index - 1];
        if (base - before->base < before->size)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "pinned memory: range %p + %zu bytes overlaps the pinned range "
                               "%p + %zu bytes",
                               (void *)base, size, (void *)before->base, before->size);
    }
    if (index < registry->count) {
        const accel_pinned_range_t *after = &registry->ranges[index];
        if (after->base - base < size)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "pinned memory: range %p + %zu bytes overlaps the pinned range "
                               "%p + %zu bytes",
                               (void *)base, size, (void *)after->base, after->size);
    }
    if (!pinned_reserve(registry))
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "pinned memory: host out of memory recording range %p + %zu bytes",
                           (void *)base, size);
    memmove(&registry->ranges[index + 1], &registry->ranges[index],
            (registry->count - index) * sizeof registry->ranges[0]);
    registry->ranges[index] = (accel_pinned_range_t){.base = base, .size = size, .kind = kind};
    registry->count++;
    return ACCEL_OK;
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
    if (kind != ACCEL_PINNED_ALLOCATED && kind != ACCEL_PINNED_REGISTERED)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "pinned memory: unknown range kind %d",
                           (int)kind);
    pthread_mutex_lock(&registry->lock);
    accel_status_t status = pinned_add_locked(registry, start, size, kind);
    pthread_mutex_unlock(&registry->lock);
    return status;
}

accel_status_t accel_pinned_remove(accel_pinned_registry_t *registry, const void *base,
                                   accel_pinned_kind_t kind, size_t *out_size)
{
    if (!registry || !base)
        return ACCEL_ERROR_NOT_FOUND;
    uintptr_t start = (uintptr_t)base;
    accel_status_t status = ACCEL_ERROR_NOT_FOUND;
    pthread_mutex_lock(&registry->lock);
    size_t index = pinned_upper_bound(registry, start);
    if (index > 0) {
        accel_pinned_range_t *range = &registry->ranges[index - 1];
        if (range->base == start && range->kind == kind) {
            if (out_size)
                *out_size = range->size;
            memmove(range, range + 1, (registry->count - index) * sizeof *range);
            registry->count--;
            status = ACCEL_OK;
        }
    }
    pthread_mutex_unlock(&registry->lock);
    return status;
}

bool accel_pinned_contains(accel_pinned_registry_t *registry, const void *ptr)
{
    if (!registry || !ptr)
        return false;
    pthread_mutex_lock(&registry->lock);
    bool found = pinned_lookup(registry, (uintptr_t)ptr) != NULL;
    pthread_mutex_unlock(&registry->lock);
    return found;
}

/* A size of 0 asks only whether `ptr` itself lies in a range. */
bool accel_pinned_find(accel_pinned_registry_t *registry, const void *ptr, size_t size,
                       accel_pinned_range_t *out)
{
    if (!registry || !ptr)
        return false;
    uintptr_t start = (uintptr_t)ptr;
    pthread_mutex_lock(&registry->lock);
    const accel_pinned_range_t *range = pinned_lookup(registry, start);
    bool found = range && size <= range->size - (start - range->base);
    if (found && out)
        *out = *range;
    pthread_mutex_unlock(&registry->lock);
    return found;
}
