/* api_graph.c: capture the work queued on one stream, then replay it.
 * State machine per graph: EMPTY -capture_begin-> CAPTURING -capture_end->
 * READY (replayable, not capturable again). `graph->lock` guards the state;
 * the backend owns the recorded work (`impl`). Caller owns the graph.
 * Memory freed while a graph captures (on any stream of its device, with
 * accel_free or accel_free_async) is held by the newest capturing graph and
 * becomes reusable only when that graph is destroyed, after a synchronize
 * of its device (replays may still be running then), so a replay never
 * writes into another owner's block.
 * Memory allocated while a graph captures (on any stream of its device)
 * comes from the graph's private pool (allocator.h): freed after the
 * capture it goes back to that pool, never to the shared cache, since the
 * graph's replays still write into it. The pool is shared with the graphs
 * made by accel_graph_create_sharing_pool and released, after a device
 * synchronize, when the last of them is destroyed.
 * While any graph captures on a device, its allocator touches no event and
 * frees nothing (accel_allocator_capture_begin), and nothing here or in
 * accel_synchronize synchronizes that device: destroying a graph whose
 * memory needs that synchronize is refused until the capture ends.
 * A backend's capture_end ends the capture even when it fails: the graph
 * goes back to EMPTY (capturable again); blocks it holds stay held until it
 * is destroyed. */
#include <stdlib.h>

#include "accel/accel_backend_utils.h"
#include "core.h"
#include "error.h"

static void graph_capturing_add(accel_graph_t *graph)
{
    accel_device_state_t *dev = &graph->acc->devices[graph->device];
    pthread_mutex_lock(&dev->capture_lock);
    graph->next_capturing = dev->capturing;
    dev->capturing = graph;
    accel_allocator_capture_begin(dev->allocator);
    pthread_mutex_unlock(&dev->capture_lock);
}

static void graph_capturing_remove(accel_graph_t *graph)
{
    accel_device_state_t *dev = &graph->acc->devices[graph->device];
    pthread_mutex_lock(&dev->capture_lock);
    for (accel_graph_t **link = &dev->capturing; *link != NULL; link = &(*link)->next_capturing) {
        if (*link == graph) {
            *link = graph->next_capturing;
            accel_allocator_capture_end(dev->allocator);
            break;
        }
    }
    graph->next_capturing = NULL;
    pthread_mutex_unlock(&dev->capture_lock);
}

/* Release the blocks freed during the graph's capture and, when `last`
 * (no other graph shares it), the memory of its pool on every device, each
 * once that device is past the work that may use them (replays included).
 * A failed synchronize keeps that device's memory reserved (never reused)
 * rather than risk it; the pool record then stays too, since its address
 * still keys that memory. */
static void graph_release_memory(accel_graph_t *graph, bool last)
{
    accel_t *acc = graph->acc;
    bool pool_kept = false;
    for (int d = 0; d < acc->device_count; d++) {
        accel_allocator_t *allocator = acc->devices[d].allocator;
        bool held = d == graph->device && accel_allocator_holds(allocator, graph);
        bool pooled = last && accel_allocator_has_pool(allocator, graph->pool);
        if (!held && !pooled)
            continue;
        if (acc->ops->synchronize(acc->self, d) != ACCEL_OK) {
            accel_log(ACCEL_LOG_WARN,
                      "graph: device %d failed to synchronize; the memory the graph's capture "
                      "allocated or freed stays reserved",
                      d);
            pool_kept = pool_kept || pooled;
            continue;
        }
        if (held)
            accel_allocator_release_held(allocator, graph);
        if (pooled)
            accel_allocator_release_pool(allocator, graph->pool);
    }
    if (last && !pool_kept)
        free(graph->pool);
}

accel_status_t accel_check_device_not_capturing(accel_t *acc, int device, const char *what)
{
    accel_device_state_t *dev = &acc->devices[device];
    pthread_mutex_lock(&dev->capture_lock);
    bool capturing = dev->capturing != NULL;
    pthread_mutex_unlock(&dev->capture_lock);
    if (!capturing)
        return ACCEL_OK;
    return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                       "cannot %s device %d while a graph is capturing on one of its streams "
                       "(a device synchronize during a capture fails on CUDA and invalidates "
                       "the capture); call accel_graph_capture_end first",
                       what, device);
}

