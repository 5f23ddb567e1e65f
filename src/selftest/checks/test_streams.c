/* test_streams.c: conformance tests of streams: lifetime, ordering, query,
 * cross-stream waits, host callbacks and the per-thread current stream. */
#include "conformance.h"

#include <stdatomic.h>
#include <string.h>
#include <stdlib.h>

#define STREAMS_BYTES 4096

static accel_stream_t *streams_create(void)
{
    accel_stream_t *stream = NULL;
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    assert_non_null(stream);
    return stream;
}

static void streams_flag_fn(void *arg)
{
    atomic_int *flag = arg;
    atomic_store(flag, 1);
}

void test_streams_create_destroy(void **state)
{
    accel_stream_t *stream;
    (void)state;
    conf_require_streams();
    stream = streams_create();
    assert_ok(accel_stream_synchronize(stream));
    assert_ok(accel_stream_query(stream));
    assert_ok(accel_stream_destroy(stream));
}

void test_streams_unsupported_create_refused(void **state)
{
    accel_stream_t *stream = (accel_stream_t *)&stream;
    (void)state;
    if (conf_flag(ACCEL_FLAG_STREAMS_SUPPORTED))
        conf_skip("backend supports streams; the refusal path does not apply");
    assert_status(ACCEL_ERROR_UNSUPPORTED,
                  accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    assert_ptr_equal(stream, (accel_stream_t *)&stream);
}

void test_streams_create_priorities(void **state)
{
    accel_stream_t *high = NULL, *low = NULL;
    (void)state;
    conf_require_streams();
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, -100, &high));
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 100, &low));
    assert_ok(accel_stream_destroy(high));
    assert_ok(accel_stream_destroy(low));
}

void test_streams_create_bad_arguments(void **state)
{
    accel_stream_t *stream = (accel_stream_t *)&stream;
    (void)state;
    conf_require_streams();
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_stream_create(conformance_acc, conf_device_count(), 0, &stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_stream_create(conformance_acc, -5, 0, &stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_create(NULL, 0, 0, &stream));
    assert_ptr_equal(stream, (accel_stream_t *)&stream);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_create(conformance_acc, 0, 0, NULL));
}

