/* op_builders.c: the npu backend's own op builders, listed after the host
 * optimizers core gives every backend (CPUAdamBuilder... run on the CPU, as
 * DeepSpeed's npu does): the fused device optimizers, listed but not
 * compatible: they would be Ascend C kernels, and this build has no Ascend
 * kernel compiler (so the backend fills no fused_optim slot). Constant
 * tables; any thread. */
#include <stdio.h>

#include "backends/npu/npu_backend.h"

#define NPU_NO_KERNELS                                                                             \
    "npu: the fused device optimizers need Ascend C kernels, which this build cannot compile "     \
    "(no CANN kernel compiler); use the host optimizers (CPUAdamBuilder...)"

static bool npu_fused_is_compatible(void *self, char *reason, size_t reason_cap)
{
    (void)self;
    snprintf(reason, reason_cap, "%s", NPU_NO_KERNELS);
    return false;
}

static accel_status_t npu_fused_load(void *self, const void **out)
{
    (void)self;
    (void)out;
    return accel_backend_error(ACCEL_ERROR_UNSUPPORTED, "%s", NPU_NO_KERNELS);
}

static const accel_op_builder_desc_t npu_builders[] = {
    {sizeof(accel_op_builder_desc_t), "FusedAdamBuilder", "fused_adam", npu_fused_is_compatible,
     npu_fused_load},
    {sizeof(accel_op_builder_desc_t), "FusedLionBuilder", "fused_lion", npu_fused_is_compatible,
     npu_fused_load},
    {sizeof(accel_op_builder_desc_t), "FusedLambBuilder", "fused_lamb", npu_fused_is_compatible,
     npu_fused_load},
};

const accel_op_builder_desc_t *accel_npu_op_builders(void *self, size_t *out_count)
{
    (void)self;
    *out_count = sizeof npu_builders / sizeof npu_builders[0];
    return npu_builders;
}
