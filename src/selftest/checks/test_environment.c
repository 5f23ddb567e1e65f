/* test_environment.c: conformance tests of launcher environment helpers:
 * visible-devices variables (through a setter or the process env) and the
 * exported prefixes. */
#include "conformance.h"

#include <stdlib.h>

#define ENV_MAX 8

typedef struct env_capture {
    int calls;
    int fail_with;
    char names[ENV_MAX][64];
    char values[ENV_MAX][64];
} env_capture_t;

static int env_setter(void *ctx, const char *name, const char *value)
{
    env_capture_t *capture = ctx;
    if (capture->calls < ENV_MAX) {
        snprintf(capture->names[capture->calls], sizeof capture->names[0], "%s", name);
        snprintf(capture->values[capture->calls], sizeof capture->values[0], "%s", value);
    }
    capture->calls++;
    return capture->fail_with;
}

static size_t env_names(const char *const **names)
{
    size_t count = 0;
    assert_ok(accel_visible_devices_envs(conformance_acc, names, &count));
    return count;
}

/* Skip a test that sets the variables when the backend has none (DeepSpeed's
 * backends all have one; a template or plugin backend may not). */
static void env_require_names(void)
{
    const char *const *names = NULL;
    if (env_names(&names) == 0)
        conf_skip("backend has no visible-devices variable");
}

void test_environment_visible_devices_envs(void **state)
{
    const char *const *names = NULL;
    size_t count = env_names(&names);
    (void)state;
    assert_true(count <= ENV_MAX);
    if (count > 0)
        assert_non_null(names);
    for (size_t i = 0; i < count; i++) {
        assert_non_null(names[i]);
        assert_true(names[i][0] != '\0');
    }
}

void test_environment_set_visible_through_setter(void **state)
{
    static const int ids[] = {0, 2};
    const char *const *names = NULL;
    size_t count = env_names(&names);
    env_capture_t capture = {0};
    (void)state;
    env_require_names();
    assert_ok(accel_set_visible_devices_envs(conformance_acc, ids, 2, env_setter, &capture));
    assert_int_equal(capture.calls, count);
    for (size_t i = 0; i < count; i++) {
        assert_string_equal(capture.names[i], names[i]);
        assert_string_equal(capture.values[i], "0,2");
    }
}

void test_environment_set_visible_single_and_empty(void **state)
{
    static const int one[] = {7};
    env_capture_t capture = {0};
    (void)state;
    env_require_names();
    assert_ok(accel_set_visible_devices_envs(conformance_acc, one, 1, env_setter, &capture));
    assert_string_equal(capture.values[0], "7");
    memset(&capture, 0, sizeof capture);
    assert_ok(accel_set_visible_devices_envs(conformance_acc, NULL, 0, env_setter, &capture));
    assert_true(capture.calls >= 1);
    assert_string_equal(capture.values[0], "");
}

void test_environment_set_visible_bad_arguments(void **state)
{
    static const int ids[] = {0, 2};
    env_capture_t capture = {0};
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_set_visible_devices_envs(conformance_acc, NULL, 2, env_setter, &capture));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_set_visible_devices_envs(NULL, ids, 2, env_setter, &capture));
    assert_int_equal(capture.calls, 0);
}

/* A setter's own status comes back as is; another nonzero value (setenv's -1)
 * reads as INVALID_ARGUMENT, never INTERNAL ("a bug in accel"). */
void test_environment_setter_failure_reported(void **state)
{
    static const int ids[] = {1};
    env_capture_t capture = {.fail_with = -1};
    (void)state;
    env_require_names();
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_set_visible_devices_envs(conformance_acc, ids, 1, env_setter, &capture));
    assert_int_equal(capture.calls, 1);
    memset(&capture, 0, sizeof capture);
    capture.fail_with = ACCEL_ERROR_OUT_OF_MEMORY;
    assert_status(ACCEL_ERROR_OUT_OF_MEMORY,
                  accel_set_visible_devices_envs(conformance_acc, ids, 1, env_setter, &capture));
    assert_int_equal(capture.calls, 1);
    assert_non_null(strstr(accel_last_error(), "=1"));
}

void test_environment_set_visible_process_env(void **state)
{
    static const int ids[] = {1, 3};
    const char *const *names = NULL;
    size_t count = env_names(&names);
    char *saved[ENV_MAX] = {0};
    (void)state;
    env_require_names();
    for (size_t i = 0; i < count; i++) {
        const char *value = getenv(names[i]);
        saved[i] = value != NULL ? strdup(value) : NULL;
    }
    assert_ok(accel_set_visible_devices_envs(conformance_acc, ids, 2, NULL, NULL));
    for (size_t i = 0; i < count; i++) {
        assert_non_null(getenv(names[i]));
        assert_string_equal(getenv(names[i]), "1,3");
    }
    for (size_t i = 0; i < count; i++) {
        if (saved[i] != NULL)
            setenv(names[i], saved[i], 1);
        else
            unsetenv(names[i]);
        free(saved[i]);
    }
}

void test_environment_export_envs(void **state)
{
    const char *const *prefixes = NULL;
    size_t count = 99;
    (void)state;
    assert_ok(accel_export_envs(conformance_acc, &prefixes, &count));
    assert_true(count < 64);
    if (count > 0)
        assert_non_null(prefixes);
    for (size_t i = 0; i < count; i++) {
        assert_non_null(prefixes[i]);
        assert_true(prefixes[i][0] != '\0');
    }
}

void test_environment_bad_arguments(void **state)
{
    const char *const *names = NULL;
    size_t count = 99;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_visible_devices_envs(conformance_acc, NULL, &count));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_visible_devices_envs(conformance_acc, &names, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_visible_devices_envs(NULL, &names, &count));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_export_envs(conformance_acc, NULL, &count));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_export_envs(conformance_acc, &names, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_export_envs(NULL, &names, &count));
    assert_null(names);
    assert_int_equal(count, 99);
}
