/* stream.c: the npu backend's streams and host callbacks.
 * - A backend stream is an accel_npu_stream_t around an aclrtStream. NULL
 *   is the device's default stream, which is a created aclrtStream too
 *   (npu->defaults, made by the device's first accel_npu_activate), as
 *   torch_npu's default stream is (NPUStream.cpp: AclrtCreateStreamWithConfig
 *   for default_streamsi): HCCL refuses ACL's NULL stream (HCCL_E_PTR), and
 *   every default-stream operation then goes to the stream an engine gets
 *   from native_stream. aclrtSynchronizeDevice still waits for it. The
 *   priority argument is not passed on: aclrtCreateStream has none.
 * - Host callbacks, one mechanism per backend instance (the runtime docs
 *   forbid mixing the two on one stream): aclrtLaunchHostFunc where the
 *   runtime exports it (CANN 8.3.RC1+), run by the runtime itself; else
 *   aclrtLaunchCallback(BLOCK) with one report thread per device. A report
 *   thread serves one device only (ACL refuses its id on a second device,
 *   107012), sets that device first (CANN's callback sample and torch_npu's
 *   process_callback set the context before aclrtProcessReport), and is
 *   started by the device's first callback. If aclrtProcessReport keeps
 *   failing, the thread gives up: the device's streams with callbacks
 *   waiting fail with a sentence instead of hanging in a synchronize.
 *   Either way the thread running a callback is marked for it while it
 *   runs (accel_callback_thread_mark; the host-function path through a kit
 *   call record, accel_callback_call_run), so core refuses a wait for
 *   itself from inside it.
 * Threads: any thread; each slot makes its device current first. The
 * report threads' state, subscriptions and pending counts are under
 * report_lock; report_changed is broadcast when a callback ran or a report
 * thread gave up. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "accel/accel_backend_utils.h"
#include "backends/npu/npu_backend.h"

/* How long one aclrtProcessReport waits: bounds how long destroy() waits
 * for a report thread to notice it must stop. */
#define NPU_REPORT_TIMEOUT_MS 50
/* Hard aclrtProcessReport failures in a row before a report thread gives up
 * (each followed by a 10 ms pause: about a fifth of a second). */
#define NPU_REPORT_FAILURE_LIMIT 20

/* One callback launched through a report thread: what to run, and the
 * stream whose pending count it holds. Made by add_callback, freed by the
 * trampoline after the call, or by destroy() when its thread gave up. */
typedef struct accel_npu_callback {
    accel_npu_backend_t *npu;
    accel_npu_stream_t *stream;
    accel_host_fn_t fn;
    void *user_data;
    struct accel_npu_callback *prev, *next; /* in the device's report->calls */
} accel_npu_callback_t;

/* ---------------------------------------------------------------- default streams */

accel_status_t accel_npu_default_stream_make(accel_npu_backend_t *npu, int device,
                                             accel_acl_stream_t *out)
{
    accel_npu_stream_t *stream = &npu->defaults[device];
    accel_status_t status = ACCEL_OK;
    pthread_mutex_lock(&npu->defaults_lock);
    if (stream->handle == NULL) {
        accel_acl_stream_t handle = NULL;
        status = accel_npu_check(npu->acl, npu->acl->aclrtCreateStream(&handle),
                                 "aclrtCreateStream (the device's default stream)");
        if (status == ACCEL_OK)
            stream->handle = handle;
    }
    *out = stream->handle;
    pthread_mutex_unlock(&npu->defaults_lock);
    return status;
}

/* The backend stream for `stream` (NULL: the device's default stream). */
static accel_npu_stream_t *npu_stream(accel_npu_backend_t *npu, int device, void *stream)
{
    return stream != NULL ? stream : &npu->defaults[device];
}

/* The default stream's handle is written once, under defaults_lock, before
 * the first activation of its device returns on any thread; a thread that
 * activated the device has read it under that lock since. */
accel_status_t accel_npu_stream_handle(accel_npu_backend_t *npu, int device, void *stream,
                                       accel_acl_stream_t *out)
{
    accel_status_t status = accel_npu_activate(npu, device);
    if (status == ACCEL_OK)
        *out = npu_stream(npu, device, stream)->handle;
    return status;
}

