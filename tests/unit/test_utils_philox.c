/* test_utils_philox.c: the exported Philox host fill (accel_backend_utils.h)
 * through the shared library: the known answer of the generator of docs/architecture.md (Random
 * numbers), a large pooled fill equal bit for bit to one serial range fill for every kind, the
 * offset rules, and bad input refused with nothing written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel_backend_utils.h"

/* Large enough to be split over the pool, odd so the last chunk is short. */
#define BIG ((size_t)(1 << 20) + 5)

static void test_known_answer(void **state)
{
    /* Philox4x32-10 of counter 0, key 0 (Salmon et al.'s test vector). */
    static const uint32_t expected[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
    uint32_t words[6] = {0};
    (void)state;
    assert_int_equal(accel_philox_fill(ACCEL_RNG_U32, words, 4, 0, 0), ACCEL_OK);
    assert_memory_equal(words, expected, sizeof expected);
    /* A range fill names elements of the whole fill: elements 2..3 land at
     * dst[2..3], read from words 2..3. */
    memset(words, 0, sizeof words);
    accel_philox_fill_range(ACCEL_RNG_U32, words, 2, 2, 0, 0);
    assert_int_equal(words[0], 0);
    assert_int_equal(words[2], expected[2]);
    assert_int_equal(words[3], expected[3]);
    /* Starting at offset 1 shifts the stream by one word. */
    assert_int_equal(accel_philox_fill(ACCEL_RNG_U32, words, 3, 0, 1), ACCEL_OK);
    assert_memory_equal(words, expected + 1, 3 * sizeof(uint32_t));
}

static void test_pooled_fill_matches_serial(void **state)
{
    static const accel_rng_kind_t kinds[] = {ACCEL_RNG_U32, ACCEL_RNG_UNIFORM, ACCEL_RNG_NORMAL};
    uint32_t *pooled = malloc(BIG * sizeof *pooled), *serial = malloc(BIG * sizeof *serial);
    (void)state;
    assert_non_null(pooled);
    assert_non_null(serial);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        memset(pooled, 0, BIG * sizeof *pooled);
        assert_int_equal(accel_philox_fill(kinds[k], pooled, BIG, 0x5eed, 12345), ACCEL_OK);
        accel_philox_fill_range(kinds[k], serial, 0, BIG, 0x5eed, 12345);
        assert_memory_equal(pooled, serial, BIG * sizeof *pooled);
    }
    free(pooled);
    free(serial);
}

/* A fill started from inside a pool run finds the pool busy and runs on its
 * own thread: still every element, the same bits (and no deadlock). */
typedef struct nested_fill {
    uint32_t *dst;
    accel_status_t status;
} nested_fill_t;

static void nested_fill_part(void *ctx, size_t begin, size_t end)
{
    nested_fill_t *job = ctx;
    (void)end;
    if (begin == 0) /* the first part only: one fill into the buffer */
        job->status = accel_philox_fill(ACCEL_RNG_UNIFORM, job->dst, BIG, 0x5eed, 8);
}

static void test_fill_inside_pool_run(void **state)
{
    uint32_t *nested = malloc(BIG * sizeof *nested), *serial = malloc(BIG * sizeof *serial);
    nested_fill_t job = {nested, ACCEL_ERROR_UNAVAILABLE}; /* not a status the fill gives */
    (void)state;
    assert_non_null(nested);
    assert_non_null(serial);
    memset(nested, 0, BIG * sizeof *nested);
    accel_thread_pool_run(2, 1, 1, nested_fill_part, &job);
    assert_int_equal(job.status, ACCEL_OK);
    accel_philox_fill_range(ACCEL_RNG_UNIFORM, serial, 0, BIG, 0x5eed, 8);
    assert_memory_equal(nested, serial, BIG * sizeof *nested);
    free(nested);
    free(serial);
}

static void test_offsets(void **state)
{
    (void)state;
    assert_int_equal(accel_rng_words_per_element(ACCEL_RNG_U32), 1);
    assert_int_equal(accel_rng_words_per_element(ACCEL_RNG_UNIFORM), 1);
    assert_int_equal(accel_rng_words_per_element(ACCEL_RNG_NORMAL), 2);
    assert_int_equal(accel_rng_words_per_element((accel_rng_kind_t)9), 0);
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_U32, 5), 8);
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_NORMAL, 5), 12);
    assert_int_equal(accel_rng_offset_advance(ACCEL_RNG_UNIFORM, 0), 0);
}

static void test_bad_input_writes_nothing(void **state)
{
    float out[4] = {1, 2, 3, 4};
    (void)state;
    assert_int_equal(accel_philox_fill((accel_rng_kind_t)9, out, 4, 1, 0),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "kind 9"));
    assert_true(out[0] == 1 && out[3] == 4);
    assert_int_equal(accel_philox_fill(ACCEL_RNG_UNIFORM, NULL, 4, 1, 0),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "NULL destination"));
    assert_int_equal(accel_philox_fill(ACCEL_RNG_UNIFORM, NULL, 0, 1, 0), ACCEL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answer),
        cmocka_unit_test(test_pooled_fill_matches_serial),
        cmocka_unit_test(test_fill_inside_pool_run),
        cmocka_unit_test(test_offsets),
        cmocka_unit_test(test_bad_input_writes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
