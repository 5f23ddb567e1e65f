/* graph.c: the mlu backend's graphs, on CNRT's queue capture: a capture
 * records the queue's work into a task topology (cnrtQueueBeginCapture /
 * cnrtQueueEndCapture), which is instantiated once into an entity
 * (cnrtTaskTopoInstantiate) and invoked on a queue per replay
 * (cnrtTaskTopoEntityInvoke). A backend graph is that entity; the topology
 * is destroyed as soon as it is instantiated (the entity does not need it).
 * Capture uses cnrtQueueCaptureModeRelaxed: accel's allocator may call
 * cnrtMalloc from other threads while a queue captures, which Global mode
 * forbids (and ThreadLocal is not supported by CNRT yet).
 * A CNRT without the six capture symbols has no graphs: every slot answers
 * UNSUPPORTED with the reason (and ACCEL_FLAG_GRAPHS_SUPPORTED is false).
 * Threads: any thread; each slot makes its device current first. */
#include <stdio.h>

#include "backends/mlu/mlu_backend.h"

static accel_status_t mlu_graphs_refused(accel_mlu_backend_t *mlu)
{
    return accel_backend_error(ACCEL_ERROR_UNSUPPORTED, "%s", mlu->graphs_reason);
}

accel_status_t accel_mlu_graph_capture_begin(void *self, int device, void *stream)
{
    accel_mlu_backend_t *mlu = self;
    accel_mlu_stream_t *s = stream;
    accel_status_t status;
    if (mlu->graphs_reason[0] != '\0')
        return mlu_graphs_refused(mlu);
    if ((status = accel_mlu_activate(mlu, device)) != ACCEL_OK)
        return status;
    status = accel_mlu_check(
        mlu->cnrt,
        mlu->cnrt->cnrtQueueBeginCapture(accel_mlu_queue(stream), ACCEL_CNRT_CAPTURE_MODE_RELAXED),
        "cnrtQueueBeginCapture");
    if (status == ACCEL_OK && s != NULL)
        atomic_store(&s->capturing, true);
    return status;
}

/* The capture is over whether this succeeds or not (accel_backend.h): a
 * refused cnrtQueueEndCapture is asked once more (the queue may still be
 * capturing; the answer to the second call does not matter) and its
 * topology dropped, and a topology that fails to instantiate is destroyed.
 * The first failure stays the thread's last error. */
static void mlu_capture_drop(const accel_mlu_api_t *cnrt, void *stream)
{
    accel_cnrt_task_topo_t dropped = NULL;
    if (cnrt->cnrtQueueEndCapture(accel_mlu_queue(stream), &dropped) == ACCEL_CNRT_SUCCESS &&
        dropped != NULL)
        cnrt->cnrtTaskTopoDestroy(dropped);
}

accel_status_t accel_mlu_graph_capture_end(void *self, int device, void *stream, void **out)
{
    accel_mlu_backend_t *mlu = self;
    const accel_mlu_api_t *cnrt = mlu->cnrt;
    accel_mlu_stream_t *s = stream;
    accel_cnrt_task_topo_t topo = NULL;
    accel_cnrt_topo_entity_t entity = NULL;
    accel_cnrt_ret_t code;
    accel_status_t status;
    if (mlu->graphs_reason[0] != '\0')
        return mlu_graphs_refused(mlu);
    if ((status = accel_mlu_activate(mlu, device)) != ACCEL_OK)
        return status;
    status = accel_mlu_check(cnrt, cnrt->cnrtQueueEndCapture(accel_mlu_queue(stream), &topo),
                             "cnrtQueueEndCapture");
    if (status != ACCEL_OK)
        mlu_capture_drop(cnrt, stream);
    if (s != NULL)
        atomic_store(&s->capturing, false);
    if (status != ACCEL_OK)
        return status;
    if (topo == NULL)
        return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                                   "mlu: cnrtQueueEndCapture returned no task topology (the "
                                   "capture was invalidated)");
    status = accel_mlu_check(cnrt, cnrt->cnrtTaskTopoInstantiate(&entity, topo, NULL, NULL, 0),
                             "cnrtTaskTopoInstantiate");
    code = cnrt->cnrtTaskTopoDestroy(topo);
    if (code != ACCEL_CNRT_SUCCESS)
        accel_log(ACCEL_LOG_WARN,
                  "mlu: cnrtTaskTopoDestroy after instantiating failed with "
                  "cnrtRet_t %u",
                  code);
    if (status == ACCEL_OK)
        *out = entity;
    return status;
}

accel_status_t accel_mlu_graph_launch(void *self, int device, void *stream, void *graph)
{
    accel_mlu_backend_t *mlu = self;
    accel_status_t status;
    if (mlu->graphs_reason[0] != '\0')
        return mlu_graphs_refused(mlu);
    if ((status = accel_mlu_activate(mlu, device)) != ACCEL_OK)
        return status;
    return accel_mlu_check(mlu->cnrt,
                           mlu->cnrt->cnrtTaskTopoEntityInvoke(graph, accel_mlu_queue(stream)),
                           "cnrtTaskTopoEntityInvoke");
}

void accel_mlu_graph_destroy(void *self, void *graph)
{
    accel_mlu_backend_t *mlu = self;
    accel_cnrt_ret_t code;
    if (graph == NULL || mlu->graphs_reason[0] != '\0' || accel_mlu_forked())
        return;
    code = mlu->cnrt->cnrtTaskTopoEntityDestroy(graph);
    if (code != ACCEL_CNRT_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "mlu: cnrtTaskTopoEntityDestroy failed with cnrtRet_t %u", code);
}
