/* test_cpu_callback_sync.c: a host callback that synchronizes what it runs
 * on (its device, its own stream, an event recorded behind it) or destroys
 * its own stream gets an error instead of waiting for itself for ever; a
 * wait that does not involve its own stream still works. A deadlock would
 * block the test, so alarm() turns it into a failure. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "accel/accel.h"

/* Seconds before a hang counts as a failure (SIGALRM kills the test). */
#define HANG_LIMIT_S 60

/* What the callback saw; written by the worker, read after a synchronize. */
typedef struct callback_report {
    accel_t *acc;
    accel_stream_t *own, *other;
    accel_event_t *behind, *elsewhere;
    accel_status_t device_sync, own_sync, behind_sync, elsewhere_sync, own_destroy;
    char device_sync_error[256];
    atomic_bool behind_queued; /* set by the test once `behind` is recorded */
} callback_report_t;

static void callback_body(void *arg)
{
    callback_report_t *r = arg;
    while (!atomic_load(&r->behind_queued))
        sched_yield();
    r->device_sync = accel_synchronize(r->acc, 0);
    snprintf(r->device_sync_error, sizeof r->device_sync_error, "%s", accel_last_error());
    r->own_sync = accel_stream_synchronize(r->own);
    r->behind_sync = accel_event_synchronize(r->behind);
    r->elsewhere_sync = accel_event_synchronize(r->elsewhere);
    r->own_destroy = accel_stream_destroy(r->own);
}

static void test_callback_synchronize_refused(void **state)
{
    callback_report_t r = {0};
    (void)state;
    alarm(HANG_LIMIT_S);
    assert_int_equal(accel_open("cpu", &r.acc), ACCEL_OK);
    assert_int_equal(accel_stream_create(r.acc, 0, 0, &r.own), ACCEL_OK);
    assert_int_equal(accel_stream_create(r.acc, 0, 0, &r.other), ACCEL_OK);
    assert_int_equal(accel_event_create(r.acc, 0, 0, &r.behind), ACCEL_OK);
    assert_int_equal(accel_event_create(r.acc, 0, 0, &r.elsewhere), ACCEL_OK);
    /* `elsewhere` is recorded on another stream, complete or about to be. */
    assert_int_equal(accel_event_record(r.elsewhere, r.other), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(r.own, callback_body, &r), ACCEL_OK);
    /* `behind` is recorded after the callback on the same stream. */
    assert_int_equal(accel_event_record(r.behind, r.own), ACCEL_OK);
    atomic_store(&r.behind_queued, true);
    assert_int_equal(accel_stream_synchronize(r.own), ACCEL_OK);

    assert_int_equal(r.device_sync, ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(r.device_sync_error, "callback"));
    assert_int_equal(r.own_sync, ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(r.behind_sync, ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(r.elsewhere_sync, ACCEL_OK);
    assert_int_equal(r.own_destroy, ACCEL_ERROR_INVALID_ARGUMENT);

    /* Outside the callback every one of them works. */
    assert_int_equal(accel_synchronize(r.acc, 0), ACCEL_OK);
    assert_int_equal(accel_event_synchronize(r.behind), ACCEL_OK);
    assert_int_equal(accel_event_destroy(r.behind), ACCEL_OK);
    assert_int_equal(accel_event_destroy(r.elsewhere), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(r.own), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(r.other), ACCEL_OK);
    assert_int_equal(accel_close(r.acc), ACCEL_OK);
    alarm(0);
}

/* A callback on a stream of device 0 may synchronize device 1: it does not
 * wait for itself. Needs two devices (LOCAL_SIZE=2); skipped otherwise. */
static void other_device_body(void *arg)
{
    callback_report_t *r = arg;
    r->device_sync = accel_synchronize(r->acc, 1);
}

static void test_callback_synchronize_other_device(void **state)
{
    callback_report_t r = {0};
    int count = 0;
    atomic_store(&r.behind_queued, true);
    (void)state;
    alarm(HANG_LIMIT_S);
    assert_int_equal(accel_open("cpu", &r.acc), ACCEL_OK);
    assert_int_equal(accel_device_count(r.acc, &count), ACCEL_OK);
    if (count < 2) {
        assert_int_equal(accel_close(r.acc), ACCEL_OK);
        skip();
    }
    assert_int_equal(accel_stream_create(r.acc, 0, 0, &r.own), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(r.own, other_device_body, &r), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(r.own), ACCEL_OK);
    assert_int_equal(r.device_sync, ACCEL_OK);
    assert_int_equal(accel_stream_destroy(r.own), ACCEL_OK);
    assert_int_equal(accel_close(r.acc), ACCEL_OK);
    alarm(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_callback_synchronize_refused),
        cmocka_unit_test(test_callback_synchronize_other_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