void test_streams_null_handle(void **state)
{
    int device = -7;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_destroy(NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_synchronize(NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_query(NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_wait_event(NULL, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_stream_add_callback(NULL, streams_flag_fn, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_device(NULL, &device));
    assert_int_equal(device, -7);
}

void test_streams_default_stream_stable(void **state)
{
    accel_stream_t *first = NULL, *second = NULL, *by_index = NULL;
    (void)state;
    assert_ok(accel_default_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &first));
    assert_non_null(first);
    assert_ok(accel_default_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &second));
    assert_ok(accel_default_stream(conformance_acc, conf_current_device(), &by_index));
    assert_ptr_equal(first, second);
    assert_ptr_equal(first, by_index);
}

void test_streams_default_not_destroyable(void **state)
{
    accel_stream_t *stream = NULL;
    (void)state;
    assert_ok(accel_default_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_destroy(stream));
    assert_ok(accel_stream_synchronize(stream)); /* still alive */
    assert_ok(accel_stream_query(stream));
}

void test_streams_default_bad_arguments(void **state)
{
    accel_stream_t *stream = (accel_stream_t *)&stream;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_default_stream(conformance_acc, conf_device_count(), &stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_default_stream(NULL, 0, &stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_current_stream(conformance_acc, conf_device_count(), &stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_current_stream(NULL, 0, &stream));
    assert_ptr_equal(stream, (accel_stream_t *)&stream);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_default_stream(conformance_acc, 0, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_current_stream(conformance_acc, 0, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_set_current_stream(NULL, NULL));
}

void test_streams_device(void **state)
{
    int count = conf_device_count();
    (void)state;
    conf_require_streams();
    for (int device = 0; device < count && device < 4; device++) {
        accel_stream_t *stream = NULL, *fallback = NULL;
        int got = -7;
        assert_ok(accel_stream_create(conformance_acc, device, 0, &stream));
        assert_ok(accel_stream_device(stream, &got));
        assert_int_equal(got, device);
        assert_ok(accel_default_stream(conformance_acc, device, &fallback));
        assert_ok(accel_stream_device(fallback, &got));
        assert_int_equal(got, device);
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_device(stream, NULL));
        assert_ok(accel_stream_destroy(stream));
    }
}

typedef struct streams_order_check {
    const uint8_t *host;
    size_t size;
    atomic_int seen_value;
} streams_order_check_t;

static void streams_check_copy_fn(void *arg)
{
    streams_order_check_t *check = arg;
    int value = check->host[0];
    for (size_t i = 1; i < check->size; i++)
        if (check->host[i] != check->host[0])
            value = -1;
    atomic_store(&check->seen_value, value);
}

void test_streams_ordering_memset_memcpy_callback(void **state)
{
    accel_stream_t *stream;
    uint8_t *host = NULL;
    void *device;
    streams_order_check_t check = {.size = STREAMS_BYTES};
    (void)state;
    conf_require_streams();
    stream = streams_create();
    device = conf_device_alloc(STREAMS_BYTES);
    assert_ok(accel_host_alloc(conformance_acc, STREAMS_BYTES, (void **)&host));
    memset(host, 0, STREAMS_BYTES);
    check.host = host;
    atomic_init(&check.seen_value, -2);
    assert_ok(accel_memset_async(conformance_acc, device, 0x5a, STREAMS_BYTES, stream));
    assert_ok(accel_memcpy_async(conformance_acc, host, device, STREAMS_BYTES,
                                 ACCEL_COPY_DEVICE_TO_HOST, stream));
    assert_ok(accel_stream_add_callback(stream, streams_check_copy_fn, &check));
    assert_ok(accel_stream_synchronize(stream));
    assert_int_equal(atomic_load(&check.seen_value), 0x5a);
    assert_ok(accel_stream_destroy(stream));
    conf_device_free(device);
    assert_ok(accel_host_free(conformance_acc, host));
}

void test_streams_query_not_ready_while_blocked(void **state)
{
    accel_stream_t *stream;
    conf_gate_t gate;
    atomic_int done;
    (void)state;
    conf_require_streams();
    stream = streams_create();
    conf_gate_init(&gate);
    atomic_init(&done, 0);
    assert_ok(accel_stream_add_callback(stream, conf_gate_wait_fn, &gate));
    assert_ok(accel_stream_add_callback(stream, streams_flag_fn, &done));
    assert_int_equal(accel_stream_query(stream), ACCEL_ERROR_NOT_READY);
    /* a poll's answer still says what it means, with no vendor code */
    assert_non_null(strstr(accel_last_error(), "queued work"));
    assert_int_equal(accel_last_vendor_error(), 0);
    assert_int_equal(atomic_load(&done), 0);
    conf_gate_open(&gate);
    assert_ok(accel_stream_synchronize(stream));
    assert_ok(accel_stream_query(stream));
    assert_int_equal(atomic_load(&done), 1);
    assert_ok(accel_stream_destroy(stream));
    conf_gate_destroy(&gate);
}

void test_streams_destroy_waits_for_work(void **state)
{
    accel_stream_t *stream;
    atomic_int done;
    (void)state;
    conf_require_streams();
    stream = streams_create();
    atomic_init(&done, 0);
    assert_ok(accel_stream_add_callback(stream, streams_flag_fn, &done));
    assert_ok(accel_stream_destroy(stream));
    assert_int_equal(atomic_load(&done), 1);
}

typedef struct streams_wait_check {
    atomic_int a_done;
    atomic_int a_seen_by_b;
} streams_wait_check_t;

static void streams_mark_a_fn(void *arg)
{
    streams_wait_check_t *check = arg;
    atomic_store(&check->a_done, 1);
}

static void streams_observe_a_fn(void *arg)
{
    streams_wait_check_t *check = arg;
    atomic_store(&check->a_seen_by_b, atomic_load(&check->a_done) + 1);
}

void test_streams_wait_event_across_streams(void **state)
{
    accel_stream_t *a, *b;
    accel_event_t *event = NULL;
    conf_gate_t gate;
    streams_wait_check_t check;
    (void)state;
    conf_require_streams();
    conf_require_events();
    a = streams_create();
    b = streams_create();
    conf_gate_init(&gate);
    atomic_init(&check.a_done, 0);
    atomic_init(&check.a_seen_by_b, 0);
    assert_ok(
        accel_event_create(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_EVENT_DEFAULT, &event));
    assert_ok(accel_stream_add_callback(a, conf_gate_wait_fn, &gate));
    assert_ok(accel_stream_add_callback(a, streams_mark_a_fn, &check));
    assert_ok(accel_event_record(event, a));
    assert_ok(accel_stream_wait_event(b, event));
    assert_ok(accel_stream_add_callback(b, streams_observe_a_fn, &check));
    assert_int_equal(accel_stream_query(b), ACCEL_ERROR_NOT_READY); /* b waits on blocked a */
    conf_gate_open(&gate);
    assert_ok(accel_stream_synchronize(b));
    assert_int_equal(atomic_load(&check.a_seen_by_b), 2); /* ran after a's work */
    assert_ok(accel_stream_synchronize(a));
    assert_ok(accel_event_destroy(event));
    assert_ok(accel_stream_destroy(a));
    assert_ok(accel_stream_destroy(b));
    conf_gate_destroy(&gate);
}

void test_streams_wait_event_null(void **state)
{
    accel_stream_t *stream;
    (void)state;
    conf_require_streams();
    stream = streams_create();
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_wait_event(stream, NULL));
    assert_ok(accel_stream_destroy(stream));
}

void test_streams_callback_runs(void **state)
{
    accel_stream_t *stream = NULL;
    atomic_int done;
    (void)state;
    conf_require_flag(ACCEL_FLAG_HOST_CALLBACKS_SUPPORTED, "host callbacks");
    atomic_init(&done, 0);
    assert_ok(accel_default_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &stream));
    assert_ok(accel_stream_add_callback(stream, streams_flag_fn, &done));
    assert_ok(accel_stream_synchronize(stream));
    assert_int_equal(atomic_load(&done), 1);
}

void test_streams_callback_null_fn(void **state)
{
    accel_stream_t *stream = NULL;
    (void)state;
    assert_ok(accel_default_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_add_callback(stream, NULL, NULL));
}

void test_streams_set_current_and_restore(void **state)
{
    accel_stream_t *stream, *current = NULL, *fallback = NULL;
    (void)state;
    conf_require_streams();
    stream = streams_create();
    assert_ok(accel_default_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &fallback));
    assert_ok(accel_current_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &current));
    assert_ptr_equal(current, fallback);
    assert_ok(accel_set_current_stream(conformance_acc, stream));
    assert_ok(accel_current_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &current));
    assert_ptr_equal(current, stream);
    assert_ok(accel_set_current_stream(conformance_acc, NULL));
    assert_ok(accel_current_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &current));
    assert_ptr_equal(current, fallback);
    assert_ok(accel_stream_destroy(stream));
}

