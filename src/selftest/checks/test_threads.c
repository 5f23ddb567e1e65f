/* test_threads.c: the conformance_threads program: the public API used from
 * many threads at once (allocator, streams, events, selection, RNG offsets).
 * Thread bodies record failures; the test thread asserts on them. */
#include "conformance.h"

#include <stdatomic.h>
#include <stdlib.h>

#define THREADS      8
#define THREADS_MANY 32

/* Failures seen by worker threads (cmocka asserts only on the test thread). */
typedef struct threads_result {
    atomic_int failures;
    pthread_mutex_t lock;
    char first[512];
} threads_result_t;

static void threads_result_init(threads_result_t *r)
{
    atomic_init(&r->failures, 0);
    pthread_mutex_init(&r->lock, NULL);
    r->first[0] = '\0';
}

static void threads_fail(threads_result_t *r, int index, const char *what, accel_status_t status)
{
    char error[256];
    snprintf(error, sizeof error, "%s", accel_last_error());
    if (atomic_fetch_add(&r->failures, 1) == 0) {
        pthread_mutex_lock(&r->lock);
        snprintf(r->first, sizeof r->first, "thread %d: %s -> %s (%s)", index, what,
                 accel_status_name(status), error);
        pthread_mutex_unlock(&r->lock);
    }
}

