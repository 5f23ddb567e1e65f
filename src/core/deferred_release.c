/* deferred_release.c: the deferred-release list of accel_backend_utils.h:
 * resources freed once the fence recorded after their last use completes.
 * Core keeps one per accel_t for its host-generated random fills
 * (api_rng.c); a backend may keep its own (hpu's copy staging).
 * Threads: `lock` guards `head` and `count` only; every callback runs without
 * it (poll unlinks the whole list, asks each fence, and links back what is
 * still pending). */
#include "deferred_release.h"

#include <pthread.h>
#include <stdlib.h>

#include "error.h"

typedef struct deferred_entry {
    int device;
    void *fence;
    void *resource;
    size_t size;
    accel_deferred_release_fn_t release;
    void *release_ctx;
    struct deferred_entry *next;
} deferred_entry_t;

struct accel_deferred_release {
    accel_deferred_fence_ops_t fence;
    pthread_mutex_t lock;
    deferred_entry_t *head; /* under lock */
    size_t count;           /* under lock */
};

accel_status_t accel_deferred_release_create(const accel_deferred_fence_ops_t *fence,
                                             accel_deferred_release_t **out)
{
    accel_deferred_release_t *list;
    if (fence == NULL || out == NULL || fence->query == NULL || fence->wait == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "deferred release: the fence callbacks (with query and wait) and the "
                           "output pointer are required");
    list = calloc(1, sizeof *list);
    if (list == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "deferred release: out of host memory for the list");
    list->fence = *fence;
    pthread_mutex_init(&list->lock, NULL);
    *out = list;
    return ACCEL_OK;
}

/* The fence has completed (`finished`), or its work cannot be known done:
 * release the resource, then the fence. */
static void deferred_release_now(const accel_deferred_release_t *list, int device, void *fence,
                                 void *resource, size_t size, accel_deferred_release_fn_t release,
                                 void *release_ctx, bool finished)
{
    void (*drop)(void *, int, void *) = finished ? list->fence.destroy : list->fence.forget;
    if (release != NULL)
        release(release_ctx, device, resource, size, finished);
    if (drop != NULL && fence != NULL)
        drop(list->fence.self, device, fence);
}

/* Wait for the fence (else the device) and release; returns false when the
 * work cannot be known finished and both are left to the runtime. */
static bool deferred_wait_and_release(const accel_deferred_release_t *list, int device, void *fence,
                                      void *resource, size_t size,
                                      accel_deferred_release_fn_t release, void *release_ctx)
{
    const accel_deferred_fence_ops_t *ops = &list->fence;
    accel_status_t status = fence != NULL ? ops->wait(ops->self, device, fence) : ACCEL_OK;
    if (status != ACCEL_OK && ops->device_wait != NULL) {
        accel_log(ACCEL_LOG_WARN,
                  "deferred release: waiting for a fence on device %d failed (%s); waiting for "
                  "the device instead",
                  device, accel_last_error());
        status = ops->device_wait(ops->self, device);
    }
    if (status != ACCEL_OK) {
        accel_log(ACCEL_LOG_WARN,
                  "deferred release: the work on device %d that uses a %zu-byte resource cannot "
                  "be known finished (%s); the resource is left to the runtime rather than "
                  "freed under it",
                  device, size, accel_last_error());
        deferred_release_now(list, device, fence, resource, size, release, release_ctx, false);
        return false;
    }
    deferred_release_now(list, device, fence, resource, size, release, release_ctx, true);
    return true;
}

/* Unlink every entry (the caller owns them now). */
static deferred_entry_t *deferred_take_all(accel_deferred_release_t *list)
{
    deferred_entry_t *taken;
    pthread_mutex_lock(&list->lock);
    taken = list->head;
    list->head = NULL;
    list->count = 0;
    pthread_mutex_unlock(&list->lock);
    return taken;
}

