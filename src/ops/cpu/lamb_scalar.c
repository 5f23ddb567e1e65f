/* lamb_scalar.c: the host LAMB kernels (lamb_kernels.h), scalar: the
 * reference order of operations for the OpenCL and CUDA lamb kernels. Built
 * with -ffp-contract=off so only the explicit fmaf calls fuse. lamb_fma.c
 * includes this file again with LAMB_VARIANT set, compiled for AVX2 + FMA,
 * to make the "fma" table from the same code. Stateless; safe on disjoint
 * ranges from any thread. */
#include <math.h>

#include "ops/cpu/half.h"
#include "ops/cpu/lamb_kernels.h"

#define ACCEL_ALWAYS_INLINE static inline __attribute__((always_inline))

ACCEL_ALWAYS_INLINE float lamb_load(const void *base, size_t i, accel_dtype_t dtype)
{
    if (dtype == ACCEL_DTYPE_F32)
        return ((const float *)base)[i];
    if (dtype == ACCEL_DTYPE_F16)
        return accel_f16_to_f32(((const uint16_t *)base)[i]);
    return accel_bf16_to_f32(((const uint16_t *)base)[i]);
}

/* Store `value` and return what was stored, read back as f32. */
ACCEL_ALWAYS_INLINE float lamb_store(void *base, size_t i, accel_dtype_t dtype, float value)
{
    if (dtype == ACCEL_DTYPE_F32) {
        ((float *)base)[i] = value;
        return value;
    }
    if (dtype == ACCEL_DTYPE_F16) {
        uint16_t h = accel_f32_to_f16(value);
        ((uint16_t *)base)[i] = h;
        return accel_f16_to_f32(h);
    }
    uint16_t b = accel_f32_to_bf16(value);
    ((uint16_t *)base)[i] = b;
    return accel_bf16_to_f32(b);
}

ACCEL_ALWAYS_INLINE float lamb_update(const accel_lamb_coeffs_t *c, float p, float m, float v)
{
    float denom = c->eps_inside_sqrt ? sqrtf(v + c->eps) : sqrtf(v) + c->eps;
    return fmaf(c->weight_decay, p, m / denom);
}

ACCEL_ALWAYS_INLINE void moments_range(const accel_lamb_coeffs_t *c, const accel_optim_view_t *v,
                                       size_t seg_begin, size_t seg_end, float *partials,
                                       accel_dtype_t pt, accel_dtype_t st)
{
    for (size_t s = seg_begin; s < seg_end; s++) {
        size_t begin = s * ACCEL_LAMB_SEGMENT;
        size_t end = begin + ACCEL_LAMB_SEGMENT < v->count ? begin + ACCEL_LAMB_SEGMENT : v->count;
        float w_sq = 0.0f, u_sq = 0.0f;
        for (size_t i = begin; i < end; i++) {
            float g = lamb_load(v->grad, i, pt) / c->grad_scale;
            float p = lamb_load(v->param, i, pt);
            float m = lamb_load(v->state1, i, st);
            float s2 = lamb_load(v->state2, i, st);
            m = lamb_store(v->state1, i, st, fmaf(g, c->one_minus_beta1, m * c->beta1));
            s2 = lamb_store(v->state2, i, st, fmaf(g * g, c->one_minus_beta2, s2 * c->beta2));
            float u = lamb_update(c, p, m, s2);
            w_sq = fmaf(p, p, w_sq);
            u_sq = fmaf(u, u, u_sq);
        }
        partials[2 * s] = w_sq;
        partials[2 * s + 1] = u_sq;
    }
}

ACCEL_ALWAYS_INLINE void apply_range(const accel_lamb_coeffs_t *c, const accel_optim_view_t *v,
                                     float scale, size_t begin, size_t end, accel_dtype_t pt,
                                     accel_dtype_t st)
{
    for (size_t i = begin; i < end; i++) {
        float p = lamb_load(v->param, i, pt);
        float u = lamb_update(c, p, lamb_load(v->state1, i, st), lamb_load(v->state2, i, st));
        lamb_store(v->param, i, pt, fmaf(u, scale, p));
    }
}

