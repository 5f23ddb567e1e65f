/* philox_blocks_keys.h: what the vector Philox files (philox_blocks_avx2.c,
 * philox_blocks_avx512.c) share and that needs no vector instruction: the
 * round keys of one seed as 64-bit lane values (high half 0) and the
 * constants of rounds 1 and 2 that both fold. Included once by
 * each of those files (built with different -m flags, so the code is
 * compiled per file); nothing else includes it.
 *
 * The folding: rounds 0 and 1 start from c2 = c3 = 0 and c1 = ctr1, the
 * same in every lane of a group (no low-word wrap inside a group): round
 * 0's second product is 0 and its c0 = ctr1 ^ k0 a constant, so round 1's
 * first product is a scalar constant, made here once per call (or change
 * of ctr1); round 0's first product is one vector multiply per group plus
 * an add per lane set. About 17 vector multiplies per eight blocks instead
 * of 20. */
#ifndef ACCEL_CORE_PHILOX_BLOCKS_KEYS_H
#define ACCEL_CORE_PHILOX_BLOCKS_KEYS_H

#include <stdint.h>

#include "core/philox.h" /* the constants */

typedef struct philox_keys {
    uint64_t k0[10], k1[10];
    uint64_t r1_c2_xor; /* hi(M0 * (ctr1 ^ k0[0])) ^ k1[1]: round 1's c2 is lo(M0 * ctr0) ^ this */
    uint64_t r2_c3;     /* lo(M0 * (ctr1 ^ k0[0])) ^ k1[2]: round 2's c3 (a constant) xor its key */
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

#endif /* ACCEL_CORE_PHILOX_BLOCKS_KEYS_H */