/* The memory graph_release_memory would release needs a synchronize of each
 * device it lies on; refused while a graph captures on one of them, and from
 * a host callback of one of them (the synchronize would wait for the
 * callback's own stream). */
static accel_status_t graph_check_release(accel_graph_t *graph, bool last)
{
    accel_t *acc = graph->acc;
    for (int d = 0; d < acc->device_count; d++) {
        accel_allocator_t *allocator = acc->devices[d].allocator;
        if ((d != graph->device || !accel_allocator_holds(allocator, graph)) &&
            !(last && accel_allocator_has_pool(allocator, graph->pool)))
            continue;
        accel_status_t status =
            accel_check_device_not_capturing(acc, d,
                                             "destroy this graph now: its memory is "
                                             "released after synchronizing");
        if (status == ACCEL_OK)
            status = accel_callback_refuse_device_wait(acc->self, d,
                                                       "destroy a graph holding memory of its "
                                                       "device (releasing it synchronizes the "
                                                       "device)");
        if (status != ACCEL_OK)
            return status;
    }
    return ACCEL_OK;
}

static accel_status_t graph_check(const accel_graph_t *graph)
{
    if (graph == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "graph handle is NULL");
    if (graph->tag != ACCEL_TAG_GRAPH)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "graph handle is not a live accel_graph_t (destroyed or corrupt)");
    return ACCEL_OK;
}

/* Whether `acc` can make graphs at all (sets the error when not). */
static accel_status_t graph_check_supported(accel_t *acc)
{
    bool supported = false;
    /* A graph could never capture (no stream), and its memory lives in
     * per-device state that does not exist. */
    accel_status_t status = accel_check_has_devices(acc);
    if (status != ACCEL_OK)
        return status;
    if (!ACCEL_BACKEND_HAS(acc->ops, graph_capture_begin))
        return accel_error(ACCEL_ERROR_UNSUPPORTED, "%s has no graphs", acc->ops->name);
    /* A backend with the slots may still lack graphs on this runtime (cuda
     * on a driver older than 11.4): its flag decides. */
    status = accel_query_flag(acc, ACCEL_FLAG_GRAPHS_SUPPORTED, &supported);
    if (status != ACCEL_OK)
        return status;
    if (!supported)
        return accel_error(ACCEL_ERROR_UNSUPPORTED,
                           "%s has no graphs here (graphs_supported is false: the vendor "
                           "runtime lacks them)",
                           acc->ops->name);
    return ACCEL_OK;
}

/* A new graph using `pool` (NULL: a pool of its own). */
static accel_status_t graph_new(accel_t *acc, accel_graph_pool_t *pool, accel_graph_t **out)
{
    accel_graph_t *graph;
    accel_graph_pool_t *own = NULL;
    if (pool == NULL && (pool = own = calloc(1, sizeof *own)) == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory creating a graph");
    graph = accel_handle_new(&acc->handles, ACCEL_HANDLE_GRAPH);
    if (graph == NULL) {
        free(own);
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory creating a graph");
    }
    atomic_fetch_add(&pool->graphs, 1);
    graph->acc = acc;
    graph->pool = pool;
    pthread_mutex_init(&graph->lock, NULL);
    graph->tag = ACCEL_TAG_GRAPH; /* last: the fork handler locks tagged graphs */
    *out = graph;
    return ACCEL_OK;
}

accel_status_t accel_graph_create(accel_t *acc, accel_graph_t **out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    status = graph_check_supported(acc);
    if (status != ACCEL_OK)
        return status;
    return graph_new(acc, NULL, out);
}

accel_status_t accel_graph_create_sharing_pool(accel_t *acc, accel_graph_t *pool_of,
                                               accel_graph_t **out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    status = graph_check(pool_of);
    if (status != ACCEL_OK)
        return status;
    if (pool_of->acc != acc)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "the graph whose pool is shared belongs to a different accelerator "
                           "handle");
    status = graph_check_supported(acc);
    if (status != ACCEL_OK)
        return status;
    return graph_new(acc, pool_of->pool, out);
}

