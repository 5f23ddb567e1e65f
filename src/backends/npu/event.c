/* event.c: the npu backend's events (accel_npu_event_t around an aclrtEvent).
 * - Created with ACL_EVENT_SYNC, plus ACL_EVENT_TIME_LINE for
 *   ACCEL_EVENT_TIMING (aclrtEventElapsedTime needs it).
 * - With aclrtCreateEventExWithFlag (CANN 8.0.0+) events follow CUDA's
 *   rules: no id pool, destroy at once even with work queued. Otherwise
 *   aclrtCreateEventWithFlag events come from a per-device pool (65536, or
 *   1023 on 310P), and one destroyed while a record or a wait naming it is
 *   queued may have its id reused under that wait (acl_rt.h:1666-1679). So,
 *   as torch_npu's NPUEventManager does, their destroy is deferred: the
 *   event goes to the backend's graveyard until aclrtQueryEventStatus says
 *   COMPLETE and, where exported, aclrtQueryEventWaitStatus says COMPLETE
 *   (the opposite enum polarity). The graveyard is swept by later event
 *   calls on the same device and emptied by destroy().
 * - A WithFlag event never recorded queries NOT_READY for ever in ACL
 *   (hicann/runtime event.cc:1189); the backend keeps `recorded` and answers
 *   for such an event itself: query and synchronize succeed, a wait is no
 *   wait, as in CUDA.
 * Threads: any; the graveyard is under event_lock. */
#include <stdlib.h>

#include "backends/npu/npu_backend.h"

/* ---------------------------------------------------------------- graveyard */

/* Whether a graveyard event's record and waits have all run. Without
 * aclrtQueryEventWaitStatus (runtimes before 2022) a waited-on event is
 * never known idle here: it goes when its device was synchronized. */
static bool npu_event_idle(const accel_npu_api_t *acl, const accel_npu_event_t *event)
{
    if (acl->aclrtQueryEventWaitStatus == NULL && atomic_load(&event->waited))
        return false;
    accel_acl_event_status_t recorded = ACCEL_ACL_EVENT_RECORDED_STATUS_NOT_READY;
    accel_acl_event_wait_status_t waited = ACCEL_ACL_EVENT_WAIT_STATUS_COMPLETE;
    if (acl->aclrtQueryEventStatus(event->handle, &recorded) != ACCEL_ACL_SUCCESS ||
        recorded != ACCEL_ACL_EVENT_RECORDED_STATUS_COMPLETE)
        return false;
    if (acl->aclrtQueryEventWaitStatus != NULL &&
        (acl->aclrtQueryEventWaitStatus(event->handle, &waited) != ACCEL_ACL_SUCCESS ||
         waited != ACCEL_ACL_EVENT_WAIT_STATUS_COMPLETE))
        return false;
    return true;
}

static void npu_event_free(const accel_npu_api_t *acl, accel_npu_event_t *event)
{
    accel_acl_error_t code = acl->aclrtDestroyEvent(event->handle);
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtDestroyEvent on device %d failed with aclError %d",
                  event->device, code);
    free(event);
}

/* Destroy the graveyard events of `device` (the calling thread's) that are
 * idle, or all of them when `all` (the device was just synchronized).
 * Never waits. */
static void npu_graveyard_collect(accel_npu_backend_t *npu, int device, bool all)
{
    accel_npu_event_t *done = NULL;
    pthread_mutex_lock(&npu->event_lock);
    for (accel_npu_event_t **link = &npu->graveyard; *link != NULL;) {
        accel_npu_event_t *event = *link;
        if (event->device == device && (all || npu_event_idle(npu->acl, event))) {
            *link = event->next;
            event->next = done;
            done = event;
        } else {
            link = &event->next;
        }
    }
    pthread_mutex_unlock(&npu->event_lock);
    while (done != NULL) {
        accel_npu_event_t *next = done->next;
        npu_event_free(npu->acl, done);
        done = next;
    }
}

static void npu_graveyard_sweep(accel_npu_backend_t *npu, int device)
{
    npu_graveyard_collect(npu, device, false);
}

void accel_npu_events_settled(accel_npu_backend_t *npu, int device)
{
    npu_graveyard_collect(npu, device, true);
}

void accel_npu_events_release(accel_npu_backend_t *npu)
{
    accel_npu_event_t *event;
    pthread_mutex_lock(&npu->event_lock);
    event = npu->graveyard;
    npu->graveyard = NULL;
    pthread_mutex_unlock(&npu->event_lock);
    for (int d = 0; d < npu->device_count; d++) {
        bool waited = false;
        for (accel_npu_event_t **link = &event; *link != NULL;) {
            accel_npu_event_t *entry = *link;
            if (entry->device != d) {
                link = &entry->next;
                continue;
            }
            if (!waited) {
                accel_acl_error_t code = ACCEL_ACL_ERROR_UNINITIALIZE;
                if (accel_npu_activate(npu, d) == ACCEL_OK)
                    code = npu->acl->aclrtSynchronizeDevice();
                if (code != ACCEL_ACL_SUCCESS)
                    accel_log(ACCEL_LOG_WARN,
                              "npu: waiting for device %d before destroying its deferred events "
                              "failed (aclError %d); destroying them anyway",
                              d, code);
                waited = true;
            }
            *link = entry->next;
            npu_event_free(npu->acl, entry);
        }
    }
}

