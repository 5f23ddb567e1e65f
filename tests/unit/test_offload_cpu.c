/* test_offload_cpu.c: ZeRO-Offload's fused CPU phase (accel_adam_op_t's
 * offload_step) against the unfused sequence ZeRO-2 runs: the grad norm in
 * double, unscale and clip with DeepSpeed's formula in f32, the library's
 * own Adam step, and the fp32 -> bf16/fp16 copy (round to nearest even).
 * With and without overflow, f32/f16/bf16 grads, several tensors of odd
 * sizes at odd addresses; the norm's bits for any thread count and kernel
 * table; and bad input refused with nothing written. */
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
#include "ops/cpu/optim_kernels.h"
#include "ref_half.h"

static accel_t *test_acc;
static const accel_adam_op_t *adam_op;

/* ================================================================ inputs */

static uint64_t rng_state = 0x5eed;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-scale, scale). */
static float rng_float(float scale)
{
    return (float)(((double)(rng_next() >> 11) * 0x1p-53 * 2.0 - 1.0) * scale);
}

static size_t dtype_bytes(accel_dtype_t dtype)
{
    return dtype == ACCEL_DTYPE_F32 ? 4 : 2;
}

static float load_as(const void *base, size_t i, accel_dtype_t dtype)
{
    if (dtype == ACCEL_DTYPE_F32) {
        float x;
        memcpy(&x, (const char *)base + 4 * i, 4);
        return x;
    }
    uint16_t h;
    memcpy(&h, (const char *)base + 2 * i, 2);
    return dtype == ACCEL_DTYPE_BF16 ? ref_bf16_to_f32(h) : ref_f16_to_f32(h);
}

static void store_as(void *base, size_t i, accel_dtype_t dtype, float x)
{
    if (dtype == ACCEL_DTYPE_F32) {
        memcpy((char *)base + 4 * i, &x, 4);
        return;
    }
    uint16_t h = dtype == ACCEL_DTYPE_BF16 ? ref_f32_to_bf16(x) : ref_f32_to_f16(x);
    memcpy((char *)base + 2 * i, &h, 2);
}

/* ================================================================ a problem */

/* Tensors live in one arena at `skew` bytes past each 64-byte boundary, so
 * a call sees unaligned data (host ops take any address). */
#define MAX_ENTRIES 6

typedef struct problem {
    size_t count;
    size_t sizes[MAX_ENTRIES];
    accel_dtype_t grad_dtype[MAX_ENTRIES];
    accel_dtype_t lp_dtype[MAX_ENTRIES]; /* F32 = no lp copy */
    unsigned char *arena;
    size_t arena_bytes;
    int64_t shapes[MAX_ENTRIES][1];
    DLTensor param[MAX_ENTRIES], grad[MAX_ENTRIES], m[MAX_ENTRIES], v[MAX_ENTRIES], lp[MAX_ENTRIES];
    accel_adam_config_t adam[MAX_ENTRIES];
    accel_offload_entry_t entries[MAX_ENTRIES];
} problem_t;

static void tensor_at(DLTensor *t, unsigned char *arena, size_t offset, accel_dtype_t dtype,
                      int64_t *shape)
{
    memset(t, 0, sizeof *t);
    t->data = arena;
    t->byte_offset = offset;
    t->device.device_type = kDLCPU;
    t->ndim = 1;
    t->shape = shape;
    accel_dtype_to_dlpack(dtype, &t->dtype);
}

static size_t round_up(size_t x, size_t to)
{
    return (x + to - 1) / to * to;
}

