/* test_rng.c: conformance tests of random numbers: seeding, the state blob,
 * the Philox4x32-10 cross-backend bits and the fills' distributions. */
#include "conformance.h"

#include <math.h>
#include <stdlib.h>

#define RNG_SAMPLES 100000

static void rng_state(uint8_t state[ACCEL_RNG_STATE_SIZE])
{
    assert_ok(
        accel_get_rng_state(conformance_acc, ACCEL_CURRENT_DEVICE, state, ACCEL_RNG_STATE_SIZE));
}

static void rng_uniform(float *out, size_t count)
{
    float *device = conf_device_alloc(count * sizeof *out);
    assert_ok(accel_rng_uniform_f32(conformance_acc, device, count, NULL));
    conf_to_host(out, device, count * sizeof *out);
    conf_device_free(device);
}

static void rng_normal(float *out, size_t count)
{
    float *device = conf_device_alloc(count * sizeof *out);
    assert_ok(accel_rng_normal_f32(conformance_acc, device, count, NULL));
    conf_to_host(out, device, count * sizeof *out);
    conf_device_free(device);
}

void test_rng_philox_known_answer(void **state)
{
    /* Random123 Philox4x32-10, counter 0, key 0: the cross-backend contract */
    static const uint32_t expected[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
    uint32_t words[4];
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 0));
    conf_rng_u32(words, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(words[i], expected[i]);
}

void test_rng_consecutive_fills_differ(void **state)
{
    uint32_t first[64], second[64];
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 42));
    conf_rng_u32(first, 64);
    conf_rng_u32(second, 64);
    assert_memory_not_equal(first, second, sizeof first);
}

void test_rng_reseed_repeats(void **state)
{
    uint32_t first[64], again[64];
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 42));
    conf_rng_u32(first, 64);
    assert_ok(accel_manual_seed(conformance_acc, 42));
    conf_rng_u32(again, 64);
    assert_memory_equal(first, again, sizeof first);
}

void test_rng_different_seeds_differ(void **state)
{
    uint32_t first[64], second[64];
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 1));
    conf_rng_u32(first, 64);
    assert_ok(accel_manual_seed(conformance_acc, 2));
    conf_rng_u32(second, 64);
    assert_memory_not_equal(first, second, sizeof first);
}

void test_rng_state_blob_layout(void **state)
{
    static const uint8_t seed_bytes[8] = {0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01};
    static const uint8_t zero[8] = {0};
    uint8_t blob[ACCEL_RNG_STATE_SIZE];
    uint32_t words[5];
    (void)state;
    assert_int_equal(ACCEL_RNG_STATE_SIZE, 16);
    assert_ok(accel_manual_seed(conformance_acc, 0x0123456789abcdefULL));
    rng_state(blob);
    assert_memory_equal(blob, seed_bytes, 8);
    assert_memory_equal(blob + 8, zero, 8);
    conf_rng_u32(words, 5);
    rng_state(blob);
    assert_memory_equal(blob, seed_bytes, 8);
    assert_int_equal(blob[8], 8); /* offset += round_up(5, 4) */
    assert_memory_equal(blob + 9, zero, 7);
}

void test_rng_state_round_trip(void **state)
{
    uint8_t blob[ACCEL_RNG_STATE_SIZE];
    uint32_t first[37], again[37];
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 77));
    conf_rng_u32(first, 3); /* move off offset 0 */
    rng_state(blob);
    conf_rng_u32(first, 37);
    assert_ok(accel_set_rng_state(conformance_acc, ACCEL_CURRENT_DEVICE, blob, sizeof blob));
    conf_rng_u32(again, 37);
    assert_memory_equal(first, again, sizeof first);
}

void test_rng_fills_continue_the_stream(void **state)
{
    uint32_t whole[16], part_a[5], part_b[3];
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 9));
    conf_rng_u32(whole, 16);
    assert_ok(accel_manual_seed(conformance_acc, 9));
    conf_rng_u32(part_a, 5); /* words 0..4, offset -> 8 */
    conf_rng_u32(part_b, 3); /* words 8..10, offset -> 12 */
    assert_memory_equal(part_a, whole, sizeof part_a);
    assert_memory_equal(part_b, whole + 8, sizeof part_b);
    assert_true(conf_rng_offset() == 12);
}

