/* test_devices.c: conformance tests of devices: count, per-thread current
 * device, synchronize and device properties. */
#include "conformance.h"

void test_devices_count_positive(void **state)
{
    (void)state;
    assert_true(conf_device_count() >= 1);
}

void test_devices_count_null_arguments(void **state)
{
    int count = -7;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_device_count(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_device_count(NULL, &count));
    assert_int_equal(count, -7);
}

void test_devices_set_and_current(void **state)
{
    int count = conf_device_count();
    (void)state;
    for (int device = 0; device < count && device < 8; device++) {
        assert_ok(accel_set_device(conformance_acc, device));
        assert_int_equal(conf_current_device(), device);
    }
}

void test_devices_set_out_of_range(void **state)
{
    int count = conf_device_count();
    (void)state;
    assert_ok(accel_set_device(conformance_acc, 0));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_set_device(conformance_acc, count));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_set_device(conformance_acc, -5));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_set_device(NULL, 0));
    assert_int_equal(conf_current_device(), 0);
}

void test_devices_current_null_arguments(void **state)
{
    int device = -7;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_current_device(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_current_device(NULL, &device));
    assert_int_equal(device, -7);
}

typedef struct devices_thread_probe {
    int seen_at_start;
    int seen_after_set;
    int target;
    accel_status_t status;
} devices_thread_probe_t;

static void *devices_other_thread(void *arg)
{
    devices_thread_probe_t *probe = arg;
    probe->status = accel_current_device(conformance_acc, &probe->seen_at_start);
    if (probe->status == ACCEL_OK)
        probe->status = accel_set_device(conformance_acc, probe->target);
    if (probe->status == ACCEL_OK)
        probe->status = accel_current_device(conformance_acc, &probe->seen_after_set);
    return NULL;
}

void test_devices_current_is_per_thread(void **state)
{
    int count = conf_device_count();
    int mine = count > 1 ? 1 : 0;
    devices_thread_probe_t probe = {.seen_at_start = -7, .seen_after_set = -7, .target = 0};
    pthread_t thread;
    (void)state;
    assert_ok(accel_set_device(conformance_acc, mine));
    assert_int_equal(pthread_create(&thread, NULL, devices_other_thread, &probe), 0);
    pthread_join(thread, NULL);
    assert_ok(probe.status);
    assert_int_equal(probe.seen_at_start, 0); /* a new thread starts on device 0 */
    assert_int_equal(probe.seen_after_set, 0);
    assert_int_equal(conf_current_device(), mine); /* untouched by the other thread */
    if (count < 2)
        print_message("note: one device; per-thread independence checked on device 0 only\n");
}

void test_devices_synchronize(void **state)
{
    int count = conf_device_count();
    (void)state;
    assert_ok(accel_synchronize(conformance_acc, ACCEL_CURRENT_DEVICE));
    for (int device = 0; device < count && device < 8; device++)
        assert_ok(accel_synchronize(conformance_acc, device));
}

void test_devices_synchronize_bad_arguments(void **state)
{
    int count = conf_device_count();
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_synchronize(conformance_acc, count));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_synchronize(conformance_acc, -5));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_synchronize(NULL, 0));
}

void test_devices_properties(void **state)
{
    int count = conf_device_count();
    (void)state;
    for (int device = 0; device < count && device < 8; device++) {
        accel_device_properties_t props = ACCEL_STRUCT_INIT(accel_device_properties_t);
        assert_ok(accel_device_properties(conformance_acc, device, &props));
        uint64_t total = 0;
        assert_int_equal(props.struct_size, sizeof props);
        /* the total is known exactly when accel_total_memory knows it */
        if (accel_total_memory(conformance_acc, device, &total) == ACCEL_OK)
            assert_true(props.total_memory == total && total > 0);
        else
            assert_true(props.total_memory == 0);
        assert_true(props.name[0] != '\0');
        assert_true(props.compute_major >= -1);
        assert_true(props.compute_minor >= -1);
        assert_true(props.multiprocessor_count == -1 || props.multiprocessor_count > 0);
        assert_non_null(memchr(props.name, '\0', sizeof props.name));
        assert_non_null(memchr(props.vendor, '\0', sizeof props.vendor));
        assert_non_null(memchr(props.pci_bus_id, '\0', sizeof props.pci_bus_id));
        assert_non_null(memchr(props.uuid, '\0', sizeof props.uuid));
        assert_non_null(memchr(props.driver_version, '\0', sizeof props.driver_version));
    }
}

void test_devices_properties_current_device(void **state)
{
    accel_device_properties_t current = ACCEL_STRUCT_INIT(accel_device_properties_t);
    accel_device_properties_t zero = ACCEL_STRUCT_INIT(accel_device_properties_t);
    (void)state;
    assert_ok(accel_set_device(conformance_acc, 0));
    assert_ok(accel_device_properties(conformance_acc, ACCEL_CURRENT_DEVICE, &current));
    assert_ok(accel_device_properties(conformance_acc, 0, &zero));
    assert_string_equal(current.name, zero.name);
    assert_true(current.total_memory == zero.total_memory);
}

void test_devices_properties_bad_arguments(void **state)
{
    int count = conf_device_count();
    accel_device_properties_t props = ACCEL_STRUCT_INIT(accel_device_properties_t);
    (void)state;
    props.total_memory = 12345;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_device_properties(conformance_acc, count, &props));
    assert_true(props.total_memory == 12345);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_device_properties(conformance_acc, 0, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_device_properties(NULL, 0, &props));
    props.struct_size = 0;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_device_properties(conformance_acc, 0, &props));
    assert_true(props.total_memory == 12345);
}