/* Under report_lock: whether `stream` waits on a callback its device's
 * report thread will never run. */
static bool npu_stream_stuck(const accel_npu_backend_t *npu, const accel_npu_stream_t *stream)
{
    return stream->pending > 0 && npu->reports[stream->device].failed;
}

/* Synchronize and destroy one aclrtStream; a stream stuck behind a callback
 * that will never run is left to the runtime (said), since waiting for it
 * would never end. */
static void npu_stream_release(accel_npu_backend_t *npu, int device, accel_npu_stream_t *s)
{
    const accel_npu_api_t *acl = npu->acl;
    accel_acl_error_t code;
    bool stuck;
    pthread_mutex_lock(&npu->report_lock);
    stuck = npu_stream_stuck(npu, s);
    pthread_mutex_unlock(&npu->report_lock);
    if (stuck) {
        accel_log(ACCEL_LOG_WARN,
                  "npu: a stream of device %d is left undestroyed: it waits on a callback that "
                  "will not run (%s)",
                  device, npu->reports[device].failure);
        return;
    }
    code = acl->aclrtSynchronizeStream(s->handle);
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN,
                  "npu: aclrtSynchronizeStream before destroying a stream of "
                  "device %d failed with aclError %d",
                  device, code);
    pthread_mutex_lock(&npu->report_lock);
    if (s->subscribed) {
        code = acl->aclrtUnSubscribeReport((uint64_t)npu->reports[device].thread, s->handle);
        if (code != ACCEL_ACL_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "npu: aclrtUnSubscribeReport failed with aclError %d", code);
        s->subscribed = false;
    }
    pthread_mutex_unlock(&npu->report_lock);
    code = acl->aclrtDestroyStream(s->handle);
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtDestroyStream on device %d failed with aclError %d",
                  device, code);
}

void accel_npu_default_streams_release(accel_npu_backend_t *npu)
{
    for (int d = 0; d < npu->device_count; d++) {
        accel_npu_stream_t *s = &npu->defaults[d];
        if (s->handle == NULL || accel_npu_activate(npu, d) != ACCEL_OK)
            continue;
        npu_stream_release(npu, d, s);
        s->handle = NULL;
    }
}

/* ---------------------------------------------------------------- device and streams */

/* Before a wait on the report-thread path: returns once `stream` (NULL:
 * every stream of the device) has no callback pending, or fails with the
 * report thread's sentence when that thread gave up and one still is. */
static accel_status_t npu_callbacks_settled(accel_npu_backend_t *npu, int device,
                                            const accel_npu_stream_t *stream)
{
    accel_npu_report_t *report = &npu->reports[device];
    accel_status_t status = ACCEL_OK;
    if (npu->host_func)
        return ACCEL_OK;
    pthread_mutex_lock(&npu->report_lock);
    for (;;) {
        unsigned pending = stream != NULL ? stream->pending : report->pending;
        if (pending == 0)
            break;
        if (report->failed) {
            status = accel_backend_error(ACCEL_ERROR_DEVICE_ERROR, "%s", report->failure);
            break;
        }
        pthread_cond_wait(&npu->report_changed, &npu->report_lock);
    }
    pthread_mutex_unlock(&npu->report_lock);
    return status;
}

accel_status_t accel_npu_synchronize(void *self, int device)
{
    accel_npu_backend_t *npu = self;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status == ACCEL_OK)
        status = npu_callbacks_settled(npu, device, NULL);
    if (status == ACCEL_OK)
        status =
            accel_npu_check(npu->acl, npu->acl->aclrtSynchronizeDevice(), "aclrtSynchronizeDevice");
    if (status == ACCEL_OK)
        accel_npu_events_settled(npu, device);
    return status;
}

accel_status_t accel_npu_stream_create(void *self, int device, int priority, void **out)
{
    accel_npu_backend_t *npu = self;
    accel_npu_stream_t *stream;
    accel_status_t status;
    (void)priority;
    if ((status = accel_npu_activate(npu, device)) != ACCEL_OK)
        return status;
    stream = calloc(1, sizeof *stream);
    if (stream == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "npu: out of host memory for a stream");
    stream->device = device;
    status = accel_npu_check(npu->acl, npu->acl->aclrtCreateStream(&stream->handle),
                             "aclrtCreateStream");
    if (status != ACCEL_OK) {
        free(stream);
        return status;
    }
    *out = stream;
    return ACCEL_OK;
}

