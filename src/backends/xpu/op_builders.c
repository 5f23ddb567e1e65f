/* op_builders.c: the xpu backend's own op builders, listed after the host
 * optimizers core gives every backend (CPUAdamBuilder... run on the CPU):
 * the fused device optimizers DeepSpeed's xpu lists (FusedAdamBuilder) and
 * their siblings, listed but not compatible: on Level Zero they would be
 * SPIR-V modules (zeModuleCreate takes SPIR-V, not source), and this build
 * has no SYCL/SPIR-V compiler (so the backend fills no fused_optim slot).
 * Constant tables; any thread. */
#include <stdio.h>

#include "backends/xpu/xpu_backend.h"

#define XPU_NO_KERNELS                                                                             \
    "xpu: the fused device optimizers need SPIR-V kernels, which this build cannot compile "       \
    "(no SYCL/SPIR-V compiler); use the host optimizers (CPUAdamBuilder...)"

static bool xpu_fused_is_compatible(void *self, char *reason, size_t reason_cap)
{
    (void)self;
    snprintf(reason, reason_cap, "%s", XPU_NO_KERNELS);
    return false;
}

static accel_status_t xpu_fused_load(void *self, const void **out)
{
    (void)self;
    (void)out;
    return accel_backend_error(ACCEL_ERROR_UNSUPPORTED, "%s", XPU_NO_KERNELS);
}

static const accel_op_builder_desc_t xpu_builders[] = {
    {sizeof(accel_op_builder_desc_t), "FusedAdamBuilder", "fused_adam", xpu_fused_is_compatible,
     xpu_fused_load},
    {sizeof(accel_op_builder_desc_t), "FusedLionBuilder", "fused_lion", xpu_fused_is_compatible,
     xpu_fused_load},
    {sizeof(accel_op_builder_desc_t), "FusedLambBuilder", "fused_lamb", xpu_fused_is_compatible,
     xpu_fused_load},
};

const accel_op_builder_desc_t *accel_xpu_op_builders(void *self, size_t *out_count)
{
    (void)self;
    *out_count = sizeof xpu_builders / sizeof xpu_builders[0];
    return xpu_builders;
}
