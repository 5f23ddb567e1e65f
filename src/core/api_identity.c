/* api_identity.c: who the accelerator is: names, flags, communication and
 * compile backends, dtypes, environment-variable lists. Static facts come
 * from the backend's info table; dynamic ones (bf16, fp16...) from its
 * query_flag slot after lazy init. Thread-safe; the compile backend name is
 * guarded by acc->lock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "error.h"
#include "thread_state.h"

#define ACCEL_STRINGIFY_(x) #x
#define ACCEL_STRINGIFY(x)  ACCEL_STRINGIFY_(x)

const char *accel_version(void)
{
    return ACCEL_STRINGIFY(ACCEL_VERSION_MAJOR) "." ACCEL_STRINGIFY(
        ACCEL_VERSION_MINOR) "." ACCEL_STRINGIFY(ACCEL_VERSION_PATCH);
}

const char *accel_name(const accel_t *acc)
{
    if (accel_check_handle(acc) != ACCEL_OK)
        return NULL;
    return acc->ops->name;
}

static accel_status_t identity_write_name(const accel_t *acc, int device, char *out, size_t cap)
{
    char name[96];
    int written;
    if (out == NULL || cap == 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output buffer is NULL or empty");
    if (device < 0 || acc->ops->info->device_name_ignores_index)
        written = snprintf(name, sizeof name, "%s", acc->ops->name);
    else
        written = snprintf(name, sizeof name, "%s:%d", acc->ops->name, device);
    if (written < 0 || (size_t)written >= cap)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "output buffer of %zu bytes is too small for the device name", cap);
    memcpy(out, name, (size_t)written + 1);
    return ACCEL_OK;
}

accel_status_t accel_device_name(const accel_t *acc, int device, char *out, size_t cap)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    return identity_write_name(acc, device, out, cap);
}

accel_status_t accel_current_device_name(accel_t *acc, char *out, size_t cap)
{
    int device;
    accel_status_t status = accel_check_handle(acc);
    if (status == ACCEL_OK)
        status = accel_resolve_device(acc, ACCEL_CURRENT_DEVICE, &device);
    if (status != ACCEL_OK)
        return status;
    return identity_write_name(acc, device, out, cap);
}

static const char *const flag_names[ACCEL_FLAG_COUNT_] = {
    [ACCEL_FLAG_IS_AVAILABLE] = "is_available",
    [ACCEL_FLAG_SYNCHRONIZED_DEVICE] = "is_synchronized_device",
    [ACCEL_FLAG_USE_HOST_TIMERS] = "use_host_timers",
    [ACCEL_FLAG_RESOLVES_DATA_DEPENDENCY] = "resolves_data_dependency",
    [ACCEL_FLAG_HANDLES_MEMORY_BACKPRESSURE] = "handles_memory_backpressure",
    [ACCEL_FLAG_TRITON_SUPPORTED] = "is_triton_supported",
    [ACCEL_FLAG_NVTX_DOMAIN_SUPPORTED] = "supports_nvtx_domain",
    [ACCEL_FLAG_PREFER_TRITON_GROUPED_MM] = "prefer_triton_grouped_mm",
    [ACCEL_FLAG_BF16_SUPPORTED] = "is_bf16_supported",
    [ACCEL_FLAG_FP16_SUPPORTED] = "is_fp16_supported",
    [ACCEL_FLAG_GRAPHS_SUPPORTED] = "graphs_supported",
    [ACCEL_FLAG_STREAMS_SUPPORTED] = "streams_supported",
    [ACCEL_FLAG_EVENTS_SUPPORTED] = "events_supported",
    [ACCEL_FLAG_PINNED_MEMORY_SUPPORTED] = "pinned_memory_supported",
    [ACCEL_FLAG_HOST_REGISTER_SUPPORTED] = "host_register_supported",
    [ACCEL_FLAG_HOST_CALLBACKS_SUPPORTED] = "host_callbacks_supported",
};

const char *accel_flag_name(accel_flag_t flag)
{
    if ((unsigned)flag >= ACCEL_FLAG_COUNT_)
        return NULL;
    return flag_names[flag];
}

/* Flags core answers itself from the info table and the ops table. */
static bool identity_static_flag(const accel_t *acc, accel_flag_t flag, bool *out)
{
    const accel_backend_info_t *info = acc->ops->info;
    switch (flag) {
    case ACCEL_FLAG_SYNCHRONIZED_DEVICE: *out = info->synchronized_device; return true;
    case ACCEL_FLAG_USE_HOST_TIMERS: *out = info->use_host_timers; return true;
    case ACCEL_FLAG_RESOLVES_DATA_DEPENDENCY: *out = info->resolves_data_dependency; return true;
    case ACCEL_FLAG_HANDLES_MEMORY_BACKPRESSURE:
        *out = info->handles_memory_backpressure;
        return true;
    case ACCEL_FLAG_NVTX_DOMAIN_SUPPORTED: *out = info->nvtx_domain_supported; return true;
    case ACCEL_FLAG_STREAMS_SUPPORTED:
        *out = ACCEL_BACKEND_HAS(acc->ops, stream_create);
        return true;
    case ACCEL_FLAG_EVENTS_SUPPORTED: *out = ACCEL_BACKEND_HAS(acc->ops, event_create); return true;
    case ACCEL_FLAG_PINNED_MEMORY_SUPPORTED:
        *out = ACCEL_BACKEND_HAS(acc->ops, host_alloc);
        return true;
    case ACCEL_FLAG_HOST_REGISTER_SUPPORTED:
        *out = ACCEL_BACKEND_HAS(acc->ops, host_register);
        return true;
    case ACCEL_FLAG_HOST_CALLBACKS_SUPPORTED:
        *out = ACCEL_BACKEND_HAS(acc->ops, stream_add_callback);
        return true;
    default: return false;
    }
}

