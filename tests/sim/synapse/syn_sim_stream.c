/* syn_sim_stream.c: the simulated SynapseAI runtime's streams, copies,
 * fills and events. Each stream is a worker thread running its queue in
 * order, so work really is asynchronous (ACCEL_SIM_STREAM_DELAY_US delays
 * every task to widen race windows). Events carry a record count and a
 * CLOCK_MONOTONIC time in nanoseconds. What Synapse refuses, the sim
 * refuses: a copy whose host side is not synHostMalloc'd or mapped for the
 * stream's device, or whose device side is not that device's memory; a
 * wait on an event recorded on the same stream; synStreamDestroy with work
 * pending (synBusy); elapsed time of events without EVENT_COLLECT_TIME.
 * Everything shared is under sim_lock (syn_sim_internal.h); the queue and
 * its worker loop are tests/sim/common/sim_queue.h's. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_event.h"
#include "sim_stream.h"
#include "syn_sim_internal.h"

typedef enum sim_task_kind { SIM_COPY, SIM_FILL, SIM_RECORD, SIM_WAIT } sim_task_kind_t;

struct EventInterfaceExternal {
    sim_handle_t handle; /* first: in sim_events while not destroyed */
    int module;
    uint32_t flags;
    sim_event_marks_t marks; /* records, and the queued tasks naming it */
    synStreamHandle stream;  /* of the latest record */
};

typedef struct sim_task {
    sim_queue_task_t node; /* first: the queue holds tasks by it */
    sim_task_kind_t kind;
    uint64_t src, dst, size;
    unsigned char value;
    synEventHandle event;
    unsigned long generation;
} sim_task_t;
_Static_assert(offsetof(sim_task_t, node) == 0, "a queued node is its task");

/* A stream on a module (the core's device); synStreamDestroy ends the core
 * (sim_stream.h: joins the worker), then frees the stream. */
struct InternalStreamHandle {
    sim_stream_core_t core;
};

/* Every event not destroyed (one whose destroy failed stays reachable). */
static sim_handles_t sim_events;

/* Runs one task; called with sim_lock held, drops it for a copy or fill. */
static void sim_run(sim_queue_t *queue, sim_queue_task_t *node)
{
    sim_task_t *task = (sim_task_t *)node;
    (void)queue;
    switch (task->kind) {
    case SIM_COPY:
        sim_queue_memmove(&sim_lock, (void *)(uintptr_t)task->dst,
                          (const void *)(uintptr_t)task->src, task->size);
        break;
    case SIM_FILL:
        sim_queue_memset(&sim_lock, (void *)(uintptr_t)task->dst, task->value, task->size);
        break;
    case SIM_RECORD: sim_event_reach(&task->event->marks, task->generation); break;
    case SIM_WAIT: sim_event_wait(&task->event->marks, task->generation); break;
    }
}

/* Under sim_lock: frees a run task, and its event when destroyed and unnamed. */
static void sim_retire(sim_queue_task_t *node)
{
    sim_task_t *task = (sim_task_t *)node;
    if (task->event != NULL && sim_event_release_task(&task->event->marks))
        free(task->event);
    free(task);
}

static const sim_queue_ops_t sim_queue_ops = {sim_run, sim_retire};
static sim_streams_t sim_streams = {.ops = &sim_queue_ops}; /* every live stream */

/* Under sim_lock: whether `stream` is a live stream. */
static bool sim_stream_live(synStreamHandle stream)
{
    return sim_handles_contains(&sim_streams.live, stream);
}

/* Under sim_lock. */
static synStatus sim_enqueue(synStreamHandle stream, sim_task_t *proto)
{
    sim_task_t *task = malloc(sizeof *task);
    if (task == NULL)
        return synOutOfHostMemory;
    *task = *proto;
    if (task->event != NULL)
        task->event->marks.refs++;
    sim_queue_push(&stream->core.queue, &task->node, &sim_changed);
    return synSuccess;
}

bool sim_module_busy(int module)
{
    SIM_HANDLES_EACH(sim_stream_core_t, s, &sim_streams.live)
    if (s->device == module && !sim_queue_idle(&s->queue))
        return true;
    return false;
}

