/* optim_offload.c: the optim suite's ZeRO-Offload figures. accel's fused
 * CPU phase (accel_adam_op_t.offload_step: two passes) against the same
 * work done the way ZeRO-2 does it, four passes on the same buffers in the
 * same run: norm + overflow check, unscale/clip (f32 grads in place; bf16
 * grads into the fp32 grad buffer DeepSpeed keeps), accel's own CPUAdam
 * step, and the fp32 -> bf16 copy. Each is also given as a fraction of its
 * STREAM ceiling (stream_ceiling.h). Bytes per parameter, with f32 / bf16
 * grads: fused 34 / 30, unfused 46 / 42, so the memory roofline of the
 * ratio is 1.35x / 1.40x. The unfused passes run on accel's host thread
 * pool, like the op. Threads: one figure at a time, on the suite's thread. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel_backend_utils.h>
#include <accel/accel_ops.h>

#include "optim_offload.h"
#include "stream_ceiling.h"

#define OFFLOAD_GRAIN          1024
#define OFFLOAD_MIN_PER_THREAD (32 * 1024)
#define OFFLOAD_SEGMENT        (64 * 1024) /* norm partials of the unfused pass 1 */
/* How the fused op splits its two passes across accel's pool
 * (src/ops/cpu/host_offload.c, and host_ops.c for the unfused Adam step):
 * the null ops below split the same way. */
#define OP_NORM_GRAIN     4096 /* ACCEL_OFFLOAD_SEGMENT */
#define OP_GRAIN          64
#define OP_MIN_PER_THREAD (32 * 1024)

/* One step's buffers and settings; every side runs on the same pages.
 * loss_scale 1 and no clipping make the unscale factor 1, so the unfused
 * in-place unscale leaves the grads as they were across repetitions (its
 * reads and writes are the same either way). */
typedef struct offload_arg {
    accel_t *acc;
    const accel_adam_op_t *adam;
    size_t count;
    accel_dtype_t grad_dtype;
    float *param, *m, *v, *grad32; /* grad32: the unfused fp32 grads (bf16 case) */
    void *grad;
    uint16_t *lp;
    double *partials;
    size_t segments;
    int64_t shape[1];
    DLTensor t_param, t_grad, t_m, t_v, t_lp, t_grad32;
    accel_adam_config_t adam_config;
    accel_offload_config_t config;
    uint64_t fused_step, unfused_step;
    float inverse;
    bool overflow;
} offload_arg_t;

