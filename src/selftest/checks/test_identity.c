/* test_identity.c: conformance tests of identity and flags: name, device
 * strings, capability flags, communication and compile backends. */
#include "conformance.h"

#define IDENTITY_NAME_CAP 64

void test_identity_name_matches_opened(void **state)
{
    (void)state;
    assert_non_null(accel_name(conformance_acc));
    assert_string_equal(accel_name(conformance_acc), conformance_backend);
}

void test_identity_name_null_handle(void **state)
{
    (void)state;
    assert_null(accel_name(NULL));
    assert_true(accel_last_error()[0] != '\0');
}

void test_identity_device_name_bare(void **state)
{
    char name[IDENTITY_NAME_CAP];
    (void)state;
    assert_ok(accel_device_name(conformance_acc, ACCEL_CURRENT_DEVICE, name, sizeof name));
    assert_string_equal(name, conformance_backend);
}

/* device_name(i) is "name:i", or the bare name where the backend ignores i. */
static bool identity_ignores_index(void)
{
    char name[IDENTITY_NAME_CAP], indexed[IDENTITY_NAME_CAP];
    assert_ok(accel_device_name(conformance_acc, 1, name, sizeof name));
    snprintf(indexed, sizeof indexed, "%s:1", conformance_backend);
    if (strcmp(name, conformance_backend) == 0)
        return true;
    assert_string_equal(name, indexed);
    return false;
}

void test_identity_device_name_indexed(void **state)
{
    char name[IDENTITY_NAME_CAP], expected[IDENTITY_NAME_CAP];
    bool ignores = identity_ignores_index();
    (void)state;
    /* index formatting holds even for indices past device_count (DeepSpeed's test) */
    for (int i = 0; i < 3; i++) {
        assert_ok(accel_device_name(conformance_acc, i, name, sizeof name));
        if (ignores)
            snprintf(expected, sizeof expected, "%s", conformance_backend);
        else
            snprintf(expected, sizeof expected, "%s:%d", conformance_backend, i);
        assert_string_equal(name, expected);
    }
}

void test_identity_current_device_name_consistent(void **state)
{
    char name[IDENTITY_NAME_CAP], expected[IDENTITY_NAME_CAP];
    bool ignores = identity_ignores_index();
    int count = conf_device_count();
    (void)state;
    for (int device = 0; device < count && device < 4; device++) {
        assert_ok(accel_set_device(conformance_acc, device));
        assert_ok(accel_current_device_name(conformance_acc, name, sizeof name));
        if (ignores)
            snprintf(expected, sizeof expected, "%s", conformance_backend);
        else
            snprintf(expected, sizeof expected, "%s:%d", conformance_backend, device);
        assert_string_equal(name, expected);
    }
}

void test_identity_device_name_small_buffer(void **state)
{
    char name[IDENTITY_NAME_CAP];
    (void)state;
    memset(name, 'x', sizeof name);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_device_name(conformance_acc, ACCEL_CURRENT_DEVICE, name, 2));
    assert_int_equal(name[0], 'x');
    assert_int_equal(name[1], 'x');
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_current_device_name(conformance_acc, name, 1));
    assert_int_equal(name[0], 'x');
}

void test_identity_device_name_exact_fit(void **state)
{
    char name[IDENTITY_NAME_CAP];
    size_t need = strlen(conformance_backend) + 1;
    (void)state;
    assert_ok(accel_device_name(conformance_acc, ACCEL_CURRENT_DEVICE, name, need));
    assert_string_equal(name, conformance_backend);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_device_name(conformance_acc, ACCEL_CURRENT_DEVICE, name, need - 1));
}

void test_identity_device_name_null_arguments(void **state)
{
    char name[IDENTITY_NAME_CAP];
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_device_name(NULL, 0, name, sizeof name));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_device_name(conformance_acc, 0, NULL, sizeof name));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_current_device_name(NULL, name, sizeof name));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_current_device_name(conformance_acc, NULL, sizeof name));
}

void test_identity_flags_all_queryable(void **state)
{
    (void)state;
    for (int flag = 0; flag < ACCEL_FLAG_COUNT_; flag++) {
        bool value = false;
        const char *name = accel_flag_name((accel_flag_t)flag);
        assert_non_null(name);
        assert_true(name[0] != '\0');
        assert_ok(accel_query_flag(conformance_acc, (accel_flag_t)flag, &value));
        for (int other = 0; other < flag; other++)
            assert_string_not_equal(name, accel_flag_name((accel_flag_t)other));
    }
}

