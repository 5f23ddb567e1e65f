/* test_profiling.c: conformance tests of profiler ranges: nesting per
 * thread, pop with nothing open, bad input. */
#include "conformance.h"

void test_profiling_push_pop_nest(void **state)
{
    (void)state;
    assert_ok(accel_range_push(conformance_acc, "conformance.outer", NULL, NULL));
    assert_ok(accel_range_push(conformance_acc, "conformance.inner", "conformance", "tests"));
    assert_ok(accel_range_pop(conformance_acc, "conformance"));
    assert_ok(accel_range_pop(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_NOT_FOUND, accel_range_pop(conformance_acc, NULL));
}

void test_profiling_pop_without_push(void **state)
{
    (void)state;
    assert_status(ACCEL_ERROR_NOT_FOUND, accel_range_pop(conformance_acc, NULL));
}

void test_profiling_bad_arguments(void **state)
{
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_range_push(conformance_acc, NULL, NULL, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_range_push(NULL, "x", NULL, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_range_pop(NULL, NULL));
    /* the refused push opened nothing */
    assert_status(ACCEL_ERROR_NOT_FOUND, accel_range_pop(conformance_acc, NULL));
}

static void *profiling_other_thread_pop(void *arg)
{
    accel_status_t *status = arg;
    *status = accel_range_pop(conformance_acc, NULL);
    return NULL;
}

void test_profiling_ranges_per_thread(void **state)
{
    accel_status_t other = ACCEL_OK;
    pthread_t thread;
    (void)state;
    assert_ok(accel_range_push(conformance_acc, "conformance.main", NULL, NULL));
    assert_int_equal(pthread_create(&thread, NULL, profiling_other_thread_pop, &other), 0);
    pthread_join(thread, NULL);
    assert_int_equal(other, ACCEL_ERROR_NOT_FOUND);
    assert_ok(accel_range_pop(conformance_acc, NULL));
}
