/* suite_optim.c: the host optimizer ops (CPUAdamBuilder, CPUAdagradBuilder,
 * CPULionBuilder) in params/s next to a plain single-thread C loop of the
 * same formula, and in GB/s as a fraction of the memory ceiling: the step's
 * null op or STREAM's kernels (stream_ceiling.h) moving the step's bytes, on as many
 * threads as accel's CPU worker pool, timed alternately in the same run.
 * Also ZeRO-Offload's fused CPU phase (optim_offload.h). Threads: the
 * suite's team of worker threads lives for one call of bench_suite_optim
 * and only runs the fills. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel_ops.h>

#include "bench.h"
#include "optim_offload.h"
#include "stream_ceiling.h"

/* Thread chunks start on multiples of this many elements (one or more cache
 * lines of every dtype). */
#define OPTIM_GRAIN 1024
/* How the host ops split a step across accel's pool (src/ops/cpu/host_ops.c
 * HOST_GRAIN, HOST_MIN_PER_THREAD): the null op of a step's ceiling splits
 * the same way. */
#define OPTIM_OP_GRAIN          64
#define OPTIM_OP_MIN_PER_THREAD (32 * 1024)

/* ---------------------------------------------------------------- threads */

/* The CPU worker pool's thread count, found the way the pool finds it:
 * ACCEL_CPU_THREADS when it is a positive integer, else the CPUs in this
 * process's affinity mask; at most OPTIM_MAX_THREADS either way. */
#define OPTIM_MAX_THREADS 256

static size_t optim_thread_count(void)
{
    size_t count = 1;
    const char *env = getenv("ACCEL_CPU_THREADS");
    char *end = NULL;
    unsigned long value = env && *env ? strtoul(env, &end, 10) : 0;
    cpu_set_t set;
    if (value > 0 && *end == '\0')
        count = value;
    else if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        count = (size_t)CPU_COUNT(&set);
    return count > OPTIM_MAX_THREADS ? OPTIM_MAX_THREADS : count;
}

typedef void (*optim_chunk_fn_t)(void *ctx, size_t begin, size_t end);

/* Worker threads waiting for a job: the caller publishes one (a new
 * generation), every thread, the caller as thread 0, runs its contiguous
 * chunk, and the caller waits until the others are done. Owned and driven
 * by one thread; the job fields are written under `lock` only. */
typedef struct optim_team {
    size_t count; /* threads including the caller */
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    uint64_t generation;
    size_t pending; /* workers still running the current job */
    bool quit;
    optim_chunk_fn_t fn;
    void *ctx;
    size_t elements;
} optim_team_t;

typedef struct optim_worker {
    optim_team_t *team;
    size_t index;
} optim_worker_t;

static void optim_team_chunk(optim_team_t *team, size_t index)
{
    size_t per = (team->elements + team->count - 1) / team->count;
    per = (per + OPTIM_GRAIN - 1) / OPTIM_GRAIN * OPTIM_GRAIN;
    size_t begin = index * per < team->elements ? index * per : team->elements;
    size_t end = begin + per < team->elements ? begin + per : team->elements;
    if (begin < end)
        team->fn(team->ctx, begin, end);
}

static void *optim_worker_main(void *p)
{
    optim_worker_t worker = *(optim_worker_t *)p;
    optim_team_t *team = worker.team;
    uint64_t seen = 0;
    free(p);
    pthread_mutex_lock(&team->lock);
    for (;;) {
        while (team->generation == seen && !team->quit)
            pthread_cond_wait(&team->work, &team->lock);
        if (team->quit)
            break;
        seen = team->generation;
        pthread_mutex_unlock(&team->lock);
        optim_team_chunk(team, worker.index);
        pthread_mutex_lock(&team->lock);
        if (--team->pending == 0)
            pthread_cond_signal(&team->done);
    }
    pthread_mutex_unlock(&team->lock);
    return NULL;
}