/* Answer for a dynamic flag the backend does not decide. */
static accel_status_t identity_default_flag(accel_t *acc, int device, accel_flag_t flag, bool *out)
{
    accel_dtype_t dtypes[ACCEL_DTYPE_COUNT_];
    size_t count = 0;
    accel_dtype_t wanted = flag == ACCEL_FLAG_BF16_SUPPORTED ? ACCEL_DTYPE_BF16 : ACCEL_DTYPE_F16;
    switch (flag) {
    case ACCEL_FLAG_IS_AVAILABLE: *out = acc->device_count > 0; return ACCEL_OK;
    case ACCEL_FLAG_GRAPHS_SUPPORTED:
        *out = ACCEL_BACKEND_HAS(acc->ops, graph_capture_begin);
        return ACCEL_OK;
    case ACCEL_FLAG_BF16_SUPPORTED:
    case ACCEL_FLAG_FP16_SUPPORTED: {
        accel_status_t status =
            acc->ops->supported_dtypes(acc->self, device, dtypes, ACCEL_DTYPE_COUNT_, &count);
        if (status != ACCEL_OK)
            return status;
        *out = false;
        for (size_t i = 0; i < count && i < ACCEL_DTYPE_COUNT_; i++)
            *out = *out || dtypes[i] == wanted;
        return ACCEL_OK;
    }
    default: *out = false; return ACCEL_OK;
    }
}

/* Without a device (a backend opened by name whose runtime reports 0
 * devices) nothing is asked of the backend: is_available is false, and
 * bf16/fp16 are true, DeepSpeed's CUDA answer when torch.cuda is not
 * available (so builds in a container without a GPU target them). */
static bool identity_deviceless_flag(const accel_t *acc, accel_flag_t flag)
{
    switch (flag) {
    case ACCEL_FLAG_BF16_SUPPORTED:
    case ACCEL_FLAG_FP16_SUPPORTED: return true;
    case ACCEL_FLAG_GRAPHS_SUPPORTED: return ACCEL_BACKEND_HAS(acc->ops, graph_capture_begin);
    default: return false;
    }
}

