/* api_misc.c: profiling ranges and op-builder lookup.
 * Ranges nest per thread (depth kept in the thread state) and are forwarded
 * to the backend's vendor profiler. Builders are owned by the accel_t; load()
 * runs once per builder under its lock and the result is cached. */
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "error.h"
#include "ops/ops.h"
#include "thread_state.h"
#include "trace.h"

accel_status_t accel_range_push(accel_t *acc, const char *msg, const char *domain,
                                const char *category)
{
    accel_thread_state_t *state;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (msg == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "range message is NULL");
    state = accel_thread_state(acc);
    if (state == NULL)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    if (!acc->ops->info->nvtx_domain_supported)
        domain = category = NULL;
    if (ACCEL_BACKEND_HAS(acc->ops, range_push))
        acc->ops->range_push(acc->self, msg, domain, category);
    state->range_depth++;
    if (accel_trace_active())
        accel_trace_range_push(msg);
    return ACCEL_OK;
}

accel_status_t accel_range_pop(accel_t *acc, const char *domain)
{
    accel_thread_state_t *state;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    state = accel_thread_state(acc);
    if (state == NULL)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    if (state->range_depth == 0)
        return accel_error(ACCEL_ERROR_NOT_FOUND, "range_pop: this thread has no open range");
    if (!acc->ops->info->nvtx_domain_supported)
        domain = NULL;
    if (ACCEL_BACKEND_HAS(acc->ops, range_pop))
        acc->ops->range_pop(acc->self, domain);
    state->range_depth--;
    if (accel_trace_active())
        accel_trace_range_pop();
    return ACCEL_OK;
}

accel_status_t accel_op_builder_count(accel_t *acc, size_t *out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = acc->builder_count;
    return ACCEL_OK;
}

accel_status_t accel_op_builder_at(accel_t *acc, size_t index, accel_op_builder_t **out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    if (index >= acc->builder_count)
        return accel_error(ACCEL_ERROR_NOT_FOUND,
                           "%s has %zu op builders; index %zu is past the end", acc->ops->name,
                           acc->builder_count, index);
    *out = &acc->builders[index];
    return ACCEL_OK;
}

accel_status_t accel_get_op_builder(accel_t *acc, const char *class_name, accel_op_builder_t **out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (class_name == NULL || out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "builder name or output pointer is NULL");
    for (size_t i = 0; i < acc->builder_count; i++) {
        if (strcmp(acc->builders[i].desc->class_name, class_name) == 0) {
            *out = &acc->builders[i];
            return ACCEL_OK;
        }
    }
    /* DeepSpeed's get_op_builder gives NotImplementedBuilder here: a builder
     * that is not compatible (its reason says so) and cannot load. */
    accel_log(ACCEL_LOG_DEBUG, "%s has no op builder named %s; giving NotImplementedBuilder",
              acc->ops->name, class_name);
    *out = &acc->builders[acc->builder_count];
    return ACCEL_OK;
}

const char *accel_op_builder_class_name(const accel_op_builder_t *builder)
{
    if (builder == NULL) {
        accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "op builder is NULL");
        return NULL;
    }
    return builder->desc->class_name;
}

const char *accel_op_builder_op_name(const accel_op_builder_t *builder)
{
    if (builder == NULL) {
        accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "op builder is NULL");
        return NULL;
    }
    return builder->desc->op_name;
}

accel_status_t accel_op_builder_is_compatible(accel_op_builder_t *builder, bool *out, char *reason,
                                              size_t reason_cap)
{
    char scratch[256] = "";
    if (builder == NULL || out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "op builder or output pointer is NULL");
    if (reason == NULL || reason_cap == 0) {
        reason = scratch;
        reason_cap = sizeof scratch;
    }
    reason[0] = '\0';
    *out = builder->desc->is_compatible(builder->self, reason, reason_cap);
    return ACCEL_OK;
}

accel_status_t accel_op_builder_load(accel_op_builder_t *builder, const void **out)
{
    accel_status_t status = ACCEL_OK;
    if (builder == NULL || out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "op builder or output pointer is NULL");
    /* Host builders (self NULL) run on the host alone, so they load on an
     * accelerator without a device; device builders need one. */
    if (builder->self != NULL)
        status = accel_check_has_devices(builder->acc);
    if (status == ACCEL_OK && builder->acc->device_count > 0)
        status = accel_ensure_init(builder->acc);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&builder->lock);
    if (builder->loaded == NULL)
        status = builder->desc->load(builder->self, &builder->loaded);
    if (status == ACCEL_OK)
        *out = builder->loaded;
    pthread_mutex_unlock(&builder->lock);
    return status;
}

/* ds_report's "installed": only the host ops are compiled into the library;
 * device kernels are compiled at their first load (NVRTC, OpenCL), and a
 * backend's own builders load whatever they load then. */
accel_status_t accel_op_builder_is_installed(const accel_op_builder_t *builder, bool *out)
{
    if (builder == NULL || out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "op builder or output pointer is NULL");
    *out = accel_ops_builder_kind(builder) == ACCEL_OPS_BUILDER_HOST;
    return ACCEL_OK;
}

accel_status_t accel_op_builder_implementation(accel_op_builder_t *builder, char *out, size_t cap)
{
    char text[128];
    bool loaded;
    int written;
    const char *backend;
    if (builder == NULL || out == NULL || cap == 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "op builder or output buffer is NULL, or the buffer is empty");
    backend = builder->acc->ops->name;
    pthread_mutex_lock(&builder->lock);
    loaded = builder->loaded != NULL;
    pthread_mutex_unlock(&builder->lock);
    switch (accel_ops_builder_kind(builder)) {
    case ACCEL_OPS_BUILDER_HOST: {
        size_t threads = accel_thread_pool_threads();
        written = snprintf(text, sizeof text, "%s, %zu thread%s", accel_host_optim_implementation(),
                           threads, threads == 1 ? "" : "s");
        break;
    }
    case ACCEL_OPS_BUILDER_DEVICE:
        written = snprintf(text, sizeof text, "%s device kernels%s", backend,
                           loaded ? "" : ", compiled at first load");
        break;
    case ACCEL_OPS_BUILDER_BACKEND:
    case ACCEL_OPS_BUILDER_UNAVAILABLE: /* the backend's fused op, not buildable here */
        written = snprintf(text, sizeof text, "%s's own op", backend);
        break;
    default:
        return accel_error(ACCEL_ERROR_UNSUPPORTED,
                           "NotImplementedBuilder has no implementation on %s", backend);
    }
    if (written < 0 || (size_t)written >= cap)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "output buffer of %zu bytes is too small for \"%s\"", cap, text);
    memcpy(out, text, (size_t)written + 1);
    return ACCEL_OK;
}
