/* api_device.c: devices (count, current device per thread, synchronize,
 * properties) and lazy initialisation (lazy_call, is_initialized).
 * Thread-safe; the current device is the calling thread's own. */
#include <stdio.h>
#include <stdlib.h>

#include "accel/accel_backend_utils.h"
#include "core.h"
#include "error.h"
#include "thread_state.h"

accel_status_t accel_device_count(accel_t *acc, int *out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = acc->device_count;
    return ACCEL_OK;
}

accel_status_t accel_set_device(accel_t *acc, int device)
{
    accel_thread_state_t *state;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (device < 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "set_device needs a device index >= 0, got %d", device);
    status = accel_resolve_device(acc, device, &device);
    if (status == ACCEL_OK)
        status = accel_ensure_init(acc);
    if (status != ACCEL_OK)
        return status;
    state = accel_thread_state(acc);
    if (state == NULL)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    if (ACCEL_BACKEND_HAS(acc->ops, set_device)) {
        status = acc->ops->set_device(acc->self, device);
        if (status != ACCEL_OK)
            return status;
    }
    state->device = device;
    return ACCEL_OK;
}

accel_status_t accel_current_device(accel_t *acc, int *out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    return accel_resolve_device(acc, ACCEL_CURRENT_DEVICE, out);
}

accel_status_t accel_synchronize(accel_t *acc, int device)
{
    accel_status_t status = accel_check_handle(acc);
    if (status == ACCEL_OK)
        status = accel_resolve_device(acc, device, &device);
    if (status == ACCEL_OK)
        status = accel_callback_refuse_device_wait(acc->self, device,
                                                   "synchronize the device it runs on");
    if (status == ACCEL_OK)
        status = accel_ensure_init(acc);
    if (status == ACCEL_OK)
        status = accel_check_device_not_capturing(acc, device, "synchronize");
    if (status != ACCEL_OK)
        return status;
    /* Pinned blocks freed before this point become reusable once every
     * device has been synchronized past them (host_cache.h). */
    uint64_t mark = accel_host_cache_sync_begin(&acc->host_cache);
    status = acc->ops->synchronize(acc->self, device);
    if (status == ACCEL_OK)
        accel_host_cache_synced(&acc->host_cache, device, acc->device_count, mark);
    return status;
}

accel_status_t accel_device_properties(accel_t *acc, int device, accel_device_properties_t *out)
{
    accel_device_properties_t props = {.struct_size = sizeof props};
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    status = accel_check_struct_size("accel_device_properties_t", out != NULL,
                                     out != NULL ? out->struct_size : 0, sizeof *out);
    if (status == ACCEL_OK)
        status = accel_resolve_device(acc, device, &device);
    if (status == ACCEL_OK)
        status = accel_ensure_init(acc);
    if (status != ACCEL_OK)
        return status;
    props.compute_major = props.compute_minor = props.multiprocessor_count = -1;
    if (ACCEL_BACKEND_HAS(acc->ops, device_properties)) {
        status = acc->ops->device_properties(acc->self, device, &props);
        if (status != ACCEL_OK)
            return status;
    }
    /* A backend that does not name its devices gets accel's device string. */
    if (props.name[0] == '\0')
        snprintf(props.name, sizeof props.name, "%s:%d", acc->ops->name, device);
    props.struct_size = out->struct_size;
    *out = props;
    return ACCEL_OK;
}

accel_status_t accel_lazy_call(accel_t *acc, accel_lazy_fn_t fn, void *user_data)
{
    accel_lazy_entry_t *entry;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (fn == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "lazy_call callback is NULL");
    if (acc->ops->info->lazy_call_runs_immediately ||
        atomic_load_explicit(&acc->initialized, memory_order_acquire)) {
        fn(acc, user_data);
        return ACCEL_OK;
    }
    entry = malloc(sizeof *entry);
    if (entry == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory queuing a lazy call");
    pthread_mutex_lock(&acc->lock);
    if (atomic_load_explicit(&acc->initialized, memory_order_acquire)) {
        pthread_mutex_unlock(&acc->lock);
        free(entry);
        fn(acc, user_data);
        return ACCEL_OK;
    }
    *entry = (accel_lazy_entry_t){.fn = fn, .user_data = user_data, .next = acc->lazy_head};
    acc->lazy_head = entry;
    pthread_mutex_unlock(&acc->lock);
    return ACCEL_OK;
}

accel_status_t accel_is_initialized(const accel_t *acc, bool *out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = atomic_load_explicit(&acc->initialized, memory_order_acquire);
    return ACCEL_OK;
}
