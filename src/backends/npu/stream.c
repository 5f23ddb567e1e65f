/* stream.c: the npu backend's streams, events and host callbacks.
 * - A backend stream is an accel_npu_stream_t around an aclrtStream; NULL
 *   is the device's default stream. The priority argument is not passed
 *   on: aclrtCreateStream has none (CANN's WithConfig variant is newer).
 * - A backend event is the aclrtEvent itself, made with ACL_EVENT_SYNC and,
 *   for ACCEL_EVENT_TIMING, ACL_EVENT_TIME_LINE (needed by
 *   aclrtEventElapsedTime).
 * - Host callbacks: ACL runs them on a thread that subscribed to the stream
 *   (aclrtSubscribeReport) and calls aclrtProcessReport. The backend starts
 *   one such report thread on the first callback, subscribes each stream
 *   (or default stream) the first time it gets a callback, and launches
 *   with ACL_CALLBACK_BLOCK so the stream waits for the callback, as CUDA's
 *   host functions do. Each callback goes through a kit call record
 *   (accel_callback_call_run) that marks the report thread while it runs,
 *   so core refuses a wait for itself from inside it.
 * Threads: any thread; each slot makes its device current first. The
 * report thread's state and the subscriptions are under report_lock. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "accel/accel_backend_utils.h"
#include "backends/npu/npu_backend.h"

/* How long one aclrtProcessReport waits: bounds how long destroy() waits
 * for the report thread to notice it must stop. */
#define NPU_REPORT_TIMEOUT_MS 50

/* ---------------------------------------------------------------- device and streams */

accel_status_t accel_npu_synchronize(void *self, int device)
{
    accel_npu_backend_t *npu = self;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK)
        return status;
    return accel_npu_check(npu->acl, npu->acl->aclrtSynchronizeDevice(), "aclrtSynchronizeDevice");
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
 * synchronized, unsubscribed from the report thread, then destroyed. */
void accel_npu_stream_destroy(void *self, int device, void *stream)
{
    accel_npu_backend_t *npu = self;
    accel_npu_stream_t *s = stream;
    const accel_npu_api_t *acl = npu->acl;
    accel_acl_error_t code;
    if (accel_npu_activate(npu, device) == ACCEL_OK) {
        code = acl->aclrtSynchronizeStream(s->handle);
        if (code != ACCEL_ACL_SUCCESS)
            accel_log(ACCEL_LOG_WARN,
                      "npu: aclrtSynchronizeStream before destroying a stream of "
                      "device %d failed with aclError %d",
                      device, code);
        pthread_mutex_lock(&npu->report_lock);
        if (s->subscribed) {
            code = acl->aclrtUnSubscribeReport((uint64_t)npu->report_thread, s->handle);
            if (code != ACCEL_ACL_SUCCESS)
                accel_log(ACCEL_LOG_WARN, "npu: aclrtUnSubscribeReport failed with aclError %d",
                          code);
            s->subscribed = false;
        }
        pthread_mutex_unlock(&npu->report_lock);
        code = acl->aclrtDestroyStream(s->handle);
        if (code != ACCEL_ACL_SUCCESS)
            accel_log(ACCEL_LOG_WARN,
                      "npu: aclrtDestroyStream on device %d failed with aclError %d", device, code);
    }
    free(s);
}

accel_status_t accel_npu_stream_synchronize(void *self, int device, void *stream)
{
    accel_npu_backend_t *npu = self;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK)
        return status;
    return accel_npu_check(npu->acl, npu->acl->aclrtSynchronizeStream(accel_npu_handle(stream)),
                           "aclrtSynchronizeStream");
}

accel_status_t accel_npu_stream_query(void *self, int device, void *stream)
{
    accel_npu_backend_t *npu = self;
    accel_acl_stream_status_t state = ACCEL_ACL_STREAM_STATUS_COMPLETE;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status == ACCEL_OK)
        status =
            accel_npu_check(npu->acl, npu->acl->aclrtStreamQuery(accel_npu_handle(stream), &state),
                            "aclrtStreamQuery");
    if (status != ACCEL_OK)
        return status;
    return state == ACCEL_ACL_STREAM_STATUS_COMPLETE ? ACCEL_OK : ACCEL_ERROR_NOT_READY;
}

