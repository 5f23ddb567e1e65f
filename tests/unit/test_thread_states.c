/* test_thread_states.c: a thread's state per accel_t is freed exactly once:
 * at the thread's exit, or by accel_close when the thread outlives the
 * accel_t (its key deleted, no destructor would run); a thread exiting after
 * that close does not touch the freed state. Counted through the registry
 * (accel_thread_states_live); under ASan a leak or a double free also fails. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/core.h"
#include "core/thread_state.h"

typedef struct worker {
    accel_t *acc;
    pthread_barrier_t *used, *closed; /* NULL: exit right after use */
} worker_t;

static void *use_then_wait(void *arg)
{
    worker_t *w = arg;
    int device = -1;
    assert_int_equal(accel_current_device(w->acc, &device), ACCEL_OK);
    if (w->used != NULL) {
        pthread_barrier_wait(w->used);
        pthread_barrier_wait(w->closed); /* the accel_t is gone: exit now */
    }
    return NULL;
}

static accel_t *open_cpu(void)
{
    accel_t *acc = NULL;
    assert_int_equal(accel_open("cpu", &acc), ACCEL_OK);
    return acc;
}

/* A thread that ends while the accel_t lives frees its own state. */
static void test_freed_at_thread_exit(void **state)
{
    (void)state;
    accel_t *acc = open_cpu();
    size_t before = accel_thread_states_live();
    worker_t w = {acc, NULL, NULL};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, use_then_wait, &w), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_int_equal(accel_thread_states_live(), before);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* Threads that outlive the accel_t: close frees their states, and their
 * exit afterwards finds nothing to free. */
static void test_freed_by_close(void **state)
{
    (void)state;
    enum { THREADS = 3 };
    size_t before = accel_thread_states_live();
    accel_t *acc = open_cpu();
    pthread_barrier_t used, closed;
    pthread_t threads[THREADS];
    worker_t w = {acc, &used, &closed};
    int device = -1;
    pthread_barrier_init(&used, NULL, THREADS + 1);
    pthread_barrier_init(&closed, NULL, THREADS + 1);
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, use_then_wait, &w), 0);
    assert_int_equal(accel_current_device(acc, &device), ACCEL_OK); /* this thread's too */
    pthread_barrier_wait(&used);
    assert_int_equal(accel_thread_states_live(), before + THREADS + 1);
    assert_int_equal(accel_close(acc), ACCEL_OK);
    assert_int_equal(accel_thread_states_live(), before);
    pthread_barrier_wait(&closed);
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    assert_int_equal(accel_thread_states_live(), before);
    pthread_barrier_destroy(&used);
    pthread_barrier_destroy(&closed);
}

/* Many open/close cycles with a long-lived thread pool leave nothing. */
static void test_cycles(void **state)
{
    (void)state;
    size_t before = accel_thread_states_live();
    for (int cycle = 0; cycle < 20; cycle++) {
        accel_t *acc = open_cpu();
        int device = -1;
        assert_int_equal(accel_current_device(acc, &device), ACCEL_OK);
        assert_int_equal(accel_close(acc), ACCEL_OK);
    }
    assert_int_equal(accel_thread_states_live(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_freed_at_thread_exit),
        cmocka_unit_test(test_freed_by_close),
        cmocka_unit_test(test_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