void test_rng_normal_consumes_two_words(void **state)
{
    float values[3];
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 5));
    rng_normal(values, 3);
    assert_true(conf_rng_offset() == 8); /* round_up(2 * 3, 4) */
}

void test_rng_uniform_in_unit_interval(void **state)
{
    float *values = malloc(RNG_SAMPLES * sizeof *values);
    double sum = 0;
    (void)state;
    assert_non_null(values);
    assert_ok(accel_manual_seed(conformance_acc, 1234));
    rng_uniform(values, RNG_SAMPLES);
    for (size_t i = 0; i < RNG_SAMPLES; i++) {
        assert_true(values[i] >= 0.0f && values[i] < 1.0f);
        sum += values[i];
    }
    assert_true(fabs(sum / RNG_SAMPLES - 0.5) < 0.01);
    free(values);
}

void test_rng_uniform_matches_u32_bits(void **state)
{
    uint32_t words[256];
    float values[256];
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 31337));
    conf_rng_u32(words, 256);
    assert_ok(accel_manual_seed(conformance_acc, 31337));
    rng_uniform(values, 256);
    for (size_t i = 0; i < 256; i++)
        assert_true(values[i] == (float)(words[i] >> 8) * 0x1p-24f);
}

void test_rng_normal_matches_box_muller(void **state)
{
    uint32_t words[512];
    float values[256];
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 2718));
    conf_rng_u32(words, 512);
    assert_ok(accel_manual_seed(conformance_acc, 2718));
    rng_normal(values, 256);
    for (size_t i = 0; i < 256; i++) {
        double u1 = ((double)(words[2 * i] >> 8) + 1.0) * 0x1p-24;
        double u2 = (double)(words[2 * i + 1] >> 8) * 0x1p-24;
        double expected = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
        assert_true(fabs(values[i] - expected) <= 1e-5 * (1.0 + fabs(expected)));
    }
}

void test_rng_normal_moments(void **state)
{
    float *values = malloc(RNG_SAMPLES * sizeof *values);
    double sum = 0, sum_sq = 0, mean, variance;
    (void)state;
    assert_non_null(values);
    assert_ok(accel_manual_seed(conformance_acc, 4321));
    rng_normal(values, RNG_SAMPLES);
    for (size_t i = 0; i < RNG_SAMPLES; i++) {
        assert_true(isfinite(values[i]));
        sum += values[i];
        sum_sq += (double)values[i] * values[i];
    }
    mean = sum / RNG_SAMPLES;
    variance = sum_sq / RNG_SAMPLES - mean * mean;
    assert_true(fabs(mean) < 0.02);
    assert_true(fabs(variance - 1.0) < 0.03);
    free(values);
}

void test_rng_initial_seed(void **state)
{
    uint64_t seed = 0;
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 0xfeedULL));
    assert_ok(accel_initial_seed(conformance_acc, &seed));
    assert_true(seed == 0xfeedULL);
}

void test_rng_manual_seed_all(void **state)
{
    int count = conf_device_count();
    (void)state;
    assert_ok(accel_manual_seed_all(conformance_acc, 0x55ULL));
    for (int device = 0; device < count && device < 8; device++) {
        uint8_t blob[ACCEL_RNG_STATE_SIZE];
        static const uint8_t expected[ACCEL_RNG_STATE_SIZE] = {0x55};
        assert_ok(accel_get_rng_state(conformance_acc, device, blob, sizeof blob));
        assert_memory_equal(blob, expected, sizeof blob);
    }
}

void test_rng_seed_from_entropy(void **state)
{
    uint64_t first = 0, second = 0, initial = 0;
    uint8_t blob[ACCEL_RNG_STATE_SIZE];
    uint64_t blob_seed = 0;
    (void)state;
    assert_ok(accel_seed(conformance_acc, &first));
    assert_ok(accel_initial_seed(conformance_acc, &initial));
    assert_true(initial == first);
    rng_state(blob);
    for (int i = 7; i >= 0; i--)
        blob_seed = (blob_seed << 8) | blob[i];
    assert_true(blob_seed == first);
    assert_ok(accel_seed(conformance_acc, &second));
    assert_true(first != second); /* 64 bits of entropy: a repeat means no entropy */
}

