/* test_cpu_stream_batch.c: the cpu backend's stream hand-off (one batch per
 * submission, spinning before sleeping, signalling only a sleeping worker,
 * waking only sleeping waiters, a waiter running queued batches itself
 * while the worker sleeps): a replayed graph does not depend on the graph
 * staying alive, a worker that went to sleep is woken by the next
 * submission, waiters that slept are woken, work a waiter runs keeps its
 * order, and two threads submitting at once lose nothing. A lost wake-up shows as a hang (ctest's
 * TIMEOUT). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "accel/accel.h"

#define BYTES 256

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static accel_t *open_cpu(void)
{
    accel_t *acc = NULL;
    assert_int_equal(accel_open("cpu", &acc), ACCEL_OK);
    return acc;
}

/* Host callback: wait until the test opens the gate. */
static void gate_wait(void *arg)
{
    atomic_int *gate = arg;
    while (!atomic_load(gate))
        sleep_ms(1);
}

static void count_up(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

static void test_replay_outlives_its_graph(void **state)
{
    accel_t *acc = open_cpu();
    accel_stream_t *stream;
    accel_event_t *event;
    accel_graph_t *graph;
    atomic_int gate = 0;
    unsigned char host[BYTES], want[BYTES];
    void *device;
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_DEFAULT, &event), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, BYTES, &device), ACCEL_OK);
    assert_int_equal(accel_memset(acc, device, 0, BYTES), ACCEL_OK);

    assert_int_equal(accel_graph_create(acc, &graph), ACCEL_OK);
    assert_int_equal(accel_graph_capture_begin(graph, stream), ACCEL_OK);
    assert_int_equal(accel_memset_async(acc, device, 7, BYTES, stream), ACCEL_OK);
    assert_int_equal(accel_event_record(event, stream), ACCEL_OK);
    assert_int_equal(accel_graph_capture_end(graph, stream), ACCEL_OK);

    /* The replay waits behind the gate while its graph is destroyed. */
    assert_int_equal(accel_stream_add_callback(stream, gate_wait, &gate), ACCEL_OK);
    assert_int_equal(accel_graph_replay(graph, stream), ACCEL_OK);
    assert_int_equal(accel_graph_destroy(graph), ACCEL_OK);
    assert_int_equal(accel_event_query(event), ACCEL_ERROR_NOT_READY);
    atomic_store(&gate, 1);
    assert_int_equal(accel_event_synchronize(event), ACCEL_OK);
    assert_int_equal(accel_memcpy(acc, host, device, BYTES, ACCEL_COPY_DEVICE_TO_HOST), ACCEL_OK);
    memset(want, 7, sizeof want);
    assert_memory_equal(host, want, BYTES);

    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_event_destroy(event), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* Pauses longer than any spin: the worker and the waiters really sleep, and
 * each submission or completion must wake them. */
static void test_sleeping_worker_and_waiters_wake(void **state)
{
    accel_t *acc = open_cpu();
    accel_stream_t *stream;
    accel_event_t *event;
    atomic_int count = 0, gate = 0;
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_DEFAULT, &event), ACCEL_OK);
    for (int i = 0; i < 5; i++) {
        sleep_ms(20); /* the worker has gone to sleep */
        assert_int_equal(accel_stream_add_callback(stream, count_up, &count), ACCEL_OK);
        assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
        assert_int_equal(atomic_load(&count), i + 1);
    }
    /* A waiter that sleeps (the gate holds the record back past the spin). */
    assert_int_equal(accel_stream_add_callback(stream, gate_wait, &gate), ACCEL_OK);
    assert_int_equal(accel_event_record(event, stream), ACCEL_OK);
    sleep_ms(20);
    atomic_store(&gate, 1);
    assert_int_equal(accel_event_synchronize(event), ACCEL_OK);
    atomic_store(&gate, 0);
    assert_int_equal(accel_stream_add_callback(stream, gate_wait, &gate), ACCEL_OK);
    sleep_ms(20);
    atomic_store(&gate, 1);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    assert_int_equal(accel_event_destroy(event), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

#define SUBMITTERS 2
#define ROUNDS     2000

typedef struct submitter {
    accel_t *acc;
    accel_stream_t *stream;
    atomic_int *count;
    void *device; /* this thread's own block: memset to the round number */
    bool ok;
} submitter_t;

/* Callbacks (the worker runs them) and memsets (a synchronizing thread may
 * run those itself while the worker sleeps), with a synchronize now and then
 * and a pause past the spin sometimes, so both paths and their mix run. */
static void *submit_many(void *arg)
{
    submitter_t *s = arg;
    s->ok = true;
    for (int i = 0; i < ROUNDS && s->ok; i++) {
        s->ok = accel_stream_add_callback(s->stream, count_up, s->count) == ACCEL_OK &&
                accel_memset_async(s->acc, s->device, i & 0xff, BYTES, s->stream) == ACCEL_OK;
        if (s->ok && i % 64 == 0)
            s->ok = accel_stream_synchronize(s->stream) == ACCEL_OK;
        if (i % 500 == 0)
            sleep_ms(1);
    }
    return NULL;
}

/* With the worker asleep, stream_synchronize runs the queued batches itself:
 * in order, and a destroy right after still finds everything done. */
static void test_waiter_runs_work_in_order(void **state)
{
    accel_t *acc = open_cpu();
    accel_stream_t *stream;
    unsigned char host[BYTES], want[BYTES];
    void *device;
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, BYTES, &device), ACCEL_OK);
    for (int round = 0; round < 3; round++) {
        sleep_ms(20); /* the worker has gone to sleep */
        for (int v = 1; v <= 100; v++)
            assert_int_equal(accel_memset_async(acc, device, v + round, BYTES, stream), ACCEL_OK);
        assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
        assert_int_equal(accel_memcpy(acc, host, device, BYTES, ACCEL_COPY_DEVICE_TO_HOST),
                         ACCEL_OK);
        memset(want, 100 + round, sizeof want);
        assert_memory_equal(host, want, BYTES);
    }
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

