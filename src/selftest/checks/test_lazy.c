/* test_lazy.c: conformance tests of lazy initialisation: lazy_call runs its
 * callback exactly once, now or when the runtime first initialises. */
#include "conformance.h"

typedef struct lazy_record {
    int calls;
    accel_t *seen;
} lazy_record_t;

static void lazy_fn(accel_t *acc, void *arg)
{
    lazy_record_t *record = arg;
    record->calls++;
    record->seen = acc;
}

void test_lazy_call_runs_once(void **state)
{
    lazy_record_t record = {0};
    bool initialized = false;
    void *ptr;
    (void)state;
    assert_ok(accel_is_initialized(conformance_acc, &initialized));
    assert_ok(accel_lazy_call(conformance_acc, lazy_fn, &record));
    if (initialized)
        assert_int_equal(record.calls, 1);
    else
        assert_true(record.calls <= 1);
    ptr = conf_device_alloc(64); /* needs the device: initialises the runtime */
    conf_device_free(ptr);
    assert_ok(accel_is_initialized(conformance_acc, &initialized));
    assert_true(initialized);
    assert_int_equal(record.calls, 1);
    assert_ptr_equal(record.seen, conformance_acc);
    assert_ok(accel_synchronize(conformance_acc, ACCEL_CURRENT_DEVICE));
    assert_int_equal(record.calls, 1);
}

void test_lazy_call_after_init_runs_now(void **state)
{
    lazy_record_t record = {0};
    bool initialized = false;
    void *ptr = conf_device_alloc(64);
    (void)state;
    conf_device_free(ptr);
    assert_ok(accel_is_initialized(conformance_acc, &initialized));
    assert_true(initialized);
    assert_ok(accel_lazy_call(conformance_acc, lazy_fn, &record));
    assert_int_equal(record.calls, 1);
}

void test_lazy_call_on_fresh_accelerator(void **state)
{
    lazy_record_t record = {0};
    accel_t *acc = NULL;
    bool initialized = false;
    void *ptr = NULL;
    (void)state;
    assert_ok(accel_open(conformance_backend, &acc));
    assert_ok(accel_is_initialized(acc, &initialized));
    assert_ok(accel_lazy_call(acc, lazy_fn, &record));
    if (initialized)
        assert_int_equal(record.calls, 1);
    assert_ok(accel_malloc(acc, 64, &ptr));
    assert_ok(accel_free(acc, ptr));
    assert_ok(accel_is_initialized(acc, &initialized));
    assert_true(initialized);
    assert_int_equal(record.calls, 1);
    assert_ptr_equal(record.seen, acc);
    assert_ok(accel_close(acc));
}

void test_lazy_bad_arguments(void **state)
{
    lazy_record_t record = {0};
    bool initialized = false;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_lazy_call(conformance_acc, NULL, &record));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_lazy_call(NULL, lazy_fn, &record));
    assert_int_equal(record.calls, 0);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_is_initialized(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_is_initialized(NULL, &initialized));
}
