/* stream_ceiling.h: the memory ceiling of a figure that streams memory.
 * Two candidates, the faster of which, in each repetition, is the ceiling:
 * - the op's null op (null_op.h): the op's own access shape (read, write
 *   and in-place streams, element widths, buffer sizes, passes, pool grain,
 *   vector width) with no arithmetic;
 * - the machine's bandwidth measured the way STREAM does: copy (c = a) and
 *   triad (a = b + s * c) over arrays of doubles, each with ordinary and
 *   with non-temporal stores, BabelStream's in-place nstream (a += b + s * c)
 *   and an in-place update of three arrays by a fourth (a, b, c += s * d),
 *   the fastest of the six by the best of several trials, over arrays as
 *   large as the memory the figure touches, its time scaled to the figure's
 *   bytes.
 * Both run on accel's host thread pool (the threads the CPU ops use,
 * ACCEL_CPU_THREADS), timed alternately with the figure in the same run.
 *
 * Why STREAM alone was no ceiling (the AVX-512 Adam step reached 1.30x of
 * it, the fused offload phase 1.22-1.35x): its loops were built for SSE2
 * (no -m flags: 16-byte vectors over doubles), so on data the large
 * last-level cache holds they ran out of instructions before bandwidth,
 * while the op used 64-byte vectors; copy and triad with ordinary stores
 * also move a write-allocate read that STREAM's byte count leaves out,
 * which an in-place op never pays; their shape (two to four streams of
 * doubles) was not the op's (up to six streams of 2- and 4-byte elements,
 * in two passes whose second reads what the first left in cache); and one
 * kernel, picked once from two trials on a noisy machine, stood for every
 * repetition. The loops are now also built for AVX2 and AVX-512, and the
 * null op reproduces the op's shape. A figure over 1.0x of its ceiling
 * means the ceiling is wrong: fix it, never clamp. Threads: a
 * bench_stream_t belongs to the thread that opened it; its passes run on
 * the pool. */
#ifndef ACCEL_BENCH_STREAM_CEILING_H
#define ACCEL_BENCH_STREAM_CEILING_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"
#include "null_op.h"

typedef enum bench_stream_kernel {
    BENCH_STREAM_COPY = 0,
    BENCH_STREAM_COPY_NT = 1, /* non-temporal stores: no read for ownership */
    BENCH_STREAM_TRIAD = 2,
    BENCH_STREAM_TRIAD_NT = 3,
    BENCH_STREAM_NSTREAM = 4, /* in place: a += b + s * c */
    BENCH_STREAM_UPDATE = 5,  /* in place, an optimizer's shape: a, b, c += s * d */
    BENCH_STREAM_KERNELS = 6,
} bench_stream_kernel_t;

/* Arrays that together hold `footprint` bytes (at most 1 GiB: beyond every
 * cache the time is linear in the bytes): copy uses two halves, triad three
 * thirds, so a pass of either moves about `footprint` bytes. Owned;
 * bench_stream_close frees (nstream uses triad's three; update uses
 * quarters: a, b, c and the second half of c's array). */
typedef struct bench_stream {
    double *a, *b, *c;
    size_t copy_n, triad_n, update_n; /* elements per array for each kernel */
    double footprint;                 /* bytes the arrays of one kernel hold */
    bench_stream_kernel_t kernel;
    size_t threads;
} bench_stream_t;

/* Allocate and first-touch (on the pool) arrays holding `footprint` bytes;
 * false when memory runs out. */
bool bench_stream_open(bench_stream_t *s, double footprint);
void bench_stream_close(bench_stream_t *s);

/* One pass of `kernel`. */
void bench_stream_pass(const bench_stream_t *s, bench_stream_kernel_t kernel);

/* The bytes one pass of `kernel` moves, as STREAM counts them (reads and
 * writes of its arrays). */
double bench_stream_pass_bytes(const bench_stream_t *s, bench_stream_kernel_t kernel);

/* Time `trials` passes of every kernel, keep each one's best, set
 * s->kernel to the fastest and return its GB/s. */
double bench_stream_pick(bench_stream_t *s, int trials);

/* "copy", "copy NT", "triad", "triad NT", "nstream", "update". */
const char *bench_stream_kernel_name(bench_stream_kernel_t kernel);

/* Measure `fn` (one operation moves `bytes` and touches `footprint` bytes
 * of memory) into `figure` against its STREAM ceiling, alternating as
 * bench_measure does: the figure's ratio is then the fraction of the
 * ceiling it reaches (its GB/s / the ceiling's). The baseline's name says
 * which kernel and how many threads. `shape` (NULL: none) is the op's
 * access shape over `count` elements: its null op (null_op.h) is a
 * candidate too, and the fastest candidate, by the best of several trials,
 * is timed against the op. */
void bench_stream_ceiling_measure(bench_ctx_t *ctx, bench_figure_t *figure, bench_fn_t fn,
                                  void *arg, double bytes, double footprint,
                                  const bench_null_shape_t *shape, size_t count);

#endif /* ACCEL_BENCH_STREAM_CEILING_H */
