/* fuzz_tensor_calls.c: one DLTensor descriptor from outside, as a DLPack
 * producer hands it to the Python package (which passes it on unchanged:
 * python/accel/tensor.py), given to the other calls that share the tensor
 * check (src/core/tensor_check.c): async_io's pwrite (to /dev/null) and
 * pread (from /dev/zero), and pin_memory with a copy. The buffer holds
 * exactly the bytes the descriptor claims (fuzz_tensor.h): an impossible
 * claim must be refused with a sentence, and ASan sees any byte a call
 * touches outside the buffer. */
#include "fuzz_tensor.h"

#include <accel/accel_ops.h>

static const accel_aio_op_t *aio;
static accel_aio_handle_t *handle;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    accel_op_builder_t *builder = NULL;
    const void *table = NULL;
    accel_aio_config_t config = ACCEL_AIO_CONFIG_DEFAULT;
    (void)argc;
    (void)argv;
    fuzz_quiet();
    config.direct = false; /* /dev/null and /dev/zero have no O_DIRECT */
    if (accel_get_op_builder(fuzz_cpu(), "AsyncIOBuilder", &builder) != ACCEL_OK ||
        accel_op_builder_load(builder, &table) != ACCEL_OK)
        abort();
    aio = table;
    if (aio->handle_create(fuzz_cpu(), &config, &handle) != ACCEL_OK)
        abort();
    return 0;
}

static void check_call(accel_status_t status, bool impossible)
{
    if (impossible)
        FUZZ_CHECK(status != ACCEL_OK);
    if (status != ACCEL_OK)
        FUZZ_CHECK(accel_last_error()[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_reader_t r = {data, size};
    fuzz_tensor_t t;
    DLTensor pinned;
    bool freed = false;
    fuzz_tensor_read(&t, &r);
    if (t.claim == CLAIM_TOO_BIG)
        return 0;
    size_t bytes = t.claim == CLAIM_FITS ? t.bytes : SMALL;
    t.buffer = malloc(bytes > 0 ? bytes : 1);
    if (t.buffer == NULL)
        abort();
    memset(t.buffer, 0x3c, bytes > 0 ? bytes : 1);
    t.t.data = (fuzz_u8(&r) & 1) && t.claim == CLAIM_FITS && bytes == 0 ? NULL : t.buffer;
    bool impossible = t.claim == CLAIM_IMPOSSIBLE;
    check_call(aio->pwrite(handle, &t.t, "/dev/null", 0, false), impossible);
    check_call(aio->pread(handle, &t.t, "/dev/zero", 0, false), impossible);
    accel_status_t status = accel_pin_memory(fuzz_cpu(), &t.t, true, true, &pinned);
    check_call(status, impossible);
    if (status == ACCEL_OK)
        FUZZ_CHECK(accel_unpin_memory(fuzz_cpu(), &pinned, &freed) == ACCEL_OK && freed);
    free(t.buffer);
    return 0;
}
