/* test_callback_reentry.c: a host callback that makes a blocking public
 * call. Work queued on a stream after a host callback waits for the
 * callback, so a call that waits for that work waits for itself. Each case
 * queues a callback on a created stream (and, where the case needs it, work
 * after the callback), and the callback makes one blocking call: it must
 * either work or be refused with a named status and a sentence, and the
 * stream must run its later work afterwards. A call that has not returned
 * after ADV_REENTRY_TIMEOUT_S hangs: the case fails and the run ends (the
 * stream is stuck for good, so nothing after it could be trusted).
 * src/selftest/checks/test_callbacks.c holds the four calls that must be
 * refused (synchronize, stream synchronize and destroy, empty_cache); they
 * are repeated here so this suite counts every blocking call. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <accel/accel_comm.h>

#include "adversarial.h"

/* How long a call from a callback may take; far above what any needs. */
#define ADV_REENTRY_TIMEOUT_S 20
#define ADV_REENTRY_BYTES     (256u * 1024u)

typedef struct reentry reentry_t;

/* One case: `prepare` makes what the call needs (false: not on this
 * backend, skipped), `call` runs on the callback's thread, `queue_after`
 * queues work on the stream after the callback, `finish` checks and frees
 * once the stream is idle (`status` is what the call returned). */
typedef struct reentry_case {
    const char *name;
    bool (*prepare)(reentry_t *r);
    accel_status_t (*call)(reentry_t *r);
    void (*queue_after)(reentry_t *r);
    void (*finish)(reentry_t *r, accel_status_t status);
} reentry_case_t;

/* What a case works on. The main thread owns it; the callback's thread
 * reads it while the call runs and hands back its result under `lock`. */
struct reentry {
    accel_t *acc; /* adv_acc, or a second accel_t the case closes */
    int device;
    accel_stream_t *stream;
    accel_event_t *event;
    accel_graph_t *graph;
    accel_comm_t *comm;
    const accel_aio_op_t *aio;
    accel_aio_handle_t *aio_handle;
    char aio_path[64];
    void *device_buffer;
    void *host_buffer; /* pageable (malloc) or pinned, as the case says */
    bool closed;       /* the call closed r->acc */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    const reentry_case_t *which;
    bool queued; /* the work after the callback is queued: the call may run */
    bool returned;
    accel_status_t status;
    char error[512];
};

static void reentry_callback(void *arg)
{
    reentry_t *r = arg;
    accel_status_t status;
    pthread_mutex_lock(&r->lock);
    while (!r->queued)
        pthread_cond_wait(&r->cond, &r->lock);
    pthread_mutex_unlock(&r->lock);
    status = r->which->call(r);
    pthread_mutex_lock(&r->lock);
    r->status = status;
    snprintf(r->error, sizeof r->error, "%s", accel_last_error());
    r->returned = true;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
}

static void reentry_flag(void *arg)
{
    atomic_store((atomic_int *)arg, 1);
}

/* Wait until `done` (under r->lock for the probe, atomically for a flag)
 * or the timeout; a hang ends the run. */
static void reentry_wait(reentry_t *r, atomic_int *flag, const char *what)
{
    struct timespec deadline;
    bool done = false;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += ADV_REENTRY_TIMEOUT_S;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        done = flag != NULL ? atomic_load(flag) != 0 : r->returned;
        if (done)
            break;
        if (flag != NULL) {
            struct timespec now, nap = {0, 2000000};
            pthread_mutex_unlock(&r->lock);
            nanosleep(&nap, NULL);
            pthread_mutex_lock(&r->lock);
            clock_gettime(CLOCK_REALTIME, &now);
            if (now.tv_sec > deadline.tv_sec)
                break;
        } else if (pthread_cond_timedwait(&r->cond, &r->lock, &deadline) != 0) {
            done = r->returned;
            break;
        }
    }
    pthread_mutex_unlock(&r->lock);
    if (!done) {
        fprintf(stderr,
                "[ CASE FAILED ] callback re-entry: %s (%s) did not return within %d s: it waits "
                "for itself\n",
                r->which->name, what, ADV_REENTRY_TIMEOUT_S);
        printf("adversarial on %s: %u cases, %u failed (ended by a hang)\n", accel_name(adv_acc),
               adv_cases + 1, adv_failed + 1);
        fflush(NULL);
        _exit(1);
    }
}

/* ---------------------------------------------------------------- the calls */

static accel_status_t call_synchronize(reentry_t *r)
{
    return accel_synchronize(r->acc, r->device);
}

static accel_status_t call_stream_synchronize(reentry_t *r)
{
    return accel_stream_synchronize(r->stream);
}

