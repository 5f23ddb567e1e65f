/* test_optim_cpu.c: the host optimizer ops (CPUAdam, CPUAdagrad, CPULion)
 * against a double-precision reference written from accel_ops.h's formulas,
 * with error bounds that follow from f32 arithmetic; bit-identity of the
 * scalar, AVX2 and AVX-512 kernel tables; split invariance of the threaded
 * op; refusal of bad input; and the ACCEL_CPU_ISA cap. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "accel/accel.h"
#include "accel/accel_ops.h"
#include "ops/cpu/optim_kernels.h"
#include "accel/accel_backend_utils.h"
#include "ref_half.h"

extern char **environ;

/* ================================================================ inputs */

/* splitmix64: a fixed seed gives the same inputs on every run. */
typedef struct test_rng {
    uint64_t state;
} test_rng_t;

static uint64_t rng_next(test_rng_t *rng)
{
    uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_uniform(test_rng_t *rng) /* [0, 1) */
{
    return (double)(rng_next(rng) >> 11) * 0x1p-53;
}

/* Near-normal, mean 0 and variance 1 (sum of four 16-bit uniforms, Irwin-
 * Hall): cheap, and the tests need spread, not a Gaussian tail. */
static double rng_normal(test_rng_t *rng)
{
    uint64_t r = rng_next(rng);
    double sum = (double)((r & 0xffff) + ((r >> 16) & 0xffff) + ((r >> 32) & 0xffff) + (r >> 48));
    return (sum / 65536.0 - 2.0) * 1.7320508075688772;
}

/* A scale from 1 down to 2^-10, about three decades. */
static double rng_scale(test_rng_t *rng)
{
    static const double scales[11] = {1.0,    0x1p-1, 0x1p-2, 0x1p-3, 0x1p-4, 0x1p-5,
                                      0x1p-6, 0x1p-7, 0x1p-8, 0x1p-9, 0x1p-10};
    return scales[rng_next(rng) % 11];
}

/* ================================================================ elements */

typedef struct dtype_pair {
    accel_dtype_t param;
    accel_dtype_t state;
} dtype_pair_t;

static const dtype_pair_t supported_pairs[] = {
    {ACCEL_DTYPE_F32, ACCEL_DTYPE_F32},   {ACCEL_DTYPE_F16, ACCEL_DTYPE_F32},
    {ACCEL_DTYPE_BF16, ACCEL_DTYPE_F32},  {ACCEL_DTYPE_F16, ACCEL_DTYPE_F16},
    {ACCEL_DTYPE_BF16, ACCEL_DTYPE_BF16},
};
#define PAIR_COUNT (sizeof supported_pairs / sizeof supported_pairs[0])

static size_t dtype_bytes(accel_dtype_t dtype)
{
    return dtype == ACCEL_DTYPE_F32 ? 4 : 2;
}

static const char *dtype_label(accel_dtype_t dtype)
{
    return dtype == ACCEL_DTYPE_F32 ? "f32" : dtype == ACCEL_DTYPE_F16 ? "f16" : "bf16";
}

static DLDataType dtype_dlpack(accel_dtype_t dtype)
{
    if (dtype == ACCEL_DTYPE_F32)
        return (DLDataType){kDLFloat, 32, 1};
    if (dtype == ACCEL_DTYPE_F16)
        return (DLDataType){kDLFloat, 16, 1};
    return (DLDataType){kDLBfloat, 16, 1};
}

static uint32_t elem_bits(accel_dtype_t dtype, const void *base, size_t i)
{
    if (dtype == ACCEL_DTYPE_F32) {
        uint32_t bits;
        memcpy(&bits, (const unsigned char *)base + 4 * i, 4);
        return bits;
    }
    uint16_t half;
    memcpy(&half, (const unsigned char *)base + 2 * i, 2);
    return half;
}

static void elem_set_bits(accel_dtype_t dtype, void *base, size_t i, uint32_t bits)
{
    if (dtype == ACCEL_DTYPE_F32) {
        memcpy((unsigned char *)base + 4 * i, &bits, 4);
        return;
    }
    uint16_t half = (uint16_t)bits;
    memcpy((unsigned char *)base + 2 * i, &half, 2);
}

static float bits_to_f32(accel_dtype_t dtype, uint32_t bits)
{
    if (dtype == ACCEL_DTYPE_F32)
        return float_of(bits);
    return dtype == ACCEL_DTYPE_F16 ? ref_f16_to_f32((uint16_t)bits)
                                    : ref_bf16_to_f32((uint16_t)bits);
}

static uint32_t f32_to_bits(accel_dtype_t dtype, float value)
{
    if (dtype == ACCEL_DTYPE_F32)
        return bits_of(value);
    return dtype == ACCEL_DTYPE_F16 ? ref_f32_to_f16(value) : ref_f32_to_bf16(value);
}

static float elem_get(accel_dtype_t dtype, const void *base, size_t i)
{
    return bits_to_f32(dtype, elem_bits(dtype, base, i));
}

static void elem_set(accel_dtype_t dtype, void *base, size_t i, float value)
{
    elem_set_bits(dtype, base, i, f32_to_bits(dtype, value));
}

/* ================================================================ bounded reference */

/* A reference value and a bound on how far an f32 computation of it (each
 * operation rounded to nearest) may land from it. Inputs are exact. */
typedef struct bounded {
    double value;
    double error;
} bounded_t;

/* Half the spacing of `dtype` numbers at magnitude `magnitude` (subnormal
 * spacing below the normal range): the most one rounding can move a value. */
static double half_ulp(accel_dtype_t dtype, double magnitude)
{
    int precision = dtype == ACCEL_DTYPE_F32 ? 24 : dtype == ACCEL_DTYPE_F16 ? 11 : 8;
    double floor_half = dtype == ACCEL_DTYPE_F32   ? 0x1p-150
                        : dtype == ACCEL_DTYPE_F16 ? 0x1p-25
                                                   : 0x1p-134;
    uint64_t bits;
    if (!isfinite(magnitude))
        return INFINITY;
    if (!(magnitude >= 0x1p-1000))
        return floor_half;
    /* magnitude in [2^e, 2^(e+1)): half an ulp is 2^(e - precision) */
    memcpy(&bits, &magnitude, sizeof bits);
    int64_t exponent = (int64_t)(bits >> 52) - 1023 - precision;
    uint64_t half_bits = (uint64_t)(exponent + 1023) << 52;
    double half;
    memcpy(&half, &half_bits, sizeof half);
    return fmax(half, floor_half);
}

static bounded_t exact(double value)
{
    return (bounded_t){value, 0.0};
}

/* A coefficient the library computes in double and rounds to f32 once. */
static bounded_t rounded_once(double value)
{
    return (bounded_t){value, half_ulp(ACCEL_DTYPE_F32, fabs(value))};
}

static bounded_t f32_round(double value, double error)
{
    return (bounded_t){value, error + half_ulp(ACCEL_DTYPE_F32, fabs(value) + error)};
}

static bounded_t b_add(bounded_t a, bounded_t b)
{
    return f32_round(a.value + b.value, a.error + b.error);
}

static bounded_t b_mul(bounded_t a, bounded_t b)
{
    double error = fabs(a.value) * b.error + fabs(b.value) * a.error + a.error * b.error;
    return f32_round(a.value * b.value, error);
}

/* a*b+c: bounded as two roundings, which also covers one fused rounding. */
static bounded_t b_fma(bounded_t a, bounded_t b, bounded_t c)
{
    return b_add(b_mul(a, b), c);
}

static bounded_t b_div(bounded_t a, bounded_t b)
{
    double value = a.value / b.value, low = fabs(b.value) - b.error;
    double error = low > 0.0 ? (a.error + fabs(value) * b.error) / low : INFINITY;
    return f32_round(value, error);
}

static bounded_t b_sqrt(bounded_t a)
{
    double value = sqrt(a.value);
    double low = sqrt(fmax(a.value - a.error, 0.0)), high = sqrt(a.value + a.error);
    return f32_round(value, fmax(value - low, high - value));
}

/* Store to `dtype`: an f32 result is stored as is; f16/bf16 round once more. */
static bounded_t b_store(accel_dtype_t dtype, bounded_t a)
{
    if (dtype == ACCEL_DTYPE_F32)
        return a;
    return (bounded_t){a.value, a.error + half_ulp(dtype, fabs(a.value) + a.error)};
}

/* `got` agrees with `want` if both are NaN, or it lies within the bound (a
 * 2^-20 relative slack covers the double arithmetic of the reference). */
static bool bounded_holds(double got, bounded_t want)
{
    if (isnan(want.value))
        return isnan(got);
    if (isinf(want.value))
        return got == want.value;
    return fabs(got - want.value) <= want.error * (1.0 + 0x1p-20);
}

/* ================================================================ optimizers */

typedef enum optim_kind { OPTIM_ADAM, OPTIM_ADAGRAD, OPTIM_LION } optim_kind_t;

typedef struct optim_config {
    optim_kind_t kind;
    accel_adam_config_t adam;
    uint64_t step;
    accel_adagrad_config_t adagrad;
    accel_lion_config_t lion;
} optim_config_t;

static const char *const tensor_names[4] = {"param", "grad", "state1", "state2"};

static size_t optim_tensor_count(optim_kind_t kind)
{
    return kind == OPTIM_ADAM ? 4 : 3;
}

static const char *optim_label(optim_kind_t kind)
{
    return kind == OPTIM_ADAM ? "adam" : kind == OPTIM_ADAGRAD ? "adagrad" : "lion";
}

/* The reference outputs of one element: param, state1[, state2]. Lion's
 * param has a second acceptable value when the sign of its blend is within
 * f32 error of zero. */
typedef struct ref_result {
    bounded_t out[3];
    bool has_alternative;
    bounded_t param_alternative;
} ref_result_t;

/* accel_ops.h, Adam: L2 decay into g, moments, decoupled decay on the
 * pre-update p, p += (-lr / bc1) * m / (sqrt(v) * bc2 + eps). */
static void ref_adam(const accel_adam_config_t *c, uint64_t step, const double in[4],
                     ref_result_t *r)
{
    bounded_t p = exact(in[0]), g = exact(in[1]), m0 = exact(in[2]), v0 = exact(in[3]);
    bounded_t beta1 = exact(c->beta1), beta2 = exact(c->beta2);
    bounded_t one_minus_beta1 = b_add(exact(1.0), exact(-(double)c->beta1));
    bounded_t one_minus_beta2 = b_add(exact(1.0), exact(-(double)c->beta2));
    double bc1 = 1.0, bc2 = 1.0;
    if (c->bias_correction) {
        bc1 = 1.0 - pow(c->beta1, (double)step);
        bc2 = 1.0 / sqrt(1.0 - pow(c->beta2, (double)step));
    }
    bounded_t step_size = rounded_once(-(double)c->lr / bc1);
    bounded_t bc2_f32 = c->bias_correction ? rounded_once(bc2) : exact(1.0);
    if (c->weight_decay > 0.0f && !c->adamw_mode)
        g = b_fma(p, exact(c->weight_decay), g);
    bounded_t m = b_fma(g, one_minus_beta1, b_mul(m0, beta1));
    bounded_t v = b_fma(b_mul(g, g), one_minus_beta2, b_mul(v0, beta2));
    bounded_t update = b_div(m, b_fma(b_sqrt(v), bc2_f32, exact(c->eps)));
    bounded_t q = p;
    if (c->weight_decay > 0.0f && c->adamw_mode)
        q = b_fma(p, b_mul(exact(-(double)c->lr), exact(c->weight_decay)), p);
    r->out[0] = b_fma(update, step_size, q);
    r->out[1] = m;
    r->out[2] = v;
}

/* accel_ops.h, Adagrad: g (+ wd * p); v += g * g; p += -lr * g / (sqrt(v) + eps). */
static void ref_adagrad(const accel_adagrad_config_t *c, const double in[4], ref_result_t *r)
{
    bounded_t p = exact(in[0]), g = exact(in[1]), v0 = exact(in[2]);
    if (c->weight_decay > 0.0f)
        g = b_fma(p, exact(c->weight_decay), g);
    bounded_t v = b_fma(g, g, v0);
    bounded_t update = b_div(g, b_add(b_sqrt(v), exact(c->eps)));
    r->out[0] = b_fma(update, exact(-(double)c->lr), p);
    r->out[1] = v;
}

static bounded_t lion_param(const accel_lion_config_t *c, bounded_t p, double update)
{
    if (!(c->weight_decay > 0.0f))
        return b_add(p, exact(update));
    bounded_t after_decay = b_add(exact(1.0), b_mul(exact(-(double)c->lr), exact(c->weight_decay)));
    return b_fma(p, after_decay, exact(update));
}

/* accel_ops.h, Lion: blend = beta1 m + (1 - beta1) g; p = p (1 - lr wd);
 * p -= lr where blend's sign bit is clear, += lr where set; m = beta2 m + (1 - beta2) g. */
static void ref_lion(const accel_lion_config_t *c, const double in[4], ref_result_t *r)
{
    bounded_t p = exact(in[0]), g = exact(in[1]), m0 = exact(in[2]);
    bounded_t one_minus_beta1 = b_add(exact(1.0), exact(-(double)c->beta1));
    bounded_t one_minus_beta2 = b_add(exact(1.0), exact(-(double)c->beta2));
    bounded_t blend = b_fma(g, one_minus_beta1, b_mul(m0, exact(c->beta1)));
    double lr = c->lr;
    if (blend.value - blend.error > 0.0) {
        r->out[0] = lion_param(c, p, -lr);
    } else if (blend.value + blend.error < 0.0) {
        r->out[0] = lion_param(c, p, lr);
    } else { /* sign within rounding of zero, or NaN: either step is right */
        r->out[0] = lion_param(c, p, -lr);
        r->has_alternative = true;
        r->param_alternative = lion_param(c, p, lr);
    }
    r->out[1] = b_fma(g, one_minus_beta2, b_mul(m0, exact(c->beta2)));
}

static void ref_element(const optim_config_t *config, dtype_pair_t pair, const double in[4],
                        ref_result_t *r)
{
    memset(r, 0, sizeof *r);
    if (config->kind == OPTIM_ADAM)
        ref_adam(&config->adam, config->step, in, r);
    else if (config->kind == OPTIM_ADAGRAD)
        ref_adagrad(&config->adagrad, in, r);
    else
        ref_lion(&config->lion, in, r);
    r->out[0] = b_store(pair.param, r->out[0]);
    r->out[1] = b_store(pair.state, r->out[1]);
    r->out[2] = b_store(pair.state, r->out[2]);
    r->param_alternative = b_store(pair.param, r->param_alternative);
}

/* ================================================================ tensors */

#define GUARD_BYTES 64
#define GUARD_FILL  0xa5

typedef enum tensor_layout {
    LAYOUT_ALIGNED,      /* data on a 64-byte boundary */
    LAYOUT_DATA_SHIFTED, /* data `shift` elements past a 64-byte boundary */
    LAYOUT_BYTE_OFFSET,  /* data aligned, byte_offset = `shift` elements */
    LAYOUT_ODD_BYTE,     /* data 1 byte past a 64-byte boundary: no element aligned */
    LAYOUT_COUNT_
} tensor_layout_t;

static const char *const layout_names[LAYOUT_COUNT_] = {"aligned", "data+1", "byte_offset",
                                                        "data+1 byte"};

/* A host tensor in its own 64-byte aligned block with guard bytes around
 * the elements. `dl` points into the struct (shape, strides): do not copy. */
typedef struct test_tensor {
    unsigned char *block;
    size_t block_bytes;
    unsigned char *first; /* element 0 */
    accel_dtype_t dtype;
    size_t count;
    int64_t shape[2];
    int64_t strides[2];
    DLTensor dl;
} test_tensor_t;

static void tensor_init(test_tensor_t *t, accel_dtype_t dtype, size_t count, tensor_layout_t layout,
                        size_t shift)
{
    size_t elem = dtype_bytes(dtype);
    size_t lead = layout == LAYOUT_ALIGNED ? 0 : layout == LAYOUT_ODD_BYTE ? 1 : shift * elem;
    memset(t, 0, sizeof *t);
    t->dtype = dtype;
    t->count = count;
    t->block_bytes = (GUARD_BYTES + lead + count * elem + GUARD_BYTES + 63) / 64 * 64;
    t->block = aligned_alloc(64, t->block_bytes);
    assert_non_null(t->block);
    memset(t->block, GUARD_FILL, t->block_bytes);
    t->first = t->block + GUARD_BYTES + lead;
    t->dl.data = layout == LAYOUT_BYTE_OFFSET ? t->block + GUARD_BYTES : t->first;
    t->dl.byte_offset = layout == LAYOUT_BYTE_OFFSET ? lead : 0;
    t->dl.device = (DLDevice){kDLCPU, 0};
    t->dl.dtype = dtype_dlpack(dtype);
    t->dl.shape = t->shape;
    t->dl.ndim = 1;
    t->shape[0] = (int64_t)count;
    if (count == 0 && layout == LAYOUT_ALIGNED)
        t->dl.data = NULL; /* an empty tensor may have no data */
    if (count == 1000) {   /* 2-D, compact, strides NULL */
        t->dl.ndim = 2;
        t->shape[0] = 8;
        t->shape[1] = 125;
    }
    if (count == 64) { /* 2-D with explicit compact strides */
        t->dl.ndim = 2;
        t->shape[0] = 4;
        t->shape[1] = 16;
        t->strides[0] = 16;
        t->strides[1] = 1;
        t->dl.strides = t->strides;
    }
}

static void tensor_free(test_tensor_t *t)
{
    free(t->block);
    t->block = NULL;
}

static size_t tensor_bytes(const test_tensor_t *t)
{
    return t->count * dtype_bytes(t->dtype);
}

/* Every byte of the block outside the elements still holds GUARD_FILL. */
static bool tensor_guards_intact(const test_tensor_t *t)
{
    size_t start = (size_t)(t->first - t->block), end = start + tensor_bytes(t);
    for (size_t i = 0; i < t->block_bytes; i++) {
        if ((i < start || i >= end) && t->block[i] != GUARD_FILL)
            return false;
    }
    return true;
}

/* The tensors of one step, with a copy of their elements from before it. */
typedef struct optim_tensors {
    optim_kind_t kind;
    dtype_pair_t pair;
    size_t n;
    size_t count;
    test_tensor_t t[4];
    unsigned char *before[4];
} optim_tensors_t;

static accel_dtype_t tensor_dtype(dtype_pair_t pair, size_t index)
{
    return index < 2 ? pair.param : pair.state;
}

static void optim_tensors_init(optim_tensors_t *ts, optim_kind_t kind, dtype_pair_t pair,
                               size_t count, tensor_layout_t layout)
{
    /* byte_offset layouts shift each tensor differently (1, 3, 5, 7 elements) */
    memset(ts, 0, sizeof *ts);
    ts->kind = kind;
    ts->pair = pair;
    ts->n = optim_tensor_count(kind);
    ts->count = count;
    for (size_t i = 0; i < ts->n; i++)
        tensor_init(&ts->t[i], tensor_dtype(pair, i), count, layout,
                    layout == LAYOUT_BYTE_OFFSET ? 2 * i + 1 : 1);
}

static void optim_tensors_snapshot(optim_tensors_t *ts)
{
    for (size_t i = 0; i < ts->n; i++) {
        size_t bytes = tensor_bytes(&ts->t[i]);
        free(ts->before[i]);
        ts->before[i] = malloc(bytes + 1);
        assert_non_null(ts->before[i]);
        memcpy(ts->before[i], ts->t[i].first, bytes);
    }
}

static void optim_tensors_free(optim_tensors_t *ts)
{
    for (size_t i = 0; i < ts->n; i++) {
        tensor_free(&ts->t[i]);
        free(ts->before[i]);
        ts->before[i] = NULL;
    }
}

/* A second set with the same layout and identical blocks. */
static void optim_tensors_clone(const optim_tensors_t *from, optim_tensors_t *to,
                                tensor_layout_t layout)
{
    optim_tensors_init(to, from->kind, from->pair, from->count, layout);
    for (size_t i = 0; i < from->n; i++)
        memcpy(to->t[i].block, from->t[i].block, from->t[i].block_bytes);
}

static bool role_is_sum_of_squares(optim_kind_t kind, size_t index)
{
    return (kind == OPTIM_ADAM && index == 3) || (kind == OPTIM_ADAGRAD && index == 2);
}

/* Training-like values: param ~ N(0,1), grads and momenta over three
 * decades, squared-grad states non-negative. */
static float normal_value(optim_kind_t kind, size_t index, test_rng_t *rng)
{
    double decade = rng_scale(rng);
    if (index == 0)
        return (float)rng_normal(rng);
    if (index == 1)
        return (float)(rng_normal(rng) * decade);
    if (role_is_sum_of_squares(kind, index)) {
        double root = 0.1 * rng_normal(rng) * decade;
        return (float)(root * root);
    }
    return (float)(0.1 * rng_normal(rng) * decade);
}

static void optim_tensors_fill_normal(optim_tensors_t *ts, test_rng_t *rng)
{
    for (size_t i = 0; i < ts->n; i++) {
        for (size_t e = 0; e < ts->count; e++)
            elem_set(ts->t[i].dtype, ts->t[i].first, e, normal_value(ts->kind, i, rng));
    }
    optim_tensors_snapshot(ts);
}

static accel_optim_view_t optim_tensors_view(const optim_tensors_t *ts)
{
    return (accel_optim_view_t){.param = ts->t[0].first,
                                .grad = ts->t[1].first,
                                .state1 = ts->t[2].first,
                                .state2 = ts->n == 4 ? ts->t[3].first : NULL,
                                .count = ts->count,
                                .param_dtype = ts->pair.param,
                                .state_dtype = ts->pair.state,
                                .device = 0};
}

static bool optim_tensors_guards_intact(const optim_tensors_t *ts)
{
    for (size_t i = 0; i < ts->n; i++) {
        if (!tensor_guards_intact(&ts->t[i]))
            return false;
    }
    return true;
}

/* ================================================================ running a step */

static accel_t *test_acc;
static const accel_adam_op_t *adam_op;
static const accel_adagrad_op_t *adagrad_op;
static const accel_lion_op_t *lion_op;

static accel_status_t public_step_on(accel_t *acc, const optim_config_t *c, const void *config,
                                     DLTensor *const dl[4])
{
    if (c->kind == OPTIM_ADAM)
        return adam_op->step(acc, NULL, config, c->step, dl[0], dl[1], dl[2], dl[3]);
    if (c->kind == OPTIM_ADAGRAD)
        return adagrad_op->step(acc, NULL, config, dl[0], dl[1], dl[2]);
    return lion_op->step(acc, NULL, config, dl[0], dl[1], dl[2]);
}

static const void *config_of(const optim_config_t *c)
{
    if (c->kind == OPTIM_ADAM)
        return &c->adam;
    return c->kind == OPTIM_ADAGRAD ? (const void *)&c->adagrad : (const void *)&c->lion;
}

static accel_status_t public_step(const optim_config_t *c, optim_tensors_t *ts)
{
    DLTensor *dl[4] = {&ts->t[0].dl, &ts->t[1].dl, &ts->t[2].dl, ts->n == 4 ? &ts->t[3].dl : NULL};
    return public_step_on(test_acc, c, config_of(c), dl);
}

static void kernel_step(const accel_optim_kernels_t *kernels, const optim_config_t *c,
                        const accel_optim_view_t *view, size_t begin, size_t end)
{
    if (c->kind == OPTIM_ADAM) {
        accel_adam_coeffs_t coeffs;
        accel_adam_coeffs_make(&c->adam, c->step, &coeffs);
        kernels->adam(&coeffs, view, begin, end);
    } else if (c->kind == OPTIM_ADAGRAD) {
        accel_adagrad_coeffs_t coeffs;
        accel_adagrad_coeffs_make(&c->adagrad, &coeffs);
        kernels->adagrad(&coeffs, view, begin, end);
    } else {
        accel_lion_coeffs_t coeffs;
        accel_lion_coeffs_make(&c->lion, &coeffs);
        kernels->lion(&coeffs, view, begin, end);
    }
}

/* ================================================================ vs the reference */

static void report_mismatch(const optim_tensors_t *ts, const char *where, size_t e, size_t output,
                            double got, bounded_t want)
{
    print_error("%s %s %s/%s n=%zu element %zu output %s: inputs", where, optim_label(ts->kind),
                dtype_label(ts->pair.param), dtype_label(ts->pair.state), ts->count, e,
                tensor_names[output == 0 ? 0 : output + 1]);
    for (size_t i = 0; i < ts->n; i++) {
        accel_dtype_t dtype = ts->t[i].dtype;
        print_error(" %s=%.9g (0x%x)", tensor_names[i], (double)elem_get(dtype, ts->before[i], e),
                    elem_bits(dtype, ts->before[i], e));
    }
    print_error("; expected %.9g +- %.3g, got %.9g\n", want.value, want.error, got);
}

/* Every element of `ts` after a step from ts->before agrees with the
 * reference; `where` names the case in the failure message. */
static bool optim_tensors_match_reference(const optim_config_t *c, const optim_tensors_t *ts,
                                          const char *where)
{
    for (size_t e = 0; e < ts->count; e++) {
        double in[4] = {0};
        ref_result_t r;
        for (size_t i = 0; i < ts->n; i++)
            in[i] = elem_get(ts->t[i].dtype, ts->before[i], e);
        ref_element(c, ts->pair, in, &r);
        for (size_t o = 0; o + 1 < ts->n; o++) {
            size_t tensor = o == 0 ? 0 : o + 1;
            double got = elem_get(ts->t[tensor].dtype, ts->t[tensor].first, e);
            bool ok = bounded_holds(got, r.out[o]) ||
                      (o == 0 && r.has_alternative && bounded_holds(got, r.param_alternative));
            if (!ok) {
                report_mismatch(ts, where, e, o, got, r.out[o]);
                return false;
            }
        }
    }
    return true;
}

/* grad is never written. */
static bool grad_untouched(const optim_tensors_t *ts)
{
    return memcmp(ts->t[1].first, ts->before[1], tensor_bytes(&ts->t[1])) == 0;
}

/* ================================================================ fixtures */

static int group_setup(void **state)
{
    accel_op_builder_t *builder = NULL;
    const void *table = NULL;
    (void)state;
    if (accel_get(&test_acc) != ACCEL_OK)
        return -1;
    if (accel_get_op_builder(test_acc, "CPUAdamBuilder", &builder) != ACCEL_OK ||
        accel_op_builder_load(builder, &table) != ACCEL_OK)
        return -1;
    adam_op = table;
    if (accel_get_op_builder(test_acc, "CPUAdagradBuilder", &builder) != ACCEL_OK ||
        accel_op_builder_load(builder, &table) != ACCEL_OK)
        return -1;
    adagrad_op = table;
    if (accel_get_op_builder(test_acc, "CPULionBuilder", &builder) != ACCEL_OK ||
        accel_op_builder_load(builder, &table) != ACCEL_OK)
        return -1;
    lion_op = table;
    return 0;
}

static optim_config_t adam_config(float lr, float beta1, float beta2, float eps, float wd,
                                  bool bias_correction, bool adamw, uint64_t step)
{
    optim_config_t c = {.kind = OPTIM_ADAM, .step = step};
    c.adam = (accel_adam_config_t){lr, beta1, beta2, eps, wd, bias_correction, adamw};
    return c;
}

static optim_config_t adagrad_config(float lr, float eps, float wd)
{
    optim_config_t c = {.kind = OPTIM_ADAGRAD};
    c.adagrad = (accel_adagrad_config_t){lr, eps, wd};
    return c;
}

static optim_config_t lion_config(float lr, float beta1, float beta2, float wd)
{
    optim_config_t c = {.kind = OPTIM_LION};
    c.lion = (accel_lion_config_t){lr, beta1, beta2, wd};
    return c;
}

/* ================================================================ reference self-checks */

/* The test's own conversions against hand-worked values: a wrong reference
 * would make every comparison below meaningless. */
static void test_reference_conversions(void **state)
{
    (void)state;
    assert_int_equal(ref_f32_to_f16(1.0f), 0x3c00);
    assert_int_equal(ref_f32_to_f16(-2.0f), 0xc000);
    assert_int_equal(ref_f32_to_f16(65504.0f), 0x7bff);
    assert_int_equal(ref_f32_to_f16(65519.0f), 0x7bff);
    assert_int_equal(ref_f32_to_f16(65520.0f), 0x7c00);
    assert_int_equal(ref_f32_to_f16(1e10f), 0x7c00);
    assert_int_equal(ref_f32_to_f16(-INFINITY), 0xfc00);
    assert_int_equal(ref_f32_to_f16(0x1p-14f), 0x0400);
    assert_int_equal(ref_f32_to_f16(0x1p-24f), 0x0001);
    assert_int_equal(ref_f32_to_f16(0x1p-25f), 0x0000);        /* tie to even 0 */
    assert_int_equal(ref_f32_to_f16(0x1.8p-24f), 0x0002);      /* 1.5 units: tie to 2 */
    assert_int_equal(ref_f32_to_f16(0x1.4p-24f), 0x0001);      /* 1.25 units */
    assert_int_equal(ref_f32_to_f16(0x1.ffcp-15f), 0x0400);    /* 1023.5 units: up to normal */
    assert_int_equal(ref_f32_to_f16(1.0f + 0x1p-11f), 0x3c00); /* tie, even below */
    assert_int_equal(ref_f32_to_f16(1.0f + 0x3p-11f), 0x3c02); /* tie, even above */
    assert_int_equal(ref_f32_to_f16(0x1.ffcp0f), 0x3fff);
    assert_int_equal(ref_f32_to_f16(0x1.ffdp0f), 0x3fff);
    assert_int_equal(ref_f32_to_f16(0x1.ffep0f), 0x4000); /* tie carries into exponent */
    assert_true((ref_f32_to_f16(NAN) & 0x7fff) > 0x7c00);
    assert_true((ref_f32_to_f16(float_of(0x7f800001u)) & 0x7fff) > 0x7c00);
    assert_true((ref_f32_to_f16(float_of(0xffffffffu)) & 0x7fff) > 0x7c00);
    assert_true(ref_f16_to_f32(0x0001) == 0x1p-24f);
    assert_true(ref_f16_to_f32(0x83ff) == -0x3ffp-24f);
    assert_true(ref_f16_to_f32(0x7bff) == 65504.0f);
    assert_true(isinf(ref_f16_to_f32(0x7c00)));
    assert_true(isnan(ref_f16_to_f32(0x7c01)));
    for (uint32_t h = 0; h < 0x10000; h++) { /* every f16 survives the round trip */
        uint16_t back = ref_f32_to_f16(ref_f16_to_f32((uint16_t)h));
        if ((h & 0x7fff) > 0x7c00)
            assert_true((back & 0x7fff) > 0x7c00);
        else
            assert_int_equal(back, h);
    }
    assert_int_equal(ref_f32_to_bf16(1.0f), 0x3f80);
    assert_int_equal(ref_f32_to_bf16(float_of(0x3f808000u)), 0x3f80); /* tie, even below */
    assert_int_equal(ref_f32_to_bf16(float_of(0x3f818000u)), 0x3f82); /* tie, even above */
    assert_int_equal(ref_f32_to_bf16(float_of(0x3f808001u)), 0x3f81);
    assert_int_equal(ref_f32_to_bf16(float_of(0x7f7fffffu)), 0x7f80); /* max float -> inf */
    assert_int_equal(ref_f32_to_bf16(float_of(0x00008000u)), 0x0000); /* subnormal tie */
    assert_true((ref_f32_to_bf16(float_of(0xffffffffu)) & 0x7fff) > 0x7f80);
    assert_true((ref_f32_to_bf16(float_of(0x7f800001u)) & 0x7fff) > 0x7f80);
    assert_true((ref_f32_to_bf16(NAN) & 0x7fff) > 0x7f80);
}

/* The bound must be tight enough to catch a real mistake: a step with the
 * wrong bias correction or decay order lies outside it. */
static void test_reference_bound_is_tight(void **state)
{
    optim_config_t c = adam_config(0.5f, 0.9f, 0.999f, 1e-8f, 0.5f, true, true, 3);
    dtype_pair_t f32 = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F32};
    double in[4] = {1.25, 0.5, 0.01, 0.02};
    ref_result_t r;
    (void)state;
    ref_element(&c, f32, in, &r);
    assert_true(r.out[0].error < 1e-6 && r.out[1].error < 1e-7 && r.out[2].error < 1e-7);
    double b1 = 0.9f, b2 = 0.999f, eps = 1e-8f; /* the f32 values the op gets */
    double m = b1 * 0.01 + (1.0 - b1) * 0.5, v = b2 * 0.02 + (1.0 - b2) * 0.25;
    double bc1 = 1.0 - pow(b1, 3), bc2 = 1.0 / sqrt(1.0 - pow(b2, 3));
    double p = 1.25 - 0.25 * 1.25 - 0.5 / bc1 * m / (sqrt(v) * bc2 + eps);
    assert_true(bounded_holds(p, r.out[0]));
    assert_true(bounded_holds(m, r.out[1]) && bounded_holds(v, r.out[2]));
    /* decay applied after the update, or no bias correction: both refused */
    double late = (1.25 - 0.5 / bc1 * m / (sqrt(v) * bc2 + eps)) * 0.75;
    assert_false(bounded_holds(late, r.out[0]));
    assert_false(bounded_holds(1.25 - 0.25 * 1.25 - 0.5 * m / (sqrt(v) + eps), r.out[0]));
}

