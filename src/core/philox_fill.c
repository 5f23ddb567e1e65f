/* philox_fill.c: the public whole-buffer Philox fill (accel_philox_fill),
 * spread over the host thread pool. Every element depends only on (seed,
 * offset, its index), so the split never changes the bits.
 * Threads: no state of its own; any thread. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "accel/accel_backend_utils.h"
#include "core/philox.h"

/* A fill smaller than two of these stays on the calling thread; a larger one
 * gets at most one thread per this many elements. */
#define PHILOX_ELEMENTS_PER_THREAD ((size_t)1 << 18)
/* The threads claim the fill in ranges of about a sixteenth of it, between
 * these bounds (multiples of 4 words for every kind, and of 64 bytes), so
 * a thread that starts late (a worker's wake-up) or that the OS runs less
 * (a core busy with another process) does less of it, rather than holding
 * up the rest with a fixed half. */
#define PHILOX_CLAIM_MIN ((size_t)1 << 14)
#define PHILOX_CLAIM_MAX ((size_t)1 << 18)

typedef struct philox_fill_job {
    accel_rng_kind_t kind;
    void *dst;
    size_t count, claim;
    uint64_t seed, offset;
    atomic_size_t next; /* the first element no thread has claimed */
} philox_fill_job_t;

/* One pool part: claims and fills ranges until none is left. Its range of
 * participant indices is not used: the claims leave nothing undone,
 * however many parts run and whichever thread runs them. */
static void philox_fill_participant(void *ctx, size_t begin, size_t end)
{
    philox_fill_job_t *job = ctx;
    (void)begin;
    (void)end;
    for (;;) {
        size_t first = atomic_fetch_add_explicit(&job->next, job->claim, memory_order_relaxed);
        if (first >= job->count)
            return;
        size_t n = job->count - first < job->claim ? job->count - first : job->claim;
        accel_philox_fill_range(job->kind, job->dst, first, n, job->seed, job->offset);
    }
}

accel_status_t accel_philox_fill(accel_rng_kind_t kind, void *dst, size_t count, uint64_t seed,
                                 uint64_t offset)
{
    philox_fill_job_t job = {
        .kind = kind, .dst = dst, .count = count, .seed = seed, .offset = offset};
    if (accel_rng_words_per_element(kind) == 0)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "Philox fill: unknown random fill kind %d", (int)kind);
    if (count == 0)
        return ACCEL_OK;
    if (dst == NULL)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "Philox fill: NULL destination for %zu elements", count);
    atomic_init(&job.next, 0);
    job.claim = count / 16 / PHILOX_CLAIM_MIN * PHILOX_CLAIM_MIN;
    job.claim = job.claim < PHILOX_CLAIM_MIN   ? PHILOX_CLAIM_MIN
                : job.claim > PHILOX_CLAIM_MAX ? PHILOX_CLAIM_MAX
                                               : job.claim;
    if (count < 2 * PHILOX_ELEMENTS_PER_THREAD) {
        accel_philox_fill_range(kind, dst, 0, count, seed, offset);
        return ACCEL_OK;
    }
    /* At most one participant per PHILOX_ELEMENTS_PER_THREAD elements; the
     * pool caps them at its threads and gives each a range of this count
     * (ignored), and runs them all here when it is busy (a nested call). */
    accel_thread_pool_run(count / PHILOX_ELEMENTS_PER_THREAD, 1, 1, philox_fill_participant, &job);
    return ACCEL_OK;
}
