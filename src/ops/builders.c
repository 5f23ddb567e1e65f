/* builders.c: the op-builder list of an accelerator. Core, not the backend,
 * lists the host optimizer ops (DeepSpeed's cpu_* builders exist on every
 * accelerator), the fused ops (the backend's fused_optim kernels, or the host
 * ops where the backend's memory is host memory, as DeepSpeed's cpu
 * FusedAdam calls the CPU Adam step; FusedLamb likewise; or, where the
 * backend's info gives a reason, the fused ops listed as not compatible
 * with it), and then the backend's own builders.
 * The descriptor tables are constant; the wrapper array belongs to the
 * accel_t and lives until accel_close. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/error.h"
#include "ops/ops.h"

#define BUILDER_DESC(class_name, op_name, is_compatible, load)                                     \
    {                                                                                              \
        sizeof(accel_op_builder_desc_t), class_name, op_name, is_compatible, load                  \
    }

static const accel_op_builder_desc_t host_builders[] = {
    BUILDER_DESC("CPUAdamBuilder", "cpu_adam", accel_host_optim_is_compatible,
                 accel_host_adam_load),
    BUILDER_DESC("CPUAdagradBuilder", "cpu_adagrad", accel_host_optim_is_compatible,
                 accel_host_adagrad_load),
    BUILDER_DESC("CPULionBuilder", "cpu_lion", accel_host_optim_is_compatible,
                 accel_host_lion_load),
    BUILDER_DESC("AsyncIOBuilder", "async_io", accel_aio_is_compatible, accel_aio_load),
};

/* Fused ops on a backend whose device memory is host memory. */
static const accel_op_builder_desc_t host_fused_builders[] = {
    BUILDER_DESC("FusedAdamBuilder", "fused_adam", accel_host_optim_is_compatible,
                 accel_host_adam_load),
    BUILDER_DESC("FusedLionBuilder", "fused_lion", accel_host_optim_is_compatible,
                 accel_host_lion_load),
    BUILDER_DESC("FusedLambBuilder", "fused_lamb", accel_host_optim_is_compatible,
                 accel_host_lamb_load),
};

static const accel_op_builder_desc_t device_adam_builder = BUILDER_DESC(
    "FusedAdamBuilder", "fused_adam", accel_device_optim_is_compatible, accel_device_adam_load);
static const accel_op_builder_desc_t device_lion_builder = BUILDER_DESC(
    "FusedLionBuilder", "fused_lion", accel_device_optim_is_compatible, accel_device_lion_load);
static const accel_op_builder_desc_t device_lamb_builder = BUILDER_DESC(
    "FusedLambBuilder", "fused_lamb", accel_device_optim_is_compatible, accel_device_lamb_load);

/* The fused ops of a backend that cannot build them here (no kernel
 * compiler): listed, never compatible, with the reason from the backend's
 * info. `self` is the accel_t. */
static bool unavailable_is_compatible(void *self, char *reason, size_t reason_cap)
{
    const accel_t *acc = self;
    snprintf(reason, reason_cap, "%s: %s", acc->ops->name,
             ACCEL_BACKEND_INFO_FUSED_OPS_UNAVAILABLE(acc->ops->info));
    return false;
}

static accel_status_t unavailable_load(void *self, const void **out)
{
    const accel_t *acc = self;
    (void)out;
    return accel_error(ACCEL_ERROR_UNSUPPORTED, "%s: %s", acc->ops->name,
                       ACCEL_BACKEND_INFO_FUSED_OPS_UNAVAILABLE(acc->ops->info));
}

static const accel_op_builder_desc_t unavailable_fused_builders[] = {
    BUILDER_DESC("FusedAdamBuilder", "fused_adam", unavailable_is_compatible, unavailable_load),
    BUILDER_DESC("FusedLionBuilder", "fused_lion", unavailable_is_compatible, unavailable_load),
    BUILDER_DESC("FusedLambBuilder", "fused_lamb", unavailable_is_compatible, unavailable_load),
};

#define BUILDERS_UNAVAILABLE_COUNT                                                                 \
    (sizeof unavailable_fused_builders / sizeof unavailable_fused_builders[0])

/* DeepSpeed's NotImplementedBuilder: what accel_get_op_builder returns for a
 * name this accelerator has no builder for. `self` is the accel_t. */
static bool not_implemented_is_compatible(void *self, char *reason, size_t reason_cap)
{
    const accel_t *acc = self;
    snprintf(reason, reason_cap,
             "this op has not been implemented on the %s backend (DeepSpeed's "
             "NotImplementedBuilder, given for a builder name the backend lacks; "
             "accel_op_builder_count and accel_op_builder_at list the ones it has)",
             acc->ops->name);
    return false;
}

static accel_status_t not_implemented_load(void *self, const void **out)
{
    const accel_t *acc = self;
    (void)out;
    return accel_error(ACCEL_ERROR_UNSUPPORTED,
                       "This op had not been implemented on %s backend (DeepSpeed's "
                       "NotImplementedBuilder cannot load)",
                       acc->ops->name);
}

static const accel_op_builder_desc_t not_implemented_builder =
    BUILDER_DESC("NotImplementedBuilder", "deepspeed_not_implemented",
                 not_implemented_is_compatible, not_implemented_load);

bool accel_ops_builder_is_not_implemented(const accel_op_builder_t *builder)
{
    return builder->desc == &not_implemented_builder;
}