/* Lay out and fill `p` (sizes and dtypes set by the caller). */
static void problem_make(problem_t *p, size_t skew, uint64_t step)
{
    size_t offset = 0, offsets[MAX_ENTRIES][5];
    for (size_t e = 0; e < p->count; e++) {
        size_t n = p->sizes[e];
        size_t bytes[5] = {4 * n, dtype_bytes(p->grad_dtype[e]) * n, 4 * n, 4 * n,
                           dtype_bytes(p->lp_dtype[e]) * n};
        for (int k = 0; k < 5; k++) {
            offsets[e][k] = offset + skew;
            offset = round_up(offsets[e][k] + bytes[k], 64);
        }
    }
    p->arena_bytes = offset + 64;
    p->arena = malloc(p->arena_bytes);
    assert_non_null(p->arena);
    memset(p->arena, 0xa5, p->arena_bytes);
    for (size_t e = 0; e < p->count; e++) {
        p->shapes[e][0] = (int64_t)p->sizes[e];
        tensor_at(&p->param[e], p->arena, offsets[e][0], ACCEL_DTYPE_F32, p->shapes[e]);
        tensor_at(&p->grad[e], p->arena, offsets[e][1], p->grad_dtype[e], p->shapes[e]);
        tensor_at(&p->m[e], p->arena, offsets[e][2], ACCEL_DTYPE_F32, p->shapes[e]);
        tensor_at(&p->v[e], p->arena, offsets[e][3], ACCEL_DTYPE_F32, p->shapes[e]);
        tensor_at(&p->lp[e], p->arena, offsets[e][4], p->lp_dtype[e], p->shapes[e]);
        for (size_t i = 0; i < p->sizes[e]; i++) {
            /* loss-scaled grads (x1024); moments as after some steps */
            store_as(p->arena + offsets[e][0], i, ACCEL_DTYPE_F32, rng_float(1.0f));
            store_as(p->arena + offsets[e][1], i, p->grad_dtype[e], rng_float(64.0f));
            store_as(p->arena + offsets[e][2], i, ACCEL_DTYPE_F32, rng_float(0.05f));
            store_as(p->arena + offsets[e][3], i, ACCEL_DTYPE_F32,
                     fabsf(rng_float(0.003f)) + 1e-6f);
        }
        p->adam[e] = (accel_adam_config_t){1e-3f, 0.9f,      0.999f, 1e-8f, e % 2 ? 0.0f : 0.01f,
                                           true,  e % 3 != 2};
        p->entries[e] =
            (accel_offload_entry_t){&p->param[e],
                                    &p->grad[e],
                                    &p->m[e],
                                    &p->v[e],
                                    p->lp_dtype[e] == ACCEL_DTYPE_F32 ? NULL : &p->lp[e],
                                    &p->adam[e],
                                    step + e};
    }
}

static void *data_of(const DLTensor *t)
{
    return (char *)t->data + t->byte_offset;
}

/* Odd sizes: a segment and a bit, a few vectors and a tail, one element. */
static void problem_default(problem_t *p, accel_dtype_t grad_dtype, accel_dtype_t lp_dtype)
{
    static const size_t sizes[5] = {4096 + 37, 1, 129, 3 * 4096, 70001};
    memset(p, 0, sizeof *p);
    p->count = 5;
    for (size_t e = 0; e < p->count; e++) {
        p->sizes[e] = sizes[e];
        p->grad_dtype[e] = grad_dtype;
        p->lp_dtype[e] = e == 1 ? ACCEL_DTYPE_F32 : lp_dtype; /* entry 1 without a copy */
    }
}

/* ================================================================ the unfused reference */

/* DeepSpeed's unscale_and_clip_grads, written from stage_1_and_2.py:
 * combined = loss_scale, or clip * loss_scale with
 * clip = max(1, (norm / loss_scale + 1e-6) / clip_grad), all f32. */
static float ref_inverse(float norm, float loss_scale, float clip_grad, float *combined)
{
    if (clip_grad > 0.0f) {
        float clip = ((norm / loss_scale) + 1e-6f) / clip_grad;
        if (clip < 1.0f)
            clip = 1.0f;
        *combined = clip * loss_scale;
        return 1.0f / *combined;
    }
    *combined = loss_scale;
    return (float)(1.0 / (double)loss_scale);
}

/* Run the unfused sequence on a copy of `p`'s arena and return it: unscale
 * into a separate f32 grad, the library's Adam step (step op), the copy. */
