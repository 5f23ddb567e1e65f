/* philox_blocks_avx512.c: Philox blocks 16 at a time with AVX-512 F (built
 * with -mavx512f; philox.c calls it only when cpu_isa.c found AVX-512). Its
 * own round (64-bit lanes, see philox_round) rather than philox_simd_body.h:
 * about a third fewer instructions per block than the 32-bit-lane form. */
#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/philox.h"

#define VEC_LANES 16
typedef __m512i vec_t;

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

/* Eight blocks per vector in 64-bit lanes, each word in the low half of its
 * lane. _mm512_mul_epu32 reads only low halves, so the high halves may hold
 * anything: a 32x32->64 product is then the new low word as it stands and
 * the new high word after one shift, and a round is two multiplies, two
 * shifts and two three-way xors per eight blocks, with no blends. */
#define PHILOX_MAX_SETS 4 /* lane sets in flight: 32 blocks */

typedef struct philox_lanes {
    vec_t c0, c1, c2, c3;
} philox_lanes_t;

static inline __attribute__((always_inline)) void philox_round(philox_lanes_t *s, vec_t m0,
                                                               vec_t m1, vec_t k0, vec_t k1)
{
    vec_t p0 = _mm512_mul_epu32(s->c0, m0);
    vec_t p1 = _mm512_mul_epu32(s->c2, m1);
    s->c0 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), s->c1, k0, 0x96);
    s->c2 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), s->c3, k1, 0x96);
    s->c1 = p1;
    s->c3 = p0;
}

/* The low halves of two 8-lane vectors as one 16-lane vector (a first). */
static inline __attribute__((always_inline)) vec_t philox_pack(vec_t a, vec_t b)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(a)),
                              _mm512_cvtepi64_epi32(b), 1);
}

/* accel_rng_uniform_from_word on 16 words, as float bits: 24 significant
 * bits converted exactly, times 2^-24 (exact). */
static inline __attribute__((always_inline)) vec_t philox_uniform_bits(vec_t words)
{
    __m512 value = _mm512_cvtepi32_ps(_mm512_srli_epi32(words, 8));
    return _mm512_castps_si512(_mm512_mul_ps(value, _mm512_set1_ps(0x1.0p-24f)));
}

/* `sets` lane sets of 8 blocks each from block `first` on (no low-word wrap
 * inside: the caller checked), ten rounds interleaved so the multiplies of
 * one set hide the latency of another, then stored 16 blocks at a time. */
static inline __attribute__((always_inline)) void
philox_groups(uint64_t seed, uint64_t first, int sets, bool uniform, uint32_t *out)
{
    const vec_t m0 = _mm512_set1_epi64(0xD2511F53u), m1 = _mm512_set1_epi64(0xCD9E8D57u);
    const vec_t low = _mm512_add_epi64(_mm512_set1_epi64((uint32_t)first),
                                       _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    const vec_t high = _mm512_set1_epi64((uint32_t)(first >> 32));
    philox_lanes_t s[PHILOX_MAX_SETS];
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
#pragma GCC unroll 4
    for (int j = 0; j < sets; j++)
        s[j] = (philox_lanes_t){_mm512_add_epi64(low, _mm512_set1_epi64(8 * j)), high,
                                _mm512_setzero_si512(), _mm512_setzero_si512()};
#pragma GCC unroll 10
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        vec_t key0 = _mm512_set1_epi64(k0), key1 = _mm512_set1_epi64(k1);
#pragma GCC unroll 4
        for (int j = 0; j < sets; j++)
            philox_round(&s[j], m0, m1, key0, key1);
    }
#pragma GCC unroll 2
    for (int j = 0; j + 1 < sets; j += 2) {
        vec_t c0 = philox_pack(s[j].c0, s[j + 1].c0), c1 = philox_pack(s[j].c1, s[j + 1].c1);
        vec_t c2 = philox_pack(s[j].c2, s[j + 1].c2), c3 = philox_pack(s[j].c3, s[j + 1].c3);
        if (uniform) {
            c0 = philox_uniform_bits(c0);
            c1 = philox_uniform_bits(c1);
            c2 = philox_uniform_bits(c2);
            c3 = philox_uniform_bits(c3);
        }
        vec_store_blocks(out + 4 * 8 * j, c0, c1, c2, c3);
    }
}

/* Whole groups of 32 blocks (four lane sets: measured ~1.4x the blocks per
 * second of one 16-lane vector at a time), then of 16. `uniform`: each word
 * is stored as its uniform float instead (the fill's conversion, fused). */
static inline __attribute__((always_inline)) size_t
philox_blocks(uint64_t seed, uint64_t block, size_t count, bool uniform, uint32_t *out)
{
    size_t written = 0;
    for (int group = PHILOX_MAX_SETS * 8; group >= VEC_LANES; group /= 2) {
        for (; count - written >= (size_t)group; written += (size_t)group) {
            uint64_t first = (block + written) & (UINT64_MAX >> 2); /* word indices wrap at 2^64 */
            /* A group whose low words would wrap, or that crosses the 2^62
             * wrap, is left to the scalar loop; a fill would need 2^34 bytes. */
            if ((uint32_t)first > UINT32_MAX - (uint32_t)group ||
                first > (UINT64_MAX >> 2) - (uint64_t)group)
                return written;
            if (group == PHILOX_MAX_SETS * 8)
                philox_groups(seed, first, PHILOX_MAX_SETS, uniform, out + 4 * written);
            else
                philox_groups(seed, first, 2, uniform, out + 4 * written);
        }
    }
    return written;
}

size_t accel_philox_blocks_avx512(uint64_t seed, uint64_t block, size_t count, uint32_t *out)
{
    return philox_blocks(seed, block, count, false, out);
}

size_t accel_philox_uniform_blocks_avx512(uint64_t seed, uint64_t block, size_t count, float *out)
{
    return philox_blocks(seed, block, count, true, (uint32_t *)out);
}
