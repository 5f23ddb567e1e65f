/* test_utils_callback.c: the kit's host-callback helpers through the shared
 * library (accel_backend_utils.h): the thread mark and the self-wait
 * refusals, call records, and the emulator over a fake runtime whose
 * markers complete at once. Bad input gets INVALID_ARGUMENT and a sentence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <accel/accel_backend_utils.h>

static int backend_a, backend_b; /* two backend states, by address */
static int stream_1, stream_2;   /* two backend streams */

static void test_mark_and_refusals(void **state)
{
    const void *own = NULL;
    (void)state;
    assert_false(accel_callback_thread_of(&backend_a, 0, NULL));
    assert_int_equal(accel_callback_refuse_device_wait(&backend_a, 0, "synchronize"), ACCEL_OK);

    accel_callback_thread_mark(&backend_a, 1, &stream_1);
    assert_true(accel_callback_thread_of(&backend_a, 1, &own));
    assert_ptr_equal(own, &stream_1);
    assert_true(accel_callback_thread_of(&backend_a, ACCEL_CALLBACK_ANY_DEVICE, NULL));
    assert_false(accel_callback_thread_of(&backend_a, 0, NULL));
    assert_false(accel_callback_thread_of(&backend_b, 1, NULL));
    assert_false(accel_callback_thread_of(NULL, 1, NULL));

    assert_int_equal(accel_callback_refuse_stream_wait(&backend_a, 1, &stream_1, "wait here"),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "a host callback cannot wait here"));
    assert_int_equal(accel_callback_refuse_stream_wait(&backend_a, 1, &stream_2, "wait here"),
                     ACCEL_OK);
    assert_int_equal(accel_callback_refuse_device_wait(&backend_a, 1, "synchronize"),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_callback_refuse_device_wait(&backend_a, 0, "synchronize"), ACCEL_OK);
    assert_int_equal(accel_callback_refuse_device_wait(&backend_b, 1, "synchronize"), ACCEL_OK);

    accel_callback_thread_clear();
    assert_false(accel_callback_thread_of(&backend_a, 1, NULL));
}

typedef struct seen {
    atomic_int runs;
    atomic_bool marked; /* the function ran on a thread marked for its stream */
} seen_t;

static void record_mark(void *arg)
{
    seen_t *seen = arg;
    const void *own = NULL;
    atomic_store(&seen->marked,
                 accel_callback_thread_of(&backend_a, 0, &own) && own == (const void *)&stream_1);
    atomic_fetch_add(&seen->runs, 1);
}

static void test_call_records(void **state)
{
    seen_t seen = {0};
    accel_callback_call_t *once = NULL, *kept = NULL, *refused = NULL;
    (void)state;
    assert_int_equal(
        accel_callback_call_new(&backend_a, 0, &stream_1, record_mark, &seen, false, &once),
        ACCEL_OK);
    accel_callback_call_run(once); /* frees itself */
    assert_int_equal(atomic_load(&seen.runs), 1);
    assert_true(atomic_load(&seen.marked));
    assert_false(accel_callback_thread_of(&backend_a, 0, NULL)); /* cleared after */

    /* a replayed record runs as often as the graph does, then is released */
    assert_int_equal(
        accel_callback_call_new(&backend_a, 0, &stream_1, record_mark, &seen, true, &kept),
        ACCEL_OK);
    accel_callback_call_run(kept);
    accel_callback_call_run(kept);
    assert_int_equal(atomic_load(&seen.runs), 3);
    accel_callback_calls_release(&backend_b); /* not its backend: kept */
    accel_callback_call_run(kept);
    assert_int_equal(atomic_load(&seen.runs), 4);
    accel_callback_calls_release(&backend_a);

    /* one the runtime refused is freed by the backend, replayed or not */
    assert_int_equal(
        accel_callback_call_new(&backend_a, 0, NULL, record_mark, &seen, true, &refused), ACCEL_OK);
    accel_callback_call_free(refused);
    accel_callback_call_free(NULL);
    accel_callback_calls_release(&backend_a); /* nothing left: no double free */
}

static void test_call_bad_input(void **state)
{
    accel_callback_call_t *call = (accel_callback_call_t *)&backend_b;
    (void)state;
    assert_int_equal(accel_callback_call_new(&backend_a, 0, NULL, NULL, NULL, false, &call),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "function is NULL"));
    assert_ptr_equal(call, &backend_b); /* untouched */
    assert_int_equal(accel_callback_call_new(&backend_a, 0, NULL, record_mark, NULL, false, NULL),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "output"));
}

/* A fake runtime: a marker is a heap int that completes at once. */
typedef struct fake {
    atomic_int records, waits, releases;
} fake_t;

static accel_status_t fake_record(void *ctx, int device, void *stream, void **out)
{
    fake_t *fake = ctx;
    (void)device;
    (void)stream;
    *out = malloc(sizeof(int));
    if (*out == NULL)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    atomic_fetch_add(&fake->records, 1);
    return ACCEL_OK;
}

static accel_status_t fake_wait(void *ctx, int device, void *marker)
{
    fake_t *fake = ctx;
    (void)device;
    (void)marker;
    atomic_fetch_add(&fake->waits, 1);
    return ACCEL_OK;
}

static void fake_release(void *ctx, int device, void *marker)
{
    fake_t *fake = ctx;
    (void)device;
    free(marker);
    atomic_fetch_add(&fake->releases, 1);
}

static const accel_callback_emulator_ops_t fake_ops = {
    .record = fake_record,
    .wait = fake_wait,
    .release = fake_release,
};

static void test_emulator_runs_in_order_marked(void **state)
{
    fake_t fake = {0};
    accel_callback_emulator_t em;
    seen_t seen = {0};
    uint64_t ticket;
    (void)state;
    accel_callback_emulator_init(&em, &fake_ops, &fake, &backend_a, "fake");
    for (int i = 0; i < 8; i++)
        assert_int_equal(accel_callback_emulator_add(&em, 0, &stream_1, record_mark, &seen),
                         ACCEL_OK);
    ticket = accel_callback_emulator_last(&em, 0, &stream_1, false);
    if (ticket != 0)
        assert_true(accel_callback_emulator_reached(&em, ticket, true));
    assert_int_equal(atomic_load(&seen.runs), 8);
    assert_true(atomic_load(&seen.marked)); /* the kit's thread carried the mark */
    assert_false(accel_callback_thread_of(&backend_a, 0, NULL));
    assert_int_equal(accel_callback_emulator_last(&em, 0, &stream_1, true), 0);
    assert_false(accel_callback_emulator_stopping(&em));
    accel_callback_emulator_fini(&em, false);
    assert_int_equal(atomic_load(&fake.records), atomic_load(&fake.releases));
}

static void test_emulator_bad_input(void **state)
{
    fake_t fake = {0};
    accel_callback_emulator_t em;
    (void)state;
    accel_callback_emulator_init(&em, &fake_ops, &fake, &backend_a, "fake");
    assert_int_equal(accel_callback_emulator_add(&em, 0, &stream_1, NULL, NULL),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "fake: a host callback's function is NULL"));
    assert_int_equal(atomic_load(&fake.records), 0); /* nothing queued */
    assert_int_equal(accel_callback_emulator_add(NULL, 0, &stream_1, record_mark, NULL),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    accel_callback_emulator_fini(&em, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mark_and_refusals),
        cmocka_unit_test(test_call_records),
        cmocka_unit_test(test_call_bad_input),
        cmocka_unit_test(test_emulator_runs_in_order_marked),
        cmocka_unit_test(test_emulator_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
