/* check.h: how a selftest check is written. A check is `void fn(void **state)`
 * run by the selftest runner (runner.h) in a child process of its own, on the
 * accelerator `conformance_acc` the child opened. The assertions are a
 * cmocka-compatible subset, so the conformance checks read as cmocka tests
 * do, but no test framework is needed at run time.
 *
 * Failing: an assertion that fails, fail_msg() or skip() ends the check at
 * once. On the check's own thread it unwinds with longjmp to the runner;
 * on any other thread (a helper thread, a host callback) the result is
 * written and the child process exits, since nothing can unwind there. Each
 * check owns its process, so nothing after the first failure is trusted. */
#ifndef ACCEL_SELFTEST_CHECK_H
#define ACCEL_SELFTEST_CHECK_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <accel/accel.h>

/* The accelerator under test (accel_open of the chosen backend, in the
 * child) and the name it was opened by. Set by the runner before a check
 * runs; a check must not close it. */
extern accel_t *conformance_acc;
extern const char *conformance_backend;

/* The checks this child process ran before the running one, in order, and
 * whether each FAILed (child.c; a skip is not a failure). Every rank of a
 * launched run runs the same collectives in the same order, so index i
 * names the same check on every rank (comm.ranks_agree relies on it).
 * Valid until the child exits. */
size_t selftest_child_history(const char *const **names, const bool **failed);

/* ---------------------------------------------------------------- ending a check */

/* End the running check as failed (FAIL) or skipped (SKIP) with a sentence;
 * `file` and `line` say where. Never return. */