static unsigned char *reference_run(const problem_t *p, float norm, float loss_scale,
                                    float clip_grad)
{
    float combined;
    float inverse = ref_inverse(norm, loss_scale, clip_grad, &combined);
    unsigned char *copy = malloc(p->arena_bytes);
    assert_non_null(copy);
    memcpy(copy, p->arena, p->arena_bytes);
    for (size_t e = 0; e < p->count; e++) {
        size_t n = p->sizes[e];
        float *g = malloc((n ? n : 1) * sizeof *g);
        assert_non_null(g);
        const void *grad = copy + ((char *)data_of(&p->grad[e]) - (char *)p->arena);
        for (size_t i = 0; i < n; i++)
            g[i] = load_as(grad, i, p->grad_dtype[e]) * inverse;
        DLTensor tp = p->param[e], tg = p->param[e], tm = p->m[e], tv = p->v[e];
        tp.data = tm.data = tv.data = copy;
        tg.data = g;
        tg.byte_offset = 0;
        assert_int_equal(
            adam_op->step(test_acc, NULL, &p->adam[e], p->entries[e].step, &tp, &tg, &tm, &tv),
            ACCEL_OK);
        if (p->lp_dtype[e] != ACCEL_DTYPE_F32) {
            void *lp = copy + ((char *)data_of(&p->lp[e]) - (char *)p->arena);
            const void *param = copy + ((char *)data_of(&p->param[e]) - (char *)p->arena);
            for (size_t i = 0; i < n; i++)
                store_as(lp, i, p->lp_dtype[e], load_as(param, i, ACCEL_DTYPE_F32));
        }
        free(g);
    }
    return copy;
}

static double ref_sumsq(const problem_t *p)
{
    double total = 0.0;
    for (size_t e = 0; e < p->count; e++)
        for (size_t i = 0; i < p->sizes[e]; i++) {
            double g = load_as(data_of(&p->grad[e]), i, p->grad_dtype[e]);
            total += g * g;
        }
    return total;
}

static accel_offload_config_t config_of(float loss_scale, float clip_grad)
{
    return (accel_offload_config_t){sizeof(accel_offload_config_t), loss_scale, clip_grad};
}

/* ================================================================ tests */

static void check_matches_unfused(accel_dtype_t grad_dtype, accel_dtype_t lp_dtype, size_t skew,
                                  float loss_scale, float clip_grad)
{
    problem_t p;
    accel_offload_result_t result;
    uint64_t seed = rng_state;
    problem_default(&p, grad_dtype, lp_dtype);
    problem_make(&p, skew, 3);
    double sumsq = ref_sumsq(&p);
    accel_offload_config_t config = config_of(loss_scale, clip_grad);
    assert_int_equal(adam_op->offload_step(test_acc, NULL, &config, p.count, p.entries, &result),
                     ACCEL_OK);
    assert_false(result.overflow);
    /* the norm: to f32 rounding of the double sum in any order */
    assert_true(fabs((double)result.grad_norm - sqrt(sumsq)) <= 1e-6 * sqrt(sumsq));
    float combined;
    ref_inverse(result.grad_norm, loss_scale, clip_grad, &combined);
    assert_true(bits_of(result.combined_scale) == bits_of(combined));
    /* Everything else: the same bits as the unfused sequence given that
     * norm (the fused op applies the same f32 factor on read). The
     * reference starts from the arena before the call: rebuild it. */
    unsigned char *after = malloc(p.arena_bytes);
    assert_non_null(after);
    memcpy(after, p.arena, p.arena_bytes);
    free(p.arena);
    rng_state = seed;
    problem_make(&p, skew, 3);
    unsigned char *expected = reference_run(&p, result.grad_norm, loss_scale, clip_grad);
    assert_memory_equal(after, expected, p.arena_bytes);
    free(expected);
    free(after);
    free(p.arena);
}

