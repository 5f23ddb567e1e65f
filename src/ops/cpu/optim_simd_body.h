/* optim_simd_body.h: the vector optimizer kernels, written once over a small
 * vector vocabulary that optim_avx2.c and optim_avx512.c each define before
 * including this file (vec_t, VEC_WIDTH, vec_set1, vec_load, vec_store,
 * vec_mul, vec_add, vec_div, vec_sqrt, vec_fma(a, b, c) = a*b+c rounded once,
 * vec_step_against_sign(step, x) = step with its sign flipped where x's sign
 * bit is set). Operation order matches optim_scalar.c exactly; the tail that
 * does not fill a vector runs the scalar kernel. The including file defines
 * OPTIM_SIMD_TABLE (the table's name), OPTIM_SIMD_ISA and OPTIM_SIMD_NAME. */

ACCEL_SIMD_INLINE void adam_vector_range(const accel_adam_coeffs_t *c,
                                         const accel_optim_view_t *view, size_t begin, size_t end,
                                         accel_dtype_t pt, accel_dtype_t st)
{
    const vec_t beta1 = vec_set1(c->beta1), one_minus_beta1 = vec_set1(c->one_minus_beta1);
    const vec_t beta2 = vec_set1(c->beta2), one_minus_beta2 = vec_set1(c->one_minus_beta2);
    const vec_t eps = vec_set1(c->eps), bc2 = vec_set1(c->bc2);
    const vec_t step_size = vec_set1(c->step_size);
    const vec_t l2_decay = vec_set1(c->l2_decay), decoupled = vec_set1(c->decoupled_decay);
    const int has_l2 = c->l2_decay > 0.0f, has_decoupled = c->decoupled_decay != 0.0f;
    size_t i = begin;
    for (; i + VEC_WIDTH <= end; i += VEC_WIDTH) {
        vec_t g = vec_load(view->grad, i, pt);
        vec_t p = vec_load(view->param, i, pt);
        vec_t m = vec_load(view->state1, i, st);
        vec_t s = vec_load(view->state2, i, st);
        if (has_l2)
            g = vec_fma(p, l2_decay, g);
        m = vec_fma(g, one_minus_beta1, vec_mul(m, beta1));
        s = vec_fma(vec_mul(g, g), one_minus_beta2, vec_mul(s, beta2));
        vec_t update = vec_div(m, vec_fma(vec_sqrt(s), bc2, eps));
        if (has_decoupled)
            p = vec_fma(p, decoupled, p);
        p = vec_fma(update, step_size, p);
        vec_store(view->param, i, pt, p);
        vec_store(view->state1, i, st, m);
        vec_store(view->state2, i, st, s);
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
};
