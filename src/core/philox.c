/* philox.c: Philox4x32-10 and the stream -> element mapping of docs/architecture.md, Random
 * numbers. The reference every backend is checked against: pure functions, no state, callable from
 * any thread. */
#include "philox.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "core/cpu_isa.h"

#define PHILOX_ROUNDS 10

/* Words generated per stack chunk when a transform sits between the
 * generator and the destination; a multiple of 4 and of 2. */
#define FILL_CHUNK_WORDS 256
/* Uniform fills write words into the destination and convert them there,
 * this many at a time, while they are still in the L1 cache. */
#define FILL_INPLACE_WORDS 2048

static inline void philox_round(uint32_t c[4], const uint32_t k[2])
{
    uint64_t p0 = (uint64_t)PHILOX_M0 * c[0];
    uint64_t p1 = (uint64_t)PHILOX_M1 * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    c[0] = hi1 ^ c[1] ^ k[0];
    c[1] = lo1;
    c[2] = hi0 ^ c[3] ^ k[1];
    c[3] = lo0;
}

void accel_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    uint32_t k[2] = {key[0], key[1]};
    for (int round = 0; round < PHILOX_ROUNDS; round++) {
        if (round > 0) {
            k[0] += PHILOX_W0;
            k[1] += PHILOX_W1;
        }
        philox_round(c, k);
    }
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
    out[3] = c[3];
}

/* Block `block` of the stream of `seed`: counter = block as a 128-bit
 * little-endian integer (the upper two words are always 0 for a u64 block). */
static inline void philox_block(uint64_t seed, uint64_t block, uint32_t out[4])
{
    /* Word indices wrap at 2^64, so block indices wrap at 2^62: a fill that
     * runs past the last word continues at word 0, as accel_philox_word does. */
    block &= UINT64_MAX >> 2;
    const uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), 0, 0};
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    accel_philox4x32_10(ctr, key, out);
}

uint32_t accel_philox_word(uint64_t seed, uint64_t index)
{
    uint32_t out[4];
    philox_block(seed, index / 4, out);
    return out[index % 4];
}

unsigned accel_rng_words_per_element(accel_rng_kind_t kind)
{
    switch (kind) {
    case ACCEL_RNG_U32:
    case ACCEL_RNG_UNIFORM: return 1;
    case ACCEL_RNG_NORMAL: return 2;
    }
    return 0; /* not a kind */
}

uint64_t accel_rng_offset_advance(accel_rng_kind_t kind, size_t count)
{
    uint64_t words = (uint64_t)accel_rng_words_per_element(kind) * (uint64_t)count;
    return (words + 3u) & ~(uint64_t)3u;
}

float accel_rng_uniform_from_word(uint32_t word)
{
    /* 24 significant bits times a power of two: exact in float. */
    return (float)(int32_t)(word >> 8) * 0x1.0p-24f; /* signed: one vector convert */
}

/* Box-Muller in double, rounded once to float at the end. u1 and u2 are
 * exact in both precisions; doing log/sqrt/cos and 2*pi*u2 in double keeps
 * the error before the final rounding far below a float ulp, so a backend
 * that also computes in double (or in float with good intrinsics) lands on
 * the same float, or the neighbouring one when the value sits at a rounding
 * boundary. Float math (logf, cosf, a float 2*pi*u2) would leave a few ulp
 * of library-dependent error in every value instead. */
float accel_rng_normal_from_words(uint32_t a, uint32_t b)
{
    const double two_pi = 6.283185307179586476925286766559;
    double u1 = (double)((a >> 8) + 1u) * 0x1.0p-24; /* (0, 1]: log never sees 0 */
    double u2 = (double)(b >> 8) * 0x1.0p-24;        /* [0, 1) */
    return (float)(sqrt(-2.0 * log(u1)) * cos(two_pi * u2));
}

static pthread_once_t blocks_once = PTHREAD_ONCE_INIT;
static accel_philox_blocks_fn blocks_best = NULL;
static size_t (*uniform_blocks_best)(uint64_t, uint64_t, size_t, float *) = NULL;

