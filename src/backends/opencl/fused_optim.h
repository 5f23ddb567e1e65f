/* fused_optim.h: the OpenCL backend's fused optimizer kernels (FusedAdam,
 * FusedLion), the table of its fused_optim slot. The kernels (fused_optim.c)
 * are built through the backend's program cache at a builder's first load.
 * Constant; safe from any thread. */
#ifndef ACCEL_BACKENDS_OPENCL_FUSED_OPTIM_H
#define ACCEL_BACKENDS_OPENCL_FUSED_OPTIM_H

#include "accel/accel_backend.h"

extern const accel_fused_optim_ops_t accel_opencl_fused_optim;

#endif /* ACCEL_BACKENDS_OPENCL_FUSED_OPTIM_H */