static accel_status_t call_stream_destroy(reentry_t *r)
{
    return accel_stream_destroy(r->stream);
}

static accel_status_t call_empty_cache(reentry_t *r)
{
    return accel_empty_cache(r->acc);
}

static bool prepare_event(reentry_t *r)
{
    assert_int_equal(accel_event_create(r->acc, r->device, ACCEL_EVENT_DEFAULT, &r->event),
                     ACCEL_OK);
    return true;
}

/* The event is recorded on the stream after the callback. */
static void queue_record(reentry_t *r)
{
    assert_int_equal(accel_event_record(r->event, r->stream), ACCEL_OK);
}

static accel_status_t call_event_synchronize(reentry_t *r)
{
    return accel_event_synchronize(r->event);
}

static accel_status_t call_event_destroy(reentry_t *r)
{
    accel_status_t status = accel_event_destroy(r->event);
    if (status == ACCEL_OK)
        r->event = NULL;
    return status;
}

static void finish_event(reentry_t *r, accel_status_t status)
{
    (void)status;
    if (r->event != NULL) {
        assert_int_equal(accel_event_synchronize(r->event), ACCEL_OK);
        assert_int_equal(accel_event_destroy(r->event), ACCEL_OK);
    }
}

/* A device buffer and a pageable host buffer, both filled with 0x5a. */
static bool prepare_buffers(reentry_t *r)
{
    assert_int_equal(accel_malloc(r->acc, ADV_REENTRY_BYTES, &r->device_buffer), ACCEL_OK);
    r->host_buffer = malloc(ADV_REENTRY_BYTES);
    assert_non_null(r->host_buffer);
    memset(r->host_buffer, 0x5a, ADV_REENTRY_BYTES);
    assert_int_equal(accel_memset(r->acc, r->device_buffer, 0x5a, ADV_REENTRY_BYTES), ACCEL_OK);
    return true;
}

/* When the call worked, the device buffer holds `value` (read back here). */
static void finish_buffers_holding(reentry_t *r, accel_status_t status, int value)
{
    if (status == ACCEL_OK) {
        uint8_t *back = malloc(ADV_REENTRY_BYTES);
        assert_non_null(back);
        assert_int_equal(accel_memcpy(r->acc, back, r->device_buffer, ADV_REENTRY_BYTES,
                                      ACCEL_COPY_DEVICE_TO_HOST),
                         ACCEL_OK);
        for (size_t i = 0; i < ADV_REENTRY_BYTES; i++)
            if (back[i] != (uint8_t)value) {
                adv_case(false, "callback re-entry: %s worked but byte %zu is 0x%02x, not 0x%02x",
                         r->which->name, i, back[i], value);
                break;
            }
        free(back);
    }
    if (r->device_buffer != NULL)
        assert_int_equal(accel_free(r->acc, r->device_buffer), ACCEL_OK);
    free(r->host_buffer);
}

static accel_status_t call_memcpy_to_device(reentry_t *r)
{
    memset(r->host_buffer, 0x21, ADV_REENTRY_BYTES);
    return accel_memcpy(r->acc, r->device_buffer, r->host_buffer, ADV_REENTRY_BYTES,
                        ACCEL_COPY_HOST_TO_DEVICE);
}

static void finish_memcpy_to_device(reentry_t *r, accel_status_t status)
{
    finish_buffers_holding(r, status, 0x21);
}

static accel_status_t call_memcpy_to_host(reentry_t *r)
{
    memset(r->host_buffer, 0, ADV_REENTRY_BYTES);
    return accel_memcpy(r->acc, r->host_buffer, r->device_buffer, ADV_REENTRY_BYTES,
                        ACCEL_COPY_DEVICE_TO_HOST);
}

/* When the copy worked, the host buffer holds the device's bytes. */
static void finish_memcpy_to_host(reentry_t *r, accel_status_t status)
{
    if (status == ACCEL_OK && ((uint8_t *)r->host_buffer)[ADV_REENTRY_BYTES - 1] != 0x5a)
        adv_case(false, "callback re-entry: %s worked but the copy did not land", r->which->name);
    finish_buffers_holding(r, status, 0x5a);
}

static accel_status_t call_memset(reentry_t *r)
{
    return accel_memset(r->acc, r->device_buffer, 0x33, ADV_REENTRY_BYTES);
}

static void finish_memset(reentry_t *r, accel_status_t status)
{
    finish_buffers_holding(r, status, 0x33);
}

/* A copy to pageable memory on the callback's own stream: backends that
 * stage it drain the stream inside the call. */
