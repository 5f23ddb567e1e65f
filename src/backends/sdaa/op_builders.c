/* op_builders.c: the sdaa backend's own op builders, listed after the host
 * optimizers core gives every backend (CPUAdamBuilder... run on the CPU, as
 * DeepSpeed's sdaa does): the fused device optimizers (DeepSpeed's sdaa
 * op_builder has FusedAdamBuilder; accel lists Lion and Lamb beside it as
 * every backend does), listed but not compatible: they would be SDAA
 * kernels, and this build has no Teco kernel compiler (so the backend fills
 * no fused_optim slot). Constant tables; any thread. */
#include <stdio.h>

#include "backends/sdaa/sdaa_backend.h"

#define SDAA_NO_KERNELS                                                                            \
    "sdaa: the fused device optimizers need SDAA kernels, which this build cannot compile (no "    \
    "Teco kernel compiler); use the host optimizers (CPUAdamBuilder...)"

static bool sdaa_fused_is_compatible(void *self, char *reason, size_t reason_cap)
{
    (void)self;
    snprintf(reason, reason_cap, "%s", SDAA_NO_KERNELS);
    return false;
}

static accel_status_t sdaa_fused_load(void *self, const void **out)
{
    (void)self;
    (void)out;
    return accel_backend_error(ACCEL_ERROR_UNSUPPORTED, "%s", SDAA_NO_KERNELS);
}

static const accel_op_builder_desc_t sdaa_builders[] = {
    {sizeof(accel_op_builder_desc_t), "FusedAdamBuilder", "fused_adam", sdaa_fused_is_compatible,
     sdaa_fused_load},
    {sizeof(accel_op_builder_desc_t), "FusedLionBuilder", "fused_lion", sdaa_fused_is_compatible,
     sdaa_fused_load},
    {sizeof(accel_op_builder_desc_t), "FusedLambBuilder", "fused_lamb", sdaa_fused_is_compatible,
     sdaa_fused_load},
};

const accel_op_builder_desc_t *accel_sdaa_op_builders(void *self, size_t *out_count)
{
    (void)self;
    *out_count = sizeof sdaa_builders / sizeof sdaa_builders[0];
    return sdaa_builders;
}
