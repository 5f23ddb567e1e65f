/* philox_blocks_avx2.c: Philox blocks 8 at a time with AVX2 (built with
 * -mavx2; philox.c calls it only when cpu_isa.c found AVX2). */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "core/philox.h"

#define VEC_LANES 8
typedef __m256i vec_t;

static inline vec_t vec_set1(uint32_t x)
{
    return _mm256_set1_epi32((int)x);
}
static inline vec_t vec_xor(vec_t a, vec_t b)
{
    return _mm256_xor_si256(a, b);
}

static inline vec_t vec_block_counters(uint32_t first)
{
    return _mm256_add_epi32(vec_set1(first), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Even lanes multiply in place; odd lanes are shifted down, multiplied, and
 * their products land back in odd position. */
static inline void vec_mul_wide(vec_t a, vec_t m, vec_t *hi, vec_t *lo)
{
    vec_t even = _mm256_mul_epu32(a, m);
    vec_t odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);
    *hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xaa);
    *lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xaa);
}

static inline void vec_store_blocks(uint32_t *out, vec_t c0, vec_t c1, vec_t c2, vec_t c3)
{
    vec_t t0 = _mm256_unpacklo_epi32(c0, c1), t1 = _mm256_unpackhi_epi32(c0, c1);
    vec_t t2 = _mm256_unpacklo_epi32(c2, c3), t3 = _mm256_unpackhi_epi32(c2, c3);
    /* u[k] holds blocks k and k+4, one per 128-bit half */
    vec_t u[4] = {_mm256_unpacklo_epi64(t0, t2), _mm256_unpackhi_epi64(t0, t2),
                  _mm256_unpacklo_epi64(t1, t3), _mm256_unpackhi_epi64(t1, t3)};
    for (int k = 0; k < 4; k++) {
        _mm_storeu_si128((__m128i *)(out + 4 * k), _mm256_castsi256_si128(u[k]));
        _mm_storeu_si128((__m128i *)(out + 4 * (k + 4)), _mm256_extracti128_si256(u[k], 1));
    }
}

#define PHILOX_BLOCKS_NAME accel_philox_blocks_avx2
#include "core/philox_simd_body.h"
