/* sim_fault_driver.h: the one driver of every <backend>.faults test. A test
 * lists its backend's call sites as tables of sim_fault_site_t (the vendor
 * call made to fail, the accel operation that reaches it, the status that
 * operation must then give) and hands each table to sim_fault_run; the
 * driver fails the call, runs the operation, checks the status and the
 * sentence, clears the fault, checks that the sim saw the call, and runs the
 * operation again, which must work. The operations every backend shares
 * (sim_op_*) and the checks that are the same on every runtime (a failed
 * initialisation or open, the memory sites, the stream and event sites, a
 * forked child) live here too, over sim_fault_check.h; a backend names its
 * calls for them (tests/sim/README.md, "Adding a sim").
 * A test defines, before including this, SIM_CODE_FORMAT (sim_fault_check.h),
 * SIM_BACKEND (the backend's name, "npu") and SIM_LIBRARY_ENV (the variable
 * that names the sim's library, "ACCEL_NPU_LIBRARY").
 * Header-only for cmocka test programs; single-threaded, like the tests. */
#ifndef ACCEL_SIM_FAULT_DRIVER_H
#define ACCEL_SIM_FAULT_DRIVER_H

#include <sys/wait.h>
#include <unistd.h>

#include "sim_fault_check.h"

#if !defined(SIM_BACKEND) || !defined(SIM_LIBRARY_ENV)
#error "define SIM_BACKEND and SIM_LIBRARY_ENV before sim_fault_driver.h"
#endif

/* A new accel_t on the backend that has not touched the runtime yet (the
 * sim's controls bound on first use). */
__attribute__((unused)) static accel_t *sim_fault_open(void)
{
    accel_t *acc = NULL;
    assert_int_equal(accel_open(SIM_BACKEND, &acc), ACCEL_OK);
    sim_bind(SIM_LIBRARY_ENV);
    return acc;
}

/* A new accel_t, initialised (any device-touching call runs init) and
 * device 0 active. */
__attribute__((unused)) static accel_t *sim_fault_open_ready(void)
{
    accel_t *acc = sim_fault_open();
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK);
    return acc;
}

/* What the operations of a table work on. The test owns it; the stream and
 * the two events exist only between sim_fault_fixture_open and _close. */
typedef struct sim_fault_fixture {
    accel_t *acc;
    accel_stream_t *stream;     /* a created stream */
    accel_event_t *start, *end; /* timing events, both recorded on stream */
    int code;                   /* the vendor code injected */
    /* How a failure is checked (NULL: expect_failure, which also wants the
     * vendor code kept), and whether a failing site fails only its next
     * call, so that the retry runs with the rule still set but spent. */
    void (*expect)(accel_status_t status, accel_status_t want, const char *what, int code);
    bool once;
    void *user; /* the test's own, for its operations */
} sim_fault_fixture_t;

/* An accel operation that reaches a vendor call. */
typedef accel_status_t (*sim_fault_op_t)(sim_fault_fixture_t *fx);

/* One row of a test's table; a row with function NULL ends it. Rows leave
 * the optional last members out, which -Wextra would flag in every table. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
typedef struct sim_fault_site {
    const char *function; /* the vendor call made to fail */
    sim_fault_op_t run;   /* the accel operation that reaches it */
    accel_status_t want;  /* its status then; ACCEL_OK: survived (a cleanup, logged) */
    const char *named_as; /* how the sentence names the call (NULL: function) */
    const char *then;     /* a call still reached while function fails (NULL: none) */
    int code;             /* the code injected (0: the fixture's) */
} sim_fault_site_t;

static void sim_fault_expect(sim_fault_fixture_t *fx, accel_status_t status, accel_status_t want,
                             const char *what, int code)
{
    if (fx->expect != NULL)
        fx->expect(status, want, what, code);
    else
        expect_failure(status, want, what, code);
}

