/* optim_simd_body.h: the vector optimizer kernels, written once over a small
 * vector vocabulary that optim_avx2.c and optim_avx512.c each define before
 * including this file (vec_t, VEC_WIDTH, vec_set1, vec_load, vec_store,
 * vec_mul, vec_add, vec_div, vec_sqrt, vec_fma(a, b, c) = a*b+c rounded once,
 * vec_step_against_sign(step, x) = step with its sign flipped where x's sign
 * bit is set; for the offload norm, sumsq_t holding ACCEL_OFFLOAD_LANES
 * double lanes, sumsq_zero, sumsq_add16(acc, base, i, dtype) adding the
 * squares of elements i..i+15 to lanes 0..15, sumsq_store(acc, lanes)). Operation order matches
 * optim_scalar.c exactly; the tail that does not fill a vector runs the scalar kernel. The
 * including file defines OPTIM_SIMD_TABLE (the table's name), OPTIM_SIMD_ISA and OPTIM_SIMD_NAME.
 */

/* Adam's coefficients broadcast once per range. */
typedef struct adam_vectors {
    vec_t beta1, one_minus_beta1, beta2, one_minus_beta2, eps, bc2, step_size, l2_decay, decoupled;
    int has_l2, has_decoupled;
} adam_vectors_t;

ACCEL_SIMD_INLINE adam_vectors_t adam_vectors(const accel_adam_coeffs_t *c)
{
    return (adam_vectors_t){vec_set1(c->beta1),
                            vec_set1(c->one_minus_beta1),
                            vec_set1(c->beta2),
                            vec_set1(c->one_minus_beta2),
                            vec_set1(c->eps),
                            vec_set1(c->bc2),
                            vec_set1(c->step_size),
                            vec_set1(c->l2_decay),
                            vec_set1(c->decoupled_decay),
                            c->l2_decay > 0.0f,
                            c->decoupled_decay != 0.0f};
}

/* One vector of Adam's update of *p, *m, *s by the grads g (the step and
 * the offload step's pass 2 share it). */
ACCEL_SIMD_INLINE void adam_vector_update(const adam_vectors_t *k, vec_t g, vec_t *p, vec_t *m,
                                          vec_t *s)
{
    if (k->has_l2)
        g = vec_fma(*p, k->l2_decay, g);
    *m = vec_fma(g, k->one_minus_beta1, vec_mul(*m, k->beta1));
    *s = vec_fma(vec_mul(g, g), k->one_minus_beta2, vec_mul(*s, k->beta2));
    vec_t update = vec_div(*m, vec_fma(vec_sqrt(*s), k->bc2, k->eps));
    if (k->has_decoupled)
        *p = vec_fma(*p, k->decoupled, *p);
    *p = vec_fma(update, k->step_size, *p);
}

ACCEL_SIMD_INLINE void adam_vector_range(const accel_adam_coeffs_t *c,
                                         const accel_optim_view_t *view, size_t begin, size_t end,
                                         accel_dtype_t pt, accel_dtype_t st)
{
    const adam_vectors_t k = adam_vectors(c);
    /* locals: the vector stores may alias *view, which would reload it */
    void *const param = view->param, *const state1 = view->state1, *const state2 = view->state2;
    const void *const grad = view->grad;
    size_t i = begin;
    for (; i + VEC_WIDTH <= end; i += VEC_WIDTH) {
        vec_t p = vec_load(param, i, pt);
        vec_t m = vec_load(state1, i, st);
        vec_t s = vec_load(state2, i, st);
        adam_vector_update(&k, vec_load(grad, i, pt), &p, &m, &s);
        vec_store(param, i, pt, p);
        vec_store(state1, i, st, m);
        vec_store(state2, i, st, s);
    }
    if (i < end)
        accel_optim_kernels_scalar.adam(c, view, i, end);
}

ACCEL_SIMD_INLINE void adagrad_vector_range(const accel_adagrad_coeffs_t *c,
                                            const accel_optim_view_t *view, size_t begin,
                                            size_t end, accel_dtype_t pt, accel_dtype_t st)
{
    const vec_t eps = vec_set1(c->eps), step_size = vec_set1(c->step_size);
    const vec_t weight_decay = vec_set1(c->weight_decay);
    const int has_decay = c->weight_decay > 0.0f;
    size_t i = begin;
    for (; i + VEC_WIDTH <= end; i += VEC_WIDTH) {
        vec_t g = vec_load(view->grad, i, pt);
        vec_t p = vec_load(view->param, i, pt);
        vec_t s = vec_load(view->state1, i, st);
        if (has_decay)
            g = vec_fma(p, weight_decay, g);
        s = vec_fma(g, g, s);
        vec_t update = vec_div(g, vec_add(vec_sqrt(s), eps));
        p = vec_fma(update, step_size, p);
        vec_store(view->param, i, pt, p);
        vec_store(view->state1, i, st, s);
    }
    if (i < end)
        accel_optim_kernels_scalar.adagrad(c, view, i, end);
}

