/* test_events.c: conformance tests of events: lifetime, record, query,
 * synchronize and elapsed time between timing events. */
#include "conformance.h"

#include <time.h>

static accel_event_t *events_create(unsigned flags)
{
    accel_event_t *event = NULL;
    assert_ok(accel_event_create(conformance_acc, ACCEL_CURRENT_DEVICE, flags, &event));
    assert_non_null(event);
    return event;
}

static accel_stream_t *events_stream(void)
{
    accel_stream_t *stream = NULL;
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    return stream;
}

static void events_sleep_10ms(void *arg)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = 10 * 1000 * 1000};
    (void)arg;
    while (nanosleep(&ts, &ts) != 0) {
    }
}

void test_events_create_destroy(void **state)
{
    (void)state;
    conf_require_events();
    assert_ok(accel_event_destroy(events_create(ACCEL_EVENT_DEFAULT)));
    assert_ok(accel_event_destroy(events_create(ACCEL_EVENT_TIMING)));
}

void test_events_unsupported_create_refused(void **state)
{
    accel_event_t *event = (accel_event_t *)&event;
    (void)state;
    if (conf_flag(ACCEL_FLAG_EVENTS_SUPPORTED))
        conf_skip("backend supports events; the refusal path does not apply");
    assert_status(ACCEL_ERROR_UNSUPPORTED,
                  accel_event_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &event));
    assert_ptr_equal(event, (accel_event_t *)&event);
}

void test_events_create_bad_arguments(void **state)
{
    accel_event_t *event = (accel_event_t *)&event;
    (void)state;
    conf_require_events();
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_event_create(conformance_acc, conf_device_count(), 0, &event));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_create(NULL, 0, 0, &event));
    assert_ptr_equal(event, (accel_event_t *)&event);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_create(conformance_acc, 0, 0, NULL));
}

