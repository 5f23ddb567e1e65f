/* suite_memory.c: the dispatch, alloc and copy suites (rng: suite_rng.c). Accel is called
 * through the public API; the raw baselines (libc memset, malloc, memcpy)
 * are what the cpu backend itself calls, so they are shown only for cpu
 * (other backends print "n/a (no raw baseline for NAME)" until their raw
 * calls are reachable). Buffers are touched before timing so page faults do
 * not land in either side of a figure. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Called through a volatile pointer so the compiler keeps every call. */
static void *(*volatile bench_libc_memset)(void *, int, size_t) = memset;
static void *(*volatile bench_libc_memcpy)(void *, const void *, size_t) = memcpy;

/* ---------------------------------------------------------------- dispatch */

typedef struct dispatch_arg {
    accel_t *acc;
    void *device;
    unsigned char host[64];
} dispatch_arg_t;

static bool dispatch_accel_memset(void *arg, size_t iters)
{
    dispatch_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        if (accel_memset(a->acc, a->device, (int)(i & 0x7f), 1) != ACCEL_OK)
            return false;
    return true;
}

static bool dispatch_libc_memset(void *arg, size_t iters)
{
    dispatch_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        bench_libc_memset(a->host, (int)(i & 0x7f), 1);
    return true;
}

static bool dispatch_current_device(void *arg, size_t iters)
{
    dispatch_arg_t *a = arg;
    int device;
    for (size_t i = 0; i < iters; i++)
        if (accel_current_device(a->acc, &device) != ACCEL_OK)
            return false;
    return true;
}

static bool dispatch_query_flag(void *arg, size_t iters)
{
    dispatch_arg_t *a = arg;
    bool value;
    for (size_t i = 0; i < iters; i++)
        if (accel_query_flag(a->acc, ACCEL_FLAG_SYNCHRONIZED_DEVICE, &value) != ACCEL_OK)
            return false;
    return true;
}

void bench_suite_dispatch(bench_ctx_t *ctx)
{
    dispatch_arg_t arg = {.acc = ctx->acc};
    char na[96];
    bench_figure_t *f =
        bench_figure_add(ctx, "dispatch", "memset 1 B, default stream", BENCH_TIME, "ns", 1e9, 0);
    if (f == NULL)
        return;
    if (accel_malloc(ctx->acc, 64, &arg.device) != ACCEL_OK) {
        bench_figure_fail(f, NULL);
        return;
    }
    bench_measure(ctx, f, dispatch_accel_memset, ctx->is_cpu ? dispatch_libc_memset : NULL, &arg,
                  "libc memset 1 B", bench_no_raw_baseline(ctx, na, sizeof na));
    if (!f->failed && f->has_baseline)
        snprintf(f->note, sizeof f->note, "+%.0f ns per call for checks + dispatch",
                 (f->measured.median - f->baseline.median) * 1e9);

    f = bench_figure_add(ctx, "dispatch", "current_device", BENCH_TIME, "ns", 1e9, 0);
    if (f)
        bench_measure(ctx, f, dispatch_current_device, NULL, &arg, NULL, "none (latency only)");
    f = bench_figure_add(ctx, "dispatch", "query_flag", BENCH_TIME, "ns", 1e9, 0);
    if (f)
        bench_measure(ctx, f, dispatch_query_flag, NULL, &arg, NULL, "none (latency only)");
    accel_free(ctx->acc, arg.device);
}

/* ---------------------------------------------------------------- alloc */

#define ALLOC_MIX  256
#define ALLOC_LIVE 8

/* A realistic mix: mostly small blocks, some of a few MiB, a few large ones,
 * freed in FIFO order with ALLOC_LIVE blocks alive at a time. */
typedef struct alloc_arg {
    accel_t *acc;
    size_t sizes[ALLOC_MIX];
    int threads;
    bench_fn_t loop; /* what each thread runs */
} alloc_arg_t;

static void alloc_make_mix(alloc_arg_t *a, bool quick)
{
    uint32_t x = 12345;
    for (int i = 0; i < ALLOC_MIX; i++) {
        x = x * 1664525u + 1013904223u;
        uint32_t r = x >> 8;
        if (i % 32 == 31)
            a->sizes[i] = (quick ? 8u : 32u) << 20 | (r & 0xfff); /* large */
        else if (i % 8 == 7)
            a->sizes[i] = (1u << 20) + (r % (3u << 20)); /* 1..4 MiB */
        else
            a->sizes[i] = 16 + r % 16384; /* small */
    }
}