accel_status_t accel_npu_stream_wait_event(void *self, int device, void *stream, void *event)
{
    accel_npu_backend_t *npu = self;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK)
        return status;
    return accel_npu_check(npu->acl,
                           npu->acl->aclrtStreamWaitEvent(accel_npu_handle(stream), event),
                           "aclrtStreamWaitEvent");
}

/* ---------------------------------------------------------------- host callbacks */

static void npu_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* The report thread: runs callbacks until destroy() asks it to stop.
 * Between its start and the first subscription ACL answers
 * ACL_ERROR_THREAD_NOT_SUBSCRIBE; any error other than the timeout is
 * waited out briefly rather than spun on. */
static void *npu_report_main(void *arg)
{
    accel_npu_backend_t *npu = arg;
    bool warned = false;
    while (!atomic_load(&npu->report_stop)) {
        accel_acl_error_t code = npu->acl->aclrtProcessReport(NPU_REPORT_TIMEOUT_MS);
        if (code == ACCEL_ACL_SUCCESS || code == ACCEL_ACL_ERROR_WAIT_CALLBACK_TIMEOUT)
            continue;
        if (code != ACCEL_ACL_ERROR_THREAD_NOT_SUBSCRIBE && !warned) {
            accel_log(ACCEL_LOG_WARN, "npu: aclrtProcessReport failed with aclError %d; retrying",
                      code);
            warned = true;
        }
        npu_sleep_ms(NPU_REPORT_TIMEOUT_MS / 5);
    }
    return NULL;
}

/* Under report_lock: the report thread, started if it is not running. */
static accel_status_t npu_report_start(accel_npu_backend_t *npu)
{
    int error;
    if (npu->report_running)
        return ACCEL_OK;
    atomic_store(&npu->report_stop, false);
    error = pthread_create(&npu->report_thread, NULL, npu_report_main, npu);
    if (error != 0)
        return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                                   "npu: cannot start the callback report thread (error %d)",
                                   error);
    npu->report_running = true;
    return ACCEL_OK;
}

/* Under report_lock: `stream` (or the device's default stream) subscribed
 * to the report thread. The calling thread's device is `device`. */
static accel_status_t npu_subscribe(accel_npu_backend_t *npu, int device,
                                    accel_npu_stream_t *stream)
{
    bool *subscribed = stream != NULL ? &stream->subscribed : &npu->default_subscribed[device];
    accel_status_t status;
    if (*subscribed)
        return ACCEL_OK;
    status = accel_npu_check(
        npu->acl,
        npu->acl->aclrtSubscribeReport((uint64_t)npu->report_thread, accel_npu_handle(stream)),
        "aclrtSubscribeReport");
    if (status == ACCEL_OK)
        *subscribed = true;
    return status;
}

accel_status_t accel_npu_stream_add_callback(void *self, int device, void *stream,
                                             accel_host_fn_t fn, void *user_data)
{
    accel_npu_backend_t *npu = self;
    accel_callback_call_t *call = NULL;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&npu->report_lock);
    status = npu_report_start(npu);
    if (status == ACCEL_OK)
        status = npu_subscribe(npu, device, stream);
    pthread_mutex_unlock(&npu->report_lock);
    if (status == ACCEL_OK)
        status = accel_callback_call_new(npu, device, stream, fn, user_data, false, &call);
    if (status != ACCEL_OK)
        return status;
    /* The record marks the report thread while `fn` runs (core refuses a
     * wait for itself from there) and frees itself. */
    status = accel_npu_check(npu->acl,
                             npu->acl->aclrtLaunchCallback(accel_callback_call_run, call,
                                                           ACCEL_ACL_CALLBACK_BLOCK,
                                                           accel_npu_handle(stream)),
                             "aclrtLaunchCallback");
    if (status != ACCEL_OK)
        accel_callback_call_free(call); /* not queued: never run */
    return status;
}

