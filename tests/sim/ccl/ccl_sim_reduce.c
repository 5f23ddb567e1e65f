/* ccl_sim_reduce.c: the element arithmetic of the simulated CCL libraries
 * (ccl_sim.h): one reduction step and the average's division, per element
 * kind. Half and bfloat16 are computed in float and rounded to nearest
 * even. Pure functions; any thread. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ccl_sim.h"

size_t ccl_sim_type_size(ccl_sim_type_t type)
{
    static const size_t sizes[CCL_SIM_TYPE_COUNT] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};
    return (unsigned)type < CCL_SIM_TYPE_COUNT ? sizes[type] : 0;
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    float value;
    if (exponent == 0)
        value = ldexpf((float)mantissa, -24);
    else if (exponent == 31)
        value = mantissa != 0 ? NAN : INFINITY;
    else
        value = ldexpf((float)(mantissa | 0x400), (int)exponent - 25);
    return sign != 0 ? -value : value;
}

static uint16_t float_to_half(float f)
{
    uint32_t bits, sign, exponent, mantissa;
    memcpy(&bits, &f, sizeof bits);
    sign = (bits >> 16) & 0x8000;
    exponent = (bits >> 23) & 0xff;
    mantissa = bits & 0x7fffff;
    if (exponent == 0xff)
        return (uint16_t)(sign | 0x7c00 | (mantissa != 0 ? 0x200 : 0));
    int e = (int)exponent - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) { /* subnormal half, or zero */
        if (e < -10)
            return (uint16_t)sign;
        mantissa |= 0x800000;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half = mantissa >> shift, rest = mantissa & ((1u << shift) - 1),
                 midpoint = 1u << (shift - 1);
        if (rest > midpoint || (rest == midpoint && (half & 1)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((uint32_t)e << 10) | (mantissa >> 13), rest = mantissa & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
        half++; /* may carry into the exponent, up to infinity: right */
    return (uint16_t)(sign | half);
}

static float bf16_to_float(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if ((bits & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((bits >> 16) | 0x40);
    bits += 0x7fff + ((bits >> 16) & 1);
    return (uint16_t)(bits >> 16);
}

#define STEP(a, b, op)                                                                             \
    ((op) == CCL_SIM_PROD  ? (a) * (b)                                                             \
     : (op) == CCL_SIM_MIN ? ((b) < (a) ? (b) : (a))                                               \
     : (op) == CCL_SIM_MAX ? ((b) > (a) ? (b) : (a))                                               \
                           : (a) + (b))

#define ACCUMULATE(T)                                                                              \
    do {                                                                                           \
        T *d = dst;                                                                                \
        const T *s = src;                                                                          \
        for (size_t i = 0; i < count; i++)                                                         \
            d[i] = (T)STEP(d[i], s[i], op);                                                        \
    } while (0)

#define ACCUMULATE_16(to_float, from_float)                                                        \
    do {                                                                                           \
        uint16_t *d = dst;                                                                         \
        const uint16_t *s = src;                                                                   \
        for (size_t i = 0; i < count; i++)                                                         \
            d[i] = from_float(STEP(to_float(d[i]), to_float(s[i]), op));                           \
    } while (0)

void ccl_sim_accumulate(void *dst, const void *src, size_t count, ccl_sim_type_t type,
                        ccl_sim_op_t op)
{
    switch (type) {
    case CCL_SIM_I8: ACCUMULATE(int8_t); break;
    case CCL_SIM_U8: ACCUMULATE(uint8_t); break;
    case CCL_SIM_I32: ACCUMULATE(int32_t); break;
    case CCL_SIM_U32: ACCUMULATE(uint32_t); break;
    case CCL_SIM_I64: ACCUMULATE(int64_t); break;
    case CCL_SIM_U64: ACCUMULATE(uint64_t); break;
    case CCL_SIM_F16: ACCUMULATE_16(half_to_float, float_to_half); break;
    case CCL_SIM_BF16: ACCUMULATE_16(bf16_to_float, float_to_bf16); break;
    case CCL_SIM_F32: ACCUMULATE(float); break;
    case CCL_SIM_F64: ACCUMULATE(double); break;
    default: break;
    }
}

#define SCALE(T)                                                                                   \
    do {                                                                                           \
        T *d = dst;                                                                                \
        for (size_t i = 0; i < count; i++)                                                         \
            d[i] = (T)(d[i] / (T)n);                                                               \
    } while (0)

#define SCALE_16(to_float, from_float)                                                             \
    do {                                                                                           \
        uint16_t *d = dst;                                                                         \
        for (size_t i = 0; i < count; i++)                                                         \
            d[i] = from_float(to_float(d[i]) / (float)n);                                          \
    } while (0)

void ccl_sim_scale(void *dst, size_t count, ccl_sim_type_t type, int n)
{
    switch (type) {
    case CCL_SIM_I8: SCALE(int8_t); break;
    case CCL_SIM_U8: SCALE(uint8_t); break;
    case CCL_SIM_I32: SCALE(int32_t); break;
    case CCL_SIM_U32: SCALE(uint32_t); break;
    case CCL_SIM_I64: SCALE(int64_t); break;
    case CCL_SIM_U64: SCALE(uint64_t); break;
    case CCL_SIM_F16: SCALE_16(half_to_float, float_to_half); break;
    case CCL_SIM_BF16: SCALE_16(bf16_to_float, float_to_bf16); break;
    case CCL_SIM_F32: SCALE(float); break;
    case CCL_SIM_F64: SCALE(double); break;
    default: break;
    }
}
