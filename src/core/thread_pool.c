/* thread_pool.c: the host thread pool of accel/accel_backend_utils.h, used
 * by the CPU optimizer ops, the Philox fill and any backend. Workers are
 * started once (signals blocked); a run hands each of them one contiguous
 * chunk, the caller takes chunk 0. Between runs a worker first watches the
 * generation for a short while (POOL_SPIN_NS, so back-to-back runs, such as
 * an optimizer step's tensors, do not pay a futex wake-up each), then sleeps
 * on a condition variable; the caller waits for the last chunk the same way.
 * Locking: run_lock serialises runs (try-locked: a busy pool means the caller
 * works alone); `lock` guards the job fields and every change of the
 * generation and `pending`, which are atomic only so that spinners may read
 * them without it. */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "accel/accel_backend_utils.h"

#define POOL_MAX_THREADS 256
/* How long a worker watches for the next run, and the caller for the last
 * chunk, before sleeping: long enough to bridge the gap between the runs of
 * one optimizer step or one fill, short enough not to hold a core idle. */
#define POOL_SPIN_NS 50000

typedef struct pool_job {
    accel_thread_pool_fn_t fn;
    void *ctx;
    size_t count;
    size_t chunk;
    size_t parts;
} pool_job_t;

static struct {
    pthread_mutex_t run_lock;
    pthread_mutex_t lock;
    pthread_cond_t work_ready;
    pthread_cond_t work_done;
    bool started;
    size_t threads; /* workers + the caller */
    _Atomic uint64_t generation;
    pool_job_t job;
    _Atomic size_t pending; /* workers still running this generation's chunks */
} pool = {PTHREAD_MUTEX_INITIALIZER,
          PTHREAD_MUTEX_INITIALIZER,
          PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER,
          false,
          1,
          0,
          {0},
          0};

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void job_run_part(const pool_job_t *job, size_t part)
{
    size_t begin = part * job->chunk;
    size_t end = begin + job->chunk < job->count ? begin + job->chunk : job->count;
    if (begin < end)
        job->fn(job->ctx, begin, end);
}

static uint64_t pool_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static inline void pool_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spin up to POOL_SPIN_NS until `done(arg)`; whether it became true. */
static bool pool_spin_until(bool (*done)(uint64_t), uint64_t arg)
{
    uint64_t start = 0;
    for (unsigned spins = 0;; spins++) {
        if (done(arg))
            return true;
        pool_cpu_relax();
        if ((spins & 255) != 255)
            continue;
        if (start == 0)
            start = pool_now_ns();
        else if (pool_now_ns() - start > POOL_SPIN_NS)
            return false;
    }
}

static bool pool_generation_moved(uint64_t seen)
{
    return atomic_load_explicit(&pool.generation, memory_order_acquire) != seen;
}

static bool pool_chunks_done(uint64_t unused)
{
    (void)unused;
    return atomic_load_explicit(&pool.pending, memory_order_acquire) == 0;
}

static void *pool_worker(void *arg)
{
    size_t index = (size_t)(uintptr_t)arg;
    uint64_t seen = 0;
    for (;;) {
        pool_spin_until(pool_generation_moved, seen);
        pthread_mutex_lock(&pool.lock);
        while (atomic_load_explicit(&pool.generation, memory_order_relaxed) == seen)
            pthread_cond_wait(&pool.work_ready, &pool.lock);
        seen = atomic_load_explicit(&pool.generation, memory_order_relaxed);
        if (index >= pool.job.parts) {
            pthread_mutex_unlock(&pool.lock);
            continue;
        }
        pool_job_t job = pool.job;
        pthread_mutex_unlock(&pool.lock);
        job_run_part(&job, index);
        pthread_mutex_lock(&pool.lock);
        if (atomic_fetch_sub_explicit(&pool.pending, 1, memory_order_release) == 1)
            pthread_cond_signal(&pool.work_done);
        pthread_mutex_unlock(&pool.lock);
    }
    return NULL;
}

/* After fork() only the forking thread exists: forget the parent's workers. */
static void pool_after_fork_child(void)
{
    pthread_mutex_init(&pool.run_lock, NULL);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.work_ready, NULL);
    pthread_cond_init(&pool.work_done, NULL);
    pool.started = false;
    pool.threads = 1;
    pool.generation = 0;
    pool.pending = 0;
}

static void pool_register_atfork(void)
{
    pthread_atfork(NULL, NULL, pool_after_fork_child);
}

static size_t pool_wanted_threads(void)
{
    long cpus = 1, requested;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        cpus = CPU_COUNT(&set);
    /* More than the cap is honoured as the cap, not refused. */
    requested = accel_env_get_int("ACCEL_CPU_THREADS", 1, LONG_MAX, cpus);
    return requested > POOL_MAX_THREADS ? POOL_MAX_THREADS : (size_t)requested;
}

/* Called with run_lock held. A worker that cannot start leaves the pool
 * smaller; the work is still done. Workers inherit a full signal mask, so a
 * process signal is never delivered to one of them. */
static void pool_start(void)
{
    size_t wanted = pool_wanted_threads();
    pthread_attr_t attr;
    pthread_once(&atfork_once, pool_register_atfork);
    pool.started = true;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (size_t i = 1; i < wanted; i++) {
        pthread_t thread;
        if (accel_thread_start(&thread, &attr, pool_worker, (void *)(uintptr_t)i) != 0) {
            accel_log(ACCEL_LOG_WARN, "CPU worker pool: started %zu of %zu threads", i, wanted);
            break;
        }
        pthread_mutex_lock(&pool.lock);
        pool.threads = i + 1;
        pthread_mutex_unlock(&pool.lock);
    }
    pthread_attr_destroy(&attr);
}

size_t accel_thread_pool_threads(void)
{
    size_t threads;
    pthread_mutex_lock(&pool.run_lock);
    if (!pool.started)
        pool_start();
    threads = pool.threads;
    pthread_mutex_unlock(&pool.run_lock);
    return threads;
}

void accel_thread_pool_run(size_t count, size_t grain, size_t min_per_thread,
                           accel_thread_pool_fn_t fn, void *ctx)
{
    pool_job_t job = {fn, ctx, count, count, 1};
    if (count == 0)
        return;
    if (grain == 0)
        grain = 1;
    if (min_per_thread == 0)
        min_per_thread = 1;
    if (count < 2 * min_per_thread || pthread_mutex_trylock(&pool.run_lock) != 0) {
        fn(ctx, 0, count);
        return;
    }
    if (!pool.started)
        pool_start();
    job.parts = count / min_per_thread < pool.threads ? count / min_per_thread : pool.threads;
    job.chunk = (count + job.parts - 1) / job.parts;
    job.chunk = (job.chunk + grain - 1) / grain * grain;
    job.parts = (count + job.chunk - 1) / job.chunk;
    if (job.parts > 1) {
        pthread_mutex_lock(&pool.lock);
        pool.job = job;
        atomic_store_explicit(&pool.pending, job.parts - 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
        pthread_cond_broadcast(&pool.work_ready);
        pthread_mutex_unlock(&pool.lock);
    }
    job_run_part(&job, 0);
    if (job.parts > 1 && !pool_spin_until(pool_chunks_done, 0)) {
        pthread_mutex_lock(&pool.lock);
        while (atomic_load_explicit(&pool.pending, memory_order_relaxed) > 0)
            pthread_cond_wait(&pool.work_done, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
    }
    pthread_mutex_unlock(&pool.run_lock);
}