/* ================================================================ public op */

static const size_t public_sizes[] = {0, 1, 3, 15, 16, 17, 63, 64, 65, 1000, 4099, 100003};
#define PUBLIC_SIZE_COUNT (sizeof public_sizes / sizeof public_sizes[0])

static void run_public_case(const optim_config_t *c, size_t config_index, dtype_pair_t pair,
                            size_t count, tensor_layout_t layout, test_rng_t *rng)
{
    optim_tensors_t ts;
    char where[96];
    optim_tensors_init(&ts, c->kind, pair, count, layout);
    optim_tensors_fill_normal(&ts, rng);
    assert_int_equal(public_step(c, &ts), ACCEL_OK);
    snprintf(where, sizeof where, "public op, config %zu, %s:", config_index, layout_names[layout]);
    assert_true(optim_tensors_match_reference(c, &ts, where));
    assert_true(grad_untouched(&ts));
    assert_true(optim_tensors_guards_intact(&ts));
    optim_tensors_free(&ts);
}

/* Each config runs every pair and size, except that the largest size runs
 * one config per pair (rotating, to keep the test fast); layouts rotate over
 * sizes and configs so every layout meets every size across the configs. */
static void check_public_configs(const optim_config_t *configs, size_t n, uint64_t seed)
{
    test_rng_t rng = {seed};
    for (size_t c = 0; c < n; c++) {
        for (size_t p = 0; p < PAIR_COUNT; p++) {
            for (size_t s = 0; s < PUBLIC_SIZE_COUNT; s++) {
                tensor_layout_t layout = (tensor_layout_t)((s + c + p) % LAYOUT_COUNT_);
                if (s + 1 == PUBLIC_SIZE_COUNT && c != p % n)
                    continue;
                run_public_case(&configs[c], c, supported_pairs[p], public_sizes[s], layout, &rng);
            }
        }
    }
}

