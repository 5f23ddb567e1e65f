/* rng.c: random fills on the CPU device, through core's Philox reference
 * (core/philox.h), so the CPU is the bit-exact oracle for other backends.
 * A fill is a stream work item; a large one is split by element range over
 * a few short-lived helper threads. Every element depends only on (seed,
 * offset, its index), so the split never changes the bits.
 * Threads: no shared state; the helpers are joined before a fill returns. */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "backends/cpu/rng.h"
#include "backends/cpu/work.h"
#include "core/philox.h"

/* Fills up to this many elements stay on one thread: below it, starting
 * threads costs more than it saves. */
#define RNG_SPLIT_MIN_ELEMENTS ((size_t)1 << 20)
/* Smallest share of a fill given to one thread, and the most threads used. */
#define RNG_ELEMENTS_PER_THREAD ((size_t)1 << 18)
#define RNG_MAX_THREADS         16

typedef struct rng_part {
    accel_rng_kind_t kind;
    void *ptr;
    size_t first, count;
    uint64_t seed, offset;
    pthread_t thread;
    bool started;
} rng_part_t;

static void *rng_part_main(void *arg)
{
    rng_part_t *part = arg;
    accel_philox_fill_range(part->kind, part->ptr, part->first, part->count, part->seed,
                            part->offset);
    return NULL;
}

static size_t rng_thread_count(size_t count)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = count / RNG_ELEMENTS_PER_THREAD;
    if (cpus < 1)
        cpus = 1;
    if (threads > (size_t)cpus)
        threads = (size_t)cpus;
    if (threads > RNG_MAX_THREADS)
        threads = RNG_MAX_THREADS;
    return threads < 1 ? 1 : threads;
}

/* Part 0 runs on the calling thread; a helper that cannot be started has its
 * part run there too, so the fill always completes. */
void accel_cpu_rng_run(accel_rng_kind_t kind, void *ptr, size_t count, uint64_t seed,
                       uint64_t offset)
{
    rng_part_t parts[RNG_MAX_THREADS];
    size_t threads = count > RNG_SPLIT_MIN_ELEMENTS ? rng_thread_count(count) : 1;
    size_t share = count / threads;
    sigset_t all, saved;

    for (size_t i = 0; i < threads; i++) {
        parts[i] = (rng_part_t){.kind = kind, .ptr = ptr, .seed = seed, .offset = offset};
        parts[i].first = i * share;
        parts[i].count = i + 1 == threads ? count - i * share : share;
    }
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    for (size_t i = 1; i < threads; i++)
        parts[i].started = pthread_create(&parts[i].thread, NULL, rng_part_main, &parts[i]) == 0;
    pthread_sigmask(SIG_SETMASK, &saved, NULL);

    rng_part_main(&parts[0]);
    for (size_t i = 1; i < threads; i++) {
        if (parts[i].started)
            pthread_join(parts[i].thread, NULL);
        else
            rng_part_main(&parts[i]);
    }
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
