/* null_op.c: the null op of null_op.h: one kernel body, compiled three times
 * (AVX-512, AVX2, 64-bit scalar words) through GCC's vector types, picked
 * once from cpuid. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel_backend_utils.h>

#include "null_op.h"

/* Elements per block: a whole number of vectors of every width (2 bytes x
 * 128 = four AVX-512 vectors), and enough of them that the per-stream
 * dispatch costs less than the op's arithmetic. Pool chunks start on
 * multiples of the grain (64 elements: 128 bytes at the narrowest width),
 * so every block is vector-aligned. */
#define NULL_BLOCK 128

/* Zero, but the compiler cannot know it: the XOR it feeds must be done. */
static volatile uint64_t null_zero;
/* Where a read-only pass leaves its XOR, so its loads stay. */
static volatile uint64_t null_sink;

typedef struct null_job {
    const bench_null_op_t *op;
    const bench_null_pass_t *pass;
    uint64_t key;
} null_job_t;

/* One chunk of a pass: per block of NULL_BLOCK elements, each read stream
 * is XORed into `acc`, each in-place stream XORed with `key` (zero) and
 * stored back, each write-only stream stored from `acc`. The tail past the
 * last whole block runs byte by byte. */
#define NULL_KERNEL(NAME, ATTR, VEC)                                                               \
    ATTR static void NAME(const null_job_t *job, size_t begin, size_t end)                         \
    {                                                                                              \
        /* locals the stores below cannot alias: no reload per block */                            \
        const int streams = job->pass->accesses;                                                   \
        unsigned char *next[BENCH_NULL_MAX_ACCESSES];                                              \
        size_t step[BENCH_NULL_MAX_ACCESSES], vectors[BENCH_NULL_MAX_ACCESSES];                    \
        int mode[BENCH_NULL_MAX_ACCESSES];                                                         \
        for (int s = 0; s < streams; s++) {                                                        \
            unsigned width = job->op->shape.width[job->pass->access[s].buffer];                    \
            next[s] = job->op->data[job->pass->access[s].buffer] + begin * width;                  \
            step[s] = NULL_BLOCK * width;                                                          \
            vectors[s] = step[s] / sizeof(VEC);                                                    \
            mode[s] = job->pass->access[s].mode;                                                   \
        }                                                                                          \
        VEC acc, key;                                                                              \
        for (size_t k = 0; k < sizeof(VEC) / 8; k++) {                                             \
            acc[k] = 0;                                                                            \
            key[k] = job->key;                                                                     \
        }                                                                                          \
        size_t blocks_end = begin + (end - begin) / NULL_BLOCK * NULL_BLOCK;                       \
        for (size_t b = begin; b < blocks_end; b += NULL_BLOCK) {                                  \
            for (int s = 0; s < streams; s++) {                                                    \
                VEC *p = (VEC *)next[s];                                                           \
                size_t n = vectors[s];                                                             \
                next[s] += step[s];                                                                \
                if (mode[s] == BENCH_NULL_READ)                                                    \
                    for (size_t k = 0; k < n; k++)                                                 \
                        acc ^= p[k];                                                               \
                else if (mode[s] == BENCH_NULL_WRITE)                                              \
                    for (size_t k = 0; k < n; k++)                                                 \
                        p[k] = acc;                                                                \
                else                                                                               \
                    for (size_t k = 0; k < n; k++)                                                 \
                        p[k] ^= key;                                                               \
            }                                                                                      \
        }                                                                                          \
        uint64_t sum = 0;                                                                          \
        for (size_t k = 0; k < sizeof(VEC) / 8; k++)                                               \
            sum ^= acc[k];                                                                         \
        for (int s = 0; s < streams; s++) {                                                        \
            unsigned width = job->op->shape.width[job->pass->access[s].buffer];                    \
            unsigned char *p = job->op->data[job->pass->access[s].buffer];                         \
            for (size_t i = blocks_end * width; i < end * width; i++) {                            \
                if (mode[s] == BENCH_NULL_READ)                                                    \
                    sum ^= p[i];                                                                   \
                else if (mode[s] == BENCH_NULL_WRITE)                                              \
                    p[i] = (unsigned char)sum;                                                     \
                else                                                                               \
                    p[i] ^= (unsigned char)job->key;                                               \
            }                                                                                      \
        }                                                                                          \
        if (sum == 1) /* almost never: the store only keeps the loads */                           \
            null_sink = sum;                                                                       \
    }