static void test_adam_public_matches_reference(void **state)
{
    const optim_config_t configs[] = {
        adam_config(1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, true, true, 1),
        adam_config(0.05f, 0.9f, 0.999f, 1e-8f, 0.01f, true, true, 3),
        adam_config(0.3f, 0.8f, 0.99f, 1e-6f, 0.2f, true, false, 2),
        adam_config(0.5f, 0.9f, 0.999f, 1e-3f, 0.5f, false, true, 10),
        adam_config(0.1f, 0.0f, 0.5f, 1e-8f, 0.1f, false, false, 1),
        adam_config(0.01f, 0.95f, 0.9999f, 1e-8f, 0.0f, true, false, 1000),
    };
    (void)state;
    check_public_configs(configs, sizeof configs / sizeof configs[0], 0xada1);
}

static void test_adagrad_public_matches_reference(void **state)
{
    const optim_config_t configs[] = {
        adagrad_config(1e-2f, 1e-10f, 0.0f),
        adagrad_config(0.3f, 1e-6f, 0.3f),
    };
    (void)state;
    check_public_configs(configs, sizeof configs / sizeof configs[0], 0xada2);
}

static void test_lion_public_matches_reference(void **state)
{
    const optim_config_t configs[] = {
        lion_config(1e-3f, 0.9f, 0.99f, 0.0f), lion_config(0.05f, 0.9f, 0.99f, 0.5f),
        lion_config(0.1f, 1.0f, 0.0f, 0.1f), /* closed ends: blend = m, new m = g */
    };
    (void)state;
    check_public_configs(configs, sizeof configs / sizeof configs[0], 0x110a);
}

