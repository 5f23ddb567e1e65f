/* device_philox.c: the device's random numbers against the cpu backend's,
 * the reference of the one generator every backend shares
 * (docs/architecture.md, Random numbers): the same seed and offset give
 * the same u32 words and the same uniform floats, bit for bit, at counts
 * and offsets that cross the 4-word Philox blocks, on a large fill too. */
#include <stdlib.h>

#include "conformance.h"

typedef enum philox_kind { PHILOX_U32, PHILOX_UNIFORM } philox_kind_t;

/* `count` words of `acc`'s current device from (seed, offset), copied back. */
static void philox_fill(accel_t *acc, philox_kind_t kind, uint64_t seed, uint64_t offset,
                        uint32_t *out, size_t count)
{
    uint8_t blob[ACCEL_RNG_STATE_SIZE];
    void *device = NULL;
    for (int i = 0; i < 8; i++) {
        blob[i] = (uint8_t)(seed >> (8 * i));
        blob[8 + i] = (uint8_t)(offset >> (8 * i));
    }
    assert_ok(accel_set_rng_state(acc, ACCEL_CURRENT_DEVICE, blob, sizeof blob));
    assert_ok(accel_malloc(acc, count * sizeof *out, &device));
    if (kind == PHILOX_U32)
        assert_ok(accel_rng_u32(acc, device, count, NULL));
    else
        assert_ok(accel_rng_uniform_f32(acc, device, count, NULL));
    assert_ok(accel_synchronize(acc, ACCEL_CURRENT_DEVICE));
    assert_ok(accel_memcpy(acc, out, device, count * sizeof *out, ACCEL_COPY_DEVICE_TO_HOST));
    assert_ok(accel_free(acc, device));
}

static void philox_compare(accel_t *cpu, philox_kind_t kind, uint64_t seed, uint64_t offset,
                           size_t count)
{
    uint32_t *got = malloc(count * sizeof *got), *want = malloc(count * sizeof *want);
    assert_non_null(got);
    assert_non_null(want);
    philox_fill(conformance_acc, kind, seed, offset, got, count);
    philox_fill(cpu, kind, seed, offset, want, count);
    for (size_t i = 0; i < count; i++)
        if (got[i] != want[i])
            fail_msg("%s word %zu of seed 0x%llx at offset %llu is 0x%08x; the cpu backend gives "
                     "0x%08x",
                     kind == PHILOX_U32 ? "u32" : "uniform f32", i, (unsigned long long)seed,
                     (unsigned long long)offset, got[i], want[i]);
    free(got);
    free(want);
}

void check_device_philox_matches_cpu(void **state)
{
    static const uint64_t seeds[] = {0, 1, 42, 0x123456789abcdef0ull, UINT64_MAX};
    static const uint64_t offsets[] = {0, 4, 12, 1ull << 32, (1ull << 40) + 8};
    static const size_t counts[] = {1, 3, 5, 17, 1000};
    accel_t *cpu = NULL;
    (void)state;
    assert_ok(accel_open("cpu", &cpu));
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++)
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                philox_compare(cpu, PHILOX_U32, seeds[s], offsets[o], counts[c]);
                philox_compare(cpu, PHILOX_UNIFORM, seeds[s], offsets[o], counts[c]);
            }
    /* One large fill: the device's parallel split must join seamlessly. */
    philox_compare(cpu, PHILOX_U32, 7, 8, (1u << 20) + 3);
    assert_ok(accel_close(cpu));
}