accel_status_t accel_graph_capture_begin(accel_graph_t *graph, accel_stream_t *stream)
{
    accel_t *acc;
    accel_status_t status = graph_check(graph);
    if (status != ACCEL_OK)
        return status;
    acc = graph->acc;
    status = accel_check_stream(stream);
    if (status == ACCEL_OK && stream->acc != acc)
        status = accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                             "stream belongs to a different accelerator handle");
    if (status == ACCEL_OK)
        status = accel_ensure_init(acc);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&graph->lock);
    if (graph->state != ACCEL_GRAPH_EMPTY)
        status = accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "graph is %s; capture needs a new graph",
                             graph->state == ACCEL_GRAPH_CAPTURING ? "already capturing"
                                                                   : "already captured");
    if (status == ACCEL_OK) {
        /* Listed first, so that a free racing with the begin is already
         * held and records no event on the stream that starts capturing. */
        graph->device = stream->device;
        graph_capturing_add(graph);
        status = acc->ops->graph_capture_begin(acc->self, stream->device, stream->impl);
        if (status != ACCEL_OK)
            graph_capturing_remove(graph);
    }
    if (status == ACCEL_OK) {
        graph->state = ACCEL_GRAPH_CAPTURING;
        graph->capture_stream = stream;
        atomic_store(&stream->capturing, graph);
    }
    pthread_mutex_unlock(&graph->lock);
    return status;
}

accel_status_t accel_graph_capture_end(accel_graph_t *graph, accel_stream_t *stream)
{
    accel_t *acc;
    void *impl = NULL;
    bool ended_by_backend = false; /* the backend's capture_end ran */
    accel_status_t status = graph_check(graph);
    if (status == ACCEL_OK)
        status = accel_check_stream(stream);
    if (status != ACCEL_OK)
        return status;
    acc = graph->acc;
    pthread_mutex_lock(&graph->lock);
    if (graph->state != ACCEL_GRAPH_CAPTURING || graph->capture_stream != stream) {
        status = accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                             "graph is not capturing on this stream (call capture_begin first)");
    } else {
        ended_by_backend = true;
        status = acc->ops->graph_capture_end(acc->self, stream->device, stream->impl, &impl);
    }
    if (status == ACCEL_OK) {
        graph->impl = impl;
        graph->state = ACCEL_GRAPH_READY;
    } else if (ended_by_backend) {
        graph->state = ACCEL_GRAPH_EMPTY; /* the capture is over either way */
        graph->capture_stream = NULL;
    }
    if (status == ACCEL_OK || ended_by_backend) {
        atomic_store(&stream->capturing, NULL);
        graph_capturing_remove(graph);
    }
    pthread_mutex_unlock(&graph->lock);
    return status;
}

accel_status_t accel_graph_replay(accel_graph_t *graph, accel_stream_t *stream)
{
    accel_t *acc;
    accel_status_t status = graph_check(graph);
    if (status != ACCEL_OK)
        return status;
    acc = graph->acc;
    pthread_mutex_lock(&graph->lock);
    if (graph->state != ACCEL_GRAPH_READY) {
        pthread_mutex_unlock(&graph->lock);
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "graph has not been captured yet");
    }
    if (stream == NULL)
        stream = graph->capture_stream;
    status = accel_check_stream(stream);
    if (status == ACCEL_OK &&
        (stream->acc != acc || stream->device != graph->capture_stream->device))
        status = accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                             "a graph replays only on a stream of the device it was captured on");
    if (status == ACCEL_OK)
        status = acc->ops->graph_launch(acc->self, stream->device, stream->impl, graph->impl);
    pthread_mutex_unlock(&graph->lock);
    return status;
}

accel_status_t accel_graph_destroy(accel_graph_t *graph)
{
    accel_status_t status = graph_check(graph);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&graph->lock);
    if (graph->state == ACCEL_GRAPH_CAPTURING) {
        pthread_mutex_unlock(&graph->lock);
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "graph is still capturing; call accel_graph_capture_end first");
    }
    pthread_mutex_unlock(&graph->lock);
    /* Refused before anything changes; a capture begun by another thread
     * between this check and the synchronize is that caller's race. */
    status = graph_check_release(graph, atomic_load(&graph->pool->graphs) == 1);
    if (status != ACCEL_OK)
        return status;
    if (graph->impl != NULL)
        graph->acc->ops->graph_destroy(graph->acc->self, graph->impl);
    /* Blocks the user freed during the capture are reusable from now on, and
     * so is the pool once no graph shares it. */
    graph_release_memory(graph, atomic_fetch_sub(&graph->pool->graphs, 1) == 1);
    /* Retired first: the fork handler locks only live graphs. */
    accel_handle_retire(&graph->acc->handles, graph);
    pthread_mutex_destroy(&graph->lock);
    return ACCEL_OK;
}