/* ================================================================ special values */

static const uint32_t nan_f32[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u,
                                   0xffffffffu, 0x7fffffffu, 0xff800001u};
static const uint32_t nan_f16[] = {0x7e00u, 0xfe00u, 0x7c01u, 0xffffu, 0x7fffu, 0xfc01u};
static const uint32_t nan_bf16[] = {0x7fc0u, 0xffc0u, 0x7f81u, 0xffffu, 0x7fffu, 0xff81u};
#define NAN_PATTERNS 6

static uint32_t nan_bits(accel_dtype_t dtype, size_t k)
{
    k %= NAN_PATTERNS;
    return dtype == ACCEL_DTYPE_F32   ? nan_f32[k]
           : dtype == ACCEL_DTYPE_F16 ? nan_f16[k]
                                      : nan_bf16[k];
}

/* An awkward value for `dtype`: NaNs with payloads, infinities, signed
 * zeros, subnormals, the largest finite values, raw bit patterns, or (half
 * of the time) an ordinary one. */
static uint32_t special_bits(accel_dtype_t dtype, optim_kind_t kind, size_t index, test_rng_t *rng)
{
    uint64_t r = rng_next(rng);
    bool f32 = dtype == ACCEL_DTYPE_F32;
    uint32_t sign = (uint32_t)(r >> 63) << (f32 ? 31 : 15);
    uint32_t inf = f32 ? 0x7f800000u : dtype == ACCEL_DTYPE_F16 ? 0x7c00u : 0x7f80u;
    uint32_t mantissa_mask = f32 ? 0x7fffffu : dtype == ACCEL_DTYPE_F16 ? 0x3ffu : 0x7fu;
    uint32_t random = (uint32_t)(r >> 16);
    switch (r % 16) {
    case 0: return nan_bits(dtype, (size_t)(r >> 8));
    case 1: return sign | inf;
    case 2: return sign;
    case 3: /* subnormal */ return sign | ((random & mantissa_mask) | 1u);
    case 4: /* largest finite, or just below */ return sign | ((inf - 1u - (random & 3u)));
    case 5: /* raw bits: anything at all */ return f32 ? random : random & 0xffffu;
    case 6: /* f16's edge in an f32/bf16 tensor, or a value near it */
        return f32_to_bits(dtype, (float)(65504.0 + 32.0 * (rng_uniform(rng) - 0.5)));
    default: return f32_to_bits(dtype, normal_value(kind, index, rng) * 16.0f);
    }
}

static void optim_tensors_fill_special(optim_tensors_t *ts, test_rng_t *rng)
{
    for (size_t i = 0; i < ts->n; i++) {
        for (size_t e = 0; e < ts->count; e++)
            elem_set_bits(ts->t[i].dtype, ts->t[i].first, e,
                          special_bits(ts->t[i].dtype, ts->kind, i, rng));
    }
    optim_tensors_snapshot(ts);
}

/* ================================================================ ISA tables: bit identity */

static const size_t isa_sizes[] = {1,  2,  3,  5,  7,  8,   9,   15,  16,  17,  23,   31,  32,
                                   33, 47, 63, 64, 65, 127, 128, 129, 255, 257, 1000, 4099};

/* Ranges of [0, n) whose ends are rarely multiples of a vector width. */
static size_t ranges_of(size_t n, size_t ranges[][2])
{
    size_t k = 0;
    ranges[k][0] = 0, ranges[k][1] = n, k++;
    if (n > 1)
        ranges[k][0] = 1, ranges[k][1] = n, k++;
    if (n > 6)
        ranges[k][0] = 3, ranges[k][1] = n - 2, k++;
    if (n > 20)
        ranges[k][0] = n / 3 + 1, ranges[k][1] = n - n / 5, k++;
    ranges[k][0] = n / 2, ranges[k][1] = n / 2 + 1, k++; /* one element */
    ranges[k][0] = n / 2, ranges[k][1] = n / 2, k++;     /* nothing */
    return k;
}

static void report_isa_mismatch(const optim_tensors_t *a, const optim_tensors_t *b,
                                const char *name, size_t begin, size_t end)
{
    for (size_t i = 0; i < a->n; i++) {
        accel_dtype_t dtype = a->t[i].dtype;
        for (size_t e = 0; e < a->count; e++) {
            uint32_t want = elem_bits(dtype, a->t[i].first, e),
                     got = elem_bits(dtype, b->t[i].first, e);
            if (want == got)
                continue;
            print_error("%s %s %s/%s n=%zu range [%zu,%zu) element %zu %s: scalar 0x%x, %s 0x%x; "
                        "inputs",
                        name, optim_label(a->kind), dtype_label(a->pair.param),
                        dtype_label(a->pair.state), a->count, begin, end, e, tensor_names[i], want,
                        name, got);
            for (size_t j = 0; j < a->n; j++)
                print_error(" %s=0x%x", tensor_names[j], elem_bits(a->t[j].dtype, a->before[j], e));
            print_error("\n");
            return;
        }
    }
    print_error("%s: blocks differ outside the elements\n", name);
}

static bool blocks_equal(const optim_tensors_t *a, const optim_tensors_t *b)
{
    for (size_t i = 0; i < a->n; i++) {
        if (memcmp(a->t[i].block, b->t[i].block, a->t[i].block_bytes) != 0)
            return false;
    }
    return true;
}

/* Elements outside [begin, end) still hold their inputs. */
static bool outside_untouched(const optim_tensors_t *ts, size_t begin, size_t end)
{
    for (size_t i = 0; i < ts->n; i++) {
        size_t elem = dtype_bytes(ts->t[i].dtype);
        if (memcmp(ts->t[i].first, ts->before[i], begin * elem) != 0 ||
            memcmp(ts->t[i].first + end * elem, ts->before[i] + end * elem,
                   (ts->count - end) * elem) != 0)
            return false;
    }
    return true;
}

