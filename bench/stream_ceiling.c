/* stream_ceiling.c: STREAM's copy and triad, with and without non-temporal
 * stores, BabelStream's nstream and an in-place update, on accel's host
 * thread pool, which with the op's null op (null_op.h) give the memory
 * ceiling of a figure (stream_ceiling.h). */
#include <stdlib.h>
#include <string.h>

#include <accel/accel_backend_utils.h>

#include "null_op.h"
#include "stream_ceiling.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define STREAM_HAVE_NT 1
#else
#define STREAM_HAVE_NT 0
#endif

/* Chunks of the pool start on multiples of this many doubles (whole cache
 * lines, 16-byte aligned for the non-temporal stores); below the minimum
 * per thread a worker is not worth waking. */
#define STREAM_GRAIN          512
#define STREAM_MIN_PER_THREAD 4096
#define STREAM_SCALAR         3.0
/* The arrays hold at most this much: far past every cache, where the time
 * is linear in the bytes, so larger figures scale the time of a pass. */
#define STREAM_MAX_PASS_BYTES (1024.0 * 1024 * 1024)

/* The plain loops are also built for AVX2 and AVX-512, picked at load time
 * from cpuid: SSE2 loops over doubles run out of instructions before a
 * cache-resident op's AVX-512 loop runs out of bandwidth. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define STREAM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define STREAM_CLONES
#endif

typedef struct stream_job {
    const bench_stream_t *s;
    bench_stream_kernel_t kernel;
} stream_job_t;

STREAM_CLONES static void stream_copy(double *restrict c, const double *restrict a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        c[i] = a[i];
}

STREAM_CLONES static void stream_triad(double *restrict a, const double *restrict b,
                                       const double *restrict c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + STREAM_SCALAR * c[i];
}

/* BabelStream's nstream: read three arrays, write the first in place. */
STREAM_CLONES static void stream_nstream(double *restrict a, const double *restrict b,
                                         const double *restrict c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] += b[i] + STREAM_SCALAR * c[i];
}

/* Three arrays updated in place from a fourth, side by side as an
 * optimizer step walks its tensors (four concurrent streams keep more
 * misses in flight than copy's two or triad's three). */
STREAM_CLONES static void stream_update(double *restrict a, double *restrict b, double *restrict c,
                                        const double *restrict d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double x = STREAM_SCALAR * d[i];
        a[i] += x;
        b[i] += x;
        c[i] += x;
    }
}

#if STREAM_HAVE_NT
/* Stores that bypass the cache: no read for ownership of the destination.
 * Chunks start 16-byte aligned (arrays are page-aligned, chunks whole
 * grains); an odd last element is stored plainly. */
static void stream_copy_nt(double *restrict c, const double *restrict a, size_t n)
{
    size_t i = 0;
    for (; i + 2 <= n; i += 2)
        _mm_stream_pd(c + i, _mm_load_pd(a + i));
    for (; i < n; i++)
        c[i] = a[i];
    _mm_sfence();
}

static void stream_triad_nt(double *restrict a, const double *restrict b, const double *restrict c,
                            size_t n)
{
    const __m128d scalar = _mm_set1_pd(STREAM_SCALAR);
    size_t i = 0;
    for (; i + 2 <= n; i += 2)
        _mm_stream_pd(a + i,
                      _mm_add_pd(_mm_load_pd(b + i), _mm_mul_pd(scalar, _mm_load_pd(c + i))));
    for (; i < n; i++)
        a[i] = b[i] + STREAM_SCALAR * c[i];
    _mm_sfence();
}
#else
#define stream_copy_nt  stream_copy
#define stream_triad_nt stream_triad
#endif

static void stream_chunk(void *ctx, size_t begin, size_t end)
{
    const stream_job_t *job = ctx;
    const bench_stream_t *s = job->s;
    size_t n = end - begin;
    switch (job->kernel) {
    case BENCH_STREAM_COPY: stream_copy(s->c + begin, s->a + begin, n); break;
    case BENCH_STREAM_COPY_NT: stream_copy_nt(s->c + begin, s->a + begin, n); break;
    case BENCH_STREAM_TRIAD: stream_triad(s->a + begin, s->b + begin, s->c + begin, n); break;
    case BENCH_STREAM_TRIAD_NT: stream_triad_nt(s->a + begin, s->b + begin, s->c + begin, n); break;
    case BENCH_STREAM_NSTREAM: stream_nstream(s->a + begin, s->b + begin, s->c + begin, n); break;
    default:
        stream_update(s->a + begin, s->b + begin, s->c + begin, s->c + s->update_n + begin, n);
        break;
    }
}