/* Host builders take no self, device ones the accel_t, the backend's own its
 * state (accel_ops_builders_make). */
accel_ops_builder_kind_t accel_ops_builder_kind(const accel_op_builder_t *builder)
{
    if (accel_ops_builder_is_not_implemented(builder))
        return ACCEL_OPS_BUILDER_NOT_IMPLEMENTED;
    if (builder->desc >= unavailable_fused_builders &&
        builder->desc < unavailable_fused_builders + BUILDERS_UNAVAILABLE_COUNT)
        return ACCEL_OPS_BUILDER_UNAVAILABLE;
    if (builder->self == NULL)
        return ACCEL_OPS_BUILDER_HOST;
    if (builder->self == builder->acc)
        return ACCEL_OPS_BUILDER_DEVICE;
    return ACCEL_OPS_BUILDER_BACKEND;
}

#define BUILDERS_MAX_CORE 12

/* The core-listed descriptors for `acc`, each with the `self` its functions
 * take; returns how many. */
static size_t builders_core(accel_t *acc, const accel_op_builder_desc_t **descs, void **selves)
{
    size_t n = 0;
    const accel_fused_optim_ops_t *fused =
        ACCEL_BACKEND_HAS(acc->ops, fused_optim) ? acc->ops->fused_optim : NULL;
    for (size_t i = 0; i < sizeof host_builders / sizeof host_builders[0]; i++) {
        descs[n] = &host_builders[i];
        selves[n++] = NULL;
    }
    if (fused != NULL) {
        if (fused->adam != NULL) {
            descs[n] = &device_adam_builder;
            selves[n++] = acc;
        }
        if (fused->lion != NULL) {
            descs[n] = &device_lion_builder;
            selves[n++] = acc;
        }
        if (ACCEL_FUSED_OPTIM_LAMB(fused) != NULL) {
            descs[n] = &device_lamb_builder;
            selves[n++] = acc;
        }
    } else if (acc->ops->info->dlpack_device_type == kDLCPU) {
        for (size_t i = 0; i < sizeof host_fused_builders / sizeof host_fused_builders[0]; i++) {
            descs[n] = &host_fused_builders[i];
            selves[n++] = NULL;
        }
    } else if (ACCEL_BACKEND_INFO_FUSED_OPS_UNAVAILABLE(acc->ops->info) != NULL) {
        for (size_t i = 0; i < BUILDERS_UNAVAILABLE_COUNT; i++) {
            descs[n] = &unavailable_fused_builders[i];
            selves[n++] = acc;
        }
    }
    return n;
}

static bool builders_listed(const accel_op_builder_t *builders, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(builders[i].desc->class_name, name) == 0)
            return true;
    }
    return false;
}

/* A backend descriptor core can call: complete and named. */
static bool builders_desc_valid(const accel_op_builder_desc_t *desc)
{
    return desc->struct_size >= sizeof(accel_op_builder_desc_t) && desc->class_name != NULL &&
           desc->op_name != NULL && desc->is_compatible != NULL && desc->load != NULL;
}

accel_status_t accel_ops_builders_make(accel_t *acc, accel_op_builder_t **out, size_t *out_count)
{
    const accel_op_builder_desc_t *core_descs[BUILDERS_MAX_CORE];
    void *core_selves[BUILDERS_MAX_CORE];
    size_t core_count = builders_core(acc, core_descs, core_selves);
    size_t own_count = 0, count = 0;
    const accel_op_builder_desc_t *own = NULL;
    accel_op_builder_t *builders;
    if (ACCEL_BACKEND_HAS(acc->ops, op_builders))
        own = acc->ops->op_builders(acc->self, &own_count);
    if (own == NULL)
        own_count = 0;
    /* One more: the NotImplementedBuilder, after the listed ones. */
    builders = calloc(core_count + own_count + 1, sizeof *builders);
    if (builders == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory for op builders");
    for (size_t i = 0; i < core_count; i++)
        builders[count++] =
            (accel_op_builder_t){.acc = acc, .desc = core_descs[i], .self = core_selves[i]};
    for (size_t i = 0; i < own_count; i++) {
        if (!builders_desc_valid(&own[i])) {
            accel_log(ACCEL_LOG_WARN, "%s: op builder %zu of the backend is incomplete; skipped",
                      acc->ops->name, i);
        } else if (builders_listed(builders, count, own[i].class_name)) {
            accel_log(ACCEL_LOG_WARN,
                      "%s: the backend's op builder %s repeats a builder core "
                      "lists; the backend's is skipped",
                      acc->ops->name, own[i].class_name);
        } else {
            builders[count++] =
                (accel_op_builder_t){.acc = acc, .desc = &own[i], .self = acc->self};
        }
    }
    builders[count] =
        (accel_op_builder_t){.acc = acc, .desc = &not_implemented_builder, .self = acc};
    for (size_t i = 0; i <= count; i++)
        pthread_mutex_init(&builders[i].lock, NULL);
    *out = builders;
    *out_count = count;
    return ACCEL_OK;
}

void accel_ops_builders_free(accel_op_builder_t *builders, size_t count)
{
    if (builders == NULL)
        return;
    for (size_t i = 0; i <= count; i++)
        pthread_mutex_destroy(&builders[i].lock);
    free(builders);
}