/* One config, pair, size and range: scalar on one copy, `table` on another. */
static void check_isa_range(const accel_optim_kernels_t *table, const optim_config_t *c,
                            const optim_tensors_t *input, size_t begin, size_t end)
{
    const accel_optim_kernels_t *scalar = accel_optim_kernels_for(ACCEL_CPU_ISA_SCALAR);
    optim_tensors_t a, b;
    optim_tensors_clone(input, &a, LAYOUT_DATA_SHIFTED);
    optim_tensors_clone(input, &b, LAYOUT_DATA_SHIFTED);
    optim_tensors_snapshot(&a);
    optim_tensors_snapshot(&b);
    accel_optim_view_t view_a = optim_tensors_view(&a), view_b = optim_tensors_view(&b);
    kernel_step(scalar, c, &view_a, begin, end);
    kernel_step(table, c, &view_b, begin, end);
    if (!blocks_equal(&a, &b))
        report_isa_mismatch(&a, &b, table->name, begin, end);
    assert_true(blocks_equal(&a, &b));
    assert_true(outside_untouched(&a, begin, end));
    assert_true(grad_untouched(&a) && optim_tensors_guards_intact(&a));
    optim_tensors_free(&a);
    optim_tensors_free(&b);
}

static void check_isa_configs(const optim_config_t *configs, size_t n_configs, uint64_t seed)
{
    test_rng_t rng = {seed};
    size_t tables = 0;
    for (int isa = ACCEL_CPU_ISA_SCALAR + 1; isa < ACCEL_CPU_ISA_COUNT_; isa++) {
        const accel_optim_kernels_t *table = accel_optim_kernels_for((accel_cpu_isa_t)isa);
        if (table == NULL)
            continue;
        tables++;
        assert_int_equal(table->isa, isa);
        for (size_t c = 0; c < n_configs; c++) {
            for (size_t p = 0; p < PAIR_COUNT; p++) {
                for (size_t s = 0; s < sizeof isa_sizes / sizeof isa_sizes[0]; s++) {
                    optim_tensors_t input;
                    size_t ranges[6][2], n_ranges = ranges_of(isa_sizes[s], ranges);
                    optim_tensors_init(&input, configs[c].kind, supported_pairs[p], isa_sizes[s],
                                       LAYOUT_DATA_SHIFTED);
                    optim_tensors_fill_special(&input, &rng);
                    for (size_t r = 0; r < n_ranges; r++)
                        check_isa_range(table, &configs[c], &input, ranges[r][0], ranges[r][1]);
                    optim_tensors_free(&input);
                }
            }
        }
    }
    print_message("compared %zu vector table(s) with the scalar table\n", tables);
}

static void test_isa_tables_available(void **state)
{
    (void)state;
    const accel_optim_kernels_t *scalar = accel_optim_kernels_for(ACCEL_CPU_ISA_SCALAR);
    assert_non_null(scalar);
    assert_string_equal(scalar->name, "scalar");
    for (int isa = 0; isa < ACCEL_CPU_ISA_COUNT_; isa++) {
        const accel_optim_kernels_t *table = accel_optim_kernels_for((accel_cpu_isa_t)isa);
        bool runnable = isa <= (int)accel_cpu_isa_detected();
        assert_int_equal(table != NULL, runnable);
        if (table != NULL)
            assert_true(table->adam != NULL && table->adagrad != NULL && table->lion != NULL);
    }
    assert_null(accel_optim_kernels_for(ACCEL_CPU_ISA_COUNT_));
}

/* The scalar kernel takes any alignment (its loads and stores are memcpy):
 * with no element aligned it gives the bits it gives on aligned data, and
 * (under UBSan) performs no misaligned access. */
static void test_scalar_kernel_any_alignment(void **state)
{
    const optim_config_t configs[] = {
        adam_config(1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, true, false, 3),
        adagrad_config(1e-2f, 1e-10f, 0.01f),
        lion_config(1e-3f, 0.9f, 0.99f, 0.01f),
    };
    const accel_optim_kernels_t *scalar = accel_optim_kernels_for(ACCEL_CPU_ISA_SCALAR);
    test_rng_t rng = {0xa119};
    (void)state;
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        for (size_t p = 0; p < PAIR_COUNT; p++) {
            optim_tensors_t aligned, odd;
            optim_tensors_init(&aligned, configs[c].kind, supported_pairs[p], 37, LAYOUT_ALIGNED);
            optim_tensors_fill_normal(&aligned, &rng);
            optim_tensors_init(&odd, configs[c].kind, supported_pairs[p], 37, LAYOUT_ODD_BYTE);
            for (size_t i = 0; i < aligned.n; i++)
                memcpy(odd.t[i].first, aligned.t[i].first, tensor_bytes(&aligned.t[i]));
            accel_optim_view_t view_a = optim_tensors_view(&aligned);
            accel_optim_view_t view_o = optim_tensors_view(&odd);
            kernel_step(scalar, &configs[c], &view_a, 0, 37);
            kernel_step(scalar, &configs[c], &view_o, 0, 37);
            for (size_t i = 0; i < aligned.n; i++)
                assert_memory_equal(odd.t[i].first, aligned.t[i].first,
                                    tensor_bytes(&aligned.t[i]));
            assert_true(optim_tensors_guards_intact(&odd));
            optim_tensors_free(&aligned);
            optim_tensors_free(&odd);
        }
    }
}

static void test_adam_isa_bit_identical(void **state)
{
    const optim_config_t configs[] = {
        adam_config(1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, true, true, 1),
        adam_config(0.3f, 0.8f, 0.99f, 1e-6f, 0.2f, true, false, 2),
        adam_config(0.5f, 0.9f, 0.999f, 1e-3f, 0.5f, false, true, 10),
        adam_config(50.0f, 0.0f, 0.0f, 1e-8f, 0.0f, false, true, 1), /* f16 param overflow */
    };
    (void)state;
    check_isa_configs(configs, sizeof configs / sizeof configs[0], 0x15a1);
}

static void test_adagrad_isa_bit_identical(void **state)
{
    const optim_config_t configs[] = {
        adagrad_config(1e-2f, 1e-10f, 0.0f),
        adagrad_config(40.0f, 1e-6f, 0.3f),
    };
    (void)state;
    check_isa_configs(configs, sizeof configs / sizeof configs[0], 0x15a2);
}

static void test_lion_isa_bit_identical(void **state)
{
    const optim_config_t configs[] = {
        lion_config(1e-3f, 0.9f, 0.99f, 0.0f),
        lion_config(0.05f, 0.9f, 0.99f, 0.5f),
        lion_config(100.0f, 1.0f, 0.0f, 0.001f),
    };
    (void)state;
    check_isa_configs(configs, sizeof configs / sizeof configs[0], 0x15a3);
}

/* ================================================================ NaN, ties, overflow */

/* NaN (every payload, in every input) gives NaN exactly where the formula
 * does, in every table, and the other outputs stay within the bound. */
static void check_nan_case(const optim_config_t *c, dtype_pair_t pair,
                           const accel_optim_kernels_t *table, test_rng_t *rng)
{
    optim_tensors_t ts;
    size_t n = optim_tensor_count(c->kind), count = 4 * n * NAN_PATTERNS + 5;
    char where[64];
    optim_tensors_init(&ts, c->kind, pair, count, LAYOUT_DATA_SHIFTED);
    optim_tensors_fill_normal(&ts, rng);
    for (size_t e = 0; e + 5 < count; e++) {
        size_t role = e % n;
        elem_set_bits(ts.t[role].dtype, ts.t[role].first, e, nan_bits(ts.t[role].dtype, e / n));
    }
    optim_tensors_snapshot(&ts);
    accel_optim_view_t view = optim_tensors_view(&ts);
    kernel_step(table, c, &view, 0, count);
    snprintf(where, sizeof where, "NaN inputs, %s table:", table->name);
    assert_true(optim_tensors_match_reference(c, &ts, where));
    optim_tensors_free(&ts);
}

static void test_nan_stays_nan(void **state)
{
    const optim_config_t configs[] = {
        adam_config(1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, true, true, 1),
        adam_config(1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, true, false, 1),
        adagrad_config(1e-2f, 1e-10f, 0.1f),
        lion_config(1e-3f, 0.9f, 0.99f, 0.1f),
    };
    test_rng_t rng = {0x7a7a};
    (void)state;
    for (int isa = 0; isa < ACCEL_CPU_ISA_COUNT_; isa++) {
        const accel_optim_kernels_t *table = accel_optim_kernels_for((accel_cpu_isa_t)isa);
        if (table == NULL)
            continue;
        for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
            for (size_t p = 0; p < PAIR_COUNT; p++)
                check_nan_case(&configs[c], supported_pairs[p], table, &rng);
        }
    }
}

/* Whether storing f32 `value` in `dtype` is an exact tie between two values. */
static bool store_is_tie(accel_dtype_t dtype, float value)
{
    uint32_t bits = bits_of(value) & 0x7fffffffu;
    if (bits >= 0x7f800000u)
        return false;
    if (dtype == ACCEL_DTYPE_BF16)
        return (bits & 0xffffu) == 0x8000u;
    if (bits >= 0x38800000u) /* f16 normal range: 13 dropped bits */
        return bits < 0x47800000u && (bits & 0x1fffu) == 0x1000u;
    double units = ldexp(fabs((double)value), 24);
    return units - floor(units) == 0.5;
}

/* A 16-bit grad with few fraction bits (its square often ties when stored),
 * over exponents that reach the format's subnormals and its overflow. */
static float short_grad(accel_dtype_t dtype, test_rng_t *rng)
{
    uint64_t r = rng_next(rng);
    int low = dtype == ACCEL_DTYPE_F16 ? -14 : -70, high = dtype == ACCEL_DTYPE_F16 ? 9 : 68;
    int exponent = low + (int)((r >> 8) % (uint64_t)(high - low + 1));
    double fraction = (r & 1) ? 1.0 + (double)((r >> 1) & 63) / 64.0 : 1.0 + rng_uniform(rng);
    float g = (float)ldexp((r >> 40) & 1 ? -fraction : fraction, exponent);
    return bits_to_f32(dtype, f32_to_bits(dtype, g)); /* representable in dtype */
}

/* Adam with beta1 = beta2 = 0 stores m = g and v = g * g (exact in f32 for
 * 16-bit g): the stored v is our round-to-nearest-even of g * g bit for bit,
 * ties, subnormals and f16 overflow to inf included. */
