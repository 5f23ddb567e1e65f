/* test_plugin_reentry.c: plugins whose entry function calls back into accel
 * (see test_backend.c, kinds 3-5). The scan must neither deadlock (an alarm
 * turns a hang into a failure) nor unload a plugin whose table its entry
 * registered: every such backend must stay usable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <accel/accel.h>

static void test_scan_returns(void **state)
{
    accel_t *acc = NULL;
    const char *names;
    (void)state;
    alarm(20);
    assert_int_equal(accel_get(&acc), ACCEL_OK);
    names = accel_supported_names();
    alarm(0);
    assert_non_null(strstr(names, "'reentrant'"));
    assert_non_null(strstr(names, "'selfreg'"));
    assert_non_null(strstr(names, "'selfnull'"));
}

/* Open a plugin backend and move bytes through it: its code must still be mapped. */
static void check_backend_works(const char *name)
{
    enum { SIZE = 1024 };
    unsigned char in[SIZE], out[SIZE];
    accel_t *acc = NULL;
    void *device = NULL;
    for (size_t i = 0; i < SIZE; i++)
        in[i] = (unsigned char)(i * 13 + 1);
    assert_int_equal(accel_open(name, &acc), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, SIZE, &device), ACCEL_OK);
    assert_int_equal(accel_memcpy(acc, device, in, SIZE, ACCEL_COPY_HOST_TO_DEVICE), ACCEL_OK);
    assert_int_equal(accel_memcpy(acc, out, device, SIZE, ACCEL_COPY_DEVICE_TO_HOST), ACCEL_OK);
    assert_memory_equal(in, out, SIZE);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

static void test_reentrant_plugin_works(void **state)
{
    (void)state;
    check_backend_works("reentrant");
}

static void test_self_registered_plugins_stay_loaded(void **state)
{
    (void)state;
    check_backend_works("selfreg");
    check_backend_works("selfnull");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_returns),
        cmocka_unit_test(test_reentrant_plugin_works),
        cmocka_unit_test(test_self_registered_plugins_stay_loaded),
    };
    unsetenv("ACCEL_ACCELERATOR");
    unsetenv("DS_ACCELERATOR");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
