/* stream_worker.c: the calling thread's stream-worker mark (see
 * stream_worker.h). One thread-local record per thread, no locks. */
#include "stream_worker.h"

#include <stddef.h>

typedef struct stream_worker_mark {
    const void *backend;
    const void *stream;
    int device;
} stream_worker_mark_t;

static _Thread_local stream_worker_mark_t stream_worker_self;

void accel_stream_worker_enter(const void *backend, int device, const void *stream)
{
    stream_worker_self =
        (stream_worker_mark_t){.backend = backend, .stream = stream, .device = device};
}

bool accel_stream_worker_of(const void *backend, int device, const void **out_stream)
{
    if (backend == NULL || stream_worker_self.backend != backend ||
        stream_worker_self.device != device)
        return false;
    if (out_stream != NULL)
        *out_stream = stream_worker_self.stream;
    return true;
}
