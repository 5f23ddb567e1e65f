/* test_handles.c: conformance tests of handle lifetime: a destroyed stream,
 * event or graph used again is refused with INVALID_ARGUMENT (never read
 * after being freed), and accel_close refuses while the accelerator still
 * has live streams, events or graphs. */
#include "conformance.h"

/* Destroyed handles kept and used again below; the library promises to
 * detect this many recent ones (see accel.h). */
#define HANDLES_STALE 8

void test_handles_destroyed_stream_refused(void **state)
{
    accel_stream_t *stale[HANDLES_STALE], *fresh = NULL;
    (void)state;
    conf_require_streams();
    for (int i = 0; i < HANDLES_STALE; i++) {
        assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stale[i]));
        assert_ok(accel_stream_destroy(stale[i]));
    }
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &fresh));
    for (int i = 0; i < HANDLES_STALE; i++) {
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_synchronize(stale[i]));
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_destroy(stale[i]));
    }
    assert_ok(accel_stream_synchronize(fresh));
    assert_ok(accel_stream_destroy(fresh));
}

void test_handles_destroyed_event_refused(void **state)
{
    accel_event_t *stale[HANDLES_STALE], *fresh = NULL;
    (void)state;
    conf_require_events();
    for (int i = 0; i < HANDLES_STALE; i++) {
        assert_ok(accel_event_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stale[i]));
        assert_ok(accel_event_destroy(stale[i]));
    }
    assert_ok(accel_event_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &fresh));
    for (int i = 0; i < HANDLES_STALE; i++) {
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_query(stale[i]));
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_record(stale[i], NULL));
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_event_destroy(stale[i]));
    }
    assert_ok(accel_event_query(fresh));
    assert_ok(accel_event_destroy(fresh));
}

void test_handles_destroyed_graph_refused(void **state)
{
    accel_graph_t *stale[HANDLES_STALE], *fresh = NULL;
    (void)state;
    if (!conf_flag(ACCEL_FLAG_GRAPHS_SUPPORTED))
        conf_skip("backend reports no graph support (ACCEL_FLAG_GRAPHS_SUPPORTED false)");
    for (int i = 0; i < HANDLES_STALE; i++) {
        assert_ok(accel_graph_create(conformance_acc, &stale[i]));
        assert_ok(accel_graph_destroy(stale[i]));
    }
    assert_ok(accel_graph_create(conformance_acc, &fresh));
    for (int i = 0; i < HANDLES_STALE; i++) {
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_graph_replay(stale[i], NULL));
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_graph_destroy(stale[i]));
    }
    assert_ok(accel_graph_destroy(fresh));
}

/* accel_close refuses (and changes nothing) until every stream, event and
 * graph of the accelerator has been destroyed. */
void test_handles_close_with_live_handles_refused(void **state)
{
    accel_t *acc = NULL;
    accel_stream_t *stream = NULL;
    accel_event_t *event = NULL;
    accel_graph_t *graph = NULL;
    (void)state;
    conf_require_streams();
    conf_require_events();
    assert_ok(accel_open(conformance_backend, &acc));
    assert_ok(accel_stream_create(acc, 0, 0, &stream));
    assert_ok(accel_event_create(acc, 0, 0, &event));
    if (conf_flag(ACCEL_FLAG_GRAPHS_SUPPORTED))
        assert_ok(accel_graph_create(acc, &graph));

    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_close(acc));
    assert_non_null(strstr(accel_last_error(), "stream"));
    /* Still fully usable after the refusal. */
    assert_ok(accel_event_record(event, stream));
    assert_ok(accel_stream_synchronize(stream));
    assert_ok(accel_stream_destroy(stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_close(acc));
    assert_non_null(strstr(accel_last_error(), "event"));
    assert_ok(accel_event_destroy(event));
    if (graph != NULL) {
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_close(acc));
        assert_non_null(strstr(accel_last_error(), "graph"));
        assert_ok(accel_graph_destroy(graph));
    }
    assert_ok(accel_close(acc));
}