typedef uint64_t null_word_t __attribute__((vector_size(8)));
NULL_KERNEL(null_chunk_scalar, , null_word_t)

#if defined(__x86_64__) && defined(__GNUC__)
typedef uint64_t null_v256_t __attribute__((vector_size(32)));
typedef uint64_t null_v512_t __attribute__((vector_size(64)));
NULL_KERNEL(null_chunk_avx2, __attribute__((target("avx2"))), null_v256_t)
NULL_KERNEL(null_chunk_avx512, __attribute__((target("avx512f"))), null_v512_t)
#define NULL_HAVE_X86 1
#else
#define NULL_HAVE_X86 0
#endif

typedef void (*null_chunk_fn_t)(const null_job_t *job, size_t begin, size_t end);

/* 2: AVX-512, 1: AVX2, 0: scalar. GCC's cpu model checks that the OS
 * saves the wider registers (XGETBV), not only the cpuid bits. */
static int null_isa_detect(void)
{
#if NULL_HAVE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return 2;
    if (__builtin_cpu_supports("avx2"))
        return 1;
#endif
    return 0;
}

/* Detected once; benign race: every thread computes the same value. */
static int null_isa_index(void)
{
    static volatile int cached = -1;
    if (cached < 0)
        cached = null_isa_detect();
    return cached;
}

const char *bench_null_isa(void)
{
    static const char *const names[3] = {"scalar", "avx2", "avx512"};
    return names[null_isa_index()];
}

static void null_chunk(void *ctx, size_t begin, size_t end)
{
    static const null_chunk_fn_t kernels[3] = {
        null_chunk_scalar,
#if NULL_HAVE_X86
        null_chunk_avx2,
        null_chunk_avx512,
#else
        null_chunk_scalar,
        null_chunk_scalar,
#endif
    };
    kernels[null_isa_index()](ctx, begin, end);
}

/* First touch: each thread writes the chunks the first pass streams. */
static void null_fill_chunk(void *ctx, size_t begin, size_t end)
{
    const bench_null_op_t *op = ctx;
    for (int i = 0; i < op->shape.buffers; i++)
        memset(op->data[i] + begin * op->shape.width[i], 0x11, (end - begin) * op->shape.width[i]);
}

bool bench_null_open(bench_null_op_t *op, const bench_null_shape_t *shape, size_t count)
{
    memset(op, 0, sizeof *op);
    op->shape = *shape;
    op->count = count;
    for (int i = 0; i < shape->buffers; i++) {
        void *p = NULL;
        if (posix_memalign(&p, 4096, (count ? count : 1) * shape->width[i]) != 0) {
            bench_null_close(op);
            return false;
        }
        op->data[i] = p;
    }
    const bench_null_pass_t *first = &shape->pass[0];
    accel_thread_pool_run(count, first->grain, first->min_per_thread, null_fill_chunk, op);
    return true;
}

void bench_null_close(bench_null_op_t *op)
{
    for (int i = 0; i < BENCH_NULL_MAX_BUFFERS; i++)
        free(op->data[i]);
    memset(op, 0, sizeof *op);
}

void bench_null_run(const bench_null_op_t *op)
{
    for (int p = 0; p < op->shape.passes; p++) {
        null_job_t job = {op, &op->shape.pass[p], null_zero};
        accel_thread_pool_run(op->count, job.pass->grain, job.pass->min_per_thread, null_chunk,
                              &job);
    }
}

double bench_null_bytes(const bench_null_op_t *op)
{
    double bytes = 0.0;
    for (int p = 0; p < op->shape.passes; p++)
        for (int s = 0; s < op->shape.pass[p].accesses; s++) {
            const bench_null_access_t *a = &op->shape.pass[p].access[s];
            double per = a->mode == BENCH_NULL_UPDATE ? 2.0 : 1.0;
            bytes += per * op->shape.width[a->buffer] * (double)op->count;
        }
    return bytes;
}