/* accel_stream_destroy waits for the stream's work: the stream is
 * synchronized, unsubscribed from its report thread, then destroyed. */
void accel_npu_stream_destroy(void *self, int device, void *stream)
{
    accel_npu_backend_t *npu = self;
    if (accel_npu_activate(npu, device) == ACCEL_OK)
        npu_stream_release(npu, device, stream);
    free(stream);
}

accel_status_t accel_npu_stream_synchronize(void *self, int device, void *stream)
{
    accel_npu_backend_t *npu = self;
    accel_acl_stream_t handle = NULL;
    accel_status_t status = accel_npu_stream_handle(npu, device, stream, &handle);
    if (status == ACCEL_OK)
        status = npu_callbacks_settled(npu, device, npu_stream(npu, device, stream));
    if (status != ACCEL_OK)
        return status;
    return accel_npu_check(npu->acl, npu->acl->aclrtSynchronizeStream(handle),
                           "aclrtSynchronizeStream");
}

accel_status_t accel_npu_stream_query(void *self, int device, void *stream)
{
    accel_npu_backend_t *npu = self;
    accel_acl_stream_status_t state = ACCEL_ACL_STREAM_STATUS_COMPLETE;
    accel_acl_stream_t handle = NULL;
    accel_status_t status = accel_npu_stream_handle(npu, device, stream, &handle);
    if (status == ACCEL_OK)
        status = accel_npu_check(npu->acl, npu->acl->aclrtStreamQuery(handle, &state),
                                 "aclrtStreamQuery");
    if (status != ACCEL_OK)
        return status;
    return state == ACCEL_ACL_STREAM_STATUS_COMPLETE ? ACCEL_OK : ACCEL_ERROR_NOT_READY;
}

/* ---------------------------------------------------------------- host callbacks */

static void npu_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* What a report thread runs for each callback: the caller's function with
 * the thread marked for the stream (the backend stream core knows: NULL for
 * the default one), then the pending counts drop and waiters are told. */
static void npu_callback_trampoline(void *arg)
{
    accel_npu_callback_t *call = arg;
    accel_npu_backend_t *npu = call->npu;
    int device = call->stream->device;
    accel_npu_report_t *report = &npu->reports[device];
    bool is_default = call->stream == &npu->defaults[device];
    accel_callback_thread_mark(npu, device, is_default ? NULL : call->stream);
    call->fn(call->user_data);
    accel_callback_thread_clear();
    pthread_mutex_lock(&npu->report_lock);
    call->stream->pending--;
    report->pending--;
    if (call->prev != NULL)
        call->prev->next = call->next;
    else
        report->calls = call->next;
    if (call->next != NULL)
        call->next->prev = call->prev;
    pthread_cond_broadcast(&npu->report_changed);
    pthread_mutex_unlock(&npu->report_lock);
    free(call);
}

/* A report thread's start: which backend and device it serves. */
typedef struct npu_report_start_arg {
    accel_npu_backend_t *npu;
    int device;
} npu_report_arg_t;

/* Under no lock: the report thread of `device` gives up with `sentence`;
 * synchronizes of streams with callbacks pending then fail with it. */
static void npu_report_fail(accel_npu_backend_t *npu, int device, const char *sentence)
{
    accel_npu_report_t *report = &npu->reports[device];
    accel_log(ACCEL_LOG_ERROR, "%s", sentence);
    pthread_mutex_lock(&npu->report_lock);
    snprintf(report->failure, sizeof report->failure, "%s", sentence);
    report->failed = true;
    pthread_cond_broadcast(&npu->report_changed);
    pthread_mutex_unlock(&npu->report_lock);
}

/* A report thread: sets its device, then runs the device's callbacks until
 * destroy() asks it to stop. The timeout (507012; 100036 in older
 * runtimes) is the idle case. Before the first subscription, and after the
 * last stream went, ACL answers 107012 (older: 100035): waited out briefly.
 * Any other code is a hard failure: after NPU_REPORT_FAILURE_LIMIT in a row
 * the thread gives up rather than retry for ever. */