void check_fail_at(const char *file, int line, const char *format, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
void check_skip_at(const char *file, int line, const char *format, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
/* Print a note to the check's output (kept with its result, shown on failure
 * and in the JSON report). */
void check_print(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Assertion bodies that format the two compared values (check.c). */
void check_int_equal_at(const char *file, int line, const char *a_text, const char *b_text,
                        uintmax_t a, uintmax_t b, bool want_equal);
void check_string_equal_at(const char *file, int line, const char *a_text, const char *b_text,
                           const char *a, const char *b, bool want_equal);
void check_memory_equal_at(const char *file, int line, const char *a_text, const char *b_text,
                           const void *a, const void *b, size_t size, bool want_equal);

/* ---------------------------------------------------------------- the cmocka subset */

#define fail_msg(...) check_fail_at(__FILE__, __LINE__, __VA_ARGS__)
#define fail()        check_fail_at(__FILE__, __LINE__, "fail() reached")
#define skip()        check_skip_at(__FILE__, __LINE__, "skipped")
#define print_message check_print
#define print_error   check_print

#define assert_true(c)                                                                             \
    do {                                                                                           \
        if (!(c))                                                                                  \
            check_fail_at(__FILE__, __LINE__, "%s is false", #c);                                  \
    } while (0)
#define assert_false(c)                                                                            \
    do {                                                                                           \
        if (c)                                                                                     \
            check_fail_at(__FILE__, __LINE__, "%s is true", #c);                                   \
    } while (0)
#define assert_null(p)                                                                             \
    do {                                                                                           \
        if ((p) != NULL)                                                                           \
            check_fail_at(__FILE__, __LINE__, "%s is not NULL", #p);                               \
    } while (0)
#define assert_non_null(p)                                                                         \
    do {                                                                                           \
        if ((p) == NULL)                                                                           \
            check_fail_at(__FILE__, __LINE__, "%s is NULL", #p);                                   \
    } while (0)
/* Integers compare as uintmax_t, as cmocka's LargestIntegralType does. */
#define assert_int_equal(a, b)                                                                     \
    check_int_equal_at(__FILE__, __LINE__, #a, #b, (uintmax_t)(a), (uintmax_t)(b), true)
#define assert_int_not_equal(a, b)                                                                 \
    check_int_equal_at(__FILE__, __LINE__, #a, #b, (uintmax_t)(a), (uintmax_t)(b), false)
#define assert_ptr_equal(a, b)                                                                     \
    check_int_equal_at(__FILE__, __LINE__, #a, #b, (uintmax_t)(uintptr_t)(a),                      \
                       (uintmax_t)(uintptr_t)(b), true)
#define assert_ptr_not_equal(a, b)                                                                 \
    check_int_equal_at(__FILE__, __LINE__, #a, #b, (uintmax_t)(uintptr_t)(a),                      \
                       (uintmax_t)(uintptr_t)(b), false)
#define assert_string_equal(a, b) check_string_equal_at(__FILE__, __LINE__, #a, #b, (a), (b), true)
#define assert_string_not_equal(a, b)                                                              \
    check_string_equal_at(__FILE__, __LINE__, #a, #b, (a), (b), false)
#define assert_memory_equal(a, b, size)                                                            \
    check_memory_equal_at(__FILE__, __LINE__, #a, #b, (a), (b), (size), true)
#define assert_memory_not_equal(a, b, size)                                                        \
    check_memory_equal_at(__FILE__, __LINE__, #a, #b, (a), (b), (size), false)

/* ---------------------------------------------------------------- accel assertions */

/* Format a failure of `expr`: its status and the thread's last error. */
#define CONF_FAIL_STATUS(expr_text, got, want)                                                     \
    do {                                                                                           \
        char conf_err_[512];                                                                       \
        snprintf(conf_err_, sizeof conf_err_, "%s", accel_last_error());                           \
        fail_msg("%s returned %s, expected %s (last error: \"%s\")", expr_text,                    \
                 accel_status_name(got), want, conf_err_);                                         \
    } while (0)

/* The call must succeed. */
#define assert_ok(expr)                                                                            \
    do {                                                                                           \
        accel_status_t conf_st_ = (expr);                                                          \
        if (conf_st_ != ACCEL_OK)                                                                  \
            CONF_FAIL_STATUS(#expr, conf_st_, "ACCEL_OK");                                         \
    } while (0)

/* The call must fail with exactly `want` and leave a non-empty last error. */
#define assert_status(want, expr)                                                                  \
    do {                                                                                           \
        accel_status_t conf_st_ = (expr);                                                          \
        if (conf_st_ != (want))                                                                    \
            CONF_FAIL_STATUS(#expr, conf_st_, #want);                                              \
        if (conf_st_ != ACCEL_OK && accel_last_error()[0] == '\0')                                 \
            fail_msg("%s failed with an empty accel_last_error()", #expr);                         \
    } while (0)

/* The call must fail (any status, where the header names none) with a message. */
#define assert_refused(expr)                                                                       \
    do {                                                                                           \
        accel_status_t conf_st_ = (expr);                                                          \
        if (conf_st_ == ACCEL_OK)                                                                  \
            fail_msg("%s succeeded but must be refused", #expr);                                   \
        if (accel_last_error()[0] == '\0')                                                         \
            fail_msg("%s failed with an empty accel_last_error()", #expr);                         \
    } while (0)

/* Skip the running check, saying why (capabilities, never backend names). */
#define conf_skip(...) check_skip_at(__FILE__, __LINE__, __VA_ARGS__)

/* ---------------------------------------------------------------- helpers (helpers.c) */

/* Value of a capability flag of the accelerator under test (the query must work). */
bool conf_flag(accel_flag_t flag);
/* Skip unless the backend has created streams (ACCEL_FLAG_STREAMS_SUPPORTED). */
void conf_require_streams(void);
/* Skip unless the backend has events (ACCEL_FLAG_EVENTS_SUPPORTED). */
void conf_require_events(void);
/* Skip unless a capability flag is true; `what` says what it stands for. */
void conf_require_flag(accel_flag_t flag, const char *what);
/* The number of devices (asserted >= 1). */
int conf_device_count(void);
/* The calling thread's current device. */
int conf_current_device(void);

/* Device buffer <-> host helpers (the copy waits for the current stream). */
void *conf_device_alloc(size_t size);
void conf_device_free(void *ptr);
void conf_to_host(void *host, const void *device, size_t size);
void conf_to_device(void *device, const void *host, size_t size);
/* Wait for the calling thread's current stream on the current device. */
void conf_sync_current_stream(void);

/* `count` u32 words of the current device's generator, copied back to `out`. */
void conf_rng_u32(uint32_t *out, size_t count);
/* Offset field of the current device's RNG state blob. */
uint64_t conf_rng_offset(void);

/* Current memory_allocated of the current device. */
uint64_t conf_allocated(void);
/* Entry `index` of the current device's torch memory_stats(): false past
 * the last one, else true with its key and value (any other failure of
 * accel_memory_stats_entry fails the check). */
bool conf_memory_stat_entry(size_t index, const char **key, uint64_t *value);
/* Value of torch memory_stats() key `name` on the current device; fails
 * the check when there is no such key. */
uint64_t conf_memory_stat(const char *name);
/* Asserts that every peak of the current device's accel_memory_stats equals
 * its current value (as after a reset of the peaks). */
void conf_assert_peaks_are_current(void);

/* A gate a host callback blocks on until the check opens it. */
typedef struct conf_gate {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool open;
} conf_gate_t;
void conf_gate_init(conf_gate_t *gate);
void conf_gate_open(conf_gate_t *gate);
void conf_gate_destroy(conf_gate_t *gate);
/* An accel_host_fn_t: blocks until the gate (its user_data) opens. */
void conf_gate_wait_fn(void *gate);

/* Run `fn(index, arg)` on `count` threads started together; joins them all. */
typedef void (*conf_thread_fn_t)(int index, void *arg);
void conf_run_threads(int count, conf_thread_fn_t fn, void *arg);

/* Back to device 0 and the default stream on this thread. */
int conf_restore(void **state);

#endif /* ACCEL_SELFTEST_CHECK_H */
