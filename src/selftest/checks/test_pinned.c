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

/* ---- DeepSpeed's pin_memory(t, make_copy, match_shape) / unpin_memory */

/* A host f32 tensor of 4 x 8 counting from 0 (DeepSpeed's arange(32).reshape(4, 8)). */
typedef struct pin_source {
    float data[32];
    int64_t shape[2];
    DLTensor tensor;
} pin_source_t;

static void pin_source_init(pin_source_t *src)
{
    for (int i = 0; i < 32; i++)
        src->data[i] = (float)i;
    src->shape[0] = 4;
    src->shape[1] = 8;
    memset(&src->tensor, 0, sizeof src->tensor);
    src->tensor.data = src->data;
    src->tensor.device.device_type = kDLCPU;
    src->tensor.ndim = 2;
    assert_ok(accel_dtype_to_dlpack(ACCEL_DTYPE_F32, &src->tensor.dtype));
    src->tensor.shape = src->shape;
}

/* Run `body` once per pin backend this accelerator can use, restoring the
 * backend it had. The default one needs pinned memory (a device too). */
static void pin_each_backend(void (*body)(void))
{
    accel_pin_backend_t original;
    assert_ok(accel_pin_memory_backend(conformance_acc, &original));
    for (int b = ACCEL_PIN_BACKEND_DEFAULT; b <= ACCEL_PIN_BACKEND_NATIVE; b++) {
        if (b == ACCEL_PIN_BACKEND_DEFAULT && !conf_flag(ACCEL_FLAG_PINNED_MEMORY_SUPPORTED))
            continue;
        assert_ok(accel_set_pin_memory_backend(conformance_acc, (accel_pin_backend_t)b));
        body();
    }
    assert_ok(accel_set_pin_memory_backend(conformance_acc, original));
}

static void pin_shape_copy_and_views(void)
{
    pin_source_t src;
    DLTensor p, flat, blank, view;
    bool freed = false;
    pin_source_init(&src);
    assert_ok(accel_pin_memory(conformance_acc, &src.tensor, true, true, &p));
    assert_int_equal(p.ndim, 2);
    assert_int_equal(p.shape[0], 4);
    assert_int_equal(p.shape[1], 8);
    assert_int_equal(p.device.device_type, kDLCPU);
    assert_ptr_not_equal(p.data, src.data);
    assert_memory_equal(p.data, src.data, sizeof src.data);
    assert_true(pinned(p.data));
    assert_true(pinned((const float *)p.data + 8)); /* p.reshape(-1).narrow(0, 8, 8) */
    assert_true(pinned((const float *)p.data + 31));
    assert_false(pinned(src.data));
    /* A view is pinned but is not the pinned tensor: unpin leaves it. */
    view = p;
    view.byte_offset = 8 * sizeof(float);
    assert_ok(accel_unpin_memory(conformance_acc, &view, &freed));
    assert_false(freed);
    assert_true(pinned(p.data));

    assert_ok(accel_pin_memory(conformance_acc, &src.tensor, true, false, &flat));
    assert_int_equal(flat.ndim, 1);
    assert_int_equal(flat.shape[0], 32);
    assert_memory_equal(flat.data, src.data, sizeof src.data);
    assert_ok(accel_pin_memory(conformance_acc, &src.tensor, false, true, &blank));
    assert_int_equal(blank.ndim, 2);
    assert_true(pinned(blank.data));

    void *data = p.data;
    assert_ok(accel_unpin_memory(conformance_acc, &p, &freed));
    assert_true(freed);
    assert_null(p.data);
    assert_false(pinned(data));
    assert_false(pinned((const float *)data + 8));
    assert_ok(accel_unpin_memory(conformance_acc, &p, &freed)); /* again: nothing to free */
    assert_false(freed);
    assert_ok(accel_unpin_memory(conformance_acc, &flat, &freed));
    assert_true(freed);
    assert_ok(accel_unpin_memory(conformance_acc, &blank, &freed));
    assert_true(freed);
}

void test_pinned_pin_memory_shape_copy_unpin(void **state)
{
    (void)state;
    pin_each_backend(pin_shape_copy_and_views);
}

static void pin_accounting(void)
{
    accel_pinned_stats_t before = ACCEL_STRUCT_INIT(accel_pinned_stats_t);
    accel_pinned_stats_t during = ACCEL_STRUCT_INIT(accel_pinned_stats_t);
    accel_pinned_stats_t after = ACCEL_STRUCT_INIT(accel_pinned_stats_t);
    pin_source_t src;
    DLTensor p;
    bool freed = false;
    pin_source_init(&src);
    assert_ok(accel_pinned_memory_stats(conformance_acc, &before));
    assert_ok(accel_pin_memory(conformance_acc, &src.tensor, true, true, &p));
    assert_ok(accel_pinned_memory_stats(conformance_acc, &during));
    assert_true(during.pinned_bytes == before.pinned_bytes + sizeof src.data);
    assert_true(during.pinned_bytes_peak >= during.pinned_bytes);
    assert_true(during.tracked_bytes == before.tracked_bytes + sizeof src.data);
    assert_true(during.pin_count == before.pin_count + 1);
    assert_ok(accel_unpin_memory(conformance_acc, &p, &freed));
    assert_ok(accel_pinned_memory_stats(conformance_acc, &after));
    assert_true(after.pinned_bytes == before.pinned_bytes);
    assert_true(after.tracked_bytes == during.tracked_bytes); /* a running total */
}

void test_pinned_pin_memory_accounting(void **state)
{
    (void)state;
    pin_each_backend(pin_accounting);
}

void test_pinned_pin_memory_bad_arguments(void **state)
{
    pin_source_t src;
    DLTensor out, bad;
    int64_t strides[2] = {1, 4}; /* column-major: not contiguous */
    int64_t empty[2] = {0, 8};
    accel_pinned_stats_t stats = ACCEL_STRUCT_INIT(accel_pinned_stats_t);
    accel_pin_backend_t original;
    bool freed = true;
    (void)state;
    pin_source_init(&src);
    memset(&out, 0, sizeof out);
    assert_ok(accel_pin_memory_backend(conformance_acc, &original));
    assert_ok(accel_set_pin_memory_backend(conformance_acc, ACCEL_PIN_BACKEND_NATIVE));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_pin_memory(conformance_acc, NULL, true, true, &out));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_pin_memory(conformance_acc, &src.tensor, true, true, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_pin_memory(NULL, &src.tensor, true, true, &out));
    bad = src.tensor;
    bad.strides = strides;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_pin_memory(conformance_acc, &bad, true, true, &out));
    bad = src.tensor;
    bad.shape = empty;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_pin_memory(conformance_acc, &bad, true, true, &out));
    bad = src.tensor;
    bad.device.device_type = kDLVulkan; /* not host memory */
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_pin_memory(conformance_acc, &bad, true, true, &out));
    bad = src.tensor;
    bad.data = NULL;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_pin_memory(conformance_acc, &bad, true, true, &out));
    assert_null(out.data);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_unpin_memory(conformance_acc, NULL, &freed));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_unpin_memory(conformance_acc, &src.tensor, NULL));
    assert_ok(accel_unpin_memory(conformance_acc, &src.tensor, &freed)); /* never pinned */
    assert_false(freed);
    assert_true(src.tensor.data == src.data);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_set_pin_memory_backend(conformance_acc, (accel_pin_backend_t)7));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_pinned_memory_stats(conformance_acc, NULL));
    stats.struct_size = 0;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_pinned_memory_stats(conformance_acc, &stats));
    assert_ok(accel_set_pin_memory_backend(conformance_acc, original));
}