void sim_module_drain(int module)
{
    while (sim_module_busy(module))
        pthread_cond_wait(&sim_changed, &sim_lock);
}

/* ---------------------------------------------------------------- streams */

SIM_API synStatus synStreamCreateGeneric(synStreamHandle *pStreamHandle, const synDeviceId deviceId,
                                         const uint32_t flags)
{
    synStreamHandle stream;
    int module;
    SIM_ENTER("synStreamCreateGeneric");
    if (pStreamHandle == NULL || flags != 0)
        return synInvalidArgument;
    pthread_mutex_lock(&sim_lock);
    module = sim_module_of(deviceId);
    pthread_mutex_unlock(&sim_lock);
    if (!sim_initialised())
        return synUninitialized;
    if (module < 0)
        return synInvalidArgument;
    if ((stream = calloc(1, sizeof *stream)) == NULL)
        return synOutOfHostMemory;
    if (!sim_stream_start(&sim_streams, &stream->core, module, false, false)) {
        free(stream);
        return synFail;
    }
    *pStreamHandle = stream;
    return synSuccess;
}

static void *sim_stream_end_run(void *stream)
{
    sim_stream_end(&((synStreamHandle)stream)->core);
    free(stream);
    return NULL;
}

/* Ends `stream` on a thread of its own (the broken SYN-DESTROY-BUSY mode);
 * false when that thread cannot start. */
static bool sim_stream_end_later(synStreamHandle stream)
{
    pthread_t thread;
    if (pthread_create(&thread, NULL, sim_stream_end_run, stream) != 0)
        return false;
    pthread_detach(thread);
    return true;
}

SIM_API synStatus synStreamDestroy(const synStreamHandle streamHandle)
{
    synStreamHandle stream = streamHandle;
    SIM_ENTER("synStreamDestroy");
    pthread_mutex_lock(&sim_lock);
    if (!sim_stream_live(stream)) {
        pthread_mutex_unlock(&sim_lock);
        return synInvalidArgument;
    }
    if (!sim_queue_idle(&stream->core.queue)) {
        pthread_mutex_unlock(&sim_lock);
        /* Test-only broken mode of rule SYN-DESTROY-BUSY: the destroy
         * returns at once while the work still runs, unowned. */
        if (sim_rule_broken("SYN-DESTROY-BUSY") && sim_stream_end_later(stream))
            return synSuccess;
        return synBusy;
    }
    pthread_mutex_unlock(&sim_lock);
    sim_stream_end(&stream->core);
    free(stream);
    return synSuccess;
}

SIM_API synStatus synStreamSynchronize(const synStreamHandle streamHandle)
{
    SIM_ENTER("synStreamSynchronize");
    pthread_mutex_lock(&sim_lock);
    if (!sim_stream_live(streamHandle)) {
        pthread_mutex_unlock(&sim_lock);
        return synInvalidArgument;
    }
    /* Until the queue is empty, work queued meanwhile included (not only
     * what was queued before the call, as sim_queue_wait would). */
    while (!sim_queue_idle(&streamHandle->core.queue))
        pthread_cond_wait(&sim_changed, &sim_lock);
    pthread_mutex_unlock(&sim_lock);
    return synSuccess;
}

SIM_API synStatus synStreamQuery(const synStreamHandle streamHandle)
{
    synStatus status;
    SIM_ENTER("synStreamQuery");
    pthread_mutex_lock(&sim_lock);
    if (!sim_stream_live(streamHandle))
        status = synInvalidArgument;
    else
        status = sim_queue_idle(&streamHandle->core.queue) ? synSuccess : synBusy;
    pthread_mutex_unlock(&sim_lock);
    return status;
}