/* One row: fail, run, check, clear, the call was reached, run again. */
static void sim_fault_run_site(sim_fault_fixture_t *fx, const sim_fault_site_t *site)
{
    const char *what = site->named_as != NULL ? site->named_as : site->function;
    unsigned long before = sim_calls(site->function);
    unsigned long then_before = site->then != NULL ? sim_calls(site->then) : 0;
    bool survived = site->want == ACCEL_OK;
    int code = site->code != 0 ? site->code : fx->code;
    accel_status_t status;
    if (fx->once && !survived)
        fail_once(site->function, code);
    else
        fail_every(site->function, code);
    status = site->run(fx);
    if (survived && status != ACCEL_OK)
        fail_msg("%s failing: status %s, want ACCEL_OK (survived): \"%s\"", site->function,
                 accel_status_name(status), accel_last_error());
    if (!survived)
        sim_fault_expect(fx, status, site->want, what, code);
    if (!fx->once || survived)
        clear_faults();
    if (sim_calls(site->function) <= before)
        fail_msg("%s was never called", site->function);
    if (site->then != NULL && sim_calls(site->then) <= then_before)
        fail_msg("%s was not called while %s failed", site->then, site->function);
    if (!survived && (status = site->run(fx)) != ACCEL_OK)
        fail_msg("%s: the operation after the fault: status %s, \"%s\"", site->function,
                 accel_status_name(status), accel_last_error());
    clear_faults();
}

/* Every row of `sites`, in order. */
__attribute__((unused)) static void sim_fault_run(sim_fault_fixture_t *fx,
                                                  const sim_fault_site_t *sites)
{
    for (const sim_fault_site_t *site = sites; site->function != NULL; site++)
        sim_fault_run_site(fx, site);
}

/* A stream and two timing events recorded on it, for the stream rows. */
__attribute__((unused)) static void sim_fault_fixture_open(sim_fault_fixture_t *fx)
{
    assert_int_equal(accel_stream_create(fx->acc, 0, 0, &fx->stream), ACCEL_OK);
    assert_int_equal(accel_event_create(fx->acc, 0, ACCEL_EVENT_TIMING, &fx->start), ACCEL_OK);
    assert_int_equal(accel_event_create(fx->acc, 0, ACCEL_EVENT_TIMING, &fx->end), ACCEL_OK);
    assert_int_equal(accel_event_record(fx->start, fx->stream), ACCEL_OK);
    assert_int_equal(accel_event_record(fx->end, fx->stream), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(fx->stream), ACCEL_OK);
}

__attribute__((unused)) static void sim_fault_fixture_close(sim_fault_fixture_t *fx)
{
    assert_int_equal(accel_event_destroy(fx->end), ACCEL_OK);
    assert_int_equal(accel_event_destroy(fx->start), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(fx->stream), ACCEL_OK);
    fx->stream = NULL;
    fx->start = fx->end = NULL;
}

/* ---------------------------------------------------------------- shared operations */

__attribute__((unused)) static accel_status_t sim_op_synchronize(sim_fault_fixture_t *fx)
{
    return accel_synchronize(fx->acc, 0);
}

__attribute__((unused)) static accel_status_t sim_op_device_properties(sim_fault_fixture_t *fx)
{
    accel_device_properties_t props = {.struct_size = sizeof props};
    return accel_device_properties(fx->acc, 0, &props);
}

__attribute__((unused)) static accel_status_t sim_op_available_memory(sim_fault_fixture_t *fx)
{
    uint64_t available = 0;
    return accel_available_memory(fx->acc, 0, &available);
}

/* A stream made and, when that worked, destroyed again. */
__attribute__((unused)) static accel_status_t sim_op_stream_create(sim_fault_fixture_t *fx)
{
    accel_stream_t *stream = NULL;
    accel_status_t status = accel_stream_create(fx->acc, 0, 0, &stream);
    if (status == ACCEL_OK)
        assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    return status;
}

