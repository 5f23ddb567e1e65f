/* optim_scalar.c: the scalar optimizer kernels: the reference order of
 * operations every SIMD table reproduces (optim_kernels.h), and the path for
 * CPUs without AVX2. Built with -ffp-contract=off so only the explicit fmaf
 * calls fuse. Any alignment is fine. Stateless; safe on disjoint ranges from
 * any thread. */
#include <math.h>
#include <string.h>

#include "ops/cpu/half.h"
#include "ops/cpu/optim_kernels.h"

#define ACCEL_ALWAYS_INLINE static inline __attribute__((always_inline))

/* Loads and stores go through memcpy: host tensors may start at any byte
 * (the SIMD tables use unaligned loads too), and compilers turn these into
 * plain moves. */
ACCEL_ALWAYS_INLINE float load_element(const void *base, size_t i, accel_dtype_t dtype)
{
    if (dtype == ACCEL_DTYPE_F32) {
        float value;
        memcpy(&value, (const char *)base + i * sizeof value, sizeof value);
        return value;
    }
    uint16_t half;
    memcpy(&half, (const char *)base + i * sizeof half, sizeof half);
    return dtype == ACCEL_DTYPE_F16 ? accel_f16_to_f32(half) : accel_bf16_to_f32(half);
}

ACCEL_ALWAYS_INLINE void store_element(void *base, size_t i, accel_dtype_t dtype, float value)
{
    if (dtype == ACCEL_DTYPE_F32) {
        memcpy((char *)base + i * sizeof value, &value, sizeof value);
        return;
    }
    uint16_t half = dtype == ACCEL_DTYPE_F16 ? accel_f32_to_f16(value) : accel_f32_to_bf16(value);
    memcpy((char *)base + i * sizeof half, &half, sizeof half);
}

/* One element of Adam's update of *p, *m, *s by the grad g (the step and
 * the offload step's pass 2 share it; the vector kernels follow its order). */
ACCEL_ALWAYS_INLINE void adam_element(const accel_adam_coeffs_t *c, float g, float *p, float *m,
                                      float *s)
{
    if (c->l2_decay > 0.0f)
        g = fmaf(*p, c->l2_decay, g);
    *m = fmaf(g, c->one_minus_beta1, *m * c->beta1);
    *s = fmaf(g * g, c->one_minus_beta2, *s * c->beta2);
    float update = *m / fmaf(sqrtf(*s), c->bc2, c->eps);
    if (c->decoupled_decay != 0.0f)
        *p = fmaf(*p, c->decoupled_decay, *p);
    *p = fmaf(update, c->step_size, *p);
}

ACCEL_ALWAYS_INLINE void adam_range(const accel_adam_coeffs_t *c, const accel_optim_view_t *v,
                                    size_t begin, size_t end, accel_dtype_t pt, accel_dtype_t st)
{
    for (size_t i = begin; i < end; i++) {
        float p = load_element(v->param, i, pt);
        float m = load_element(v->state1, i, st);
        float s = load_element(v->state2, i, st);
        adam_element(c, load_element(v->grad, i, pt), &p, &m, &s);
        store_element(v->param, i, pt, p);
        store_element(v->state1, i, st, m);
        store_element(v->state2, i, st, s);
    }
}

ACCEL_ALWAYS_INLINE void adagrad_range(const accel_adagrad_coeffs_t *c, const accel_optim_view_t *v,
                                       size_t begin, size_t end, accel_dtype_t pt, accel_dtype_t st)
{
    for (size_t i = begin; i < end; i++) {
        float g = load_element(v->grad, i, pt);
        float p = load_element(v->param, i, pt);
        float s = load_element(v->state1, i, st);
        if (c->weight_decay > 0.0f)
            g = fmaf(p, c->weight_decay, g);
        s = fmaf(g, g, s);
        float update = g / (sqrtf(s) + c->eps);
        p = fmaf(update, c->step_size, p);
        store_element(v->param, i, pt, p);
        store_element(v->state1, i, st, s);
    }
}