accel_status_t accel_query_flag(accel_t *acc, accel_flag_t flag, bool *out)
{
    int device;
    bool value;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if ((unsigned)flag >= ACCEL_FLAG_COUNT_)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "unknown flag %d", (int)flag);
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    if (identity_static_flag(acc, flag, &value)) {
        *out = value;
        return ACCEL_OK;
    }
    if (acc->device_count == 0) {
        *out = identity_deviceless_flag(acc, flag);
        return ACCEL_OK;
    }
    status = accel_ensure_init(acc);
    if (status == ACCEL_OK)
        status = accel_resolve_device(acc, ACCEL_CURRENT_DEVICE, &device);
    if (status != ACCEL_OK)
        return status;
    status = ACCEL_ERROR_UNSUPPORTED;
    if (ACCEL_BACKEND_HAS(acc->ops, query_flag))
        status = acc->ops->query_flag(acc->self, device, flag, &value);
    if (status == ACCEL_ERROR_UNSUPPORTED)
        status = identity_default_flag(acc, device, flag, &value);
    if (status == ACCEL_OK)
        *out = value;
    return status;
}

accel_status_t accel_communication_backend_name(const accel_t *acc, const char **out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    if (acc->ops->info->communication_backend == NULL)
        return accel_error(ACCEL_ERROR_UNSUPPORTED, "%s has no communication backend",
                           acc->ops->name);
    *out = acc->ops->info->communication_backend;
    return ACCEL_OK;
}

accel_status_t accel_get_compile_backend(accel_t *acc, const char **out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    /* The buffer lives as long as acc; a concurrent set may change its text. */
    *out = acc->compile_backend;
    return ACCEL_OK;
}

static void identity_format_list(const char *const *names, size_t count, char *out, size_t cap)
{
    size_t used = (size_t)snprintf(out, cap, "[");
    for (size_t i = 0; i < count && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s'%s'", i ? ", " : "", names[i]);
    if (used < cap)
        snprintf(out + used, cap - used, "]");
}

accel_status_t accel_set_compile_backend(accel_t *acc, const char *name)
{
    const accel_backend_info_t *info;
    char list[512];
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (name == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "compile backend name is NULL");
    info = acc->ops->info;
    for (size_t i = 0; i < info->compile_backend_count; i++) {
        if (strcmp(name, info->compile_backends[i]) != 0)
            continue;
        pthread_mutex_lock(&acc->lock);
        snprintf(acc->compile_backend, sizeof acc->compile_backend, "%s", name);
        pthread_mutex_unlock(&acc->lock);
        return ACCEL_OK;
    }
    identity_format_list(info->compile_backends, info->compile_backend_count, list, sizeof list);
    return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                       "%s not supported by %s. Supported Backends are %s", name, acc->ops->name,
                       list);
}

static const struct {
    const char *name;
    DLDataType dl;
} dtype_table[ACCEL_DTYPE_COUNT_] = {
    [ACCEL_DTYPE_F32] = {"float32", {kDLFloat, 32, 1}},
    [ACCEL_DTYPE_F16] = {"float16", {kDLFloat, 16, 1}},
    [ACCEL_DTYPE_BF16] = {"bfloat16", {kDLBfloat, 16, 1}},
    [ACCEL_DTYPE_F64] = {"float64", {kDLFloat, 64, 1}},
    [ACCEL_DTYPE_U8] = {"uint8", {kDLUInt, 8, 1}},
    [ACCEL_DTYPE_I32] = {"int32", {kDLInt, 32, 1}},
    [ACCEL_DTYPE_I64] = {"int64", {kDLInt, 64, 1}},
};

const char *accel_dtype_name(accel_dtype_t dtype)
{
    if ((unsigned)dtype >= ACCEL_DTYPE_COUNT_)
        return NULL;
    return dtype_table[dtype].name;
}

accel_status_t accel_dtype_to_dlpack(accel_dtype_t dtype, DLDataType *out)
{
    if ((unsigned)dtype >= ACCEL_DTYPE_COUNT_)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "unknown dtype %d", (int)dtype);
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = dtype_table[dtype].dl;
    return ACCEL_OK;
}

