/* ref_half.h: the unit tests' own f16/bf16 <-> f32 conversions, round to
 * nearest even, NaN kept a NaN, written independently of the library's
 * half.h so the two can disagree (test_optim_cpu.c, test_offload_cpu.c).
 * Header-only: each test program includes it once. */
#ifndef ACCEL_TESTS_UNIT_REF_HALF_H
#define ACCEL_TESTS_UNIT_REF_HALF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t bits_of(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

static inline float float_of(uint32_t bits)
{
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static inline float ref_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exponent = (h >> 10) & 0x1fu, fraction = h & 0x3ffu;
    if (exponent == 0x1f)
        return float_of(sign | 0x7f800000u | fraction << 13);
    if (exponent == 0) { /* fraction units of 2^-24: exact in f32 */
        float magnitude = ldexpf((float)fraction, -24);
        return sign != 0 ? -magnitude : magnitude;
    }
    return float_of(sign | (exponent - 15 + 127) << 23 | fraction << 13);
}

/* Round `value` (whose low `drop` bits are cut) to nearest even. */
static inline uint32_t round_shift_even(uint32_t value, unsigned drop)
{
    uint32_t kept = value >> drop, rest = value & ((1u << drop) - 1), half = 1u << (drop - 1);
    if (rest > half || (rest == half && (kept & 1u) != 0))
        kept++;
    return kept;
}

static inline uint16_t ref_f32_to_f16(float value)
{
    uint32_t bits = bits_of(value), magnitude = bits & 0x7fffffffu;
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    uint32_t exponent = magnitude >> 23, significand = (magnitude & 0x7fffffu) | 0x800000u;
    if (magnitude > 0x7f800000u) /* NaN: any NaN encoding, quiet bit set */
        return (uint16_t)(sign | 0x7e00u | ((magnitude >> 13) & 0x1ffu));
    if (magnitude >= 0x477ff000u) /* >= 65520 (half-way to 65536 ties up to even = inf) */
        return (uint16_t)(sign | 0x7c00u);
    if (magnitude <= 0x33000000u) /* <= 2^-25: zero (2^-25 ties down to even 0) */
        return sign;
    if (exponent < 113) /* below 2^-14: subnormal, units of 2^-24 */
        return (uint16_t)(sign | round_shift_even(significand, 126 - exponent));
    /* normal: 10 fraction bits; a carry may move into the exponent */
    return (uint16_t)(sign +
                      (((exponent - 112) << 10) + round_shift_even(significand, 13) - 0x400u));
}

static inline float ref_bf16_to_f32(uint16_t h)
{
    return float_of((uint32_t)h << 16);
}

static inline uint16_t ref_f32_to_bf16(float value)
{
    uint32_t bits = bits_of(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((bits >> 16) | 0x40u);
    return (uint16_t)round_shift_even(bits, 16);
}

#endif