void test_rng_seed_null_arguments(void **state)
{
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_seed(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_initial_seed(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_manual_seed(NULL, 1));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_manual_seed_all(NULL, 1));
}

void test_rng_per_device_state(void **state)
{
    uint8_t before[ACCEL_RNG_STATE_SIZE], after[ACCEL_RNG_STATE_SIZE];
    (void)state;
    if (conf_device_count() < 2)
        conf_skip("needs two devices to check generators are per device");
    assert_ok(accel_set_device(conformance_acc, 0));
    assert_ok(accel_manual_seed(conformance_acc, 100));
    rng_state(before);
    assert_ok(accel_set_device(conformance_acc, 1));
    assert_ok(accel_manual_seed(conformance_acc, 200));
    assert_ok(accel_get_rng_state(conformance_acc, 0, after, sizeof after));
    assert_memory_equal(before, after, sizeof before);
}

void test_rng_get_state_bad_arguments(void **state)
{
    uint8_t blob[ACCEL_RNG_STATE_SIZE];
    (void)state;
    memset(blob, 0xa5, sizeof blob);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_get_rng_state(conformance_acc, ACCEL_CURRENT_DEVICE, blob, 8));
    for (size_t i = 0; i < sizeof blob; i++)
        assert_int_equal(blob[i], 0xa5);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_get_rng_state(conformance_acc, conf_device_count(), blob, sizeof blob));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_get_rng_state(conformance_acc, ACCEL_CURRENT_DEVICE, NULL, sizeof blob));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_get_rng_state(NULL, ACCEL_CURRENT_DEVICE, blob, sizeof blob));
}

void test_rng_set_state_wrong_size(void **state)
{
    uint8_t before[ACCEL_RNG_STATE_SIZE], after[ACCEL_RNG_STATE_SIZE];
    uint8_t other[ACCEL_RNG_STATE_SIZE + 1];
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 11));
    rng_state(before);
    memset(other, 0x3c, sizeof other);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_set_rng_state(conformance_acc, ACCEL_CURRENT_DEVICE, other, 15));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_set_rng_state(conformance_acc, ACCEL_CURRENT_DEVICE, other, 17));
    rng_state(after);
    assert_memory_equal(before, after, sizeof before);
}

void test_rng_set_state_bad_arguments(void **state)
{
    uint8_t before[ACCEL_RNG_STATE_SIZE], after[ACCEL_RNG_STATE_SIZE];
    uint8_t other[ACCEL_RNG_STATE_SIZE];
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 12));
    rng_state(before);
    memset(other, 0x3c, sizeof other);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_set_rng_state(conformance_acc, ACCEL_CURRENT_DEVICE, NULL, sizeof other));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_set_rng_state(conformance_acc, conf_device_count(), other, sizeof other));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_set_rng_state(NULL, ACCEL_CURRENT_DEVICE, other, sizeof other));
    rng_state(after);
    assert_memory_equal(before, after, sizeof before);
}

void test_rng_fill_outside_allocation(void **state)
{
    uint32_t host[8];
    uint32_t *device = conf_device_alloc(4 * sizeof(uint32_t));
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 13));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_rng_u32(conformance_acc, device, 5, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_rng_uniform_f32(conformance_acc, (float *)device + 1, 4, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_rng_normal_f32(conformance_acc, (float *)device, 5, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_rng_u32(conformance_acc, host, 8, NULL));
    assert_true(conf_rng_offset() == 0); /* refused fills reserve nothing */
    conf_device_free(device);
}

void test_rng_fill_null_arguments(void **state)
{
    uint32_t *device = conf_device_alloc(4 * sizeof(uint32_t));
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 14));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_rng_u32(conformance_acc, NULL, 4, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_rng_u32(NULL, device, 4, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_rng_uniform_f32(NULL, (float *)device, 4, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_rng_normal_f32(NULL, (float *)device, 4, NULL));
    assert_true(conf_rng_offset() == 0);
    conf_device_free(device);
}

void test_rng_fill_after_freed_refused(void **state)
{
    uint32_t *device = conf_device_alloc(16 * sizeof(uint32_t));
    (void)state;
    conf_device_free(device);
    assert_ok(accel_manual_seed(conformance_acc, 15));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_rng_u32(conformance_acc, device, 16, NULL));
    assert_true(conf_rng_offset() == 0);
}