#define THREADS_CHECK(r, index, expr)                                                              \
    do {                                                                                           \
        accel_status_t threads_st_ = (expr);                                                       \
        if (threads_st_ != ACCEL_OK) {                                                             \
            threads_fail((r), (index), #expr, threads_st_);                                        \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define THREADS_EXPECT(r, index, cond)                                                             \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            threads_fail((r), (index), "expected " #cond, ACCEL_OK);                               \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void threads_assert_clean(threads_result_t *r)
{
    if (atomic_load(&r->failures) != 0)
        fail_msg("%d thread failure(s); first: %s", atomic_load(&r->failures), r->first);
    pthread_mutex_destroy(&r->lock);
}

/* ------------------------------------------------------------------ accel_get */

typedef struct threads_get {
    threads_result_t result;
    accel_t *seen[THREADS_MANY];
} threads_get_t;

static void threads_get_body(int index, void *arg)
{
    threads_get_t *t = arg;
    THREADS_CHECK(&t->result, index, accel_get(&t->seen[index]));
}

void test_threads_get_returns_one_pointer(void **state)
{
    threads_get_t t;
    (void)state;
    memset(t.seen, 0, sizeof t.seen);
    threads_result_init(&t.result);
    conf_run_threads(THREADS_MANY, threads_get_body, &t);
    threads_assert_clean(&t.result);
    for (int i = 0; i < THREADS_MANY; i++) {
        assert_non_null(t.seen[i]);
        assert_ptr_equal(t.seen[i], t.seen[0]);
    }
}

/* ------------------------------------------------------------------ allocator */

static void threads_alloc_body(int index, void *arg)
{
    threads_result_t *r = arg;
    unsigned seed = (unsigned)index * 2654435761u + 1;
    for (int i = 0; i < 500; i++) {
        void *ptrs[4] = {0};
        seed = seed * 1103515245u + 12345u;
        for (int j = 0; j < 4; j++) {
            size_t size = 1 + ((seed >> (j * 4)) % 4096) * (size_t)(j + 1) * 16;
            THREADS_CHECK(r, index, accel_malloc(conformance_acc, size, &ptrs[j]));
            THREADS_CHECK(r, index, accel_memset(conformance_acc, ptrs[j], index, size));
        }
        for (int j = 3; j >= 0; j--)
            THREADS_CHECK(r, index, accel_free(conformance_acc, ptrs[j]));
    }
}

void test_threads_malloc_free(void **state)
{
    threads_result_t r;
    uint64_t before = conf_allocated();
    (void)state;
    threads_result_init(&r);
    conf_run_threads(THREADS, threads_alloc_body, &r);
    threads_assert_clean(&r);
    assert_true(conf_allocated() == before);
}

static void threads_copy_body(int index, void *arg)
{
    threads_result_t *r = arg;
    uint8_t in[8192], out[8192];
    void *device = NULL;
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)(i * 7u + (unsigned)index);
    for (int round = 0; round < 50; round++) {
        THREADS_CHECK(r, index, accel_malloc(conformance_acc, sizeof in, &device));
        THREADS_CHECK(
            r, index,
            accel_memcpy(conformance_acc, device, in, sizeof in, ACCEL_COPY_HOST_TO_DEVICE));
        memset(out, 0, sizeof out);
        THREADS_CHECK(
            r, index,
            accel_memcpy(conformance_acc, out, device, sizeof out, ACCEL_COPY_DEVICE_TO_HOST));
        THREADS_CHECK(r, index, accel_free(conformance_acc, device));
        THREADS_EXPECT(r, index, memcmp(in, out, sizeof in) == 0);
    }
}

void test_threads_copy_round_trips(void **state)
{
    threads_result_t r;
    (void)state;
    threads_result_init(&r);
    conf_run_threads(THREADS, threads_copy_body, &r);
    threads_assert_clean(&r);
}

static void threads_pinned_body(int index, void *arg)
{
    threads_result_t *r = arg;
    for (int round = 0; round < 100; round++) {
        uint8_t *ptr = NULL;
        bool pinned = false;
        THREADS_CHECK(r, index, accel_host_alloc(conformance_acc, 4096, (void **)&ptr));
        THREADS_CHECK(r, index, accel_is_pinned(conformance_acc, ptr + 100, &pinned));
        THREADS_EXPECT(r, index, pinned);
        THREADS_CHECK(r, index, accel_host_free(conformance_acc, ptr));
    }
}

void test_threads_pinned_alloc_free(void **state)
{
    threads_result_t r;
    (void)state;
    conf_require_flag(ACCEL_FLAG_PINNED_MEMORY_SUPPORTED, "pinned memory");
    threads_result_init(&r);
    conf_run_threads(THREADS, threads_pinned_body, &r);
    threads_assert_clean(&r);
}

/* ------------------------------------------------------------------ streams */

#define THREADS_CALLBACKS 200

typedef struct threads_shared_stream {
    threads_result_t result;
    accel_stream_t *stream;
    atomic_int total;
    int last_seen[THREADS]; /* touched only by callbacks, which run in order */
    int out_of_order;
} threads_shared_stream_t;

typedef struct threads_callback {
    threads_shared_stream_t *shared;
    int thread;
    int sequence;
} threads_callback_t;

static void threads_callback_fn(void *arg)
{
    threads_callback_t *cb = arg;
    threads_shared_stream_t *s = cb->shared;
    if (s->last_seen[cb->thread] != cb->sequence - 1)
        s->out_of_order++;
    s->last_seen[cb->thread] = cb->sequence;
    atomic_fetch_add(&s->total, 1);
    free(cb);
}

static void threads_shared_stream_body(int index, void *arg)
{
    threads_shared_stream_t *s = arg;
    for (int i = 0; i < THREADS_CALLBACKS; i++) {
        threads_callback_t *cb = malloc(sizeof *cb);
        THREADS_EXPECT(&s->result, index, cb != NULL);
        *cb = (threads_callback_t){.shared = s, .thread = index, .sequence = i};
        THREADS_CHECK(&s->result, index,
                      accel_stream_add_callback(s->stream, threads_callback_fn, cb));
    }
}

void test_threads_stream_shared_by_threads(void **state)
{
    threads_shared_stream_t s;
    (void)state;
    conf_require_streams();
    memset(&s, 0, sizeof s);
    threads_result_init(&s.result);
    atomic_init(&s.total, 0);
    for (int i = 0; i < THREADS; i++)
        s.last_seen[i] = -1;
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &s.stream));
    conf_run_threads(THREADS, threads_shared_stream_body, &s);
    assert_ok(accel_stream_synchronize(s.stream));
    threads_assert_clean(&s.result);
    assert_int_equal(atomic_load(&s.total), THREADS * THREADS_CALLBACKS);
    assert_int_equal(s.out_of_order, 0); /* each thread's work stays in its order */
    assert_ok(accel_stream_destroy(s.stream));
}