/* A stream made (not a site) and destroyed: the destroy's calls may fail. */
__attribute__((unused)) static accel_status_t sim_op_stream_destroy(sim_fault_fixture_t *fx)
{
    accel_stream_t *stream = NULL;
    assert_int_equal(accel_stream_create(fx->acc, 0, 0, &stream), ACCEL_OK);
    return accel_stream_destroy(stream);
}

__attribute__((unused)) static accel_status_t sim_op_stream_synchronize(sim_fault_fixture_t *fx)
{
    return accel_stream_synchronize(fx->stream);
}

__attribute__((unused)) static accel_status_t sim_op_stream_query(sim_fault_fixture_t *fx)
{
    return accel_stream_query(fx->stream);
}

/* A timing event made and, when that worked, destroyed again. */
__attribute__((unused)) static accel_status_t sim_op_event_create(sim_fault_fixture_t *fx)
{
    accel_event_t *event = NULL;
    accel_status_t status = accel_event_create(fx->acc, 0, ACCEL_EVENT_TIMING, &event);
    if (status == ACCEL_OK)
        assert_int_equal(accel_event_destroy(event), ACCEL_OK);
    return status;
}

/* A timing event made (not a site) and destroyed. */
__attribute__((unused)) static accel_status_t sim_op_event_destroy(sim_fault_fixture_t *fx)
{
    accel_event_t *event = NULL;
    assert_int_equal(accel_event_create(fx->acc, 0, ACCEL_EVENT_TIMING, &event), ACCEL_OK);
    return accel_event_destroy(event);
}

/* The end event recorded again (after start, so elapsed time stays valid). */
__attribute__((unused)) static accel_status_t sim_op_event_record(sim_fault_fixture_t *fx)
{
    return accel_event_record(fx->end, fx->stream);
}

__attribute__((unused)) static accel_status_t sim_op_event_synchronize(sim_fault_fixture_t *fx)
{
    return accel_event_synchronize(fx->end);
}

__attribute__((unused)) static accel_status_t sim_op_event_query(sim_fault_fixture_t *fx)
{
    return accel_event_query(fx->end);
}

__attribute__((unused)) static accel_status_t sim_op_event_elapsed(sim_fault_fixture_t *fx)
{
    float ms = 0;
    return accel_event_elapsed_ms(fx->start, fx->end, &ms);
}

__attribute__((unused)) static accel_status_t sim_op_stream_wait_event(sim_fault_fixture_t *fx)
{
    return accel_stream_wait_event(fx->stream, fx->end);
}

/* count_callback (sim_fault_check.h) added to the stream. */
__attribute__((unused)) static accel_status_t sim_op_add_callback(sim_fault_fixture_t *fx)
{
    return accel_stream_add_callback(fx->stream, count_callback, NULL);
}

/* ---------------------------------------------------------------- checks every runtime shares */

/* Each of `functions` (NULL-terminated) fails on a fresh accel_t, whose
 * first synchronize then fails initialising (the sentence names the call;
 * core words it, so the vendor code is not checked) and which closes; the
 * next accel_t initialises again and works. */
__attribute__((unused)) static void sim_fault_check_init(const char *const *functions, int code)
{
    for (const char *const *fn = functions; *fn != NULL; fn++) {
        accel_t *acc = sim_fault_open();
        unsigned long before = sim_calls(*fn);
        fail_every(*fn, code);
        expect_failure_text(accel_synchronize(acc, 0), ACCEL_ERROR_DEVICE_ERROR, *fn, code);
        clear_faults();
        assert_true(sim_calls(*fn) > before);
        assert_int_equal(accel_close(acc), ACCEL_OK);
        acc = sim_fault_open_ready();
        assert_int_equal(accel_close(acc), ACCEL_OK);
    }
}

/* `function`, called by a new accel_t's first use of the runtime on this
 * thread (setting the device), fails: that use says so, keeping the vendor
 * code, and the next one works. */
