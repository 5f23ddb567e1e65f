/* test_sdaa_rules.c: the sdaa backend against the sdaart sim's vendor rules
 * (tests/sim/README.md, sdaart rules SDAA-EVFLAGS and SDAA-EVDESTROY, both
 * harsher readings of Tecorigin's own event wrapper, and SDAA-H2H, a harsher
 * reading with no public source). Each test fails on the backend before
 * these rules: it made events with sdaaEventCreateWithFlags
 * (sdaaEventDisableTiming), which the sim does not support, destroyed an
 * event whose record was still queued, which the sim counts as a violation,
 * and sent host-to-host copies to sdaaMemcpyAsync, which the sim refuses.
 * The sim's control functions are reached with dlsym on the library the
 * backend loaded (ACCEL_SDAA_LIBRARY). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <accel/accel.h>

#include "common/sim_rule_check.h"

/* A function of the sim the backend loaded (kept open by the backend). */
static void *sim_symbol(const char *name)
{
    void *library = dlopen(getenv("ACCEL_SDAA_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
    void *symbol;
    assert_non_null(library);
    symbol = dlsym(library, name);
    assert_non_null(symbol);
    dlclose(library);
    return symbol;
}

static unsigned long sim_violations(void)
{
    unsigned long (*count)(void) = (unsigned long (*)(void))sim_symbol("accel_sim_sdaa_violations");
    return count();
}

static unsigned long sim_calls(const char *function)
{
    unsigned long (*calls)(const char *) =
        (unsigned long (*)(const char *))sim_symbol("accel_sim_calls");
    return calls(function);
}

/* SDAA-EVFLAGS: events with and without timing are made (the backend asks
 * for no flags), and a timed pair measures. */
static void test_events_without_flags(void **state)
{
    accel_t *acc = NULL;
    accel_event_t *plain = NULL, *start = NULL, *end = NULL;
    float ms = -1.0f;
    (void)state;
    assert_int_equal(accel_open("sdaa", &acc), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_DEFAULT, &plain), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_TIMING, &start), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_TIMING, &end), ACCEL_OK);
    assert_int_equal(accel_event_record(start, NULL), ACCEL_OK);
    assert_int_equal(accel_event_record(plain, NULL), ACCEL_OK);
    assert_int_equal(accel_event_record(end, NULL), ACCEL_OK);
    assert_int_equal(accel_event_synchronize(end), ACCEL_OK);
    assert_int_equal(accel_event_elapsed_ms(start, end, &ms), ACCEL_OK);
    assert_true(ms >= 0.0f);
    assert_int_equal(accel_event_destroy(plain), ACCEL_OK);
    assert_int_equal(accel_event_destroy(start), ACCEL_OK);
    assert_int_equal(accel_event_destroy(end), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
    assert_int_equal(sim_violations(), 0);
}

/* A host callback that holds its stream until the test lets it go. */
static void hold_stream(void *arg)
{
    while (!__atomic_load_n((int *)arg, __ATOMIC_SEQ_CST))
        ;
}

/* SDAA-EVDESTROY: an event destroyed while its record is held back on the
 * stream is destroyed by the runtime only after the record has run: by a
 * later event create, or at close. */
static void test_destroy_waits_for_the_record(void **state)
{
    accel_t *acc = NULL;
    accel_stream_t *stream = NULL;
    accel_event_t *event = NULL, *later = NULL, *last = NULL;
    int go = 0;
    unsigned long destroys;
    (void)state;
    assert_int_equal(accel_open("sdaa", &acc), ACCEL_OK);
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_DEFAULT, &event), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(stream, hold_stream, &go), ACCEL_OK);
    assert_int_equal(accel_event_record(event, stream), ACCEL_OK);
    destroys = sim_calls("sdaaEventDestroy");
    assert_int_equal(accel_event_destroy(event), ACCEL_OK);
    assert_int_equal(sim_violations(), 0);
    assert_int_equal(sim_calls("sdaaEventDestroy"), destroys); /* not yet */
    __atomic_store_n(&go, 1, __ATOMIC_SEQ_CST);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_DEFAULT, &later), ACCEL_OK);
    assert_int_equal(sim_calls("sdaaEventDestroy"), destroys + 1); /* now */
    /* one still held at close is destroyed there, after its record */
    go = 0;
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_DEFAULT, &last), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(stream, hold_stream, &go), ACCEL_OK);
    assert_int_equal(accel_event_record(last, stream), ACCEL_OK);
    assert_int_equal(accel_event_destroy(last), ACCEL_OK);
    __atomic_store_n(&go, 1, __ATOMIC_SEQ_CST);
    assert_int_equal(accel_event_destroy(later), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
    assert_int_equal(sim_violations(), 0);
}

/* SDAA-H2H: an async host-to-host copy is made after the work queued
 * before it on the stream (here a device-to-host copy into its source),
 * without an async host-to-host copy reaching the runtime; the synchronous
 * form too. */
static void test_host_to_host_in_stream_order(void **state)
{
    (void)state;
    sim_check_host_to_host_in_stream_order("sdaa");
    assert_int_equal(sim_violations(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_without_flags),
        cmocka_unit_test(test_destroy_waits_for_the_record),
        cmocka_unit_test(test_host_to_host_in_stream_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
