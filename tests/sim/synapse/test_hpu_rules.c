/* test_hpu_rules.c: the hpu backend against the synapse sim's vendor rules
 * (tests/sim/README.md, synapse rule SYN-WAIT). It fails on the backend
 * before that rule was followed: a wait across Gaudis went to
 * synStreamWaitEvent, which "works on the same device only"
 * (synapse_api.h:72-73), and the sim refused it with synInvalidArgument. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <accel/accel.h>

/* A wait across devices is refused with a sentence that says what to do,
 * before anything is queued; a wait on the event's own device works. */
static void test_cross_device_wait_refused(void **state)
{
    accel_t *acc = NULL;
    accel_stream_t *s0 = NULL, *s1 = NULL, *other0 = NULL;
    accel_event_t *event = NULL;
    int count = 0;
    (void)state;
    assert_int_equal(accel_open("hpu", &acc), ACCEL_OK);
    assert_int_equal(accel_device_count(acc, &count), ACCEL_OK);
    assert_true(count >= 2);
    assert_int_equal(accel_stream_create(acc, 0, 0, &s0), ACCEL_OK);
    assert_int_equal(accel_stream_create(acc, 0, 0, &other0), ACCEL_OK);
    assert_int_equal(accel_stream_create(acc, 1, 0, &s1), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_DEFAULT, &event), ACCEL_OK);
    assert_int_equal(accel_event_record(event, s0), ACCEL_OK);
    assert_int_equal(accel_stream_wait_event(s1, event), ACCEL_ERROR_UNSUPPORTED);
    assert_non_null(strstr(accel_last_error(), "same device only"));
    assert_non_null(strstr(accel_last_error(), "synchronize the event on the host"));
    assert_int_equal(accel_stream_synchronize(s1), ACCEL_OK);
    assert_int_equal(accel_stream_wait_event(other0, event), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(other0), ACCEL_OK);
    assert_int_equal(accel_event_destroy(event), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(s0), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(other0), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(s1), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cross_device_wait_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
