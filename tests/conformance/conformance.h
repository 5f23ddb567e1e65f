/* conformance.h: helpers shared by the conformance suite's test files.
 * The suite is written only against include/accel/accel.h and runs over the
 * accelerator opened by main.c (named on the command line). */
#ifndef ACCEL_CONFORMANCE_H
#define ACCEL_CONFORMANCE_H

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <accel/accel.h>

#include "test-list.h"

/* The accelerator under test (from accel_open) and the name it was opened by. */
extern accel_t *conformance_acc;
extern const char *conformance_backend;

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

/* Skip the running test, printing why (capabilities, never backend names). */
#define conf_skip(...)                                                                             \
    do {                                                                                           \
        print_message("[  SKIP    ] reason: ");                                                    \
        print_message(__VA_ARGS__);                                                                \
        print_message("\n");                                                                       \
        skip();                                                                                    \
    } while (0)

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

/* A gate a host callback blocks on until the test opens it. */
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

/* Per-test teardown: back to device 0 and the default stream on this thread. */
int conf_restore(void **state);

#endif /* ACCEL_CONFORMANCE_H */