void test_rng_fill_on_created_stream(void **state)
{
    uint32_t expected[40], got[40];
    uint32_t *device;
    accel_stream_t *stream = NULL;
    (void)state;
    conf_require_streams();
    assert_ok(accel_manual_seed(conformance_acc, 16));
    conf_rng_u32(expected, 40);
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    device = conf_device_alloc(sizeof got);
    assert_ok(accel_manual_seed(conformance_acc, 16));
    assert_ok(accel_rng_u32(conformance_acc, device, 40, stream));
    assert_ok(accel_stream_synchronize(stream));
    conf_to_host(got, device, sizeof got);
    assert_memory_equal(expected, got, sizeof got);
    conf_device_free(device);
    assert_ok(accel_stream_destroy(stream));
}

/* Set the current device's offset (seed 21), as a crafted state blob can. */
static void rng_set_offset(uint64_t offset)
{
    uint8_t blob[ACCEL_RNG_STATE_SIZE] = {21};
    for (int i = 0; i < 8; i++)
        blob[8 + i] = (uint8_t)(offset >> (8 * i));
    assert_ok(accel_set_rng_state(conformance_acc, ACCEL_CURRENT_DEVICE, blob, sizeof blob));
}

/* Consecutive fills never overlap, so a fill whose words would pass offset
 * 2^64 - 1 (and wrap to 0) is refused, reserving nothing. */
void test_rng_fill_offset_wrap_refused(void **state)
{
    uint8_t saved[ACCEL_RNG_STATE_SIZE];
    uint32_t *device = conf_device_alloc(16 * sizeof(uint32_t));
    (void)state;
    rng_state(saved);
    rng_set_offset(UINT64_MAX - 15);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_rng_u32(conformance_acc, device, 16, NULL));
    assert_non_null(strstr(accel_last_error(), "offset"));
    assert_true(conf_rng_offset() == UINT64_MAX - 15);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_rng_normal_f32(conformance_acc, (float *)device, 7, NULL));
    assert_ok(accel_rng_u32(conformance_acc, device, 12, NULL)); /* up to the last 4 words */
    assert_ok(accel_synchronize(conformance_acc, ACCEL_CURRENT_DEVICE));
    assert_true(conf_rng_offset() == UINT64_MAX - 3);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_rng_u32(conformance_acc, device, 1, NULL));
    assert_true(conf_rng_offset() == UINT64_MAX - 3);
    assert_ok(accel_set_rng_state(conformance_acc, ACCEL_CURRENT_DEVICE, saved, sizeof saved));
    conf_device_free(device);
}

/* Fills write 4-byte words: a destination off a 4-byte boundary is refused,
 * reserving nothing. */
void test_rng_fill_misaligned_refused(void **state)
{
    char *device = conf_device_alloc(64);
    (void)state;
    assert_ok(accel_manual_seed(conformance_acc, 17));
    for (size_t shift = 1; shift < 4; shift++) {
        assert_status(
            ACCEL_ERROR_INVALID_ARGUMENT,
            accel_rng_u32(conformance_acc, (uint32_t *)(void *)(device + shift), 4, NULL));
        assert_non_null(strstr(accel_last_error(), "aligned"));
        assert_status(
            ACCEL_ERROR_INVALID_ARGUMENT,
            accel_rng_uniform_f32(conformance_acc, (float *)(void *)(device + shift), 4, NULL));
        assert_status(
            ACCEL_ERROR_INVALID_ARGUMENT,
            accel_rng_normal_f32(conformance_acc, (float *)(void *)(device + shift), 4, NULL));
    }
    assert_true(conf_rng_offset() == 0);
    assert_ok(accel_rng_u32(conformance_acc, (uint32_t *)(void *)(device + 4), 4, NULL));
    assert_ok(accel_synchronize(conformance_acc, ACCEL_CURRENT_DEVICE));
    conf_device_free(device);
}
