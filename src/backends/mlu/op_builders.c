/* op_builders.c: the mlu backend's own op builders, listed after the host
 * optimizers core gives every backend (CPUAdamBuilder, CPUAdagradBuilder...
 * run on the CPU, as DeepSpeed's mlu list has them): the fused device
 * optimizers (DeepSpeed's mlu has FusedAdamBuilder; accel lists Lion and
 * Lamb beside it on every backend), listed but not compatible: they would be
 * BANG C kernels, and this build has no Cambricon kernel compiler (so the
 * backend fills no fused_optim slot).
 * Constant tables; any thread. */
#include <stdio.h>

#include "backends/mlu/mlu_backend.h"

#define MLU_NO_KERNELS                                                                             \
    "mlu: the fused device optimizers need BANG C kernels, which this build cannot compile "       \
    "(no Cambricon kernel compiler); use the host optimizers (CPUAdamBuilder...)"

static bool mlu_fused_is_compatible(void *self, char *reason, size_t reason_cap)
{
    (void)self;
    snprintf(reason, reason_cap, "%s", MLU_NO_KERNELS);
    return false;
}

static accel_status_t mlu_fused_load(void *self, const void **out)
{
    (void)self;
    (void)out;
    return accel_backend_error(ACCEL_ERROR_UNSUPPORTED, "%s", MLU_NO_KERNELS);
}

static const accel_op_builder_desc_t mlu_builders[] = {
    {sizeof(accel_op_builder_desc_t), "FusedAdamBuilder", "fused_adam", mlu_fused_is_compatible,
     mlu_fused_load},
    {sizeof(accel_op_builder_desc_t), "FusedLionBuilder", "fused_lion", mlu_fused_is_compatible,
     mlu_fused_load},
    {sizeof(accel_op_builder_desc_t), "FusedLambBuilder", "fused_lamb", mlu_fused_is_compatible,
     mlu_fused_load},
};

const accel_op_builder_desc_t *accel_mlu_op_builders(void *self, size_t *out_count)
{
    (void)self;
    *out_count = sizeof mlu_builders / sizeof mlu_builders[0];
    return mlu_builders;
}
