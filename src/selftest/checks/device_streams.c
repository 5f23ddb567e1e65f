/* device_streams.c: streams, events and host callbacks on the device: work
 * queued on one stream runs in order with its callbacks, a wait on an event
 * orders two streams, and event timing measures what the stream did. */
#include <stdatomic.h>
#include <time.h>

#include "conformance.h"

#define STREAMS_CALLBACKS 64

typedef struct streams_order {
    atomic_int next;  /* the index the next callback must have */
    atomic_int wrong; /* callbacks that ran out of order */
} streams_order_t;

typedef struct streams_step {
    streams_order_t *order;
    int index;
} streams_step_t;

static void streams_step_fn(void *arg)
{
    streams_step_t *step = arg;
    int expected = atomic_fetch_add(&step->order->next, 1);
    if (expected != step->index)
        atomic_fetch_add(&step->order->wrong, 1);
}

/* Callbacks between copies run once each, in queue order, and each sees
 * the copy queued before it done. */
void check_device_callbacks_in_order(void **state)
{
    accel_stream_t *stream = NULL;
    streams_order_t order = {0};
    streams_step_t steps[STREAMS_CALLBACKS];
    (void)state;
    conf_require_streams();
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    uint32_t *dev = conf_device_alloc(STREAMS_CALLBACKS * sizeof(uint32_t));
    for (int i = 0; i < STREAMS_CALLBACKS; i++) {
        steps[i] = (streams_step_t){.order = &order, .index = i};
        assert_ok(accel_memset_async(conformance_acc, dev + i, i & 0xff, sizeof(uint32_t), stream));
        assert_ok(accel_stream_add_callback(stream, streams_step_fn, &steps[i]));
    }
    assert_ok(accel_stream_synchronize(stream));
    assert_int_equal(atomic_load(&order.next), STREAMS_CALLBACKS);
    assert_int_equal(atomic_load(&order.wrong), 0);
    uint32_t back[STREAMS_CALLBACKS];
    assert_ok(accel_memcpy(conformance_acc, back, dev, sizeof back, ACCEL_COPY_DEVICE_TO_HOST));
    for (int i = 0; i < STREAMS_CALLBACKS; i++) {
        uint32_t b = (uint32_t)(i & 0xff);
        assert_int_equal(back[i], b | b << 8 | b << 16 | b << 24);
    }
    conf_device_free(dev);
    assert_ok(accel_stream_destroy(stream));
}

/* Stream B waits on an event of stream A: B's copy reads what A wrote,
 * though A was held back by a gated callback when B's work was queued. */
void check_device_event_orders_streams(void **state)
{
    accel_stream_t *a = NULL, *b = NULL;
    accel_event_t *done = NULL;
    conf_gate_t gate;
    enum { N = 1 << 16 };
    (void)state;
    conf_require_streams();
    conf_require_events();
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &a));
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &b));
    assert_ok(
        accel_event_create(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_EVENT_DEFAULT, &done));
    unsigned char *x = conf_device_alloc(N), *y = conf_device_alloc(N);
    static unsigned char back[N];
    assert_ok(accel_memset(conformance_acc, x, 0x11, N));
    assert_ok(accel_memset(conformance_acc, y, 0x22, N));
    conf_gate_init(&gate);
    assert_ok(accel_stream_add_callback(a, conf_gate_wait_fn, &gate));
    assert_ok(accel_memset_async(conformance_acc, x, 0x5a, N, a));
    assert_ok(accel_event_record(done, a));
    assert_ok(accel_stream_wait_event(b, done));
    assert_ok(accel_memcpy_async(conformance_acc, y, x, N, ACCEL_COPY_DEVICE_TO_DEVICE, b));
    assert_status(ACCEL_ERROR_NOT_READY, accel_event_query(done));
    conf_gate_open(&gate);
    assert_ok(accel_stream_synchronize(b));
    assert_ok(accel_memcpy(conformance_acc, back, y, N, ACCEL_COPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < N; i++)
        if (back[i] != 0x5a)
            fail_msg("byte %zu is 0x%02x: stream B copied before stream A's event", i, back[i]);
    assert_ok(accel_stream_synchronize(a));
    conf_gate_destroy(&gate);
    conf_device_free(x);
    conf_device_free(y);
    assert_ok(accel_event_destroy(done));
    assert_ok(accel_stream_destroy(a));
    assert_ok(accel_stream_destroy(b));
}

/* Timing events around a 30 ms pause: the end event is recorded 30 ms
 * after the start event completed, so the elapsed time is at least the
 * pause (a pause is a lower bound, not a speed), and the events are
 * ordered. The pause is on the host, not in a callback: an emulated
 * callback does not hold later device work back (src/backends/mlu/README.md). */
void check_device_event_timing(void **state)
{
    accel_stream_t *stream = NULL;
    accel_event_t *start = NULL, *middle = NULL, *end = NULL;
    static const struct timespec pause = {.tv_sec = 0, .tv_nsec = 30 * 1000 * 1000};
    float first = -1, whole = -1;
    (void)state;
    conf_require_streams();
    conf_require_events();
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    assert_ok(
        accel_event_create(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_EVENT_TIMING, &start));
    assert_ok(
        accel_event_create(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_EVENT_TIMING, &middle));
    assert_ok(accel_event_create(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_EVENT_TIMING, &end));
    assert_ok(accel_event_record(start, stream));
    assert_ok(accel_event_record(middle, stream));
    assert_ok(accel_event_synchronize(middle));
    nanosleep(&pause, NULL);
    assert_ok(accel_event_record(end, stream));
    assert_ok(accel_event_synchronize(end));
    assert_ok(accel_event_elapsed_ms(start, middle, &first));
    assert_ok(accel_event_elapsed_ms(start, end, &whole));
    print_message("elapsed: start->middle %.3f ms, start->end %.3f ms (30 ms pause between)\n",
                  (double)first, (double)whole);
    if (!(first >= 0.0f && first <= whole))
        fail_msg("events out of order: start->middle %.3f ms, start->end %.3f ms", (double)first,
                 (double)whole);
    if (whole < 25.0f)
        fail_msg("start->end measured %.3f ms across a 30 ms pause", (double)whole);
    assert_ok(accel_event_destroy(start));
    assert_ok(accel_event_destroy(middle));
    assert_ok(accel_event_destroy(end));
    assert_ok(accel_stream_destroy(stream));
}
