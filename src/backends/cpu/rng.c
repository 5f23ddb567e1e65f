/* rng.c: random fills on the CPU device, through core's Philox reference
 * (accel_philox_fill), so the CPU is the bit-exact oracle for other backends.
 * A fill is a stream work item; a large one is split by element range over
 * the host thread pool (ACCEL_CPU_THREADS). Every element depends only on
 * (seed, offset, its index), so the split never changes the bits.
 * Threads: no shared state; the pool's run returns when every chunk is done. */
#include "accel/accel_backend_utils.h"
#include "backends/cpu/rng.h"
#include "backends/cpu/work.h"

/* Runs on the stream's worker; the kind was checked at submit. */
void accel_cpu_rng_run(accel_rng_kind_t kind, void *ptr, size_t count, uint64_t seed,
                       uint64_t offset)
{
    (void)accel_philox_fill(kind, ptr, count, seed, offset);
}

accel_status_t accel_cpu_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                  void *ptr, size_t count, uint64_t seed, uint64_t offset)
{
    accel_cpu_work_t work = {.kind = ACCEL_CPU_WORK_RNG};
    if (accel_rng_words_per_element(kind) == 0)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT, "cpu: unknown random fill kind %d",
                                   (int)kind);
    if (count == 0)
        return ACCEL_OK;
    work.u.rng.kind = kind;
    work.u.rng.ptr = ptr;
    work.u.rng.count = count;
    work.u.rng.seed = seed;
    work.u.rng.offset = offset;
    return accel_cpu_stream_submit(stream, &work, 1);
}
