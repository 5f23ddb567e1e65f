/* test_pinned.c: conformance tests of page-locked host memory: host_alloc /
 * host_free, pinning an existing range, is_pinned on interior pointers. */
#include "conformance.h"

#include <stdlib.h>

#define PINNED_BYTES ((size_t)1 << 16)

static bool pinned(const void *ptr)
{
    bool value = false;
    assert_ok(accel_is_pinned(conformance_acc, ptr, &value));
    return value;
}

void test_pinned_host_alloc_free(void **state)
{
    uint8_t *ptr = NULL;
    (void)state;
    conf_require_flag(ACCEL_FLAG_PINNED_MEMORY_SUPPORTED, "pinned memory");
    assert_ok(accel_host_alloc(conformance_acc, PINNED_BYTES, (void **)&ptr));
    assert_non_null(ptr);
    memset(ptr, 0x7f, PINNED_BYTES); /* host memory: directly writable */
    assert_true(pinned(ptr));
    assert_true(pinned(ptr + 1));
    assert_true(pinned(ptr + PINNED_BYTES / 2));
    assert_true(pinned(ptr + PINNED_BYTES - 1));
    assert_ok(accel_host_free(conformance_acc, ptr));
    assert_false(pinned(ptr));
}

void test_pinned_host_alloc_bad_arguments(void **state)
{
    void *ptr = &ptr;
    (void)state;
    conf_require_flag(ACCEL_FLAG_PINNED_MEMORY_SUPPORTED, "pinned memory");
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_alloc(conformance_acc, 64, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_alloc(NULL, 64, &ptr));
    assert_ptr_equal(ptr, &ptr);
}

void test_pinned_host_free_unpinned_refused(void **state)
{
    void *heap = malloc(128);
    int on_stack = 0;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_free(conformance_acc, heap));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_free(conformance_acc, &on_stack));
    free(heap); /* still ours: the refused call did not release it */
}

void test_pinned_host_free_twice_refused(void **state)
{
    void *ptr = NULL;
    (void)state;
    conf_require_flag(ACCEL_FLAG_PINNED_MEMORY_SUPPORTED, "pinned memory");
    assert_ok(accel_host_alloc(conformance_acc, 256, &ptr));
    assert_ok(accel_host_free(conformance_acc, ptr));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_free(conformance_acc, ptr));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_free(NULL, ptr));
}

void test_pinned_host_free_interior_refused(void **state)
{
    uint8_t *ptr = NULL;
    (void)state;
    conf_require_flag(ACCEL_FLAG_PINNED_MEMORY_SUPPORTED, "pinned memory");
    assert_ok(accel_host_alloc(conformance_acc, 256, (void **)&ptr));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_free(conformance_acc, ptr + 16));
    assert_true(pinned(ptr));
    assert_ok(accel_host_free(conformance_acc, ptr));
}

void test_pinned_register_unregister(void **state)
{
    uint8_t *buffer;
    (void)state;
    conf_require_flag(ACCEL_FLAG_HOST_REGISTER_SUPPORTED, "host registration");
    buffer = malloc(PINNED_BYTES);
    assert_non_null(buffer);
    assert_false(pinned(buffer));
    assert_ok(accel_host_register(conformance_acc, buffer, PINNED_BYTES));
    assert_true(pinned(buffer));
    assert_true(pinned(buffer + 1234));
    assert_true(pinned(buffer + PINNED_BYTES - 1));
    assert_ok(accel_host_unregister(conformance_acc, buffer));
    assert_false(pinned(buffer));
    assert_false(pinned(buffer + 1234));
    free(buffer);
}

void test_pinned_registered_copy(void **state)
{
    uint8_t *host, *back, *device;
    (void)state;
    conf_require_flag(ACCEL_FLAG_HOST_REGISTER_SUPPORTED, "host registration");
    host = malloc(PINNED_BYTES);
    back = malloc(PINNED_BYTES);
    device = conf_device_alloc(PINNED_BYTES);
    assert_non_null(host);
    assert_non_null(back);
    for (size_t i = 0; i < PINNED_BYTES; i++)
        host[i] = (uint8_t)(i * 13u);
    assert_ok(accel_host_register(conformance_acc, host, PINNED_BYTES));
    conf_to_device(device, host, PINNED_BYTES);
    conf_to_host(back, device, PINNED_BYTES);
    assert_memory_equal(host, back, PINNED_BYTES);
    assert_ok(accel_host_unregister(conformance_acc, host));
    conf_device_free(device);
    free(host);
    free(back);
}

void test_pinned_register_bad_arguments(void **state)
{
    uint8_t *buffer;
    (void)state;
    conf_require_flag(ACCEL_FLAG_HOST_REGISTER_SUPPORTED, "host registration");
    buffer = malloc(256);
    assert_non_null(buffer);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_register(conformance_acc, NULL, 256));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_register(conformance_acc, buffer, 0));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_register(NULL, buffer, 256));
    assert_false(pinned(buffer));
    free(buffer);
}

void test_pinned_unregister_unknown_refused(void **state)
{
    uint8_t *buffer;
    (void)state;
    conf_require_flag(ACCEL_FLAG_HOST_REGISTER_SUPPORTED, "host registration");
    buffer = malloc(256);
    assert_non_null(buffer);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_unregister(conformance_acc, buffer));
    assert_ok(accel_host_register(conformance_acc, buffer, 256));
    assert_ok(accel_host_unregister(conformance_acc, buffer));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_unregister(conformance_acc, buffer));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_unregister(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_host_unregister(NULL, buffer));
    free(buffer);
}

void test_pinned_is_pinned_plain_memory(void **state)
{
    int on_stack = 0;
    void *heap = malloc(64);
    bool value = true;
    (void)state;
    assert_false(pinned(&on_stack));
    assert_false(pinned(heap));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_is_pinned(conformance_acc, heap, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_is_pinned(NULL, heap, &value));
    assert_true(value);
    free(heap);
}
