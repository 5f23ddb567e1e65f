/* test_memory.c: conformance tests of device memory: malloc/free (+ async),
 * copies in every direction, memset, and range checks on live allocations. */
#include "conformance.h"

#include <stdlib.h>

#define MEMORY_BYTES 4096

static void memory_pattern(uint8_t *buf, size_t size, unsigned seed)
{
    for (size_t i = 0; i < size; i++)
        buf[i] = (uint8_t)(i * 31u + seed);
}

void test_memory_malloc_free(void **state)
{
    void *ptr = NULL;
    (void)state;
    assert_ok(accel_malloc(conformance_acc, MEMORY_BYTES, &ptr));
    assert_non_null(ptr);
    assert_ok(accel_free(conformance_acc, ptr));
}

void test_memory_malloc_zero(void **state)
{
    void *ptr = &ptr;
    (void)state;
    assert_ok(accel_malloc(conformance_acc, 0, &ptr));
    assert_null(ptr);
}

void test_memory_malloc_bad_arguments(void **state)
{
    void *ptr = &ptr;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_malloc(conformance_acc, 16, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_malloc(NULL, 16, &ptr));
    assert_ptr_equal(ptr, &ptr);
}

void test_memory_malloc_too_large(void **state)
{
    uint64_t before = conf_allocated();
    accel_memory_stats_t stats_before = ACCEL_STRUCT_INIT(accel_memory_stats_t);
    accel_memory_stats_t stats_after = ACCEL_STRUCT_INIT(accel_memory_stats_t);
    void *ptr = &ptr;
    (void)state;
    assert_ok(accel_memory_stats(conformance_acc, ACCEL_CURRENT_DEVICE, &stats_before));
    /* 1 PiB: more than any device and than a 47-bit address space */
    assert_status(ACCEL_ERROR_OUT_OF_MEMORY, accel_malloc(conformance_acc, (size_t)1 << 50, &ptr));
    assert_ptr_equal(ptr, &ptr);
    assert_true(conf_allocated() == before);
    assert_ok(accel_memory_stats(conformance_acc, ACCEL_CURRENT_DEVICE, &stats_after));
    assert_true(stats_after.ooms == stats_before.ooms + 1);
}

void test_memory_free_null_is_noop(void **state)
{
    uint64_t before = conf_allocated();
    (void)state;
    assert_ok(accel_free(conformance_acc, NULL));
    assert_true(conf_allocated() == before);
}

void test_memory_free_twice_refused(void **state)
{
    void *ptr = conf_device_alloc(MEMORY_BYTES);
    uint64_t after_free;
    (void)state;
    conf_device_free(ptr);
    after_free = conf_allocated();
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_free(conformance_acc, ptr));
    assert_true(conf_allocated() == after_free);
}

void test_memory_free_foreign_refused(void **state)
{
    int on_stack = 0;
    void *heap = malloc(64);
    uint64_t before = conf_allocated();
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_free(conformance_acc, &on_stack));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_free(conformance_acc, heap));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_free(NULL, heap));
    assert_true(conf_allocated() == before);
    free(heap);
}

void test_memory_free_interior_refused(void **state)
{
    uint8_t *ptr = conf_device_alloc(MEMORY_BYTES);
    uint64_t before = conf_allocated();
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_free(conformance_acc, ptr + 64));
    assert_true(conf_allocated() == before);
    conf_device_free(ptr);
}

void test_memory_copy_round_trip_offsets(void **state)
{
    uint8_t source[1000], result[1000];
    uint8_t *device = conf_device_alloc(MEMORY_BYTES);
    (void)state;
    memory_pattern(source, sizeof source, 7);
    assert_ok(accel_memcpy(conformance_acc, device + 100, source, sizeof source,
                           ACCEL_COPY_HOST_TO_DEVICE));
    assert_ok(accel_memcpy(conformance_acc, device + 2048, device + 100, sizeof source,
                           ACCEL_COPY_DEVICE_TO_DEVICE));
    assert_ok(accel_memcpy(conformance_acc, result, device + 2048, sizeof result,
                           ACCEL_COPY_DEVICE_TO_HOST));
    assert_memory_equal(source, result, sizeof source);
    conf_device_free(device);
}

void test_memory_copy_between_allocations(void **state)
{
    uint8_t source[512], result[512];
    uint8_t *a = conf_device_alloc(sizeof source);
    uint8_t *b = conf_device_alloc(sizeof source);
    (void)state;
    memory_pattern(source, sizeof source, 3);
    conf_to_device(a, source, sizeof source);
    assert_ok(accel_memcpy(conformance_acc, b, a, sizeof source, ACCEL_COPY_DEVICE_TO_DEVICE));
    conf_to_host(result, b, sizeof result);
    assert_memory_equal(source, result, sizeof source);
    conf_device_free(a);
    conf_device_free(b);
}

void test_memory_copy_host_to_host(void **state)
{
    uint8_t source[256], result[256];
    (void)state;
    memory_pattern(source, sizeof source, 5);
    memset(result, 0, sizeof result);
    assert_ok(
        accel_memcpy(conformance_acc, result, source, sizeof source, ACCEL_COPY_HOST_TO_HOST));
    assert_memory_equal(source, result, sizeof source);
}

