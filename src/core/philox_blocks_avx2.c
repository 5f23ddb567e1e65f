/* philox_blocks_avx2.c: Philox blocks ACCEL_PHILOX_AVX2_GROUP at a time with
 * AVX2 (built with -mavx2; philox.c calls it only when cpu_isa.c found AVX2),
 * plain words or fused with the uniform fill's conversion. The same plan as
 * philox_blocks_avx512.c in 256-bit vectors: four blocks per vector in 64-bit
 * lanes, rounds 0-2 partly folded into constants, lane sets interleaved.
 * Pure functions, any thread; the bits are those of philox.c. */
#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/philox.h"
#include "core/philox_blocks_keys.h"

typedef __m256i vec_t;

/* Four blocks per vector, each word in the low half of a 64-bit lane.
 * _mm256_mul_epu32 reads only low halves, so the high halves may hold
 * anything: a 32x32->64 product is the new low word as it stands and the new
 * high word after one shift. A round is two multiplies, two shifts and four
 * xors per four blocks; the 32-bit-lane form needs eighteen operations per
 * eight blocks (odd-lane shifts and blends) and one dependency chain. */
#define PHILOX_SETS  (ACCEL_PHILOX_AVX2_GROUP / 4)
#define PHILOX_GROUP ACCEL_PHILOX_AVX2_GROUP

typedef struct philox_lanes {
    vec_t c0, c1, c2, c3;
} philox_lanes_t;

static inline __attribute__((always_inline)) vec_t vec_key(uint64_t key)
{
    return _mm256_set1_epi64x((long long)key);
}

static inline __attribute__((always_inline)) void philox_round(philox_lanes_t *s, vec_t m0,
                                                               vec_t m1, vec_t k0, vec_t k1)
{
    vec_t p0 = _mm256_mul_epu32(s->c0, m0);
    vec_t p1 = _mm256_mul_epu32(s->c2, m1);
    s->c0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), s->c1), k0);
    s->c2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), s->c3), k1);
    s->c1 = p1;
    s->c3 = p0;
}

/* accel_rng_uniform_from_word on 8 words, as float bits: 24 significant
 * bits converted exactly (signed convert of a value below 2^24), times 2^-24
 * (exact). */
static inline __attribute__((always_inline)) vec_t philox_uniform_bits(vec_t words)
{
    __m256 value = _mm256_cvtepi32_ps(_mm256_srli_epi32(words, 8));
    return _mm256_castps_si256(_mm256_mul_ps(value, _mm256_set1_ps(0x1.0p-24f)));
}

/* The last round of one lane set, straight into block order: each 64-bit
 * lane of a gets (c0, c1) of its block, of b (c2, c3); then the pairs are
 * interleaved into blocks 0-3 at out[0 .. 16). */
static inline __attribute__((always_inline)) void
philox_last_round_store(const philox_lanes_t *s, vec_t m0, vec_t m1, vec_t k0, vec_t k1,
                        bool uniform, uint32_t *out)
{
    vec_t p0 = _mm256_mul_epu32(s->c0, m0);
    vec_t p1 = _mm256_mul_epu32(s->c2, m1);
    vec_t c0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), s->c1), k0);
    vec_t c2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), s->c3), k1);
    vec_t a = _mm256_blend_epi32(c0, _mm256_slli_epi64(p1, 32), 0xaa);
    vec_t b = _mm256_blend_epi32(c2, _mm256_slli_epi64(p0, 32), 0xaa);
    if (uniform) {
        a = philox_uniform_bits(a);
        b = philox_uniform_bits(b);
    }
    vec_t even = _mm256_unpacklo_epi64(a, b); /* blocks 0 and 2 */
    vec_t odd = _mm256_unpackhi_epi64(a, b);  /* blocks 1 and 3 */
    _mm256_storeu_si256((vec_t *)out, _mm256_permute2x128_si256(even, odd, 0x20));
    _mm256_storeu_si256((vec_t *)(out + 8), _mm256_permute2x128_si256(even, odd, 0x31));
}

/* PHILOX_GROUP blocks from block `first` on (no low-word wrap inside: the
 * caller checked; keys made for first >> 32), ten rounds interleaved over
 * the lane sets so the multiplies of one set hide the latency of another. */
static inline __attribute__((always_inline)) void
philox_group(const philox_keys_t *keys, uint64_t first, bool uniform, uint32_t *out)
{
    const vec_t m0 = vec_key(PHILOX_M0), m1 = vec_key(PHILOX_M1);
    const vec_t ctr0 = _mm256_add_epi64(vec_key((uint32_t)first), _mm256_setr_epi64x(0, 1, 2, 3));
    /* M0 * ctr0 of set j is that of set 0 plus 4 * j * M0: exact, no wrap */
    const vec_t p0_step = vec_key((uint64_t)4 * PHILOX_M0);
    philox_lanes_t s[PHILOX_SETS];
    vec_t p0 = _mm256_mul_epu32(ctr0, m0);

#pragma GCC unroll 8
    for (int j = 0; j < PHILOX_SETS; j++) {
        /* round 0 (c2 = c3 = 0): c2 = hi(p0) ^ k1[0], c3 = p0; c0, c1 constants.
         * round 1: p1 = M1 * c2; c0 = hi(p1) ^ 0 ^ k0[1], c1 = p1;
         *          c2 = hi(M0 * c0) ^ c3 ^ k1[1] = lo(p0) ^ r1_c2_xor; c3 constant */
        vec_t c2 = _mm256_xor_si256(_mm256_srli_epi64(p0, 32), vec_key(keys->k1[0]));
        vec_t p1 = _mm256_mul_epu32(c2, m1);
        s[j].c0 = _mm256_xor_si256(_mm256_srli_epi64(p1, 32), vec_key(keys->k0[1]));
        s[j].c1 = p1;
        s[j].c2 = _mm256_xor_si256(p0, vec_key(keys->r1_c2_xor));
        p0 = _mm256_add_epi64(p0, p0_step);
    }
    /* round 2, c3's constant folded into the key */
    {
        vec_t key0 = vec_key(keys->k0[2]), key1 = vec_key(keys->r2_c3);
#pragma GCC unroll 8
        for (int j = 0; j < PHILOX_SETS; j++) {
            vec_t q0 = _mm256_mul_epu32(s[j].c0, m0);
            vec_t q1 = _mm256_mul_epu32(s[j].c2, m1);
            s[j].c0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(q1, 32), s[j].c1), key0);
            s[j].c2 = _mm256_xor_si256(_mm256_srli_epi64(q0, 32), key1);
            s[j].c1 = q1;
            s[j].c3 = q0;
        }
    }
#pragma GCC unroll 6
    for (int round = 3; round < 9; round++) {
        vec_t key0 = vec_key(keys->k0[round]), key1 = vec_key(keys->k1[round]);
#pragma GCC unroll 8
        for (int j = 0; j < PHILOX_SETS; j++)
            philox_round(&s[j], m0, m1, key0, key1);
    }
    {
        vec_t key0 = vec_key(keys->k0[9]), key1 = vec_key(keys->k1[9]);
#pragma GCC unroll 8
        for (int j = 0; j < PHILOX_SETS; j++)
            philox_last_round_store(&s[j], m0, m1, key0, key1, uniform, out + 16 * j);
    }
}

#define PHILOX_ISA avx2
#include "core/philox_blocks_driver.h"
