/* graph.h: CPU graphs (graph.c): work captured from one created stream,
 * replayed by queueing copies of the same items. */
#ifndef ACCEL_BACKENDS_CPU_GRAPH_H
#define ACCEL_BACKENDS_CPU_GRAPH_H

#include <stddef.h>

#include "accel/accel_backend_utils.h"
#include "backends/cpu/work.h"

typedef struct accel_cpu_graph accel_cpu_graph_t;

struct accel_cpu_graph {
    accel_cpu_work_t *items;
    size_t count, capacity;
};

/* Make room for `extra` more items (so appends after it cannot fail). */
accel_status_t accel_cpu_graph_reserve(accel_cpu_graph_t *graph, size_t extra);
/* Append a copy of `work` (room must have been reserved); takes an event
 * reference for the event kinds. */
void accel_cpu_graph_append(accel_cpu_graph_t *graph, const accel_cpu_work_t *work);
/* Free a graph and drop its event references. */
void accel_cpu_graph_free(accel_cpu_graph_t *graph);

ACCEL_BACKEND_DECLARE_GRAPH_SLOTS(accel_cpu);

#endif /* ACCEL_BACKENDS_CPU_GRAPH_H */