void test_memory_copy_zero_bytes(void **state)
{
    uint8_t host[4] = {1, 2, 3, 4};
    uint8_t *device = conf_device_alloc(16);
    (void)state;
    assert_ok(accel_memcpy(conformance_acc, device, host, 0, ACCEL_COPY_HOST_TO_DEVICE));
    assert_ok(accel_memcpy(conformance_acc, host, device, 0, ACCEL_COPY_DEVICE_TO_HOST));
    assert_int_equal(host[0], 1);
    conf_device_free(device);
}

void test_memory_copy_overflow_refused(void **state)
{
    uint8_t source[MEMORY_BYTES], before[MEMORY_BYTES], after[MEMORY_BYTES];
    uint8_t *device = conf_device_alloc(MEMORY_BYTES);
    (void)state;
    memory_pattern(before, sizeof before, 1);
    memory_pattern(source, sizeof source, 2);
    conf_to_device(device, before, sizeof before);
    assert_status(
        ACCEL_ERROR_INVALID_ARGUMENT,
        accel_memcpy(conformance_acc, device + 1, source, MEMORY_BYTES, ACCEL_COPY_HOST_TO_DEVICE));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_memcpy(conformance_acc, after, device + 100, MEMORY_BYTES,
                               ACCEL_COPY_DEVICE_TO_HOST));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_memcpy(conformance_acc, device, device + 2048,
                                                             2049, ACCEL_COPY_DEVICE_TO_DEVICE));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_memcpy(conformance_acc, device + 2048, device,
                                                             2049, ACCEL_COPY_DEVICE_TO_DEVICE));
    conf_to_host(after, device, sizeof after);
    assert_memory_equal(before, after, sizeof before); /* nothing half-applied */
    conf_device_free(device);
}

void test_memory_copy_unallocated_refused(void **state)
{
    uint8_t host[64] = {0}, other[64] = {0};
    uint8_t *device = conf_device_alloc(64);
    (void)state;
    conf_device_free(device);
    assert_status(
        ACCEL_ERROR_INVALID_ARGUMENT,
        accel_memcpy(conformance_acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE));
    assert_status(
        ACCEL_ERROR_INVALID_ARGUMENT,
        accel_memcpy(conformance_acc, host, other, sizeof host, ACCEL_COPY_DEVICE_TO_HOST));
}

void test_memory_copy_bad_arguments(void **state)
{
    uint8_t host[64] = {0};
    uint8_t *device = conf_device_alloc(64);
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_memcpy(conformance_acc, device, host, 64, (accel_copy_kind_t)9));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_memcpy(conformance_acc, NULL, host, 64, ACCEL_COPY_HOST_TO_DEVICE));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_memcpy(conformance_acc, device, NULL, 64, ACCEL_COPY_HOST_TO_DEVICE));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_memcpy(NULL, device, host, 64, ACCEL_COPY_HOST_TO_DEVICE));
    conf_device_free(device);
}

void test_memory_memset(void **state)
{
    uint8_t result[MEMORY_BYTES];
    uint8_t *device = conf_device_alloc(MEMORY_BYTES);
    (void)state;
    assert_ok(accel_memset(conformance_acc, device, 0x11, MEMORY_BYTES));
    assert_ok(accel_memset(conformance_acc, device + 1000, 0xee, 24));
    conf_to_host(result, device, sizeof result);
    for (size_t i = 0; i < MEMORY_BYTES; i++)
        assert_int_equal(result[i], (i >= 1000 && i < 1024) ? 0xee : 0x11);
    conf_device_free(device);
}

void test_memory_memset_overflow_refused(void **state)
{
    uint8_t result[256];
    uint8_t *device = conf_device_alloc(256);
    (void)state;
    assert_ok(accel_memset(conformance_acc, device, 0x22, 256));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_memset(conformance_acc, device + 128, 0, 129));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_memset(conformance_acc, NULL, 0, 1));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_memset(NULL, device, 0, 1));
    conf_to_host(result, device, sizeof result);
    for (size_t i = 0; i < sizeof result; i++)
        assert_int_equal(result[i], 0x22);
    conf_device_free(device);
}

