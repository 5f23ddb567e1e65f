/* test_opencl_cross.c: the OpenCL backend against the CPU oracle. Both draw
 * 1e5 elements of each fill kind from the same (seed, non-zero offset) into a
 * non-zero element offset of a buffer: u32 and uniform must match bit for bit,
 * normal within 2 ulp. Exits 77 (skipped) when opencl does not open.
 * `test_opencl_cross --fill-once` opens opencl, does one fill and prints
 * "opencl fill ok": ctest runs it twice to see the kernel cache hit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <accel/accel.h>

#define CROSS_COUNT  100000
#define CROSS_FIRST  3 /* elements into the buffer */
#define CROSS_SEED   0x0123456789abcdefull
#define CROSS_OFFSET 4096u /* stream words already used */
#define SKIP_CODE    77

static accel_t *cross_opencl, *cross_cpu;

typedef accel_status_t (*fill_fn_t)(accel_t *acc, void *ptr, size_t count);

static accel_status_t fill_u32(accel_t *acc, void *ptr, size_t count)
{
    return accel_rng_u32(acc, ptr, count, NULL);
}

static accel_status_t fill_uniform(accel_t *acc, void *ptr, size_t count)
{
    return accel_rng_uniform_f32(acc, ptr, count, NULL);
}

static accel_status_t fill_normal(accel_t *acc, void *ptr, size_t count)
{
    return accel_rng_normal_f32(acc, ptr, count, NULL);
}

/* CROSS_COUNT elements drawn on `acc` from (CROSS_SEED, CROSS_OFFSET). */
static uint32_t *draw(accel_t *acc, fill_fn_t fill)
{
    uint8_t state[ACCEL_RNG_STATE_SIZE];
    size_t bytes = (CROSS_FIRST + CROSS_COUNT) * sizeof(uint32_t);
    uint32_t *host = calloc(CROSS_COUNT, sizeof *host);
    uint32_t *device = NULL;
    for (int i = 0; i < 8; i++) {
        state[i] = (uint8_t)(CROSS_SEED >> (8 * i));
        state[8 + i] = (uint8_t)((uint64_t)CROSS_OFFSET >> (8 * i));
    }
    assert_non_null(host);
    assert_int_equal(accel_malloc(acc, bytes, (void **)&device), ACCEL_OK);
    assert_int_equal(accel_set_rng_state(acc, ACCEL_CURRENT_DEVICE, state, sizeof state), ACCEL_OK);
    assert_int_equal(fill(acc, device + CROSS_FIRST, CROSS_COUNT), ACCEL_OK);
    assert_int_equal(accel_memcpy(acc, host, device + CROSS_FIRST, CROSS_COUNT * sizeof *host,
                                  ACCEL_COPY_DEVICE_TO_HOST),
                     ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    return host;
}

static void test_u32_and_uniform_bit_identical(void **state)
{
    fill_fn_t fills[] = {fill_u32, fill_uniform};
    (void)state;
    for (size_t f = 0; f < 2; f++) {
        uint32_t *got = draw(cross_opencl, fills[f]), *want = draw(cross_cpu, fills[f]);
        for (size_t i = 0; i < CROSS_COUNT; i++) {
            if (got[i] != want[i])
                fail_msg("fill %zu element %zu: opencl %08x, cpu %08x", f, i, got[i], want[i]);
        }
        free(got);
        free(want);
    }
}

/* Distance in representable floats (bit patterns mapped to a monotone line). */
static int64_t ulp_distance(uint32_t a, uint32_t b)
{
    int64_t x = (a & 0x80000000u) ? -(int64_t)(a & 0x7fffffffu) : (int64_t)a;
    int64_t y = (b & 0x80000000u) ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b;
    return x > y ? x - y : y - x;
}

static void test_normal_within_2_ulp(void **state)
{
    uint32_t *got = draw(cross_opencl, fill_normal), *want = draw(cross_cpu, fill_normal);
    int64_t worst = 0;
    size_t differ = 0;
    (void)state;
    for (size_t i = 0; i < CROSS_COUNT; i++) {
        int64_t d = ulp_distance(got[i], want[i]);
        differ += d != 0;
        worst = d > worst ? d : worst;
        if (d > 2)
            fail_msg("normal element %zu: opencl %08x, cpu %08x (%lld ulp)", i, got[i], want[i],
                     (long long)d);
    }
    print_message("normal: %zu of %d elements differ, worst %lld ulp\n", differ, CROSS_COUNT,
                  (long long)worst);
    free(got);
    free(want);
}

static int fill_once(void)
{
    void *device = NULL;
    accel_status_t status = accel_malloc(cross_opencl, 4096, &device);
    if (status == ACCEL_OK)
        status = accel_rng_uniform_f32(cross_opencl, device, 1024, NULL);
    if (status == ACCEL_OK)
        status = accel_synchronize(cross_opencl, ACCEL_CURRENT_DEVICE);
    accel_free(cross_opencl, device);
    accel_close(cross_opencl);
    if (status != ACCEL_OK) {
        fprintf(stderr, "opencl fill failed: %s\n", accel_last_error());
        return 1;
    }
    printf("opencl fill ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u32_and_uniform_bit_identical),
        cmocka_unit_test(test_normal_within_2_ulp),
    };
    int failures;
    if (accel_open("opencl", &cross_opencl) != ACCEL_OK) {
        printf("opencl unavailable, skipping: %s\n", accel_last_error());
        return SKIP_CODE;
    }
    if (argc > 1 && strcmp(argv[1], "--fill-once") == 0)
        return fill_once();
    if (accel_open("cpu", &cross_cpu) != ACCEL_OK) {
        fprintf(stderr, "cpu backend did not open: %s\n", accel_last_error());
        return 1;
    }
    failures = cmocka_run_group_tests(tests, NULL, NULL);
    accel_close(cross_opencl);
    accel_close(cross_cpu);
    return failures == 0 ? 0 : 1;
}
