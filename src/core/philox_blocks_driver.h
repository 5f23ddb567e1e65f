/* philox_blocks_driver.h: the loop over whole groups that each vector
 * Philox file ends with, and its two exported entry points. The includer
 * defines PHILOX_GROUP (blocks per group), philox_group() (one group, from
 * the keys and its first block) and PHILOX_ISA (the suffix of the entry
 * points: accel_philox_blocks_<isa> and accel_philox_uniform_blocks_<isa>,
 * core/philox.h) before including it, once, at its end. */
#ifndef PHILOX_ISA
#error "define PHILOX_ISA, PHILOX_GROUP and philox_group() before including philox_blocks_driver.h"
#endif

#define PHILOX_JOIN2(a, b) a##b
#define PHILOX_JOIN(a, b)  PHILOX_JOIN2(a, b)
#define PHILOX_ENTRY(name) PHILOX_JOIN(name, PHILOX_ISA)

/* Whole groups of PHILOX_GROUP blocks; the rest (fewer than a group, or a
 * group that would wrap) is left to the caller's scalar path. `uniform`: each
 * word is stored as its uniform float instead (the fill's conversion,
 * fused). */
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

size_t PHILOX_ENTRY(accel_philox_blocks_)(uint64_t seed, uint64_t block, size_t count,
                                          uint32_t *out)
{
    return philox_blocks(seed, block, count, false, out);
}

size_t PHILOX_ENTRY(accel_philox_uniform_blocks_)(uint64_t seed, uint64_t block, size_t count,
                                                  float *out)
{
    return philox_blocks(seed, block, count, true, (uint32_t *)out);
}
