/* test_tensors.c: conformance tests of DLPack tensors: empty/zeros, shape
 * ownership, tensor_free and on_accelerator. */
#include "conformance.h"

static int32_t tensors_device_type(void)
{
    int32_t type = 0;
    assert_ok(accel_dlpack_device_type(conformance_acc, &type));
    return type;
}

static size_t tensors_numel(const DLTensor *t)
{
    size_t numel = 1;
    for (int32_t i = 0; i < t->ndim; i++)
        numel *= (size_t)t->shape[i];
    return numel;
}

void test_tensors_empty_describes_tensor(void **state)
{
    int64_t shape[3] = {2, 3, 4};
    DLTensor t;
    DLDataType f32 = {0};
    (void)state;
    memset(&t, 0, sizeof t);
    assert_ok(accel_dtype_to_dlpack(ACCEL_DTYPE_F32, &f32));
    assert_ok(
        accel_tensor_empty(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, 3, shape, &t));
    assert_non_null(t.data);
    assert_int_equal(t.ndim, 3);
    assert_int_equal(t.dtype.code, f32.code);
    assert_int_equal(t.dtype.bits, f32.bits);
    assert_int_equal(t.dtype.lanes, f32.lanes);
    assert_int_equal(t.device.device_type, tensors_device_type());
    assert_int_equal(t.device.device_id, conf_current_device());
    assert_null(t.strides);
    assert_int_equal(t.byte_offset, 0);
    assert_ptr_not_equal(t.shape, shape); /* copied into library storage */
    shape[0] = 99;
    assert_int_equal(t.shape[0], 2);
    assert_int_equal(t.shape[1], 3);
    assert_int_equal(t.shape[2], 4);
    assert_ok(accel_tensor_free(conformance_acc, &t));
}

void test_tensors_zeros_are_zero(void **state)
{
    int64_t shape[2] = {16, 16};
    float host[256];
    DLTensor dirty, zeros;
    (void)state;
    /* dirty a block first, so a reused cached block must really be cleared */
    assert_ok(accel_tensor_empty(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, 2, shape,
                                 &dirty));
    assert_ok(accel_memset(conformance_acc, dirty.data, 0xff, sizeof host));
    assert_ok(accel_tensor_free(conformance_acc, &dirty));
    assert_ok(accel_tensor_zeros(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, 2, shape,
                                 &zeros));
    memset(host, 0xab, sizeof host);
    conf_to_host(host, zeros.data, sizeof host);
    for (size_t i = 0; i < 256; i++)
        assert_true(host[i] == 0.0f);
    assert_ok(accel_tensor_free(conformance_acc, &zeros));
}

/* DeepSpeed's FloatTensor(data): the data arrives on the device, on the
 * current device and on a named one. */
void test_tensors_from_host_holds_the_data(void **state)
{
    const int64_t shape[2] = {3, 5};
    int count = conf_device_count(), current = conf_current_device();
    float data[15], back[15];
    (void)state;
    for (int i = 0; i < 15; i++)
        data[i] = (float)i * 1.5f - 4.0f;
    for (int pass = 0; pass < 2; pass++) {
        int device = pass == 0 ? ACCEL_CURRENT_DEVICE : count - 1;
        DLTensor t;
        memset(&t, 0, sizeof t);
        assert_ok(
            accel_tensor_from_host(conformance_acc, device, ACCEL_DTYPE_F32, 2, shape, data, &t));
        assert_int_equal(t.ndim, 2);
        assert_int_equal(t.shape[0], 3);
        assert_int_equal(t.shape[1], 5);
        assert_int_equal(t.device.device_id, pass == 0 ? current : count - 1);
        assert_int_equal(t.device.device_type, tensors_device_type());
        assert_ok(accel_set_device(conformance_acc, t.device.device_id));
        memset(back, 0, sizeof back);
        conf_to_host(back, t.data, sizeof back);
        assert_memory_equal(back, data, sizeof data);
        assert_ok(accel_set_device(conformance_acc, current));
        assert_ok(accel_tensor_free(conformance_acc, &t));
    }
}