/* Link a chain of `count` entries from `first` to `last` back in. */
static void deferred_link(accel_deferred_release_t *list, deferred_entry_t *first,
                          deferred_entry_t *last, size_t count)
{
    if (first == NULL)
        return;
    pthread_mutex_lock(&list->lock);
    last->next = list->head;
    list->head = first;
    list->count += count;
    pthread_mutex_unlock(&list->lock);
}

size_t accel_deferred_release_poll(accel_deferred_release_t *list)
{
    deferred_entry_t *entry, *pending = NULL, *pending_last = NULL;
    size_t released = 0, kept = 0;
    if (list == NULL)
        return 0;
    entry = deferred_take_all(list);
    while (entry != NULL) {
        deferred_entry_t *next = entry->next;
        const accel_deferred_fence_ops_t *ops = &list->fence;
        if (entry->fence == NULL ||
            ops->query(ops->self, entry->device, entry->fence) == ACCEL_OK) {
            deferred_release_now(list, entry->device, entry->fence, entry->resource, entry->size,
                                 entry->release, entry->release_ctx, true);
            free(entry);
            released++;
        } else {
            /* Pending, or the query failed: kept for a later poll or drain. */
            entry->next = pending;
            pending = entry;
            if (pending_last == NULL)
                pending_last = entry;
            kept++;
        }
        entry = next;
    }
    deferred_link(list, pending, pending_last, kept);
    return released;
}

void accel_deferred_release_add(accel_deferred_release_t *list, int device, void *fence,
                                void *resource, size_t size, accel_deferred_release_fn_t release,
                                void *release_ctx)
{
    deferred_entry_t *entry = malloc(sizeof *entry);
    accel_deferred_release_poll(list);
    if (entry == NULL) {
        accel_log(ACCEL_LOG_WARN, "deferred release: out of host memory for a record; waiting "
                                  "for the work that uses the resource now");
        deferred_wait_and_release(list, device, fence, resource, size, release, release_ctx);
        return;
    }
    *entry = (deferred_entry_t){.device = device,
                                .fence = fence,
                                .resource = resource,
                                .size = size,
                                .release = release,
                                .release_ctx = release_ctx};
    deferred_link(list, entry, entry, 1);
}

size_t accel_deferred_release_pending(accel_deferred_release_t *list)
{
    size_t count;
    if (list == NULL)
        return 0;
    pthread_mutex_lock(&list->lock);
    count = list->count;
    pthread_mutex_unlock(&list->lock);
    return count;
}

size_t accel_deferred_release_drain(accel_deferred_release_t *list)
{
    deferred_entry_t *entry;
    size_t left = 0;
    if (list == NULL)
        return 0;
    entry = deferred_take_all(list);
    while (entry != NULL) {
        deferred_entry_t *next = entry->next;
        if (!deferred_wait_and_release(list, entry->device, entry->fence, entry->resource,
                                       entry->size, entry->release, entry->release_ctx))
            left++;
        free(entry);
        entry = next;
    }
    return left;
}

void accel_deferred_release_destroy(accel_deferred_release_t *list)
{
    if (list == NULL)
        return;
    accel_deferred_release_drain(list);
    pthread_mutex_destroy(&list->lock);
    free(list);
}

/* No lock is taken: in a forked child it may have been held by a thread the
 * child does not have. */
void accel_deferred_release_abandon(accel_deferred_release_t *list)
{
    deferred_entry_t *entry;
    if (list == NULL)
        return;
    entry = list->head;
    while (entry != NULL) {
        deferred_entry_t *next = entry->next;
        free(entry);
        entry = next;
    }
    free(list);
}

void accel_deferred_release_fork_lock(accel_deferred_release_t *list)
{
    if (list != NULL)
        pthread_mutex_lock(&list->lock);
}

void accel_deferred_release_fork_unlock(accel_deferred_release_t *list)
{
    if (list != NULL)
        pthread_mutex_unlock(&list->lock);
}