__attribute__((unused)) static void sim_fault_check_first_use(const char *function, int code)
{
    const sim_fault_site_t site = {function, sim_op_synchronize, ACCEL_ERROR_DEVICE_ERROR};
    sim_fault_fixture_t fx = {.acc = sim_fault_open(), .code = code};
    sim_fault_run_site(&fx, &site);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

/* With `function` failing, opening the backend (a second accel_t beside a
 * working one) is refused, saying why; then it opens. */
__attribute__((unused)) static void sim_fault_check_open_refused(const char *function, int code)
{
    accel_t *acc = NULL, *first = sim_fault_open_ready();
    fail_every(function, code);
    assert_int_not_equal(accel_open(SIM_BACKEND, &acc), ACCEL_OK);
    if (!sim_names_failure(function, code))
        fail_msg("open with %s failing: \"%s\"", function, accel_last_error());
    clear_faults();
    acc = sim_fault_open_ready();
    assert_int_equal(accel_close(acc), ACCEL_OK);
    assert_int_equal(accel_close(first), ACCEL_OK);
}

/* The stream and event call sites every runtime has, each reached by the
 * shared operation of the same name; NULL leaves one out (a test with its
 * own way to reach it lists it in its own table). */
typedef struct sim_stream_sites {
    const char *stream[3]; /* create, synchronize, query */
    const char *event[5];  /* create, record, synchronize, query, elapsed time */
    const char *stream_wait_event, *add_callback;
} sim_stream_sites_t;

/* Each of `names`' sites in turn, on fx's stream and events
 * (sim_fault_fixture_open), each failure an ordinary DEVICE_ERROR. */
__attribute__((unused)) static void sim_fault_check_streams(sim_fault_fixture_t *fx,
                                                            const sim_stream_sites_t *names)
{
    const sim_fault_site_t sites[] = {
        {names->stream[0], sim_op_stream_create, ACCEL_ERROR_DEVICE_ERROR},
        {names->stream[1], sim_op_stream_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {names->stream[2], sim_op_stream_query, ACCEL_ERROR_DEVICE_ERROR},
        {names->event[0], sim_op_event_create, ACCEL_ERROR_DEVICE_ERROR},
        {names->event[1], sim_op_event_record, ACCEL_ERROR_DEVICE_ERROR},
        {names->event[2], sim_op_event_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {names->event[3], sim_op_event_query, ACCEL_ERROR_DEVICE_ERROR},
        {names->event[4], sim_op_event_elapsed, ACCEL_ERROR_DEVICE_ERROR},
        {names->stream_wait_event, sim_op_stream_wait_event, ACCEL_ERROR_DEVICE_ERROR},
        {names->add_callback, sim_op_add_callback, ACCEL_ERROR_DEVICE_ERROR},
    };
    for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++)
        if (sites[i].function != NULL)
            sim_fault_run_site(fx, &sites[i]);
}

/* ---------------------------------------------------------------- sync calls under load
 *
 * Every vendor call behind a wait (device, stream and event synchronize, a
 * drain inside a copy) fails once, then twice in a row, while work is in
 * flight on fx's stream: a fill of a device block, its copy into pinned
 * memory, the block freed behind them (accel_free_async) and fx->end
 * recorded after. Each failed wait gives `want` with the backend's sentence;
 * the next one works; then the copy has landed. Nothing the work still uses
 * may be freed by a failed wait: under ASan a copy into freed memory fails
 * the test. */

#define SIM_SYNC_BYTES (1u << 20)

/* A copy from the in-flight block's successor into pageable memory on fx's
 * stream: backends that stage it drain the stream inside the call. */
__attribute__((unused)) static accel_status_t sim_op_copy_to_pageable(sim_fault_fixture_t *fx)
{
    static uint8_t pageable[4096];
    void *block = NULL;
    accel_status_t status;
    assert_int_equal(accel_malloc(fx->acc, sizeof pageable, &block), ACCEL_OK);
    status = accel_memcpy_async(fx->acc, pageable, block, sizeof pageable,
                                ACCEL_COPY_DEVICE_TO_HOST, fx->stream);
    if (status == ACCEL_OK)
        status = accel_stream_synchronize(fx->stream);
    assert_int_equal(accel_free_async(fx->acc, block, fx->stream), ACCEL_OK);
    return status;
}

/* In-flight work on fx's stream, whose copy lands in `pinned`. */
static void sim_sync_queue_work(sim_fault_fixture_t *fx, uint8_t *pinned, int value)
{
    void *block = NULL;
    assert_int_equal(accel_malloc(fx->acc, SIM_SYNC_BYTES, &block), ACCEL_OK);
    assert_int_equal(accel_memset_async(fx->acc, block, value, SIM_SYNC_BYTES, fx->stream),
                     ACCEL_OK);
    assert_int_equal(accel_memcpy_async(fx->acc, pinned, block, SIM_SYNC_BYTES,
                                        ACCEL_COPY_DEVICE_TO_HOST, fx->stream),
                     ACCEL_OK);
    assert_int_equal(accel_free_async(fx->acc, block, fx->stream), ACCEL_OK);
    assert_int_equal(accel_event_record(fx->end, fx->stream), ACCEL_OK);
}

/* One site failing `times` calls in a row (1 or 2) under in-flight work. */
static void sim_sync_site_times(sim_fault_fixture_t *fx, const sim_fault_site_t *site,
                                unsigned times, uint8_t *pinned)
{
    const char *what = site->named_as != NULL ? site->named_as : site->function;
    int code = site->code != 0 ? site->code : fx->code;
    int value = 0x40 + (int)times;
    unsigned long before = sim_calls(site->function);
    char spec[256];
    accel_status_t status;
    memset(pinned, 0, SIM_SYNC_BYTES);
    sim_sync_queue_work(fx, pinned, value);
    if (times == 1)
        snprintf(spec, sizeof spec, "%s:1:%d", site->function, code);
    else
        snprintf(spec, sizeof spec, "%s:1:%d,%s:2:%d", site->function, code, site->function, code);
    assert_int_equal(sim_fault_set(spec), 0);
    for (unsigned i = 0; i < times; i++) {
        status = site->run(fx);
        if (status == ACCEL_OK)
            fail_msg("%s failing (call %u of %u in a row): the wait returned ACCEL_OK",
                     site->function, i + 1, times);
        sim_fault_expect(fx, status, site->want, what, code);
    }
    if (sim_calls(site->function) < before + times)
        fail_msg("%s was called %lu times, want %u failed calls", site->function,
                 sim_calls(site->function) - before, times);
    status = site->run(fx); /* the rules are spent: this one works */
    if (status != ACCEL_OK)
        fail_msg("%s after %u failed calls: status %s, \"%s\"", site->function, times,
                 accel_status_name(status), accel_last_error());
    clear_faults();
    assert_int_equal(accel_stream_synchronize(fx->stream), ACCEL_OK);
    for (size_t i = 0; i < SIM_SYNC_BYTES; i += 4093)
        if (pinned[i] != (uint8_t)value)
            fail_msg("%s failing %u times: byte %zu of the in-flight copy is 0x%02x, not 0x%02x",
                     site->function, times, i, pinned[i], value);
}

/* Each row of `sites` (function NULL ends them) failed once, then twice in
 * a row, on fx's stream and events (sim_fault_fixture_open). */
__attribute__((unused)) static void sim_fault_check_sync(sim_fault_fixture_t *fx,
                                                         const sim_fault_site_t *sites)
{
    void *pinned = NULL;
    assert_int_equal(accel_host_alloc(fx->acc, SIM_SYNC_BYTES, &pinned), ACCEL_OK);
    for (const sim_fault_site_t *site = sites; site->function != NULL; site++)
        for (unsigned times = 1; times <= 2; times++)
            sim_sync_site_times(fx, site, times, pinned);
    assert_int_equal(accel_host_free(fx->acc, pinned), ACCEL_OK);
}

/* The vendor calls behind a backend's four waits, for sim_fault_check_sync
 * as a test of its own (FAULT_SYNC_TEST): device, stream and event
 * synchronize, and the wait of a copy to pageable memory. `code` is the
 * vendor code injected; each failure must give DEVICE_ERROR. */
typedef struct sim_sync_sites {
    int code;
    const char *device, *stream, *event, *pageable;
} sim_sync_sites_t;

__attribute__((unused)) static void sim_fault_test_sync(void **state)
{
    const sim_sync_sites_t *s = *state;
    const sim_fault_site_t sites[] = {
        {s->device, sim_op_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {s->stream, sim_op_stream_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {s->event, sim_op_event_synchronize, ACCEL_ERROR_DEVICE_ERROR},
        {s->pageable, sim_op_copy_to_pageable, ACCEL_ERROR_DEVICE_ERROR},
        {NULL},
    };
    sim_fault_fixture_t fx = {.acc = sim_fault_open_ready(), .code = s->code};
    sim_fault_fixture_open(&fx);
    sim_fault_check_sync(&fx, sites);
    sim_fault_fixture_close(&fx);
    assert_int_equal(accel_close(fx.acc), ACCEL_OK);
}

/* check_memory_sites (sim_fault_check.h) on a new accel_t: a test of its
 * own, with the backend's sites as its state (FAULT_MEMORY_TEST). */
__attribute__((unused)) static void sim_fault_test_memory(void **state)
{
    accel_t *acc = sim_fault_open_ready();
    check_memory_sites(acc, *state);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* After the runtime started, a forked child gets a clear refusal from every
 * call (`want`) and the sim sees no call from it (`malloc_fn`: the device
 * allocation); with `close_fns` (NULL-terminated, or NULL: the child does
 * not close), closing in the child makes none of those calls either: it
 * frees host records only. The parent works on. */
__attribute__((unused)) static void sim_fault_check_fork_refused(const char *malloc_fn,
                                                                 accel_status_t want,
                                                                 const char *const *close_fns)
{
    accel_t *acc = sim_fault_open_ready();
    void *device = NULL;
    int status = 0;
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        unsigned long before = sim_calls(malloc_fn), closing = 0;
        accel_status_t result = accel_malloc(acc, 8 << 20, &device);
        bool ok = result == want && strstr(accel_last_error(), "forked child") != NULL &&
                  sim_calls(malloc_fn) == before;
        if (!ok)
            fprintf(stderr, "child: status %s, \"%s\"\n", accel_status_name(result),
                    accel_last_error());
        if (close_fns != NULL) {
            for (const char *const *fn = close_fns; *fn != NULL; fn++)
                closing += sim_calls(*fn);
            (void)accel_close(acc);
            for (const char *const *fn = close_fns; *fn != NULL; fn++)
                closing -= sim_calls(*fn);
            ok = ok && closing == 0;
        }
        _exit(ok ? 0 : 1);
    }
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(accel_malloc(acc, 8 << 20, &device), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* A failed check leaves its fault set: every test clears it after. */
static int sim_fault_clear_after(void **state)
{
    (void)state;
    if (sim_fault_set != NULL)
        sim_fault_set(NULL);
    return 0;
}

#define FAULT_TEST(f) cmocka_unit_test_teardown(f, sim_fault_clear_after)
#define FAULT_SYNC_TEST(sites)                                                                     \
    cmocka_unit_test_prestate_setup_teardown(sim_fault_test_sync, NULL, sim_fault_clear_after,     \
                                             (void *)(sites))
#define FAULT_MEMORY_TEST(sites)                                                                   \
    cmocka_unit_test_prestate_setup_teardown(sim_fault_test_memory, NULL, sim_fault_clear_after,   \
                                             (void *)(sites))

#endif /* ACCEL_SIM_FAULT_DRIVER_H */