typedef struct event_waiter {
    accel_event_t *event;
    accel_status_t status;
} event_waiter_t;

static void *wait_event(void *arg)
{
    event_waiter_t *w = arg;
    w->status = accel_event_synchronize(w->event);
    return NULL;
}

/* event_synchronize may run the record's batch itself, but never past work
 * that needs the worker: a memset queued behind a blocked callback waits
 * for it, and the record completes after both. */
static void test_event_waiter_keeps_stream_order(void **state)
{
    accel_t *acc = open_cpu();
    accel_stream_t *stream;
    event_waiter_t waiter = {.status = ACCEL_ERROR_INTERNAL};
    atomic_int gate = 0;
    unsigned char host[BYTES], want[BYTES];
    pthread_t thread;
    void *device;
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_TIMING, &waiter.event), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, BYTES, &device), ACCEL_OK);
    assert_int_equal(accel_memset(acc, device, 0, BYTES), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(stream, gate_wait, &gate), ACCEL_OK);
    assert_int_equal(accel_memset_async(acc, device, 5, BYTES, stream), ACCEL_OK);
    assert_int_equal(accel_event_record(waiter.event, stream), ACCEL_OK);
    assert_int_equal(pthread_create(&thread, NULL, wait_event, &waiter), 0);
    sleep_ms(20);
    memset(want, 0, sizeof want); /* still behind the gate */
    assert_int_equal(accel_memcpy(acc, host, device, BYTES, ACCEL_COPY_DEVICE_TO_HOST), ACCEL_OK);
    assert_memory_equal(host, want, BYTES);
    assert_int_equal(accel_event_query(waiter.event), ACCEL_ERROR_NOT_READY);
    atomic_store(&gate, 1);
    pthread_join(thread, NULL);
    assert_int_equal(waiter.status, ACCEL_OK);
    memset(want, 5, sizeof want);
    assert_int_equal(accel_memcpy(acc, host, device, BYTES, ACCEL_COPY_DEVICE_TO_HOST), ACCEL_OK);
    assert_memory_equal(host, want, BYTES);
    /* A record taken by the waiter is timed like any other. */
    sleep_ms(20);
    assert_int_equal(accel_memset_async(acc, device, 6, BYTES, stream), ACCEL_OK);
    accel_event_t *second;
    float ms = -1.0f;
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_TIMING, &second), ACCEL_OK);
    assert_int_equal(accel_event_record(second, stream), ACCEL_OK);
    assert_int_equal(accel_event_synchronize(second), ACCEL_OK);
    assert_int_equal(accel_event_elapsed_ms(waiter.event, second, &ms), ACCEL_OK);
    assert_true(ms >= 0.0f);
    assert_int_equal(accel_event_destroy(second), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_event_destroy(waiter.event), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

static void test_two_submitters_lose_nothing(void **state)
{
    accel_t *acc = open_cpu();
    accel_stream_t *stream;
    atomic_int count = 0;
    pthread_t threads[SUBMITTERS];
    submitter_t s[SUBMITTERS];
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    for (int t = 0; t < SUBMITTERS; t++) {
        s[t] = (submitter_t){.acc = acc, .stream = stream, .count = &count};
        assert_int_equal(accel_malloc(acc, BYTES, &s[t].device), ACCEL_OK);
        assert_int_equal(pthread_create(&threads[t], NULL, submit_many, &s[t]), 0);
    }
    for (int t = 0; t < SUBMITTERS; t++) {
        pthread_join(threads[t], NULL);
        assert_true(s[t].ok);
    }
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    assert_int_equal(atomic_load(&count), SUBMITTERS * ROUNDS);
    for (int t = 0; t < SUBMITTERS; t++) {
        unsigned char host[BYTES], want[BYTES];
        memset(want, (ROUNDS - 1) & 0xff, sizeof want); /* the last memset ran last */
        assert_int_equal(accel_memcpy(acc, host, s[t].device, BYTES, ACCEL_COPY_DEVICE_TO_HOST),
                         ACCEL_OK);
        assert_memory_equal(host, want, BYTES);
        assert_int_equal(accel_free(acc, s[t].device), ACCEL_OK);
    }
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_outlives_its_graph),
        cmocka_unit_test(test_sleeping_worker_and_waiters_wake),
        cmocka_unit_test(test_waiter_runs_work_in_order),
        cmocka_unit_test(test_event_waiter_keeps_stream_order),
        cmocka_unit_test(test_two_submitters_lose_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