void test_memory_async_round_trip(void **state)
{
    accel_stream_t *stream = NULL;
    uint8_t *host_in = NULL, *host_out = NULL;
    uint8_t *device = NULL;
    (void)state;
    conf_require_streams();
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    assert_ok(accel_host_alloc(conformance_acc, MEMORY_BYTES, (void **)&host_in));
    assert_ok(accel_host_alloc(conformance_acc, MEMORY_BYTES, (void **)&host_out));
    memory_pattern(host_in, MEMORY_BYTES, 9);
    memset(host_out, 0, MEMORY_BYTES);
    assert_ok(accel_malloc_async(conformance_acc, 2 * MEMORY_BYTES, stream, (void **)&device));
    assert_non_null(device);
    assert_ok(accel_memset_async(conformance_acc, device, 0, 2 * MEMORY_BYTES, stream));
    assert_ok(accel_memcpy_async(conformance_acc, device + 512, host_in, MEMORY_BYTES,
                                 ACCEL_COPY_HOST_TO_DEVICE, stream));
    assert_ok(accel_memcpy_async(conformance_acc, device + MEMORY_BYTES, device + 512, MEMORY_BYTES,
                                 ACCEL_COPY_DEVICE_TO_DEVICE, stream));
    assert_ok(accel_memcpy_async(conformance_acc, host_out, device + MEMORY_BYTES, MEMORY_BYTES,
                                 ACCEL_COPY_DEVICE_TO_HOST, stream));
    assert_ok(accel_free_async(conformance_acc, device, stream));
    assert_ok(accel_stream_synchronize(stream));
    assert_memory_equal(host_in, host_out, MEMORY_BYTES);
    assert_ok(accel_stream_destroy(stream));
    assert_ok(accel_host_free(conformance_acc, host_in));
    assert_ok(accel_host_free(conformance_acc, host_out));
}

void test_memory_async_bad_arguments(void **state)
{
    accel_stream_t *stream = NULL;
    uint8_t host[64] = {0};
    uint8_t *device;
    void *ptr = &ptr;
    (void)state;
    conf_require_streams();
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    device = conf_device_alloc(64);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_malloc_async(conformance_acc, 64, stream, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_malloc_async(NULL, 64, stream, &ptr));
    assert_ptr_equal(ptr, &ptr);
    assert_status(
        ACCEL_ERROR_INVALID_ARGUMENT,
        accel_memcpy_async(conformance_acc, device, host, 65, ACCEL_COPY_HOST_TO_DEVICE, stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_memset_async(conformance_acc, device + 1, 0, 64, stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_free_async(conformance_acc, host, stream));
    assert_ok(accel_free_async(conformance_acc, device, stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_free_async(conformance_acc, device, stream));
    assert_ok(accel_stream_synchronize(stream));
    assert_ok(accel_stream_destroy(stream));
}

/* Device memory named as the host side of a copy (every kind with a host
 * side, sync and async, interior pointers too): where device memory is host
 * memory (DLPack kDLCPU) the copy works; elsewhere the host cannot address
 * it, so the copy is refused with nothing changed, never run. */
void test_memory_device_memory_as_host(void **state)
{
    uint8_t host[64], expected[64], back[64];
    uint8_t *device = conf_device_alloc(256), *other = conf_device_alloc(64);
    int32_t device_type = -1;
    bool host_addressable;
    (void)state;
    assert_ok(accel_dlpack_device_type(conformance_acc, &device_type));
    host_addressable = device_type == kDLCPU;
    memory_pattern(expected, sizeof expected, 5);
    assert_ok(accel_memcpy(conformance_acc, device, expected, 64, ACCEL_COPY_HOST_TO_DEVICE));
    assert_ok(accel_memcpy(conformance_acc, device + 64, expected, 64, ACCEL_COPY_HOST_TO_DEVICE));
    memset(host, 0, sizeof host);
    const struct {
        void *dst;
        const void *src;
        accel_copy_kind_t kind;
    } cases[] = {
        {host, device, ACCEL_COPY_HOST_TO_HOST},
        {device + 128, host, ACCEL_COPY_HOST_TO_HOST},
        {other, device + 8, ACCEL_COPY_HOST_TO_DEVICE},
        {device + 64, other, ACCEL_COPY_DEVICE_TO_HOST},
        {device + 130, device + 1, ACCEL_COPY_HOST_TO_HOST},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int async = 0; async < 2; async++) {
            accel_status_t status =
                async
                    ? accel_memcpy_async(conformance_acc, cases[c].dst, cases[c].src, 32,
                                         cases[c].kind, NULL)
                    : accel_memcpy(conformance_acc, cases[c].dst, cases[c].src, 32, cases[c].kind);
            if (host_addressable) {
                assert_int_equal(status, ACCEL_OK);
                continue;
            }
            if (status != ACCEL_ERROR_INVALID_ARGUMENT)
                fail_msg("case %zu (%s) returned %s", c, async ? "async" : "sync",
                         accel_status_name(status));
            assert_non_null(strstr(accel_last_error(), "host cannot address"));
        }
    }
    assert_ok(accel_synchronize(conformance_acc, ACCEL_CURRENT_DEVICE));
    if (!host_addressable) {
        conf_to_host(back, device + 64, 64);
        assert_memory_equal(back, expected, 64); /* the D2H into device + 64 did not run */
        for (size_t i = 0; i < sizeof host; i++)
            assert_int_equal(host[i], 0);
        /* A backend without host registration refuses any pointer as such. */
        assert_status(conf_flag(ACCEL_FLAG_HOST_REGISTER_SUPPORTED) ? ACCEL_ERROR_INVALID_ARGUMENT
                                                                    : ACCEL_ERROR_UNSUPPORTED,
                      accel_host_register(conformance_acc, device, 64));
    }
    conf_device_free(other);
    conf_device_free(device);
}