static void *npu_report_main(void *arg)
{
    npu_report_arg_t start = *(npu_report_arg_t *)arg;
    accel_npu_backend_t *npu = start.npu;
    accel_npu_report_t *report = &npu->reports[start.device];
    accel_acl_error_t code;
    int failures = 0;
    char sentence[200];
    free(arg);
    code = npu->acl->aclrtSetDevice(start.device);
    if (code != ACCEL_ACL_SUCCESS) {
        snprintf(sentence, sizeof sentence,
                 "npu: callbacks of device %d cannot run: its report thread's aclrtSetDevice "
                 "failed with aclError %d",
                 start.device, code);
        npu_report_fail(npu, start.device, sentence);
        return NULL;
    }
    while (!atomic_load(&report->stop)) {
        code = npu->acl->aclrtProcessReport(NPU_REPORT_TIMEOUT_MS);
        if (code == ACCEL_ACL_SUCCESS || code == ACCEL_ACL_ERROR_RT_REPORT_TIMEOUT ||
            code == ACCEL_ACL_ERROR_WAIT_CALLBACK_TIMEOUT) {
            failures = 0;
            continue;
        }
        if (code == ACCEL_ACL_ERROR_RT_THREAD_SUBSCRIBE ||
            code == ACCEL_ACL_ERROR_THREAD_NOT_SUBSCRIBE) {
            failures = 0;
        } else if (++failures == 1) {
            accel_log(ACCEL_LOG_WARN,
                      "npu: aclrtProcessReport on device %d failed with aclError %d; retrying",
                      start.device, code);
        } else if (failures >= NPU_REPORT_FAILURE_LIMIT) {
            snprintf(sentence, sizeof sentence,
                     "npu: callbacks of device %d can no longer run: aclrtProcessReport failed "
                     "%d times in a row (last aclError %d)",
                     start.device, failures, code);
            npu_report_fail(npu, start.device, sentence);
            return NULL;
        }
        npu_sleep_ms(NPU_REPORT_TIMEOUT_MS / 5);
    }
    return NULL;
}

/* Under report_lock: the device's report thread, started if it is not
 * running; its failure sentence if it gave up. */
static accel_status_t npu_report_start(accel_npu_backend_t *npu, int device)
{
    accel_npu_report_t *report = &npu->reports[device];
    npu_report_arg_t *arg;
    int error;
    if (report->failed)
        return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR, "%s", report->failure);
    if (report->running)
        return ACCEL_OK;
    if ((arg = malloc(sizeof *arg)) == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "npu: out of host memory for a report thread");
    arg->npu = npu;
    arg->device = device;
    atomic_store(&report->stop, false);
    error = accel_thread_start(&report->thread, NULL, npu_report_main, arg);
    if (error != 0) {
        free(arg);
        return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                                   "npu: cannot start device %d's callback report thread "
                                   "(error %d)",
                                   device, error);
    }
    report->running = true;
    return ACCEL_OK;
}

/* Under report_lock: `stream` subscribed to its device's report thread.
 * The calling thread's device is the stream's. */
static accel_status_t npu_subscribe(accel_npu_backend_t *npu, accel_npu_stream_t *stream)
{
    accel_status_t status;
    if (stream->subscribed)
        return ACCEL_OK;
    status = accel_npu_check(npu->acl,
                             npu->acl->aclrtSubscribeReport(
                                 (uint64_t)npu->reports[stream->device].thread, stream->handle),
                             "aclrtSubscribeReport");
    if (status == ACCEL_OK)
        stream->subscribed = true;
    return status;
}