/* The dtype-pair dispatch of optim_kernels.h, with the extra argument. */
#define LAMB_DISPATCH(fn, c, v, a, b, x)                                                           \
    do {                                                                                           \
        accel_dtype_t pt_ = (v)->param_dtype, st_ = (v)->state_dtype;                              \
        if (pt_ == ACCEL_DTYPE_F32)                                                                \
            fn(c, v, a, b, x, ACCEL_DTYPE_F32, ACCEL_DTYPE_F32);                                   \
        else if (pt_ == ACCEL_DTYPE_F16 && st_ == ACCEL_DTYPE_F32)                                 \
            fn(c, v, a, b, x, ACCEL_DTYPE_F16, ACCEL_DTYPE_F32);                                   \
        else if (pt_ == ACCEL_DTYPE_F16)                                                           \
            fn(c, v, a, b, x, ACCEL_DTYPE_F16, ACCEL_DTYPE_F16);                                   \
        else if (st_ == ACCEL_DTYPE_F32)                                                           \
            fn(c, v, a, b, x, ACCEL_DTYPE_BF16, ACCEL_DTYPE_F32);                                  \
        else                                                                                       \
            fn(c, v, a, b, x, ACCEL_DTYPE_BF16, ACCEL_DTYPE_BF16);                                 \
    } while (0)

static void lamb_moments(const accel_lamb_coeffs_t *coeffs, const accel_optim_view_t *view,
                         size_t seg_begin, size_t seg_end, float *partials)
{
    LAMB_DISPATCH(moments_range, coeffs, view, seg_begin, seg_end, partials);
}

static void lamb_apply(const accel_lamb_coeffs_t *coeffs, const accel_optim_view_t *view,
                       float scale, size_t begin, size_t end)
{
    /* apply_range takes (begin, end, scale) in another order: adapt */
#define APPLY(c, v, b, e, sc, pt, st) apply_range(c, v, sc, b, e, pt, st)
    LAMB_DISPATCH(APPLY, coeffs, view, begin, end, scale);
#undef APPLY
}

#ifdef LAMB_VARIANT /* lamb_fma.c */

const accel_lamb_kernels_t accel_lamb_kernels_fma = {ACCEL_CPU_ISA_AVX2, "fma", lamb_moments,
                                                     lamb_apply};

#else

const accel_lamb_kernels_t accel_lamb_kernels_scalar = {ACCEL_CPU_ISA_SCALAR, "scalar",
                                                        lamb_moments, lamb_apply};

const accel_lamb_kernels_t *accel_lamb_kernels_for(accel_cpu_isa_t isa)
{
    if (isa > accel_cpu_isa_detected())
        return NULL;
#if defined(__x86_64__) || defined(__i386__)
    if (isa >= ACCEL_CPU_ISA_AVX2)
        return &accel_lamb_kernels_fma;
#endif
    return &accel_lamb_kernels_scalar;
}

void accel_lamb_moments(const accel_lamb_coeffs_t *coeffs, const accel_optim_view_t *view,
                        size_t seg_begin, size_t seg_end, float *partials)
{
    lamb_moments(coeffs, view, seg_begin, seg_end, partials);
}

void accel_lamb_apply(const accel_lamb_coeffs_t *coeffs, const accel_optim_view_t *view,
                      float scale, size_t begin, size_t end)
{
    lamb_apply(coeffs, view, scale, begin, end);
}

void accel_lamb_reduce(float *partials, size_t segments, float out[2])
{
    /* Group j of a level reads pairs [j S, (j + 1) S) and writes pair j:
     * j <= j S, and the groups before it only wrote pairs below j, so in
     * place is safe when run in order. */
    size_t n = segments;
    while (n > 1) {
        size_t groups = (n + ACCEL_LAMB_SEGMENT - 1) / ACCEL_LAMB_SEGMENT;
        for (size_t j = 0; j < groups; j++) {
            size_t begin = j * ACCEL_LAMB_SEGMENT;
            size_t end = begin + ACCEL_LAMB_SEGMENT < n ? begin + ACCEL_LAMB_SEGMENT : n;
            float w = 0.0f, u = 0.0f;
            for (size_t k = begin; k < end; k++) {
                w += partials[2 * k];
                u += partials[2 * k + 1];
            }
            partials[2 * j] = w;
            partials[2 * j + 1] = u;
        }
        n = groups;
    }
    out[0] = partials[0];
    out[1] = partials[1];
}

float accel_lamb_scale(const accel_lamb_coeffs_t *c, float w_sq, float u_sq)
{
    float w = sqrtf(w_sq), u = sqrtf(u_sq), ratio = 1.0f;
    if (w != 0.0f && u != 0.0f) {
        ratio = w / u;
        if (ratio > c->max_coeff)
            ratio = c->max_coeff;
        if (ratio < c->min_coeff)
            ratio = c->min_coeff;
    }
    return -(c->step_size * ratio);
}

#endif /* LAMB_VARIANT */