static void optim_team_run(optim_team_t *team, optim_chunk_fn_t fn, void *ctx, size_t elements)
{
    pthread_mutex_lock(&team->lock);
    team->fn = fn;
    team->ctx = ctx;
    team->elements = elements;
    team->pending = team->count - 1;
    team->generation++;
    pthread_cond_broadcast(&team->work);
    pthread_mutex_unlock(&team->lock);
    optim_team_chunk(team, 0);
    pthread_mutex_lock(&team->lock);
    while (team->pending > 0)
        pthread_cond_wait(&team->done, &team->lock);
    pthread_mutex_unlock(&team->lock);
}

/* Start up to `count` - 1 workers; the team is the caller plus those that
 * started (the caller alone if none did). */
static void optim_team_start(optim_team_t *team, size_t count)
{
    memset(team, 0, sizeof *team);
    pthread_mutex_init(&team->lock, NULL);
    pthread_cond_init(&team->work, NULL);
    pthread_cond_init(&team->done, NULL);
    team->count = 1;
    team->threads = count > 1 ? calloc(count - 1, sizeof *team->threads) : NULL;
    if (team->threads == NULL)
        return;
    for (size_t i = 1; i < count; i++) {
        optim_worker_t *worker = malloc(sizeof *worker);
        if (worker == NULL)
            return;
        worker->team = team;
        worker->index = i;
        if (pthread_create(&team->threads[i - 1], NULL, optim_worker_main, worker) != 0) {
            free(worker);
            return;
        }
        team->count++; /* jobs start later: no worker reads count before then */
    }
}

static void optim_team_stop(optim_team_t *team)
{
    pthread_mutex_lock(&team->lock);
    team->quit = true;
    pthread_cond_broadcast(&team->work);
    pthread_mutex_unlock(&team->lock);
    for (size_t i = 0; i + 1 < team->count; i++)
        pthread_join(team->threads[i], NULL);
    free(team->threads);
    pthread_cond_destroy(&team->done);
    pthread_cond_destroy(&team->work);
    pthread_mutex_destroy(&team->lock);
}

/* ---------------------------------------------------------------- buffers */

/* A step's storage: param, grad and one or two states, sized for `count`
 * elements of the case's dtypes. state2 is NULL for one-state ops. Owned by
 * the figure being measured; freed before the next case allocates. */
typedef struct optim_buffers {
    void *param, *grad, *state1, *state2;
} optim_buffers_t;

/* A figure's configuration: op family, dtype pair, size. */
typedef struct optim_case {
    const char *family; /* "adam", "adagrad", "lion" */
    accel_dtype_t param_dtype, state_dtype;
    int states;
    unsigned log2_count;
} optim_case_t;

/* Everything the timed functions see. The op and its plain loop (the same
 * formula) run on the same buffers, so they see the same pages. */
typedef struct optim_arg {
    accel_t *acc;
    optim_team_t *team;
    optim_case_t kase;
    size_t count;
    size_t param_size, state_size;
    optim_buffers_t buffers;
    DLTensor param, grad, state1, state2;
    int64_t shape[1];
    const accel_adam_op_t *adam;
    const accel_adagrad_op_t *adagrad;
    const accel_lion_op_t *lion;
    accel_adam_config_t adam_config;
    accel_adagrad_config_t adagrad_config;
    accel_lion_config_t lion_config;
    uint64_t op_step, scalar_step;
} optim_arg_t;

static size_t optim_dtype_size(accel_dtype_t dtype)
{
    return dtype == ACCEL_DTYPE_F32 ? 4 : 2;
}

/* Bytes a step moves per element: p, g and the states read, p and the
 * states written. fp32 Adam: 16 + 12 = 28. */
static double optim_bytes_per_param(const optim_case_t *c)
{
    double p = (double)optim_dtype_size(c->param_dtype);
    double s = (double)optim_dtype_size(c->state_dtype);
    return 3 * p + 2 * c->states * s;
}

static void optim_buffers_free(optim_buffers_t *b)
{
    free(b->param);
    free(b->grad);
    free(b->state1);
    free(b->state2);
    memset(b, 0, sizeof *b);
}

static void *optim_alloc(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, 4096, bytes) == 0 ? p : NULL;
}