/* First touch: each thread writes the chunks it later streams. */
static void stream_fill_chunk(void *ctx, size_t begin, size_t end)
{
    const bench_stream_t *s = ctx;
    for (size_t i = begin; i < end; i++) {
        s->a[i] = 1.0;
        s->b[i] = 2.0;
        s->c[i] = 0.0;
    }
}

static void *stream_alloc(size_t n)
{
    void *p = NULL;
    return posix_memalign(&p, 4096, (n ? n : 1) * sizeof(double)) == 0 ? p : NULL;
}

bool bench_stream_open(bench_stream_t *s, double footprint)
{
    memset(s, 0, sizeof *s);
    if (footprint > STREAM_MAX_PASS_BYTES)
        footprint = STREAM_MAX_PASS_BYTES;
    s->copy_n = (size_t)(footprint / (2 * sizeof(double)));
    s->triad_n = (size_t)(footprint / (3 * sizeof(double)));
    s->update_n = s->copy_n / 2;
    s->footprint = footprint;
    s->kernel = BENCH_STREAM_TRIAD_NT;
    s->threads = accel_thread_pool_threads();
    /* copy uses a and c, triad a, b and c: every array has copy_n (the larger) */
    s->a = stream_alloc(s->copy_n);
    s->b = stream_alloc(s->copy_n);
    s->c = stream_alloc(s->copy_n);
    if (s->a == NULL || s->b == NULL || s->c == NULL) {
        bench_stream_close(s);
        return false;
    }
    accel_thread_pool_run(s->copy_n, STREAM_GRAIN, STREAM_MIN_PER_THREAD, stream_fill_chunk, s);
    return true;
}

void bench_stream_close(bench_stream_t *s)
{
    free(s->a);
    free(s->b);
    free(s->c);
    memset(s, 0, sizeof *s);
}

void bench_stream_pass(const bench_stream_t *s, bench_stream_kernel_t kernel)
{
    stream_job_t job = {s, kernel};
    size_t n = kernel == BENCH_STREAM_COPY || kernel == BENCH_STREAM_COPY_NT ? s->copy_n
               : kernel == BENCH_STREAM_UPDATE                               ? s->update_n
                                                                             : s->triad_n;
    accel_thread_pool_run(n, STREAM_GRAIN, STREAM_MIN_PER_THREAD, stream_chunk, &job);
}

const char *bench_stream_kernel_name(bench_stream_kernel_t kernel)
{
    static const char *const names[BENCH_STREAM_KERNELS] = {"copy",     "copy NT", "triad",
                                                            "triad NT", "nstream", "update"};
    return kernel < BENCH_STREAM_KERNELS ? names[kernel] : "?";
}

double bench_stream_pass_bytes(const bench_stream_t *s, bench_stream_kernel_t kernel)
{
    if (kernel == BENCH_STREAM_COPY || kernel == BENCH_STREAM_COPY_NT)
        return 2.0 * sizeof(double) * (double)s->copy_n;
    if (kernel == BENCH_STREAM_NSTREAM)
        return 4.0 * sizeof(double) * (double)s->triad_n;
    if (kernel == BENCH_STREAM_UPDATE) /* four arrays read, three written */
        return 7.0 * sizeof(double) * (double)s->update_n;
    return 3.0 * sizeof(double) * (double)s->triad_n;
}

double bench_stream_pick(bench_stream_t *s, int trials)
{
    double best_rate = 0.0;
    bench_stream_pass(s, BENCH_STREAM_COPY); /* warm-up: pages, pool threads */
    for (int k = 0; k < BENCH_STREAM_KERNELS; k++) {
        if (!STREAM_HAVE_NT && (k == BENCH_STREAM_COPY_NT || k == BENCH_STREAM_TRIAD_NT))
            continue;
        double best = 0.0;
        for (int t = 0; t < trials; t++) {
            double start = bench_now();
            bench_stream_pass(s, (bench_stream_kernel_t)k);
            double elapsed = bench_now() - start;
            if (best == 0.0 || elapsed < best)
                best = elapsed;
        }
        double rate =
            best > 0 ? bench_stream_pass_bytes(s, (bench_stream_kernel_t)k) / best / 1e9 : 0;
        if (rate > best_rate) {
            best_rate = rate;
            s->kernel = (bench_stream_kernel_t)k;
        }
    }
    return best_rate;
}

/* ---------------------------------------------------------------- a figure's ceiling */

/* What the two sides of a ceiling figure see: the figure's operation, and
 * the ceiling's candidates: the op's null op (null_op.h, when given) and the
 * fastest STREAM kernel over arrays of the op's footprint, each time scaled
 * to the op's bytes. Each call of the baseline times both candidates (each
 * its best pass) and keeps the faster one's time per operation in `best` (a ring indexed by
 * `calls`): the last ctx->reps calls are the measured repetitions. */
