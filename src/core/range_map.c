/* range_map.c: accel_range_map_t (accel/accel_backend_utils.h), sorted
 * non-overlapping [base, base + size) ranges with a fixed-size payload each,
 * stored inline in one array and found by binary search.
 * Ownership: the map owns its array, never the memory the ranges name.
 * Threads: none of its own; the map's owner locks around every call. */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"

static accel_range_t *range_at(const accel_range_map_t *map, size_t index)
{
    return (accel_range_t *)(void *)(map->items + index * map->stride);
}

/* Index of the first range whose base is greater than `addr` (count if none);
 * the range that may hold `addr` is the one just before it. */
static size_t range_upper_bound(const accel_range_map_t *map, uintptr_t addr)
{
    size_t lo = 0, hi = map->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (range_at(map, mid)->base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void accel_range_map_init(accel_range_map_t *map, size_t payload_size)
{
    size_t align = alignof(max_align_t);
    map->items = NULL;
    map->payload_size = payload_size;
    map->stride = (sizeof(accel_range_t) + payload_size + align - 1) / align * align;
    map->count = 0;
    map->capacity = 0;
}

void accel_range_map_fini(accel_range_map_t *map)
{
    free(map->items);
    map->items = NULL;
    map->count = 0;
    map->capacity = 0;
}

static bool range_map_reserve(accel_range_map_t *map)
{
    size_t capacity;
    unsigned char *items;
    if (map->count < map->capacity)
        return true;
    capacity = map->capacity ? map->capacity * 2 : 16;
    if (capacity > SIZE_MAX / map->stride)
        return false;
    items = realloc(map->items, capacity * map->stride);
    if (items == NULL)
        return false;
    map->items = items;
    map->capacity = capacity;
    return true;
}

accel_status_t accel_range_map_insert(accel_range_map_t *map, const void *base, size_t size,
                                      const void *payload, const accel_range_t **conflict)
{
    uintptr_t start = (uintptr_t)base;
    const accel_range_t *in_the_way = NULL;
    accel_range_t *slot;
    size_t index;
    if (conflict != NULL)
        *conflict = NULL;
    if (map == NULL || base == NULL || size == 0 || start + size < start)
        return ACCEL_ERROR_INVALID_ARGUMENT;
    index = range_upper_bound(map, start);
    if (index > 0 && start - range_at(map, index - 1)->base < range_at(map, index - 1)->size)
        in_the_way = range_at(map, index - 1);
    else if (index < map->count && range_at(map, index)->base - start < size)
        in_the_way = range_at(map, index);
    if (in_the_way != NULL) {
        if (conflict != NULL)
            *conflict = in_the_way;
        return ACCEL_ERROR_INVALID_ARGUMENT;
    }
    if (!range_map_reserve(map))
        return ACCEL_ERROR_OUT_OF_MEMORY;
    memmove(map->items + (index + 1) * map->stride, map->items + index * map->stride,
            (map->count - index) * map->stride);
    slot = range_at(map, index);
    slot->base = start;
    slot->size = size;
    if (payload != NULL)
        memcpy(accel_range_payload(slot), payload, map->payload_size);
    else
        memset(accel_range_payload(slot), 0, map->payload_size);
    map->count++;
    return ACCEL_OK;
}

const accel_range_t *accel_range_map_find(const accel_range_map_t *map, const void *ptr,
                                          size_t size)
{
    uintptr_t addr = (uintptr_t)ptr;
    const accel_range_t *range;
    size_t index;
    if (map == NULL || ptr == NULL)
        return NULL;
    index = range_upper_bound(map, addr);
    if (index == 0)
        return NULL;
    range = range_at(map, index - 1);
    if (addr - range->base >= range->size || size > range->size - (addr - range->base))
        return NULL;
    return range;
}

const accel_range_t *accel_range_map_at(const accel_range_map_t *map, size_t index)
{
    return map != NULL && index < map->count ? range_at(map, index) : NULL;
}

bool accel_range_map_remove(accel_range_map_t *map, const void *base, accel_range_t *out,
                            void *payload_out)
{
    uintptr_t start = (uintptr_t)base;
    accel_range_t *range;
    size_t index;
    if (map == NULL || base == NULL)
        return false;
    index = range_upper_bound(map, start);
    if (index == 0 || range_at(map, index - 1)->base != start)
        return false;
    range = range_at(map, index - 1);
    if (out != NULL)
        *out = *range;
    if (payload_out != NULL)
        memcpy(payload_out, accel_range_payload(range), map->payload_size);
    memmove(range, map->items + index * map->stride, (map->count - index) * map->stride);
    map->count--;
    return true;
}