/* Allocates without touching: the fill below first-touches each chunk on the
 * thread that later streams it. */
static bool optim_buffers_alloc(optim_buffers_t *b, const optim_arg_t *a)
{
    memset(b, 0, sizeof *b);
    b->param = optim_alloc(a->count * a->param_size);
    b->grad = optim_alloc(a->count * a->param_size);
    b->state1 = optim_alloc(a->count * a->state_size);
    if (a->kase.states == 2)
        b->state2 = optim_alloc(a->count * a->state_size);
    if (b->param && b->grad && b->state1 && (a->kase.states == 1 || b->state2))
        return true;
    optim_buffers_free(b);
    return false;
}

/* f32 to the storage of `dtype`, for the fill values only (normal, well
 * inside the f16 range; f16 truncates, bf16 rounds to nearest even). */
static void optim_store(void *base, size_t i, accel_dtype_t dtype, float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    if (dtype == ACCEL_DTYPE_F32) {
        ((float *)base)[i] = x;
    } else if (dtype == ACCEL_DTYPE_BF16) {
        ((uint16_t *)base)[i] = (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
    } else if (x == 0.0f) {
        ((uint16_t *)base)[i] = 0;
    } else {
        uint32_t exponent = ((bits >> 23) & 0xffu) - 127u + 15u;
        ((uint16_t *)base)[i] =
            (uint16_t)(((bits >> 16) & 0x8000u) | (exponent << 10) | ((bits >> 13) & 0x3ffu));
    }
}

static void optim_fill(const optim_arg_t *a, size_t i)
{
    const optim_buffers_t *b = &a->buffers;
    float param = 0.5f + (float)(i % 64) / 256.0f;
    float grad = ((i & 1) ? -1.0f : 1.0f) * (0.05f + (float)(i % 29) / 1024.0f);
    optim_store(b->param, i, a->kase.param_dtype, param);
    optim_store(b->grad, i, a->kase.param_dtype, grad);
    optim_store(b->state1, i, a->kase.state_dtype, 0.0f);
    if (b->state2)
        optim_store(b->state2, i, a->kase.state_dtype, 0.0f);
}

/* Team job: the first touch of the buffers, chunk by chunk. */
static void optim_fill_chunk(void *ctx, size_t begin, size_t end)
{
    const optim_arg_t *a = ctx;
    for (size_t i = begin; i < end; i++)
        optim_fill(a, i);
}

/* ---------------------------------------------------------------- plain loops */

/* The baselines: the formulas of accel_ops.h written as a user would, one
 * thread, f32, over the op's buffers. */
static bool optim_adam_scalar(void *arg, size_t iters)
{
    optim_arg_t *a = arg;
    const accel_adam_config_t *c = &a->adam_config;
    float *p = a->buffers.param, *m = a->buffers.state1, *v = a->buffers.state2;
    const float *g = a->buffers.grad;
    for (size_t it = 0; it < iters; it++) {
        double t = (double)++a->scalar_step;
        float step_size = c->lr / (float)(1.0 - pow(c->beta1, t));
        float bc2 = (float)(1.0 / sqrt(1.0 - pow(c->beta2, t)));
        for (size_t i = 0; i < a->count; i++) {
            m[i] = c->beta1 * m[i] + (1.0f - c->beta1) * g[i];
            v[i] = c->beta2 * v[i] + (1.0f - c->beta2) * g[i] * g[i];
            p[i] -= c->lr * c->weight_decay * p[i];
            p[i] -= step_size * m[i] / (sqrtf(v[i]) * bc2 + c->eps);
        }
    }
    return true;
}

static bool optim_adagrad_scalar(void *arg, size_t iters)
{
    optim_arg_t *a = arg;
    const accel_adagrad_config_t *c = &a->adagrad_config;
    float *p = a->buffers.param, *v = a->buffers.state1;
    const float *g = a->buffers.grad;
    for (size_t it = 0; it < iters; it++)
        for (size_t i = 0; i < a->count; i++) {
            v[i] += g[i] * g[i];
            p[i] -= c->lr * g[i] / (sqrtf(v[i]) + c->eps);
        }
    return true;
}

static bool optim_lion_scalar(void *arg, size_t iters)
{
    optim_arg_t *a = arg;
    const accel_lion_config_t *c = &a->lion_config;
    float *p = a->buffers.param, *m = a->buffers.state1;
    const float *g = a->buffers.grad;
    for (size_t it = 0; it < iters; it++)
        for (size_t i = 0; i < a->count; i++) {
            float update = c->beta1 * m[i] + (1.0f - c->beta1) * g[i];
            float sign = update > 0.0f ? 1.0f : (update < 0.0f ? -1.0f : 0.0f);
            p[i] = p[i] * (1.0f - c->lr * c->weight_decay) - c->lr * sign;
            m[i] = c->beta2 * m[i] + (1.0f - c->beta2) * g[i];
        }
    return true;
}

/* ---------------------------------------------------------------- the ops */

static bool optim_op_step(void *arg, size_t iters)
{
    optim_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++) {
        accel_status_t status;
        if (a->adam)
            status = a->adam->step(a->acc, NULL, &a->adam_config, ++a->op_step, &a->param, &a->grad,
                                   &a->state1, &a->state2);
        else if (a->adagrad)
            status =
                a->adagrad->step(a->acc, NULL, &a->adagrad_config, &a->param, &a->grad, &a->state1);
        else
            status = a->lion->step(a->acc, NULL, &a->lion_config, &a->param, &a->grad, &a->state1);
        if (status != ACCEL_OK)
            return false;
    }
    return true;
}