ACCEL_SIMD_INLINE void lion_vector_range(const accel_lion_coeffs_t *c,
                                         const accel_optim_view_t *view, size_t begin, size_t end,
                                         accel_dtype_t pt, accel_dtype_t st)
{
    const vec_t beta1 = vec_set1(c->beta1), one_minus_beta1 = vec_set1(c->one_minus_beta1);
    const vec_t beta2 = vec_set1(c->beta2), one_minus_beta2 = vec_set1(c->one_minus_beta2);
    const vec_t step_size = vec_set1(c->step_size), after_decay = vec_set1(c->after_decay);
    const int has_decay = c->has_decay;
    size_t i = begin;
    for (; i + VEC_WIDTH <= end; i += VEC_WIDTH) {
        vec_t g = vec_load(view->grad, i, pt);
        vec_t p = vec_load(view->param, i, pt);
        vec_t m = vec_load(view->state1, i, st);
        vec_t blend = vec_fma(g, one_minus_beta1, vec_mul(m, beta1));
        vec_t update = vec_step_against_sign(step_size, blend);
        p = has_decay ? vec_fma(p, after_decay, update) : vec_add(p, update);
        m = vec_fma(g, one_minus_beta2, vec_mul(m, beta2));
        vec_store(view->param, i, pt, p);
        vec_store(view->state1, i, st, m);
    }
    if (i < end)
        accel_optim_kernels_scalar.lion(c, view, i, end);
}

ACCEL_SIMD_INLINE void offload_adam_vector_range(const accel_adam_coeffs_t *c, float inverse_scale,
                                                 const accel_offload_view_t *view, size_t begin,
                                                 size_t end, accel_dtype_t gt, accel_dtype_t lt)
{
    const adam_vectors_t k = adam_vectors(c);
    const vec_t inverse = vec_set1(inverse_scale);
    float *const param = view->param, *const exp_avg = view->exp_avg;
    float *const exp_avg_sq = view->exp_avg_sq;
    void *const lp = view->lp;
    const void *const grad = view->grad;
    size_t i = begin;
    for (; i + VEC_WIDTH <= end; i += VEC_WIDTH) {
        vec_t g = vec_mul(vec_load(grad, i, gt), inverse);
        vec_t p = vec_load(param, i, ACCEL_DTYPE_F32);
        vec_t m = vec_load(exp_avg, i, ACCEL_DTYPE_F32);
        vec_t s = vec_load(exp_avg_sq, i, ACCEL_DTYPE_F32);
        adam_vector_update(&k, g, &p, &m, &s);
        vec_store(param, i, ACCEL_DTYPE_F32, p);
        vec_store(exp_avg, i, ACCEL_DTYPE_F32, m);
        vec_store(exp_avg_sq, i, ACCEL_DTYPE_F32, s);
        if (lt != ACCEL_DTYPE_F32)
            vec_store(lp, i, lt, p);
    }
    if (i < end)
        accel_optim_kernels_scalar.offload_adam(c, inverse_scale, view, i, end);
}

static void offload_adam_vector(const accel_adam_coeffs_t *coeffs, float inverse,
                                const accel_offload_view_t *view, size_t begin, size_t end)
{
    ACCEL_OFFLOAD_DTYPE_DISPATCH(offload_adam_vector_range, coeffs, inverse, view, begin, end);
}

ACCEL_SIMD_INLINE double offload_sumsq_range(const accel_offload_view_t *view, size_t begin,
                                             size_t end, accel_dtype_t gt)
{
    double lanes[ACCEL_OFFLOAD_LANES];
    sumsq_t acc;
    size_t i = begin;
    sumsq_zero(&acc);
    for (; i + ACCEL_OFFLOAD_LANES <= end; i += ACCEL_OFFLOAD_LANES)
        sumsq_add16(&acc, view->grad, i, gt);
    sumsq_store(&acc, lanes);
    accel_offload_sumsq_lanes(view, begin, i, end, lanes);
    return accel_offload_lanes_total(lanes);
}

static double offload_sumsq_vector(const accel_offload_view_t *view, size_t begin, size_t end)
{
    if (view->grad_dtype == ACCEL_DTYPE_F32)
        return offload_sumsq_range(view, begin, end, ACCEL_DTYPE_F32);
    if (view->grad_dtype == ACCEL_DTYPE_F16)
        return offload_sumsq_range(view, begin, end, ACCEL_DTYPE_F16);
    return offload_sumsq_range(view, begin, end, ACCEL_DTYPE_BF16);
}

static void adam_vector(const accel_adam_coeffs_t *coeffs, const accel_optim_view_t *view,
                        size_t begin, size_t end)
{
    ACCEL_OPTIM_DTYPE_DISPATCH(adam_vector_range, coeffs, view, begin, end);
}

static void adagrad_vector(const accel_adagrad_coeffs_t *coeffs, const accel_optim_view_t *view,
                           size_t begin, size_t end)
{
    ACCEL_OPTIM_DTYPE_DISPATCH(adagrad_vector_range, coeffs, view, begin, end);
}

static void lion_vector(const accel_lion_coeffs_t *coeffs, const accel_optim_view_t *view,
                        size_t begin, size_t end)
{
    ACCEL_OPTIM_DTYPE_DISPATCH(lion_vector_range, coeffs, view, begin, end);
}

const accel_optim_kernels_t OPTIM_SIMD_TABLE = {
    .isa = OPTIM_SIMD_ISA,
    .name = OPTIM_SIMD_NAME,
    .adam = adam_vector,
    .adagrad = adagrad_vector,
    .lion = lion_vector,
    .offload_sumsq = offload_sumsq_vector,
    .offload_adam = offload_adam_vector,
};
