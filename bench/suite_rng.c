/* suite_rng.c: the rng suite. The Philox uniform fill through accel's stream
 * (the host thread pool: every core) against one-thread and pooled memset of
 * the same buffer, and the fill on one thread (the per-thread rate of
 * issue 32's goal) against one-thread memset and numpy's Philox generator.
 * Sizes: one larger than the last-level cache (DRAM bandwidth, where the
 * goals apply) and, in a full run, one that fits in it (memset then runs
 * from the cache; the fill is compute-bound at the same rate).
 * Threads: the calling thread, the pool inside accel, and a Python child. */
#include <stdlib.h>
#include <string.h>

#include <accel/accel_backend_utils.h>

#include "bench.h"
#include "python_baseline.h"

/* Issue 32: the fill on one thread, on AVX2 and up, at least this fast. */
#define RNG_GOAL_GBPS_PER_THREAD 3.5
/* Issue 15: the fill on every core at least this fraction of memset. */
#define RNG_GOAL_MEMSET_RATIO 0.8

/* Called through a volatile pointer so the compiler keeps every call. */
static void *(*volatile bench_libc_memset)(void *, int, size_t) = memset;

typedef struct rng_arg {
    accel_t *acc;
    accel_stream_t *stream;
    void *device;
    size_t size;
    uint64_t offset; /* the one-thread fill's, advanced per fill like the stream's */
} rng_arg_t;

static bool rng_fill(void *arg, size_t iters)
{
    rng_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        if (accel_rng_uniform_f32(a->acc, a->device, a->size / 4, a->stream) != ACCEL_OK)
            return false;
    return accel_stream_synchronize(a->stream) == ACCEL_OK;
}

/* The same fill the cpu backend runs per chunk, whole, on this thread. */
static bool rng_fill_one_thread(void *arg, size_t iters)
{
    rng_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++) {
        accel_philox_fill_range(ACCEL_RNG_UNIFORM, a->device, 0, a->size / 4, 42, a->offset);
        a->offset += accel_rng_offset_advance(ACCEL_RNG_UNIFORM, a->size / 4);
    }
    return true;
}

static bool rng_memset(void *arg, size_t iters)
{
    rng_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        if (accel_memset_async(a->acc, a->device, (int)(i & 0xff), a->size, a->stream) != ACCEL_OK)
            return false;
    return accel_stream_synchronize(a->stream) == ACCEL_OK;
}

static bool rng_memset_one_thread(void *arg, size_t iters)
{
    rng_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        bench_libc_memset(a->device, (int)(i & 0xff), a->size);
    return true;
}

static void rng_memset_chunk(void *ctx, size_t begin, size_t end)
{
    bench_libc_memset((unsigned char *)ctx + begin, 0x5a, end - begin);
}

/* glibc memset over the pool on the same buffer (cpu: device memory is host
 * memory), split as the fill splits its elements: one chunk per thread. */
static bool rng_memset_pool(void *arg, size_t iters)
{
    rng_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        accel_thread_pool_run(a->size, 4096, (size_t)1 << 20, rng_memset_chunk, a->device);
    return true;
}

/* numpy's Philox (a Generator on numpy.random.Philox, which is Philox4x64-10)
 * filling a float32 array in place on one thread, timed as the harness
 * times: iterations doubled to a target, then one line per repetition. */
static const char rng_numpy_code[] =
    "import sys, time\n"
    "try:\n"
    "    import numpy as np\n"
    "except ImportError:\n"
    "    print('reason numpy is not installed'); sys.exit(3)\n"
    "n, reps, target = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])\n"
    "gen = np.random.Generator(np.random.Philox(42))\n"
    "out = np.empty(n, dtype=np.float32)\n"
    "def run(k):\n"
    "    t = time.perf_counter()\n"
    "    for _ in range(k): gen.random(dtype=np.float32, out=out)\n"
    "    return time.perf_counter() - t\n"
    "iters = 1\n"
    "while run(iters) < target: iters *= 2\n"
    "for _ in range(reps): print('sample', run(iters) / iters)\n";

/* numpy's samples for `f` (measured alone just before). */
static void rng_numpy_baseline(bench_ctx_t *ctx, bench_figure_t *f, size_t size)
{
    char python[1024], why[sizeof f->baseline_note], line[40], n[32], reps[16], target[32];
    char *args[] = {n, reps, target, NULL};
    bench_series_t numpy = {0};
    if (f->failed)
        return;
    if (!bench_python_find("numpy", python, sizeof python, why, sizeof why)) {
        memcpy(f->baseline_note, why, sizeof why);
        return;
    }
    snprintf(n, sizeof n, "%zu", size / 4);
    snprintf(reps, sizeof reps, "%d", ctx->reps);
    snprintf(target, sizeof target, "%g", ctx->target_s);
    int status = bench_python_samples(python, rng_numpy_code, args, &numpy, line, sizeof line);
    if (status != 0 || numpy.reps != ctx->reps) {
        snprintf(f->baseline_note, sizeof f->baseline_note, "skipped: numpy helper %s (%s)",
                 status == BENCH_PYTHON_SKIP ? "could not run" : "failed", line);
        return;
    }
    bench_figure_add_baseline(f, &numpy, "numpy Philox 1 thread");
}

