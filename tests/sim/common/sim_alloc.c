/* sim_alloc.c: the allocation registry (sim_alloc.h): a list, searched in
 * full; a sim holds a few hundred records at the most. */
#include "sim_alloc.h"

#include <stdlib.h>

static bool sim_alloc_matches(const sim_alloc_t *record, sim_alloc_kind_t kind)
{
    return kind == SIM_ALLOC_ANY || record->kind == kind;
}

bool sim_allocs_add(sim_allocs_t *allocs, void *base, size_t size, int device,
                    sim_alloc_kind_t kind)
{
    sim_alloc_t *record = calloc(1, sizeof *record);
    if (record == NULL)
        return false;
    record->base = base;
    record->size = size;
    record->device = device;
    record->kind = kind;
    record->next = allocs->head;
    allocs->head = record;
    return true;
}

sim_alloc_t *sim_allocs_find(const sim_allocs_t *allocs, const void *ptr, size_t size,
                             sim_alloc_kind_t kind)
{
    const char *p = ptr;
    for (sim_alloc_t *a = allocs->head; a != NULL; a = a->next)
        if (sim_alloc_matches(a, kind) && p >= a->base && p <= a->base + a->size &&
            size <= (size_t)(a->base + a->size - p))
            return a;
    return NULL;
}

bool sim_allocs_overlap(const sim_allocs_t *allocs, const void *ptr, size_t size)
{
    const char *p = ptr;
    for (sim_alloc_t *a = allocs->head; a != NULL; a = a->next)
        if (p < a->base + a->size && a->base < p + size)
            return true;
    return false;
}

/* Unlinks *link's record into *taken and frees it. */
static bool sim_alloc_unlink(sim_alloc_t **link, sim_alloc_t *taken)
{
    sim_alloc_t *record = *link;
    *link = record->next;
    *taken = *record;
    taken->next = NULL;
    free(record);
    return true;
}

bool sim_allocs_take(sim_allocs_t *allocs, const void *base, sim_alloc_kind_t kind,
                     sim_alloc_t *taken)
{
    for (sim_alloc_t **link = &allocs->head; *link != NULL; link = &(*link)->next)
        if ((*link)->base == base && sim_alloc_matches(*link, kind))
            return sim_alloc_unlink(link, taken);
    return false;
}

bool sim_allocs_take_device(sim_allocs_t *allocs, int device, sim_alloc_kind_t kind,
                            sim_alloc_t *taken)
{
    for (sim_alloc_t **link = &allocs->head; *link != NULL; link = &(*link)->next)
        if ((*link)->device == device && sim_alloc_matches(*link, kind))
            return sim_alloc_unlink(link, taken);
    return false;
}