/* The report-thread path: subscribe, count the callback pending, launch. */
static accel_status_t npu_launch_callback(accel_npu_backend_t *npu, int device,
                                          accel_npu_stream_t *stream, accel_host_fn_t fn,
                                          void *user_data)
{
    accel_npu_report_t *report = &npu->reports[device];
    accel_npu_callback_t *call = calloc(1, sizeof *call);
    accel_status_t status;
    if (call == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "npu: out of host memory for a callback");
    *call = (accel_npu_callback_t){.npu = npu, .stream = stream, .fn = fn, .user_data = user_data};
    pthread_mutex_lock(&npu->report_lock);
    status = npu_report_start(npu, device);
    if (status == ACCEL_OK)
        status = npu_subscribe(npu, stream);
    if (status == ACCEL_OK) {
        stream->pending++;
        report->pending++;
        call->next = report->calls;
        if (report->calls != NULL)
            report->calls->prev = call;
        report->calls = call;
    }
    pthread_mutex_unlock(&npu->report_lock);
    if (status != ACCEL_OK) {
        free(call);
        return status;
    }
    status =
        accel_npu_check(npu->acl,
                        npu->acl->aclrtLaunchCallback(npu_callback_trampoline, call,
                                                      ACCEL_ACL_CALLBACK_BLOCK, stream->handle),
                        "aclrtLaunchCallback");
    if (status != ACCEL_OK) {
        /* Never queued: undo the count as the trampoline would, without the call. */
        pthread_mutex_lock(&npu->report_lock);
        stream->pending--;
        report->pending--;
        if (call->next != NULL)
            call->next->prev = call->prev;
        if (call->prev != NULL)
            call->prev->next = call->next;
        else
            report->calls = call->next;
        pthread_cond_broadcast(&npu->report_changed);
        pthread_mutex_unlock(&npu->report_lock);
        free(call);
    }
    return status;
}

accel_status_t accel_npu_stream_add_callback(void *self, int device, void *stream,
                                             accel_host_fn_t fn, void *user_data)
{
    accel_npu_backend_t *npu = self;
    accel_acl_stream_t handle = NULL;
    accel_status_t status = accel_npu_stream_handle(npu, device, stream, &handle);
    if (status != ACCEL_OK)
        return status;
    if (npu->host_func) {
        /* The record marks the runtime's thread while `fn` runs and frees
         * itself. */
        accel_callback_call_t *call = NULL;
        status = accel_callback_call_new(npu, device, stream, fn, user_data, false, &call);
        if (status != ACCEL_OK)
            return status;
        status = accel_npu_check(
            npu->acl, npu->acl->aclrtLaunchHostFunc(handle, accel_callback_call_run, call),
            "aclrtLaunchHostFunc");
        if (status != ACCEL_OK)
            accel_callback_call_free(call); /* not queued: never run */
        return status;
    }
    return npu_launch_callback(npu, device, npu_stream(npu, device, stream), fn, user_data);
}

void accel_npu_report_stop(accel_npu_backend_t *npu)
{
    for (int d = 0; d < npu->device_count; d++) {
        accel_npu_report_t *report = &npu->reports[d];
        accel_npu_stream_t *s = &npu->defaults[d];
        bool running;
        pthread_mutex_lock(&npu->report_lock);
        running = report->running;
        if (running && s->subscribed && !npu_stream_stuck(npu, s) &&
            accel_npu_activate(npu, d) == ACCEL_OK) {
            accel_acl_error_t code = ACCEL_ACL_SUCCESS;
            /* The default stream's callbacks run on the report thread while
             * this waits: release the lock for it. */
            pthread_mutex_unlock(&npu->report_lock);
            code = npu->acl->aclrtSynchronizeStream(s->handle);
            pthread_mutex_lock(&npu->report_lock);
            if (code == ACCEL_ACL_SUCCESS)
                code = npu->acl->aclrtUnSubscribeReport((uint64_t)report->thread, s->handle);
            if (code != ACCEL_ACL_SUCCESS)
                accel_log(ACCEL_LOG_WARN,
                          "npu: releasing device %d's default stream from its report "
                          "thread failed with aclError %d",
                          d, code);
            s->subscribed = false;
        }
        atomic_store(&report->stop, true);
        report->running = false;
        pthread_mutex_unlock(&npu->report_lock);
        if (running)
            pthread_join(report->thread, NULL);
        /* A thread that gave up leaves callbacks that will never run. */
        while (report->calls != NULL) {
            accel_npu_callback_t *next = report->calls->next;
            free(report->calls);
            report->calls = next;
        }
    }
}

accel_status_t accel_npu_native_stream(void *self, int device, void *stream, void **out)
{
    accel_acl_stream_t handle = NULL;
    accel_status_t status = accel_npu_stream_handle(self, device, stream, &handle);
    if (status == ACCEL_OK)
        *out = handle;
    return status;
}
