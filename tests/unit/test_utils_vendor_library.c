/* test_utils_vendor_library.c: accel_vendor_library_open
 * (accel_backend_utils.h) through the shared library, on the C math library
 * as the "vendor" library: where it looks (the override variable, home
 * folders, sonames), the sentences when it cannot load or lacks a symbol,
 * the path and handle it keeps, on_load, and one load for many threads. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel_backend_utils.h"

typedef struct test_math_api {
    double (*cos)(double);
    double (*sqrt)(double);
    double (*accel_no_such_function)(double);
} test_math_api_t;

static int test_on_load_calls;

static bool test_on_load(accel_vendor_library_t *lib, void *handle)
{
    __atomic_add_fetch(&test_on_load_calls, 1, __ATOMIC_RELAXED);
    assert_non_null(handle);
    accel_reason_format(lib->text, sizeof lib->text, "the math library, version line");
    return true;
}

static void test_loads_once_with_path_and_handle(void **state)
{
    static test_math_api_t api;
    static char path[256];
    static void *handle;
    static const accel_symbol_t symbols[] = {
        ACCEL_SYMBOL_ENTRY(api, true, cos, NULL),
        ACCEL_SYMBOL_ENTRY(api, true, sqrt, NULL),
        ACCEL_SYMBOL_ENTRY(api, false, accel_no_such_function, NULL),
    };
    static const char *const names[] = {"libaccel-no-such-library.so", "libm.so.6", NULL};
    static accel_vendor_library_t lib = {
        .name = "testmath",
        .candidates = names,
        .symbols = symbols,
        .symbol_count = 3,
        .not_found = "no math library found",
        .symbols_in = "libm.so.6",
        .path_from = "cos",
        .path = path,
        .path_cap = sizeof path,
        .handle_out = &handle,
        .on_load = test_on_load,
    };
    char reason[64] = "untouched";
    (void)state;
    unsetenv("ACCEL_TESTMATH_LIBRARY");
    test_on_load_calls = 0;
    assert_true(accel_vendor_library_open(&lib, reason, sizeof reason));
    assert_true(accel_vendor_library_open(&lib, reason, sizeof reason));
    assert_string_equal(reason, "untouched");
    assert_int_equal(test_on_load_calls, 1);
    assert_true(api.sqrt(16.0) == 4.0);
    assert_null(api.accel_no_such_function);
    assert_non_null(strstr(path, "libm"));
    assert_non_null(handle);
    assert_string_equal(lib.text, "the math library, version line");
}

static void test_not_found_says_every_place_tried(void **state)
{
    static test_math_api_t api;
    static const accel_symbol_t symbols[] = {ACCEL_SYMBOL_ENTRY(api, true, cos, NULL)};
    static const char *const homes[] = {"ACCEL_TEST_HOME_A", "ACCEL_TEST_HOME_B", NULL};
    static const char *const names[] = {"libaccel-no-such-library.so", NULL};
    static accel_vendor_library_t unset = {
        .name = "testnone",
        .home_vars = homes,
        .home_file = "lib64/libaccel-no-such-library.so",
        .home_unset = "; ACCEL_TEST_HOME_A and ACCEL_TEST_HOME_B are unset",
        .candidates = names,
        .symbols = symbols,
        .symbol_count = 1,
        .not_found = "no test runtime found",
        .not_found_hint = "set ACCEL_TESTNONE_LIBRARY to its path",
        .symbols_in = "libaccel-no-such-library.so",
    };
    accel_vendor_library_t set = unset;
    char reason[512];
    (void)state;
    unsetenv("ACCEL_TEST_HOME_A");
    unsetenv("ACCEL_TEST_HOME_B");
    assert_false(accel_vendor_library_open(&unset, reason, sizeof reason));
    assert_non_null(strstr(reason, "no test runtime found (tried libaccel-no-such-library.so: "));
    assert_non_null(strstr(reason, "; ACCEL_TEST_HOME_A and ACCEL_TEST_HOME_B are unset)"
                                   "; set ACCEL_TESTNONE_LIBRARY to its path"));
    assert_null(api.cos);
    /* A home set: tried first, and the "unset" words are gone. */
    setenv("ACCEL_TEST_HOME_B", "/nonexistent-accel-home", 1);
    set.state = 0;
    assert_false(accel_vendor_library_open(&set, reason, sizeof reason));
    assert_non_null(
        strstr(reason, "(tried /nonexistent-accel-home/lib64/libaccel-no-such-library.so: "));
    assert_null(strstr(reason, "unset"));
    unsetenv("ACCEL_TEST_HOME_B");
    /* A reason buffer that is too short is cut, not overrun. */
    assert_false(accel_vendor_library_open(&unset, reason, 8));
    assert_int_equal(strlen(reason), 7);
}

