/* test_philox.c: Philox4x32-10 against Random123's published answers, and
 * the stream -> element mapping of docs/architecture.md, Random numbers (word order, transforms,
 * sub-range fills, offset advance), plus a statistical sanity check. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpu_isa.h"
#include "philox.h"

/* Random123 tests/kat_vectors (github.com/DEShawResearch/random123, commit
 * 9545ff6413f258be2f04c1d319d99aaef7521150), the "philox4x32 10" rows:
 * counter (4 words), key (2 words), expected output (4 words). */
static const struct {
    uint32_t ctr[4];
    uint32_t key[2];
    uint32_t expected[4];
} known_answers[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

/* A fill that runs past word 2^64 - 1 continues at word 0 (docs/architecture.md: words are
 * indexed modulo 2^64), exactly as accel_philox_word counts. */
static void test_fill_wraps_at_word_2_64(void **state)
{
    const uint64_t seed = 0x1234abcdull, offset = UINT64_MAX - 5;
    uint32_t words[16];
    (void)state;
    accel_philox_fill_range(ACCEL_RNG_U32, words, 0, 16, seed, offset);
    for (uint64_t i = 0; i < 16; i++)
        assert_int_equal(words[i], accel_philox_word(seed, offset + i));
}

static void test_known_answers(void **state)
{
    (void)state;
    for (size_t v = 0; v < sizeof known_answers / sizeof known_answers[0]; v++) {
        uint32_t out[4];
        accel_philox4x32_10(known_answers[v].ctr, known_answers[v].key, out);
        for (int i = 0; i < 4; i++)
            assert_int_equal(out[i], known_answers[v].expected[i]);
    }
}

/* Seed 0, words 0..3 are the all-zero known answer: ties the stream mapping
 * (key from seed, counter from index) to published numbers. */
static void test_stream_zero_seed_is_known_answer(void **state)
{
    (void)state;
    for (uint64_t j = 0; j < 4; j++)
        assert_int_equal(accel_philox_word(0, j), known_answers[0].expected[j]);
}

/* Word j = word j%4 of the block at counter j/4 (128-bit little endian),
 * key = (seed low, seed high). */
static void test_stream_mapping(void **state)
{
    (void)state;
    const uint64_t seeds[] = {0, 1, 42, 0x0123456789abcdefull, 0xffffffff00000000ull, UINT64_MAX};
    const uint64_t indices[] = {0,
                                1,
                                3,
                                4,
                                7,
                                1001,
                                4ull * 0xffffffffull + 3, /* last block before the carry */
                                4ull * (1ull << 32) + 1,  /* counter carries into word 1 */
                                4ull * 0x123456789ull + 2,
                                UINT64_MAX};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        uint64_t seed = seeds[s];
        uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
        for (size_t i = 0; i < sizeof indices / sizeof indices[0]; i++) {
            uint64_t j = indices[i];
            uint64_t block = j / 4;
            uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), 0, 0};
            uint32_t out[4];
            accel_philox4x32_10(ctr, key, out);
            assert_int_equal(accel_philox_word(seed, j), out[j % 4]);
        }
    }
    /* The carry case spelled out: counter {0, 1, 0, 0}, word 1. */
    {
        uint32_t ctr[4] = {0, 1, 0, 0}, key[2] = {7, 0}, out[4];
        accel_philox4x32_10(ctr, key, out);
        assert_int_equal(accel_philox_word(7, 4ull * (1ull << 32) + 1), out[1]);
        assert_int_not_equal(accel_philox_word(7, 1), out[1]);
    }
}

static void test_words_per_element(void **state)
{
    (void)state;
    assert_int_equal(accel_rng_words_per_element(ACCEL_RNG_U32), 1);
    assert_int_equal(accel_rng_words_per_element(ACCEL_RNG_UNIFORM), 1);
    assert_int_equal(accel_rng_words_per_element(ACCEL_RNG_NORMAL), 2);
}

static void test_offset_advance(void **state)
{
    (void)state;
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_U32, 0), 0);
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_U32, 1), 4);
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_U32, 4), 4);
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_U32, 5), 8);
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_UNIFORM, 3), 4);
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_UNIFORM, 1000), 1000);
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_NORMAL, 1), 4);
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_NORMAL, 2), 4);
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_NORMAL, 3), 8);
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_NORMAL, 1000001), 2000004);
}

static void test_uniform_from_word(void **state)
{
    (void)state;
    assert_true(accel_rng_uniform_from_word(0) == 0.0f);
    assert_true(accel_rng_uniform_from_word(0xff) == 0.0f);
    assert_true(accel_rng_uniform_from_word(0x100) == 0x1.0p-24f);
    assert_true(accel_rng_uniform_from_word(0x80000000u) == 0.5f);
    assert_true(accel_rng_uniform_from_word(0xffffffffu) == 1.0f - 0x1.0p-24f);
    for (uint64_t j = 0; j < 100000; j++) {
        float u = accel_rng_uniform_from_word(accel_philox_word(3, j));
        assert_true(u >= 0.0f && u < 1.0f);
    }
}

