/* philox_fill.c: the public whole-buffer Philox fill (accel_philox_fill),
 * split by element range over the host thread pool. Every element depends
 * only on (seed, offset, its index), so the split never changes the bits.
 * Threads: no state of its own; any thread. */
#include "accel/accel_backend_utils.h"

/* A fill smaller than two of these stays on the calling thread; a larger one
 * gets at most one thread per this many elements. */
#define PHILOX_ELEMENTS_PER_THREAD ((size_t)1 << 18)
/* Chunk boundaries fall on multiples of this many elements (whole 4-word
 * blocks for every kind). */
#define PHILOX_GRAIN ((size_t)1024)

typedef struct philox_fill_job {
    accel_rng_kind_t kind;
    void *dst;
    uint64_t seed, offset;
} philox_fill_job_t;

static void philox_fill_chunk(void *ctx, size_t begin, size_t end)
{
    const philox_fill_job_t *job = ctx;
    accel_philox_fill_range(job->kind, job->dst, begin, end - begin, job->seed, job->offset);
}

accel_status_t accel_philox_fill(accel_rng_kind_t kind, void *dst, size_t count, uint64_t seed,
                                 uint64_t offset)
{
    philox_fill_job_t job = {.kind = kind, .dst = dst, .seed = seed, .offset = offset};
    if (accel_rng_words_per_element(kind) == 0)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "Philox fill: unknown random fill kind %d", (int)kind);
    if (count == 0)
        return ACCEL_OK;
    if (dst == NULL)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "Philox fill: NULL destination for %zu elements", count);
    accel_thread_pool_run(count, PHILOX_GRAIN, PHILOX_ELEMENTS_PER_THREAD, philox_fill_chunk, &job);
    return ACCEL_OK;
}
