/* harness.c: how `accel bench` measures. Each side of a figure is first
 * calibrated (iterations per repetition doubled until a repetition takes at
 * least ctx->target_s), warmed up once, then measured in alternating
 * repetitions (measured, baseline, measured, ...) so drift hits both alike.
 * Statistics: median, p10/p90 (linear interpolation), min/max, and the spread
 * (p90 - p10) / median. A ratio is printed unless a side's spread is over
 * BENCH_NOISE_THRESHOLD and the two sides' p10-p90 ranges overlap. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define BENCH_MAX_ITERS ((size_t)1 << 30)

volatile pid_t bench_child;

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double bench_percentile(const double *sorted, int n, double p)
{
    double position = p * (n - 1);
    int low = (int)position;
    int high = low + 1 < n ? low + 1 : low;
    return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

static void bench_series_finish(bench_series_t *s)
{
    double sorted[BENCH_MAX_REPS];
    memcpy(sorted, s->samples, (size_t)s->reps * sizeof sorted[0]);
    qsort(sorted, (size_t)s->reps, sizeof sorted[0], bench_compare_double);
    s->min = sorted[0];
    s->max = sorted[s->reps - 1];
    s->median = bench_percentile(sorted, s->reps, 0.5);
    s->p10 = bench_percentile(sorted, s->reps, 0.1);
    s->p90 = bench_percentile(sorted, s->reps, 0.9);
    s->spread = s->median > 0 ? (s->p90 - s->p10) / s->median : INFINITY;
}

/* Seconds for `iters` runs, or a negative value when the operation failed. */
static double bench_time(bench_fn_t fn, void *arg, size_t iters)
{
    double start = bench_now();
    if (!fn(arg, iters))
        return -1.0;
    return bench_now() - start;
}

/* Iterations for one repetition of at least `target_s`; 0 on failure. */
static size_t bench_calibrate(bench_fn_t fn, void *arg, double target_s)
{
    size_t iters = 1;
    for (;;) {
        double t = bench_time(fn, arg, iters);
        if (t < 0)
            return 0;
        if (t >= target_s || iters >= BENCH_MAX_ITERS)
            return iters;
        /* Jump close to the target once a time is measurable. */
        if (t > target_s / 64)
            iters = (size_t)ceil((double)iters * target_s / t * 1.1);
        else
            iters *= 8;
    }
}

double bench_value(const bench_figure_t *figure, const bench_series_t *series)
{
    if (figure->kind == BENCH_RATE)
        return series->median > 0 ? figure->bytes / series->median / 1e9 : 0.0;
    return series->median * figure->unit_scale;
}

bench_figure_t *bench_figure_add(bench_ctx_t *ctx, const char *suite, const char *name,
                                 bench_kind_t kind, const char *unit, double unit_scale,
                                 double bytes)
{
    if (ctx->figure_count >= BENCH_MAX_FIGURES) {
        ctx->figures_dropped++;
        return NULL;
    }
    bench_figure_t *f = &ctx->figures[ctx->figure_count++];
    memset(f, 0, sizeof *f);
    snprintf(f->suite, sizeof f->suite, "%s", suite);
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->unit, sizeof f->unit, "%s", unit);
    f->kind = kind;
    f->unit_scale = unit_scale;
    f->bytes = bytes;
    f->ratio_status = BENCH_RATIO_NONE;
    return f;
}

void bench_figure_fail(bench_figure_t *figure, const char *why)
{
    const char *error = why ? why : accel_last_error();
    figure->failed = true;
    figure->ratio_status = BENCH_RATIO_NONE;
    snprintf(figure->note, sizeof figure->note, "failed: %s",
             error && *error ? error : "unknown error");
}

int bench_figures_close(bench_ctx_t *ctx)
{
    int closed = 0;
    for (int i = 0; i < ctx->figure_count; i++) {
        bench_figure_t *f = &ctx->figures[i];
        if (!f->failed && f->measured.reps == 0) {
            bench_figure_fail(f, "not measured: its suite stopped before timing it");
            closed++;
        }
    }
    return closed;
}

const char *bench_no_raw_baseline(const bench_ctx_t *ctx, char *buf, size_t cap)
{
    snprintf(buf, cap, "n/a (no raw baseline for %s)", ctx->backend);
    return buf;
}