SIM_API synStatus synMemCopyAsync(const synStreamHandle streamHandle, const uint64_t src,
                                  const uint64_t size, const uint64_t dst,
                                  const synDmaDir direction)
{
    sim_task_t task = {.kind = SIM_COPY, .src = src, .dst = dst, .size = size};
    synStatus status = synSuccess;
    bool src_ok, dst_ok;
    int module;
    SIM_ENTER("synMemCopyAsync");
    if (size == 0)
        return synInvalidArgument;
    pthread_mutex_lock(&sim_lock);
    if (!sim_stream_live(streamHandle)) {
        pthread_mutex_unlock(&sim_lock);
        return synInvalidArgument;
    }
    module = streamHandle->core.device;
    switch (direction) {
    case HOST_TO_DRAM:
        src_ok = sim_is_host_range(module, src, size);
        dst_ok = sim_is_device_range(module, dst, size);
        break;
    case DRAM_TO_HOST:
        src_ok = sim_is_device_range(module, src, size);
        dst_ok = sim_is_host_range(module, dst, size);
        break;
    case DRAM_TO_DRAM:
        src_ok = sim_is_device_range(module, src, size);
        dst_ok = sim_is_device_range(module, dst, size);
        break;
    default: src_ok = dst_ok = false; break;
    }
    /* Host memory that is neither synHostMalloc'd nor mapped cannot be
     * reached by the DMA engine: Synapse refuses it. */
    if (!src_ok || !dst_ok)
        status = synInvalidArgument;
    else
        status = sim_enqueue(streamHandle, &task);
    pthread_mutex_unlock(&sim_lock);
    return status;
}

SIM_API synStatus synMemsetD8Async(uint64_t pDeviceMem, const unsigned char value,
                                   const size_t numOfElements, const synStreamHandle streamHandle)
{
    sim_task_t task = {.kind = SIM_FILL, .dst = pDeviceMem, .size = numOfElements, .value = value};
    synStatus status;
    SIM_ENTER("synMemsetD8Async");
    if (numOfElements == 0)
        return synInvalidArgument;
    pthread_mutex_lock(&sim_lock);
    if (!sim_stream_live(streamHandle) ||
        !sim_is_device_range(streamHandle->core.device, pDeviceMem, numOfElements))
        status = synInvalidArgument;
    else
        status = sim_enqueue(streamHandle, &task);
    pthread_mutex_unlock(&sim_lock);
    return status;
}

/* ---------------------------------------------------------------- events */

SIM_API synStatus synEventCreate(synEventHandle *pEventHandler, const synDeviceId deviceId,
                                 const uint32_t flags)
{
    synEventHandle event;
    int module;
    SIM_ENTER("synEventCreate");
    if (pEventHandler == NULL || (flags & ~(uint32_t)EVENT_COLLECT_TIME) != 0)
        return synInvalidArgument;
    if (!sim_initialised())
        return synUninitialized;
    pthread_mutex_lock(&sim_lock);
    module = sim_module_of(deviceId);
    pthread_mutex_unlock(&sim_lock);
    if (module < 0)
        return synInvalidArgument;
    if ((event = calloc(1, sizeof *event)) == NULL)
        return synOutOfHostMemory;
    event->module = module;
    event->flags = flags;
    pthread_mutex_lock(&sim_lock);
    sim_handles_add(&sim_events, event);
    pthread_mutex_unlock(&sim_lock);
    *pEventHandler = event;
    return synSuccess;
}

/* A destroyed event is freed once no queued record or wait names it. */
SIM_API synStatus synEventDestroy(synEventHandle eventHandle)
{
    SIM_ENTER("synEventDestroy");
    if (eventHandle == NULL)
        return synInvalidEventHandle;
    pthread_mutex_lock(&sim_lock);
    /* Test-only broken mode of rule SYN-EVENT-DESTROY: a destroy before the
     * event completed is refused. */
    if (eventHandle->marks.completed < eventHandle->marks.recorded &&
        sim_rule_broken("SYN-EVENT-DESTROY")) {
        pthread_mutex_unlock(&sim_lock);
        return synBusy;
    }
    sim_handles_remove(&sim_events, eventHandle);
    if (sim_event_destroy(&eventHandle->marks))
        free(eventHandle);
    pthread_mutex_unlock(&sim_lock);
    return synSuccess;
}

SIM_API synStatus synEventRecord(synEventHandle eventHandle, const synStreamHandle streamHandle)
{
    synStatus status;
    SIM_ENTER("synEventRecord");
    if (eventHandle == NULL)
        return synInvalidEventHandle;
    pthread_mutex_lock(&sim_lock);
    if (!sim_stream_live(streamHandle) || streamHandle->core.device != eventHandle->module) {
        status = synInvalidArgument;
    } else {
        sim_task_t task = {.kind = SIM_RECORD,
                           .event = eventHandle,
                           .generation = eventHandle->marks.recorded + 1};
        status = sim_enqueue(streamHandle, &task);
        if (status == synSuccess) {
            eventHandle->marks.recorded++;
            eventHandle->stream = streamHandle;
        }
    }
    pthread_mutex_unlock(&sim_lock);
    return status;
}

