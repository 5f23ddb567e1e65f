/* device_pinned.c: page-locked and registered host memory on the device:
 * asynchronous copies through either kind land intact, and registered
 * memory reads as pinned until it is unregistered. */
#include <stdlib.h>

#include "conformance.h"

#define PINNED_SIZE ((size_t)4 << 20)

static void pinned_round_trip(unsigned char *host, size_t size, accel_stream_t *stream)
{
    unsigned char *dev = conf_device_alloc(size);
    for (size_t i = 0; i < size; i++)
        host[i] = (unsigned char)(i * 7 + 1);
    assert_ok(
        accel_memcpy_async(conformance_acc, dev, host, size, ACCEL_COPY_HOST_TO_DEVICE, stream));
    /* The host buffer may be reused only after the copy is done. */
    assert_ok(accel_stream_synchronize(stream));
    memset(host, 0, size);
    assert_ok(
        accel_memcpy_async(conformance_acc, host, dev, size, ACCEL_COPY_DEVICE_TO_HOST, stream));
    assert_ok(accel_stream_synchronize(stream));
    for (size_t i = 0; i < size; i++)
        if (host[i] != (unsigned char)(i * 7 + 1))
            fail_msg("byte %zu of a %zu-byte pinned round trip is 0x%02x", i, size, host[i]);
    conf_device_free(dev);
}

void check_device_pinned_async_round_trip(void **state)
{
    accel_stream_t *stream = NULL;
    unsigned char *host = NULL;
    bool pinned = false;
    (void)state;
    conf_require_streams();
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    assert_ok(accel_host_alloc(conformance_acc, PINNED_SIZE, (void **)&host));
    assert_ok(accel_is_pinned(conformance_acc, host + PINNED_SIZE / 2, &pinned));
    assert_true(pinned);
    pinned_round_trip(host, PINNED_SIZE, stream);
    assert_ok(accel_host_free(conformance_acc, host));
    assert_ok(accel_stream_destroy(stream));
}

void check_device_registered_async_round_trip(void **state)
{
    accel_stream_t *stream = NULL;
    unsigned char *host = NULL;
    bool pinned = true;
    (void)state;
    conf_require_streams();
    conf_require_flag(ACCEL_FLAG_HOST_REGISTER_SUPPORTED, "host registration");
    assert_int_equal(posix_memalign((void **)&host, 4096, PINNED_SIZE), 0);
    assert_ok(accel_is_pinned(conformance_acc, host, &pinned));
    assert_false(pinned);
    assert_ok(accel_host_register(conformance_acc, host, PINNED_SIZE));
    assert_ok(accel_is_pinned(conformance_acc, host + 100, &pinned));
    assert_true(pinned);
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    pinned_round_trip(host, PINNED_SIZE, stream);
    assert_ok(accel_stream_destroy(stream));
    assert_ok(accel_host_unregister(conformance_acc, host));
    assert_ok(accel_is_pinned(conformance_acc, host, &pinned));
    assert_false(pinned);
    free(host);
}
