/* fuzz_rng_state.c: RNG state blobs from outside (accel_set_rng_state). A
 * blob is refused with nothing changed, or taken as is: reading the state
 * back gives the same bytes, and a fill after it works. */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    accel_t *acc = fuzz_cpu();
    uint8_t before[ACCEL_RNG_STATE_SIZE], after[ACCEL_RNG_STATE_SIZE];
    void *device = NULL;
    accel_status_t status;
    FUZZ_CHECK(accel_get_rng_state(acc, 0, before, sizeof before) == ACCEL_OK);
    status = accel_set_rng_state(acc, 0, data, size);
    FUZZ_CHECK(accel_get_rng_state(acc, 0, after, sizeof after) == ACCEL_OK);
    if (status != ACCEL_OK) {
        FUZZ_CHECK(memcmp(before, after, sizeof after) == 0); /* nothing changed */
        return 0;
    }
    FUZZ_CHECK(size == ACCEL_RNG_STATE_SIZE && memcmp(data, after, size) == 0);
    FUZZ_CHECK(accel_malloc(acc, 64, &device) == ACCEL_OK);
    status = accel_rng_u32(acc, device, 16, NULL);
    FUZZ_CHECK(status == ACCEL_OK || accel_last_error()[0] != '\0');
    FUZZ_CHECK(accel_synchronize(acc, 0) == ACCEL_OK);
    FUZZ_CHECK(accel_free(acc, device) == ACCEL_OK);
    return 0;
}
