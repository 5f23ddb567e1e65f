/* test_lamb_cpu.c: FusedLamb on host memory (the cpu backend's
 * FusedLambBuilder) against a double-precision reference written from
 * accel_ops.h's formulas; the fixed summation order of the norms
 * (accel_backend.h), which the device kernels rely on, checked against the
 * test's own in-order sums; the trust ratio's edges (zero norms, clamps,
 * NaN); and refusal of bad input. f16/bf16 conversions come from half.h,
 * which test_optim_cpu checks against its own independent reference. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel.h"
#include "accel/accel_ops.h"
#include "ops/cpu/half.h"
#include "ops/cpu/lamb_kernels.h"

static accel_t *test_acc;
static const accel_lamb_op_t *lamb_op;

/* ================================================================ tensors */

static uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-scale, scale) (or [0, scale) when positive). */
static float rng_value(uint64_t *state, float scale, bool positive)
{
    double u = (double)(rng_next(state) >> 11) * 0x1p-53;
    return (float)(positive ? u * scale : (2.0 * u - 1.0) * scale);
}

static size_t dtype_bytes(accel_dtype_t dtype)
{
    return dtype == ACCEL_DTYPE_F32 ? 4 : 2;
}

static float get(const void *base, size_t i, accel_dtype_t dtype)
{
    if (dtype == ACCEL_DTYPE_F32)
        return ((const float *)base)[i];
    if (dtype == ACCEL_DTYPE_F16)
        return accel_f16_to_f32(((const uint16_t *)base)[i]);
    return accel_bf16_to_f32(((const uint16_t *)base)[i]);
}

static void put(void *base, size_t i, accel_dtype_t dtype, float value)
{
    if (dtype == ACCEL_DTYPE_F32)
        ((float *)base)[i] = value;
    else if (dtype == ACCEL_DTYPE_F16)
        ((uint16_t *)base)[i] = accel_f32_to_f16(value);
    else
        ((uint16_t *)base)[i] = accel_f32_to_bf16(value);
}

/* param, grad, exp_avg, exp_avg_sq of one step. */
typedef struct lamb_tensors {
    size_t count;
    accel_dtype_t dtypes[4];
    int64_t shape[1];
    DLTensor t[4];
} lamb_tensors_t;

static void tensors_make(lamb_tensors_t *ts, size_t count, accel_dtype_t pt, accel_dtype_t st,
                         uint64_t seed)
{
    static const float scales[4] = {1.0f, 0.1f, 0.01f, 1e-4f};
    memset(ts, 0, sizeof *ts);
    ts->count = count;
    ts->shape[0] = (int64_t)count;
    for (int k = 0; k < 4; k++) {
        ts->dtypes[k] = k < 2 ? pt : st;
        void *data = malloc(count * dtype_bytes(ts->dtypes[k]) + 1);
        assert_non_null(data);
        for (size_t i = 0; i < count; i++)
            put(data, i, ts->dtypes[k], rng_value(&seed, scales[k], k == 3));
        ts->t[k] = (DLTensor){.data = data,
                              .device = {.device_type = kDLCPU, .device_id = 0},
                              .ndim = 1,
                              .shape = ts->shape};
        assert_int_equal(accel_dtype_to_dlpack(ts->dtypes[k], &ts->t[k].dtype), ACCEL_OK);
    }
}

static void tensors_free(lamb_tensors_t *ts)
{
    for (int k = 0; k < 4; k++)
        free(ts->t[k].data);
}

static void *tensors_snapshot(const lamb_tensors_t *ts, int k)
{
    size_t bytes = ts->count * dtype_bytes(ts->dtypes[k]);
    void *copy = malloc(bytes + 1);
    assert_non_null(copy);
    memcpy(copy, ts->t[k].data, bytes);
    return copy;
}

static accel_status_t lamb_step(const accel_lamb_config_t *config, uint64_t step,
                                lamb_tensors_t *ts)
{
    return lamb_op->step(test_acc, NULL, config, step, &ts->t[0], &ts->t[1], &ts->t[2], &ts->t[3]);
}

/* ================================================================ reference */

/* One unit in the last place of `value` stored as `dtype`, subnormals
 * included (their unit is the smallest subnormal). */
