/* pool.c: the CPU worker pool behind the host ops (pool.h). Workers are
 * started once and sleep on a condition variable between runs; a run hands
 * each of them one contiguous chunk and the caller takes chunk 0.
 * Locking: run_lock serialises runs (try-locked: a busy pool means the caller
 * works alone); `lock` guards the job fields, the generation and `pending`. */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/env.h"
#include "ops/cpu/pool.h"

#define POOL_MAX_THREADS 256

typedef struct pool_job {
    accel_pool_fn_t fn;
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
    uint64_t generation;
    pool_job_t job;
    size_t pending; /* workers still running this generation's chunks */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER, false, 1, 0, {0}, 0};

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void job_run_part(const pool_job_t *job, size_t part)
{
    size_t begin = part * job->chunk;
    size_t end = begin + job->chunk < job->count ? begin + job->chunk : job->count;
    if (begin < end)
        job->fn(job->ctx, begin, end);
}

static void *pool_worker(void *arg)
{
    size_t index = (size_t)(uintptr_t)arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (pool.generation == seen)
            pthread_cond_wait(&pool.work_ready, &pool.lock);
        seen = pool.generation;
        if (index >= pool.job.parts)
            continue;
        pool_job_t job = pool.job;
        pthread_mutex_unlock(&pool.lock);
        job_run_part(&job, index);
        pthread_mutex_lock(&pool.lock);
        if (--pool.pending == 0)
            pthread_cond_signal(&pool.work_done);
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
    long requested = 0;
    const char *text = accel_env_get("ACCEL_CPU_THREADS");
    if (text != NULL) {
        if (accel_env_parse_int(text, &requested) && requested >= 1)
            return requested > POOL_MAX_THREADS ? POOL_MAX_THREADS : (size_t)requested;
        accel_log(ACCEL_LOG_WARN, "ACCEL_CPU_THREADS=%s is not a positive integer; ignored", text);
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set) > POOL_MAX_THREADS ? POOL_MAX_THREADS : (size_t)CPU_COUNT(&set);
    return 1;
}

/* Called with run_lock held. A worker that cannot start leaves the pool
 * smaller; the work is still done. */
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
        if (pthread_create(&thread, &attr, pool_worker, (void *)(uintptr_t)i) != 0) {
            accel_log(ACCEL_LOG_WARN, "CPU worker pool: started %zu of %zu threads", i, wanted);
            break;
        }
        pthread_mutex_lock(&pool.lock);
        pool.threads = i + 1;
        pthread_mutex_unlock(&pool.lock);
    }
    pthread_attr_destroy(&attr);
}

size_t accel_pool_threads(void)
{
    size_t threads;
    pthread_mutex_lock(&pool.run_lock);
    if (!pool.started)
        pool_start();
    threads = pool.threads;
    pthread_mutex_unlock(&pool.run_lock);
    return threads;
}

void accel_pool_run(size_t count, size_t grain, size_t min_per_thread, accel_pool_fn_t fn,
                    void *ctx)
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
        pool.pending = job.parts - 1;
        pool.generation++;
        pthread_cond_broadcast(&pool.work_ready);
        pthread_mutex_unlock(&pool.lock);
    }
    job_run_part(&job, 0);
    if (job.parts > 1) {
        pthread_mutex_lock(&pool.lock);
        while (pool.pending > 0)
            pthread_cond_wait(&pool.work_done, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
    }
    pthread_mutex_unlock(&pool.run_lock);
}