static bool alloc_accel_loop(void *arg, size_t iters)
{
    alloc_arg_t *a = arg;
    void *live[ALLOC_LIVE] = {0};
    bool ok = true;
    for (size_t i = 0; i < iters && ok; i++) {
        size_t slot = i % ALLOC_LIVE;
        ok = accel_free(a->acc, live[slot]) == ACCEL_OK &&
             accel_malloc(a->acc, a->sizes[i % ALLOC_MIX], &live[slot]) == ACCEL_OK;
    }
    for (size_t s = 0; s < ALLOC_LIVE; s++)
        ok = accel_free(a->acc, live[s]) == ACCEL_OK && ok;
    return ok;
}

static bool alloc_malloc_loop(void *arg, size_t iters)
{
    alloc_arg_t *a = arg;
    void *live[ALLOC_LIVE] = {0};
    for (size_t i = 0; i < iters; i++) {
        size_t slot = i % ALLOC_LIVE;
        free(live[slot]);
        live[slot] = malloc(a->sizes[i % ALLOC_MIX]);
        if (live[slot] == NULL)
            return false;
    }
    for (size_t s = 0; s < ALLOC_LIVE; s++)
        free(live[s]);
    return true;
}

static bool alloc_memalign_loop(void *arg, size_t iters)
{
    alloc_arg_t *a = arg;
    void *live[ALLOC_LIVE] = {0};
    for (size_t i = 0; i < iters; i++) {
        size_t slot = i % ALLOC_LIVE;
        free(live[slot]);
        live[slot] = NULL;
        if (posix_memalign(&live[slot], 256, a->sizes[i % ALLOC_MIX]) != 0)
            return false;
    }
    for (size_t s = 0; s < ALLOC_LIVE; s++)
        free(live[s]);
    return true;
}

typedef struct alloc_thread {
    alloc_arg_t *arg;
    bench_fn_t loop;
    size_t iters;
    bool ok;
} alloc_thread_t;

static void *alloc_thread_main(void *p)
{
    alloc_thread_t *t = p;
    t->ok = t->loop(t->arg, t->iters);
    return NULL;
}

/* Two threads each doing iters/2 operations: time per operation overall. */
static bool alloc_two_threads(alloc_arg_t *a, bench_fn_t loop, size_t iters)
{
    alloc_thread_t t[2] = {{a, loop, iters / 2 + 1, false}, {a, loop, iters / 2 + 1, false}};
    pthread_t thread;
    if (pthread_create(&thread, NULL, alloc_thread_main, &t[1]) != 0)
        return false;
    alloc_thread_main(&t[0]);
    pthread_join(thread, NULL);
    return t[0].ok && t[1].ok;
}

static bool alloc_accel_2t(void *arg, size_t iters)
{
    return alloc_two_threads(arg, alloc_accel_loop, iters);
}

static bool alloc_malloc_2t(void *arg, size_t iters)
{
    return alloc_two_threads(arg, alloc_malloc_loop, iters);
}

void bench_suite_alloc(bench_ctx_t *ctx)
{
    static alloc_arg_t arg; /* large; one suite runs at a time */
    char na[96];
    arg.acc = ctx->acc;
    alloc_make_mix(&arg, ctx->quick);
    bool raw = ctx->is_cpu;
    bench_no_raw_baseline(ctx, na, sizeof na);

    bench_figure_t *f =
        bench_figure_add(ctx, "alloc", "malloc+free mix, 1 thread", BENCH_TIME, "ns", 1e9, 0);
    if (f) {
        bench_measure(ctx, f, alloc_accel_loop, raw ? alloc_malloc_loop : NULL, &arg,
                      "libc malloc/free", na);
        if (!f->failed)
            snprintf(f->note, sizeof f->note, "7/8 <16 KiB, 1/8 1-4 MiB, 1/32 %d MiB; 8 live",
                     ctx->quick ? 8 : 32);
        f->has_goal = raw;
        f->goal = 1.0;
    }
    f = bench_figure_add(ctx, "alloc", "malloc+free mix vs memalign", BENCH_TIME, "ns", 1e9, 0);
    if (f) {
        bench_measure(ctx, f, alloc_accel_loop, raw ? alloc_memalign_loop : NULL, &arg,
                      "posix_memalign(256)/free", na);
        f->has_goal = raw;
        f->goal = 1.0;
    }
    f = bench_figure_add(ctx, "alloc", "malloc+free mix, 2 threads", BENCH_TIME, "ns", 1e9, 0);
    if (f) {
        bench_measure(ctx, f, alloc_accel_2t, raw ? alloc_malloc_2t : NULL, &arg,
                      "malloc/free, 2 threads", na);
        if (!f->failed)
            snprintf(f->note, sizeof f->note, "wall time / operations of both threads");
        f->has_goal = raw;
        f->goal = 1.0;
    }
    accel_empty_cache(ctx->acc);
}

