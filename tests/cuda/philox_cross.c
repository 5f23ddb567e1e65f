/* philox_cross.c: the CUDA backend's Philox fills against the CPU backend's
 * (the oracle, src/core/philox.c): u32 and uniform bit for bit, normal
 * within 2 ulp, for several stream offsets (accel's states keep them
 * multiples of 4 words, so every fill starts on a Philox block) and sizes
 * up to 1e6 elements. Exit 0 pass, 1 fail, 77 when cuda does not open.
 * Prints the worst normal difference seen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel.h>

#define SEED 0x0123456789abcdefull

static int set_state(accel_t *acc, uint64_t seed, uint64_t offset)
{
    uint8_t state[ACCEL_RNG_STATE_SIZE];
    for (int i = 0; i < 8; i++) {
        state[i] = (uint8_t)(seed >> (8 * i));
        state[8 + i] = (uint8_t)(offset >> (8 * i));
    }
    return accel_set_rng_state(acc, ACCEL_CURRENT_DEVICE, state, sizeof state) == ACCEL_OK;
}

/* Fill `count` elements of `kind` (0 u32, 1 uniform, 2 normal) into host `out`. */
static int fill(accel_t *acc, int kind, size_t count, uint64_t offset, uint32_t *out)
{
    void *device = NULL;
    accel_status_t status = accel_malloc(acc, count * 4, &device);
    if (status == ACCEL_OK && !set_state(acc, SEED, offset))
        status = ACCEL_ERROR_INTERNAL;
    if (status == ACCEL_OK)
        status = kind == 0   ? accel_rng_u32(acc, device, count, NULL)
                 : kind == 1 ? accel_rng_uniform_f32(acc, device, count, NULL)
                             : accel_rng_normal_f32(acc, device, count, NULL);
    if (status == ACCEL_OK)
        status = accel_memcpy(acc, out, device, count * 4, ACCEL_COPY_DEVICE_TO_HOST);
    if (status != ACCEL_OK)
        fprintf(stderr, "%s fill: %s\n", accel_name(acc), accel_last_error());
    accel_free(acc, device);
    return status == ACCEL_OK;
}

/* Distance in ulp between two floats of the same sign (bit patterns). */
static uint32_t ulp_distance(uint32_t a, uint32_t b)
{
    int64_t x = (a & 0x80000000u) ? -(int64_t)(a & 0x7fffffffu) : (int64_t)a;
    int64_t y = (b & 0x80000000u) ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b;
    int64_t d = x > y ? x - y : y - x;
    return d > 0xffffffff ? 0xffffffffu : (uint32_t)d;
}

int main(void)
{
    static const uint64_t offsets[] = {0, 4, 8, 4096, 1000004, 1ull << 40};
    static const size_t counts[] = {1, 2, 3, 5, 17, 1000, 1000000};
    static const char *const kinds[] = {"u32", "uniform", "normal"};
    accel_t *cpu = NULL, *cuda = NULL;
    uint32_t *a, *b;
    uint32_t worst = 0;
    size_t off_by_one = 0, compared = 0;
    int failures = 0, broken = 0; /* broken: a fill or the setup failed */

    if (accel_open("cuda", &cuda) != ACCEL_OK) {
        printf("SKIP: cuda does not open: %s\n", accel_last_error());
        return 77;
    }
    a = malloc(1000000 * 4);
    b = malloc(1000000 * 4);
    if (a == NULL || b == NULL || accel_open("cpu", &cpu) != ACCEL_OK) {
        fprintf(stderr, "setup failed: %s\n", accel_last_error());
        broken = 1;
    }
    for (int kind = 0; kind < 3 && !broken; kind++) {
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0] && !broken; o++) {
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                size_t n = counts[c], bad = 0;
                if (!fill(cpu, kind, n, offsets[o], a) || !fill(cuda, kind, n, offsets[o], b)) {
                    broken = 1;
                    break;
                }
                for (size_t i = 0; i < n; i++) {
                    uint32_t d = kind == 2 ? ulp_distance(a[i], b[i]) : (a[i] != b[i]);
                    if (kind == 2 && d > worst)
                        worst = d;
                    if (kind == 2 && d == 1)
                        off_by_one++;
                    if ((kind < 2 && d != 0) || d > 2) {
                        if (bad++ < 3)
                            fprintf(stderr,
                                    "%s offset %llu count %zu: element %zu cpu %08x cuda %08x\n",
                                    kinds[kind], (unsigned long long)offsets[o], n, i, a[i], b[i]);
                    }
                }
                compared += n;
                failures += bad != 0;
            }
        }
        printf("%-8s %s\n", kinds[kind], failures ? "MISMATCH" : "identical to cpu");
    }
    printf("normal: worst difference %u ulp; %zu values 1 ulp apart; %zu values compared\n", worst,
           off_by_one, compared);
    if (cpu != NULL)
        accel_close(cpu);
    accel_close(cuda);
    free(a);
    free(b);
    printf("%s\n", failures || broken ? "FAIL" : "PASS");
    return failures || broken ? 1 : 0;
}
