/* philox_blocks_avx512.c: Philox blocks 16 at a time with AVX-512 F (built
 * with -mavx512f; philox.c calls it only when cpu_isa.c found AVX-512). */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "core/philox.h"

#define VEC_LANES 16
typedef __m512i vec_t;

static inline vec_t vec_set1(uint32_t x)
{
    return _mm512_set1_epi32((int)x);
}
static inline vec_t vec_xor(vec_t a, vec_t b)
{
    return _mm512_xor_si512(a, b);
}

static inline vec_t vec_block_counters(uint32_t first)
{
    return _mm512_add_epi32(
        vec_set1(first), _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}

/* Even lanes multiply in place; odd lanes are shifted down, multiplied, and
 * their products land back in odd position. */
static inline void vec_mul_wide(vec_t a, vec_t m, vec_t *hi, vec_t *lo)
{
    vec_t even = _mm512_mul_epu32(a, m);
    vec_t odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);
    *hi = _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(even, 32), odd);
    *lo = _mm512_mask_blend_epi32(0xaaaa, even, _mm512_slli_epi64(odd, 32));
}

static inline void vec_store_blocks(uint32_t *out, vec_t c0, vec_t c1, vec_t c2, vec_t c3)
{
    vec_t t0 = _mm512_unpacklo_epi32(c0, c1), t1 = _mm512_unpackhi_epi32(c0, c1);
    vec_t t2 = _mm512_unpacklo_epi32(c2, c3), t3 = _mm512_unpackhi_epi32(c2, c3);
    /* u[k] holds blocks k, k+4, k+8, k+12, one per 128-bit chunk */
    vec_t u[4] = {_mm512_unpacklo_epi64(t0, t2), _mm512_unpackhi_epi64(t0, t2),
                  _mm512_unpacklo_epi64(t1, t3), _mm512_unpackhi_epi64(t1, t3)};
    for (int k = 0; k < 4; k++) {
        _mm_storeu_si128((__m128i *)(out + 4 * k), _mm512_extracti32x4_epi32(u[k], 0));
        _mm_storeu_si128((__m128i *)(out + 4 * (k + 4)), _mm512_extracti32x4_epi32(u[k], 1));
        _mm_storeu_si128((__m128i *)(out + 4 * (k + 8)), _mm512_extracti32x4_epi32(u[k], 2));
        _mm_storeu_si128((__m128i *)(out + 4 * (k + 12)), _mm512_extracti32x4_epi32(u[k], 3));
    }
}

#define PHILOX_BLOCKS_NAME accel_philox_blocks_avx512
#include "core/philox_simd_body.h"
