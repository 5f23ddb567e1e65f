/* test_utils_thread_pool.c: the host thread pool (accel_backend_utils.h)
 * through the shared library: every element visited exactly once in
 * grain-aligned chunks, ACCEL_CPU_THREADS honoured and the work really
 * split, nested and concurrent runs (each runs alone when the pool is busy),
 * and a fresh pool in a forked child. Runs under TSan in scripts/test.sh
 * (less the fork test, which TSan itself does not support). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "accel/accel_backend_utils.h"

/* TSan refuses to start threads in the child of a threaded fork. */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

#define POOL_THREADS 4
#define MAX_COUNT    100003
#define MAX_CHUNKS   64

typedef struct visit {
    atomic_int hits[MAX_COUNT];
    size_t grain;
    atomic_int bad_chunks; /* chunks not starting on a grain boundary */
    atomic_size_t chunks;
    pthread_t threads[MAX_CHUNKS];
} visit_t;

static void visit_chunk(void *ctx, size_t begin, size_t end)
{
    visit_t *visit = ctx;
    size_t chunk = atomic_fetch_add(&visit->chunks, 1);
    if (begin % visit->grain != 0)
        atomic_fetch_add(&visit->bad_chunks, 1);
    if (chunk < MAX_CHUNKS)
        visit->threads[chunk] = pthread_self();
    for (size_t i = begin; i < end; i++)
        atomic_fetch_add(&visit->hits[i], 1);
}

/* Run over [0, count) and check every element was visited once. */
static bool visit_run(visit_t *visit, size_t count, size_t grain, size_t min_per_thread)
{
    memset(visit, 0, sizeof *visit);
    visit->grain = grain == 0 ? 1 : grain;
    accel_thread_pool_run(count, grain, min_per_thread, visit_chunk, visit);
    for (size_t i = 0; i < count; i++) {
        if (atomic_load(&visit->hits[i]) != 1)
            return false;
    }
    return atomic_load(&visit->bad_chunks) == 0;
}

static size_t distinct_threads(const visit_t *visit)
{
    size_t chunks = atomic_load(&visit->chunks), distinct = 0;
    for (size_t i = 0; i < chunks && i < MAX_CHUNKS; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = pthread_equal(visit->threads[i], visit->threads[j]);
        distinct += !seen;
    }
    return distinct;
}

static void test_every_element_once(void **state)
{
    static visit_t visit;
    static const size_t counts[] = {0, 1, 7, 1000, 4096, MAX_COUNT};
    static const size_t grains[] = {0, 1, 64, 1000};
    static const size_t mins[] = {0, 1, 100, 5000};
    (void)state;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++)
            for (size_t m = 0; m < sizeof mins / sizeof mins[0]; m++)
                assert_true(visit_run(&visit, counts[c], grains[g], mins[m]));
}

static void test_threads_from_env_and_split(void **state)
{
    static visit_t visit;
    (void)state;
    assert_int_equal(accel_thread_pool_threads(), POOL_THREADS);
    /* Four threads' worth of work is split four ways, one chunk per thread. */
    assert_true(visit_run(&visit, 4 * 1000, 10, 1000));
    assert_int_equal(atomic_load(&visit.chunks), POOL_THREADS);
    assert_int_equal(distinct_threads(&visit), POOL_THREADS);
    /* Less than two threads' worth stays on the caller. */
    assert_true(visit_run(&visit, 1999, 1, 1000));
    assert_int_equal(atomic_load(&visit.chunks), 1);
    assert_true(pthread_equal(visit.threads[0], pthread_self()));
}

typedef struct nested {
    atomic_int outer_hits[1000];
    atomic_int inner_total;
} nested_t;

static void nested_inner(void *ctx, size_t begin, size_t end)
{
    nested_t *nested = ctx;
    atomic_fetch_add(&nested->inner_total, (int)(end - begin));
}

static void nested_outer(void *ctx, size_t begin, size_t end)
{
    nested_t *nested = ctx;
    for (size_t i = begin; i < end; i++)
        atomic_fetch_add(&nested->outer_hits[i], 1);
    /* The pool is busy with this run: the inner one runs alone, here. */
    accel_thread_pool_run(500, 1, 1, nested_inner, nested);
}

static void test_nested_run_does_not_deadlock(void **state)
{
    static nested_t nested;
    (void)state;
    accel_thread_pool_run(1000, 1, 250, nested_outer, &nested);
    for (size_t i = 0; i < 1000; i++)
        assert_int_equal(atomic_load(&nested.outer_hits[i]), 1);
    assert_int_equal(atomic_load(&nested.inner_total), 500 * POOL_THREADS);
}

#define CALLERS         4
#define RUNS_PER_CALLER 25

static visit_t caller_visits[CALLERS];

static void *caller_main(void *arg)
{
    visit_t *visit = arg;
    for (int run = 0; run < RUNS_PER_CALLER; run++) {
        if (!visit_run(visit, 20000, 16, 1000))
            return visit;
    }
    return NULL;
}

static void test_concurrent_callers(void **state)
{
    pthread_t threads[CALLERS];
    (void)state;
    for (int i = 0; i < CALLERS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, caller_main, &caller_visits[i]), 0);
    for (int i = 0; i < CALLERS; i++) {
        void *failed = &threads[i];
        pthread_join(threads[i], &failed);
        assert_null(failed);
    }
}

static void test_forked_child_gets_a_fresh_pool(void **state)
{
    static visit_t visit;
    int status = 0;
    pid_t child;
    (void)state;
    if (UNDER_TSAN)
        skip();
    assert_int_equal(accel_thread_pool_threads(), POOL_THREADS); /* started in the parent */
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        /* The parent's workers do not exist here; a run must still finish,
         * split over the child's own new workers. */
        bool ok = visit_run(&visit, 4 * 1000, 10, 1000) && distinct_threads(&visit) == POOL_THREADS;
        _exit(ok ? 0 : 1);
    }
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_from_env_and_split),
        cmocka_unit_test(test_every_element_once),
        cmocka_unit_test(test_nested_run_does_not_deadlock),
        cmocka_unit_test(test_concurrent_callers),
        cmocka_unit_test(test_forked_child_gets_a_fresh_pool),
    };
    /* Read when the pool starts, i.e. by the first test. */
    setenv("ACCEL_CPU_THREADS", "4", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