/* ---------------------------------------------------------------- copy */

typedef struct copy_arg {
    accel_t *acc;
    void *dst, *src;
    size_t size;
    accel_copy_kind_t kind;
} copy_arg_t;

static bool copy_accel(void *arg, size_t iters)
{
    copy_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        if (accel_memcpy(a->acc, a->dst, a->src, a->size, a->kind) != ACCEL_OK)
            return false;
    return true;
}

static bool copy_libc(void *arg, size_t iters)
{
    copy_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        bench_libc_memcpy(a->dst, a->src, a->size);
    return true;
}

static void copy_figure(bench_ctx_t *ctx, const char *name, void *dst, void *src, size_t size,
                        accel_copy_kind_t kind, double goal)
{
    char na[96];
    copy_arg_t arg = {ctx->acc, dst, src, size, kind};
    bench_figure_t *f = bench_figure_add(ctx, "copy", name, BENCH_RATE, "GB/s", 1, (double)size);
    if (f == NULL)
        return;
    bench_measure(ctx, f, copy_accel, ctx->is_cpu ? copy_libc : NULL, &arg, "libc memcpy",
                  bench_no_raw_baseline(ctx, na, sizeof na));
    f->has_goal = ctx->is_cpu;
    f->goal = goal;
    if (!f->failed)
        snprintf(f->note, sizeof f->note, "%zu MiB, accel_memcpy (synchronous)", size >> 20);
}

void bench_suite_copy(bench_ctx_t *ctx)
{
    size_t size = ctx->quick ? (8u << 20) : (64u << 20);
    void *dev_a = NULL, *dev_b = NULL, *pinned = NULL;
    unsigned char *pageable = malloc(size);
    bench_figure_t *f;
    if (pageable == NULL || accel_malloc(ctx->acc, size, &dev_a) != ACCEL_OK ||
        accel_malloc(ctx->acc, size, &dev_b) != ACCEL_OK) {
        if ((f = bench_figure_add(ctx, "copy", "buffers", BENCH_RATE, "GB/s", 1, 0)))
            bench_figure_fail(f, pageable ? NULL : "out of host memory");
        goto out;
    }
    memset(pageable, 1, size);
    bool have_pinned = accel_host_alloc(ctx->acc, size, &pinned) == ACCEL_OK;
    if (have_pinned)
        memset(pinned, 2, size);
    accel_memset(ctx->acc, dev_a, 3, size);
    accel_memset(ctx->acc, dev_b, 4, size);
    if (have_pinned) {
        copy_figure(ctx, "H2D pinned", dev_a, pinned, size, ACCEL_COPY_HOST_TO_DEVICE, 0.9);
        copy_figure(ctx, "D2H pinned", pinned, dev_a, size, ACCEL_COPY_DEVICE_TO_HOST, 0.9);
    } else if ((f = bench_figure_add(ctx, "copy", "H2D/D2H pinned", BENCH_RATE, "GB/s", 1, 0))) {
        snprintf(f->baseline_note, sizeof f->baseline_note, "n/a (no pinned memory on %s)",
                 ctx->backend);
        f->failed = true;
        snprintf(f->note, sizeof f->note, "skipped: %s", accel_last_error());
    }
    copy_figure(ctx, "H2D pageable", dev_a, pageable, size, ACCEL_COPY_HOST_TO_DEVICE, 0.9);
    copy_figure(ctx, "D2H pageable", pageable, dev_a, size, ACCEL_COPY_DEVICE_TO_HOST, 0.9);
    copy_figure(ctx, "D2D", dev_b, dev_a, size, ACCEL_COPY_DEVICE_TO_DEVICE, 0.9);
out:
    if (pinned)
        accel_host_free(ctx->acc, pinned);
    accel_free(ctx->acc, dev_a);
    accel_free(ctx->acc, dev_b);
    accel_empty_cache(ctx->acc);
    free(pageable);
}
