/* sim_fault_check.h: what every <backend>.faults test does with its
 * simulated runtime, written once: bind the sim's control functions from
 * the library the backend loaded, fail every call of a named function with a
 * code, clear faults, and check that a call failed with the status, the
 * function's name and the vendor code (SIM_CODE_FORMAT, defined by the test
 * before including this, is how the backend writes a code, e.g.
 * "aclError %d"). Header-only for test programs (cmocka); not thread-safe:
 * the fault tests run single-threaded. */
#ifndef ACCEL_SIM_FAULT_CHECK_H
#define ACCEL_SIM_FAULT_CHECK_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel.h>

#ifndef SIM_CODE_FORMAT
#error "define SIM_CODE_FORMAT (how the backend writes a vendor code) before this header"
#endif

static int (*sim_fault_set)(const char *spec);
static unsigned long (*sim_calls)(const char *function);

/* `name` from the already loaded library the environment variable `env`
 * names (RTLD_NOLOAD: the backend's own reference keeps it loaded). */
static void *sim_symbol(const char *env, const char *name)
{
    const char *path = getenv(env);
    void *library, *symbol;
    assert_non_null(path);
    library = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(library);
    symbol = dlsym(library, name);
    assert_non_null(symbol);
    dlclose(library);
    return symbol;
}

/* Bind the sim's accel_sim_fault_set and accel_sim_calls once. */
static void sim_bind(const char *env)
{
    if (sim_fault_set != NULL)
        return;
    *(void **)&sim_fault_set = sim_symbol(env, "accel_sim_fault_set");
    *(void **)&sim_calls = sim_symbol(env, "accel_sim_calls");
}

static void fail_every(const char *function, int code)
{
    char spec[128];
    snprintf(spec, sizeof spec, "%s:*:%d", function, code);
    assert_int_equal(sim_fault_set(spec), 0);
}

static void clear_faults(void)
{
    assert_int_equal(sim_fault_set(NULL), 0);
}

/* The thread's last error names `function` and `code`. */
static bool sim_names_failure(const char *function, int code)
{
    char code_text[64];
    const char *message = accel_last_error();
    snprintf(code_text, sizeof code_text, SIM_CODE_FORMAT, code);
    return strstr(message, function) != NULL && strstr(message, code_text) != NULL;
}

/* `status` is `want` and the last error names `function` and `code`. */
static void expect_failure_text(accel_status_t status, accel_status_t want, const char *function,
                                int code)
{
    char code_text[64];
    const char *message = accel_last_error();
    snprintf(code_text, sizeof code_text, SIM_CODE_FORMAT, code);
    if (status != want || !sim_names_failure(function, code))
        fail_msg("%s: status %s (want %s), last error \"%s\" (want %s and \"%s\")", function,
                 accel_status_name(status), accel_status_name(want), message, function, code_text);
}

/* As expect_failure_text, and the vendor code is kept. */
static void expect_failure(accel_status_t status, accel_status_t want, const char *function,
                           int code)
{
    expect_failure_text(status, want, function, code);
    assert_int_equal(accel_last_vendor_error(), code);
}

/* Run `call` with `function` failing, check, clear, run it again: the call
 * site was reached and the backend works after the fault. */
#define CHECK_SITE(function, code, want, call)                                                     \
    do {                                                                                           \
        unsigned long before_ = sim_calls(function);                                               \
        fail_every(function, code);                                                                \
        expect_failure((call), want, function, code);                                              \
        clear_faults();                                                                            \
        assert_true(sim_calls(function) > before_);                                                \
        assert_int_equal((call), ACCEL_OK);                                                        \
    } while (0)

#endif /* ACCEL_SIM_FAULT_CHECK_H */