static accel_status_t call_memcpy_async_to_pageable(reentry_t *r)
{
    return accel_memcpy_async(r->acc, r->host_buffer, r->device_buffer, ADV_REENTRY_BYTES,
                              ACCEL_COPY_DEVICE_TO_HOST, r->stream);
}

static void finish_memcpy_async_to_pageable(reentry_t *r, accel_status_t status)
{
    if (status == ACCEL_OK && ((uint8_t *)r->host_buffer)[0] != 0x5a)
        adv_case(false, "callback re-entry: %s worked but the copy did not land", r->which->name);
    finish_buffers_holding(r, status, 0x5a);
}

static accel_status_t call_free(reentry_t *r)
{
    accel_status_t status = accel_free(r->acc, r->device_buffer);
    if (status == ACCEL_OK)
        r->device_buffer = NULL;
    return status;
}

static void finish_free(reentry_t *r, accel_status_t status)
{
    (void)status;
    if (r->device_buffer != NULL)
        assert_int_equal(accel_free(r->acc, r->device_buffer), ACCEL_OK);
    free(r->host_buffer);
}

/* Pinned memory that a copy queued after the callback writes into: freed
 * from the callback, it must stay alive until that copy is done (ASan
 * sees the copy write into freed memory otherwise). */
static bool prepare_pinned(reentry_t *r)
{
    assert_int_equal(accel_malloc(r->acc, ADV_REENTRY_BYTES, &r->device_buffer), ACCEL_OK);
    assert_int_equal(accel_memset(r->acc, r->device_buffer, 0x5a, ADV_REENTRY_BYTES), ACCEL_OK);
    assert_int_equal(accel_host_alloc(r->acc, ADV_REENTRY_BYTES, &r->host_buffer), ACCEL_OK);
    return true;
}

static void queue_copy_to_pinned(reentry_t *r)
{
    assert_int_equal(accel_memcpy_async(r->acc, r->host_buffer, r->device_buffer, ADV_REENTRY_BYTES,
                                        ACCEL_COPY_DEVICE_TO_HOST, r->stream),
                     ACCEL_OK);
}

static accel_status_t call_host_free(reentry_t *r)
{
    accel_status_t status = accel_host_free(r->acc, r->host_buffer);
    if (status == ACCEL_OK)
        r->host_buffer = NULL;
    return status;
}

static void finish_pinned(reentry_t *r, accel_status_t status)
{
    (void)status;
    if (r->host_buffer != NULL)
        assert_int_equal(accel_host_free(r->acc, r->host_buffer), ACCEL_OK);
    assert_int_equal(accel_free(r->acc, r->device_buffer), ACCEL_OK);
}

/* A graph holding memory its capture allocated and freed (its private
 * pool), captured on a second stream of the device: its destroy releases
 * that memory, which synchronizes the device. */
static bool prepare_graph(reentry_t *r)
{
    accel_stream_t *capture = NULL;
    void *block = NULL;
    if (accel_graph_create(r->acc, &r->graph) != ACCEL_OK) {
        print_message("[  SKIP    ] callback re-entry: no graphs on %s: %s\n", accel_name(r->acc),
                      accel_last_error());
        return false;
    }
    assert_int_equal(accel_stream_create(r->acc, r->device, 0, &capture), ACCEL_OK);
    assert_int_equal(accel_graph_capture_begin(r->graph, capture), ACCEL_OK);
    assert_int_equal(accel_malloc_async(r->acc, ADV_REENTRY_BYTES, capture, &block), ACCEL_OK);
    assert_int_equal(accel_memset_async(r->acc, block, 0x11, ADV_REENTRY_BYTES, capture), ACCEL_OK);
    assert_int_equal(accel_graph_capture_end(r->graph, capture), ACCEL_OK);
    assert_int_equal(accel_free(r->acc, block), ACCEL_OK);
    assert_int_equal(accel_graph_replay(r->graph, capture), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(capture), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(capture), ACCEL_OK);
    return true;
}

static accel_status_t call_graph_destroy(reentry_t *r)
{
    accel_status_t status = accel_graph_destroy(r->graph);
    if (status == ACCEL_OK)
        r->graph = NULL;
    return status;
}

static void finish_graph(reentry_t *r, accel_status_t status)
{
    (void)status;
    if (r->graph != NULL)
        assert_int_equal(accel_graph_destroy(r->graph), ACCEL_OK);
}

/* A second accel_t of the same backend, whose stream runs the callback
 * that closes it. */
static bool prepare_second(reentry_t *r)
{
    assert_int_equal(accel_open(accel_name(adv_acc), &r->acc), ACCEL_OK);
    return true;
}