/* Issue 32's absolute goal drawn on `f` as the ratio it makes against
 * this run's baseline. */
static void rng_goal_per_thread(bench_figure_t *f, const char *isa)
{
    if (f->failed || !f->has_baseline || f->baseline.median <= 0)
        return;
    f->has_goal = true;
    f->goal = RNG_GOAL_GBPS_PER_THREAD / bench_value(f, &f->baseline);
    snprintf(f->note, sizeof f->note, "%s; goal %.1f GB/s per thread (AVX2 and up) = %.2fx here",
             isa, RNG_GOAL_GBPS_PER_THREAD, f->goal);
}

/* The fill on one thread, against one-thread memset and against numpy's
 * Philox. The per-thread goal goes on the numpy figure when there is one:
 * numpy's generator is compute-bound like accel's, so the line moves less
 * with the machine's memory traffic than against memset. */
static void rng_one_thread_figures(bench_ctx_t *ctx, rng_arg_t *arg)
{
    char name[64];
    const char *isa = bench_cpu_isa();
    snprintf(name, sizeof name, "Philox fill 1 thread, %zu MiB", arg->size >> 20);
    bench_figure_t *f =
        bench_figure_add(ctx, "rng", name, BENCH_RATE, "GB/s", 1, (double)arg->size);
    bench_figure_t *g =
        bench_figure_add(ctx, "rng", name, BENCH_RATE, "GB/s", 1, (double)arg->size);
    if (f == NULL || g == NULL)
        return;
    bench_measure(ctx, f, rng_fill_one_thread, rng_memset_one_thread, arg, "memset 1 thread", NULL);
    if (!f->failed)
        snprintf(f->note, sizeof f->note, "%s", isa);
    bench_measure(ctx, g, rng_fill_one_thread, NULL, arg, NULL, NULL);
    rng_numpy_baseline(ctx, g, arg->size);
    if (!g->failed)
        snprintf(g->note, sizeof g->note, "%s; numpy's Philox is 4x64-10, accel's 4x32-10", isa);
    rng_goal_per_thread(g->has_baseline ? g : f, isa);
}

static void rng_figures(bench_ctx_t *ctx, size_t size, bool goal)
{
    rng_arg_t arg = {.acc = ctx->acc, .size = size};
    size_t threads = accel_thread_pool_threads();
    char name[64], base[48], why[96];
    bench_figure_t *f1, *f2;

    snprintf(name, sizeof name, "Philox uniform f32 fill, %zu MiB", size >> 20);
    f1 = bench_figure_add(ctx, "rng", name, BENCH_RATE, "GB/s", 1, (double)size);
    f2 = bench_figure_add(ctx, "rng", name, BENCH_RATE, "GB/s", 1, (double)size);
    if (f1 == NULL || f2 == NULL)
        return;
    if (accel_default_stream(ctx->acc, ACCEL_CURRENT_DEVICE, &arg.stream) != ACCEL_OK ||
        accel_malloc(ctx->acc, size, &arg.device) != ACCEL_OK) {
        bench_figure_fail(f1, NULL);
        bench_figure_fail(f2, NULL);
        return;
    }
    accel_manual_seed(ctx->acc, 42);
    /* Both sides go through accel's stream on the same buffer. */
    bench_measure(ctx, f1, rng_fill, rng_memset, &arg, "memset 1 thread, same buf", NULL);
    snprintf(base, sizeof base, "memset on %zu pool threads", threads);
    if (ctx->is_cpu)
        bench_measure(ctx, f2, rng_fill, rng_memset_pool, &arg, base, NULL);
    else
        bench_measure(ctx, f2, rng_fill, NULL, &arg, NULL,
                      bench_no_raw_baseline(ctx, why, sizeof why));
    f1->has_goal = f2->has_goal = goal;
    f1->goal = f2->goal = RNG_GOAL_MEMSET_RATIO;
    if (!f1->failed)
        snprintf(f1->note, sizeof f1->note, "fill on %zu threads, memset on 1%s", threads,
                 goal ? " (issue 15's goal, kept on AVX-512 by issue 32)"
                      : "; fits in cache: no goal");
    if (!f2->failed)
        snprintf(f2->note, sizeof f2->note, "fill and memset on the same %zu threads%s", threads,
                 goal ? "" : "; fits in cache: no goal");
    /* One thread on host memory: the cpu backend's device memory is that. */
    if (goal && ctx->is_cpu)
        rng_one_thread_figures(ctx, &arg);
    accel_free(ctx->acc, arg.device);
    accel_empty_cache(ctx->acc);
}

void bench_suite_rng(bench_ctx_t *ctx)
{
    /* 64 MiB: twice the 32 MiB L3 of the development machine, so both sides
     * write to DRAM; 4 MiB stays in L2/L3 there. */
    rng_figures(ctx, (size_t)64 << 20, true);
    if (!ctx->quick)
        rng_figures(ctx, (size_t)4 << 20, false);
}