static void test_normal_from_words(void **state)
{
    (void)state;
    /* a = 0: u1 = 2^-24, the largest magnitude; cos(0) = 1. */
    float top = accel_rng_normal_from_words(0, 0);
    assert_true(isfinite(top));
    assert_true(fabs(top - sqrt(48.0 * log(2.0))) < 1e-5);
    /* a = ~0: u1 = 1, log 1 = 0. */
    assert_true(accel_rng_normal_from_words(0xffffffffu, 0) == 0.0f);
    /* u2 = 1/2: cos(pi) = -1. */
    assert_true(fabs(accel_rng_normal_from_words(0, 0x80000000u) + top) < 1e-5);
    /* u2 = 1/4: cos(pi/2) = 0. */
    assert_true(fabs(accel_rng_normal_from_words(0, 0x40000000u)) < 1e-5);
    for (uint32_t b = 0; b < 0x1000; b++) {
        assert_true(isfinite(accel_rng_normal_from_words(0, b << 20)));
        assert_true(isfinite(accel_rng_normal_from_words(b, 0xffffffffu - b)));
    }
}

/* Element i of a fill at `offset` comes from words offset + w*i ... */
static void reference_element(accel_rng_kind_t kind, void *dst, size_t i, uint64_t seed,
                              uint64_t offset)
{
    uint64_t w = accel_rng_words_per_element(kind);
    uint32_t a = accel_philox_word(seed, offset + w * i);
    if (kind == ACCEL_RNG_U32)
        ((uint32_t *)dst)[i] = a;
    else if (kind == ACCEL_RNG_UNIFORM)
        ((float *)dst)[i] = accel_rng_uniform_from_word(a);
    else
        ((float *)dst)[i] =
            accel_rng_normal_from_words(a, accel_philox_word(seed, offset + w * i + 1));
}

#define FILL_N 1237 /* more than one internal chunk, not a multiple of 4 */

/* A fill in arbitrary sub-ranges equals one whole fill, which equals the
 * per-element reference, and nothing outside the sub-range is written. */
static void test_fill_range_splits(void **state)
{
    (void)state;
    const accel_rng_kind_t kinds[] = {ACCEL_RNG_U32, ACCEL_RNG_UNIFORM, ACCEL_RNG_NORMAL};
    const uint64_t offsets[] = {0, 1, 2, 3, 5, 7, 4ull * 0xffffffffull + 1, 4ull * 0xfffffff0ull};
    const size_t cuts[] = {0, 1, 2, 3, 5, 128, 129, 255, 256, 257, 511, 700, 1001, 1236, FILL_N};
    const uint64_t seed = 0x9e3779b97f4a7c15ull;
    uint32_t whole[FILL_N], split[FILL_N], ref[FILL_N], guarded[FILL_N + 2];

    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
            accel_philox_fill_range(kinds[k], whole, 0, FILL_N, seed, offsets[o]);
            for (size_t i = 0; i < FILL_N; i++)
                reference_element(kinds[k], ref, i, seed, offsets[o]);
            assert_memory_equal(whole, ref, sizeof whole);

            /* Consecutive cut points: sub-ranges of every size including 0. */
            memset(split, 0xa5, sizeof split);
            for (size_t c = 0; c + 1 < sizeof cuts / sizeof cuts[0]; c++)
                accel_philox_fill_range(kinds[k], split, cuts[c], cuts[c + 1] - cuts[c], seed,
                                        offsets[o]);
            assert_memory_equal(whole, split, sizeof whole);

            /* Same in reverse order, with odd strides. */
            memset(split, 0x5a, sizeof split);
            for (size_t first = FILL_N; first > 0;) {
                size_t len = first >= 37 ? 37 : first;
                first -= len;
                accel_philox_fill_range(kinds[k], split, first, len, seed, offsets[o]);
            }
            assert_memory_equal(whole, split, sizeof whole);

            /* Only [first, first+count) is touched. */
            memset(guarded, 0xcc, sizeof guarded);
            accel_philox_fill_range(kinds[k], guarded + 1, 3, 500, seed, offsets[o]);
            assert_int_equal(guarded[0], 0xccccccccu);
            assert_int_equal(guarded[1 + 2], 0xccccccccu);
            assert_memory_equal(guarded + 1 + 3, whole + 3, 500 * sizeof(uint32_t));
            assert_int_equal(guarded[1 + 503], 0xccccccccu);
        }
    }
}

