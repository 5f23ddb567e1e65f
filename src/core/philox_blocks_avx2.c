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

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

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

/* The round keys of one seed as 64-bit lane values (high half 0), and the
 * constants of rounds 1 and 2 (see philox_blocks_avx512.c, philox_keys_init,
 * for the algebra: c2 = c3 = 0 and c1 = ctr1 on entry make round 0's second
 * product 0 and round 1's first product a scalar constant). */
typedef struct philox_keys {
    uint64_t k0[10], k1[10];
    uint64_t r1_c2_xor; /* hi(M0 * (ctr1 ^ k0[0])) ^ k1[1] */
    uint64_t r2_c3;     /* lo(M0 * (ctr1 ^ k0[0])) ^ k1[2] */
} philox_keys_t;

static void philox_keys_init(philox_keys_t *keys, uint64_t seed, uint32_t ctr1)
{
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
        keys->k0[round] = k0;
        keys->k1[round] = k1;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    uint64_t p = (uint64_t)PHILOX_M0 * (ctr1 ^ (uint32_t)keys->k0[0]);
    keys->r1_c2_xor = (uint32_t)(p >> 32) ^ keys->k1[1];
    keys->r2_c3 = (uint32_t)p ^ keys->k1[2];
}

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

/* Whole groups of PHILOX_GROUP blocks; the rest (fewer than a group, or a
 * group that would wrap) is left to the caller's scalar path. `uniform`: each
 * word is stored as its uniform float instead. */
static inline __attribute__((always_inline)) size_t
philox_blocks(uint64_t seed, uint64_t block, size_t count, bool uniform, uint32_t *out)
{
    size_t written = 0;
    philox_keys_t keys;
    uint32_t keys_ctr1 = 0;
    bool have_keys = false;
    for (; count - written >= PHILOX_GROUP; written += PHILOX_GROUP) {
        uint64_t first = (block + written) & (UINT64_MAX >> 2); /* word indices wrap at 2^64 */
        /* A group whose low words would wrap, or that crosses the 2^62 wrap,
         * is left to the scalar loop; a fill would need 2^34 bytes. */
        if ((uint32_t)first > UINT32_MAX - PHILOX_GROUP || first > (UINT64_MAX >> 2) - PHILOX_GROUP)
            break;
        if (!have_keys || (uint32_t)(first >> 32) != keys_ctr1) {
            keys_ctr1 = (uint32_t)(first >> 32);
            philox_keys_init(&keys, seed, keys_ctr1);
            have_keys = true;
        }
        philox_group(&keys, first, uniform, out + 4 * written);
    }
    return written;
}

size_t accel_philox_blocks_avx2(uint64_t seed, uint64_t block, size_t count, uint32_t *out)
{
    return philox_blocks(seed, block, count, false, out);
}

size_t accel_philox_uniform_blocks_avx2(uint64_t seed, uint64_t block, size_t count, float *out)
{
    return philox_blocks(seed, block, count, true, (uint32_t *)out);
}
