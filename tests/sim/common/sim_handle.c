/* sim_handle.c: a sim's sets of live objects (sim_handle.h): lists,
 * searched in full; a sim holds a few dozen streams or events at a time. */
#include "sim_handle.h"

#include <stddef.h>

void sim_handles_add(sim_handles_t *handles, void *object)
{
    sim_handle_t *handle = object;
    handle->next = handles->head;
    handles->head = handle;
}

bool sim_handles_remove(sim_handles_t *handles, const void *object)
{
    for (sim_handle_t **link = &handles->head; *link != NULL; link = &(*link)->next)
        if ((const void *)*link == object) {
            *link = (*link)->next;
            return true;
        }
    return false;
}

bool sim_handles_contains(const sim_handles_t *handles, const void *handle)
{
    for (const sim_handle_t *h = handles->head; h != NULL; h = h->next)
        if ((const void *)h == handle)
            return true;
    return false;
}