static void test_matches_unfused_f32_grads(void **state)
{
    (void)state;
    rng_state = 0x5eed;
    check_matches_unfused(ACCEL_DTYPE_F32, ACCEL_DTYPE_BF16, 0, 1024.0f, 1.0f);
    rng_state = 0x5eed;
    check_matches_unfused(ACCEL_DTYPE_F32, ACCEL_DTYPE_F16, 4, 1024.0f, 0.0f);
    rng_state = 0x5eed;
    check_matches_unfused(ACCEL_DTYPE_F32, ACCEL_DTYPE_F32, 1, 1.0f, 1e9f); /* clip < 1: none */
}

static void test_matches_unfused_bf16_grads(void **state)
{
    (void)state;
    rng_state = 0x5eed;
    check_matches_unfused(ACCEL_DTYPE_BF16, ACCEL_DTYPE_BF16, 2, 1024.0f, 1.0f);
    rng_state = 0x5eed;
    check_matches_unfused(ACCEL_DTYPE_BF16, ACCEL_DTYPE_F16, 6, 65536.0f, 0.0f);
}

static void test_matches_unfused_f16_grads(void **state)
{
    (void)state;
    rng_state = 0x5eed;
    check_matches_unfused(ACCEL_DTYPE_F16, ACCEL_DTYPE_F16, 2, 1024.0f, 0.5f);
    rng_state = 0x5eed;
    check_matches_unfused(ACCEL_DTYPE_F16, ACCEL_DTYPE_BF16, 1, 3.0f, 0.0f);
}

/* The norm is the segments' sums (scalar table, one thread) added in
 * order, whatever the pool and the chosen table did. */
static void test_norm_bits_fixed(void **state)
{
    (void)state;
    const accel_optim_kernels_t *scalar = accel_optim_kernels_for(ACCEL_CPU_ISA_SCALAR);
    problem_t p;
    accel_offload_result_t result;
    problem_default(&p, ACCEL_DTYPE_F32, ACCEL_DTYPE_BF16);
    p.sizes[4] = 1000003; /* enough segments for every worker */
    rng_state = 7;
    problem_make(&p, 3, 1);
    double expected = 0.0;
    for (size_t e = 0; e < p.count; e++) {
        accel_offload_view_t view = {
            .grad = data_of(&p.grad[e]), .count = p.sizes[e], .grad_dtype = ACCEL_DTYPE_F32};
        for (size_t b = 0; b < p.sizes[e]; b += ACCEL_OFFLOAD_SEGMENT) {
            size_t end =
                b + ACCEL_OFFLOAD_SEGMENT < p.sizes[e] ? b + ACCEL_OFFLOAD_SEGMENT : p.sizes[e];
            expected += scalar->offload_sumsq(&view, b, end);
        }
    }
    accel_offload_config_t config = config_of(1.0f, 0.0f);
    assert_int_equal(adam_op->offload_step(test_acc, NULL, &config, p.count, p.entries, &result),
                     ACCEL_OK);
    assert_true(bits_of(result.grad_norm) == bits_of((float)sqrt(expected)));
    free(p.arena);
}

/* Every table the CPU runs gives the scalar table's bits, for both passes,
 * every grad dtype and lp dtype, on ranges that start and end anywhere. */