void accel_npu_report_stop(accel_npu_backend_t *npu)
{
    pthread_mutex_lock(&npu->report_lock);
    if (!npu->report_running) {
        pthread_mutex_unlock(&npu->report_lock);
        return;
    }
    for (int d = 0; d < npu->device_count; d++) {
        accel_acl_error_t code;
        if (!npu->default_subscribed[d] || accel_npu_activate(npu, d) != ACCEL_OK)
            continue;
        code = npu->acl->aclrtSynchronizeStream(NULL);
        if (code == ACCEL_ACL_SUCCESS)
            code = npu->acl->aclrtUnSubscribeReport((uint64_t)npu->report_thread, NULL);
        if (code != ACCEL_ACL_SUCCESS)
            accel_log(ACCEL_LOG_WARN,
                      "npu: releasing device %d's default stream from the report "
                      "thread failed with aclError %d",
                      d, code);
        npu->default_subscribed[d] = false;
    }
    atomic_store(&npu->report_stop, true);
    npu->report_running = false;
    pthread_mutex_unlock(&npu->report_lock);
    pthread_join(npu->report_thread, NULL);
}

/* ---------------------------------------------------------------- events */

accel_status_t accel_npu_event_create(void *self, int device, unsigned flags, void **out)
{
    accel_npu_backend_t *npu = self;
    accel_acl_event_t event = NULL;
    uint32_t acl_flags = ACCEL_ACL_EVENT_SYNC;
    accel_status_t status = accel_npu_activate(npu, device);
    if (flags & ACCEL_EVENT_TIMING)
        acl_flags |= ACCEL_ACL_EVENT_TIME_LINE;
    if (status == ACCEL_OK)
        status = accel_npu_check(npu->acl, npu->acl->aclrtCreateEventWithFlag(&event, acl_flags),
                                 "aclrtCreateEventWithFlag");
    if (status == ACCEL_OK)
        *out = event;
    return status;
}

void accel_npu_event_destroy(void *self, int device, void *event)
{
    accel_npu_backend_t *npu = self;
    accel_acl_error_t code;
    if (accel_npu_activate(npu, device) != ACCEL_OK)
        return;
    code = npu->acl->aclrtDestroyEvent(event);
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtDestroyEvent on device %d failed with aclError %d",
                  device, code);
}

accel_status_t accel_npu_event_record(void *self, int device, void *stream, void *event)
{
    accel_npu_backend_t *npu = self;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK)
        return status;
    return accel_npu_check(npu->acl, npu->acl->aclrtRecordEvent(event, accel_npu_handle(stream)),
                           "aclrtRecordEvent");
}

accel_status_t accel_npu_event_synchronize(void *self, int device, void *event)
{
    accel_npu_backend_t *npu = self;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK)
        return status;
    return accel_npu_check(npu->acl, npu->acl->aclrtSynchronizeEvent(event),
                           "aclrtSynchronizeEvent");
}

accel_status_t accel_npu_event_query(void *self, int device, void *event)
{
    accel_npu_backend_t *npu = self;
    accel_acl_event_status_t state = ACCEL_ACL_EVENT_RECORDED_STATUS_COMPLETE;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status == ACCEL_OK)
        status = accel_npu_check(npu->acl, npu->acl->aclrtQueryEventStatus(event, &state),
                                 "aclrtQueryEventStatus");
    if (status != ACCEL_OK)
        return status;
    return state == ACCEL_ACL_EVENT_RECORDED_STATUS_COMPLETE ? ACCEL_OK : ACCEL_ERROR_NOT_READY;
}

accel_status_t accel_npu_event_elapsed_ms(void *self, int device, void *start, void *end,
                                          float *out)
{
    accel_npu_backend_t *npu = self;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK)
        return status;
    return accel_npu_check(npu->acl, npu->acl->aclrtEventElapsedTime(out, start, end),
                           "aclrtEventElapsedTime");
}

accel_status_t accel_npu_native_stream(void *self, int device, void *stream, void **out)
{
    accel_status_t status = accel_npu_activate(self, device);
    if (status == ACCEL_OK)
        *out = accel_npu_handle(stream);
    return status;
}
