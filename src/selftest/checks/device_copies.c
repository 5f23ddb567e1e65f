/* device_copies.c: copies of every kind (host<->device, device<->device,
 * host<->host), synchronous and on a created stream, at sizes and byte
 * offsets that miss every alignment a runtime might assume, checked byte
 * for byte against the host. */
#include <stdlib.h>

#include "conformance.h"

#define COPIES_MAX (1u << 20)

static const size_t copy_sizes[] = {1, 3, 4, 7, 64, 255, 4097, 65536 + 5, COPIES_MAX - 9};
static const size_t copy_offsets[] = {0, 1, 3, 8};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static void copies_pattern(unsigned char *p, size_t size, unsigned seed)
{
    for (size_t i = 0; i < size; i++)
        p[i] = (unsigned char)((i * 131u + seed * 7u + (i >> 8)) & 0xffu);
}

/* One round trip host -> device -> device -> host (and host -> host) of
 * `size` bytes at the given offsets; `stream` NULL: the synchronous calls. */
static void copies_round_trip(unsigned char *host_src, unsigned char *host_dst,
                              unsigned char *dev_a, unsigned char *dev_b, size_t size,
                              size_t src_off, size_t dst_off, accel_stream_t *stream)
{
    unsigned char *src = host_src + src_off, *dst = host_dst + dst_off;
    unsigned char *a = dev_a + dst_off, *b = dev_b + src_off;
    copies_pattern(src, size, (unsigned)(size + src_off * 3 + dst_off));
    memset(host_dst, 0xee, COPIES_MAX + 16);
    if (stream == NULL) {
        assert_ok(accel_memcpy(conformance_acc, a, src, size, ACCEL_COPY_HOST_TO_DEVICE));
        assert_ok(accel_memcpy(conformance_acc, b, a, size, ACCEL_COPY_DEVICE_TO_DEVICE));
        assert_ok(accel_memcpy(conformance_acc, dst, b, size, ACCEL_COPY_DEVICE_TO_HOST));
    } else {
        assert_ok(
            accel_memcpy_async(conformance_acc, a, src, size, ACCEL_COPY_HOST_TO_DEVICE, stream));
        assert_ok(
            accel_memcpy_async(conformance_acc, b, a, size, ACCEL_COPY_DEVICE_TO_DEVICE, stream));
        assert_ok(
            accel_memcpy_async(conformance_acc, dst, b, size, ACCEL_COPY_DEVICE_TO_HOST, stream));
        assert_ok(accel_stream_synchronize(stream));
    }
    if (memcmp(src, dst, size) != 0)
        fail_msg("a %zu-byte copy (host offset %zu, device offset %zu, %s) came back changed", size,
                 src_off, dst_off, stream == NULL ? "synchronous" : "on a stream");
    /* Nothing outside the range was written. */
    if (dst_off > 0 && host_dst[dst_off - 1] != 0xee)
        fail_msg("a %zu-byte copy to host offset %zu wrote the byte before it", size, dst_off);
    if (host_dst[dst_off + size] != 0xee)
        fail_msg("a %zu-byte copy to host offset %zu wrote the byte after it", size, dst_off);
}

static void copies_every_size(accel_stream_t *stream, bool pinned)
{
    unsigned char *host_src = NULL, *host_dst = NULL;
    unsigned char *dev_a = conf_device_alloc(COPIES_MAX + 16);
    unsigned char *dev_b = conf_device_alloc(COPIES_MAX + 16);
    if (pinned) {
        assert_ok(accel_host_alloc(conformance_acc, COPIES_MAX + 16, (void **)&host_src));
        assert_ok(accel_host_alloc(conformance_acc, COPIES_MAX + 16, (void **)&host_dst));
    } else {
        host_src = malloc(COPIES_MAX + 16);
        host_dst = malloc(COPIES_MAX + 16);
        assert_non_null(host_src);
        assert_non_null(host_dst);
    }
    for (size_t s = 0; s < COUNT_OF(copy_sizes); s++)
        for (size_t i = 0; i < COUNT_OF(copy_offsets); i++)
            for (size_t j = 0; j < COUNT_OF(copy_offsets); j += 3)
                copies_round_trip(host_src, host_dst, dev_a, dev_b, copy_sizes[s], copy_offsets[i],
                                  copy_offsets[j], stream);
    if (pinned) {
        assert_ok(accel_host_free(conformance_acc, host_src));
        assert_ok(accel_host_free(conformance_acc, host_dst));
    } else {
        free(host_src);
        free(host_dst);
    }
    conf_device_free(dev_a);
    conf_device_free(dev_b);
}

void check_device_copies_sync(void **state)
{
    (void)state;
    copies_every_size(NULL, false);
}

void check_device_copies_async_pageable(void **state)
{
    accel_stream_t *stream = NULL;
    (void)state;
    conf_require_streams();
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    copies_every_size(stream, false);
    assert_ok(accel_stream_destroy(stream));
}

void check_device_copies_async_pinned(void **state)
{
    accel_stream_t *stream = NULL;
    (void)state;
    conf_require_streams();
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    copies_every_size(stream, true);
    assert_ok(accel_stream_destroy(stream));
}

void check_device_copies_host_to_host(void **state)
{
    accel_stream_t *stream = NULL;
    unsigned char *src = malloc(4097 + 8), *dst = malloc(4097 + 8);
    (void)state;
    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < COUNT_OF(copy_offsets); i++) {
        size_t off = copy_offsets[i];
        copies_pattern(src + off, 4097, (unsigned)off);
        memset(dst, 0, 4097 + 8);
        assert_ok(
            accel_memcpy(conformance_acc, dst + off, src + off, 4097, ACCEL_COPY_HOST_TO_HOST));
        assert_memory_equal(dst + off, src + off, 4097);
    }
    if (conf_flag(ACCEL_FLAG_STREAMS_SUPPORTED)) {
        assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
        memset(dst, 0, 4097 + 8);
        assert_ok(accel_memcpy_async(conformance_acc, dst + 1, src + 3, 4000,
                                     ACCEL_COPY_HOST_TO_HOST, stream));
        assert_ok(accel_stream_synchronize(stream));
        assert_memory_equal(dst + 1, src + 3, 4000);
        assert_ok(accel_stream_destroy(stream));
    }
    free(src);
    free(dst);
}

/* Every device: a copy between two devices goes through the host here
 * (device-to-device is within one device), so each device round-trips on
 * its own. */
void check_device_copies_every_device(void **state)
{
    int count = conf_device_count();
    unsigned char host[4099], back[4099];
    (void)state;
    for (int device = 0; device < count; device++) {
        void *dev = NULL;
        assert_ok(accel_set_device(conformance_acc, device));
        copies_pattern(host, sizeof host, (unsigned)device);
        memset(back, 0, sizeof back);
        dev = conf_device_alloc(sizeof host);
        conf_to_device(dev, host, sizeof host);
        conf_to_host(back, dev, sizeof back);
        if (memcmp(host, back, sizeof host) != 0)
            fail_msg("a copy round trip on device %d came back changed", device);
        conf_device_free(dev);
    }
    assert_ok(accel_set_device(conformance_acc, 0));
}