ACCEL_ALWAYS_INLINE void lion_range(const accel_lion_coeffs_t *c, const accel_optim_view_t *v,
                                    size_t begin, size_t end, accel_dtype_t pt, accel_dtype_t st)
{
    for (size_t i = begin; i < end; i++) {
        float g = load_element(v->grad, i, pt);
        float p = load_element(v->param, i, pt);
        float m = load_element(v->state1, i, st);
        float blend = fmaf(g, c->one_minus_beta1, m * c->beta1);
        /* -lr carrying blend's sign flipped: step against the blend's sign bit */
        float update = accel_f32_from_bits(accel_f32_bits(c->step_size) ^
                                           (accel_f32_bits(blend) & 0x80000000u));
        p = c->has_decay ? fmaf(p, c->after_decay, update) : p + update;
        m = fmaf(g, c->one_minus_beta2, m * c->beta2);
        store_element(v->param, i, pt, p);
        store_element(v->state1, i, st, m);
    }
}

/* Pass 2 of the offload step: adam_range with f32 param and moments, the
 * grad unscaled on read and the param's rounded copy written beside it. */
ACCEL_ALWAYS_INLINE void offload_adam_range(const accel_adam_coeffs_t *c, float inverse,
                                            const accel_offload_view_t *v, size_t begin, size_t end,
                                            accel_dtype_t gt, accel_dtype_t lt)
{
    for (size_t i = begin; i < end; i++) {
        float p = load_element(v->param, i, ACCEL_DTYPE_F32);
        float m = load_element(v->exp_avg, i, ACCEL_DTYPE_F32);
        float s = load_element(v->exp_avg_sq, i, ACCEL_DTYPE_F32);
        adam_element(c, load_element(v->grad, i, gt) * inverse, &p, &m, &s);
        store_element(v->param, i, ACCEL_DTYPE_F32, p);
        store_element(v->exp_avg, i, ACCEL_DTYPE_F32, m);
        store_element(v->exp_avg_sq, i, ACCEL_DTYPE_F32, s);
        if (lt != ACCEL_DTYPE_F32)
            store_element(v->lp, i, lt, p);
    }
}

void accel_offload_sumsq_lanes(const accel_offload_view_t *view, size_t begin, size_t from,
                               size_t end, double lanes[ACCEL_OFFLOAD_LANES])
{
    for (size_t i = from; i < end; i++) {
        double g = (double)load_element(view->grad, i, view->grad_dtype);
        lanes[(i - begin) % ACCEL_OFFLOAD_LANES] += g * g;
    }
}

static double offload_sumsq_scalar(const accel_offload_view_t *view, size_t begin, size_t end)
{
    double lanes[ACCEL_OFFLOAD_LANES] = {0};
    accel_offload_sumsq_lanes(view, begin, begin, end, lanes);
    return accel_offload_lanes_total(lanes);
}

static void offload_adam_scalar(const accel_adam_coeffs_t *coeffs, float inverse,
                                const accel_offload_view_t *view, size_t begin, size_t end)
{
    ACCEL_OFFLOAD_DTYPE_DISPATCH(offload_adam_range, coeffs, inverse, view, begin, end);
}

static void adam_scalar(const accel_adam_coeffs_t *coeffs, const accel_optim_view_t *view,
                        size_t begin, size_t end)
{
    ACCEL_OPTIM_DTYPE_DISPATCH(adam_range, coeffs, view, begin, end);
}

static void adagrad_scalar(const accel_adagrad_coeffs_t *coeffs, const accel_optim_view_t *view,
                           size_t begin, size_t end)
{
    ACCEL_OPTIM_DTYPE_DISPATCH(adagrad_range, coeffs, view, begin, end);
}

static void lion_scalar(const accel_lion_coeffs_t *coeffs, const accel_optim_view_t *view,
                        size_t begin, size_t end)
{
    ACCEL_OPTIM_DTYPE_DISPATCH(lion_range, coeffs, view, begin, end);
}

const accel_optim_kernels_t accel_optim_kernels_scalar = {
    .isa = ACCEL_CPU_ISA_SCALAR,
    .name = "scalar",
    .adam = adam_scalar,
    .adagrad = adagrad_scalar,
    .lion = lion_scalar,
    .offload_sumsq = offload_sumsq_scalar,
    .offload_adam = offload_adam_scalar,
};
