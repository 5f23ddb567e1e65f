/* callback_thread.c: the calling thread's host-callback mark and the
 * self-wait refusal built on it (accel_backend_utils.h, "host-callback
 * threads"). One thread-local record per thread, no locks. */
#include "accel/accel_backend_utils.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

typedef struct callback_thread_mark {
    const void *backend; /* NULL: the thread runs no host callback */
    const void *stream;
    int device;
} callback_thread_mark_t;

static _Thread_local callback_thread_mark_t callback_thread_self;

void accel_callback_thread_mark(const void *backend, int device, const void *stream)
{
    callback_thread_self =
        (callback_thread_mark_t){.backend = backend, .stream = stream, .device = device};
}

void accel_callback_thread_clear(void)
{
    callback_thread_self = (callback_thread_mark_t){.backend = NULL};
}

bool accel_callback_thread_of(const void *backend, int device, const void **out_stream)
{
    if (backend == NULL || callback_thread_self.backend != backend)
        return false;
    if (device != ACCEL_CALLBACK_ANY_DEVICE && callback_thread_self.device != device)
        return false;
    if (out_stream != NULL)
        *out_stream = callback_thread_self.stream;
    return true;
}

static accel_status_t callback_self_wait_error(const char *what)
{
    return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "a host callback cannot %s: work queued after the callback waits "
                               "for it to return, so the call would wait for itself; make the "
                               "call from another thread",
                               what);
}

accel_status_t accel_callback_refuse_stream_wait(const void *backend, int device,
                                                 const void *stream, const char *what)
{
    const void *own = NULL;
    if (accel_callback_thread_of(backend, device, &own) && own == stream)
        return callback_self_wait_error(what);
    return ACCEL_OK;
}

accel_status_t accel_callback_refuse_device_wait(const void *backend, int device, const char *what)
{
    if (accel_callback_thread_of(backend, device, NULL))
        return callback_self_wait_error(what);
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- call records */

struct accel_callback_call {
    const void *backend;
    const void *stream;
    int device;
    bool replayed;
    accel_host_fn_t fn;
    void *user_data;
    struct accel_callback_call *next; /* replayed ones, under callback_calls_lock */
};

static pthread_mutex_t callback_calls_lock = PTHREAD_MUTEX_INITIALIZER;
static accel_callback_call_t *callback_calls_replayed;

accel_status_t accel_callback_call_new(const void *backend, int device, const void *stream,
                                       accel_host_fn_t fn, void *user_data, bool replayed,
                                       accel_callback_call_t **out)
{
    accel_callback_call_t *call;
    if (fn == NULL || out == NULL)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "a host callback record needs a function and an output: %s "
                                   "is NULL",
                                   fn == NULL ? "the function" : "the output");
    call = malloc(sizeof *call);
    if (call == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "out of host memory for a host callback");
    *call = (accel_callback_call_t){.backend = backend,
                                    .stream = stream,
                                    .device = device,
                                    .replayed = replayed,
                                    .fn = fn,
                                    .user_data = user_data};
    if (replayed) {
        pthread_mutex_lock(&callback_calls_lock);
        call->next = callback_calls_replayed;
        callback_calls_replayed = call;
        pthread_mutex_unlock(&callback_calls_lock);
    }
    *out = call;
    return ACCEL_OK;
}

void accel_callback_call_run(void *arg)
{
    accel_callback_call_t *call = arg;
    accel_callback_thread_mark(call->backend, call->device, call->stream);
    call->fn(call->user_data);
    accel_callback_thread_clear();
    if (!call->replayed)
        free(call);
}

void accel_callback_call_free(accel_callback_call_t *call)
{
    if (call == NULL)
        return;
    if (call->replayed) {
        pthread_mutex_lock(&callback_calls_lock);
        for (accel_callback_call_t **link = &callback_calls_replayed; *link != NULL;
             link = &(*link)->next)
            if (*link == call) {
                *link = call->next;
                break;
            }
        pthread_mutex_unlock(&callback_calls_lock);
    }
    free(call);
}

void accel_callback_calls_release(const void *backend)
{
    accel_callback_call_t *mine = NULL;
    pthread_mutex_lock(&callback_calls_lock);
    for (accel_callback_call_t **link = &callback_calls_replayed; *link != NULL;) {
        accel_callback_call_t *call = *link;
        if (call->backend == backend) {
            *link = call->next;
            call->next = mine;
            mine = call;
        } else {
            link = &call->next;
        }
    }
    pthread_mutex_unlock(&callback_calls_lock);
    while (mine != NULL) {
        accel_callback_call_t *next = mine->next;
        free(mine);
        mine = next;
    }
}
