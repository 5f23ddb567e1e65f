/* fused_optim.h: the CUDA backend's fused optimizer kernels (FusedAdam,
 * FusedLion), the table of its fused_optim slot, and their CUDA C program,
 * compiled with NVRTC through the backend's module cache. Constant; safe
 * from any thread. */
#ifndef ACCEL_BACKENDS_CUDA_FUSED_OPTIM_H
#define ACCEL_BACKENDS_CUDA_FUSED_OPTIM_H

#include "accel/accel_backend.h"
#include "backends/cuda/cuda_backend.h"

extern const accel_fused_optim_ops_t accel_cuda_fused_optim;

/* The optimizer kernels' program (also compiled by the build-time check). */
extern const accel_cuda_program_t accel_cuda_optim_program;

#endif /* ACCEL_BACKENDS_CUDA_FUSED_OPTIM_H */
