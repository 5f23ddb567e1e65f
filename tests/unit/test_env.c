/* test_env.c: the environment-variable parsers of src/core/env.c.
 * Each test checks one rule; failures must leave outputs untouched. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel.h"
#include "env.h"

static void test_env_get_treats_empty_as_unset(void **state)
{
    (void)state;
    setenv("ACCEL_TEST_ENV_VALUE", "abc", 1);
    assert_string_equal(accel_env_get("ACCEL_TEST_ENV_VALUE"), "abc");
    setenv("ACCEL_TEST_ENV_VALUE", "", 1);
    assert_null(accel_env_get("ACCEL_TEST_ENV_VALUE"));
    unsetenv("ACCEL_TEST_ENV_VALUE");
    assert_null(accel_env_get("ACCEL_TEST_ENV_VALUE"));
    assert_null(accel_env_get(NULL));
}

static void test_parse_int_accepts_whole_numbers(void **state)
{
    long value = 0;
    (void)state;
    assert_true(accel_env_parse_int("42", &value));
    assert_int_equal(value, 42);
    assert_true(accel_env_parse_int("-7", &value));
    assert_int_equal(value, -7);
    assert_true(accel_env_parse_int("0", &value));
    assert_int_equal(value, 0);
}

static void test_parse_int_refuses_partial_text(void **state)
{
    static const char *const bad[] = {"",   " 5",  "5 ",   "5x",
                                      "x5", "1.5", "0x10", "99999999999999999999999"};
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        long value = 1234;
        assert_false(accel_env_parse_int(bad[i], &value));
        assert_int_equal(value, 1234); /* untouched */
    }
    assert_false(accel_env_parse_int(NULL, &(long){0}));
}

static void test_parse_int_list_reads_items(void **state)
{
    int ids[4] = {0};
    size_t count = 0;
    (void)state;
    assert_true(accel_env_parse_int_list("0,2,5", ids, 4, &count));
    assert_int_equal(count, 3);
    assert_int_equal(ids[0], 0);
    assert_int_equal(ids[1], 2);
    assert_int_equal(ids[2], 5);
    assert_true(accel_env_parse_int_list("7", ids, 4, &count));
    assert_int_equal(count, 1);
    assert_int_equal(ids[0], 7);
    assert_true(accel_env_parse_int_list("1,2,3,4", ids, 4, &count));
    assert_int_equal(count, 4);
}

static void test_parse_int_list_refuses_bad_items(void **state)
{
    static const char *const bad[] = {"",     ",",  "1,", ",1",  "1,,2",       "-1",
                                      "1, 2", " 1", "a",  "1;2", "2147483648", "1,2,3,4,5"};
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int ids[4] = {9, 9, 9, 9};
        size_t count = 77;
        assert_false(accel_env_parse_int_list(bad[i], ids, 4, &count));
        assert_int_equal(count, 77);
        assert_int_equal(ids[0], 9); /* nothing written before the bad item was found */
    }
}

static void test_parse_int_list_refuses_null(void **state)
{
    int ids[2];
    size_t count;
    (void)state;
    assert_false(accel_env_parse_int_list(NULL, ids, 2, &count));
    assert_false(accel_env_parse_int_list("1", NULL, 2, &count));
    assert_false(accel_env_parse_int_list("1", ids, 2, NULL));
    assert_true(accel_env_parse_int_list("2147483647", ids, 2, &count));
    assert_int_equal(ids[0], INT_MAX);
}

static void test_parse_log_level(void **state)
{
    accel_log_level_t level = ACCEL_LOG_ERROR;
    (void)state;
    assert_true(accel_env_parse_log_level("debug", &level));
    assert_int_equal(level, ACCEL_LOG_DEBUG);
    assert_true(accel_env_parse_log_level("WARN", &level));
    assert_int_equal(level, ACCEL_LOG_WARN);
    assert_true(accel_env_parse_log_level("Info", &level));
    assert_int_equal(level, ACCEL_LOG_INFO);
    assert_true(accel_env_parse_log_level("error", &level));
    assert_int_equal(level, ACCEL_LOG_ERROR);
    assert_false(accel_env_parse_log_level("trace", &level));
    assert_false(accel_env_parse_log_level("warning", &level));
    assert_false(accel_env_parse_log_level("", &level));
    assert_false(accel_env_parse_log_level(NULL, &level));
    assert_int_equal(level, ACCEL_LOG_ERROR); /* failures left it alone */
}