static void test_tables_agree(void **state)
{
    (void)state;
    static const accel_dtype_t dtypes[3] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F16, ACCEL_DTYPE_BF16};
    const accel_optim_kernels_t *scalar = accel_optim_kernels_for(ACCEL_CPU_ISA_SCALAR);
    const size_t n = 1000;
    for (int isa = ACCEL_CPU_ISA_SCALAR + 1; isa < ACCEL_CPU_ISA_COUNT_; isa++) {
        const accel_optim_kernels_t *table = accel_optim_kernels_for((accel_cpu_isa_t)isa);
        if (table == NULL)
            continue;
        for (int gd = 0; gd < 3; gd++)
            for (int ld = 0; ld < 3; ld++) {
                problem_t a, b;
                memset(&a, 0, sizeof a);
                a.count = 1;
                a.sizes[0] = n;
                a.grad_dtype[0] = dtypes[gd];
                a.lp_dtype[0] = dtypes[ld];
                b = a;
                rng_state = 11;
                problem_make(&a, 1, 4);
                rng_state = 11;
                problem_make(&b, 1, 4);
                accel_offload_view_t va = {data_of(&a.param[0]),
                                           data_of(&a.grad[0]),
                                           data_of(&a.m[0]),
                                           data_of(&a.v[0]),
                                           ld ? data_of(&a.lp[0]) : NULL,
                                           n,
                                           dtypes[gd],
                                           dtypes[ld]};
                accel_offload_view_t vb = {data_of(&b.param[0]),
                                           data_of(&b.grad[0]),
                                           data_of(&b.m[0]),
                                           data_of(&b.v[0]),
                                           ld ? data_of(&b.lp[0]) : NULL,
                                           n,
                                           dtypes[gd],
                                           dtypes[ld]};
                double s1 = scalar->offload_sumsq(&va, 5, 5 + 999 - 17);
                double s2 = table->offload_sumsq(&vb, 5, 5 + 999 - 17);
                assert_memory_equal(&s1, &s2, sizeof s1);
                accel_adam_coeffs_t c;
                accel_adam_config_t config = {1e-3f, 0.9f, 0.99f, 1e-8f, 0.1f, true, gd != 1};
                accel_adam_coeffs_make(&config, 4, &c);
                scalar->offload_adam(&c, 1.0f / 1024.0f, &va, 3, 997);
                table->offload_adam(&c, 1.0f / 1024.0f, &vb, 3, 500);
                table->offload_adam(&c, 1.0f / 1024.0f, &vb, 500, 997);
                assert_memory_equal(a.arena, b.arena, a.arena_bytes);
                free(a.arena);
                free(b.arena);
            }
    }
}

/* An inf or NaN anywhere: overflow reported, ACCEL_OK, not a byte written. */
static void check_overflow(accel_dtype_t grad_dtype, size_t entry, size_t index, float bad)
{
    problem_t p;
    accel_offload_result_t result;
    problem_default(&p, grad_dtype, ACCEL_DTYPE_BF16);
    rng_state = 99;
    problem_make(&p, 1, 2);
    store_as(data_of(&p.grad[entry]), index, grad_dtype, bad);
    if (grad_dtype != ACCEL_DTYPE_F32) { /* the test's converters: write the bits directly */
        uint16_t h = grad_dtype == ACCEL_DTYPE_BF16 ? (isnan(bad) ? 0x7fc0 : 0x7f80)
                                                    : (isnan(bad) ? 0x7e00 : 0xfc00);
        memcpy((char *)data_of(&p.grad[entry]) + 2 * index, &h, 2);
    }
    unsigned char *before = malloc(p.arena_bytes);
    assert_non_null(before);
    memcpy(before, p.arena, p.arena_bytes);
    accel_offload_config_t config = config_of(1024.0f, 1.0f);
    assert_int_equal(adam_op->offload_step(test_acc, NULL, &config, p.count, p.entries, &result),
                     ACCEL_OK);
    assert_true(result.overflow);
    assert_false(isfinite(result.grad_norm));
    assert_true(result.combined_scale == 1024.0f);
    assert_memory_equal(before, p.arena, p.arena_bytes);
    free(before);
    free(p.arena);
}

static void test_overflow_changes_nothing(void **state)
{
    (void)state;
    check_overflow(ACCEL_DTYPE_F32, 4, 70000, INFINITY);
    check_overflow(ACCEL_DTYPE_F32, 0, 0, NAN);
    check_overflow(ACCEL_DTYPE_F32, 1, 0, -INFINITY);
    check_overflow(ACCEL_DTYPE_BF16, 3, 4095, INFINITY);
    check_overflow(ACCEL_DTYPE_F16, 2, 128, NAN);
}

