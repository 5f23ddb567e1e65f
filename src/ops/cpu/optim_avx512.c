/* optim_avx512.c: the optimizer kernels for AVX-512 F (16 floats per vector;
 * f16 through vcvtph2ps/vcvtps2ph, bf16 through integer lanes). Compiled with
 * AVX-512 enabled; only reached after core/cpu_isa.c has seen it in cpuid and the OS
 * saving the ZMM state. The kernels themselves are optim_simd_body.h.
 * optim_avx512_bf16.c builds this file again with OPTIM_AVX512_BF16 for CPUs
 * with AVX512_BF16 and AVX512DQ: bf16 stores then round in one instruction. */
#include <immintrin.h>

#include "ops/cpu/optim_kernels.h"

#define ACCEL_SIMD_INLINE static inline __attribute__((always_inline))
#define VEC_WIDTH         16
typedef __m512 vec_t;

ACCEL_SIMD_INLINE vec_t vec_set1(float x)
{
    return _mm512_set1_ps(x);
}
ACCEL_SIMD_INLINE vec_t vec_mul(vec_t a, vec_t b)
{
    return _mm512_mul_ps(a, b);
}
ACCEL_SIMD_INLINE vec_t vec_add(vec_t a, vec_t b)
{
    return _mm512_add_ps(a, b);
}
ACCEL_SIMD_INLINE vec_t vec_div(vec_t a, vec_t b)
{
    return _mm512_div_ps(a, b);
}
ACCEL_SIMD_INLINE vec_t vec_sqrt(vec_t a)
{
    return _mm512_sqrt_ps(a);
}
ACCEL_SIMD_INLINE vec_t vec_fma(vec_t a, vec_t b, vec_t c)
{
    return _mm512_fmadd_ps(a, b, c);
}

ACCEL_SIMD_INLINE vec_t vec_step_against_sign(vec_t step, vec_t x)
{
    __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(step), sign));
}

ACCEL_SIMD_INLINE vec_t vec_load(const void *base, size_t i, accel_dtype_t dtype)
{
    if (dtype == ACCEL_DTYPE_F32)
        return _mm512_loadu_ps((const float *)base + i);
    __m256i halves = _mm256_loadu_si256((const __m256i *)((const uint16_t *)base + i));
    if (dtype == ACCEL_DTYPE_F16)
        return _mm512_cvtph_ps(halves);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(halves), 16));
}

ACCEL_SIMD_INLINE void vec_store(void *base, size_t i, accel_dtype_t dtype, vec_t x)
{
    __m256i *out = (__m256i *)((uint16_t *)base + i);
    if (dtype == ACCEL_DTYPE_F32) {
        _mm512_storeu_ps((float *)base + i, x);
        return;
    }
    if (dtype == ACCEL_DTYPE_F16) {
        _mm256_storeu_si256(out, _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        return;
    }
#ifdef OPTIM_AVX512_BF16
    /* VCVTNEPS2BF16 rounds to nearest even as the lanes below do, but it
     * flushes denormals to zero and keeps NaN payloads: vectors holding a
     * NaN or a denormal (fpclass: QNaN 0x01, denormal 0x20, SNaN 0x80)
     * take the lanes below. */
    if (__builtin_expect(_mm512_fpclass_ps_mask(x, 0xa1) == 0, 1)) {
        _mm256_storeu_si256(out, (__m256i)_mm512_cvtneps_pbh(x));
        return;
    }
#endif
    /* bf16: nearest even, NaN -> 0x7FC0 | sign (the fix only for vectors
     * that hold a NaN) */
    __m512i bits = _mm512_castps_si512(x);
    __m512i high = _mm512_srli_epi32(bits, 16);
    __m512i odd = _mm512_and_si512(high, _mm512_set1_epi32(1));
    __m512i rounded = _mm512_srli_epi32(
        _mm512_add_epi32(bits, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))), 16);
    __mmask16 is_nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    if (__builtin_expect(is_nan != 0, 0)) {
        __m512i quiet = _mm512_or_si512(_mm512_and_si512(high, _mm512_set1_epi32(0x8000)),
                                        _mm512_set1_epi32(0x7fc0));
        rounded = _mm512_mask_blend_epi32(is_nan, rounded, quiet);
    }
    _mm256_storeu_si256(out, _mm512_cvtepi32_epi16(rounded));
}

/* The offload norm's 16 double lanes: two vectors of eight. */
typedef struct sumsq {
    __m512d lanes[2];
} sumsq_t;

ACCEL_SIMD_INLINE void sumsq_zero(sumsq_t *acc)
{
    acc->lanes[0] = _mm512_setzero_pd();
    acc->lanes[1] = _mm512_setzero_pd();
}

ACCEL_SIMD_INLINE void sumsq_add16(sumsq_t *acc, const void *base, size_t i, accel_dtype_t dtype)
{
    vec_t x = vec_load(base, i, dtype);
    __m512d low = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
    __m512d high =
        _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
    acc->lanes[0] = _mm512_fmadd_pd(low, low, acc->lanes[0]);
    acc->lanes[1] = _mm512_fmadd_pd(high, high, acc->lanes[1]);
}

ACCEL_SIMD_INLINE void sumsq_store(const sumsq_t *acc, double *lanes)
{
    _mm512_storeu_pd(lanes, acc->lanes[0]);
    _mm512_storeu_pd(lanes + 8, acc->lanes[1]);
}

#ifdef OPTIM_AVX512_BF16
#define OPTIM_SIMD_TABLE accel_optim_kernels_avx512_bf16
#else
#define OPTIM_SIMD_TABLE accel_optim_kernels_avx512
#endif
#define OPTIM_SIMD_ISA  ACCEL_CPU_ISA_AVX512
#define OPTIM_SIMD_NAME "avx512"
#include "ops/cpu/optim_simd_body.h"