static accel_status_t call_close(reentry_t *r)
{
    accel_status_t status = accel_close(r->acc);
    if (status == ACCEL_OK)
        r->closed = true;
    return status;
}

/* A one-rank communicator on MPI (host-memory backends: the engine that
 * waits for the stream on the calling thread). */
static bool prepare_comm(reentry_t *r)
{
    accel_comm_options_t options = {.struct_size = sizeof options, .engine = "mpi"};
    if (!adv_device_is_host() || getenv("ACCEL_ADVERSARIAL_NO_MPI") != NULL) {
        print_message("[  SKIP    ] callback re-entry: no MPI engine for %s\n", accel_name(r->acc));
        return false;
    }
    if (accel_comm_init(r->acc, &options, &r->comm) != ACCEL_OK) {
        print_message("[  SKIP    ] callback re-entry: no one-rank communicator: %s\n",
                      accel_last_error());
        return false;
    }
    return prepare_buffers(r);
}

static accel_status_t call_all_reduce(reentry_t *r)
{
    return accel_all_reduce(r->comm, r->device_buffer, r->device_buffer, 16, ACCEL_DTYPE_F32,
                            ACCEL_REDUCE_SUM, r->stream);
}

static accel_status_t call_barrier(reentry_t *r)
{
    return accel_barrier(r->comm, r->stream);
}

static void finish_comm(reentry_t *r, accel_status_t status)
{
    finish_buffers_holding(r, status, 0x5a);
    assert_int_equal(accel_comm_destroy(r->comm), ACCEL_OK);
}

/* An AsyncIO handle with an asynchronous write of the device buffer
 * queued; the callback waits for it. */
static bool prepare_aio(reentry_t *r)
{
    DLTensor tensor;
    int64_t shape[1] = {ADV_REENTRY_BYTES};
    r->aio = adv_load_op("AsyncIOBuilder");
    if (r->aio == NULL)
        return false;
    assert_int_equal(r->aio->handle_create(r->acc, NULL, &r->aio_handle), ACCEL_OK);
    snprintf(r->aio_path, sizeof r->aio_path, "adversarial-reentry-XXXXXX");
    int fd = mkstemp(r->aio_path);
    assert_true(fd >= 0);
    close(fd);
    prepare_buffers(r);
    tensor = (DLTensor){.data = r->device_buffer,
                        .device = {.device_type = adv_device_type(), .device_id = r->device},
                        .ndim = 1,
                        .dtype = {.code = kDLUInt, .bits = 8, .lanes = 1},
                        .shape = shape};
    assert_int_equal(r->aio->pwrite(r->aio_handle, &tensor, r->aio_path, 0, true), ACCEL_OK);
    return true;
}

static accel_status_t call_aio_wait(reentry_t *r)
{
    return r->aio->wait(r->aio_handle, NULL);
}

/* A synchronous read of the file into the device buffer from the callback
 * (the handle's device copies). */
static accel_status_t call_aio_pread_device(reentry_t *r)
{
    int64_t shape[1] = {ADV_REENTRY_BYTES};
    DLTensor tensor = {.data = r->device_buffer,
                       .device = {.device_type = adv_device_type(), .device_id = r->device},
                       .ndim = 1,
                       .dtype = {.code = kDLUInt, .bits = 8, .lanes = 1},
                       .shape = shape};
    return r->aio->pread(r->aio_handle, &tensor, r->aio_path, 0, false);
}

static void finish_aio(reentry_t *r, accel_status_t status)
{
    (void)status;
    assert_int_equal(r->aio->wait(r->aio_handle, NULL), ACCEL_OK);
    r->aio->handle_destroy(r->aio_handle);
    unlink(r->aio_path);
    finish_buffers_holding(r, ACCEL_OK, 0x5a);
}

