/* test_status.c: conformance tests of status codes, the version string and
 * the thread-local last error. */
#include "conformance.h"

#include <stdlib.h>

void test_status_names(void **state)
{
    static const struct {
        accel_status_t status;
        const char *name;
    } expected[] = {
        {ACCEL_OK, "ACCEL_OK"},
        {ACCEL_ERROR_INVALID_ARGUMENT, "ACCEL_ERROR_INVALID_ARGUMENT"},
        {ACCEL_ERROR_NOT_FOUND, "ACCEL_ERROR_NOT_FOUND"},
        {ACCEL_ERROR_UNAVAILABLE, "ACCEL_ERROR_UNAVAILABLE"},
        {ACCEL_ERROR_UNSUPPORTED, "ACCEL_ERROR_UNSUPPORTED"},
        {ACCEL_ERROR_OUT_OF_MEMORY, "ACCEL_ERROR_OUT_OF_MEMORY"},
        {ACCEL_ERROR_NOT_READY, "ACCEL_ERROR_NOT_READY"},
        {ACCEL_ERROR_DEVICE_ERROR, "ACCEL_ERROR_DEVICE_ERROR"},
        {ACCEL_ERROR_INTERNAL, "ACCEL_ERROR_INTERNAL"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        assert_string_equal(accel_status_name(expected[i].status), expected[i].name);
}

void test_status_name_unknown_not_null(void **state)
{
    (void)state;
    assert_non_null(accel_status_name((accel_status_t)999));
    assert_non_null(accel_status_name((accel_status_t)-1));
}

void test_status_version(void **state)
{
    char expected[32];
    (void)state;
    snprintf(expected, sizeof expected, "%d.%d.%d", ACCEL_VERSION_MAJOR, ACCEL_VERSION_MINOR,
             ACCEL_VERSION_PATCH);
    assert_non_null(accel_version());
    assert_string_equal(accel_version(), expected);
}

void test_status_last_error_names_failure(void **state)
{
    accel_t *acc = NULL;
    (void)state;
    assert_status(ACCEL_ERROR_NOT_FOUND, accel_open("conformance_no_such_backend", &acc));
    assert_null(acc);
    assert_non_null(strstr(accel_last_error(), "conformance_no_such_backend"));
}

void test_status_vendor_error_zero_for_argument_error(void **state)
{
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_device_count(conformance_acc, NULL));
    assert_int_equal(accel_last_vendor_error(), 0);
}

static void *status_other_thread_fails(void *arg)
{
    accel_t *acc = NULL;
    (void)arg;
    accel_open("conformance_other_thread_name", &acc);
    return NULL;
}

void test_status_last_error_thread_local(void **state)
{
    accel_t *acc = NULL;
    pthread_t thread;
    (void)state;
    assert_status(ACCEL_ERROR_NOT_FOUND, accel_open("conformance_main_thread_name", &acc));
    assert_int_equal(pthread_create(&thread, NULL, status_other_thread_fails, NULL), 0);
    pthread_join(thread, NULL);
    assert_non_null(strstr(accel_last_error(), "conformance_main_thread_name"));
    assert_null(strstr(accel_last_error(), "conformance_other_thread_name"));
}