/* ---------------------------------------------------------------- events */

accel_status_t accel_npu_event_create(void *self, int device, unsigned flags, void **out)
{
    accel_npu_backend_t *npu = self;
    const accel_npu_api_t *acl = npu->acl;
    accel_npu_event_t *event;
    accel_acl_error_t code;
    uint32_t acl_flags = ACCEL_ACL_EVENT_SYNC;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK)
        return status;
    if (flags & ACCEL_EVENT_TIMING)
        acl_flags |= ACCEL_ACL_EVENT_TIME_LINE;
    if ((event = calloc(1, sizeof *event)) == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "npu: out of host memory for an event");
    event->device = device;
    event->ex = acl->aclrtCreateEventExWithFlag != NULL;
    if (event->ex) {
        status = accel_npu_check(acl, acl->aclrtCreateEventExWithFlag(&event->handle, acl_flags),
                                 "aclrtCreateEventExWithFlag");
    } else {
        npu_graveyard_sweep(npu, device);
        bool deferred;
        code = acl->aclrtCreateEventWithFlag(&event->handle, acl_flags);
        pthread_mutex_lock(&npu->event_lock);
        deferred = npu->graveyard != NULL;
        pthread_mutex_unlock(&npu->event_lock);
        if (code == ACCEL_ACL_ERROR_RT_NO_EVENT_RESOURCE && deferred) {
            /* The pool is full, partly of deferred events: wait for the
             * device so that they can go, then try once more. */
            if (acl->aclrtSynchronizeDevice() == ACCEL_ACL_SUCCESS)
                accel_npu_events_settled(npu, device);
            code = acl->aclrtCreateEventWithFlag(&event->handle, acl_flags);
        }
        status = accel_npu_check(acl, code, "aclrtCreateEventWithFlag");
    }
    if (status != ACCEL_OK) {
        free(event);
        return status;
    }
    *out = event;
    return ACCEL_OK;
}

void accel_npu_event_destroy(void *self, int device, void *opaque)
{
    accel_npu_backend_t *npu = self;
    accel_npu_event_t *event = opaque;
    if (accel_npu_activate(npu, device) != ACCEL_OK) {
        free(event); /* a forked child: nothing may call ACL */
        return;
    }
    if (event->ex || !atomic_load(&event->recorded)) {
        /* Ex: destroyed asynchronously by ACL. Never recorded: no task names
         * it (waits on it were skipped). */
        npu_event_free(npu->acl, event);
        return;
    }
    pthread_mutex_lock(&npu->event_lock);
    event->next = npu->graveyard;
    npu->graveyard = event;
    pthread_mutex_unlock(&npu->event_lock);
    npu_graveyard_sweep(npu, device);
}

accel_status_t accel_npu_event_record(void *self, int device, void *stream, void *opaque)
{
    accel_npu_backend_t *npu = self;
    accel_npu_event_t *event = opaque;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status == ACCEL_OK)
        status = accel_npu_check(
            npu->acl, npu->acl->aclrtRecordEvent(event->handle, accel_npu_handle(stream)),
            "aclrtRecordEvent");
    if (status == ACCEL_OK)
        atomic_store(&event->recorded, true);
    return status;
}

accel_status_t accel_npu_stream_wait_event(void *self, int device, void *stream, void *opaque)
{
    accel_npu_backend_t *npu = self;
    accel_npu_event_t *event = opaque;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK || !atomic_load(&event->recorded))
        return status;
    atomic_store(&event->waited, true);
    return accel_npu_check(npu->acl,
                           npu->acl->aclrtStreamWaitEvent(accel_npu_handle(stream), event->handle),
                           "aclrtStreamWaitEvent");
}

accel_status_t accel_npu_event_synchronize(void *self, int device, void *opaque)
{
    accel_npu_backend_t *npu = self;
    accel_npu_event_t *event = opaque;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK || !atomic_load(&event->recorded))
        return status;
    return accel_npu_check(npu->acl, npu->acl->aclrtSynchronizeEvent(event->handle),
                           "aclrtSynchronizeEvent");
}

accel_status_t accel_npu_event_query(void *self, int device, void *opaque)
{
    accel_npu_backend_t *npu = self;
    accel_npu_event_t *event = opaque;
    accel_acl_event_status_t state = ACCEL_ACL_EVENT_RECORDED_STATUS_COMPLETE;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK || !atomic_load(&event->recorded))
        return status;
    status = accel_npu_check(npu->acl, npu->acl->aclrtQueryEventStatus(event->handle, &state),
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
    return accel_npu_check(npu->acl,
                           npu->acl->aclrtEventElapsedTime(out,
                                                           ((accel_npu_event_t *)start)->handle,
                                                           ((accel_npu_event_t *)end)->handle),
                           "aclrtEventElapsedTime");
}
