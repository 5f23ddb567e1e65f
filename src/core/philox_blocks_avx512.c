/* philox_blocks_avx512.c: Philox blocks 48 at a time with AVX-512 F (built
 * with -mavx512f; philox.c calls it only when cpu_isa.c found AVX-512).
 * 64-bit lanes (see philox_round): about a third fewer instructions per
 * block than a 32-bit-lane form; philox_blocks_avx2.c follows the same plan.
 * Pure functions, any thread; the bits are those of philox.c. */
#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/philox.h"
#include "core/philox_blocks_keys.h"

typedef __m512i vec_t;

/* Eight blocks per vector in 64-bit lanes, each word in the low half of its
 * lane. _mm512_mul_epu32 reads only low halves, so the high halves may hold
 * anything: a 32x32->64 product is then the new low word as it stands and
 * the new high word after one shift, and a round is two multiplies, two
 * shifts and two three-way xors per eight blocks, with no blends. */
/* Lane sets in flight: 6 (48 blocks, 24 of the 32 registers) measured
 * 5-7% faster than 4 and 4 about 20% faster than 2; 8 spills. */
#define PHILOX_SETS  (ACCEL_PHILOX_AVX512_GROUP / 8)
#define PHILOX_GROUP ACCEL_PHILOX_AVX512_GROUP

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

/* accel_rng_uniform_from_word on 16 words, as float bits: 24 significant
 * bits converted exactly, times 2^-24 (exact). */
static inline __attribute__((always_inline)) vec_t philox_uniform_bits(vec_t words)
{
    __m512 value = _mm512_cvtepi32_ps(_mm512_srli_epi32(words, 8));
    return _mm512_castps_si512(_mm512_mul_ps(value, _mm512_set1_ps(0x1.0p-24f)));
}

/* The last round of one lane set, straight into block order: each 64-bit
 * lane of a gets (c0, c1) of its block, of b (c2, c3). Rotating a product
 * by 32 puts its high word low and its low word high, which is (new c0 before
 * its xors, new c1); a masked three-way xor then finishes the low dwords only.
 * Then two permutes put the pairs of blocks 0-3 and 4-7 side by side into
 * out[0 .. 32). Ordinary stores: non-temporal ones measured 1-10% slower
 * for a 64 MiB fill on two threads and ~15% slower on one. */
static inline __attribute__((always_inline)) void
philox_last_round_store(const philox_lanes_t *s, vec_t m0, vec_t m1, vec_t k0, vec_t k1,
                        bool uniform, uint32_t *out)
{
    const vec_t first = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
    const vec_t second = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
    vec_t p0 = _mm512_mul_epu32(s->c0, m0);
    vec_t p1 = _mm512_mul_epu32(s->c2, m1);
    vec_t a = _mm512_mask_ternarylogic_epi32(_mm512_ror_epi64(p1, 32), 0x5555, s->c1, k0, 0x96);
    vec_t b = _mm512_mask_ternarylogic_epi32(_mm512_ror_epi64(p0, 32), 0x5555, s->c3, k1, 0x96);
    if (uniform) {
        a = philox_uniform_bits(a);
        b = philox_uniform_bits(b);
    }
    vec_t lo = _mm512_permutex2var_epi64(a, first, b);
    vec_t hi = _mm512_permutex2var_epi64(a, second, b);
    _mm512_storeu_si512(out, lo);
    _mm512_storeu_si512(out + 16, hi);
}

/* PHILOX_GROUP blocks from block `first` on (no low-word wrap inside: the
 * caller checked; keys made for first >> 32), ten rounds interleaved over
 * the lane sets so the multiplies of one set hide the latency of another. */
static inline __attribute__((always_inline)) void
philox_group(const philox_keys_t *keys, uint64_t first, bool uniform, uint32_t *out)
{
    const vec_t m0 = _mm512_set1_epi64(PHILOX_M0), m1 = _mm512_set1_epi64(PHILOX_M1);
    const vec_t ctr0 = _mm512_add_epi64(_mm512_set1_epi64((uint32_t)first),
                                        _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    /* M0 * ctr0 of set j is that of set 0 plus 8 * j * M0: exact, no wrap */
    const vec_t p0_step = _mm512_set1_epi64((uint64_t)8 * PHILOX_M0);
    philox_lanes_t s[PHILOX_SETS];
    vec_t p0[PHILOX_SETS];

    p0[0] = _mm512_mul_epu32(ctr0, m0);
#pragma GCC unroll 8
    for (int j = 1; j < PHILOX_SETS; j++)
        p0[j] = _mm512_add_epi64(p0[j - 1], p0_step);
#pragma GCC unroll 8
    for (int j = 0; j < PHILOX_SETS; j++) {
        /* round 0 (c2 = c3 = 0): c2 = hi(p0) ^ k1[0], c3 = p0; c0, c1 constants.
         * round 1: p1 = M1 * c2; c0 = hi(p1) ^ 0 ^ k0[1], c1 = p1;
         *          c2 = hi(M0 * c0) ^ c3 ^ k1[1] = lo(p0) ^ r1_c2_xor; c3 = lo(M0 * c0) */
        vec_t c2 = _mm512_xor_si512(_mm512_srli_epi64(p0[j], 32), _mm512_set1_epi64(keys->k1[0]));
        vec_t p1 = _mm512_mul_epu32(c2, m1);
        s[j].c0 = _mm512_xor_si512(_mm512_srli_epi64(p1, 32), _mm512_set1_epi64(keys->k0[1]));
        s[j].c1 = p1;
        s[j].c2 = _mm512_xor_si512(p0[j], _mm512_set1_epi64(keys->r1_c2_xor));
    }
    /* round 2, c3's constant folded into the key */
    {
        vec_t key0 = _mm512_set1_epi64(keys->k0[2]), key1 = _mm512_set1_epi64(keys->r2_c3);
#pragma GCC unroll 8
        for (int j = 0; j < PHILOX_SETS; j++) {
            vec_t q0 = _mm512_mul_epu32(s[j].c0, m0);
            vec_t q1 = _mm512_mul_epu32(s[j].c2, m1);
            s[j].c0 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(q1, 32), s[j].c1, key0, 0x96);
            s[j].c2 = _mm512_xor_si512(_mm512_srli_epi64(q0, 32), key1);
            s[j].c1 = q1;
            s[j].c3 = q0;
        }
    }
#pragma GCC unroll 6
    for (int round = 3; round < 9; round++) {
        vec_t key0 = _mm512_set1_epi64(keys->k0[round]), key1 = _mm512_set1_epi64(keys->k1[round]);
#pragma GCC unroll 8
        for (int j = 0; j < PHILOX_SETS; j++)
            philox_round(&s[j], m0, m1, key0, key1);
    }
    {
        vec_t key0 = _mm512_set1_epi64(keys->k0[9]), key1 = _mm512_set1_epi64(keys->k1[9]);
#pragma GCC unroll 8
        for (int j = 0; j < PHILOX_SETS; j++)
            philox_last_round_store(&s[j], m0, m1, key0, key1, uniform, out + 32 * j);
    }
}

#define PHILOX_ISA avx512
#include "core/philox_blocks_driver.h"
