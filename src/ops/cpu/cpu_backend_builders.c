/* cpu_backend_builders.c: the cpu backend's op-builder table. Its fused ops
 * run on the same memory as its host ops, so FusedAdamBuilder and
 * FusedLionBuilder load the host tables (DeepSpeed's cpu FusedAdam likewise
 * calls the CPU Adam step). Constant; safe from any thread. */
#include "ops/ops.h"

static const accel_op_builder_desc_t cpu_backend_builders[] = {
    ACCEL_HOST_OP_BUILDERS,
    {sizeof(accel_op_builder_desc_t), "FusedAdamBuilder", "fused_adam",
     accel_host_optim_is_compatible, accel_host_adam_load},
    {sizeof(accel_op_builder_desc_t), "FusedLionBuilder", "fused_lion",
     accel_host_optim_is_compatible, accel_host_lion_load},
};

const accel_op_builder_desc_t *accel_cpu_backend_op_builders(void *self, size_t *out_count)
{
    (void)self;
    *out_count = sizeof cpu_backend_builders / sizeof cpu_backend_builders[0];
    return cpu_backend_builders;
}
