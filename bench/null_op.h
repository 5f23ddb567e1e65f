/* null_op.h: a "null op" for a ceiling figure: the same memory access shape
 * as the op it bounds (the same read, write and in-place streams, element
 * widths, buffer sizes, page alignment, passes and thread-pool grain), but
 * with no arithmetic beyond an XOR the compiler cannot drop. Its kernels are
 * compiled for AVX-512 and AVX2 with target attributes and picked at run
 * time from cpuid (the OS saving the registers included), so the ceiling
 * uses vectors as wide as the op's. Why the op needs it (stream_ceiling.h):
 * a STREAM loop over doubles has a different shape from the op, and the op
 * could beat it. Threads: a bench_null_op_t belongs to the thread that
 * opened it; its passes run on accel's host thread pool. */
#ifndef ACCEL_BENCH_NULL_OP_H
#define ACCEL_BENCH_NULL_OP_H

#include <stdbool.h>
#include <stddef.h>

#define BENCH_NULL_MAX_BUFFERS  6
#define BENCH_NULL_MAX_ACCESSES 6
#define BENCH_NULL_MAX_PASSES   4

typedef enum bench_null_mode {
    BENCH_NULL_READ = 1,
    BENCH_NULL_WRITE = 2,  /* written without being read */
    BENCH_NULL_UPDATE = 3, /* read and written in place */
} bench_null_mode_t;

typedef struct bench_null_access {
    int buffer;
    bench_null_mode_t mode;
} bench_null_access_t;

/* One pass over [0, count) elements, run with accel_thread_pool_run(count,
 * grain, min_per_thread) as the op runs its pass. */
typedef struct bench_null_pass {
    bench_null_access_t access[BENCH_NULL_MAX_ACCESSES];
    int accesses;
    size_t grain, min_per_thread;
} bench_null_pass_t;

/* Buffers of `width[i]` bytes per element, then the passes over them. */
typedef struct bench_null_shape {
    unsigned width[BENCH_NULL_MAX_BUFFERS]; /* 1, 2, 4 or 8 */
    int buffers;
    bench_null_pass_t pass[BENCH_NULL_MAX_PASSES];
    int passes;
} bench_null_shape_t;

/* The buffers (owned: bench_null_close frees them), page-aligned and first
 * touched on the pool as the op's are. */
typedef struct bench_null_op {
    bench_null_shape_t shape;
    size_t count;
    unsigned char *data[BENCH_NULL_MAX_BUFFERS];
} bench_null_op_t;

/* False when memory runs out. */
bool bench_null_open(bench_null_op_t *op, const bench_null_shape_t *shape, size_t count);
void bench_null_close(bench_null_op_t *op);
/* Every pass once. */
void bench_null_run(const bench_null_op_t *op);
/* The bytes every pass reads and writes, as the op's figure counts them. */
double bench_null_bytes(const bench_null_op_t *op);
/* "avx512", "avx2" or "scalar": the kernel this CPU runs. */
const char *bench_null_isa(void);

#endif /* ACCEL_BENCH_NULL_OP_H */
