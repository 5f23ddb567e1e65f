/* stream.c: the CUDA backend's streams, events, host callbacks and graphs,
 * each a thin layer over the driver's own objects.
 * - A backend stream is the CUstream itself; NULL is CUDA's legacy default
 *   stream, which orders with every blocking stream. Created streams are
 *   non-blocking (as torch creates them), so only events order them.
 * - A backend event is the CUevent itself; events without ACCEL_EVENT_TIMING
 *   are created with CU_EVENT_DISABLE_TIMING (cheaper to record and wait on).
 * - A graph is an accel_cuda_graph_t: the captured CUgraph and its
 *   instantiation, owned by core's accel_graph_t, freed by graph_destroy.
 * Captures use CU_STREAM_CAPTURE_MODE_RELAXED, so other threads (and the
 * caching allocator on this one) may keep calling the driver meanwhile.
 * Threads: any thread; each slot makes the device's context current first. */
#include <stdlib.h>

#include "backends/cuda/cuda_backend.h"

typedef struct accel_cuda_graph {
    int device;
    accel_cu_graph_t graph;
    accel_cu_graph_exec_t exec;
} accel_cuda_graph_t;

/* ---------------------------------------------------------------- device and streams */

accel_status_t accel_cuda_synchronize(void *self, int device)
{
    accel_cuda_backend_t *cuda = self;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    return accel_cuda_check(cuda->cu, cuda->cu->cuCtxSynchronize(), "cuCtxSynchronize");
}

/* priority: 0 normal, negative higher, as in CUDA; the driver clamps it to
 * the device's range. */
accel_status_t accel_cuda_stream_create(void *self, int device, int priority, void **out)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_stream_t stream = NULL;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status == ACCEL_OK)
        status = accel_cuda_check(
            cuda->cu,
            cuda->cu->cuStreamCreateWithPriority(&stream, ACCEL_CU_STREAM_NON_BLOCKING, priority),
            "cuStreamCreateWithPriority");
    if (status == ACCEL_OK)
        *out = stream;
    return status;
}

/* accel_stream_destroy waits for the stream's work, so this synchronizes
 * before handing the stream back to the driver. */
void accel_cuda_stream_destroy(void *self, int device, void *stream)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_result_t result;
    if (accel_cuda_activate(cuda, device) != ACCEL_OK)
        return;
    result = cuda->cu->cuStreamSynchronize(stream);
    if (result == ACCEL_CUDA_SUCCESS)
        result = cuda->cu->cuStreamDestroy_v2(stream);
    else
        cuda->cu->cuStreamDestroy_v2(stream);
    if (result != ACCEL_CUDA_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "cuda: destroying a stream of device %d: CUresult %u", device,
                  result);
}

accel_status_t accel_cuda_stream_synchronize(void *self, int device, void *stream)
{
    accel_cuda_backend_t *cuda = self;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    return accel_cuda_check(cuda->cu, cuda->cu->cuStreamSynchronize(stream), "cuStreamSynchronize");
}

accel_status_t accel_cuda_stream_query(void *self, int device, void *stream)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_result_t result;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    result = cuda->cu->cuStreamQuery(stream);
    if (result == ACCEL_CUDA_ERROR_NOT_READY)
        return ACCEL_ERROR_NOT_READY;
    return accel_cuda_check(cuda->cu, result, "cuStreamQuery");
}

accel_status_t accel_cuda_stream_wait_event(void *self, int device, void *stream, void *event)
{
    accel_cuda_backend_t *cuda = self;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    return accel_cuda_check(cuda->cu, cuda->cu->cuStreamWaitEvent(stream, event, 0),
                            "cuStreamWaitEvent");
}

/* The driver runs `fn` on its own thread once the work before it finished;
 * it must not call CUDA (or accel functions that reach the driver). A kit
 * call record marks that thread while `fn` runs, so core refuses a wait for
 * itself from there; while a capture is in progress the record may be
 * replayed by a graph and is kept until destroy(). */
accel_status_t accel_cuda_stream_add_callback(void *self, int device, void *stream,
                                              accel_host_fn_t fn, void *user_data)
{
    accel_cuda_backend_t *cuda = self;
    accel_callback_call_t *call = NULL;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status == ACCEL_OK)
        status = accel_callback_call_new(cuda, device, stream, fn, user_data,
                                         atomic_load(&cuda->captures) > 0, &call);
    if (status != ACCEL_OK)
        return status;
    status = accel_cuda_check(cuda->cu,
                              cuda->cu->cuLaunchHostFunc(stream, accel_callback_call_run, call),
                              "cuLaunchHostFunc");
    if (status != ACCEL_OK)
        accel_callback_call_free(call); /* not queued: never run */
    return status;
}

/* ---------------------------------------------------------------- events */

accel_status_t accel_cuda_event_create(void *self, int device, unsigned flags, void **out)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_event_t event = NULL;
    unsigned cu_flags =
        (flags & ACCEL_EVENT_TIMING) ? ACCEL_CU_EVENT_DEFAULT : ACCEL_CU_EVENT_DISABLE_TIMING;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status == ACCEL_OK)
        status =
            accel_cuda_check(cuda->cu, cuda->cu->cuEventCreate(&event, cu_flags), "cuEventCreate");
    if (status == ACCEL_OK)
        *out = event;
    return status;
}

void accel_cuda_event_destroy(void *self, int device, void *event)
{
    accel_cuda_backend_t *cuda = self;
    if (accel_cuda_activate(cuda, device) == ACCEL_OK)
        cuda->cu->cuEventDestroy_v2(event);
}

