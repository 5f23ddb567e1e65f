/* optim_kernels.h: the CPU optimizer kernels, one table per instruction set.
 * A kernel updates elements [begin, end) of a validated step (ops.h) and
 * nothing else, so the worker pool can split a step across threads.
 *
 * Every table computes the same operations in the same order, each rounded
 * once (fused multiply-adds where ops.h's formulas have a*b+c, correctly
 * rounded sqrt and divide), so scalar, AVX2 and AVX-512 give bit-identical
 * results for any split of the range. Kernels read only their arguments;
 * safe from any thread on disjoint ranges. */
#ifndef ACCEL_OPS_CPU_OPTIM_KERNELS_H
#define ACCEL_OPS_CPU_OPTIM_KERNELS_H

#include <stddef.h>

#include "core/cpu_isa.h"
#include "ops/ops.h"

typedef void (*accel_adam_kernel_t)(const accel_adam_coeffs_t *coeffs,
                                    const accel_optim_view_t *view, size_t begin, size_t end);
typedef void (*accel_adagrad_kernel_t)(const accel_adagrad_coeffs_t *coeffs,
                                       const accel_optim_view_t *view, size_t begin, size_t end);
typedef void (*accel_lion_kernel_t)(const accel_lion_coeffs_t *coeffs,
                                    const accel_optim_view_t *view, size_t begin, size_t end);

typedef struct accel_optim_kernels {
    accel_cpu_isa_t isa;
    const char *name; /* "scalar", "avx2", "avx512" */
    accel_adam_kernel_t adam;
    accel_adagrad_kernel_t adagrad;
    accel_lion_kernel_t lion;
} accel_optim_kernels_t;

extern const accel_optim_kernels_t accel_optim_kernels_scalar;
extern const accel_optim_kernels_t accel_optim_kernels_avx2;
extern const accel_optim_kernels_t accel_optim_kernels_avx512;

/* The table for `isa` (core/cpu_isa.h); NULL if this CPU cannot run it. */
const accel_optim_kernels_t *accel_optim_kernels_for(accel_cpu_isa_t isa);

/* Calls range_fn(coeffs, view, begin, end, param_dtype, state_dtype) with
 * the view's dtype pair as constants, so an always-inline range_fn is
 * compiled once per supported pair. */
#define ACCEL_OPTIM_DTYPE_DISPATCH(range_fn, coeffs, view, begin, end)                             \
    do {                                                                                           \
        accel_dtype_t pt_ = (view)->param_dtype, st_ = (view)->state_dtype;                        \
        if (pt_ == ACCEL_DTYPE_F32)                                                                \
            range_fn(coeffs, view, begin, end, ACCEL_DTYPE_F32, ACCEL_DTYPE_F32);                  \
        else if (pt_ == ACCEL_DTYPE_F16 && st_ == ACCEL_DTYPE_F32)                                 \
            range_fn(coeffs, view, begin, end, ACCEL_DTYPE_F16, ACCEL_DTYPE_F32);                  \
        else if (pt_ == ACCEL_DTYPE_F16)                                                           \
            range_fn(coeffs, view, begin, end, ACCEL_DTYPE_F16, ACCEL_DTYPE_F16);                  \
        else if (st_ == ACCEL_DTYPE_F32)                                                           \
            range_fn(coeffs, view, begin, end, ACCEL_DTYPE_BF16, ACCEL_DTYPE_F32);                 \
        else                                                                                       \
            range_fn(coeffs, view, begin, end, ACCEL_DTYPE_BF16, ACCEL_DTYPE_BF16);                \
    } while (0)

#endif /* ACCEL_OPS_CPU_OPTIM_KERNELS_H */