static uint16_t to_bf16(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

static float from_bf16(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static void fill_chunk(void *ctx, size_t begin, size_t end)
{
    offload_arg_t *a = ctx;
    for (size_t i = begin; i < end; i++) {
        float g = ((i & 1) ? -1.0f : 1.0f) * (0.05f + (float)(i % 29) / 1024.0f);
        a->param[i] = 0.5f + (float)(i % 64) / 256.0f;
        a->m[i] = a->v[i] = 0.0f;
        a->lp[i] = 0;
        if (a->grad_dtype == ACCEL_DTYPE_F32) {
            ((float *)a->grad)[i] = g;
        } else {
            ((uint16_t *)a->grad)[i] = to_bf16(g);
            a->grad32[i] = 0.0f;
        }
    }
}

/* ---------------------------------------------------------------- unfused, as ZeRO-2 */

/* Pass 1: sum of squares in double and the inf/NaN check, per segment, in
 * eight independent sums so the loop runs at memory speed as torch's
 * vectorised norm does (this file is built with -O3 to vectorise). */
#define NORM_WAYS 8

static void norm_chunk(void *ctx, size_t begin, size_t end)
{
    offload_arg_t *a = ctx;
    for (size_t s = begin; s < end; s++) {
        size_t first = s * OFFLOAD_SEGMENT;
        size_t last = first + OFFLOAD_SEGMENT < a->count ? first + OFFLOAD_SEGMENT : a->count;
        double sums[NORM_WAYS] = {0};
        size_t i = first;
        if (a->grad_dtype == ACCEL_DTYPE_F32) {
            const float *g = a->grad;
            for (; i + NORM_WAYS <= last; i += NORM_WAYS)
                for (int k = 0; k < NORM_WAYS; k++)
                    sums[k] += (double)g[i + k] * g[i + k];
            for (; i < last; i++)
                sums[0] += (double)g[i] * g[i];
        } else {
            const uint16_t *g = a->grad;
            for (; i + NORM_WAYS <= last; i += NORM_WAYS)
                for (int k = 0; k < NORM_WAYS; k++) {
                    double x = from_bf16(g[i + k]);
                    sums[k] += x * x;
                }
            for (; i < last; i++) {
                double x = from_bf16(g[i]);
                sums[0] += x * x;
            }
        }
        double sum = 0.0;
        for (int k = 0; k < NORM_WAYS; k++)
            sum += sums[k];
        a->partials[s] = sum; /* an inf or NaN grad makes it non-finite */
    }
}

/* Pass 2: unscale_and_clip_grads (grad.mul_(1 / combined)). */
static void unscale_chunk(void *ctx, size_t begin, size_t end)
{
    offload_arg_t *a = ctx;
    const float inverse = a->inverse;
    if (a->grad_dtype == ACCEL_DTYPE_F32) {
        float *g = a->grad;
        for (size_t i = begin; i < end; i++)
            g[i] *= inverse;
    } else {
        const uint16_t *g = a->grad;
        for (size_t i = begin; i < end; i++)
            a->grad32[i] = from_bf16(g[i]) * inverse;
    }
}

/* Pass 4: bit16_partition.copy_(fp32_partition). */
static void copy_chunk(void *ctx, size_t begin, size_t end)
{
    offload_arg_t *a = ctx;
    for (size_t i = begin; i < end; i++)
        a->lp[i] = to_bf16(a->param[i]);
}

static bool offload_unfused(void *arg, size_t iters)
{
    offload_arg_t *a = arg;
    for (size_t it = 0; it < iters; it++) {
        accel_thread_pool_run(a->segments, 1, 1, norm_chunk, a);
        double sum = 0.0;
        for (size_t s = 0; s < a->segments; s++)
            sum += a->partials[s];
        a->overflow = !isfinite(sum);
        if (a->overflow)
            continue;
        float norm = (float)sqrt(sum);
        float clip = (norm / a->config.loss_scale + 1e-6f) / a->config.clip_grad;
        a->inverse = 1.0f / ((clip < 1.0f ? 1.0f : clip) * a->config.loss_scale);
        accel_thread_pool_run(a->count, OFFLOAD_GRAIN, OFFLOAD_MIN_PER_THREAD, unscale_chunk, a);
        const DLTensor *grad = a->grad_dtype == ACCEL_DTYPE_F32 ? &a->t_grad : &a->t_grad32;
        if (a->adam->step(a->acc, NULL, &a->adam_config, ++a->unfused_step, &a->t_param, grad,
                          &a->t_m, &a->t_v) != ACCEL_OK)
            return false;
        accel_thread_pool_run(a->count, OFFLOAD_GRAIN, OFFLOAD_MIN_PER_THREAD, copy_chunk, a);
    }
    return true;
}

/* ---------------------------------------------------------------- fused */

static bool offload_fused(void *arg, size_t iters)
{
    offload_arg_t *a = arg;
    for (size_t it = 0; it < iters; it++) {
        accel_offload_result_t result;
        accel_offload_entry_t entry = {&a->t_param, &a->t_grad,      &a->t_m,        &a->t_v,
                                       &a->t_lp,    &a->adam_config, ++a->fused_step};
        if (a->adam->offload_step(a->acc, NULL, &a->config, 1, &entry, &result) != ACCEL_OK)
            return false;
        a->overflow = result.overflow;
    }
    return true;
}

/* ---------------------------------------------------------------- set-up */

static void *offload_alloc(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, 4096, bytes ? bytes : 1) == 0 ? p : NULL;
}

static void offload_free(offload_arg_t *a)
{
    free(a->param);
    free(a->m);
    free(a->v);
    free(a->grad);
    free(a->grad32);
    free(a->lp);
    free(a->partials);
}

static void offload_tensor(DLTensor *t, void *data, accel_dtype_t dtype, int64_t *shape)
{
    memset(t, 0, sizeof *t);
    t->data = data;
    t->device.device_type = kDLCPU;
    t->ndim = 1;
    t->shape = shape;
    accel_dtype_to_dlpack(dtype, &t->dtype);
}

static bool offload_prepare(offload_arg_t *a)
{
    size_t n = a->count, grad_size = a->grad_dtype == ACCEL_DTYPE_F32 ? 4 : 2;
    a->segments = (n + OFFLOAD_SEGMENT - 1) / OFFLOAD_SEGMENT;
    a->param = offload_alloc(n * 4);
    a->m = offload_alloc(n * 4);
    a->v = offload_alloc(n * 4);
    a->grad = offload_alloc(n * grad_size);
    a->grad32 = a->grad_dtype == ACCEL_DTYPE_F32 ? NULL : offload_alloc(n * 4);
    a->lp = offload_alloc(n * 2);
    a->partials = calloc(a->segments ? a->segments : 1, sizeof *a->partials);
    if (!a->param || !a->m || !a->v || !a->grad || !a->lp || !a->partials ||
        (a->grad_dtype != ACCEL_DTYPE_F32 && !a->grad32)) {
        offload_free(a);
        return false;
    }
    accel_thread_pool_run(n, OFFLOAD_GRAIN, OFFLOAD_MIN_PER_THREAD, fill_chunk, a);
    a->shape[0] = (int64_t)n;
    offload_tensor(&a->t_param, a->param, ACCEL_DTYPE_F32, a->shape);
    offload_tensor(&a->t_m, a->m, ACCEL_DTYPE_F32, a->shape);
    offload_tensor(&a->t_v, a->v, ACCEL_DTYPE_F32, a->shape);
    offload_tensor(&a->t_grad, a->grad, a->grad_dtype, a->shape);
    offload_tensor(&a->t_grad32, a->grad32, ACCEL_DTYPE_F32, a->shape);
    offload_tensor(&a->t_lp, a->lp, ACCEL_DTYPE_BF16, a->shape);
    return true;
}

/* The null ops' shapes (null_op.h). Buffers: 0 param, 1 grad (as given),
 * 2 m, 3 v, 4 the low-precision copy, 5 the unfused fp32 grads (bf16 case).
 * Fused: the norm reads the grads, then one pass reads them again, updates
 * p, m, v in place and writes the copy. Unfused: norm; unscale (in place,
 * or bf16 to fp32); the Adam step; the copy. */
static void offload_shapes(accel_dtype_t grad_dtype, bench_null_shape_t *fused,
                           bench_null_shape_t *unfused)
{
    bool f32 = grad_dtype == ACCEL_DTYPE_F32;
    const bench_null_shape_t buffers = {.width = {4, f32 ? 4 : 2, 4, 4, 2, 4},
                                        .buffers = f32 ? 5 : 6};
    const bench_null_pass_t norm = {{{1, BENCH_NULL_READ}}, 1, OP_NORM_GRAIN, OP_MIN_PER_THREAD};
    const bench_null_pass_t step = {{{f32 ? 1 : 5, BENCH_NULL_READ},
                                     {0, BENCH_NULL_UPDATE},
                                     {2, BENCH_NULL_UPDATE},
                                     {3, BENCH_NULL_UPDATE}},
                                    4,
                                    OP_GRAIN,
                                    OP_MIN_PER_THREAD};
    *fused = buffers;
    fused->pass[0] = norm;
    fused->pass[1] = (bench_null_pass_t){{{1, BENCH_NULL_READ},
                                          {0, BENCH_NULL_UPDATE},
                                          {2, BENCH_NULL_UPDATE},
                                          {3, BENCH_NULL_UPDATE},
                                          {4, BENCH_NULL_WRITE}},
                                         5,
                                         OP_GRAIN,
                                         OP_MIN_PER_THREAD};
    fused->passes = 2;
    *unfused = buffers;
    unfused->pass[0] =
        (bench_null_pass_t){{{1, BENCH_NULL_READ}}, 1, OFFLOAD_SEGMENT, OFFLOAD_SEGMENT};
    unfused->pass[1] = f32 ? (bench_null_pass_t){{{1, BENCH_NULL_UPDATE}},
                                                 1,
                                                 OFFLOAD_GRAIN,
                                                 OFFLOAD_MIN_PER_THREAD}
                           : (bench_null_pass_t){{{1, BENCH_NULL_READ}, {5, BENCH_NULL_WRITE}},
                                                 2,
                                                 OFFLOAD_GRAIN,
                                                 OFFLOAD_MIN_PER_THREAD};
    unfused->pass[2] = step;
    unfused->pass[3] = (bench_null_pass_t){
        {{0, BENCH_NULL_READ}, {4, BENCH_NULL_WRITE}}, 2, OFFLOAD_GRAIN, OFFLOAD_MIN_PER_THREAD};
    unfused->passes = 4;
}

void bench_optim_offload(bench_ctx_t *ctx, const accel_adam_op_t *adam, const char *load_error,
                         unsigned log2_count, accel_dtype_t grad_dtype)
{
    const char *grads = grad_dtype == ACCEL_DTYPE_F32 ? "f32" : "bf16";
    double fused_bytes = grad_dtype == ACCEL_DTYPE_F32 ? 34 : 30;
    double unfused_bytes = grad_dtype == ACCEL_DTYPE_F32 ? 46 : 42;
    offload_arg_t a = {.acc = ctx->acc,
                       .adam = adam,
                       .count = (size_t)1 << log2_count,
                       .grad_dtype = grad_dtype,
                       .adam_config = {1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, true, true},
                       .config = {sizeof(accel_offload_config_t), 1.0f, 1e6f}};
    char name[64], note[128];
    bench_figure_t *figures[3];
    snprintf(name, sizeof name, "offload %s grads 2^%u", grads, log2_count);
    figures[0] = bench_figure_add(ctx, "optim", name, BENCH_RATE, "Gpar/s", 0, (double)a.count);
    snprintf(name, sizeof name, "offload %s grads 2^%u ceiling", grads, log2_count);
    figures[1] =
        bench_figure_add(ctx, "optim", name, BENCH_RATE, "GB/s", 0, fused_bytes * (double)a.count);
    snprintf(name, sizeof name, "unfused %s grads 2^%u ceiling", grads, log2_count);
    figures[2] = bench_figure_add(ctx, "optim", name, BENCH_RATE, "GB/s", 0,
                                  unfused_bytes * (double)a.count);
    if (!figures[0] || !figures[1] || !figures[2])
        return;
    figures[0]->has_goal = figures[1]->has_goal = true;
    figures[0]->goal = 1.3;
    figures[1]->goal = 0.8;
    const char *why = adam == NULL ? load_error
                      : adam->struct_size < offsetof(accel_adam_op_t, offload_step) +
                                                sizeof(adam->offload_step) ||
                              adam->offload_step == NULL
                          ? "CPUAdamBuilder's table has no offload_step"
                          : NULL;
    if (why == NULL && !offload_prepare(&a))
        why = "cannot allocate the buffers";
    if (why != NULL) {
        for (int k = 0; k < 3; k++)
            bench_figure_fail(figures[k], why);
        return;
    }
    bench_measure(ctx, figures[0], offload_fused, offload_unfused, &a,
                  "unfused: 4 passes, as ZeRO-2", NULL);
    /* memory touched: p, m, v, grad, lp; the unfused bf16 case also the
     * fp32 grad buffer */
    double fused_memory = 14.0 + (grad_dtype == ACCEL_DTYPE_F32 ? 4 : 2);
    double unfused_memory = fused_memory + (grad_dtype == ACCEL_DTYPE_F32 ? 0 : 4);
    bench_null_shape_t fused, unfused;
    offload_shapes(grad_dtype, &fused, &unfused);
    bench_stream_ceiling_measure(ctx, figures[1], offload_fused, &a, fused_bytes * (double)a.count,
                                 fused_memory * (double)a.count, &fused, a.count);
    bench_stream_ceiling_measure(ctx, figures[2], offload_unfused, &a,
                                 unfused_bytes * (double)a.count, unfused_memory * (double)a.count,
                                 &unfused, a.count);
    snprintf(note, sizeof note, "%s, %zu threads; %.0f vs %.0f B/param: roofline %.2fx",
             adam->implementation, accel_thread_pool_threads(), fused_bytes, unfused_bytes,
             unfused_bytes / fused_bytes);
    for (int k = 0; k < 3; k++) {
        if (figures[k]->failed)
            continue;
        if (a.overflow)
            bench_figure_fail(figures[k], "the step overflowed: the figure would time no update");
        else if (k == 0)
            snprintf(figures[k]->note, sizeof figures[k]->note, "%s", note);
        else
            snprintf(figures[k]->note, sizeof figures[k]->note,
                     "ratio = fraction of the ceiling; %.0f B/param",
                     k == 1 ? fused_bytes : unfused_bytes);
    }
    offload_free(&a);
}