/* The op's table from its builder, or NULL with the reason in `why`
 * (including a table too old to have `step`). */
static const void *optim_load(accel_t *acc, const char *class_name, size_t step_end, char *why,
                              size_t why_cap)
{
    accel_op_builder_t *builder;
    const void *table = NULL;
    if (accel_get_op_builder(acc, class_name, &builder) != ACCEL_OK ||
        accel_op_builder_load(builder, &table) != ACCEL_OK) {
        const char *error = accel_last_error();
        snprintf(why, why_cap, "%s: %s", class_name, error && *error ? error : "cannot load");
        return NULL;
    }
    if (*(const size_t *)table < step_end) { /* struct_size, every table's first member */
        snprintf(why, why_cap, "%s: table has no step", class_name);
        return NULL;
    }
    return table;
}

static void optim_tensor(DLTensor *t, void *data, accel_dtype_t dtype, int64_t *shape)
{
    memset(t, 0, sizeof *t);
    t->data = data;
    t->device.device_type = kDLCPU;
    t->device.device_id = 0;
    t->ndim = 1;
    accel_dtype_to_dlpack(dtype, &t->dtype);
    t->shape = shape;
}

/* Point the arg at a case: sizes and op table; the buffers come later. */
static void optim_arg_bind(optim_arg_t *a, const optim_case_t *c, const void *table)
{
    a->kase = *c;
    a->count = (size_t)1 << c->log2_count;
    a->param_size = optim_dtype_size(c->param_dtype);
    a->state_size = optim_dtype_size(c->state_dtype);
    a->adam = strcmp(c->family, "adam") == 0 ? table : NULL;
    a->adagrad = strcmp(c->family, "adagrad") == 0 ? table : NULL;
    a->lion = strcmp(c->family, "lion") == 0 ? table : NULL;
    a->op_step = a->scalar_step = 0;
    a->shape[0] = (int64_t)a->count;
}

/* The op's tensors over the op set. */
static void optim_arg_tensors(optim_arg_t *a)
{
    optim_tensor(&a->param, a->buffers.param, a->kase.param_dtype, a->shape);
    optim_tensor(&a->grad, a->buffers.grad, a->kase.param_dtype, a->shape);
    optim_tensor(&a->state1, a->buffers.state1, a->kase.state_dtype, a->shape);
    optim_tensor(&a->state2, a->buffers.state2, a->kase.state_dtype, a->shape);
}

static const char *optim_dtype_label(accel_dtype_t dtype)
{
    return dtype == ACCEL_DTYPE_F32 ? "f32" : dtype == ACCEL_DTYPE_F16 ? "f16" : "bf16";
}

