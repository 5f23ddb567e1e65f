/* op_builders.c: the hpu backend's own op builders, listed after the host
 * optimizers core gives every backend (CPUAdamBuilder... run on the CPU):
 * the fused device optimizers, listed but not compatible: on a Gaudi they
 * would be TPC kernels, and this build has no TPC compiler (so the backend
 * fills no fused_optim slot). Constant tables; any thread. */
#include <stdio.h>

#include "backends/hpu/hpu_backend.h"

#define HPU_NO_KERNELS                                                                             \
    "hpu: the fused device optimizers need Gaudi TPC kernels, which this build cannot compile "    \
    "(no Habana TPC compiler); use the host optimizers (CPUAdamBuilder...)"

static bool hpu_fused_is_compatible(void *self, char *reason, size_t reason_cap)
{
    (void)self;
    snprintf(reason, reason_cap, "%s", HPU_NO_KERNELS);
    return false;
}

static accel_status_t hpu_fused_load(void *self, const void **out)
{
    (void)self;
    (void)out;
    return accel_backend_error(ACCEL_ERROR_UNSUPPORTED, "%s", HPU_NO_KERNELS);
}

static const accel_op_builder_desc_t hpu_builders[] = {
    {sizeof(accel_op_builder_desc_t), "FusedAdamBuilder", "fused_adam", hpu_fused_is_compatible,
     hpu_fused_load},
    {sizeof(accel_op_builder_desc_t), "FusedLionBuilder", "fused_lion", hpu_fused_is_compatible,
     hpu_fused_load},
    {sizeof(accel_op_builder_desc_t), "FusedLambBuilder", "fused_lamb", hpu_fused_is_compatible,
     hpu_fused_load},
};

const accel_op_builder_desc_t *accel_hpu_op_builders(void *self, size_t *out_count)
{
    (void)self;
    *out_count = sizeof hpu_builders / sizeof hpu_builders[0];
    return hpu_builders;
}
