/* lamb_kernels.h: the host LAMB kernels (FusedLamb on host memory) in three
 * passes: moments and per-segment squared norms, the fixed-order reduction
 * of the partials (accel_backend.h, ACCEL_LAMB_SEGMENT), and the parameter
 * update with the clamped trust ratio. Device kernels reproduce exactly
 * these operations in this order. The per-element passes come in two
 * tables built from the same source (lamb_scalar.c): plain, and compiled
 * for AVX2 + FMA + F16C (lamb_fma.c), where fmaf and the f16 conversions are
 * single instructions instead of library calls. Every operation is
 * correctly rounded either way, so both give the same bits. Kernels touch
 * only their arguments; safe from any thread on disjoint ranges. */
#ifndef ACCEL_OPS_CPU_LAMB_KERNELS_H
#define ACCEL_OPS_CPU_LAMB_KERNELS_H

#include <stddef.h>

#include "core/cpu_isa.h"
#include "ops/ops.h"

/* Segments of a tensor of `count` elements. */
static inline size_t accel_lamb_segments(size_t count)
{
    return (count + ACCEL_LAMB_SEGMENT - 1) / ACCEL_LAMB_SEGMENT;
}

/* Pass 1 over segments [seg_begin, seg_end): update and store exp_avg and
 * exp_avg_sq, and write partials[2 s] = sum of p^2 and partials[2 s + 1] =
 * sum of u^2 over segment s (p before the step, u from the stored moments). */
typedef void (*accel_lamb_moments_fn_t)(const accel_lamb_coeffs_t *coeffs,
                                        const accel_optim_view_t *view, size_t seg_begin,
                                        size_t seg_end, float *partials);
/* Pass 3 over elements [begin, end): p += scale * u. */
typedef void (*accel_lamb_apply_fn_t)(const accel_lamb_coeffs_t *coeffs,
                                      const accel_optim_view_t *view, float scale, size_t begin,
                                      size_t end);

typedef struct accel_lamb_kernels {
    accel_cpu_isa_t isa;
    const char *name; /* "scalar", "fma" */
    accel_lamb_moments_fn_t moments;
    accel_lamb_apply_fn_t apply;
} accel_lamb_kernels_t;

extern const accel_lamb_kernels_t accel_lamb_kernels_scalar;
extern const accel_lamb_kernels_t accel_lamb_kernels_fma; /* x86-64 builds only */

/* The table for `isa` (AVX2 and up: fma); NULL if this CPU cannot run it. */
const accel_lamb_kernels_t *accel_lamb_kernels_for(accel_cpu_isa_t isa);

/* The scalar table's passes (what the device kernels mirror). */
void accel_lamb_moments(const accel_lamb_coeffs_t *coeffs, const accel_optim_view_t *view,
                        size_t seg_begin, size_t seg_end, float *partials);

/* Pass 2: reduce the `segments` (w, u) pairs of `partials` in place, level by
 * level, into out[0] = |p|^2 and out[1] = |u|^2. */
void accel_lamb_reduce(float *partials, size_t segments, float out[2]);

/* The factor pass 3 multiplies u by: -(step_size * ratio), where ratio is
 * sqrt(w_sq) / sqrt(u_sq) clamped to [min_coeff, max_coeff], 1 if either
 * norm is 0. */
float accel_lamb_scale(const accel_lamb_coeffs_t *coeffs, float w_sq, float u_sq);

void accel_lamb_apply(const accel_lamb_coeffs_t *coeffs, const accel_optim_view_t *view,
                      float scale, size_t begin, size_t end);

#endif /* ACCEL_OPS_CPU_LAMB_KERNELS_H */