static void optim_case_label(const optim_case_t *c, char *out, size_t cap)
{
    if (strcmp(c->family, "adam") == 0)
        snprintf(out, cap, "adam %s/%s 2^%u", optim_dtype_label(c->param_dtype),
                 optim_dtype_label(c->state_dtype), c->log2_count);
    else
        snprintf(out, cap, "%s %s 2^%u", c->family, optim_dtype_label(c->param_dtype),
                 c->log2_count);
}

/* ---------------------------------------------------------------- figures */

typedef struct optim_suite {
    bench_ctx_t *ctx;
    optim_team_t team;
    const void *tables[3]; /* adam, adagrad, lion; NULL when the load failed */
    char load_error[3][96];
} optim_suite_t;

static const char *const optim_builders[3] = {"CPUAdamBuilder", "CPUAdagradBuilder",
                                              "CPULionBuilder"};

static int optim_family_index(const char *family)
{
    return strcmp(family, "adam") == 0 ? 0 : strcmp(family, "adagrad") == 0 ? 1 : 2;
}

static const char *optim_implementation(const void *table, int family)
{
    if (family == 0)
        return ((const accel_adam_op_t *)table)->implementation;
    if (family == 1)
        return ((const accel_adagrad_op_t *)table)->implementation;
    return ((const accel_lion_op_t *)table)->implementation;
}

static bench_fn_t optim_scalar_loop(const optim_case_t *c)
{
    if (c->param_dtype != ACCEL_DTYPE_F32 || c->state_dtype != ACCEL_DTYPE_F32)
        return NULL;
    int family = optim_family_index(c->family);
    return family == 0 ? optim_adam_scalar : family == 1 ? optim_adagrad_scalar : optim_lion_scalar;
}

/* Allocate the buffers and first-touch them on the team, each thread the
 * chunk it later streams; false when memory runs out. */
static bool optim_prepare(optim_suite_t *s, optim_arg_t *a)
{
    if (!optim_buffers_alloc(&a->buffers, a))
        return false;
    optim_team_run(&s->team, optim_fill_chunk, a, a->count);
    optim_arg_tensors(a);
    return true;
}

static void optim_fail_no_memory(bench_figure_t *f, const optim_arg_t *a)
{
    char why[96];
    double bytes =
        (double)a->count * (double)(2 * a->param_size + (size_t)a->kase.states * a->state_size);
    snprintf(why, sizeof why, "cannot allocate %.0f MiB", bytes / (1 << 20));
    bench_figure_fail(f, why);
}

/* Two figures for one case: params/s vs the plain loop, and GB/s as a
 * fraction of the STREAM ceiling for the same bytes. */
