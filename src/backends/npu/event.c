/* event.c: the npu backend's events (accel_npu_event_t around an aclrtEvent).
 * - Created with ACL_EVENT_SYNC, plus ACL_EVENT_TIME_LINE for
 *   ACCEL_EVENT_TIMING (aclrtEventElapsedTime needs it).
 * - With aclrtCreateEventExWithFlag (CANN 8.0.0+) events follow CUDA's
 *   rules: no id pool, destroy at once even with work queued. Otherwise
 *   aclrtCreateEventWithFlag events come from a per-device pool (65536, or
 *   1023 on 310P), and one destroyed while a record or a wait naming it is
 *   queued may have its id reused under that wait (acl_rt.h:1666-1679). So,
 *   as torch_npu's NPUEventManager does, their destroy is deferred: the
 *   event is listed for release until aclrtQueryEventStatus says
 *   COMPLETE and, where exported, aclrtQueryEventWaitStatus says COMPLETE
 *   (the opposite enum polarity): it goes to the backend's deferred-release
 *   list (the kit's), polled by later event calls and synchronizes, and
 *   drained by destroy().
 * - A WithFlag event never recorded queries NOT_READY for ever in ACL
 *   (hicann/runtime event.cc:1189); the backend keeps `recorded` and answers
 *   for such an event itself: query and synchronize succeed, a wait is no
 *   wait, as in CUDA.
 * Threads: any; the deferred-release list has its own lock. */
#include <stdlib.h>

#include "accel/accel_backend_utils.h"
#include "backends/npu/npu_backend.h"

/* ---------------------------------------------------------------- deferred destroy */

/* The fence callbacks of the backend's deferred-release list (the kit's,
 * accel_backend_utils.h): a fence is a destroyed WithFlag event itself. */

/* Whether a deferred event's record and waits have all run. Only events of
 * the calling thread's device are asked (asking would need that device
 * current, and a slot's device must not change under it): the others stay
 * for a poll from their own device. Without aclrtQueryEventWaitStatus
 * (runtimes before 2022) a waited-on event is known idle only once its
 * device has been synchronized since its destroy. */
static accel_status_t npu_event_fence_query(void *self, int device, void *fence)
{
    accel_npu_backend_t *npu = self;
    const accel_npu_api_t *acl = npu->acl;
    accel_npu_event_t *event = fence;
    accel_acl_event_status_t recorded = ACCEL_ACL_EVENT_RECORDED_STATUS_NOT_READY;
    accel_acl_event_wait_status_t waited = ACCEL_ACL_EVENT_WAIT_STATUS_COMPLETE;
    if (device != accel_npu_thread_device(npu))
        return ACCEL_ERROR_NOT_READY;
    if (acl->aclrtQueryEventWaitStatus == NULL && atomic_load(&event->waited))
        return atomic_load(&npu->synchronized[device]) != event->synchronized
                   ? ACCEL_OK
                   : ACCEL_ERROR_NOT_READY;
    if (acl->aclrtQueryEventStatus(event->handle, &recorded) != ACCEL_ACL_SUCCESS ||
        recorded != ACCEL_ACL_EVENT_RECORDED_STATUS_COMPLETE)
        return ACCEL_ERROR_NOT_READY;
    if (acl->aclrtQueryEventWaitStatus != NULL &&
        (acl->aclrtQueryEventWaitStatus(event->handle, &waited) != ACCEL_ACL_SUCCESS ||
         waited != ACCEL_ACL_EVENT_WAIT_STATUS_COMPLETE))
        return ACCEL_ERROR_NOT_READY;
    return ACCEL_OK;
}

/* Waiting for one deferred event is waiting for its device: that covers its
 * record and every wait on it. Teardown only (drain): it changes the
 * calling thread's device. */
static accel_status_t npu_event_fence_device_wait(void *self, int device)
{
    accel_npu_backend_t *npu = self;
    accel_status_t status = accel_npu_activate(npu, device);
    if (status != ACCEL_OK)
        return status;
    return accel_npu_check(npu->acl, npu->acl->aclrtSynchronizeDevice(), "aclrtSynchronizeDevice");
}

static accel_status_t npu_event_fence_wait(void *self, int device, void *fence)
{
    (void)fence;
    return npu_event_fence_device_wait(self, device);
}

static void npu_event_free(const accel_npu_api_t *acl, accel_npu_event_t *event)
{
    accel_acl_error_t code = acl->aclrtDestroyEvent(event->handle);
    if (code != ACCEL_ACL_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "npu: aclrtDestroyEvent on device %d failed with aclError %d",
                  event->device, code);
    free(event);
}

static void npu_event_fence_destroy(void *self, int device, void *fence)
{
    accel_npu_backend_t *npu = self;
    (void)device;
    npu_event_free(npu->acl, fence);
}

accel_status_t accel_npu_events_init(accel_npu_backend_t *npu)
{
    const accel_deferred_fence_ops_t fence = {
        .self = npu,
        .query = npu_event_fence_query,
        .wait = npu_event_fence_wait,
        .destroy = npu_event_fence_destroy,
        .device_wait = npu_event_fence_device_wait,
    };
    return accel_deferred_release_create(&fence, &npu->deferred_events);
}

void accel_npu_events_settled(accel_npu_backend_t *npu, int device)
{
    atomic_fetch_add(&npu->synchronized[device], 1);
    accel_deferred_release_poll(npu->deferred_events);
}

void accel_npu_events_release(accel_npu_backend_t *npu)
{
    if (accel_npu_forked())
        accel_deferred_release_abandon(npu->deferred_events);
    else
        accel_deferred_release_destroy(npu->deferred_events);
    npu->deferred_events = NULL;
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
        accel_deferred_release_poll(npu->deferred_events);
        code = acl->aclrtCreateEventWithFlag(&event->handle, acl_flags);
        if (code == ACCEL_ACL_ERROR_RT_NO_EVENT_RESOURCE &&
            accel_deferred_release_pending(npu->deferred_events) > 0) {
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
    event->synchronized = atomic_load(&npu->synchronized[device]);
    accel_deferred_release_add(npu->deferred_events, device, event, NULL, 0, NULL, NULL);
}

accel_status_t accel_npu_event_record(void *self, int device, void *stream, void *opaque)
{
    accel_npu_backend_t *npu = self;
    accel_npu_event_t *event = opaque;
    accel_acl_stream_t handle = NULL;
    accel_status_t status = accel_npu_stream_handle(npu, device, stream, &handle);
    if (status == ACCEL_OK)
        status = accel_npu_check(npu->acl, npu->acl->aclrtRecordEvent(event->handle, handle),
                                 "aclrtRecordEvent");
    if (status == ACCEL_OK)
        atomic_store(&event->recorded, true);
    return status;
}

accel_status_t accel_npu_stream_wait_event(void *self, int device, void *stream, void *opaque)
{
    accel_npu_backend_t *npu = self;
    accel_npu_event_t *event = opaque;
    accel_acl_stream_t handle = NULL;
    accel_status_t status = accel_npu_stream_handle(npu, device, stream, &handle);
    if (status != ACCEL_OK || !atomic_load(&event->recorded))
        return status;
    atomic_store(&event->waited, true);
    return accel_npu_check(npu->acl, npu->acl->aclrtStreamWaitEvent(handle, event->handle),
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
