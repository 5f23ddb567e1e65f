/* optim_avx2.c: the optimizer kernels for AVX2 + FMA + F16C (8 floats per
 * vector), bf16 included. Compiled with those instructions enabled; only
 * reached after core/cpu_isa.c has seen them in cpuid. The kernels themselves are
 * optim_simd_body.h. */
#include <immintrin.h>

#include "ops/cpu/optim_kernels.h"

#define ACCEL_SIMD_INLINE static inline __attribute__((always_inline))
#define VEC_WIDTH         8
typedef __m256 vec_t;

ACCEL_SIMD_INLINE vec_t vec_set1(float x)
{
    return _mm256_set1_ps(x);
}
ACCEL_SIMD_INLINE vec_t vec_mul(vec_t a, vec_t b)
{
    return _mm256_mul_ps(a, b);
}
ACCEL_SIMD_INLINE vec_t vec_add(vec_t a, vec_t b)
{
    return _mm256_add_ps(a, b);
}
ACCEL_SIMD_INLINE vec_t vec_div(vec_t a, vec_t b)
{
    return _mm256_div_ps(a, b);
}
ACCEL_SIMD_INLINE vec_t vec_sqrt(vec_t a)
{
    return _mm256_sqrt_ps(a);
}
ACCEL_SIMD_INLINE vec_t vec_fma(vec_t a, vec_t b, vec_t c)
{
    return _mm256_fmadd_ps(a, b, c);
}

ACCEL_SIMD_INLINE vec_t vec_step_against_sign(vec_t step, vec_t x)
{
    return _mm256_xor_ps(step, _mm256_and_ps(x, _mm256_set1_ps(-0.0f)));
}

ACCEL_SIMD_INLINE vec_t vec_load(const void *base, size_t i, accel_dtype_t dtype)
{
    if (dtype == ACCEL_DTYPE_F32)
        return _mm256_loadu_ps((const float *)base + i);
    __m128i halves = _mm_loadu_si128((const __m128i *)((const uint16_t *)base + i));
    if (dtype == ACCEL_DTYPE_F16)
        return _mm256_cvtph_ps(halves);
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(halves), 16));
}

/* f32 -> bf16 in the low 16 bits of each lane: nearest even, NaN ->
 * 0x7FC0|sign. NaNs are rare: one test of the whole vector decides whether
 * the blend that fixes them runs at all (a variable blend of every vector
 * costs as much as the rest of the conversion). */
ACCEL_SIMD_INLINE __m256i vec_to_bf16_lanes(vec_t x)
{
    __m256i bits = _mm256_castps_si256(x);
    __m256i high = _mm256_srli_epi32(bits, 16);
    __m256i odd = _mm256_and_si256(high, _mm256_set1_epi32(1));
    __m256i rounded = _mm256_srli_epi32(
        _mm256_add_epi32(bits, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff))), 16);
    __m256 is_nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    if (__builtin_expect(_mm256_movemask_ps(is_nan) != 0, 0)) {
        __m256i quiet = _mm256_or_si256(_mm256_and_si256(high, _mm256_set1_epi32(0x8000)),
                                        _mm256_set1_epi32(0x7fc0));
        rounded = _mm256_blendv_epi8(rounded, quiet, _mm256_castps_si256(is_nan));
    }
    return rounded;
}

ACCEL_SIMD_INLINE void vec_store(void *base, size_t i, accel_dtype_t dtype, vec_t x)
{
    if (dtype == ACCEL_DTYPE_F32) {
        _mm256_storeu_ps((float *)base + i, x);
        return;
    }
    __m128i *out = (__m128i *)((uint16_t *)base + i);
    if (dtype == ACCEL_DTYPE_F16) {
        _mm_storeu_si128(out, _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        return;
    }
    __m256i lanes = vec_to_bf16_lanes(x);
    _mm_storeu_si128(
        out, _mm_packus_epi32(_mm256_castsi256_si128(lanes), _mm256_extracti128_si256(lanes, 1)));
}

/* The offload norm's 16 double lanes: four vectors of four. */
typedef struct sumsq {
    __m256d lanes[4];
} sumsq_t;

ACCEL_SIMD_INLINE void sumsq_zero(sumsq_t *acc)
{
    for (int k = 0; k < 4; k++)
        acc->lanes[k] = _mm256_setzero_pd();
}

ACCEL_SIMD_INLINE void sumsq_add16(sumsq_t *acc, const void *base, size_t i, accel_dtype_t dtype)
{
    vec_t low = vec_load(base, i, dtype), high = vec_load(base, i + 8, dtype);
    __m256d d[4] = {_mm256_cvtps_pd(_mm256_castps256_ps128(low)),
                    _mm256_cvtps_pd(_mm256_extractf128_ps(low, 1)),
                    _mm256_cvtps_pd(_mm256_castps256_ps128(high)),
                    _mm256_cvtps_pd(_mm256_extractf128_ps(high, 1))};
    for (int k = 0; k < 4; k++)
        acc->lanes[k] = _mm256_fmadd_pd(d[k], d[k], acc->lanes[k]);
}

ACCEL_SIMD_INLINE void sumsq_store(const sumsq_t *acc, double *lanes)
{
    for (int k = 0; k < 4; k++)
        _mm256_storeu_pd(lanes + 4 * k, acc->lanes[k]);
}

#define OPTIM_SIMD_TABLE accel_optim_kernels_avx2
#define OPTIM_SIMD_ISA   ACCEL_CPU_ISA_AVX2
#define OPTIM_SIMD_NAME  "avx2"
#include "ops/cpu/optim_simd_body.h"