static void test_half_store_rounding(void **state)
{
    const optim_config_t c = adam_config(1e-3f, 0.0f, 0.0f, 1e-8f, 0.0f, false, true, 1);
    const dtype_pair_t pairs[2] = {{ACCEL_DTYPE_F16, ACCEL_DTYPE_F16},
                                   {ACCEL_DTYPE_BF16, ACCEL_DTYPE_BF16}};
    test_rng_t rng = {0x71e5};
    (void)state;
    for (int isa = 0; isa < ACCEL_CPU_ISA_COUNT_; isa++) {
        const accel_optim_kernels_t *table = accel_optim_kernels_for((accel_cpu_isa_t)isa);
        if (table == NULL)
            continue;
        for (size_t p = 0; p < 2; p++) {
            accel_dtype_t dtype = pairs[p].state;
            size_t count = 4099, ties = 0, infinities = 0, subnormals = 0;
            optim_tensors_t ts;
            optim_tensors_init(&ts, OPTIM_ADAM, pairs[p], count, LAYOUT_BYTE_OFFSET);
            optim_tensors_fill_normal(&ts, &rng);
            for (size_t e = 0; e < count; e++) {
                elem_set(dtype, ts.t[1].first, e, short_grad(dtype, &rng));
                elem_set(dtype, ts.t[2].first, e, 0.0f);
                elem_set(dtype, ts.t[3].first, e, 0.0f);
            }
            optim_tensors_snapshot(&ts);
            accel_optim_view_t view = optim_tensors_view(&ts);
            kernel_step(table, &c, &view, 0, count);
            for (size_t e = 0; e < count; e++) {
                float g = elem_get(dtype, ts.before[1], e), square = g * g;
                uint32_t want_v = f32_to_bits(dtype, square), want_m = f32_to_bits(dtype, g + 0.0f);
                uint32_t got_v = elem_bits(dtype, ts.t[3].first, e);
                uint32_t got_m = elem_bits(dtype, ts.t[2].first, e);
                if (got_v != want_v || got_m != want_m)
                    print_error("%s %s element %zu: g=%a (0x%x): v want 0x%x got 0x%x, m want 0x%x "
                                "got 0x%x\n",
                                table->name, dtype_label(dtype), e, (double)g,
                                elem_bits(dtype, ts.before[1], e), want_v, got_v, want_m, got_m);
                assert_int_equal(got_v, want_v);
                assert_int_equal(got_m, want_m);
                ties += store_is_tie(dtype, square);
                infinities += isinf(bits_to_f32(dtype, want_v));
                subnormals += (want_v & 0x7fffu) != 0 &&
                              (want_v & (dtype == ACCEL_DTYPE_F16 ? 0x7c00u : 0x7f80u)) == 0;
            }
            /* the inputs really reached the cases this test is about */
            assert_true(ties >= 20);
            assert_true(infinities >= 20);
            assert_true(subnormals >= 20);
            optim_tensors_free(&ts);
        }
    }
}

/* ================================================================ trajectories */

/* Double-precision Adam over `steps` steps, state kept in double; the param
 * is stored in its dtype after each step as the op does. */
typedef struct trajectory {
    size_t count;
    accel_dtype_t dtype;
    double *param, *m, *v;
} trajectory_t;

static void trajectory_step(trajectory_t *t, const accel_adam_config_t *c, uint64_t step,
                            const float *grads)
{
    double b1 = c->beta1, b2 = c->beta2, wd = c->weight_decay, lr = c->lr;
    double bc1 = c->bias_correction ? 1.0 - pow(b1, (double)step) : 1.0;
    double bc2 = c->bias_correction ? 1.0 / sqrt(1.0 - pow(b2, (double)step)) : 1.0;
    for (size_t i = 0; i < t->count; i++) {
        double p = t->param[i], g = grads[i];
        if (wd > 0.0 && !c->adamw_mode)
            g += wd * p;
        t->m[i] = b1 * t->m[i] + (1.0 - b1) * g;
        t->v[i] = b2 * t->v[i] + (1.0 - b2) * g * g;
        if (wd > 0.0 && c->adamw_mode)
            p -= lr * wd * p;
        p -= lr / bc1 * t->m[i] / (sqrt(t->v[i]) * bc2 + c->eps);
        t->param[i] = t->dtype == ACCEL_DTYPE_F32
                          ? p
                          : bits_to_f32(t->dtype, f32_to_bits(t->dtype, (float)p));
    }
}

static bool close_enough(double got, double want, double atol, double rtol)
{
    return fabs(got - want) <= atol + rtol * fabs(want);
}

/* DeepSpeed's test_cpu_adam shape: random params, new random grads each of
 * 10 steps, the op against a double reference. */
typedef struct trajectory_tolerance {
    double param_atol, param_rtol, m_atol, m_rtol, v_atol, v_rtol;
} trajectory_tolerance_t;

/* fp32: DeepSpeed's atol = rtol = 1e-4 for params, tighter for the moments. */
static const trajectory_tolerance_t fp32_tolerance = {1e-4, 1e-4, 1e-6, 1e-4, 1e-8, 1e-4};

static void run_trajectory(accel_dtype_t dtype, bool adamw, size_t count,
                           const trajectory_tolerance_t *tol, test_rng_t *rng)
{
    optim_config_t c = adam_config(1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, true, adamw, 1);
    dtype_pair_t pair = {dtype, ACCEL_DTYPE_F32};
    optim_tensors_t ts;
    trajectory_t ref = {count, dtype, calloc(count + 1, sizeof(double)),
                        calloc(count + 1, sizeof(double)), calloc(count + 1, sizeof(double))};
    float *grads = calloc(count + 1, sizeof(float));
    assert_true(ref.param != NULL && ref.m != NULL && ref.v != NULL && grads != NULL);
    optim_tensors_init(&ts, OPTIM_ADAM, pair, count, LAYOUT_ALIGNED);
    for (size_t i = 0; i < count; i++) {
        elem_set(dtype, ts.t[0].first, i, (float)rng_normal(rng));
        ref.param[i] = elem_get(dtype, ts.t[0].first, i);
        elem_set(ACCEL_DTYPE_F32, ts.t[2].first, i, 0.0f);
        elem_set(ACCEL_DTYPE_F32, ts.t[3].first, i, 0.0f);
    }
    for (uint64_t step = 1; step <= 10; step++) {
        for (size_t i = 0; i < count; i++) {
            elem_set(dtype, ts.t[1].first, i, (float)rng_normal(rng));
            grads[i] = elem_get(dtype, ts.t[1].first, i);
        }
        c.step = step;
        assert_int_equal(public_step(&c, &ts), ACCEL_OK);
        trajectory_step(&ref, &c.adam, step, grads);
        for (size_t i = 0; i < count; i++) {
            double p = elem_get(dtype, ts.t[0].first, i);
            double m = elem_get(ACCEL_DTYPE_F32, ts.t[2].first, i);
            double v = elem_get(ACCEL_DTYPE_F32, ts.t[3].first, i);
            bool ok = close_enough(p, ref.param[i], tol->param_atol, tol->param_rtol) &&
                      close_enough(m, ref.m[i], tol->m_atol, tol->m_rtol) &&
                      close_enough(v, ref.v[i], tol->v_atol, tol->v_rtol);
            if (!ok)
                print_error("%s %s n=%zu step %u element %zu: param %.9g (ref %.9g), m %.9g (ref "
                            "%.9g), v %.9g (ref %.9g)\n",
                            adamw ? "AdamW" : "Adam", dtype_label(dtype), count, (unsigned)step, i,
                            p, ref.param[i], m, ref.m[i], v, ref.v[i]);
            assert_true(ok);
        }
    }
    optim_tensors_free(&ts);
    free(ref.param);
    free(ref.m);
    free(ref.v);
    free(grads);
}

static const size_t trajectory_sizes[] = {22, 64, 128, 1024, 131072};
static const size_t half_trajectory_sizes[] = {22, 64, 128, 1024, 32768};

static void test_adam_trajectory_fp32(void **state)
{
    test_rng_t rng = {0x7e57};
    (void)state;
    for (size_t s = 0; s < sizeof trajectory_sizes / sizeof trajectory_sizes[0]; s++) {
        run_trajectory(ACCEL_DTYPE_F32, false, trajectory_sizes[s], &fp32_tolerance, &rng);
        run_trajectory(ACCEL_DTYPE_F32, true, trajectory_sizes[s], &fp32_tolerance, &rng);
    }
}

/* Half params: the reference rounds too, and a rounding that falls the
 * other way near a tie may shift a param by an ulp; allow two. With L2
 * decay that ulp reaches the moments through g. */
static void test_adam_trajectory_half(void **state)
{
    const trajectory_tolerance_t f16 = {1e-4, 2.0 * 0x1p-10, 1e-4, 1e-3, 1e-6, 1e-3};
    const trajectory_tolerance_t bf16 = {1e-4, 2.0 * 0x1p-7, 1e-4, 1e-3, 1e-6, 1e-3};
    test_rng_t rng = {0x7e58};
    (void)state;
    for (size_t s = 0; s < sizeof half_trajectory_sizes / sizeof half_trajectory_sizes[0]; s++) {
        run_trajectory(ACCEL_DTYPE_F16, false, half_trajectory_sizes[s], &f16, &rng);
        run_trajectory(ACCEL_DTYPE_F16, true, half_trajectory_sizes[s], &f16, &rng);
        run_trajectory(ACCEL_DTYPE_BF16, false, half_trajectory_sizes[s], &bf16, &rng);
        run_trajectory(ACCEL_DTYPE_BF16, true, half_trajectory_sizes[s], &bf16, &rng);
    }
}

/* ================================================================ split invariance */

/* A large step through the public op (split across the worker pool) equals
 * the scalar kernel over the whole range in one call, bit for bit. With 4
 * threads and 32 Ki elements per thread at least, 2^18 already splits 4 ways. */
static void check_split(const optim_config_t *c, dtype_pair_t pair, size_t count, test_rng_t *rng)
{
    optim_tensors_t threaded, whole;
    optim_tensors_init(&threaded, c->kind, pair, count, LAYOUT_BYTE_OFFSET);
    optim_tensors_fill_normal(&threaded, rng);
    optim_tensors_clone(&threaded, &whole, LAYOUT_BYTE_OFFSET);
    optim_tensors_snapshot(&whole);
    assert_int_equal(public_step(c, &threaded), ACCEL_OK);
    accel_optim_view_t view = optim_tensors_view(&whole);
    kernel_step(accel_optim_kernels_for(ACCEL_CPU_ISA_SCALAR), c, &view, 0, count);
    if (!blocks_equal(&whole, &threaded))
        report_isa_mismatch(&whole, &threaded, "threaded op", 0, count);
    assert_true(blocks_equal(&whole, &threaded));
    optim_tensors_free(&threaded);
    optim_tensors_free(&whole);
}