/* Consecutive fills that advance the offset never reuse a word. */
static void test_consecutive_fills_disjoint(void **state)
{
    (void)state;
    uint32_t first[3], second[3];
    uint64_t offset = 0;
    accel_philox_fill_range(ACCEL_RNG_U32, first, 0, 3, 11, offset);
    offset += accel_rng_offset_advance(ACCEL_RNG_U32, 3);
    accel_philox_fill_range(ACCEL_RNG_U32, second, 0, 3, 11, offset);
    assert_int_equal(offset, 4);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(first[i], accel_philox_word(11, (uint64_t)i));
        assert_int_equal(second[i], accel_philox_word(11, 4 + (uint64_t)i));
    }
}

#define STAT_N 1000000

/* Each vector variant this CPU runs writes the words accel_philox_word
 * gives, from block starts that are unaligned, next to a wrap of the low
 * counter word, and next to the 2^62 block wrap (where it may stop early).
 * Whole groups only: at most group - 1 blocks are left to the caller. The
 * dispatching "best" writes nothing where the selected set is scalar
 * (ACCEL_CPU_ISA=scalar), and the group of the set it picked otherwise. */
static void test_vector_blocks_match_scalar(void **state)
{
    typedef size_t (*blocks_fn)(uint64_t, uint64_t, size_t, uint32_t *);
    accel_cpu_isa_t selected = accel_cpu_isa_selected();
    const struct {
        const char *name;
        accel_cpu_isa_t isa;
        blocks_fn fn;
        size_t group; /* blocks per call of the kernel's inner step; 0: writes none */
    } variants[] = {
        {"avx2", ACCEL_CPU_ISA_AVX2, accel_philox_blocks_avx2, ACCEL_PHILOX_AVX2_GROUP},
        {"avx512", ACCEL_CPU_ISA_AVX512, accel_philox_blocks_avx512, ACCEL_PHILOX_AVX512_GROUP},
        {"best", ACCEL_CPU_ISA_SCALAR, accel_philox_blocks,
         selected == ACCEL_CPU_ISA_AVX512 ? ACCEL_PHILOX_AVX512_GROUP
         : selected == ACCEL_CPU_ISA_AVX2 ? ACCEL_PHILOX_AVX2_GROUP
                                          : 0}};
    const uint64_t starts[] = {0, 3, 1000003, 0xfffffff0u, 0x1fffffffcull, (UINT64_MAX >> 2) - 40};
    const uint64_t seeds[] = {0, 0x0123456789abcdefull};
    enum { BLOCKS = 77 };
    uint32_t out[4 * BLOCKS];
    (void)state;
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        if (variants[v].isa > accel_cpu_isa_detected()) {
            print_message("note: this CPU has no %s\n", variants[v].name);
            continue;
        }
        for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
            for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
                memset(out, 0, sizeof out);
                size_t written = variants[v].fn(seeds[s], starts[i], BLOCKS, out);
                assert_true(written <= BLOCKS);
                if (variants[v].group == 0)
                    assert_int_equal(written, 0);
                else if (starts[i] < 0xfffffff0u)
                    assert_int_equal(written, BLOCKS - BLOCKS % variants[v].group);
                for (size_t w = 0; w < 4 * written; w++)
                    assert_int_equal(out[w], accel_philox_word(seeds[s], 4 * starts[i] + w));
                for (size_t w = 4 * written; w < 4 * BLOCKS; w++)
                    assert_int_equal(out[w], 0);
            }
        }
    }
}

/* Each fused uniform kernel this CPU runs writes accel_rng_uniform_from_word
 * of the scalar words, on 64-byte aligned and unaligned destinations, for
 * counts that are and are not whole groups, over several groups and next to
 * a low-word wrap and the 2^62 block wrap. */
