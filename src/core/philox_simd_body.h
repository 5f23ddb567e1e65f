/* philox_simd_body.h: Philox4x32-10 on VEC_LANES blocks at once, written
 * once over a vector vocabulary that philox_blocks_avx2.c defines
 * before including it (philox_blocks_avx512.c has a round of its own): vec_t, VEC_LANES,
 * vec_set1, vec_add, vec_xor, vec_block_counters(block) (lane i = low word
 * of block + i), vec_mul_wide(a, m, &hi, &lo) (32x32 -> 64 per lane) and
 * vec_store_blocks(out, c0, c1, c2, c3) (lane i's four words to out[4i..]).
 * Integer math only: the bits of philox.c. The including file names the
 * function with PHILOX_BLOCKS_NAME. */

size_t PHILOX_BLOCKS_NAME(uint64_t seed, uint64_t block, size_t count, uint32_t *out)
{
    size_t written = 0;
    const vec_t m0 = vec_set1(0xD2511F53u), m1 = vec_set1(0xCD9E8D57u);
    for (; count - written >= VEC_LANES; written += VEC_LANES) {
        uint64_t first = (block + written) & (UINT64_MAX >> 2); /* word indices wrap at 2^64 */
        /* A group whose low words would wrap, or that crosses the 2^62 wrap,
         * is left to the scalar loop; a fill would need 2^34 bytes for one. */
        if ((uint32_t)first > UINT32_MAX - VEC_LANES || first > (UINT64_MAX >> 2) - VEC_LANES)
            break;
        vec_t c0 = vec_block_counters((uint32_t)first);
        vec_t c1 = vec_set1((uint32_t)(first >> 32));
        vec_t c2 = vec_set1(0), c3 = vec_set1(0);
        uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
        for (int round = 0; round < 10; round++) {
            vec_t hi0, lo0, hi1, lo1;
            if (round > 0) {
                k0 += 0x9E3779B9u;
                k1 += 0xBB67AE85u;
            }
            vec_mul_wide(c0, m0, &hi0, &lo0);
            vec_mul_wide(c2, m1, &hi1, &lo1);
            c0 = vec_xor(vec_xor(hi1, c1), vec_set1(k0));
            c2 = vec_xor(vec_xor(hi0, c3), vec_set1(k1));
            c1 = lo1;
            c3 = lo0;
        }
        vec_store_blocks(out + 4 * written, c0, c1, c2, c3);
    }
    return written;
}