static void threads_own_stream_body(int index, void *arg)
{
    threads_result_t *r = arg;
    accel_stream_t *stream = NULL, *current = NULL;
    uint8_t *host = NULL;
    void *device = NULL;
    THREADS_CHECK(r, index, accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    THREADS_CHECK(r, index, accel_set_current_stream(conformance_acc, stream));
    THREADS_CHECK(r, index, accel_host_alloc(conformance_acc, 4096, (void **)&host));
    for (int round = 0; round < 20; round++) {
        THREADS_CHECK(r, index, accel_malloc_async(conformance_acc, 4096, stream, &device));
        THREADS_CHECK(r, index,
                      accel_memset_async(conformance_acc, device, index + round, 4096, stream));
        THREADS_CHECK(r, index,
                      accel_memcpy_async(conformance_acc, host, device, 4096,
                                         ACCEL_COPY_DEVICE_TO_HOST, stream));
        THREADS_CHECK(r, index, accel_free_async(conformance_acc, device, stream));
        THREADS_CHECK(r, index, accel_stream_synchronize(stream));
        for (int i = 0; i < 4096; i++)
            THREADS_EXPECT(r, index, host[i] == (uint8_t)(index + round));
        THREADS_CHECK(r, index,
                      accel_current_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &current));
        THREADS_EXPECT(r, index, current == stream); /* other threads did not change it */
    }
    THREADS_CHECK(r, index, accel_set_current_stream(conformance_acc, NULL));
    THREADS_CHECK(r, index, accel_host_free(conformance_acc, host));
    THREADS_CHECK(r, index, accel_stream_destroy(stream));
}

void test_threads_stream_per_thread(void **state)
{
    threads_result_t r;
    (void)state;
    conf_require_streams();
    threads_result_init(&r);
    conf_run_threads(THREADS, threads_own_stream_body, &r);
    threads_assert_clean(&r);
}

/* ------------------------------------------------------------------ events */

typedef struct threads_event {
    threads_result_t result;
    accel_event_t *event;
    atomic_int released;
} threads_event_t;

static void threads_event_body(int index, void *arg)
{
    threads_event_t *t = arg;
    THREADS_CHECK(&t->result, index, accel_event_synchronize(t->event));
    THREADS_EXPECT(&t->result, index, atomic_load(&t->released) == 1);
    THREADS_CHECK(&t->result, index, accel_event_query(t->event));
}

static void threads_release_fn(void *arg)
{
    threads_event_t *t = arg;
    atomic_store(&t->released, 1);
}

void test_threads_event_waited_by_many(void **state)
{
    threads_event_t t;
    accel_stream_t *stream = NULL;
    conf_gate_t gate;
    (void)state;
    conf_require_streams();
    conf_require_events();
    threads_result_init(&t.result);
    atomic_init(&t.released, 0);
    conf_gate_init(&gate);
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    assert_ok(
        accel_event_create(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_EVENT_DEFAULT, &t.event));
    assert_ok(accel_stream_add_callback(stream, conf_gate_wait_fn, &gate));
    assert_ok(accel_stream_add_callback(stream, threads_release_fn, &t));
    assert_ok(accel_event_record(t.event, stream));
    assert_int_equal(accel_event_query(t.event), ACCEL_ERROR_NOT_READY);
    conf_gate_open(&gate); /* waiters may start before or after this: both must work */
    conf_run_threads(THREADS, threads_event_body, &t);
    threads_assert_clean(&t.result);
    assert_ok(accel_stream_destroy(stream));
    assert_ok(accel_event_destroy(t.event));
    conf_gate_destroy(&gate);
}

/* ------------------------------------------------------------------ devices */

static void threads_device_body(int index, void *arg)
{
    threads_result_t *r = arg;
    int count = 0, current = -1;
    THREADS_CHECK(r, index, accel_device_count(conformance_acc, &count));
    for (int round = 0; round < 100; round++) {
        int want = (index + round) % count;
        THREADS_CHECK(r, index, accel_set_device(conformance_acc, want));
        THREADS_CHECK(r, index, accel_current_device(conformance_acc, &current));
        THREADS_EXPECT(r, index, current == want);
    }
}