/* A large finite grad is no overflow: its square is summed in double. */
static void test_large_finite_grad_is_not_overflow(void **state)
{
    (void)state;
    problem_t p;
    accel_offload_result_t result;
    problem_default(&p, ACCEL_DTYPE_F32, ACCEL_DTYPE_F32);
    rng_state = 5;
    problem_make(&p, 0, 1);
    store_as(data_of(&p.grad[2]), 7, ACCEL_DTYPE_F32, 1e30f);
    accel_offload_config_t config = config_of(1.0f, 1.0f);
    assert_int_equal(adam_op->offload_step(test_acc, NULL, &config, p.count, p.entries, &result),
                     ACCEL_OK);
    assert_false(result.overflow);
    assert_true(fabsf(result.grad_norm - 1e30f) <= 1e24f);
    free(p.arena);
}

static void test_empty_call(void **state)
{
    (void)state;
    accel_offload_result_t result = {true, -1.0f, -1.0f};
    accel_offload_config_t config = config_of(8.0f, 1.0f);
    assert_int_equal(adam_op->offload_step(test_acc, NULL, &config, 0, NULL, &result), ACCEL_OK);
    assert_false(result.overflow);
    assert_true(result.grad_norm == 0.0f);
    assert_true(result.combined_scale == 8.0f);
}

/* ---------------------------------------------------------------- bad input */

typedef void (*spoil_fn_t)(problem_t *p, accel_offload_config_t *config,
                           accel_offload_result_t **result, size_t *count);

static void spoil_config_size(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                              size_t *n)
{
    (void)p, (void)r, (void)n;
    c->struct_size = sizeof *c - 1;
}
static void spoil_loss_scale(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                             size_t *n)
{
    (void)p, (void)r, (void)n;
    c->loss_scale = 0.0f;
}
static void spoil_loss_scale_inf(problem_t *p, accel_offload_config_t *c,
                                 accel_offload_result_t **r, size_t *n)
{
    (void)p, (void)r, (void)n;
    c->loss_scale = INFINITY;
}
static void spoil_clip(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                       size_t *n)
{
    (void)p, (void)r, (void)n;
    c->clip_grad = -1.0f;
}
static void spoil_clip_nan(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                           size_t *n)
{
    (void)p, (void)r, (void)n;
    c->clip_grad = NAN;
}
static void spoil_result(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                         size_t *n)
{
    (void)p, (void)c, (void)n;
    *r = NULL;
}
static void spoil_step(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                       size_t *n)
{
    (void)c, (void)r, (void)n;
    p->entries[4].step = 0;
}
static void spoil_adam(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                       size_t *n)
{
    (void)c, (void)r, (void)n;
    p->adam[3].beta1 = 1.0f;
}
static void spoil_adam_null(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                            size_t *n)
{
    (void)c, (void)r, (void)n;
    p->entries[2].adam = NULL;
}
static void spoil_param_dtype(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                              size_t *n)
{
    (void)c, (void)r, (void)n;
    p->param[4].dtype.bits = 16; /* f16 master */
}
static void spoil_moment_dtype(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                               size_t *n)
{
    (void)c, (void)r, (void)n;
    accel_dtype_to_dlpack(ACCEL_DTYPE_BF16, &p->v[4].dtype);
}
static void spoil_grad_dtype(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                             size_t *n)
{
    (void)c, (void)r, (void)n;
    p->grad[4].dtype.code = kDLInt;
}
static void spoil_lp_dtype(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                           size_t *n)
{
    (void)c, (void)r, (void)n;
    accel_dtype_to_dlpack(ACCEL_DTYPE_F32, &p->lp[4].dtype);
}
static void spoil_size(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                       size_t *n)
{
    (void)c, (void)r, (void)n;
    static int64_t shorter[1];
    shorter[0] = p->shapes[4][0] - 1;
    p->m[4].shape = shorter;
}
static void spoil_overlap_entries(problem_t *p, accel_offload_config_t *c,
                                  accel_offload_result_t **r, size_t *n)
{
    (void)c, (void)r, (void)n;
    p->param[3].byte_offset = p->m[0].byte_offset + 8; /* entry 3's param over entry 0's m */
}
static void spoil_overlap_lp(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                             size_t *n)
{
    (void)c, (void)r, (void)n;
    p->lp[2].byte_offset = p->grad[2].byte_offset;
}
static void spoil_null_tensor(problem_t *p, accel_offload_config_t *c, accel_offload_result_t **r,
                              size_t *n)
{
    (void)c, (void)r, (void)n;
    p->entries[4].exp_avg_sq = NULL;
}