static void blocks_choose(void)
{
#if defined(__x86_64__) || defined(__i386__)
    accel_cpu_isa_t isa = accel_cpu_isa_selected();
    if (isa == ACCEL_CPU_ISA_AVX512) {
        blocks_best = accel_philox_blocks_avx512;
        uniform_blocks_best = accel_philox_uniform_blocks_avx512;
    } else if (isa == ACCEL_CPU_ISA_AVX2) {
        blocks_best = accel_philox_blocks_avx2;
        uniform_blocks_best = accel_philox_uniform_blocks_avx2;
    }
#endif
}

size_t accel_philox_blocks(uint64_t seed, uint64_t block, size_t count, uint32_t *out)
{
    pthread_once(&blocks_once, blocks_choose);
    return blocks_best != NULL ? blocks_best(seed, block, count, out) : 0;
}

size_t accel_philox_uniform_blocks(uint64_t seed, uint64_t block, size_t count, float *out)
{
    pthread_once(&blocks_once, blocks_choose);
    return uniform_blocks_best != NULL ? uniform_blocks_best(seed, block, count, out) : 0;
}

/* Words [start, start + n) of the stream of `seed` into out[0..n): one
 * Philox block per 4 words, with a partial block at either end when `start`
 * or `start + n` is not a multiple of 4. Word indices wrap modulo 2^64. */
static void philox_words(uint64_t seed, uint64_t start, size_t n, uint32_t *out)
{
    uint32_t block[4];
    uint64_t b = start / 4;
    unsigned pos = (unsigned)(start % 4);
    size_t done = 0;

    if (n == 0)
        return;
    if (pos != 0) { /* unaligned head */
        philox_block(seed, b++, block);
        for (; pos < 4 && done < n; pos++)
            out[done++] = block[pos];
    }
    while (n - done >= 4) { /* whole blocks: vectors where the variant takes them */
        size_t blocks = accel_philox_blocks(seed, b, (n - done) / 4, out + done);
        b += blocks;
        done += 4 * blocks;
        if (n - done >= 4 && (blocks == 0 || n - done < 64)) {
            philox_block(seed, b++, out + done);
            done += 4;
        }
    }
    if (done < n) { /* partial tail */
        philox_block(seed, b, block);
        for (pos = 0; done < n; pos++)
            out[done++] = block[pos];
    }
}

/* dst is element 0 of the whole fill; this writes dst[first .. first+count). */
void accel_philox_fill_range(accel_rng_kind_t kind, void *dst, size_t first, size_t count,
                             uint64_t seed, uint64_t offset)
{
    unsigned w = accel_rng_words_per_element(kind);
    uint32_t words[FILL_CHUNK_WORDS];
    uint64_t start;

    if (w == 0 || count == 0 || dst == NULL)
        return;
    start = offset + (uint64_t)w * (uint64_t)first;

    if (kind == ACCEL_RNG_U32) {
        philox_words(seed, start, count, (uint32_t *)dst + first);
        return;
    }
    float *out = (float *)dst + first;
    if (kind == ACCEL_RNG_UNIFORM) {
        /* Whole blocks straight to floats where the CPU has the fused
         * variant; the rest as words into the destination, then converted
         * in place. */
        size_t done = 0;
        if (start % 4 == 0)
            done = 4 * accel_philox_uniform_blocks(seed, start / 4, count / 4, out);
        for (; done < count; done += FILL_INPLACE_WORDS) {
            size_t n = count - done < FILL_INPLACE_WORDS ? count - done : FILL_INPLACE_WORDS;
            uint32_t *raw = (uint32_t *)dst + first + done;
            philox_words(seed, start + done, n, raw);
            for (size_t i = 0; i < n; i++) {
                uint32_t word;
                float value;
                memcpy(&word, raw + i, sizeof word);
                value = accel_rng_uniform_from_word(word);
                memcpy(out + done + i, &value, sizeof value);
            }
        }
        return;
    }
    size_t per_chunk = FILL_CHUNK_WORDS / w;
    for (size_t done = 0; done < count; done += per_chunk) {
        size_t n = count - done < per_chunk ? count - done : per_chunk;
        philox_words(seed, start + (uint64_t)w * done, n * w, words);
        for (size_t i = 0; i < n; i++)
            out[done + i] = accel_rng_normal_from_words(words[2 * i], words[2 * i + 1]);
    }
}