static void test_split_invariance(void **state)
{
    const dtype_pair_t f32 = supported_pairs[0], f16_f32 = supported_pairs[1],
                       bf16_f32 = supported_pairs[2], f16 = supported_pairs[3],
                       bf16 = supported_pairs[4];
    const optim_config_t adam = adam_config(0.05f, 0.9f, 0.999f, 1e-8f, 0.01f, true, true, 3);
    const optim_config_t adam_l2 = adam_config(0.05f, 0.9f, 0.999f, 1e-8f, 0.01f, true, false, 7);
    const optim_config_t adagrad = adagrad_config(0.3f, 1e-6f, 0.3f);
    const optim_config_t lion = lion_config(0.05f, 0.9f, 0.99f, 0.5f);
    test_rng_t rng = {0x5b11};
    (void)state;
    print_message("worker pool: %zu threads\n", accel_thread_pool_threads());
    if (strcmp(getenv("ACCEL_CPU_THREADS") ? getenv("ACCEL_CPU_THREADS") : "", "4") == 0)
        assert_true(accel_thread_pool_threads() == 4);    /* the step really was split */
    check_split(&adam, f32, ((size_t)1 << 20) + 7, &rng); /* ragged last chunk */
    check_split(&adam_l2, bf16, ((size_t)1 << 18) + 3, &rng);
    check_split(&adam, f16_f32, (size_t)1 << 18, &rng);
    check_split(&adagrad, f16, ((size_t)1 << 18) + 1, &rng);
    check_split(&lion, bf16_f32, ((size_t)1 << 18) + 5, &rng);
}

/* ================================================================ bad input */

/* A valid f32 step of 33 elements, plus what each bad case changes. */
typedef struct bad_fixture {
    optim_kind_t kind;
    test_tensor_t t[4];
    DLTensor dl[4];
    DLTensor *args[4];
    accel_t *acc;
    optim_config_t config;
    const void *config_arg;
    int64_t alt_shape[2];
    int64_t alt_strides[2];
    unsigned char *snapshot[4];
} bad_fixture_t;

typedef struct bad_case {
    const char *what;
    bool (*spoil)(bad_fixture_t *f); /* false: does not apply to this optimizer */
} bad_case_t;

static bool spoil_null_config(bad_fixture_t *f)
{
    f->config_arg = NULL;
    return true;
}

static bool spoil_null_acc(bad_fixture_t *f)
{
    f->acc = NULL;
    return true;
}

static bool spoil_null_param(bad_fixture_t *f)
{
    f->args[0] = NULL;
    return true;
}

static bool spoil_null_grad(bad_fixture_t *f)
{
    f->args[1] = NULL;
    return true;
}

static bool spoil_null_state(bad_fixture_t *f)
{
    f->args[2] = NULL;
    return true;
}

static bool spoil_null_second_state(bad_fixture_t *f)
{
    f->args[3] = NULL;
    return f->kind == OPTIM_ADAM;
}

static bool spoil_step_zero(bad_fixture_t *f)
{
    f->config.step = 0;
    return f->kind == OPTIM_ADAM;
}

static bool spoil_short_grad(bad_fixture_t *f)
{
    f->alt_shape[0] = 32;
    f->dl[1].shape = f->alt_shape;
    return true;
}

static bool spoil_long_state(bad_fixture_t *f)
{
    f->alt_shape[0] = 34;
    f->dl[f->kind == OPTIM_ADAM ? 3 : 2].shape = f->alt_shape;
    return true;
}

static bool spoil_grad_dtype(bad_fixture_t *f)
{
    f->dl[1].dtype = dtype_dlpack(ACCEL_DTYPE_F16);
    return true;
}

static bool spoil_unsupported_pair(bad_fixture_t *f) /* f32 param, f16 states */
{
    f->dl[2].dtype = dtype_dlpack(ACCEL_DTYPE_F16);
    f->dl[3].dtype = dtype_dlpack(ACCEL_DTYPE_F16);
    return true;
}

static bool spoil_mixed_states(bad_fixture_t *f)
{
    f->dl[3].dtype = dtype_dlpack(ACCEL_DTYPE_BF16);
    return f->kind == OPTIM_ADAM;
}

static bool spoil_integer_dtype(bad_fixture_t *f)
{
    f->dl[0].dtype = (DLDataType){kDLInt, 32, 1};
    f->dl[1].dtype = (DLDataType){kDLInt, 32, 1};
    return true;
}

static bool spoil_vector_lanes(bad_fixture_t *f)
{
    f->dl[2].dtype.lanes = 2;
    return true;
}

static bool spoil_column_major(bad_fixture_t *f) /* 3 x 11, column-major strides */
{
    f->alt_shape[0] = 3, f->alt_shape[1] = 11;
    f->alt_strides[0] = 1, f->alt_strides[1] = 3;
    f->dl[0].ndim = 2;
    f->dl[0].shape = f->alt_shape;
    f->dl[0].strides = f->alt_strides;
    return true;
}

static bool spoil_strided_grad(bad_fixture_t *f) /* every other element */
{
    f->alt_shape[0] = 33;
    f->alt_strides[0] = 2;
    f->dl[1].strides = f->alt_strides;
    return true;
}

static bool spoil_negative_extent(bad_fixture_t *f)
{
    f->alt_shape[0] = -33;
    f->dl[2].shape = f->alt_shape;
    return true;
}

static bool spoil_null_shape(bad_fixture_t *f)
{
    f->dl[0].shape = NULL;
    return true;
}

static bool spoil_null_data(bad_fixture_t *f)
{
    f->dl[2].data = NULL;
    return true;
}

static bool spoil_negative_lr(bad_fixture_t *f)
{
    f->config.adam.lr = f->config.adagrad.lr = f->config.lion.lr = -1e-3f;
    return true;
}

static bool spoil_nan_lr(bad_fixture_t *f)
{
    f->config.adam.lr = f->config.adagrad.lr = f->config.lion.lr = NAN;
    return true;
}

static bool spoil_negative_weight_decay(bad_fixture_t *f)
{
    f->config.adam.weight_decay = f->config.adagrad.weight_decay = -0.01f;
    f->config.lion.weight_decay = -0.01f;
    return true;
}

static bool spoil_negative_eps(bad_fixture_t *f)
{
    f->config.adam.eps = f->config.adagrad.eps = -1e-8f;
    return f->kind != OPTIM_LION;
}

static bool spoil_beta1_one(bad_fixture_t *f) /* Adam needs beta < 1; Lion allows 1 */
{
    f->config.adam.beta1 = 1.0f;
    f->config.lion.beta1 = 1.5f;
    return f->kind != OPTIM_ADAGRAD;
}

static bool spoil_beta2_one(bad_fixture_t *f)
{
    f->config.adam.beta2 = 1.0f;
    f->config.lion.beta2 = -0.5f;
    return f->kind != OPTIM_ADAGRAD;
}

static bool spoil_infinite_beta(bad_fixture_t *f)
{
    f->config.adam.beta1 = INFINITY;
    f->config.lion.beta1 = INFINITY;
    return f->kind != OPTIM_ADAGRAD;
}

static bool spoil_param_grad_overlap(bad_fixture_t *f) /* grad starts at param[1] */
{
    f->dl[1].data = f->t[0].first;
    f->dl[1].byte_offset = 4;
    return true;
}

static bool spoil_same_state_twice(bad_fixture_t *f)
{
    f->args[3] = f->args[2];
    return f->kind == OPTIM_ADAM;
}

static bool spoil_param_is_state(bad_fixture_t *f)
{
    f->args[2] = f->args[0];
    return true;
}

/* data + 4 with byte_offset 2^64 - 4: the sum wraps to 4 bytes before data. */
static bool spoil_wrapping_offset(bad_fixture_t *f)
{
    f->dl[0].data = (char *)f->dl[0].data + 4;
    f->dl[0].byte_offset = UINT64_MAX - 3;
    return true;
}

/* An offset so large that data + offset + size passes the end of memory. */
static bool spoil_offset_past_address_space(bad_fixture_t *f)
{
    f->dl[1].byte_offset = UINT64_MAX - (uint64_t)(uintptr_t)f->dl[1].data + 1;
    return true;
}

static bool spoil_cuda_param(bad_fixture_t *f)
{
    f->dl[0].device = (DLDevice){kDLCUDA, 0};
    return true;
}

static bool spoil_cuda_state(bad_fixture_t *f)
{
    f->dl[2].device = (DLDevice){kDLCUDA, 0};
    return true;
}

static const bad_case_t bad_cases[] = {
    {"NULL config", spoil_null_config},
    {"NULL accel", spoil_null_acc},
    {"NULL param", spoil_null_param},
    {"NULL grad", spoil_null_grad},
    {"NULL state", spoil_null_state},
    {"NULL exp_avg_sq", spoil_null_second_state},
    {"step 0", spoil_step_zero},
    {"grad one element short", spoil_short_grad},
    {"state one element long", spoil_long_state},
    {"grad dtype differs from param", spoil_grad_dtype},
    {"f32 param with f16 state", spoil_unsupported_pair},
    {"exp_avg f32, exp_avg_sq bf16", spoil_mixed_states},
    {"int32 tensors", spoil_integer_dtype},
    {"vector lanes", spoil_vector_lanes},
    {"column-major param", spoil_column_major},
    {"strided grad", spoil_strided_grad},
    {"negative extent", spoil_negative_extent},
    {"NULL shape", spoil_null_shape},
    {"NULL data", spoil_null_data},
    {"negative lr", spoil_negative_lr},
    {"NaN lr", spoil_nan_lr},
    {"negative weight_decay", spoil_negative_weight_decay},
    {"negative eps", spoil_negative_eps},
    {"beta1 = 1 (Lion: 1.5)", spoil_beta1_one},
    {"beta2 = 1 (Lion: -0.5)", spoil_beta2_one},
    {"infinite beta1", spoil_infinite_beta},
    {"param and grad overlap", spoil_param_grad_overlap},
    {"exp_avg is exp_avg_sq", spoil_same_state_twice},
    {"param is the state", spoil_param_is_state},
    {"byte_offset wraps below param data", spoil_wrapping_offset},
    {"grad byte_offset past the address space", spoil_offset_past_address_space},
    {"kDLCUDA param", spoil_cuda_param},
    {"kDLCUDA state", spoil_cuda_state},
};

static void bad_fixture_init(bad_fixture_t *f, optim_kind_t kind, test_rng_t *rng)
{
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->acc = test_acc;
    if (kind == OPTIM_ADAM)
        f->config = adam_config(1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, true, true, 1);
    else if (kind == OPTIM_ADAGRAD)
        f->config = adagrad_config(1e-2f, 1e-10f, 0.01f);
    else
        f->config = lion_config(1e-3f, 0.9f, 0.99f, 0.01f);
    for (size_t i = 0; i < optim_tensor_count(kind); i++) {
        tensor_init(&f->t[i], ACCEL_DTYPE_F32, 33, LAYOUT_ALIGNED, 0);
        for (size_t e = 0; e < 33; e++)
            elem_set(ACCEL_DTYPE_F32, f->t[i].first, e, normal_value(kind, i, rng));
        f->dl[i] = f->t[i].dl;
        f->args[i] = &f->dl[i];
        f->snapshot[i] = malloc(f->t[i].block_bytes);
        assert_non_null(f->snapshot[i]);
        memcpy(f->snapshot[i], f->t[i].block, f->t[i].block_bytes);
    }
}