#define STREAM_RING BENCH_MAX_REPS

typedef struct stream_pair {
    bench_fn_t fn;
    void *arg;
    bench_stream_t s;
    bench_null_op_t null; /* the op's shape with no arithmetic */
    bool has_null;
    double stream_scale;      /* the figure's bytes / the kernel pass's bytes */
    double null_scale;        /* the figure's bytes / the null op's bytes */
    double best[STREAM_RING]; /* seconds per operation, faster candidate */
    bool null_won[STREAM_RING];
    size_t calls;
} stream_pair_t;

static bool stream_pair_measured(void *arg, size_t iters)
{
    stream_pair_t *pair = arg;
    return pair->fn(pair->arg, iters);
}

/* STREAM's rule inside a repetition: the best of at least
 * STREAM_PAIR_TRIALS timed passes (one untimed first: the other candidate,
 * and the op, evicted its arrays). */
#define STREAM_PAIR_TRIALS 3

static double stream_best_pass(stream_pair_t *pair, bool null, size_t iters)
{
    size_t trials = iters > STREAM_PAIR_TRIALS ? iters : STREAM_PAIR_TRIALS;
    double best = 0.0;
    for (size_t i = 0; i <= trials; i++) {
        double start = bench_now();
        if (null)
            bench_null_run(&pair->null);
        else
            bench_stream_pass(&pair->s, pair->s.kernel);
        double t = bench_now() - start;
        if (i > 0 && (best == 0.0 || t < best))
            best = t;
    }
    return best * (null ? pair->null_scale : pair->stream_scale);
}

static bool stream_pair_baseline(void *arg, size_t iters)
{
    stream_pair_t *pair = arg;
    double best = stream_best_pass(pair, false, iters);
    bool null_won = false;
    if (pair->has_null) {
        double t = stream_best_pass(pair, true, iters);
        null_won = t < best;
        best = null_won ? t : best;
    }
    pair->best[pair->calls % STREAM_RING] = best;
    pair->null_won[pair->calls % STREAM_RING] = null_won;
    pair->calls++;
    return true;
}

void bench_stream_ceiling_measure(bench_ctx_t *ctx, bench_figure_t *figure, bench_fn_t fn,
                                  void *arg, double bytes, double footprint,
                                  const bench_null_shape_t *shape, size_t count)
{
    stream_pair_t pair = {.fn = fn, .arg = arg, .has_null = shape != NULL};
    char name[64];
    if (!bench_stream_open(&pair.s, footprint) ||
        (shape != NULL && !bench_null_open(&pair.null, shape, count))) {
        bench_stream_close(&pair.s);
        bench_figure_fail(figure, "cannot allocate the ceiling's arrays");
        return;
    }
    bench_stream_pick(&pair.s, ctx->quick ? 2 : 5);
    pair.stream_scale = bytes / bench_stream_pass_bytes(&pair.s, pair.s.kernel);
    pair.null_scale = shape != NULL ? bytes / bench_null_bytes(&pair.null) : 0.0;
    if (shape != NULL)
        snprintf(name, sizeof name, "best: null op %s | STREAM %s, %zu thr", bench_null_isa(),
                 bench_stream_kernel_name(pair.s.kernel), pair.s.threads);
    else
        snprintf(name, sizeof name, "STREAM %s, %zu thr, same memory",
                 bench_stream_kernel_name(pair.s.kernel), pair.s.threads);
    bench_measure(ctx, figure, stream_pair_measured, stream_pair_baseline, &pair, name, NULL);
    if (!figure->failed && figure->has_baseline) {
        /* each repetition's ceiling: its faster candidate's time for
         * exactly the figure's bytes (the harness timed both together) */
        int null_wins = 0;
        for (int r = 0; r < figure->baseline.reps; r++) {
            size_t call = (pair.calls - (size_t)figure->baseline.reps + (size_t)r) % STREAM_RING;
            figure->baseline.samples[r] = pair.best[call];
            null_wins += pair.null_won[call];
        }
        bench_figure_finish(figure, figure->baseline.reps);
        if (shape != NULL) /* and which candidate set it how often */
            snprintf(figure->baseline_name, sizeof figure->baseline_name,
                     "best: null op %s (%d/%d), STREAM %s", bench_null_isa(), null_wins,
                     figure->baseline.reps, bench_stream_kernel_name(pair.s.kernel));
    }
    bench_stream_close(&pair.s);
    bench_null_close(&pair.null);
}