static void optim_run_case(optim_suite_t *s, const optim_case_t *c)
{
    bench_ctx_t *ctx = s->ctx;
    int family = optim_family_index(c->family);
    optim_arg_t arg = {.acc = ctx->acc, .team = &s->team};
    accel_adam_config_t adam = {1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, true, true};
    accel_adagrad_config_t adagrad = {1e-2f, 1e-10f, 0.0f};
    accel_lion_config_t lion = {1e-4f, 0.9f, 0.99f, 0.01f};
    char label[48], name[64], note[96];
    arg.adam_config = adam;
    arg.adagrad_config = adagrad;
    arg.lion_config = lion;

    optim_arg_bind(&arg, c, s->tables[family]);
    double bytes = optim_bytes_per_param(c);
    optim_case_label(c, label, sizeof label);
    /* The rate figure's "bytes" per op are params: its value is G params/s. */
    bench_figure_t *rate =
        bench_figure_add(ctx, "optim", label, BENCH_RATE, "Gpar/s", 0, (double)arg.count);
    snprintf(name, sizeof name, "%s ceiling", label);
    bench_figure_t *frac =
        bench_figure_add(ctx, "optim", name, BENCH_RATE, "GB/s", 0, bytes * (double)arg.count);
    if (rate == NULL || frac == NULL)
        return;
    frac->has_goal = true;
    frac->goal = 0.80;
    if (s->tables[family] == NULL) {
        bench_figure_fail(rate, s->load_error[family]);
        bench_figure_fail(frac, s->load_error[family]);
        return;
    }
    if (!optim_prepare(s, &arg)) {
        optim_fail_no_memory(rate, &arg);
        optim_fail_no_memory(frac, &arg);
        return;
    }

    bench_fn_t scalar = optim_scalar_loop(c);
    bench_measure(ctx, rate, optim_op_step, scalar, &arg, "plain C loop, 1 thread",
                  "none (no plain loop for this dtype pair)");
    snprintf(note, sizeof note, "%s, %zu threads; %.0f B/param moved",
             optim_implementation(s->tables[family], family), s->team.count, bytes);
    if (!rate->failed)
        snprintf(rate->note, sizeof rate->note, "%s", note);

    double footprint = (double)(2 * arg.param_size + (size_t)c->states * arg.state_size);
    /* the step's shape: grads read, params and every state updated in place */
    bench_null_shape_t shape = {
        .width = {(unsigned)arg.param_size, (unsigned)arg.param_size, (unsigned)arg.state_size,
                  (unsigned)arg.state_size},
        .buffers = 2 + c->states,
        .pass = {{.access = {{1, BENCH_NULL_READ},
                             {0, BENCH_NULL_UPDATE},
                             {2, BENCH_NULL_UPDATE},
                             {3, BENCH_NULL_UPDATE}},
                  .accesses = 2 + c->states,
                  .grain = OPTIM_OP_GRAIN,
                  .min_per_thread = OPTIM_OP_MIN_PER_THREAD}},
        .passes = 1,
    };
    bench_stream_ceiling_measure(ctx, frac, optim_op_step, &arg, bytes * (double)arg.count,
                                 footprint * (double)arg.count, &shape, arg.count);
    if (!frac->failed)
        snprintf(frac->note, sizeof frac->note, "ratio = fraction of the ceiling; %.90s", note);
    optim_buffers_free(&arg.buffers);
}

/* The ceiling's own figures, over the largest fp32 Adam step's memory:
 * copy and triad with non-temporal stores against the same kernel with
 * ordinary ones (where they help, the ratio is over 1), the in-place
 * nstream against triad NT, and the in-place update against nstream. */
typedef struct optim_stream_arg {
    bench_stream_t stream;
    bench_stream_kernel_t kernel, baseline;
} optim_stream_arg_t;

static bool optim_stream_pass(void *arg, size_t iters)
{
    optim_stream_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        bench_stream_pass(&a->stream, a->kernel);
    return true;
}

static bool optim_stream_baseline_pass(void *arg, size_t iters)
{
    optim_stream_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        bench_stream_pass(&a->stream, a->baseline);
    return true;
}

static void optim_run_stream(optim_suite_t *s, double footprint)
{
    optim_stream_arg_t arg;
    static const bench_stream_kernel_t kernels[4][2] = {
        {BENCH_STREAM_COPY_NT, BENCH_STREAM_COPY},
        {BENCH_STREAM_TRIAD_NT, BENCH_STREAM_TRIAD},
        {BENCH_STREAM_NSTREAM, BENCH_STREAM_TRIAD_NT},
        {BENCH_STREAM_UPDATE, BENCH_STREAM_NSTREAM},
    };
    if (!bench_stream_open(&arg.stream, footprint)) {
        bench_figure_t *f = bench_figure_add(s->ctx, "optim", "STREAM", BENCH_RATE, "GB/s", 0, 1);
        if (f != NULL)
            bench_figure_fail(f, "cannot allocate the STREAM arrays");
        return;
    }
    for (int k = 0; k < 4; k++) {
        bench_stream_kernel_t kernel = kernels[k][0], base = kernels[k][1];
        double moved = bench_stream_pass_bytes(&arg.stream, kernel);
        double moved_base = bench_stream_pass_bytes(&arg.stream, base);
        char name[64], baseline[48];
        snprintf(name, sizeof name, "STREAM %s %.0f MiB", bench_stream_kernel_name(kernel),
                 arg.stream.footprint / (1 << 20));
        bench_figure_t *f = bench_figure_add(s->ctx, "optim", name, BENCH_RATE, "GB/s", 0, moved);
        if (f == NULL)
            break;
        arg.kernel = kernel;
        arg.baseline = base;
        snprintf(baseline, sizeof baseline, "%s, same memory", bench_stream_kernel_name(base));
        bench_measure(s->ctx, f, optim_stream_pass, optim_stream_baseline_pass, &arg, baseline,
                      NULL);
        if (!f->failed && f->has_baseline && moved != moved_base) {
            /* the baseline's time for this figure's bytes */
            for (int r = 0; r < f->baseline.reps; r++)
                f->baseline.samples[r] *= moved / moved_base;
            bench_figure_finish(f, f->baseline.reps);
        }
        if (!f->failed)
            snprintf(f->note, sizeof f->note,
                     "%zu threads (accel's pool); each figure's ceiling is the best of copy, "
                     "triad (+NT), nstream, update, and its null op",
                     arg.stream.threads);
    }
    bench_stream_close(&arg.stream);
}

