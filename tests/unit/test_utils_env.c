/* test_utils_env.c: the exported environment helpers (accel_backend_utils.h)
 * through the shared library: integer, boolean and list getters returning the
 * value, the fallback when unset, and the fallback with a warning naming the
 * variable when the value is bad. */
#include <setjmp.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "accel/accel_backend_utils.h"

#define VAR "ACCEL_TEST_UTILS_VALUE"

/* Run `call` with stderr captured into `out` (the warning, if any). */
#define CAPTURE_STDERR(out, call)                                                                  \
    do {                                                                                           \
        FILE *capture_ = tmpfile();                                                                \
        int saved_ = dup(STDERR_FILENO);                                                           \
        assert_non_null(capture_);                                                                 \
        fflush(stderr);                                                                            \
        dup2(fileno(capture_), STDERR_FILENO);                                                     \
        call;                                                                                      \
        fflush(stderr);                                                                            \
        dup2(saved_, STDERR_FILENO);                                                               \
        close(saved_);                                                                             \
        rewind(capture_);                                                                          \
        size_t n_ = fread((out), 1, sizeof(out) - 1, capture_);                                    \
        (out)[n_] = '\0';                                                                          \
        fclose(capture_);                                                                          \
    } while (0)

static void test_get_int(void **state)
{
    char warning[512];
    long value = 0;
    (void)state;
    unsetenv(VAR);
    assert_int_equal(accel_env_get_int(VAR, 1, 10, 7), 7);
    setenv(VAR, "", 1);
    assert_int_equal(accel_env_get_int(VAR, 1, 10, 7), 7); /* "" is unset */
    setenv(VAR, "10", 1);
    assert_int_equal(accel_env_get_int(VAR, 1, 10, 7), 10);
    setenv(VAR, "-3", 1);
    assert_int_equal(accel_env_get_int(VAR, -5, 10, 7), -3);
    setenv(VAR, "11", 1);
    CAPTURE_STDERR(warning, value = accel_env_get_int(VAR, 1, 10, 7));
    assert_int_equal(value, 7);
    assert_non_null(strstr(warning, VAR "=11 is not an integer in [1, 10]; using 7"));
    setenv(VAR, " 4", 1);
    CAPTURE_STDERR(warning, value = accel_env_get_int(VAR, 1, 10, 7));
    assert_int_equal(value, 7);
    assert_non_null(strstr(warning, VAR));
    setenv(VAR, "0", 1);
    CAPTURE_STDERR(warning, value = accel_env_get_int(VAR, 1, LONG_MAX, 2));
    assert_int_equal(value, 2);
    assert_non_null(strstr(warning, VAR "=0 is not an integer >= 1; using 2"));
}

static void test_get_bool(void **state)
{
    static const char *const yes[] = {"1", "true", "YES", "On"};
    static const char *const no[] = {"0", "False", "no", "OFF"};
    char warning[512];
    bool value = false;
    (void)state;
    unsetenv(VAR);
    assert_true(accel_env_get_bool(VAR, true));
    assert_false(accel_env_get_bool(VAR, false));
    for (size_t i = 0; i < 4; i++) {
        setenv(VAR, yes[i], 1);
        assert_true(accel_env_get_bool(VAR, false));
        setenv(VAR, no[i], 1);
        assert_false(accel_env_get_bool(VAR, true));
    }
    setenv(VAR, "maybe", 1);
    CAPTURE_STDERR(warning, value = accel_env_get_bool(VAR, true));
    assert_true(value);
    assert_non_null(strstr(warning, VAR "=maybe is not a boolean"));
    bool parsed = false;
    assert_false(accel_env_parse_bool("2", &parsed));
    assert_false(accel_env_parse_bool(NULL, &parsed));
}

static void test_get_int_list(void **state)
{
    int list[3] = {-1, -1, -1};
    char warning[512];
    size_t count = 9;
    (void)state;
    unsetenv(VAR);
    assert_int_equal(accel_env_get_int_list(VAR, list, 3), 0);
    setenv(VAR, "4,0,12", 1);
    assert_int_equal(accel_env_get_int_list(VAR, list, 3), 3);
    assert_int_equal(list[0], 4);
    assert_int_equal(list[1], 0);
    assert_int_equal(list[2], 12);
    /* Too many items or a bad one: 0, warned, the list untouched. */
    list[0] = -1;
    setenv(VAR, "1,2,3,4", 1);
    CAPTURE_STDERR(warning, count = accel_env_get_int_list(VAR, list, 3));
    assert_int_equal(count, 0);
    assert_int_equal(list[0], -1);
    assert_non_null(strstr(warning, VAR "=1,2,3,4"));
    setenv(VAR, "1,,2", 1);
    CAPTURE_STDERR(warning, count = accel_env_get_int_list(VAR, list, 3));
    assert_int_equal(count, 0);
    assert_int_equal(list[0], -1);
    unsetenv(VAR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_int),
        cmocka_unit_test(test_get_bool),
        cmocka_unit_test(test_get_int_list),
    };
    /* Warnings are what these tests read. */
    setenv("ACCEL_LOG", "warn", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