static void test_bad_input_refused(void **state)
{
    (void)state;
    static const spoil_fn_t spoilers[] = {
        spoil_config_size, spoil_loss_scale,   spoil_loss_scale_inf,
        spoil_clip,        spoil_clip_nan,     spoil_result,
        spoil_step,        spoil_adam,         spoil_adam_null,
        spoil_param_dtype, spoil_moment_dtype, spoil_grad_dtype,
        spoil_lp_dtype,    spoil_size,         spoil_overlap_entries,
        spoil_overlap_lp,  spoil_null_tensor,
    };
    for (size_t k = 0; k < sizeof spoilers / sizeof spoilers[0]; k++) {
        problem_t p;
        accel_offload_result_t result, sentinel;
        accel_offload_result_t *out = &result;
        size_t count;
        problem_default(&p, ACCEL_DTYPE_F32, ACCEL_DTYPE_BF16);
        rng_state = 3;
        problem_make(&p, 0, 1);
        count = p.count;
        accel_offload_config_t config = config_of(1024.0f, 1.0f);
        memset(&result, 0x5a, sizeof result);
        sentinel = result;
        spoilers[k](&p, &config, &out, &count);
        unsigned char *before = malloc(p.arena_bytes);
        assert_non_null(before);
        memcpy(before, p.arena, p.arena_bytes);
        accel_status_t status =
            adam_op->offload_step(test_acc, NULL, &config, count, p.entries, out);
        if (status != ACCEL_ERROR_INVALID_ARGUMENT)
            fail_msg("spoiler %zu: status %d (%s)", k, (int)status, accel_last_error());
        assert_true(strlen(accel_last_error()) > 0);
        assert_memory_equal(before, p.arena, p.arena_bytes);
        assert_memory_equal(&sentinel, &result, sizeof result);
        free(before);
        free(p.arena);
    }
    /* entries NULL with a count, and a NULL config */
    accel_offload_result_t result;
    accel_offload_config_t config = config_of(1.0f, 0.0f);
    assert_int_equal(adam_op->offload_step(test_acc, NULL, &config, 2, NULL, &result),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(adam_op->offload_step(test_acc, NULL, NULL, 0, NULL, &result),
                     ACCEL_ERROR_INVALID_ARGUMENT);
}

static void test_table_has_offload_step(void **state)
{
    (void)state;
    assert_true(adam_op->struct_size >= offsetof(accel_adam_op_t, offload_step) + sizeof(void *));
    assert_non_null(adam_op->offload_step);
}

static int group_setup(void **state)
{
    accel_op_builder_t *builder = NULL;
    const void *table = NULL;
    (void)state;
    if (accel_get(&test_acc) != ACCEL_OK ||
        accel_get_op_builder(test_acc, "CPUAdamBuilder", &builder) != ACCEL_OK ||
        accel_op_builder_load(builder, &table) != ACCEL_OK)
        return -1;
    adam_op = table;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_has_offload_step),
        cmocka_unit_test(test_matches_unfused_f32_grads),
        cmocka_unit_test(test_matches_unfused_bf16_grads),
        cmocka_unit_test(test_matches_unfused_f16_grads),
        cmocka_unit_test(test_norm_bits_fixed),
        cmocka_unit_test(test_tables_agree),
        cmocka_unit_test(test_overflow_changes_nothing),
        cmocka_unit_test(test_large_finite_grad_is_not_overflow),
        cmocka_unit_test(test_empty_call),
        cmocka_unit_test(test_bad_input_refused),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