void bench_measure(bench_ctx_t *ctx, bench_figure_t *f, bench_fn_t measured, bench_fn_t baseline,
                   void *arg, const char *baseline_name, const char *baseline_note)
{
    size_t iters_m = bench_calibrate(measured, arg, ctx->target_s);
    size_t iters_b = baseline ? bench_calibrate(baseline, arg, ctx->target_s) : 0;
    if (iters_m == 0 || (baseline && iters_b == 0)) {
        bench_figure_fail(f, NULL);
        return;
    }
    f->has_baseline = baseline != NULL;
    snprintf(f->baseline_name, sizeof f->baseline_name, "%s", baseline_name ? baseline_name : "");
    snprintf(f->baseline_note, sizeof f->baseline_note, "%s", baseline_note ? baseline_note : "");
    /* Warm-up (caches, page faults, lazy initialisation), then alternate. */
    if (bench_time(measured, arg, iters_m) < 0 ||
        (baseline && bench_time(baseline, arg, iters_b) < 0)) {
        bench_figure_fail(f, NULL);
        return;
    }
    for (int r = 0; r < ctx->reps; r++) {
        double tm = bench_time(measured, arg, iters_m);
        double tb = baseline ? bench_time(baseline, arg, iters_b) : 0.0;
        if (tm < 0 || tb < 0) {
            bench_figure_fail(f, NULL);
            return;
        }
        f->measured.samples[r] = tm / (double)iters_m;
        if (baseline)
            f->baseline.samples[r] = tb / (double)iters_b;
    }
    bench_figure_finish(f, ctx->reps);
}

void bench_figure_finish(bench_figure_t *f, int reps)
{
    f->measured.reps = reps;
    bench_series_finish(&f->measured);
    if (!f->has_baseline) {
        f->ratio_status = BENCH_RATIO_NONE;
        return;
    }
    f->baseline.reps = reps;
    bench_series_finish(&f->baseline);
    /* A wide spread hides which side is faster only when the p10-p90
     * ranges overlap; ranges apart decide it (a fresh-process baseline on a
     * shared disk is often wide, and still far from accel). */
    bool wide =
        f->measured.spread > BENCH_NOISE_THRESHOLD || f->baseline.spread > BENCH_NOISE_THRESHOLD;
    bool apart = f->measured.p90 < f->baseline.p10 || f->baseline.p90 < f->measured.p10;
    if (wide && !apart) {
        f->ratio_status = BENCH_RATIO_NOISY;
        return;
    }
    f->ratio_status = BENCH_RATIO_OK;
    f->ratio = f->baseline.median / f->measured.median; /* time per op: baseline / accel */
}

/* The suites in report order (`accel bench SUITE...` picks among them). */
const bench_suite_t bench_suites[] = {
    {"startup", "exec to a chosen accelerator, accel report, vs exec /bin/true",
     bench_suite_startup},
    {"dispatch", "per-call cost of a trivial accel call vs the direct call", bench_suite_dispatch},
    {"alloc", "cached accel_malloc/free vs malloc/free and posix_memalign", bench_suite_alloc},
    {"copy", "H2D/D2H pinned and pageable, D2D, vs memcpy", bench_suite_copy},
    {"rng", "Philox fill vs 1-thread and pooled memset, same buffer", bench_suite_rng},
    {"stream", "callback and event latency, graph replay vs one by one", bench_suite_stream},
    {"optim",
     "CPU optimizer steps vs a plain C loop and the STREAM ceiling; ZeRO-Offload fused vs unfused",
     bench_suite_optim},
    {"aio", "async_io read/write GB/s of one file vs dd, fio and DeepSpeed's op, O_DIRECT",
     bench_suite_aio},
    {"comm",
     "all_reduce latency and bus bandwidth vs MPI_Allreduce (2 ranks, mpirun), and on cuda vs "
     "ncclAllReduce",
     bench_suite_comm},
};
const size_t bench_suite_count = sizeof bench_suites / sizeof bench_suites[0];

bool bench_suite_runs_by_default(const bench_suite_t *suite)
{
    return suite->run != bench_suite_comm;
}
