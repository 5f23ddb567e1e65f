/* test_utils_symbols.c: accel_symbol_table_resolve (accel_backend_utils.h)
 * through the shared library, against this process's own symbols: export
 * preferred, fallback to the name, optional symbols left NULL, a missing
 * required one clears the whole table and names backend, library and symbol. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel_backend_utils.h"

/* A vendor table in the shape a backend's symbols.h expands to. */
#define TEST_SYMBOLS(X)                                                                            \
    X(true, const char *, accel_status_name, (accel_status_t status), NULL)                        \
    X(true, const char *, accel_version, (void), "accel_last_error")                               \
    X(true, const char *, accel_last_error, (void), "accel_no_such_export")                        \
    X(false, int, accel_no_such_optional, (void), NULL)

typedef struct test_api {
#define TEST_FIELD(required, ret, name, params, export) ret(*name) params;
    TEST_SYMBOLS(TEST_FIELD)
#undef TEST_FIELD
} test_api_t;

/* This program and what it links (libaccel among them); opened once. */
static void *self_handle(void)
{
    static void *handle;
    if (handle == NULL)
        handle = dlopen(NULL, RTLD_NOW);
    assert_non_null(handle);
    return handle;
}

static void test_resolves_export_name_and_optional(void **state)
{
    test_api_t api;
    char reason[128] = "untouched";
    (void)state;
    memset(&api, 0xab, sizeof api);
#define TEST_ENTRY(required, ret, name, params, export)                                            \
    ACCEL_SYMBOL_ENTRY(api, required, name, export),
    const accel_symbol_t symbols[] = {TEST_SYMBOLS(TEST_ENTRY)};
#undef TEST_ENTRY
    assert_int_equal(accel_symbol_table_resolve(self_handle(), symbols, 4, "test", "libtest",
                                                reason, sizeof reason),
                     ACCEL_OK);
    assert_string_equal(api.accel_status_name(ACCEL_ERROR_NOT_FOUND),
                        accel_status_name(ACCEL_ERROR_NOT_FOUND));
    /* accel_version's slot holds its export, accel_last_error. */
    accel_backend_error(ACCEL_ERROR_NOT_FOUND, "marker sentence");
    assert_non_null(strstr(api.accel_version(), "marker sentence"));
    /* A missing export falls back to the name. */
    assert_ptr_equal(api.accel_last_error(), accel_last_error());
    assert_null(api.accel_no_such_optional);
    assert_string_equal(reason, "untouched");
}

static void test_missing_required_clears_table(void **state)
{
    struct {
        const char *(*accel_version)(void);
        int (*accel_no_such_required)(void);
        const char *(*accel_last_error)(void);
    } api;
    const accel_symbol_t symbols[] = {
        ACCEL_SYMBOL_ENTRY(api, true, accel_version, NULL),
        ACCEL_SYMBOL_ENTRY(api, true, accel_no_such_required, NULL),
        ACCEL_SYMBOL_ENTRY(api, true, accel_last_error, NULL),
    };
    char reason[160] = "";
    (void)state;
    memset(&api, 0xab, sizeof api);
    accel_backend_error(ACCEL_ERROR_NOT_FOUND, "earlier error");
    assert_int_equal(accel_symbol_table_resolve(self_handle(), symbols, 3, "mybackend",
                                                "libvendor.so.2", reason, sizeof reason),
                     ACCEL_ERROR_UNSUPPORTED);
    assert_string_equal(reason, "libvendor.so.2 lacks accel_no_such_required, which the mybackend "
                                "backend requires");
    /* All or nothing: the slot filled before the failure is cleared too. */
    assert_null(api.accel_version);
    assert_null(api.accel_no_such_required);
    assert_null(api.accel_last_error);
    /* A missing symbol is reported through `reason` only. */
    assert_non_null(strstr(accel_last_error(), "earlier error"));

    /* A short reason buffer is truncated, still terminated. */
    char small[8];
    assert_int_equal(
        accel_symbol_table_resolve(self_handle(), symbols, 3, "b", "lib", small, sizeof small),
        ACCEL_ERROR_UNSUPPORTED);
    assert_int_equal(strlen(small), sizeof small - 1);
}

static void test_bad_arguments_write_nothing(void **state)
{
    struct {
        const char *(*accel_version)(void);
        const char *(*accel_last_error)(void);
    } api;
    accel_symbol_t symbols[] = {
        ACCEL_SYMBOL_ENTRY(api, true, accel_version, NULL),
        ACCEL_SYMBOL_ENTRY(api, true, accel_last_error, NULL),
    };
    unsigned char before[sizeof api];
    (void)state;
    memset(&api, 0xab, sizeof api);
    memcpy(before, &api, sizeof api);
    assert_int_equal(accel_symbol_table_resolve(NULL, symbols, 2, "test", "libtest", NULL, 0),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "test"));
    assert_int_equal(accel_symbol_table_resolve(self_handle(), NULL, 2, "test", "libtest", NULL, 0),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    symbols[1].slot = NULL;
    assert_int_equal(
        accel_symbol_table_resolve(self_handle(), symbols, 2, "test", "libtest", NULL, 0),
        ACCEL_ERROR_INVALID_ARGUMENT);
    assert_memory_equal(&api, before, sizeof api);
    /* An empty list is fine. */
    assert_int_equal(accel_symbol_table_resolve(self_handle(), NULL, 0, "test", "libtest", NULL, 0),
                     ACCEL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolves_export_name_and_optional),
        cmocka_unit_test(test_missing_required_clears_table),
        cmocka_unit_test(test_bad_arguments_write_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
