/* test_cpu_local_rank.c: the cpu backend's current device starts at
 * LOCAL_RANK, as DeepSpeed's CPU_Accelerator.current_device() reads it
 * (issue 14): every thread, new ones included, starts there, and a rank that
 * is not a device index falls back to device 0. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "accel/accel.h"

static int open_with(const char *local_size, const char *local_rank, accel_t **out)
{
    setenv("LOCAL_SIZE", local_size, 1);
    setenv("LOCAL_RANK", local_rank, 1);
    return accel_open("cpu", out);
}

static void *current_device_of_new_thread(void *arg)
{
    static int device;
    device = -1;
    if (accel_current_device(arg, &device) != ACCEL_OK)
        device = -2;
    return &device;
}

static void test_local_rank_is_the_initial_device(void **state)
{
    accel_t *acc = NULL;
    pthread_t thread;
    void *seen = NULL;
    int device = -1;
    (void)state;
    assert_int_equal(open_with("4", "3", &acc), ACCEL_OK);
    assert_int_equal(accel_current_device(acc, &device), ACCEL_OK);
    assert_int_equal(device, 3);
    assert_int_equal(pthread_create(&thread, NULL, current_device_of_new_thread, acc), 0);
    assert_int_equal(pthread_join(thread, &seen), 0);
    assert_int_equal(*(int *)seen, 3);
    /* set_device still moves the calling thread. */
    assert_int_equal(accel_set_device(acc, 1), ACCEL_OK);
    assert_int_equal(accel_current_device(acc, &device), ACCEL_OK);
    assert_int_equal(device, 1);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

static void test_out_of_range_rank_falls_back_to_zero(void **state)
{
    accel_t *acc = NULL;
    int device = -1;
    (void)state;
    assert_int_equal(open_with("2", "5", &acc), ACCEL_OK);
    assert_int_equal(accel_current_device(acc, &device), ACCEL_OK);
    assert_int_equal(device, 0);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_local_rank_is_the_initial_device),
        cmocka_unit_test(test_out_of_range_rank_falls_back_to_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