typedef struct streams_thread_probe {
    accel_stream_t *seen;
    accel_stream_t *fallback;
    accel_status_t status;
} streams_thread_probe_t;

static void *streams_other_thread(void *arg)
{
    streams_thread_probe_t *probe = arg;
    probe->status = accel_current_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &probe->seen);
    if (probe->status == ACCEL_OK)
        probe->status =
            accel_default_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &probe->fallback);
    return NULL;
}

void test_streams_current_is_per_thread(void **state)
{
    accel_stream_t *stream, *current = NULL;
    streams_thread_probe_t probe = {0};
    pthread_t thread;
    (void)state;
    conf_require_streams();
    stream = streams_create();
    assert_ok(accel_set_current_stream(conformance_acc, stream));
    assert_int_equal(pthread_create(&thread, NULL, streams_other_thread, &probe), 0);
    pthread_join(thread, NULL);
    assert_ok(probe.status);
    assert_ptr_equal(probe.seen, probe.fallback);
    assert_ptr_not_equal(probe.seen, stream);
    assert_ok(accel_current_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &current));
    assert_ptr_equal(current, stream);
    assert_ok(accel_set_current_stream(conformance_acc, NULL));
    assert_ok(accel_stream_destroy(stream));
}

void test_streams_work_on_current_stream(void **state)
{
    accel_stream_t *stream;
    conf_gate_t gate;
    uint32_t *device, host[16];
    (void)state;
    conf_require_streams();
    stream = streams_create();
    conf_gate_init(&gate);
    device = conf_device_alloc(sizeof host);
    assert_ok(accel_set_current_stream(conformance_acc, stream));
    assert_ok(accel_stream_add_callback(stream, conf_gate_wait_fn, &gate));
    /* a NULL stream means the current one: the fill queues behind the gate */
    assert_ok(accel_rng_u32(conformance_acc, device, 16, NULL));
    assert_int_equal(accel_stream_query(stream), ACCEL_ERROR_NOT_READY);
    conf_gate_open(&gate);
    assert_ok(accel_stream_synchronize(stream));
    conf_to_host(host, device, sizeof host);
    assert_ok(accel_set_current_stream(conformance_acc, NULL));
    conf_device_free(device);
    assert_ok(accel_stream_destroy(stream));
    conf_gate_destroy(&gate);
}