void test_tensors_from_host_bad_arguments(void **state)
{
    const int64_t shape[1] = {4};
    const int64_t bad_shape[1] = {-1};
    const int64_t empty_shape[1] = {0};
    int32_t data[4] = {1, 2, 3, 4};
    DLTensor t;
    uint64_t before = conf_allocated();
    (void)state;
    memset(&t, 0, sizeof t);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_tensor_from_host(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_I32, 1,
                                         shape, NULL, &t));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_tensor_from_host(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_I32, 1,
                                         bad_shape, data, &t));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_tensor_from_host(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_COUNT_,
                                         1, shape, data, &t));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_tensor_from_host(conformance_acc, conf_device_count(), ACCEL_DTYPE_I32, 1,
                                         shape, data, &t));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_tensor_from_host(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_I32, 1,
                                         shape, data, NULL));
    assert_status(
        ACCEL_ERROR_INVALID_ARGUMENT,
        accel_tensor_from_host(NULL, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_I32, 1, shape, data, &t));
    assert_null(t.data);
    assert_true(conf_allocated() == before); /* nothing left behind */
    /* An empty tensor needs no data. */
    assert_ok(accel_tensor_from_host(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_I32, 1,
                                     empty_shape, NULL, &t));
    assert_ok(accel_tensor_free(conformance_acc, &t));
}

void test_tensors_every_supported_dtype(void **state)
{
    accel_dtype_t list[ACCEL_DTYPE_COUNT_];
    size_t count = 0;
    int64_t shape[2] = {3, 5};
    (void)state;
    assert_ok(accel_supported_dtypes(conformance_acc, list, ACCEL_DTYPE_COUNT_, &count));
    for (size_t i = 0; i < count; i++) {
        DLTensor t;
        DLDataType type = {0};
        uint8_t host[15 * 8];
        assert_ok(accel_dtype_to_dlpack(list[i], &type));
        assert_ok(accel_tensor_zeros(conformance_acc, ACCEL_CURRENT_DEVICE, list[i], 2, shape, &t));
        assert_int_equal(t.dtype.code, type.code);
        assert_int_equal(t.dtype.bits, type.bits);
        assert_int_equal(tensors_numel(&t), 15);
        conf_to_host(host, t.data, 15 * (size_t)type.bits / 8);
        for (size_t j = 0; j < 15 * (size_t)type.bits / 8; j++)
            assert_int_equal(host[j], 0);
        assert_ok(accel_tensor_free(conformance_acc, &t));
    }
}

void test_tensors_free_releases_and_zeroes(void **state)
{
    int64_t shape[1] = {1 << 16};
    uint64_t before = conf_allocated();
    DLTensor t;
    (void)state;
    assert_ok(
        accel_tensor_empty(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, 1, shape, &t));
    assert_true(conf_allocated() >= before + sizeof(float) * (1 << 16));
    assert_ok(accel_tensor_free(conformance_acc, &t));
    assert_true(conf_allocated() == before);
    assert_null(t.data);
    assert_null(t.shape);
    assert_int_equal(t.ndim, 0);
}

void test_tensors_on_accelerator_own(void **state)
{
    int64_t shape[1] = {8};
    bool on = false;
    DLTensor t;
    (void)state;
    assert_ok(
        accel_tensor_empty(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, 1, shape, &t));
    assert_ok(accel_on_accelerator(conformance_acc, &t, &on));
    assert_true(on);
    assert_ok(accel_tensor_free(conformance_acc, &t));
}

