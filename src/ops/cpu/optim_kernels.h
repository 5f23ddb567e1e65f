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

/* ZeRO-Offload's two passes (accel_ops.h, accel_offload_config_t).
 *
 * Pass 1, the grads' sum of squares in double over one segment [begin,
 * end) of an entry: element i goes to lane (i - begin) % ACCEL_OFFLOAD_LANES,
 * each lane summed in element order ((double)g * g is exact, so a fused and
 * an unfused multiply-add agree), then the lanes summed in lane order. The
 * host op cuts each entry into segments of ACCEL_OFFLOAD_SEGMENT elements
 * and sums their results in order, so the norm has the same bits for any
 * thread count and table. A non-finite sum means an inf or NaN grad (the
 * square of the largest f32 is far inside double's range).
 *
 * Pass 2, elements [begin, end) of an entry: g = grad * inverse (f32), the
 * Adam step of adam_kernel on the f32 param and moments, and the rounded
 * param into lp when the view has one. */
#define ACCEL_OFFLOAD_LANES   16
#define ACCEL_OFFLOAD_SEGMENT 4096

typedef double (*accel_offload_sumsq_t)(const accel_offload_view_t *view, size_t begin, size_t end);
typedef void (*accel_offload_adam_t)(const accel_adam_coeffs_t *coeffs, float inverse,
                                     const accel_offload_view_t *view, size_t begin, size_t end);

typedef struct accel_optim_kernels {
    accel_cpu_isa_t isa;
    const char *name; /* "scalar", "avx2", "avx512" */
    accel_adam_kernel_t adam;
    accel_adagrad_kernel_t adagrad;
    accel_lion_kernel_t lion;
    accel_offload_sumsq_t offload_sumsq;
    accel_offload_adam_t offload_adam;
} accel_optim_kernels_t;

/* The scalar part of pass 1 that every table shares: add the squares of
 * grad[from, end) into lanes (element i into lane (i - begin) % LANES). */
void accel_offload_sumsq_lanes(const accel_offload_view_t *view, size_t begin, size_t from,
                               size_t end, double lanes[ACCEL_OFFLOAD_LANES]);

/* The lanes' sum, in lane order. */
static inline double accel_offload_lanes_total(const double lanes[ACCEL_OFFLOAD_LANES])
{
    double total = 0.0;
    for (int k = 0; k < ACCEL_OFFLOAD_LANES; k++)
        total += lanes[k];
    return total;
}

/* Calls range_fn(coeffs, inverse, view, begin, end, grad_dtype, lp_dtype)
 * with the view's grad dtype and lp dtype (ACCEL_DTYPE_F32 = no lp) as
 * constants, so an always-inline range_fn is compiled once per pair. */
#define ACCEL_OFFLOAD_DTYPE_DISPATCH_LP(range_fn, c, inv, v, b, e, gt)                             \
    do {                                                                                           \
        if ((v)->lp == NULL)                                                                       \
            range_fn(c, inv, v, b, e, gt, ACCEL_DTYPE_F32);                                        \
        else if ((v)->lp_dtype == ACCEL_DTYPE_F16)                                                 \
            range_fn(c, inv, v, b, e, gt, ACCEL_DTYPE_F16);                                        \
        else                                                                                       \
            range_fn(c, inv, v, b, e, gt, ACCEL_DTYPE_BF16);                                       \
    } while (0)
#define ACCEL_OFFLOAD_DTYPE_DISPATCH(range_fn, c, inv, v, b, e)                                    \
    do {                                                                                           \
        if ((v)->grad_dtype == ACCEL_DTYPE_F32)                                                    \
            ACCEL_OFFLOAD_DTYPE_DISPATCH_LP(range_fn, c, inv, v, b, e, ACCEL_DTYPE_F32);           \
        else if ((v)->grad_dtype == ACCEL_DTYPE_F16)                                               \
            ACCEL_OFFLOAD_DTYPE_DISPATCH_LP(range_fn, c, inv, v, b, e, ACCEL_DTYPE_F16);           \
        else                                                                                       \
            ACCEL_OFFLOAD_DTYPE_DISPATCH_LP(range_fn, c, inv, v, b, e, ACCEL_DTYPE_BF16);          \
    } while (0)

extern const accel_optim_kernels_t accel_optim_kernels_scalar;
extern const accel_optim_kernels_t accel_optim_kernels_avx2;
extern const accel_optim_kernels_t accel_optim_kernels_avx512;
/* The AVX-512 kernels with VCVTNEPS2BF16 bf16 stores (AVX512_BF16 + DQ). */
extern const accel_optim_kernels_t accel_optim_kernels_avx512_bf16;

/* The table the host ops use (chosen once from cpuid and ACCEL_CPU_ISA). */
const accel_optim_kernels_t *accel_host_optim_kernels(void);

/* The table for `isa` (core/cpu_isa.h); NULL if this CPU cannot run it.
 * For AVX-512, the bf16-instruction table where cpuid shows AVX512_BF16 and
 * AVX512DQ (the same bits either way). */
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