static double unit_of(double value, accel_dtype_t dtype)
{
    int bits = dtype == ACCEL_DTYPE_F32 ? 24 : dtype == ACCEL_DTYPE_F16 ? 11 : 8;
    double smallest = dtype == ACCEL_DTYPE_F32   ? 0x1p-149
                      : dtype == ACCEL_DTYPE_F16 ? 0x1p-24
                                                 : 0x1p-133;
    int exponent;
    frexp(fabs(value), &exponent);
    return fmax(ldexp(1.0, exponent - bits), smallest);
}

/* One step of the library (already run) checked against the reference run
 * on `before` (the inputs): moments within one unit of the stored type plus
 * the f32 rounding of their two terms (which may cancel), and p within one
 * unit plus a relative 2e-5 of the step's size (the norms are f32 sums). */
static void check_step(const accel_lamb_config_t *c, uint64_t step, const lamb_tensors_t *ts,
                       void *const before[4], const char *label)
{
    size_t n = ts->count;
    accel_dtype_t pt = ts->dtypes[0], st = ts->dtypes[2];
    double w_sq = 0.0, u_sq = 0.0, step_size = c->lr;
    double *u = malloc(n * sizeof *u);
    assert_non_null(u);
    if (c->bias_correction)
        step_size =
            c->lr * sqrt(1.0 - pow(c->beta2, (double)step)) / (1.0 - pow(c->beta1, (double)step));
    for (size_t i = 0; i < n; i++) {
        double g = (double)get(before[1], i, pt) / c->grad_scale;
        double p = get(before[0], i, pt);
        double m = c->beta1 * (double)get(before[2], i, st) + (1.0 - (double)c->beta1) * g;
        double v = c->beta2 * (double)get(before[3], i, st) + (1.0 - (double)c->beta2) * g * g;
        float m_got = get(ts->t[2].data, i, st), v_got = get(ts->t[3].data, i, st);
        /* f32 terms carry ~2^-23 relative error each, and may cancel */
        double m_slack = 0x1p-21 * (fabs(c->beta1 * (double)get(before[2], i, st)) +
                                    fabs((1.0 - c->beta1) * g)) +
                         unit_of(m, st);
        double v_slack = 0x1p-21 * (fabs(c->beta2 * (double)get(before[3], i, st)) +
                                    fabs((1.0 - c->beta2) * g * g)) +
                         unit_of(v, st);
        if (!(fabs(m - m_got) <= m_slack) || !(fabs(v - v_got) <= v_slack))
            fail_msg("%s: element %zu moments (%.9g, %.9g), reference (%.9g, %.9g)", label, i,
                     (double)m_got, (double)v_got, m, v);
        /* u from the moments as stored, as accel_ops.h says */
        double denom =
            c->eps_inside_sqrt ? sqrt((double)v_got + c->eps) : sqrt((double)v_got) + c->eps;
        u[i] = (double)m_got / denom + c->weight_decay * p;
        w_sq += p * p;
        u_sq += u[i] * u[i];
    }
    double ratio = 1.0;
    if (w_sq != 0.0 && u_sq != 0.0)
        ratio = fmin(fmax(sqrt(w_sq) / sqrt(u_sq), c->min_coeff), c->max_coeff);
    for (size_t i = 0; i < n; i++) {
        double delta = step_size * ratio * u[i];
        double want = (double)get(before[0], i, pt) - delta;
        float got = get(ts->t[0].data, i, pt);
        double slack = 2e-5 * fabs(delta) + unit_of(want, pt);
        if (!(fabs((double)got - want) <= slack))
            fail_msg("%s: element %zu param %.9g, reference %.9g (step %.3g)", label, i,
                     (double)got, want, delta);
    }
    free(u);
}

/* ================================================================ tests */

static const accel_lamb_config_t configs[] = {
    ACCEL_LAMB_CONFIG_DEFAULT,
    /* weight decay, eps inside the sqrt, no bias correction, loss scale */
    {1e-2f, 0.8f, 0.99f, 1e-6f, 0.05f, 10.0f, 0.01f, 64.0f, false, true},
    /* a tight clamp: the ratio hits max_coeff or min_coeff */
    {1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, 0.5f, 0.4f, 1.0f, true, false},
};

