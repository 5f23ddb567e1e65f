/* handles.c: the per-accel_t registry of user stream, event and graph
 * structs, with a quarantine FIFO so a destroyed handle stays readable (and
 * tagged dead) for a while; see handles.h for the rules. */
#include "handles.h"

#include <stdint.h>
#include <stdlib.h>

#include "core.h"

struct accel_handle_slot {
    accel_handle_slot_t *prev, *next; /* live list, or retired FIFO (next only) */
    accel_handle_kind_t kind;
    union {
        uint32_t tag; /* first member of each of the structs below */
        accel_stream_t stream;
        accel_event_t event;
        accel_graph_t graph;
    } object;
};

static accel_handle_slot_t *slot_of(void *object)
{
    return (accel_handle_slot_t *)((char *)object - offsetof(accel_handle_slot_t, object));
}

void accel_handles_init(accel_handles_t *handles)
{
    *handles = (accel_handles_t){0};
    pthread_mutex_init(&handles->lock, NULL);
}

static void slots_free(accel_handle_slot_t *slot)
{
    while (slot != NULL) {
        accel_handle_slot_t *next = slot->next;
        free(slot);
        slot = next;
    }
}

void accel_handles_fini(accel_handles_t *handles)
{
    slots_free(handles->live);
    slots_free(handles->retired_head);
    pthread_mutex_destroy(&handles->lock);
}

/* Caller holds the lock. The oldest retired slot once enough followed it. */
static accel_handle_slot_t *slot_reuse(accel_handles_t *handles)
{
    accel_handle_slot_t *slot = handles->retired_head;
    if (handles->retired_count <= ACCEL_HANDLE_QUARANTINE)
        return NULL;
    handles->retired_head = slot->next;
    if (handles->retired_head == NULL)
        handles->retired_tail = NULL;
    handles->retired_count--;
    return slot;
}

void *accel_handle_new(accel_handles_t *handles, accel_handle_kind_t kind)
{
    accel_handle_slot_t *slot;
    pthread_mutex_lock(&handles->lock);
    slot = slot_reuse(handles);
    if (slot == NULL)
        slot = malloc(sizeof *slot);
    if (slot != NULL) {
        *slot = (accel_handle_slot_t){.kind = kind, .next = handles->live};
        if (handles->live != NULL)
            handles->live->prev = slot;
        handles->live = slot;
        handles->live_count[kind]++;
    }
    pthread_mutex_unlock(&handles->lock);
    return slot != NULL ? &slot->object : NULL;
}

void accel_handle_retire(accel_handles_t *handles, void *object)
{
    accel_handle_slot_t *slot = slot_of(object);
    pthread_mutex_lock(&handles->lock);
    slot->object.tag = ACCEL_TAG_DEAD;
    if (slot->prev != NULL)
        slot->prev->next = slot->next;
    else
        handles->live = slot->next;
    if (slot->next != NULL)
        slot->next->prev = slot->prev;
    handles->live_count[slot->kind]--;
    slot->prev = slot->next = NULL;
    if (handles->retired_tail != NULL)
        handles->retired_tail->next = slot;
    else
        handles->retired_head = slot;
    handles->retired_tail = slot;
    handles->retired_count++;
    pthread_mutex_unlock(&handles->lock);
}

size_t accel_handles_live(accel_handles_t *handles, accel_handle_kind_t kind)
{
    size_t count;
    pthread_mutex_lock(&handles->lock);
    count = handles->live_count[kind];
    pthread_mutex_unlock(&handles->lock);
    return count;
}

void accel_handles_each(accel_handles_t *handles, accel_handle_kind_t kind,
                        void (*fn)(void *object, void *arg), void *arg)
{
    pthread_mutex_lock(&handles->lock);
    for (accel_handle_slot_t *slot = handles->live; slot != NULL; slot = slot->next)
        if (slot->kind == kind)
            fn(&slot->object, arg);
    pthread_mutex_unlock(&handles->lock);
}

/* A graph whose lock is initialised: accel_graph_create sets the tag last. */
static bool graph_ready(const accel_handle_slot_t *slot)
{
    return slot->kind == ACCEL_HANDLE_GRAPH && slot->object.graph.tag == ACCEL_TAG_GRAPH;
}

void accel_handles_fork_lock(accel_handles_t *handles)
{
    pthread_mutex_lock(&handles->lock);
    for (accel_handle_slot_t *slot = handles->live; slot != NULL; slot = slot->next)
        if (graph_ready(slot))
            pthread_mutex_lock(&slot->object.graph.lock);
}

void accel_handles_fork_unlock(accel_handles_t *handles)
{
    for (accel_handle_slot_t *slot = handles->live; slot != NULL; slot = slot->next)
        if (graph_ready(slot))
            pthread_mutex_unlock(&slot->object.graph.lock);
    pthread_mutex_unlock(&handles->lock);
}
