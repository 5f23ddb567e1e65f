/* fused_optim.h: the OpenCL backend's op builders: the host optimizer ops
 * every backend lists (ops.h), then FusedAdamBuilder and FusedLionBuilder,
 * whose kernels (fused_optim.c) are built through the backend's program
 * cache on first load. The table is constant; safe from any thread. */
#ifndef ACCEL_OPS_OPENCL_FUSED_OPTIM_H
#define ACCEL_OPS_OPENCL_FUSED_OPTIM_H

#include <stddef.h>

#include "accel/accel_backend.h"

/* The op_builders slot of the OpenCL backend (self: its backend state). */
const accel_op_builder_desc_t *accel_opencl_op_builders(void *self, size_t *out_count);

#endif /* ACCEL_OPS_OPENCL_FUSED_OPTIM_H */