accel_status_t accel_supported_dtypes(accel_t *acc, accel_dtype_t *out, size_t cap,
                                      size_t *out_count)
{
    accel_dtype_t all[ACCEL_DTYPE_COUNT_];
    size_t count = 0;
    int device;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out_count == NULL || (out == NULL && cap > 0))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    if (acc->device_count == 0) {
        /* DeepSpeed's CUDA list without a device: float, then half and
         * bfloat16 (both flags are true then, see identity_deviceless_flag). */
        all[count++] = ACCEL_DTYPE_F32;
        all[count++] = ACCEL_DTYPE_F16;
        all[count++] = ACCEL_DTYPE_BF16;
    } else {
        status = accel_ensure_init(acc);
        if (status == ACCEL_OK)
            status = accel_resolve_device(acc, ACCEL_CURRENT_DEVICE, &device);
        if (status == ACCEL_OK)
            status = acc->ops->supported_dtypes(acc->self, device, all, ACCEL_DTYPE_COUNT_, &count);
    }
    if (status != ACCEL_OK)
        return status;
    for (size_t i = 0; i < count && i < cap && i < ACCEL_DTYPE_COUNT_; i++)
        out[i] = all[i];
    *out_count = count;
    return ACCEL_OK;
}

accel_status_t accel_dlpack_device_type(const accel_t *acc, int32_t *out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = acc->ops->info->dlpack_device_type;
    return ACCEL_OK;
}

static accel_status_t identity_list(const accel_t *acc, const char *const *list, size_t count,
                                    const char *const **out, size_t *out_count)
{
    static const char *const empty[1] = {NULL};
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL || out_count == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = list != NULL ? list : empty;
    *out_count = list != NULL ? count : 0;
    return ACCEL_OK;
}

accel_status_t accel_visible_devices_envs(const accel_t *acc, const char *const **out_names,
                                          size_t *out_count)
{
    if (accel_check_handle(acc) != ACCEL_OK)
        return ACCEL_ERROR_INVALID_ARGUMENT;
    return identity_list(acc, acc->ops->info->visible_devices_envs,
                         acc->ops->info->visible_devices_env_count, out_names, out_count);
}

accel_status_t accel_export_envs(const accel_t *acc, const char *const **out_prefixes,
                                 size_t *out_count)
{
    if (accel_check_handle(acc) != ACCEL_OK)
        return ACCEL_ERROR_INVALID_ARGUMENT;
    return identity_list(acc, acc->ops->info->export_envs, acc->ops->info->export_env_count,
                         out_prefixes, out_count);
}

/* The default setter: setenv's failure as a status (ENOMEM or a bad name). */
static int identity_process_setenv(void *ctx, const char *name, const char *value)
{
    if (setenv(name, value, 1) == 0)
        return 0;
    return errno == ENOMEM ? ACCEL_ERROR_OUT_OF_MEMORY : ACCEL_ERROR_INVALID_ARGUMENT;
}

/* A setter's failure: its own status when it returned one, else
 * INVALID_ARGUMENT (it refused the assignment). */
static accel_status_t identity_setter_failed(int returned, const char *name, const char *value)
{
    accel_status_t status = ACCEL_ERROR_INVALID_ARGUMENT;
    if (returned > ACCEL_OK && returned <= ACCEL_ERROR_INTERNAL)
        status = (accel_status_t)returned;
    return accel_error(status, "the setter failed to set %s=%s (it returned %d)", name, value,
                       returned);
}

accel_status_t accel_set_visible_devices_envs(const accel_t *acc, const int *ids, size_t count,
                                              accel_env_setter_t setter, void *ctx)
{
    char value[4096];
    size_t used = 0;
    const accel_backend_info_t *info;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (ids == NULL && count > 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "device id list is NULL");
    value[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (ids[i] < 0)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "device id %d is negative", ids[i]);
        int n = snprintf(value + used, sizeof value - used, "%s%d", i ? "," : "", ids[i]);
        if (n < 0 || (size_t)n >= sizeof value - used)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "device id list is too long");
        used += (size_t)n;
    }
    if (setter == NULL)
        setter = identity_process_setenv;
    info = acc->ops->info;
    for (size_t i = 0; i < info->visible_devices_env_count; i++) {
        int returned = setter(ctx, info->visible_devices_envs[i], value);
        if (returned != 0)
            return identity_setter_failed(returned, info->visible_devices_envs[i], value);
    }
    return ACCEL_OK;
}
