/* test_comm_lock.c: a communicator's lock (src/comm/comm.h) excludes: threads
 * that take it to update plain memory lose no update, including while one
 * holds it long enough that the others fall back to yielding and sleeping.
 * Also run under TSan, which checks that the lock orders those updates. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "comm/comm.h"

enum { THREADS = 4, ROUNDS = 20000 };

typedef struct shared {
    accel_comm_t comm;
    long counter; /* plain memory: only the lock protects it */
    long held_long;
} shared_t;

static void *add_under_lock(void *user_data)
{
    shared_t *shared = user_data;
    for (int i = 0; i < ROUNDS; i++) {
        accel_comm_lock(&shared->comm);
        shared->counter++;
        if (i % 5000 == 0) { /* long enough for the waiters to sleep */
            struct timespec pause = {0, 2 * 1000 * 1000};
            nanosleep(&pause, NULL);
            shared->held_long++;
        }
        accel_comm_unlock(&shared->comm);
    }
    return NULL;
}

static void test_lock_excludes(void **state)
{
    (void)state;
    static shared_t shared;
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, add_under_lock, &shared), 0);
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_join(threads[t], NULL), 0);
    assert_int_equal(shared.counter, (long)THREADS * ROUNDS);
    assert_int_equal(shared.held_long, (long)THREADS * (ROUNDS / 5000));
    assert_false(atomic_load(&shared.comm.busy));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_lock_excludes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
