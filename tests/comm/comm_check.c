/* comm_check.c: element access for every accel dtype, shared by the
 * programs of tests/comm/ (16-bit floats converted by plain bit arithmetic,
 * exact for the small integers the tests use). */
#include <math.h>

#include "comm_check.h"

int check_rank;
int check_failures;

size_t check_dtype_size(accel_dtype_t dtype)
{
    static const size_t sizes[ACCEL_DTYPE_COUNT_] = {4, 2, 2, 8, 1, 4, 8};
    return sizes[dtype];
}

static uint32_t check_f32_bits(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

static float check_f32_from_bits(uint32_t bits)
{
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* Exact for values with at most 11 significant bits and |value| < 65504. */
static uint16_t check_f16_from(double value)
{
    uint16_t sign = value < 0 ? 0x8000 : 0;
    double magnitude = fabs(value);
    int exponent;
    if (magnitude == 0)
        return sign;
    double mantissa = frexp(magnitude, &exponent); /* [0.5, 1) */
    if (exponent < -13)                            /* subnormal: not used by the tests */
        return sign;
    return (uint16_t)(sign | (uint16_t)((exponent + 14) << 10) |
                      (uint16_t)((mantissa * 2 - 1) * 1024));
}

static double check_f16_to(uint16_t bits)
{
    int exponent = (bits >> 10) & 0x1f;
    double mantissa = (bits & 0x3ff) / 1024.0;
    double value = exponent == 0 ? ldexp(mantissa, -14) : ldexp(1 + mantissa, exponent - 15);
    return bits & 0x8000 ? -value : value;
}

void check_store(void *buffer, size_t index, accel_dtype_t dtype, double value)
{
    switch (dtype) {
    case ACCEL_DTYPE_F32: ((float *)buffer)[index] = (float)value; break;
    case ACCEL_DTYPE_F16: ((uint16_t *)buffer)[index] = check_f16_from(value); break;
    case ACCEL_DTYPE_BF16:
        ((uint16_t *)buffer)[index] = (uint16_t)(check_f32_bits((float)value) >> 16);
        break;
    case ACCEL_DTYPE_F64: ((double *)buffer)[index] = value; break;
    case ACCEL_DTYPE_U8: ((uint8_t *)buffer)[index] = (uint8_t)value; break;
    case ACCEL_DTYPE_I32: ((int32_t *)buffer)[index] = (int32_t)value; break;
    default: ((int64_t *)buffer)[index] = (int64_t)value; break;
    }
}

double check_load(const void *buffer, size_t index, accel_dtype_t dtype)
{
    switch (dtype) {
    case ACCEL_DTYPE_F32: return ((const float *)buffer)[index];
    case ACCEL_DTYPE_F16: return check_f16_to(((const uint16_t *)buffer)[index]);
    case ACCEL_DTYPE_BF16:
        return check_f32_from_bits((uint32_t)((const uint16_t *)buffer)[index] << 16);
    case ACCEL_DTYPE_F64: return ((const double *)buffer)[index];
    case ACCEL_DTYPE_U8: return ((const uint8_t *)buffer)[index];
    case ACCEL_DTYPE_I32: return ((const int32_t *)buffer)[index];
    default: return (double)((const int64_t *)buffer)[index];
    }
}

void check_fill(void *buffer, int rank, size_t first, size_t count, accel_dtype_t dtype,
                accel_reduce_op_t op)
{
    for (size_t i = 0; i < count; i++)
        check_store(buffer, i, dtype, check_input(rank, first + i, dtype, op));
}

void check_verify(const char *what, const void *buffer, size_t first, size_t count,
                  accel_dtype_t dtype, accel_reduce_op_t op, int size, const int *ranks)
{
    for (size_t i = 0; i < count; i++) {
        double want = check_expected(size, first + i, dtype, op, ranks);
        double got = check_load(buffer, i, dtype);
        if (got != want) {
            CHECK(got == want, "%s %s %s count %zu: element %zu is %g, expected %g", what,
                  accel_dtype_name(dtype), accel_reduce_op_name(op), count, i, got, want);
            return;
        }
    }
}