static void test_uniform_blocks_match_scalar(void **state)
{
    typedef size_t (*uniform_fn)(uint64_t, uint64_t, size_t, float *);
    const struct {
        const char *name;
        accel_cpu_isa_t isa;
        uniform_fn fn;
        size_t group;
    } variants[] = {
        {"avx2", ACCEL_CPU_ISA_AVX2, accel_philox_uniform_blocks_avx2, ACCEL_PHILOX_AVX2_GROUP},
        {"avx512", ACCEL_CPU_ISA_AVX512, accel_philox_uniform_blocks_avx512,
         ACCEL_PHILOX_AVX512_GROUP}};
    const uint64_t starts[] = {0, 5, 1000003, 0xffffffa0u, 0x1fffffffcull, (UINT64_MAX >> 2) - 100};
    const size_t counts[] = {1, 15, 16, 17, 47, 48, 49, 133};
    const size_t shifts[] = {0, 1, 4, 16}; /* floats past a 64-byte boundary */
    const uint64_t seed = 0xfeedfacecafebeefull;
    enum { BLOCKS = 133 };
    _Alignas(64) static float buf[4 * BLOCKS + 64];
    (void)state;
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        if (variants[v].isa > accel_cpu_isa_detected()) {
            print_message("note: this CPU has no %s\n", variants[v].name);
            continue;
        }
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            for (size_t h = 0; h < sizeof shifts / sizeof shifts[0]; h++) {
                for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
                    size_t count = counts[c];
                    float *out = buf + shifts[h];
                    memset(buf, 0, sizeof buf);
                    size_t written = variants[v].fn(seed, starts[i], count, out);
                    assert_true(written <= count);
                    if (starts[i] < 0xffffffa0u)
                        assert_int_equal(written, count - count % variants[v].group);
                    for (size_t w = 0; w < 4 * written; w++) {
                        float want =
                            accel_rng_uniform_from_word(accel_philox_word(seed, 4 * starts[i] + w));
                        assert_memory_equal(&out[w], &want, sizeof want);
                    }
                    for (size_t w = 4 * written; w < 4 * BLOCKS; w++)
                        assert_true(out[w] == 0.0f);
                }
            }
        }
    }
}

/* Whole fills through the dispatch (the vector set ACCEL_CPU_ISA leaves it:
 * CTest runs this file once per set) equal the per-element reference for
 * every length from 0 to 300 elements, from offsets at, before and after a
 * block boundary, next to a low-word wrap, and from odd first elements. */
static void test_fill_odd_lengths_match_reference(void **state)
{
    const accel_rng_kind_t kinds[] = {ACCEL_RNG_U32, ACCEL_RNG_UNIFORM, ACCEL_RNG_NORMAL};
    const uint64_t offsets[] = {0, 4, 1, 3, 4ull * 0xfffffff8ull, 4ull * 0xfffffff8ull + 2};
    const size_t firsts[] = {0, 1, 3, 64};
    const uint64_t seed = 0x5eed5eed12345678ull;
    enum { MAX_LEN = 300 };
    uint32_t got[MAX_LEN + 64 + 1], want[MAX_LEN + 64];
    (void)state;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
            for (size_t f = 0; f < sizeof firsts / sizeof firsts[0]; f++) {
                size_t first = firsts[f];
                for (size_t len = 0; len <= MAX_LEN; len += kinds[k] == ACCEL_RNG_NORMAL ? 7 : 1) {
                    memset(got, 0xcc, sizeof got);
                    accel_philox_fill_range(kinds[k], got, first, len, seed, offsets[o]);
                    for (size_t i = first; i < first + len; i++)
                        reference_element(kinds[k], want, i, seed, offsets[o]);
                    assert_memory_equal(got + first, want + first, len * sizeof got[0]);
                    assert_int_equal(got[first + len], 0xccccccccu);
                }
            }
        }
    }
}

static void test_statistics(void **state)
{
    (void)state;
    float *v = malloc(STAT_N * sizeof *v);
    assert_non_null(v);
    double sum = 0.0, sum_sq = 0.0;

    accel_philox_fill_range(ACCEL_RNG_UNIFORM, v, 0, STAT_N, 20240601, 3);
    for (size_t i = 0; i < STAT_N; i++) {
        assert_true(v[i] >= 0.0f && v[i] < 1.0f);
        sum += v[i];
    }
    double mean = sum / STAT_N;
    assert_true(fabs(mean - 0.5) < 0.002);

    sum = 0.0;
    accel_philox_fill_range(ACCEL_RNG_NORMAL, v, 0, STAT_N, 20240601, 1);
    for (size_t i = 0; i < STAT_N; i++) {
        assert_true(isfinite(v[i]));
        sum += v[i];
        sum_sq += (double)v[i] * v[i];
    }
    mean = sum / STAT_N;
    double variance = sum_sq / STAT_N - mean * mean;
    assert_true(fabs(mean) < 0.01);
    assert_true(fabs(variance - 1.0) < 0.01);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_fill_wraps_at_word_2_64),
        cmocka_unit_test(test_stream_zero_seed_is_known_answer),
        cmocka_unit_test(test_stream_mapping),
        cmocka_unit_test(test_words_per_element),
        cmocka_unit_test(test_offset_advance),
        cmocka_unit_test(test_uniform_from_word),
        cmocka_unit_test(test_normal_from_words),
        cmocka_unit_test(test_fill_range_splits),
        cmocka_unit_test(test_consecutive_fills_disjoint),
        cmocka_unit_test(test_vector_blocks_match_scalar),
        cmocka_unit_test(test_uniform_blocks_match_scalar),
        cmocka_unit_test(test_fill_odd_lengths_match_reference),
        cmocka_unit_test(test_statistics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
