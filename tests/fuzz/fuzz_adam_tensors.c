/* fuzz_adam_tensors.c: DLTensor descriptors from outside, given to the CPU
 * Adam step (CPUAdamBuilder). Each of the four tensors gets fuzzed fields
 * (device, ndim, shape, strides, dtype, byte_offset), and buffers of
 * exactly the bytes each claims (fuzz_tensor.h): an impossible claim must be
 * refused, and ASan sees any byte the step touches outside the buffers. */
#include "fuzz_tensor.h"

#include <accel/accel_ops.h>

static const accel_adam_op_t *adam;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    accel_op_builder_t *builder = NULL;
    const void *table = NULL;
    (void)argc;
    (void)argv;
    fuzz_quiet();
    if (accel_get_op_builder(fuzz_cpu(), "CPUAdamBuilder", &builder) != ACCEL_OK ||
        accel_op_builder_load(builder, &table) != ACCEL_OK)
        abort();
    adam = table;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_reader_t r = {data, size};
    fuzz_tensor_t t[4];
    accel_adam_config_t config = ACCEL_ADAM_CONFIG_DEFAULT;
    bool impossible = false;
    accel_status_t status;
    for (int i = 0; i < 4; i++) {
        fuzz_tensor_read(&t[i], &r);
        if (t[i].claim == CLAIM_TOO_BIG)
            return 0;
        impossible = impossible || t[i].claim == CLAIM_IMPOSSIBLE;
    }
    for (int i = 0; i < 4; i++) {
        size_t bytes = t[i].claim == CLAIM_FITS ? t[i].bytes : SMALL;
        /* malloc(0) may return NULL; a NULL data pointer is its own case */
        t[i].buffer = malloc(bytes > 0 ? bytes : 1);
        if (t[i].buffer == NULL)
            abort();
        memset(t[i].buffer, 0x3c, bytes > 0 ? bytes : 1); /* small finite halves and floats */
        t[i].t.data = t[i].buffer;
    }
    status = adam->step(fuzz_cpu(), NULL, &config, 1 + fuzz_u8(&r) % 3, &t[0].t, &t[1].t, &t[2].t,
                        &t[3].t);
    if (impossible)
        FUZZ_CHECK(status != ACCEL_OK);
    if (status != ACCEL_OK)
        FUZZ_CHECK(accel_last_error()[0] != '\0');
    for (int i = 0; i < 4; i++)
        free(t[i].buffer);
    return 0;
}
