/* philox.h: the one definition of accel's random numbers (docs/architecture.md, Random numbers).
 * Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
 * SC'11) and the word -> element mapping every backend must reproduce. Pure
 * functions: no state, safe from any thread. The CPU backend and the tests
 * use these; device backends port the same arithmetic to their kernels. */
#ifndef ACCEL_CORE_PHILOX_H
#define ACCEL_CORE_PHILOX_H

#include <stddef.h>
#include <stdint.h>

#include "accel/accel_backend.h"
#include "accel/accel_backend_utils.h"

/* Philox4x32's constants, shared by the scalar path and the vector files. */
#define PHILOX_M0 0xD2511F53u /* round multipliers */
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u /* key schedule (Weyl) increments */
#define PHILOX_W1 0xBB67AE85u

/* One block: 10 rounds on counter `ctr` with key `key`. */
void accel_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* Word `index` of the stream of `seed` (key = seed low/high, counter = index/4). */
uint32_t accel_philox_word(uint64_t seed, uint64_t index);

/* accel_rng_words_per_element, accel_rng_offset_advance, accel_philox_fill_range
 * and the pooled accel_philox_fill are public (accel/accel_backend_utils.h). */

/* The element transforms. */
float accel_rng_uniform_from_word(uint32_t word);
float accel_rng_normal_from_words(uint32_t a, uint32_t b);

/* Blocks from `block` on into out[0 .. 4*count), a vector of blocks at a
 * time: one variant per instruction set (philox_blocks_*.c), the bits of the
 * scalar path. Each returns how many blocks it wrote, from the start: whole
 * vectors only, and it may stop early near a counter wrap; the caller does
 * the rest with the scalar path. accel_philox_blocks uses the best variant
 * the CPU runs (ACCEL_CPU_ISA caps it, read once) and writes 0 without one. */
/* Blocks per step of the AVX-512 variants (a multiple of 8): they write
 * whole steps only. */
#define ACCEL_PHILOX_AVX512_GROUP 48
/* Blocks per step of the AVX2 variants (a multiple of 4): four lane sets
 * measured about 20% faster than two and level with three and six. */
#define ACCEL_PHILOX_AVX2_GROUP 16
typedef size_t (*accel_philox_blocks_fn)(uint64_t seed, uint64_t block, size_t count,
                                         uint32_t *out);
size_t accel_philox_blocks_avx2(uint64_t seed, uint64_t block, size_t count, uint32_t *out);
size_t accel_philox_blocks_avx512(uint64_t seed, uint64_t block, size_t count, uint32_t *out);
size_t accel_philox_blocks(uint64_t seed, uint64_t block, size_t count, uint32_t *out);
/* The same blocks with each word stored as accel_rng_uniform_from_word of
 * it (the uniform fill's conversion fused into the generator);
 * accel_philox_uniform_blocks writes 0 blocks on CPUs without AVX2. */
size_t accel_philox_uniform_blocks_avx2(uint64_t seed, uint64_t block, size_t count, float *out);
size_t accel_philox_uniform_blocks_avx512(uint64_t seed, uint64_t block, size_t count, float *out);
size_t accel_philox_uniform_blocks(uint64_t seed, uint64_t block, size_t count, float *out);

#endif
