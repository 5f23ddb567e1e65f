/* sim_stream.c: simulated streams over sim_queue (sim_stream.h). */
#include "sim_stream.h"

#include <stdlib.h>
#include <string.h>

#include "sim_core.h"

/* A stream's worker: runs its queue until stopped; a released stream is
 * then taken out of the live set and freed here, once no synchronize or
 * other stream's wait still looks at it. */
static void *sim_stream_worker(void *arg)
{
    sim_stream_core_t *stream = arg;
    pthread_mutex_lock(&sim_lock);
    sim_queue_serve(&stream->queue, &sim_lock, &sim_changed, stream->owner->ops);
    if (!stream->released) {
        pthread_mutex_unlock(&sim_lock);
        return NULL;
    }
    sim_queue_unwatched(&stream->queue, &sim_lock, &sim_changed);
    sim_handles_remove(&stream->owner->live, stream);
    pthread_cond_broadcast(&sim_changed);
    pthread_mutex_unlock(&sim_lock);
    free(stream);
    return NULL;
}

bool sim_stream_start(sim_streams_t *streams, sim_stream_core_t *stream, int device,
                      bool is_default, bool detached)
{
    pthread_attr_t attr;
    int started;
    stream->device = device;
    stream->is_default = is_default;
    stream->detached = detached;
    stream->owner = streams;
    pthread_attr_init(&attr);
    if (detached)
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    started = pthread_create(&stream->worker, &attr, sim_stream_worker, stream);
    pthread_attr_destroy(&attr);
    if (started != 0)
        return false;
    pthread_mutex_lock(&sim_lock);
    sim_handles_add(&streams->live, stream);
    pthread_mutex_unlock(&sim_lock);
    return true;
}

sim_stream_core_t *sim_stream_create(sim_streams_t *streams, size_t size, int device, bool detached)
{
    sim_stream_core_t *stream = calloc(1, size);
    if (stream != NULL && !sim_stream_start(streams, stream, device, false, detached)) {
        free(stream);
        return NULL;
    }
    return stream;
}

sim_stream_core_t *sim_streams_default(sim_streams_t *streams, size_t size, int device)
{
    /* Not sim_lock: starting a stream takes it. */
    static pthread_mutex_t make_lock = PTHREAD_MUTEX_INITIALIZER;
    sim_stream_core_t *stream;
    if (device < 0 || device >= SIM_STREAM_MAX_DEVICES)
        return NULL;
    pthread_mutex_lock(&make_lock);
    stream = streams->defaults[device];
    if (stream == NULL && (stream = calloc(1, size)) != NULL) {
        if (sim_stream_start(streams, stream, device, true, false))
            streams->defaults[device] = stream;
        else {
            free(stream);
            stream = NULL;
        }
    }
    pthread_mutex_unlock(&make_lock);
    return stream;
}

sim_stream_core_t *sim_streams_find(sim_streams_t *streams, const void *handle)
{
    sim_stream_core_t *found = NULL;
    pthread_mutex_lock(&sim_lock);
    if (sim_handles_contains(&streams->live, handle)) {
        sim_stream_core_t *stream = (sim_stream_core_t *)handle;
        if (!stream->is_default && !stream->queue.stop)
            found = stream;
    }
    pthread_mutex_unlock(&sim_lock);
    return found;
}

bool sim_stream_submit(sim_stream_core_t *stream, const void *task, size_t size)
{
    sim_queue_task_t *copy = malloc(size);
    if (copy == NULL)
        return false;
    memcpy(copy, task, size);
    pthread_mutex_lock(&sim_lock);
    sim_queue_push(&stream->queue, copy, &sim_changed);
    pthread_mutex_unlock(&sim_lock);
    return true;
}

void sim_stream_wait_locked(sim_stream_core_t *stream)
{
    sim_queue_wait(&stream->queue, &sim_lock, &sim_changed);
}

void sim_stream_wait(sim_stream_core_t *stream)
{
    pthread_mutex_lock(&sim_lock);
    sim_stream_wait_locked(stream);
    pthread_mutex_unlock(&sim_lock);
}

void sim_stream_drain_device(sim_streams_t *streams, int device)
{
    pthread_mutex_lock(&sim_lock);
    SIM_HANDLES_EACH(sim_stream_core_t, stream, &streams->live)
    if (stream->device == device)
        sim_stream_wait_locked(stream);
    pthread_mutex_unlock(&sim_lock);
}

void sim_stream_end(sim_stream_core_t *stream)
{
    pthread_mutex_lock(&sim_lock);
    sim_stream_wait_locked(stream);
    sim_handles_remove(&stream->owner->live, stream);
    sim_queue_stop(&stream->queue, &sim_changed);
    pthread_mutex_unlock(&sim_lock);
    pthread_join(stream->worker, NULL);
}

void sim_stream_release(sim_stream_core_t *stream)
{
    pthread_t worker = stream->worker;
    bool join;
    pthread_mutex_lock(&sim_lock);
    /* Nothing queued: the worker ends at once; joining it keeps its thread
     * (and what callbacks left in its thread-local storage) from outliving
     * the caller's next steps. Else it ends on its own once the queue ran. */
    join = !stream->detached && sim_queue_idle(&stream->queue);
    if (!stream->detached && !join)
        pthread_detach(worker);
    stream->released = true;
    sim_queue_stop(&stream->queue, &sim_changed);
    pthread_mutex_unlock(&sim_lock);
    if (join)
        pthread_join(worker, NULL);
}

void sim_stream_release_locked(sim_stream_core_t *stream)
{
    stream->released = true;
    sim_queue_stop(&stream->queue, &sim_changed);
}