static void bad_fixture_free(bad_fixture_t *f)
{
    for (size_t i = 0; i < optim_tensor_count(f->kind); i++) {
        tensor_free(&f->t[i]);
        free(f->snapshot[i]);
    }
}

static accel_status_t bad_fixture_step(bad_fixture_t *f)
{
    const void *config = f->config_arg == NULL ? NULL : config_of(&f->config);
    return public_step_on(f->acc, &f->config, config, f->args);
}

/* A known, different error first, so a stale sentence cannot pass. */
static void plant_marker_error(char *marker, size_t cap)
{
    accel_op_builder_t *builder = NULL;
    assert_int_equal(accel_op_builder_at(test_acc, (size_t)-1, &builder), ACCEL_ERROR_NOT_FOUND);
    snprintf(marker, cap, "%s", accel_last_error());
}

static void check_bad_case(optim_kind_t kind, const bad_case_t *bad, test_rng_t *rng)
{
    bad_fixture_t f;
    char marker[512];
    bad_fixture_init(&f, kind, rng);
    f.config_arg = &f.config;
    if (!bad->spoil(&f)) {
        bad_fixture_free(&f);
        return;
    }
    plant_marker_error(marker, sizeof marker);
    accel_status_t status = bad_fixture_step(&f);
    const char *message = accel_last_error();
    if (status != ACCEL_ERROR_INVALID_ARGUMENT || message[0] == '\0' ||
        strcmp(message, marker) == 0)
        print_error("%s, %s: status %s, message \"%s\"\n", optim_label(kind), bad->what,
                    accel_status_name(status), message);
    assert_int_equal(status, ACCEL_ERROR_INVALID_ARGUMENT);
    assert_true(message[0] != '\0' && strcmp(message, marker) != 0);
    for (size_t i = 0; i < optim_tensor_count(kind); i++) {
        if (memcmp(f.snapshot[i], f.t[i].block, f.t[i].block_bytes) != 0)
            print_error("%s, %s: %s tensor changed\n", optim_label(kind), bad->what,
                        tensor_names[i]);
        assert_memory_equal(f.snapshot[i], f.t[i].block, f.t[i].block_bytes);
    }
    bad_fixture_free(&f);
}

static void test_bad_input_refused(void **state)
{
    test_rng_t rng = {0xbad};
    (void)state;
    for (int kind = OPTIM_ADAM; kind <= OPTIM_LION; kind++) {
        /* the unspoiled fixture is accepted, so each case tests its one change */
        bad_fixture_t f;
        bad_fixture_init(&f, (optim_kind_t)kind, &rng);
        f.config_arg = &f.config;
        assert_int_equal(bad_fixture_step(&f), ACCEL_OK);
        bad_fixture_free(&f);
        for (size_t b = 0; b < sizeof bad_cases / sizeof bad_cases[0]; b++)
            check_bad_case((optim_kind_t)kind, &bad_cases[b], &rng);
    }
}

/* An empty step is fine, with or without data. */
static void test_empty_step(void **state)
{
    const optim_config_t adam = adam_config(1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, true, true, 1);
    (void)state;
    for (int layout = 0; layout < LAYOUT_COUNT_; layout++) {
        optim_tensors_t ts;
        optim_tensors_init(&ts, OPTIM_ADAM, supported_pairs[0], 0, (tensor_layout_t)layout);
        assert_int_equal(public_step(&adam, &ts), ACCEL_OK);
        assert_true(optim_tensors_guards_intact(&ts));
        optim_tensors_free(&ts);
    }
}

/* ================================================================ tables and ACCEL_CPU_ISA */

/* The loaded tables: current size, cached, and naming the kernels that the
 * ISA selection gives. */
static void test_op_tables(void **state)
{
    accel_op_builder_t *builder = NULL;
    const void *again = NULL;
    const char *selected = accel_optim_kernels_for(accel_cpu_isa_selected())->name;
    (void)state;
    assert_true(adam_op->struct_size >= sizeof(accel_adam_op_t));
    assert_true(adagrad_op->struct_size >= sizeof(accel_adagrad_op_t));
    assert_true(lion_op->struct_size >= sizeof(accel_lion_op_t));
    assert_string_equal(adam_op->implementation, selected);
    assert_string_equal(adagrad_op->implementation, selected);
    assert_string_equal(lion_op->implementation, selected);
    assert_int_equal(accel_get_op_builder(test_acc, "CPUAdamBuilder", &builder), ACCEL_OK);
    assert_string_equal(accel_op_builder_op_name(builder), "cpu_adam");
    assert_int_equal(accel_op_builder_load(builder, &again), ACCEL_OK);
    assert_ptr_equal(again, adam_op);
    assert_int_equal(accel_get_op_builder(test_acc, "CPUAdagradBuilder", &builder), ACCEL_OK);
    assert_string_equal(accel_op_builder_op_name(builder), "cpu_adagrad");
    assert_int_equal(accel_get_op_builder(test_acc, "CPULionBuilder", &builder), ACCEL_OK);
    assert_string_equal(accel_op_builder_op_name(builder), "cpu_lion");
}

static accel_cpu_isa_t isa_min(accel_cpu_isa_t a, accel_cpu_isa_t b)
{
    return a < b ? a : b;
}

/* accel_cpu_isa_selected() reads ACCEL_CPU_ISA on every call (isa.c): each
 * value caps the detected ISA, an unknown or empty one is ignored. */
static void test_cpu_isa_env_caps_selection(void **state)
{
    static const char *const names[ACCEL_CPU_ISA_COUNT_] = {"scalar", "avx2", "avx512"};
    const char *saved = getenv("ACCEL_CPU_ISA");
    char *restore = saved != NULL ? strdup(saved) : NULL;
    accel_cpu_isa_t detected = accel_cpu_isa_detected();
    (void)state;
    unsetenv("ACCEL_CPU_ISA");
    assert_int_equal(accel_cpu_isa_selected(), detected);
    for (int i = 0; i < ACCEL_CPU_ISA_COUNT_; i++) {
        setenv("ACCEL_CPU_ISA", names[i], 1);
        assert_int_equal(accel_cpu_isa_selected(), isa_min((accel_cpu_isa_t)i, detected));
        assert_non_null(accel_optim_kernels_for(accel_cpu_isa_selected()));
    }
    setenv("ACCEL_CPU_ISA", "sse9", 1);
    assert_int_equal(accel_cpu_isa_selected(), detected);
    setenv("ACCEL_CPU_ISA", "", 1);
    assert_int_equal(accel_cpu_isa_selected(), detected);
    if (restore != NULL)
        setenv("ACCEL_CPU_ISA", restore, 1);
    else
        unsetenv("ACCEL_CPU_ISA");
    free(restore);
}

/* The host ops choose their kernels once, at the first load: a fresh
 * process with ACCEL_CPU_ISA set must report (and run) the capped table. */
static int run_isa_child(const char *isa_value, const char *expected)
{
    char assignment[64];
    char *envp[256];
    size_t n = 0;
    snprintf(assignment, sizeof assignment, "ACCEL_CPU_ISA=%s", isa_value);
    for (char **e = environ; *e != NULL && n < 254; e++) {
        if (strncmp(*e, "ACCEL_CPU_ISA=", 14) != 0)
            envp[n++] = *e;
    }
    envp[n++] = assignment;
    envp[n] = NULL;
    char *argv[] = {"test_optim_cpu", "--isa-child", (char *)expected, NULL};
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execve("/proc/self/exe", argv, envp);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static void test_cpu_isa_env_in_fresh_process(void **state)
{
    static const char *const names[ACCEL_CPU_ISA_COUNT_] = {"scalar", "avx2", "avx512"};
    accel_cpu_isa_t detected = accel_cpu_isa_detected();
    (void)state;
    for (int i = 0; i < ACCEL_CPU_ISA_COUNT_; i++) {
        const char *expected = accel_optim_kernels_for(isa_min((accel_cpu_isa_t)i, detected))->name;
        assert_int_equal(run_isa_child(names[i], expected), 0);
    }
}

/* In the child: load CPUAdamBuilder, check its implementation name, and
 * run one step against the reference. */
static int isa_child_main(const char *expected)
{
    accel_op_builder_t *builder = NULL;
    const void *table = NULL;
    if (accel_get(&test_acc) != ACCEL_OK ||
        accel_get_op_builder(test_acc, "CPUAdamBuilder", &builder) != ACCEL_OK ||
        accel_op_builder_load(builder, &table) != ACCEL_OK)
        return 2;
    adam_op = table;
    if (strcmp(adam_op->implementation, expected) != 0) {
        fprintf(stderr, "ACCEL_CPU_ISA=%s: implementation %s, expected %s\n",
                getenv("ACCEL_CPU_ISA"), adam_op->implementation, expected);
        return 1;
    }
    optim_config_t c = adam_config(0.05f, 0.9f, 0.999f, 1e-8f, 0.01f, true, true, 3);
    test_rng_t rng = {0xc41d};
    optim_tensors_t ts;
    optim_tensors_init(&ts, OPTIM_ADAM, supported_pairs[4], 1000, LAYOUT_DATA_SHIFTED);
    optim_tensors_fill_normal(&ts, &rng);
    bool ok = public_step(&c, &ts) == ACCEL_OK &&
              optim_tensors_match_reference(&c, &ts, "ACCEL_CPU_ISA child:");
    optim_tensors_free(&ts);
    return ok ? 0 : 3;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--isa-child") == 0)
        return isa_child_main(argv[2]);
    setenv("ACCEL_CPU_THREADS", "4", 0); /* split large steps even on a 2-CPU machine */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_conversions),
        cmocka_unit_test(test_reference_bound_is_tight),
        cmocka_unit_test(test_op_tables),
        cmocka_unit_test(test_isa_tables_available),
        cmocka_unit_test(test_adam_public_matches_reference),
        cmocka_unit_test(test_adagrad_public_matches_reference),
        cmocka_unit_test(test_lion_public_matches_reference),
        cmocka_unit_test(test_scalar_kernel_any_alignment),
        cmocka_unit_test(test_adam_isa_bit_identical),
        cmocka_unit_test(test_adagrad_isa_bit_identical),
        cmocka_unit_test(test_lion_isa_bit_identical),
        cmocka_unit_test(test_nan_stays_nan),
        cmocka_unit_test(test_half_store_rounding),
        cmocka_unit_test(test_adam_trajectory_fp32),
        cmocka_unit_test(test_adam_trajectory_half),
        cmocka_unit_test(test_split_invariance),
        cmocka_unit_test(test_bad_input_refused),
        cmocka_unit_test(test_empty_step),
        cmocka_unit_test(test_cpu_isa_env_caps_selection),
        cmocka_unit_test(test_cpu_isa_env_in_fresh_process),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