/* SYN-WAIT: the event must come from another stream of the same device,
 * flags 0. synapse_api.h:70-76 (synStreamWaitEvent): "eventHandle needs to
 * be registered to other stream than streamHandle. It works on the same
 * device only (not between devices)"; flags "must be 0". The error code is
 * the sim's choice. */
SIM_API synStatus synStreamWaitEvent(const synStreamHandle streamHandle, synEventHandle eventHandle,
                                     const uint32_t flags)
{
    synStatus status = synSuccess;
    SIM_ENTER("synStreamWaitEvent");
    if (eventHandle == NULL)
        return synInvalidEventHandle;
    if (flags != 0)
        return synInvalidArgument;
    pthread_mutex_lock(&sim_lock);
    if (!sim_stream_live(streamHandle) || streamHandle->core.device != eventHandle->module ||
        eventHandle->stream == streamHandle) {
        status = synInvalidArgument;
    } else if (eventHandle->marks.recorded > 0 && !sim_rule_broken("SYN-WAIT")) {
        /* (test-only broken mode of rule SYN-WAIT: the wait is taken and
         * dropped, so nothing orders the streams) */
        sim_task_t task = {
            .kind = SIM_WAIT, .event = eventHandle, .generation = eventHandle->marks.recorded};
        status = sim_enqueue(streamHandle, &task);
    }
    pthread_mutex_unlock(&sim_lock);
    return status;
}

SIM_API synStatus synEventQuery(const synEventHandle eventHandle)
{
    synStatus status;
    SIM_ENTER("synEventQuery");
    if (eventHandle == NULL)
        return synInvalidEventHandle;
    pthread_mutex_lock(&sim_lock);
    status = eventHandle->marks.completed < eventHandle->marks.recorded ? synBusy : synSuccess;
    pthread_mutex_unlock(&sim_lock);
    return status;
}

SIM_API synStatus synEventSynchronize(const synEventHandle eventHandle)
{
    SIM_ENTER("synEventSynchronize");
    if (eventHandle == NULL)
        return synInvalidEventHandle;
    pthread_mutex_lock(&sim_lock);
    while (eventHandle->marks.completed < eventHandle->marks.recorded)
        pthread_cond_wait(&sim_changed, &sim_lock);
    pthread_mutex_unlock(&sim_lock);
    return synSuccess;
}

/* Nanoseconds between the two records; end NULL gives start's timestamp. */
SIM_API synStatus synEventElapsedTime(uint64_t *pNanoSeconds, const synEventHandle eventHandleStart,
                                      const synEventHandle eventHandleEnd)
{
    synStatus status = synSuccess;
    synEventHandle a = eventHandleStart, b = eventHandleEnd;
    SIM_ENTER("synEventElapsedTime");
    if (pNanoSeconds == NULL || a == NULL)
        return synInvalidArgument;
    pthread_mutex_lock(&sim_lock);
    if (!(a->flags & EVENT_COLLECT_TIME) || (b != NULL && !(b->flags & EVENT_COLLECT_TIME)))
        status = synInvalidArgument;
    else if (a->marks.recorded == 0 || (b != NULL && b->marks.recorded == 0))
        status = synInvalidArgument;
    else if (a->marks.completed < a->marks.recorded ||
             (b != NULL && b->marks.completed < b->marks.recorded))
        status = synBusy;
    else if (b == NULL)
        *pNanoSeconds = a->marks.time_ns;
    else
        *pNanoSeconds =
            b->marks.time_ns >= a->marks.time_ns ? b->marks.time_ns - a->marks.time_ns : 0;
    /* Test-only broken mode of rule SYN-ELAPSED-NS: microseconds, not ns. */
    if (status == synSuccess && b != NULL && sim_rule_broken("SYN-ELAPSED-NS"))
        *pNanoSeconds /= 1000;
    pthread_mutex_unlock(&sim_lock);
    return status;
}