static void test_lamb_matches_reference(void **state)
{
    static const accel_dtype_t pairs[5][2] = {
        {ACCEL_DTYPE_F32, ACCEL_DTYPE_F32},   {ACCEL_DTYPE_F16, ACCEL_DTYPE_F32},
        {ACCEL_DTYPE_BF16, ACCEL_DTYPE_F32},  {ACCEL_DTYPE_F16, ACCEL_DTYPE_F16},
        {ACCEL_DTYPE_BF16, ACCEL_DTYPE_BF16},
    };
    static const size_t sizes[] = {1, 7, 1000, 65537, (1u << 20) + 3};
    (void)state;
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++)
        for (size_t p = 0; p < 5; p++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                lamb_tensors_t ts;
                if (sizes[s] > 100000 && p != 0 && p != 4)
                    continue; /* the two-level reduction: two pairs are enough */
                tensors_make(&ts, sizes[s], pairs[p][0], pairs[p][1], c * 100 + p * 10 + s);
                for (uint64_t step = 1; step <= 3; step++) {
                    void *before[4];
                    char label[128];
                    for (int k = 0; k < 4; k++)
                        before[k] = tensors_snapshot(&ts, k);
                    assert_int_equal(lamb_step(&configs[c], step, &ts), ACCEL_OK);
                    snprintf(label, sizeof label, "config %zu, %s/%s, %zu elements, step %llu", c,
                             accel_dtype_name(pairs[p][0]), accel_dtype_name(pairs[p][1]), sizes[s],
                             (unsigned long long)step);
                    check_step(&configs[c], step, &ts, before, label);
                    for (int k = 0; k < 4; k++)
                        free(before[k]);
                }
                tensors_free(&ts);
            }
}

/* The partials are per segment of ACCEL_LAMB_SEGMENT, summed with fma in
 * element order, and the levels are plain in-order sums: recompute both
 * here and require the library's bits, for any split of the segments. */
static void test_lamb_summation_order(void **state)
{
    const size_t count = (size_t)ACCEL_LAMB_SEGMENT * 1100 + 17; /* 1101 segments: two levels */
    const size_t segments = accel_lamb_segments(count);
    lamb_tensors_t ts;
    accel_lamb_coeffs_t coeffs;
    accel_optim_view_t view;
    float *partials = malloc(2 * segments * sizeof *partials);
    float *mine = malloc(2 * segments * sizeof *mine);
    float norms[2];
    (void)state;
    assert_non_null(partials);
    assert_non_null(mine);
    assert_int_equal(segments, 1101);
    tensors_make(&ts, count, ACCEL_DTYPE_F32, ACCEL_DTYPE_F32, 7);
    void *before[4] = {tensors_snapshot(&ts, 0), tensors_snapshot(&ts, 1), tensors_snapshot(&ts, 2),
                       tensors_snapshot(&ts, 3)};
    accel_lamb_coeffs_make(&configs[1], 1, &coeffs);
    view = (accel_optim_view_t){ts.t[0].data, ts.t[1].data,    ts.t[2].data,    ts.t[3].data,
                                count,        ACCEL_DTYPE_F32, ACCEL_DTYPE_F32, 0};
    /* three uneven pieces */
    accel_lamb_moments(&coeffs, &view, 0, 3, partials);
    accel_lamb_moments(&coeffs, &view, 3, 700, partials);
    accel_lamb_moments(&coeffs, &view, 700, segments, partials);
    const float *p = before[0], *m = ts.t[2].data, *v = ts.t[3].data;
    for (size_t s = 0; s < segments; s++) {
        float w = 0.0f, u = 0.0f;
        for (size_t i = s * ACCEL_LAMB_SEGMENT; i < count && i < (s + 1) * ACCEL_LAMB_SEGMENT;
             i++) {
            float upd = fmaf(coeffs.weight_decay, p[i], m[i] / sqrtf(v[i] + coeffs.eps));
            w = fmaf(p[i], p[i], w);
            u = fmaf(upd, upd, u);
        }
        mine[2 * s] = w;
        mine[2 * s + 1] = u;
    }
    assert_memory_equal(partials, mine, 2 * segments * sizeof *mine);
    /* level 1: 2 groups (1024 + 77); level 2: 1 */
    float w0 = 0.0f, u0 = 0.0f, w1 = 0.0f, u1 = 0.0f;
    for (size_t k = 0; k < segments; k++) {
        if (k < ACCEL_LAMB_SEGMENT) {
            w0 += mine[2 * k];
            u0 += mine[2 * k + 1];
        } else {
            w1 += mine[2 * k];
            u1 += mine[2 * k + 1];
        }
    }
    accel_lamb_reduce(partials, segments, norms);
    assert_true(accel_f32_bits(norms[0]) == accel_f32_bits(0.0f + w0 + w1));
    assert_true(accel_f32_bits(norms[1]) == accel_f32_bits(0.0f + u0 + u1));
    for (int k = 0; k < 4; k++)
        free(before[k]);
    free(partials);
    free(mine);
    tensors_free(&ts);
}