static void test_parse_alloc_conf_caching(void **state)
{
    accel_alloc_conf_t conf = {.caching = true};
    char bad[32] = "";
    (void)state;
    assert_true(accel_env_parse_alloc_conf("caching:0", &conf, bad, sizeof bad));
    assert_false(conf.caching);
    assert_true(accel_env_parse_alloc_conf("caching:1", &conf, bad, sizeof bad));
    assert_true(conf.caching);
    assert_true(accel_env_parse_alloc_conf("caching:1,caching:0", &conf, bad, sizeof bad));
    assert_false(conf.caching); /* the last item wins */
    assert_string_equal(bad, "");
}

static void test_parse_alloc_conf_names_unknown_key(void **state)
{
    accel_alloc_conf_t conf = {.caching = true};
    char bad[32] = "";
    (void)state;
    assert_false(
        accel_env_parse_alloc_conf("caching:0,garbage_collection:1", &conf, bad, sizeof bad));
    assert_string_equal(bad, "garbage_collection");
    assert_true(conf.caching); /* the valid first item was not applied */
}

static void test_parse_alloc_conf_refuses_bad_value(void **state)
{
    static const char *const bad_items[] = {"caching:2", "caching:", "caching", "caching:yes"};
    (void)state;
    for (size_t i = 0; i < sizeof bad_items / sizeof bad_items[0]; i++) {
        accel_alloc_conf_t conf = {.caching = true};
        char bad[32] = "";
        assert_false(accel_env_parse_alloc_conf(bad_items[i], &conf, bad, sizeof bad));
        assert_string_equal(bad, bad_items[i]);
        assert_true(conf.caching);
    }
}

static void test_parse_alloc_conf_truncates_bad_key(void **state)
{
    accel_alloc_conf_t conf = {.caching = true};
    char bad[5] = "zzzz";
    (void)state;
    assert_false(accel_env_parse_alloc_conf("unknownkey:1", &conf, bad, sizeof bad));
    assert_string_equal(bad, "unkn");
    assert_false(accel_env_parse_alloc_conf("other:1", &conf, NULL, 0));
    assert_false(accel_env_parse_alloc_conf(NULL, &conf, bad, sizeof bad));
}

/* Device count of a freshly opened cpu accelerator with LOCAL_SIZE=`value`
 * (NULL: unset); -1 when it does not open. */
static int cpu_devices_with_local_size(const char *value)
{
    accel_t *acc = NULL;
    int count = -1;
    if (value != NULL)
        setenv("LOCAL_SIZE", value, 1);
    else
        unsetenv("LOCAL_SIZE");
    if (accel_open("cpu", &acc) != ACCEL_OK)
        return -1;
    if (accel_device_count(acc, &count) != ACCEL_OK)
        count = -1;
    accel_close(acc);
    unsetenv("LOCAL_SIZE");
    return count;
}

/* LOCAL_SIZE outside [1, 4096] is warned about and the NUMA count used, as
 * for a value that is not a number; it used to size per-device state, so
 * 2147483647 made opening the cpu backend fail with OUT_OF_MEMORY. */
static void test_local_size_out_of_range_falls_back(void **state)
{
    static const char *const bad[] = {"2147483647", "4097", "0", "-3", "abc"};
    int fallback;
    (void)state;
    fallback = cpu_devices_with_local_size(NULL);
    if (fallback < 0)
        skip(); /* a build without the cpu backend */
    assert_true(fallback >= 1);
    assert_int_equal(cpu_devices_with_local_size("3"), 3);
    assert_int_equal(cpu_devices_with_local_size("4096"), 4096);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(cpu_devices_with_local_size(bad[i]), fallback);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_get_treats_empty_as_unset),
        cmocka_unit_test(test_parse_int_accepts_whole_numbers),
        cmocka_unit_test(test_parse_int_refuses_partial_text),
        cmocka_unit_test(test_parse_int_list_reads_items),
        cmocka_unit_test(test_parse_int_list_refuses_bad_items),
        cmocka_unit_test(test_parse_int_list_refuses_null),
        cmocka_unit_test(test_parse_log_level),
        cmocka_unit_test(test_parse_alloc_conf_caching),
        cmocka_unit_test(test_parse_alloc_conf_names_unknown_key),
        cmocka_unit_test(test_parse_alloc_conf_refuses_bad_value),
        cmocka_unit_test(test_parse_alloc_conf_truncates_bad_key),
        cmocka_unit_test(test_local_size_out_of_range_falls_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