static void optim_load_tables(optim_suite_t *s)
{
    static const size_t step_end[3] = {
        offsetof(accel_adam_op_t, step) + sizeof(((accel_adam_op_t *)0)->step),
        offsetof(accel_adagrad_op_t, step) + sizeof(((accel_adagrad_op_t *)0)->step),
        offsetof(accel_lion_op_t, step) + sizeof(((accel_lion_op_t *)0)->step),
    };
    for (int i = 0; i < 3; i++)
        s->tables[i] = optim_load(s->ctx->acc, optim_builders[i], step_end[i], s->load_error[i],
                                  sizeof s->load_error[i]);
}

void bench_suite_optim(bench_ctx_t *ctx)
{
    static const accel_dtype_t mixed[4][2] = {{ACCEL_DTYPE_F16, ACCEL_DTYPE_F32},
                                              {ACCEL_DTYPE_BF16, ACCEL_DTYPE_F32},
                                              {ACCEL_DTYPE_F16, ACCEL_DTYPE_F16},
                                              {ACCEL_DTYPE_BF16, ACCEL_DTYPE_BF16}};
    optim_suite_t s = {.ctx = ctx};
    unsigned largest = ctx->quick ? 22 : ctx->large ? 28 : 26;
    unsigned other = ctx->quick ? 22 : 24; /* mixed pairs, Adagrad, Lion */

    optim_team_start(&s.team, optim_thread_count());
    optim_load_tables(&s);
    optim_run_stream(&s, 16.0 * (double)((size_t)1 << largest)); /* p, g, m, v */
    for (unsigned log2 = 20; log2 <= largest; log2 += 2) {
        optim_case_t c = {"adam", ACCEL_DTYPE_F32, ACCEL_DTYPE_F32, 2, log2};
        optim_run_case(&s, &c);
    }
    for (int i = 0; i < 4; i++) {
        optim_case_t c = {"adam", mixed[i][0], mixed[i][1], 2, other};
        optim_run_case(&s, &c);
    }
    optim_case_t adagrad = {"adagrad", ACCEL_DTYPE_F32, ACCEL_DTYPE_F32, 1, other};
    optim_case_t lion = {"lion", ACCEL_DTYPE_F32, ACCEL_DTYPE_F32, 1, other};
    optim_run_case(&s, &adagrad);
    optim_run_case(&s, &lion);
    /* ZeRO-Offload's CPU phase: 2^24 and 2^26 (2^22 with --quick) */
    for (unsigned log2 = ctx->quick ? 22 : 24; log2 <= (ctx->quick ? 22u : 26u); log2 += 2) {
        bench_optim_offload(ctx, s.tables[0], s.load_error[0], log2, ACCEL_DTYPE_F32);
        bench_optim_offload(ctx, s.tables[0], s.load_error[0], log2, ACCEL_DTYPE_BF16);
    }
    optim_team_stop(&s.team);
}