/* The fma table (lamb_scalar.c compiled for AVX2 + FMA) gives the scalar
 * table's bits: moments, partials and params, every dtype pair, with NaN,
 * infinities and subnormals among the inputs. */
static void test_lamb_tables_bit_identical(void **state)
{
    static const accel_dtype_t pairs[5][2] = {
        {ACCEL_DTYPE_F32, ACCEL_DTYPE_F32},   {ACCEL_DTYPE_F16, ACCEL_DTYPE_F32},
        {ACCEL_DTYPE_BF16, ACCEL_DTYPE_F32},  {ACCEL_DTYPE_F16, ACCEL_DTYPE_F16},
        {ACCEL_DTYPE_BF16, ACCEL_DTYPE_BF16},
    };
    const accel_lamb_kernels_t *fma = accel_lamb_kernels_for(ACCEL_CPU_ISA_AVX2);
    const size_t count = 3 * ACCEL_LAMB_SEGMENT + 77;
    const size_t segments = accel_lamb_segments(count);
    (void)state;
    if (fma == NULL)
        skip(); /* this CPU has no AVX2 + FMA */
    assert_string_equal(fma->name, "fma");
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++)
        for (size_t p = 0; p < 5; p++) {
            lamb_tensors_t a, b;
            accel_lamb_coeffs_t coeffs;
            float pa[8], pb[8];
            tensors_make(&a, count, pairs[p][0], pairs[p][1], 40 + c * 5 + p);
            tensors_make(&b, count, pairs[p][0], pairs[p][1], 40 + c * 5 + p);
            /* special values in every tensor but the last (it must stay >= 0) */
            for (int k = 0; k < 3; k++) {
                put(a.t[k].data, 5, a.dtypes[k], NAN);
                put(a.t[k].data, 9, a.dtypes[k], INFINITY);
                put(a.t[k].data, 13, a.dtypes[k], 1e-40f);
                put(b.t[k].data, 5, b.dtypes[k], NAN);
                put(b.t[k].data, 9, b.dtypes[k], INFINITY);
                put(b.t[k].data, 13, b.dtypes[k], 1e-40f);
            }
            accel_lamb_coeffs_make(&configs[c], 2, &coeffs);
            accel_optim_view_t va = {a.t[0].data, a.t[1].data, a.t[2].data, a.t[3].data,
                                     count,       pairs[p][0], pairs[p][1], 0};
            accel_optim_view_t vb = {b.t[0].data, b.t[1].data, b.t[2].data, b.t[3].data,
                                     count,       pairs[p][0], pairs[p][1], 0};
            accel_lamb_kernels_scalar.moments(&coeffs, &va, 0, segments, pa);
            fma->moments(&coeffs, &vb, 0, segments, pb);
            assert_memory_equal(pa, pb, 2 * segments * sizeof(float));
            accel_lamb_kernels_scalar.apply(&coeffs, &va, -0.37f, 0, count);
            fma->apply(&coeffs, &vb, -0.37f, 0, count);
            for (int k = 0; k < 4; k++)
                assert_memory_equal(a.t[k].data, b.t[k].data, count * dtype_bytes(a.dtypes[k]));
            tensors_free(&a);
            tensors_free(&b);
        }
}

/* Zero norms give ratio 1; the clamps hold; a NaN reaches every element
 * (the norm is NaN), as in DeepSpeed's kernel. */
