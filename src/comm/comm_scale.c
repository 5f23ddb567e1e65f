/* comm_scale.c: the host half of avg emulation (sum / ranks) and the f32
 * widening of 16-bit floats for engines that cannot reduce them. Pure
 * functions on host memory; any thread. */
#include <stdint.h>

#include "comm/comm_scale.h"
#include "ops/cpu/half.h"

size_t accel_comm_dtype_size(accel_dtype_t dtype)
{
    static const size_t sizes[ACCEL_DTYPE_COUNT_] = {4, 2, 2, 8, 1, 4, 8};
    return (unsigned)dtype < ACCEL_DTYPE_COUNT_ ? sizes[dtype] : 0;
}

void accel_comm_scale(void *data, size_t count, accel_dtype_t dtype, int divisor)
{
    switch (dtype) {
    case ACCEL_DTYPE_F32:
        for (size_t i = 0; i < count; i++)
            ((float *)data)[i] /= (float)divisor;
        break;
    case ACCEL_DTYPE_F64:
        for (size_t i = 0; i < count; i++)
            ((double *)data)[i] /= (double)divisor;
        break;
    case ACCEL_DTYPE_F16:
        for (size_t i = 0; i < count; i++) {
            uint16_t *h = &((uint16_t *)data)[i];
            *h = accel_f32_to_f16(accel_f16_to_f32(*h) / (float)divisor);
        }
        break;
    case ACCEL_DTYPE_BF16:
        for (size_t i = 0; i < count; i++) {
            uint16_t *h = &((uint16_t *)data)[i];
            *h = accel_f32_to_bf16(accel_bf16_to_f32(*h) / (float)divisor);
        }
        break;
    /* Integers: C division, truncating toward zero (as NCCL's ncclAvg). */
    case ACCEL_DTYPE_U8:
        for (size_t i = 0; i < count; i++)
            ((uint8_t *)data)[i] = (uint8_t)(((uint8_t *)data)[i] / divisor);
        break;
    case ACCEL_DTYPE_I32:
        for (size_t i = 0; i < count; i++)
            ((int32_t *)data)[i] /= divisor;
        break;
    case ACCEL_DTYPE_I64:
        for (size_t i = 0; i < count; i++)
            ((int64_t *)data)[i] /= divisor;
        break;
    default: break;
    }
}

void accel_comm_widen(const void *half, float *out, size_t count, accel_dtype_t dtype)
{
    const uint16_t *h = half;
    for (size_t i = 0; i < count; i++)
        out[i] = dtype == ACCEL_DTYPE_F16 ? accel_f16_to_f32(h[i]) : accel_bf16_to_f32(h[i]);
}

void accel_comm_narrow(const float *in, void *half, size_t count, accel_dtype_t dtype)
{
    uint16_t *h = half;
    for (size_t i = 0; i < count; i++)
        h[i] = dtype == ACCEL_DTYPE_F16 ? accel_f32_to_f16(in[i]) : accel_f32_to_bf16(in[i]);
}