accel_status_t accel_cuda_event_record(void *self, int device, void *stream, void *event)
{
    accel_cuda_backend_t *cuda = self;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    return accel_cuda_check(cuda->cu, cuda->cu->cuEventRecord(event, stream), "cuEventRecord");
}

accel_status_t accel_cuda_event_synchronize(void *self, int device, void *event)
{
    accel_cuda_backend_t *cuda = self;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    return accel_cuda_check(cuda->cu, cuda->cu->cuEventSynchronize(event), "cuEventSynchronize");
}

accel_status_t accel_cuda_event_query(void *self, int device, void *event)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_result_t result;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    result = cuda->cu->cuEventQuery(event);
    if (result == ACCEL_CUDA_ERROR_NOT_READY)
        return ACCEL_ERROR_NOT_READY;
    return accel_cuda_check(cuda->cu, result, "cuEventQuery");
}

accel_status_t accel_cuda_event_elapsed_ms(void *self, int device, void *start, void *end,
                                           float *out)
{
    accel_cuda_backend_t *cuda = self;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    return accel_cuda_check(cuda->cu, cuda->cu->cuEventElapsedTime(out, start, end),
                            "cuEventElapsedTime");
}

/* ---------------------------------------------------------------- graphs */

accel_status_t accel_cuda_graph_capture_begin(void *self, int device, void *stream)
{
    accel_cuda_backend_t *cuda = self;
    accel_status_t status;
    if (stream == NULL)
        return accel_backend_error(ACCEL_ERROR_UNSUPPORTED,
                                   "cuda: the default (legacy) stream cannot be captured; "
                                   "capture on a created stream");
    if (cuda->cu->cuGraphInstantiateWithFlags == NULL)
        return accel_backend_error(ACCEL_ERROR_UNSUPPORTED,
                                   "cuda: this driver lacks cuGraphInstantiateWithFlags "
                                   "(CUDA 11.4 or newer is needed for graphs)");
    status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    /* Counted first, so no callback captured slips past as freed-after-run. */
    atomic_fetch_add(&cuda->captures, 1);
    status = accel_cuda_check(
        cuda->cu, cuda->cu->cuStreamBeginCapture_v2(stream, ACCEL_CU_STREAM_CAPTURE_MODE_RELAXED),
        "cuStreamBeginCapture_v2");
    if (status != ACCEL_OK)
        atomic_fetch_sub(&cuda->captures, 1);
    return status;
}

accel_status_t accel_cuda_graph_capture_end(void *self, int device, void *stream, void **out_graph)
{
    accel_cuda_backend_t *cuda = self;
    const accel_cuda_api_t *cu = cuda->cu;
    accel_cuda_graph_t *graph;
    accel_status_t status;
    atomic_fetch_sub(&cuda->captures, 1); /* the slot ends the capture whatever happens */
    status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    graph = calloc(1, sizeof *graph);
    if (graph == NULL) {
        accel_cu_graph_t dropped = NULL;
        if (cu->cuStreamEndCapture(stream, &dropped) == ACCEL_CUDA_SUCCESS && dropped != NULL)
            cu->cuGraphDestroy(dropped);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "cuda: out of host memory for a graph");
    }
    graph->device = device;
    status =
        accel_cuda_check(cu, cu->cuStreamEndCapture(stream, &graph->graph), "cuStreamEndCapture");
    if (status != ACCEL_OK) {
        /* A refused end may leave the stream capturing, and the slot's
         * contract says the capture is over: end it again (answered
         * ILLEGAL_STATE when the first call did end it) and drop its graph.
         * The first failure stays the thread's last error. */
        accel_cu_graph_t dropped = NULL;
        graph->graph = NULL;
        if (cu->cuStreamEndCapture(stream, &dropped) == ACCEL_CUDA_SUCCESS && dropped != NULL)
            cu->cuGraphDestroy(dropped);
    }
    if (status == ACCEL_OK)
        status =
            accel_cuda_check(cu, cu->cuGraphInstantiateWithFlags(&graph->exec, graph->graph, 0),
                             "cuGraphInstantiateWithFlags");
    if (status != ACCEL_OK) {
        if (graph->graph != NULL)
            cu->cuGraphDestroy(graph->graph);
        free(graph);
        return status;
    }
    *out_graph = graph;
    return ACCEL_OK;
}

accel_status_t accel_cuda_graph_launch(void *self, int device, void *stream, void *graph)
{
    accel_cuda_backend_t *cuda = self;
    accel_cuda_graph_t *g = graph;
    accel_status_t status = accel_cuda_activate(cuda, device);
    if (status != ACCEL_OK)
        return status;
    return accel_cuda_check(cuda->cu, cuda->cu->cuGraphLaunch(g->exec, stream), "cuGraphLaunch");
}

void accel_cuda_graph_destroy(void *self, void *graph)
{
    accel_cuda_backend_t *cuda = self;
    accel_cuda_graph_t *g = graph;
    if (g == NULL)
        return;
    if (accel_cuda_activate(cuda, g->device) == ACCEL_OK) {
        cuda->cu->cuGraphExecDestroy(g->exec);
        cuda->cu->cuGraphDestroy(g->graph);
    }
    free(g);
}

accel_status_t accel_cuda_native_stream(void *self, int device, void *stream, void **out)
{
    accel_status_t status = accel_cuda_activate(self, device);
    if (status == ACCEL_OK)
        *out = stream;
    return status;
}