static void test_brief_tried(void **state)
{
    static test_math_api_t api;
    static const accel_symbol_t symbols[] = {ACCEL_SYMBOL_ENTRY(api, true, cos, NULL)};
    static const char *const names[] = {"libaccel-no-such-library.so", NULL};
    static accel_vendor_library_t lib = {
        .name = "testbrief",
        .candidates = names,
        .brief_tried = true,
        .symbols = symbols,
        .symbol_count = 1,
        .not_found = "no test runtime",
        .symbols_in = "x",
    };
    char reason[256];
    (void)state;
    assert_false(accel_vendor_library_open(&lib, reason, sizeof reason));
    assert_string_equal(reason, "no test runtime (tried libaccel-no-such-library.so: not found)");
}

static void test_missing_symbol_and_override(void **state)
{
    static test_math_api_t api;
    static const accel_symbol_t symbols[] = {
        ACCEL_SYMBOL_ENTRY(api, true, cos, NULL),
        ACCEL_SYMBOL_ENTRY(api, true, accel_no_such_function, NULL),
    };
    static const char *const names[] = {"libaccel-no-such-library.so", NULL};
    static accel_vendor_library_t lib = {
        .name = "testlacks",
        .backend = "mydev",
        .candidates = names,
        .symbols = symbols,
        .symbol_count = 2,
        .not_found = "no test runtime",
        .symbols_in = "the libm.so.6 that loaded",
        .too_old = "libm too old?",
    };
    char reason[256];
    (void)state;
    /* ACCEL_TESTLACKS_LIBRARY is tried first: it loads, but lacks a symbol. */
    setenv("ACCEL_TESTLACKS_LIBRARY", "libm.so.6", 1);
    assert_false(accel_vendor_library_open(&lib, reason, sizeof reason));
    unsetenv("ACCEL_TESTLACKS_LIBRARY");
    assert_string_equal(reason, "the libm.so.6 that loaded lacks accel_no_such_function, which "
                                "the mydev backend requires (libm too old?)");
    assert_null(api.cos); /* all or nothing */
    assert_false(accel_vendor_library_open(NULL, reason, sizeof reason));
    assert_string_equal(reason, "no vendor library described");
}

static test_math_api_t threads_api;
static const accel_symbol_t threads_symbols[] = {ACCEL_SYMBOL_ENTRY(threads_api, true, cos, NULL)};
static const char *const threads_names[] = {"libm.so.6", NULL};
static accel_vendor_library_t threads_lib = {
    .name = "testthreads",
    .candidates = threads_names,
    .symbols = threads_symbols,
    .symbol_count = 1,
    .not_found = "no math library",
    .symbols_in = "libm.so.6",
    .on_load = test_on_load,
};

static void *test_open_from_thread(void *arg)
{
    (void)arg;
    return accel_vendor_library_open(&threads_lib, NULL, 0) && threads_api.cos(0.0) == 1.0
               ? &threads_lib
               : NULL;
}

static void test_one_load_for_many_threads(void **state)
{
    pthread_t threads[8];
    (void)state;
    test_on_load_calls = 0;
    for (int i = 0; i < 8; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, test_open_from_thread, NULL), 0);
    for (int i = 0; i < 8; i++) {
        void *result = NULL;
        assert_int_equal(pthread_join(threads[i], &result), 0);
        assert_ptr_equal(result, &threads_lib);
    }
    assert_int_equal(test_on_load_calls, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loads_once_with_path_and_handle),
        cmocka_unit_test(test_not_found_says_every_place_tried),
        cmocka_unit_test(test_brief_tried),
        cmocka_unit_test(test_missing_symbol_and_override),
        cmocka_unit_test(test_one_load_for_many_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
