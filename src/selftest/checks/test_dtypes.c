/* test_dtypes.c: conformance tests of dtypes: supported_dtypes in DeepSpeed's
 * order, the bf16/fp16 flags, torch names and DLPack types. */
#include "conformance.h"

static size_t dtypes_supported(accel_dtype_t *out, size_t cap)
{
    size_t count = 0;
    assert_ok(accel_supported_dtypes(conformance_acc, out, cap, &count));
    return count;
}

static bool dtypes_contains(accel_dtype_t dtype)
{
    accel_dtype_t list[ACCEL_DTYPE_COUNT_];
    size_t count = dtypes_supported(list, ACCEL_DTYPE_COUNT_);
    for (size_t i = 0; i < count; i++)
        if (list[i] == dtype)
            return true;
    return false;
}

void test_dtypes_supported_starts_with_f32(void **state)
{
    accel_dtype_t list[ACCEL_DTYPE_COUNT_];
    size_t count = dtypes_supported(list, ACCEL_DTYPE_COUNT_);
    (void)state;
    assert_true(count >= 1 && count <= ACCEL_DTYPE_COUNT_);
    assert_int_equal(list[0], ACCEL_DTYPE_F32);
    for (size_t i = 0; i < count; i++) {
        assert_true(list[i] >= 0 && list[i] < ACCEL_DTYPE_COUNT_);
        for (size_t j = 0; j < i; j++)
            assert_int_not_equal(list[i], list[j]);
    }
}

void test_dtypes_supported_truncates(void **state)
{
    accel_dtype_t one[2] = {ACCEL_DTYPE_COUNT_, ACCEL_DTYPE_COUNT_};
    size_t total = dtypes_supported(NULL, 0);
    size_t count = 0;
    (void)state;
    assert_true(total >= 1);
    assert_ok(accel_supported_dtypes(conformance_acc, one, 1, &count));
    assert_int_equal(count, total);
    assert_int_equal(one[0], ACCEL_DTYPE_F32);
    assert_int_equal(one[1], ACCEL_DTYPE_COUNT_);
}

void test_dtypes_supported_bad_arguments(void **state)
{
    accel_dtype_t list[ACCEL_DTYPE_COUNT_];
    size_t count = 99;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_supported_dtypes(conformance_acc, list, ACCEL_DTYPE_COUNT_, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_supported_dtypes(NULL, list, ACCEL_DTYPE_COUNT_, &count));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_supported_dtypes(conformance_acc, NULL, ACCEL_DTYPE_COUNT_, &count));
    assert_int_equal(count, 99);
}

void test_dtypes_flags_match_list(void **state)
{
    (void)state;
    assert_int_equal(conf_flag(ACCEL_FLAG_BF16_SUPPORTED), dtypes_contains(ACCEL_DTYPE_BF16));
    assert_int_equal(conf_flag(ACCEL_FLAG_FP16_SUPPORTED), dtypes_contains(ACCEL_DTYPE_F16));
}

void test_dtypes_names(void **state)
{
    (void)state;
    assert_string_equal(accel_dtype_name(ACCEL_DTYPE_F32), "float32");
    assert_string_equal(accel_dtype_name(ACCEL_DTYPE_F16), "float16");
    assert_string_equal(accel_dtype_name(ACCEL_DTYPE_BF16), "bfloat16");
    assert_string_equal(accel_dtype_name(ACCEL_DTYPE_F64), "float64");
    assert_string_equal(accel_dtype_name(ACCEL_DTYPE_U8), "uint8");
    assert_string_equal(accel_dtype_name(ACCEL_DTYPE_I32), "int32");
    assert_string_equal(accel_dtype_name(ACCEL_DTYPE_I64), "int64");
    assert_null(accel_dtype_name(ACCEL_DTYPE_COUNT_));
    assert_null(accel_dtype_name((accel_dtype_t)-1));
}

void test_dtypes_to_dlpack(void **state)
{
    static const struct {
        accel_dtype_t dtype;
        uint8_t code, bits;
    } expected[] = {
        {ACCEL_DTYPE_F32, kDLFloat, 32},   {ACCEL_DTYPE_F16, kDLFloat, 16},
        {ACCEL_DTYPE_BF16, kDLBfloat, 16}, {ACCEL_DTYPE_F64, kDLFloat, 64},
        {ACCEL_DTYPE_U8, kDLUInt, 8},      {ACCEL_DTYPE_I32, kDLInt, 32},
        {ACCEL_DTYPE_I64, kDLInt, 64},
    };
    (void)state;
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        DLDataType type = {0};
        assert_ok(accel_dtype_to_dlpack(expected[i].dtype, &type));
        assert_int_equal(type.code, expected[i].code);
        assert_int_equal(type.bits, expected[i].bits);
        assert_int_equal(type.lanes, 1);
    }
}

void test_dtypes_to_dlpack_bad_arguments(void **state)
{
    DLDataType type = {.code = 99, .bits = 99, .lanes = 99};
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_dtype_to_dlpack(ACCEL_DTYPE_COUNT_, &type));
    assert_int_equal(type.code, 99);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_dtype_to_dlpack(ACCEL_DTYPE_F32, NULL));
}

void test_dtypes_dlpack_device_type(void **state)
{
    int32_t type = -1;
    (void)state;
    assert_ok(accel_dlpack_device_type(conformance_acc, &type));
    assert_true(type > 0);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_dlpack_device_type(conformance_acc, NULL));
    type = -1;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_dlpack_device_type(NULL, &type));
    assert_int_equal(type, -1);
}