void test_tensors_on_accelerator_other_device_type(void **state)
{
    int64_t shape[1] = {8};
    float data[8] = {0};
    bool on = true;
    DLTensor t = {.data = data, .ndim = 1, .shape = shape, .dtype = {kDLFloat, 32, 1}};
    (void)state;
    t.device.device_type = tensors_device_type() == kDLCPU ? kDLCUDA : kDLCPU;
    t.device.device_id = 0;
    assert_ok(accel_on_accelerator(conformance_acc, &t, &on));
    assert_false(on);
}

void test_tensors_on_accelerator_bad_arguments(void **state)
{
    int64_t shape[1] = {8};
    float data[8] = {0};
    bool on = true;
    DLTensor t = {.data = data, .ndim = 1, .shape = shape, .dtype = {kDLFloat, 32, 1}};
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_on_accelerator(conformance_acc, NULL, &on));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_on_accelerator(conformance_acc, &t, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_on_accelerator(NULL, &t, &on));
    assert_true(on);
}

void test_tensors_create_bad_arguments(void **state)
{
    int64_t shape[2] = {4, 4};
    int64_t negative[2] = {4, -1};
    uint64_t before = conf_allocated();
    DLTensor t;
    (void)state;
    memset(&t, 0x5c, sizeof t);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_tensor_empty(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_COUNT_, 2,
                                     shape, &t));
    assert_status(
        ACCEL_ERROR_INVALID_ARGUMENT,
        accel_tensor_empty(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, -1, shape, &t));
    assert_status(
        ACCEL_ERROR_INVALID_ARGUMENT,
        accel_tensor_empty(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, 2, NULL, &t));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_tensor_zeros(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, 2,
                                     negative, &t));
    assert_status(
        ACCEL_ERROR_INVALID_ARGUMENT,
        accel_tensor_zeros(conformance_acc, conf_device_count(), ACCEL_DTYPE_F32, 2, shape, &t));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_tensor_zeros(NULL, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, 2, shape, &t));
    assert_status(
        ACCEL_ERROR_INVALID_ARGUMENT,
        accel_tensor_zeros(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, 2, shape, NULL));
    for (size_t i = 0; i < sizeof t; i++)
        assert_int_equal(((const uint8_t *)&t)[i], 0x5c);
    assert_true(conf_allocated() == before);
}

void test_tensors_free_bad_arguments(void **state)
{
    int64_t shape[1] = {8};
    float data[8] = {0};
    DLTensor foreign = {.data = data, .ndim = 1, .shape = shape, .dtype = {kDLFloat, 32, 1}};
    DLTensor t;
    (void)state;
    foreign.device.device_type = tensors_device_type();
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_tensor_free(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_tensor_free(conformance_acc, &foreign));
    assert_ptr_equal(foreign.data, data); /* refused: not zeroed */
    assert_ok(
        accel_tensor_empty(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, 1, shape, &t));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_tensor_free(NULL, &t));
    assert_non_null(t.data);
    assert_ok(accel_tensor_free(conformance_acc, &t));
}

/* A tensor's data belongs to the tensor: accel_free refuses it (naming
 * accel_tensor_free) and changes nothing, so accel_tensor_free still
 * releases data and shape. */
void test_tensors_data_freed_only_with_tensor(void **state)
{
    int64_t shape[2] = {4, 8};
    DLTensor t;
    uint64_t before = 0, after = 0;
    (void)state;
    assert_ok(accel_memory_allocated(conformance_acc, ACCEL_CURRENT_DEVICE, &before));
    assert_ok(
        accel_tensor_empty(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, 2, shape, &t));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_free(conformance_acc, t.data));
    assert_non_null(strstr(accel_last_error(), "accel_tensor_free"));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_free_async(conformance_acc, t.data, NULL));
    assert_ok(accel_memset(conformance_acc, t.data, 1, 4 * 8 * 4)); /* still live */
    assert_ok(accel_tensor_free(conformance_acc, &t));
    assert_null(t.data);
    assert_null(t.shape);
    assert_ok(accel_memory_allocated(conformance_acc, ACCEL_CURRENT_DEVICE, &after));
    assert_true(after == before);
}
