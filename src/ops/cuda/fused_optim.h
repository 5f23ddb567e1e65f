/* fused_optim.h: the CUDA backend's op builders: the host optimizer ops
 * every backend lists (ops.h), then FusedAdamBuilder and FusedLionBuilder,
 * whose CUDA C kernels (fused_optim.c) are compiled with NVRTC through the
 * backend's module cache. Constant; safe from any thread. */
#ifndef ACCEL_OPS_CUDA_FUSED_OPTIM_H
#define ACCEL_OPS_CUDA_FUSED_OPTIM_H

#include <stddef.h>

#include "accel/accel_backend.h"
#include "backends/cuda/cuda_backend.h"

/* The op_builders slot of the CUDA backend (self: its backend state). */
const accel_op_builder_desc_t *accel_cuda_op_builders(void *self, size_t *out_count);

/* The optimizer kernels' program (also compiled by the build-time check). */
extern const accel_cuda_program_t accel_cuda_optim_program;

#endif /* ACCEL_OPS_CUDA_FUSED_OPTIM_H */
