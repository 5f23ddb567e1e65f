/* callback_emulator.c: host callbacks for runtimes without usable ones
 * (accel_backend_utils.h, "host-callback emulator"): markers on the stream,
 * one thread of ours that waits for each and runs the function, and an
 * optional host-opened gate the stream's later work waits for. */
#include <stdlib.h>

#include "accel/accel_backend_utils.h"

struct accel_callback_emulator_entry {
    int device;
    void *stream;
    accel_host_fn_t fn; /* NULL: only release what was placed (a failed add) */
    void *user_data;
    void *reached, *gate, *passed; /* gate and passed NULL without gate ops */
    uint64_t seq;
    struct accel_callback_emulator_entry *next;
};

void accel_callback_emulator_init(accel_callback_emulator_t *em,
                                  const accel_callback_emulator_ops_t *ops, void *ctx,
                                  const void *backend, const char *name)
{
    *em = (accel_callback_emulator_t){.ops = ops, .ctx = ctx, .backend = backend, .name = name};
    pthread_mutex_init(&em->lock, NULL);
    pthread_mutex_init(&em->add_lock, NULL);
    pthread_cond_init(&em->changed, NULL);
}

bool accel_callback_emulator_stopping(accel_callback_emulator_t *em)
{
    bool stopping;
    pthread_mutex_lock(&em->lock);
    stopping = em->stopping;
    pthread_mutex_unlock(&em->lock);
    return stopping;
}

/* On the emulator's thread, no lock held: wait, run, open, release. */
static void emulator_run(accel_callback_emulator_t *em, accel_callback_emulator_entry_t *e)
{
    const accel_callback_emulator_ops_t *ops = em->ops;
    accel_status_t status = ops->wait(em->ctx, e->device, e->reached);
    if (status != ACCEL_OK && e->fn != NULL)
        accel_log(ACCEL_LOG_WARN,
                  "%s: waiting for a stream to reach a host callback failed (%s); running the "
                  "callback anyway",
                  em->name, accel_last_error());
    if (e->fn != NULL) {
        accel_callback_thread_mark(em->backend, e->device, e->stream);
        e->fn(e->user_data);
        accel_callback_thread_clear();
    }
    ops->release(em->ctx, e->device, e->reached);
    if (e->gate == NULL)
        return;
    if (ops->open_gate(em->ctx, e->device, e->gate) != ACCEL_OK || e->passed == NULL) {
        /* The device may still read the gate: leave it to the runtime. */
        accel_log(ACCEL_LOG_WARN, "%s: a host callback's gate is left to the runtime", em->name);
        return;
    }
    if (ops->wait(em->ctx, e->device, e->passed) != ACCEL_OK)
        accel_log(ACCEL_LOG_WARN,
                  "%s: waiting for a stream to pass a host callback failed (%s); releasing its "
                  "gate anyway",
                  em->name, accel_last_error());
    ops->release_gate(em->ctx, e->device, e->gate);
    ops->release(em->ctx, e->device, e->passed);
}

static void *emulator_main(void *arg)
{
    accel_callback_emulator_t *em = arg;
    pthread_mutex_lock(&em->lock);
    for (;;) {
        accel_callback_emulator_entry_t *e;
        while (em->head == NULL && !em->stopping)
            pthread_cond_wait(&em->changed, &em->lock);
        if ((e = em->head) == NULL)
            break;
        em->head = e->next;
        if (em->head == NULL)
            em->tail = NULL;
        em->running = e;
        pthread_mutex_unlock(&em->lock);
        emulator_run(em, e);
        pthread_mutex_lock(&em->lock);
        em->running = NULL;
        em->returned = e->seq;
        free(e);
        pthread_cond_broadcast(&em->changed);
    }
    pthread_mutex_unlock(&em->lock);
    return NULL;
}

/* Under add_lock: the thread, started if it is not running. */
static accel_status_t emulator_start(accel_callback_emulator_t *em)
{
    int error = 0;
    pthread_mutex_lock(&em->lock);
    if (!em->started) {
        error = accel_thread_start(&em->thread, NULL, emulator_main, em);
        em->started = error == 0;
    }
    pthread_mutex_unlock(&em->lock);
    if (error != 0)
        return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                                   "%s: cannot start the host-callback thread (error %d)", em->name,
                                   error);
    return ACCEL_OK;
}