static void test_lamb_trust_ratio_edges(void **state)
{
    accel_lamb_config_t c = ACCEL_LAMB_CONFIG_DEFAULT;
    accel_lamb_coeffs_t coeffs;
    lamb_tensors_t ts;
    (void)state;
    c.bias_correction = false;
    accel_lamb_coeffs_make(&c, 1, &coeffs);
    assert_true(accel_lamb_scale(&coeffs, 0.0f, 4.0f) == -c.lr);
    assert_true(accel_lamb_scale(&coeffs, 4.0f, 0.0f) == -c.lr);
    assert_true(accel_lamb_scale(&coeffs, 1e6f, 1e-6f) == -(c.lr * c.max_coeff));
    assert_true(accel_lamb_scale(&coeffs, 1e-8f, 1e4f) == -(c.lr * c.min_coeff));
    assert_true(accel_lamb_scale(&coeffs, 4.0f, 1.0f) == -(c.lr * 2.0f));
    assert_true(isnan(accel_lamb_scale(&coeffs, NAN, 1.0f)));

    /* all-zero param: ratio 1, p = -lr * u */
    tensors_make(&ts, 300, ACCEL_DTYPE_F32, ACCEL_DTYPE_F32, 3);
    memset(ts.t[0].data, 0, 300 * sizeof(float));
    assert_int_equal(lamb_step(&c, 1, &ts), ACCEL_OK);
    for (size_t i = 0; i < 300; i++) {
        float m = ((float *)ts.t[2].data)[i], v = ((float *)ts.t[3].data)[i];
        float want = fmaf(m / (sqrtf(v) + c.eps), -c.lr, 0.0f);
        assert_true(((float *)ts.t[0].data)[i] == want);
    }
    /* one NaN grad: every param becomes NaN */
    ((float *)ts.t[1].data)[17] = NAN;
    assert_int_equal(lamb_step(&c, 2, &ts), ACCEL_OK);
    for (size_t i = 0; i < 300; i++)
        assert_true(isnan(((float *)ts.t[0].data)[i]));
    tensors_free(&ts);
}

static void expect_refused(const accel_lamb_config_t *c, uint64_t step, lamb_tensors_t *ts,
                           const char *words)
{
    assert_int_equal(lamb_step(c, step, ts), ACCEL_ERROR_INVALID_ARGUMENT);
    if (strstr(accel_last_error(), words) == NULL)
        fail_msg("error \"%s\" does not say \"%s\"", accel_last_error(), words);
}

static void test_lamb_bad_input_refused(void **state)
{
    lamb_tensors_t ts;
    accel_lamb_config_t c;
    void *before[4];
    (void)state;
    tensors_make(&ts, 50, ACCEL_DTYPE_BF16, ACCEL_DTYPE_F32, 9);
    for (int k = 0; k < 4; k++)
        before[k] = tensors_snapshot(&ts, k);
    c = (accel_lamb_config_t)ACCEL_LAMB_CONFIG_DEFAULT;
    expect_refused(&c, 0, &ts, "step");
    c.max_coeff = 0.0f;
    expect_refused(&c, 1, &ts, "max_coeff");
    c = (accel_lamb_config_t)ACCEL_LAMB_CONFIG_DEFAULT;
    c.min_coeff = 11.0f;
    expect_refused(&c, 1, &ts, "min_coeff");
    c = (accel_lamb_config_t)ACCEL_LAMB_CONFIG_DEFAULT;
    c.grad_scale = -1.0f;
    expect_refused(&c, 1, &ts, "grad_scale");
    c = (accel_lamb_config_t)ACCEL_LAMB_CONFIG_DEFAULT;
    c.beta1 = 1.0f;
    expect_refused(&c, 1, &ts, "beta1");
    c = (accel_lamb_config_t)ACCEL_LAMB_CONFIG_DEFAULT;
    c.lr = NAN;
    expect_refused(&c, 1, &ts, "lr");
    assert_int_equal(lamb_op->step(test_acc, NULL, NULL, 1, &ts.t[0], &ts.t[1], &ts.t[2], &ts.t[3]),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(lamb_op->step(test_acc, NULL, &c, 1, &ts.t[0], &ts.t[1], &ts.t[2], NULL),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    for (int k = 0; k < 4; k++) {
        assert_memory_equal(before[k], ts.t[k].data, 50 * dtype_bytes(ts.dtypes[k]));
        free(before[k]);
    }
    tensors_free(&ts);
}

static int group_setup(void **state)
{
    accel_op_builder_t *builder = NULL;
    const void *table = NULL;
    (void)state;
    if (accel_open("cpu", &test_acc) != ACCEL_OK ||
        accel_get_op_builder(test_acc, "FusedLambBuilder", &builder) != ACCEL_OK ||
        accel_op_builder_load(builder, &table) != ACCEL_OK)
        return -1;
    lamb_op = table;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    return accel_close(test_acc) == ACCEL_OK ? 0 : -1;
}

int main(void)
{
    setenv("ACCEL_CPU_THREADS", "4", 0); /* split large steps even on a 2-CPU machine */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lamb_matches_reference),
        cmocka_unit_test(test_lamb_summation_order),
        cmocka_unit_test(test_lamb_tables_bit_identical),
        cmocka_unit_test(test_lamb_trust_ratio_edges),
        cmocka_unit_test(test_lamb_bad_input_refused),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
