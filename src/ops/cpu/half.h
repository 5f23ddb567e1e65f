/* half.h: scalar conversions between f32 and the 16-bit float formats, with
 * the exact results of the vector instructions the SIMD kernels use
 * (F16C vcvtps2ph with round-to-nearest-even, and bf16 rounding to nearest
 * even with NaN stored as 0x7FC0 | sign), so every kernel table agrees bit
 * for bit. Pure functions; safe from any thread. */
#ifndef ACCEL_OPS_CPU_HALF_H
#define ACCEL_OPS_CPU_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t accel_f32_bits(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

static inline float accel_f32_from_bits(uint32_t bits)
{
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static inline float accel_bf16_to_f32(uint16_t h)
{
    return accel_f32_from_bits((uint32_t)h << 16);
}

static inline uint16_t accel_f32_to_bf16(float value)
{
    uint32_t bits = accel_f32_bits(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)(((bits >> 16) & 0x8000u) | 0x7fc0u);
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}

static inline float accel_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1f) /* inf / NaN: keep the payload */
        return accel_f32_from_bits(sign | 0x7f800000u | (mantissa << 13));
    if (exponent != 0)
        return accel_f32_from_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
    /* zero or subnormal: mantissa * 2^-24, exact in f32 */
    {
        float magnitude = (float)mantissa * 0x1.0p-24f;
        return accel_f32_from_bits(sign | accel_f32_bits(magnitude));
    }
}

static inline uint16_t accel_f32_to_f16(float value)
{
    uint32_t bits = accel_f32_bits(value);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) /* NaN: quieted, top mantissa bits kept (as F16C) */
        return (uint16_t)(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
    if (magnitude >= 0x477ff000u) /* rounds to >= 65536: inf */
        return (uint16_t)(sign | 0x7c00u);
    if (magnitude < 0x38800000u) {
        /* below 2^-14: f16 subnormal (or zero). Adding 0.5 puts the value's
         * 2^-24 units in the low mantissa bits, rounded to nearest even by
         * the f32 add itself. */
        float shifted = accel_f32_from_bits(magnitude) + 0.5f;
        return (uint16_t)(sign | (uint16_t)(accel_f32_bits(shifted) - 0x3f000000u));
    }
    /* normal: rebias the exponent and round the 13 dropped bits to even */
    magnitude += 0xc8000fffu + ((magnitude >> 13) & 1u); /* (15-127)<<23 + 0xfff + odd */
    return (uint16_t)(sign | (uint16_t)(magnitude >> 13));
}

#endif /* ACCEL_OPS_CPU_HALF_H */