void test_events_null_handle(void **state)
{
    float ms = -1.0f;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_destroy(NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_record(NULL, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_synchronize(NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_query(NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_elapsed_ms(NULL, NULL, &ms));
    assert_true(ms == -1.0f);
}

void test_events_query_unrecorded(void **state)
{
    accel_event_t *event;
    (void)state;
    conf_require_events();
    event = events_create(ACCEL_EVENT_DEFAULT);
    assert_ok(accel_event_query(event));
    assert_ok(accel_event_synchronize(event));
    assert_ok(accel_event_destroy(event));
}

void test_events_record_on_current_stream(void **state)
{
    accel_event_t *event;
    (void)state;
    conf_require_events();
    event = events_create(ACCEL_EVENT_DEFAULT);
    assert_ok(accel_event_record(event, NULL));
    assert_ok(accel_event_synchronize(event));
    assert_ok(accel_event_query(event));
    assert_ok(accel_event_destroy(event));
}

void test_events_query_not_ready_while_blocked(void **state)
{
    accel_event_t *event;
    accel_stream_t *stream;
    conf_gate_t gate;
    (void)state;
    conf_require_events();
    conf_require_streams();
    event = events_create(ACCEL_EVENT_DEFAULT);
    stream = events_stream();
    conf_gate_init(&gate);
    assert_ok(accel_stream_add_callback(stream, conf_gate_wait_fn, &gate));
    assert_ok(accel_event_record(event, stream));
    assert_int_equal(accel_event_query(event), ACCEL_ERROR_NOT_READY);
    conf_gate_open(&gate);
    assert_ok(accel_event_synchronize(event));
    assert_ok(accel_event_query(event));
    assert_ok(accel_stream_destroy(stream));
    assert_ok(accel_event_destroy(event));
    conf_gate_destroy(&gate);
}

/* Recording an event again makes synchronize and query refer to the new
 * record: once synchronize returns, the work queued before that record is
 * done and the event reads complete. (A runtime that resets the event only
 * when the stream reaches the new record would let synchronize return on the
 * previous record's signal; the sims' slow-streams runs make that visible.) */
void test_events_rerecord_refers_to_new_record(void **state)
{
    enum { BYTES = 1 << 16 };
    static unsigned char host[BYTES];
    accel_event_t *event;
    accel_stream_t *stream;
    void *device = NULL;
    (void)state;
    conf_require_events();
    conf_require_streams();
    event = events_create(ACCEL_EVENT_DEFAULT);
    stream = events_stream();
    assert_ok(accel_malloc(conformance_acc, BYTES, &device));
    for (int i = 1; i <= 8; i++) {
        assert_ok(accel_memset_async(conformance_acc, device, i, BYTES, stream));
        assert_ok(accel_event_record(event, stream));
        assert_ok(accel_event_synchronize(event));
        assert_ok(accel_event_query(event));
        assert_ok(accel_memcpy(conformance_acc, host, device, BYTES, ACCEL_COPY_DEVICE_TO_HOST));
        assert_int_equal(host[0], i);
        assert_int_equal(host[BYTES - 1], i);
    }
    assert_ok(accel_free(conformance_acc, device));
    assert_ok(accel_stream_destroy(stream));
    assert_ok(accel_event_destroy(event));
}

void test_events_elapsed_timing(void **state)
{
    accel_event_t *start, *end;
    accel_stream_t *stream;
    float ms = -1.0f;
    (void)state;
    conf_require_events();
    conf_require_streams();
    start = events_create(ACCEL_EVENT_TIMING);
    end = events_create(ACCEL_EVENT_TIMING);
    stream = events_stream();
    assert_ok(accel_event_record(start, stream));
    assert_ok(accel_stream_add_callback(stream, events_sleep_10ms, NULL));
    assert_ok(accel_event_record(end, stream));
    assert_ok(accel_event_synchronize(end));
    assert_ok(accel_event_elapsed_ms(start, end, &ms));
    assert_true(ms > 0.0f);
    assert_ok(accel_stream_destroy(stream));
    assert_ok(accel_event_destroy(start));
    assert_ok(accel_event_destroy(end));
}

void test_events_elapsed_needs_timing(void **state)
{
    accel_event_t *start, *end;
    float ms = -1.0f;
    (void)state;
    conf_require_events();
    start = events_create(ACCEL_EVENT_DEFAULT);
    end = events_create(ACCEL_EVENT_DEFAULT);
    assert_ok(accel_event_record(start, NULL));
    assert_ok(accel_event_record(end, NULL));
    assert_ok(accel_event_synchronize(end));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_elapsed_ms(start, end, &ms));
    assert_true(ms == -1.0f);
    assert_ok(accel_event_destroy(start));
    assert_ok(accel_event_destroy(end));
}

void test_events_elapsed_null_out(void **state)
{
    accel_event_t *start, *end;
    (void)state;
    conf_require_events();
    start = events_create(ACCEL_EVENT_TIMING);
    end = events_create(ACCEL_EVENT_TIMING);
    assert_ok(accel_event_record(start, NULL));
    assert_ok(accel_event_record(end, NULL));
    assert_ok(accel_event_synchronize(end));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_elapsed_ms(start, end, NULL));
    assert_ok(accel_event_destroy(start));
    assert_ok(accel_event_destroy(end));
}

/* Elapsed time of an event never recorded is the caller's mistake:
 * INVALID_ARGUMENT naming it, on every backend (never DEVICE_ERROR). */
void test_events_elapsed_never_recorded(void **state)
{
    accel_event_t *start, *end;
    float ms = -1.0f;
    (void)state;
    conf_require_events();
    start = events_create(ACCEL_EVENT_TIMING);
    end = events_create(ACCEL_EVENT_TIMING);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_elapsed_ms(start, end, &ms));
    assert_non_null(strstr(accel_last_error(), "never recorded"));
    assert_ok(accel_event_record(start, NULL));
    assert_ok(accel_event_synchronize(start));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_elapsed_ms(start, end, &ms));
    assert_non_null(strstr(accel_last_error(), "never recorded"));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_elapsed_ms(end, start, &ms));
    assert_true(ms == -1.0f);
    assert_ok(accel_event_record(end, NULL));
    assert_ok(accel_event_synchronize(end));
    assert_ok(accel_event_elapsed_ms(start, end, &ms));
    assert_true(ms >= 0.0f);
    assert_ok(accel_event_destroy(start));
    assert_ok(accel_event_destroy(end));
}