static const reentry_case_t reentry_cases[] = {
    {"accel_synchronize(its device)", NULL, call_synchronize, NULL, NULL},
    {"accel_stream_synchronize(its stream)", NULL, call_stream_synchronize, NULL, NULL},
    {"accel_stream_destroy(its stream)", NULL, call_stream_destroy, NULL, NULL},
    {"accel_empty_cache", NULL, call_empty_cache, NULL, NULL},
    {"accel_event_synchronize(an event recorded after it)", prepare_event, call_event_synchronize,
     queue_record, finish_event},
    {"accel_event_destroy(an event recorded after it)", prepare_event, call_event_destroy,
     queue_record, finish_event},
    {"accel_memcpy(host to its device)", prepare_buffers, call_memcpy_to_device, NULL,
     finish_memcpy_to_device},
    {"accel_memcpy(its device to host)", prepare_buffers, call_memcpy_to_host, NULL,
     finish_memcpy_to_host},
    {"accel_memset(its device)", prepare_buffers, call_memset, NULL, finish_memset},
    {"accel_memcpy_async(to pageable memory, its stream)", prepare_buffers,
     call_memcpy_async_to_pageable, NULL, finish_memcpy_async_to_pageable},
    {"accel_free(its device's memory)", prepare_buffers, call_free, NULL, finish_free},
    {"accel_host_free(pinned memory a later copy on its stream uses)", prepare_pinned,
     call_host_free, queue_copy_to_pinned, finish_pinned},
    {"accel_graph_destroy(a graph holding its device's memory)", prepare_graph, call_graph_destroy,
     NULL, finish_graph},
    {"accel_close(its own accel_t)", prepare_second, call_close, NULL, NULL},
    {"accel_all_reduce(one rank, its stream)", prepare_comm, call_all_reduce, NULL, finish_comm},
    {"accel_barrier(one rank, its stream)", prepare_comm, call_barrier, NULL, finish_comm},
    {"AsyncIO wait()", prepare_aio, call_aio_wait, NULL, finish_aio},
    {"AsyncIO pread(a device tensor)", prepare_aio, call_aio_pread_device, NULL, finish_aio},
};

/* One case: the call from a callback returns (worked, or refused with a
 * named status and a sentence), and the stream runs its later work. */
static void reentry_run(const reentry_case_t *c)
{
    reentry_t r = {.acc = adv_acc, .which = c};
    atomic_int later;
    atomic_init(&later, 0);
    assert_int_equal(accel_current_device(adv_acc, &r.device), ACCEL_OK);
    pthread_mutex_init(&r.lock, NULL);
    pthread_cond_init(&r.cond, NULL);
    if (c->prepare != NULL && !c->prepare(&r))
        goto out;
    assert_int_equal(accel_stream_create(r.acc, r.device, 0, &r.stream), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(r.stream, reentry_callback, &r), ACCEL_OK);
    if (c->queue_after != NULL)
        c->queue_after(&r);
    pthread_mutex_lock(&r.lock);
    r.queued = true;
    pthread_cond_broadcast(&r.cond);
    pthread_mutex_unlock(&r.lock);
    reentry_wait(&r, NULL, "the call");
    print_message("callback re-entry on %s: %s: %s\n", accel_name(adv_acc), c->name,
                  r.status == ACCEL_OK ? "works" : accel_status_name(r.status));
    if (r.status == ACCEL_OK)
        adv_case(true, "%s", c->name);
    else
        adv_case(
            (r.status == ACCEL_ERROR_INVALID_ARGUMENT || r.status == ACCEL_ERROR_UNSUPPORTED) &&
                r.error[0] != '\0',
            "callback re-entry: %s returned %s, expected ACCEL_OK or a refusal "
            "(INVALID_ARGUMENT, UNSUPPORTED) with a sentence (last error: \"%s\")",
            c->name, accel_status_name(r.status), r.error);
    if (r.closed)
        goto out; /* the stream went with its accel_t */
    /* The stream goes on: later work runs. */
    assert_int_equal(accel_stream_add_callback(r.stream, reentry_flag, &later), ACCEL_OK);
    reentry_wait(&r, &later, "the stream's later work");
    assert_int_equal(accel_stream_synchronize(r.stream), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(r.stream), ACCEL_OK);
    if (c->finish != NULL)
        c->finish(&r, r.status);
    if (r.acc != adv_acc)
        assert_int_equal(accel_close(r.acc), ACCEL_OK);
out:
    pthread_cond_destroy(&r.cond);
    pthread_mutex_destroy(&r.lock);
}

static void test_callback_reentry(void **state)
{
    (void)state;
    bool callbacks = false;
    const char *only = getenv("ACCEL_ADVERSARIAL_CASE");
    if (accel_query_flag(adv_acc, ACCEL_FLAG_HOST_CALLBACKS_SUPPORTED, &callbacks) != ACCEL_OK ||
        !callbacks) {
        print_message("[  SKIP    ] callback re-entry: %s has no host callbacks\n",
                      accel_name(adv_acc));
        return;
    }
    for (size_t i = 0; i < sizeof reentry_cases / sizeof reentry_cases[0]; i++)
        if (only == NULL || strstr(reentry_cases[i].name, only) != NULL)
            reentry_run(&reentry_cases[i]);
}

int adv_run_callback_tests(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_callback_reentry)};
    return cmocka_run_group_tests_name("adversarial callback re-entry", tests, NULL, NULL);
}