void test_identity_flag_names_follow_deepspeed(void **state)
{
    (void)state;
    assert_string_equal(accel_flag_name(ACCEL_FLAG_IS_AVAILABLE), "is_available");
    assert_string_equal(accel_flag_name(ACCEL_FLAG_SYNCHRONIZED_DEVICE), "is_synchronized_device");
    assert_string_equal(accel_flag_name(ACCEL_FLAG_USE_HOST_TIMERS), "use_host_timers");
    assert_string_equal(accel_flag_name(ACCEL_FLAG_RESOLVES_DATA_DEPENDENCY),
                        "resolves_data_dependency");
    assert_string_equal(accel_flag_name(ACCEL_FLAG_HANDLES_MEMORY_BACKPRESSURE),
                        "handles_memory_backpressure");
    assert_string_equal(accel_flag_name(ACCEL_FLAG_TRITON_SUPPORTED), "is_triton_supported");
    assert_string_equal(accel_flag_name(ACCEL_FLAG_PREFER_TRITON_GROUPED_MM),
                        "prefer_triton_grouped_mm");
    assert_string_equal(accel_flag_name(ACCEL_FLAG_BF16_SUPPORTED), "is_bf16_supported");
    assert_string_equal(accel_flag_name(ACCEL_FLAG_FP16_SUPPORTED), "is_fp16_supported");
}

void test_identity_is_available(void **state)
{
    (void)state;
    assert_true(conf_flag(ACCEL_FLAG_IS_AVAILABLE));
}

void test_identity_flag_bad_arguments(void **state)
{
    bool value = true;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_query_flag(conformance_acc, ACCEL_FLAG_COUNT_, &value));
    assert_true(value);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_query_flag(conformance_acc, (accel_flag_t)-1, &value));
    assert_true(value);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_query_flag(NULL, ACCEL_FLAG_IS_AVAILABLE, &value));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_query_flag(conformance_acc, ACCEL_FLAG_IS_AVAILABLE, NULL));
}

void test_identity_communication_backend(void **state)
{
    const char *name = (const char *)&name; /* sentinel */
    accel_status_t status = accel_communication_backend_name(conformance_acc, &name);
    (void)state;
    if (status == ACCEL_OK) {
        assert_non_null(name);
        assert_true(name[0] != '\0');
    } else {
        assert_int_equal(status, ACCEL_ERROR_UNSUPPORTED);
        assert_ptr_equal(name, (const char *)&name);
        assert_true(accel_last_error()[0] != '\0');
    }
}

void test_identity_communication_backend_null_arguments(void **state)
{
    const char *name = NULL;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_communication_backend_name(NULL, &name));
    assert_null(name);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_communication_backend_name(conformance_acc, NULL));
}

/* The version exists exactly when the name does: "unknown" or
 * "MAJOR.MINOR.PATCH" (digits and two dots). */
void test_identity_communication_backend_version(void **state)
{
    const char *name = NULL;
    char text[48] = "untouched";
    int major = -1, minor = -1, patch = -1, used = 0;
    accel_status_t named = accel_communication_backend_name(conformance_acc, &name);
    accel_status_t status = accel_communication_backend_version(conformance_acc, text, sizeof text);
    (void)state;
    if (named != ACCEL_OK) {
        assert_status(ACCEL_ERROR_UNSUPPORTED, status);
        assert_string_equal(text, "untouched");
        return;
    }
    assert_ok(status);
    if (strcmp(text, "unknown") != 0) {
        assert_int_equal(sscanf(text, "%d.%d.%d%n", &major, &minor, &patch, &used), 3);
        assert_int_equal((size_t)used, strlen(text));
        assert_true(major >= 0 && minor >= 0 && patch >= 0);
    }
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_communication_backend_version(conformance_acc, NULL, sizeof text));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_communication_backend_version(NULL, text, sizeof text));
}

void test_identity_compile_backend_default(void **state)
{
    const char *name = NULL;
    (void)state;
    assert_ok(accel_get_compile_backend(conformance_acc, &name));
    assert_non_null(name);
    assert_true(name[0] != '\0');
}

void test_identity_compile_backend_set_current(void **state)
{
    const char *name = NULL;
    char before[64];
    (void)state;
    assert_ok(accel_get_compile_backend(conformance_acc, &name));
    snprintf(before, sizeof before, "%s", name);
    assert_ok(accel_set_compile_backend(conformance_acc, before));
    assert_ok(accel_get_compile_backend(conformance_acc, &name));
    assert_string_equal(name, before);
}

void test_identity_compile_backend_refused(void **state)
{
    const char *name = NULL;
    char before[64], expected[128];
    (void)state;
    assert_ok(accel_get_compile_backend(conformance_acc, &name));
    snprintf(before, sizeof before, "%s", name);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_set_compile_backend(conformance_acc, "conformance_bogus_compiler"));
    snprintf(expected, sizeof expected, "conformance_bogus_compiler not supported by %s",
             conformance_backend);
    assert_non_null(strstr(accel_last_error(), expected));
    assert_non_null(strstr(accel_last_error(), "Supported Backends are"));
    assert_ok(accel_get_compile_backend(conformance_acc, &name));
    assert_string_equal(name, before);
}

void test_identity_compile_backend_null_arguments(void **state)
{
    const char *name = NULL;
    char before[64];
    (void)state;
    assert_ok(accel_get_compile_backend(conformance_acc, &name));
    snprintf(before, sizeof before, "%s", name);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_set_compile_backend(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_set_compile_backend(NULL, before));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_get_compile_backend(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_get_compile_backend(NULL, &name));
    assert_ok(accel_get_compile_backend(conformance_acc, &name));
    assert_string_equal(name, before);
}
