/* backend_helpers.c: what every backend would otherwise write again
 * (accel/accel_backend_utils.h: the library path, slot bodies, the fork
 * rule, the thread's device, detection): copying out the dtype list and the
 * device properties, reasons, the load / fork / count steps that open probe
 * and create. Stateless but for the fork generation and the instance id
 * counter below, both atomic (the backends' callbacks, rules and records
 * keep their own state); any thread. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "accel/accel_backend_utils.h"

accel_status_t accel_dtypes_copy_out(const char *backend, const accel_dtype_t *list, size_t count,
                                     accel_dtype_t *out, size_t cap, size_t *out_count)
{
    if (out == NULL && cap > 0)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "%s: dtype output array is NULL but capacity is %zu", backend,
                                   cap);
    for (size_t i = 0; i < count && i < cap; i++)
        out[i] = list[i];
    *out_count = count;
    return ACCEL_OK;
}

accel_status_t accel_device_properties_copy_out(accel_device_properties_t *out,
                                                const accel_device_properties_t *props)
{
    accel_device_properties_t copy = *props;
    size_t size = out->struct_size < sizeof copy ? out->struct_size : sizeof copy;
    copy.struct_size = out->struct_size;
    memcpy(out, &copy, size);
    return ACCEL_OK;
}

void accel_backend_detect_probe(const accel_backend_detect_t *detect, accel_probe_result_t *out)
{
    char reason[sizeof out->reason];
    const void *runtime = detect->load(reason, sizeof reason);
    int count = 0;
    out->available = false;
    if (runtime == NULL) {
        snprintf(out->reason, sizeof out->reason, "%s", reason);
        return;
    }
    if (detect->forked != NULL && detect->forked()) {
        snprintf(out->reason, sizeof out->reason, "%s", detect->forked_reason);
        return;
    }
    if (!detect->count(runtime, &count, reason, sizeof reason)) {
        snprintf(out->reason, sizeof out->reason, "%s", reason);
        return;
    }
    out->available = count > 0;
    out->device_count = count;
    snprintf(out->reason, sizeof out->reason, "%s", reason);
}

accel_status_t accel_backend_detect_open(const accel_backend_detect_t *detect, const void **runtime,
                                         int *count)
{
    char reason[256];
    *runtime = detect->load(reason, sizeof reason);
    if (*runtime == NULL)
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "%s: %s", detect->backend, reason);
    if (detect->forked != NULL && detect->forked())
        return detect->fork_error();
    if (count != NULL && !detect->count(*runtime, count, reason, sizeof reason))
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "%s: %s", detect->backend, reason);
    return ACCEL_OK;
}

void accel_reason_format(char *out, size_t cap, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(out, cap, fmt, args);
    va_end(args);
}

void accel_library_path(const void *function, const char *fallback, char *out, size_t cap)
{
    Dl_info where;
    if (dladdr(function, &where) != 0 && where.dli_fname != NULL)
        accel_reason_format(out, cap, "%s", where.dli_fname);
    else
        accel_reason_format(out, cap, "%s", fallback);
}

/* How many fork()s separate this process from the one the library was loaded
 * in: the one child handler (installed with the first started rule) adds 1
 * in every child. A rule started at another generation is the parent's. */
static uint64_t fork_generation;
static pthread_once_t fork_rule_once = PTHREAD_ONCE_INIT;

static void fork_rule_child(void)
{
    __atomic_store_n(&fork_generation, __atomic_load_n(&fork_generation, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
}

static void fork_rule_install(void)
{
    pthread_atfork(NULL, NULL, fork_rule_child);
}

void accel_fork_rule_start(accel_fork_rule_t *rule)
{
    pthread_once(&fork_rule_once, fork_rule_install);
    if (__atomic_load_n(&rule->started, __ATOMIC_ACQUIRE))
        return; /* the first start's generation stands */
    __atomic_store_n(&rule->generation, __atomic_load_n(&fork_generation, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&rule->started, true, __ATOMIC_RELEASE);
}

bool accel_fork_rule_forked(const accel_fork_rule_t *rule)
{
    return __atomic_load_n(&rule->started, __ATOMIC_ACQUIRE) &&
           __atomic_load_n(&rule->generation, __ATOMIC_RELAXED) !=
               __atomic_load_n(&fork_generation, __ATOMIC_RELAXED);
}

uint64_t accel_backend_instance_id(void)
{
    static uint64_t next = 1;
    return __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
}