/* Under add_lock: place the markers and the gate in stream order. A failure
 * after `reached` keeps the entry (fn NULL) so that the thread releases it. */
static accel_status_t emulator_place(accel_callback_emulator_t *em,
                                     accel_callback_emulator_entry_t *e, bool *queue)
{
    const accel_callback_emulator_ops_t *ops = em->ops;
    accel_status_t status = ops->record(em->ctx, e->device, e->stream, &e->reached);
    *queue = status == ACCEL_OK;
    if (status != ACCEL_OK || ops->gate == NULL)
        return status;
    status = ops->gate(em->ctx, e->device, e->stream, &e->gate);
    if (status != ACCEL_OK) {
        e->gate = NULL;
        e->fn = NULL; /* the stream does not wait for it: never run it */
        return status;
    }
    if (ops->record(em->ctx, e->device, e->stream, &e->passed) != ACCEL_OK)
        e->passed = NULL; /* runs, but the gate is then left to the runtime */
    return ACCEL_OK;
}

accel_status_t accel_callback_emulator_add(accel_callback_emulator_t *em, int device, void *stream,
                                           accel_host_fn_t fn, void *user_data)
{
    accel_callback_emulator_entry_t *e;
    accel_status_t status;
    bool queue = false;
    if (em == NULL)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "no host-callback emulator given (NULL)");
    if (fn == NULL)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "%s: a host callback's function is NULL", em->name);
    e = calloc(1, sizeof *e);
    if (e == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "%s: out of host memory for a host callback", em->name);
    *e = (accel_callback_emulator_entry_t){
        .device = device, .stream = stream, .fn = fn, .user_data = user_data};
    pthread_mutex_lock(&em->add_lock);
    status = emulator_start(em);
    if (status == ACCEL_OK)
        status = emulator_place(em, e, &queue);
    if (queue) {
        pthread_mutex_lock(&em->lock);
        e->seq = ++em->added;
        if (em->tail != NULL)
            em->tail->next = e;
        else
            em->head = e;
        em->tail = e;
        pthread_cond_broadcast(&em->changed);
        pthread_mutex_unlock(&em->lock);
    }
    pthread_mutex_unlock(&em->add_lock);
    if (!queue)
        free(e);
    return status;
}

static bool emulator_matches(const accel_callback_emulator_entry_t *e, int device,
                             const void *stream, bool every_stream)
{
    return e->fn != NULL && e->device == device && (every_stream || e->stream == stream);
}

uint64_t accel_callback_emulator_last(accel_callback_emulator_t *em, int device, const void *stream,
                                      bool every_stream)
{
    uint64_t last = 0;
    pthread_mutex_lock(&em->lock);
    if (em->running != NULL && emulator_matches(em->running, device, stream, every_stream))
        last = em->running->seq;
    for (accel_callback_emulator_entry_t *e = em->head; e != NULL; e = e->next)
        if (emulator_matches(e, device, stream, every_stream))
            last = e->seq;
    pthread_mutex_unlock(&em->lock);
    return last;
}

bool accel_callback_emulator_reached(accel_callback_emulator_t *em, uint64_t ticket, bool wait)
{
    bool reached;
    pthread_mutex_lock(&em->lock);
    while (wait && em->returned < ticket)
        pthread_cond_wait(&em->changed, &em->lock);
    reached = em->returned >= ticket;
    pthread_mutex_unlock(&em->lock);
    return reached;
}

void accel_callback_emulator_fini(accel_callback_emulator_t *em, bool forked)
{
    bool started;
    if (forked) {
        /* The parent's thread is gone and its locks may be held: free the
         * queued entries only, touching no lock and no op. */
        while (em->head != NULL) {
            accel_callback_emulator_entry_t *next = em->head->next;
            free(em->head);
            em->head = next;
        }
        return;
    }
    pthread_mutex_lock(&em->lock);
    em->stopping = true;
    started = em->started;
    em->started = false;
    pthread_cond_broadcast(&em->changed);
    pthread_mutex_unlock(&em->lock);
    if (started)
        pthread_join(em->thread, NULL);
    while (em->head != NULL) {
        accel_callback_emulator_entry_t *next = em->head->next;
        free(em->head);
        em->head = next;
    }
    em->tail = NULL;
    pthread_cond_destroy(&em->changed);
    pthread_mutex_destroy(&em->add_lock);
    pthread_mutex_destroy(&em->lock);
}
