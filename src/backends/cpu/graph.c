/* graph.c: CPU graphs, i.e. work captured from one created stream and
 * replayed by queueing copies of the same items again.
 * A graph is built only by its capturing stream, under that stream's lock;
 * once capture_end hands it out it is read-only, so several threads may
 * launch it at once. Replays reuse the captured arguments (pointers, sizes,
 * RNG seed and offset), as a CUDA graph does. Captured event records and
 * waits are re-issued at each launch. */
#include <stdint.h>
#include <stdlib.h>

#include "backends/cpu/event.h"
#include "backends/cpu/graph.h"
#include "backends/cpu/stream.h"

#define GRAPH_MIN_CAPACITY 16

accel_status_t accel_cpu_graph_reserve(accel_cpu_graph_t *graph, size_t extra)
{
    size_t need, capacity;
    accel_cpu_work_t *items;

    if (extra > SIZE_MAX / sizeof *items - graph->count)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "cpu: graph capture of %zu more items is too large", extra);
    need = graph->count + extra;
    if (need <= graph->capacity)
        return ACCEL_OK;
    capacity = graph->capacity < GRAPH_MIN_CAPACITY ? GRAPH_MIN_CAPACITY : graph->capacity;
    while (capacity < need)
        capacity = capacity > SIZE_MAX / 2 / sizeof *items ? need : capacity * 2;
    items = realloc(graph->items, capacity * sizeof *items);
    if (items == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "cpu: out of host memory growing a captured graph to %zu items",
                                   capacity);
    graph->items = items;
    graph->capacity = capacity;
    return ACCEL_OK;
}

void accel_cpu_graph_append(accel_cpu_graph_t *graph, const accel_cpu_work_t *work)
{
    accel_cpu_work_t *slot = &graph->items[graph->count++];
    *slot = *work;
    if (slot->kind == ACCEL_CPU_WORK_EVENT_RECORD || slot->kind == ACCEL_CPU_WORK_EVENT_WAIT) {
        slot->u.event.generation = 0; /* assigned afresh at each launch */
        accel_cpu_event_retain(slot->u.event.event);
    }
}

void accel_cpu_graph_free(accel_cpu_graph_t *graph)
{
    if (graph == NULL)
        return;
    for (size_t i = 0; i < graph->count; i++) {
        accel_cpu_work_kind_t kind = graph->items[i].kind;
        if (kind == ACCEL_CPU_WORK_EVENT_RECORD || kind == ACCEL_CPU_WORK_EVENT_WAIT)
            accel_cpu_event_release(graph->items[i].u.event.event);
    }
    free(graph->items);
    free(graph);
}

/* The default stream runs work as it is issued, so there is nothing to
 * record: capture needs a created stream. */
accel_status_t accel_cpu_graph_capture_begin(void *self, int device, void *stream)
{
    accel_cpu_graph_t *graph;
    accel_status_t status;

    if (stream == NULL)
        return accel_backend_error(ACCEL_ERROR_UNSUPPORTED,
                                   "cpu: graph capture needs a created stream; the default "
                                   "stream runs work inline on the calling thread, so there is "
                                   "nothing to record");
    graph = calloc(1, sizeof *graph);
    if (graph == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "cpu: out of host memory for a graph");
    status = accel_cpu_stream_capture_begin(stream, graph);
    if (status != ACCEL_OK)
        free(graph);
    return status;
}

accel_status_t accel_cpu_graph_capture_end(void *self, int device, void *stream, void **out_graph)
{
    accel_cpu_graph_t *graph;
    accel_status_t status;

    if (stream == NULL)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: graph capture end on the default stream, which never "
                                   "captures");
    status = accel_cpu_stream_capture_end(stream, &graph);
    if (status == ACCEL_OK)
        *out_graph = graph;
    return status;
}

/* All of the graph's items enter the stream as one step (or none, on OOM);
 * on a stream that is itself capturing they are appended to that capture. */
accel_status_t accel_cpu_graph_launch(void *self, int device, void *stream, void *graph)
{
    accel_cpu_graph_t *g = graph;
    return accel_cpu_stream_submit(stream, g->items, g->count);
}

void accel_cpu_graph_destroy(void *self, void *graph)
{
    accel_cpu_graph_free(graph);
}
