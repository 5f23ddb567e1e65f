/* test_callbacks.c: conformance tests of the self-wait rule. Work queued on a
 * stream after a host callback waits for the callback, so a callback that
 * waits for its own stream, its device or every device would wait for
 * itself. Every backend refuses such a call with INVALID_ARGUMENT, and the
 * stream goes on. A backend that hangs instead fails here after a timeout
 * (the process exits: the stream is stuck for good). */
#include "conformance.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include <time.h>

/* How long a refused call may take; far above what any backend needs. */
#define CALLBACKS_TIMEOUT_S 20

typedef enum callbacks_call {
    CALLBACKS_SYNCHRONIZE_DEVICE,
    CALLBACKS_SYNCHRONIZE_STREAM,
    CALLBACKS_DESTROY_STREAM,
    CALLBACKS_EMPTY_CACHE,
} callbacks_call_t;

static const char *const callbacks_call_names[] = {
    "accel_synchronize(its device)",
    "accel_stream_synchronize(its stream)",
    "accel_stream_destroy(its stream)",
    "accel_empty_cache",
};

/* What the callback did, handed from the callback's thread under `lock`. */
typedef struct callbacks_probe {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    callbacks_call_t call;
    accel_stream_t *stream;
    int device;
    bool returned;
    accel_status_t status;
    char error[512];
} callbacks_probe_t;

static void callbacks_probe_fn(void *arg)
{
    callbacks_probe_t *probe = arg;
    accel_status_t status = ACCEL_OK;
    switch (probe->call) {
    case CALLBACKS_SYNCHRONIZE_DEVICE:
        status = accel_synchronize(conformance_acc, probe->device);
        break;
    case CALLBACKS_SYNCHRONIZE_STREAM: status = accel_stream_synchronize(probe->stream); break;
    case CALLBACKS_DESTROY_STREAM: status = accel_stream_destroy(probe->stream); break;
    case CALLBACKS_EMPTY_CACHE: status = accel_empty_cache(conformance_acc); break;
    }
    pthread_mutex_lock(&probe->lock);
    probe->status = status;
    snprintf(probe->error, sizeof probe->error, "%s", accel_last_error());
    probe->returned = true;
    pthread_cond_broadcast(&probe->cond);
    pthread_mutex_unlock(&probe->lock);
}

static void callbacks_flag_fn(void *arg)
{
    atomic_store((atomic_int *)arg, 1);
}

/* Wait for the callback's call to return; a call that has not returned
 * after the timeout waits for itself: say so and end the run. */
static void callbacks_wait_returned(callbacks_probe_t *probe)
{
    struct timespec deadline;
    int rc = 0;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += CALLBACKS_TIMEOUT_S;
    pthread_mutex_lock(&probe->lock);
    while (!probe->returned && rc == 0)
        rc = pthread_cond_timedwait(&probe->cond, &probe->lock, &deadline);
    pthread_mutex_unlock(&probe->lock);
    if (!probe->returned) {
        fprintf(stderr,
                "[  FAILED  ] %s from inside a host callback on its own stream did not return "
                "within %d s: the callback waits for itself\n",
                callbacks_call_names[probe->call], CALLBACKS_TIMEOUT_S);
        fflush(NULL);
        _exit(1);
    }
}

/* Queue a callback that makes `call` on a created stream, and check that
 * the call was refused and that the stream still works afterwards. */
static void callbacks_check_refused(callbacks_call_t call)
{
    callbacks_probe_t probe = {.call = call, .device = conf_current_device()};
    atomic_int later;
    atomic_init(&later, 0);
    conf_require_streams();
    conf_require_flag(ACCEL_FLAG_HOST_CALLBACKS_SUPPORTED, "host callbacks");
    pthread_mutex_init(&probe.lock, NULL);
    pthread_cond_init(&probe.cond, NULL);
    assert_ok(accel_stream_create(conformance_acc, probe.device, 0, &probe.stream));
    assert_ok(accel_stream_add_callback(probe.stream, callbacks_probe_fn, &probe));
    callbacks_wait_returned(&probe);
    if (probe.status != ACCEL_ERROR_INVALID_ARGUMENT)
        fail_msg("%s from inside a host callback on its own stream returned %s, expected "
                 "ACCEL_ERROR_INVALID_ARGUMENT (last error: \"%s\")",
                 callbacks_call_names[call], accel_status_name(probe.status), probe.error);
    if (probe.error[0] == '\0')
        fail_msg("%s was refused with an empty accel_last_error()", callbacks_call_names[call]);
    /* The refusal changed nothing: the stream is alive and runs later work. */
    assert_ok(accel_stream_add_callback(probe.stream, callbacks_flag_fn, &later));
    assert_ok(accel_stream_synchronize(probe.stream));
    assert_int_equal(atomic_load(&later), 1);
    assert_ok(accel_stream_destroy(probe.stream));
    pthread_cond_destroy(&probe.cond);
    pthread_mutex_destroy(&probe.lock);
}

void test_callbacks_synchronize_device_refused(void **state)
{
    (void)state;
    callbacks_check_refused(CALLBACKS_SYNCHRONIZE_DEVICE);
}

void test_callbacks_synchronize_own_stream_refused(void **state)
{
    (void)state;
    callbacks_check_refused(CALLBACKS_SYNCHRONIZE_STREAM);
}

void test_callbacks_destroy_own_stream_refused(void **state)
{
    (void)state;
    callbacks_check_refused(CALLBACKS_DESTROY_STREAM);
}

void test_callbacks_empty_cache_refused(void **state)
{
    (void)state;
    callbacks_check_refused(CALLBACKS_EMPTY_CACHE);
}