void test_threads_current_device_per_thread(void **state)
{
    threads_result_t r;
    (void)state;
    threads_result_init(&r);
    conf_run_threads(THREADS, threads_device_body, &r);
    threads_assert_clean(&r);
}

static void threads_error_body(int index, void *arg)
{
    threads_result_t *r = arg;
    char name[32], copy[512];
    accel_t *acc = NULL;
    snprintf(name, sizeof name, "conformance_bogus_%d", index);
    for (int round = 0; round < 50; round++) {
        accel_status_t status = accel_open(name, &acc);
        THREADS_EXPECT(r, index, status == ACCEL_ERROR_NOT_FOUND);
        snprintf(copy, sizeof copy, "%s", accel_last_error());
        THREADS_EXPECT(r, index, strstr(copy, name) != NULL);
    }
}

void test_threads_last_error_per_thread(void **state)
{
    threads_result_t r;
    (void)state;
    threads_result_init(&r);
    conf_run_threads(THREADS, threads_error_body, &r);
    threads_assert_clean(&r);
}

/* ------------------------------------------------------------------ RNG */

#define THREADS_RNG_FILLS 16
#define THREADS_RNG_COUNT 6 /* not a multiple of 4: each fill reserves 8 words */
#define THREADS_RNG_WORDS (THREADS * THREADS_RNG_FILLS * 8)

typedef struct threads_rng {
    threads_result_t result;
    uint32_t got[THREADS][THREADS_RNG_FILLS][THREADS_RNG_COUNT];
} threads_rng_t;

static void threads_rng_body(int index, void *arg)
{
    threads_rng_t *t = arg;
    uint32_t *device = NULL;
    accel_stream_t *stream = NULL;
    THREADS_CHECK(&t->result, index,
                  accel_malloc(conformance_acc, sizeof t->got[index], (void **)&device));
    for (int fill = 0; fill < THREADS_RNG_FILLS; fill++)
        THREADS_CHECK(&t->result, index,
                      accel_rng_u32(conformance_acc, device + fill * THREADS_RNG_COUNT,
                                    THREADS_RNG_COUNT, NULL));
    THREADS_CHECK(&t->result, index,
                  accel_current_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &stream));
    THREADS_CHECK(&t->result, index, accel_stream_synchronize(stream));
    THREADS_CHECK(&t->result, index,
                  accel_memcpy(conformance_acc, t->got[index], device, sizeof t->got[index],
                               ACCEL_COPY_DEVICE_TO_HOST));
    THREADS_CHECK(&t->result, index, accel_free(conformance_acc, device));
}

void test_threads_rng_offsets_disjoint(void **state)
{
    threads_rng_t *t = calloc(1, sizeof *t);
    uint32_t *reference = malloc(THREADS_RNG_WORDS * sizeof *reference);
    bool used[THREADS_RNG_WORDS / 8] = {false};
    (void)state;
    assert_non_null(t);
    assert_non_null(reference);
    assert_ok(accel_manual_seed(conformance_acc, 0x5eed));
    conf_rng_u32(reference, THREADS_RNG_WORDS);
    assert_ok(accel_manual_seed(conformance_acc, 0x5eed));
    threads_result_init(&t->result);
    conf_run_threads(THREADS, threads_rng_body, t);
    threads_assert_clean(&t->result);
    assert_true(conf_rng_offset() == THREADS_RNG_WORDS);
    /* every fill is one 8-word block of the stream, and no block is used twice */
    for (int th = 0; th < THREADS; th++) {
        for (int fill = 0; fill < THREADS_RNG_FILLS; fill++) {
            const uint32_t *got = t->got[th][fill];
            int block = -1;
            for (int b = 0; b < THREADS_RNG_WORDS / 8; b++) {
                if (memcmp(reference + b * 8, got, sizeof t->got[th][fill]) == 0) {
                    block = b;
                    break;
                }
            }
            if (block < 0)
                fail_msg("thread %d fill %d matches no block of the stream", th, fill);
            assert_false(used[block]);
            used[block] = true;
        }
    }
    free(reference);
    free(t);
}
