/* fuzz_adam_tensors.c: DLTensor descriptors from outside, given to the CPU
 * Adam step (CPUAdamBuilder). Each of the four tensors gets fuzzed fields
 * (device, ndim, shape, strides, dtype, byte_offset). The harness works out
 * the bytes each descriptor claims, with its own overflow checks:
 * - all claims fit (up to 1 MiB each): buffers of exactly those sizes are
 *   given, the step may succeed or refuse, and ASan sees any byte it touches
 *   outside them;
 * - a claim is impossible (negative extent, overflow, strides that are not
 *   compact row-major): the step must refuse, writing nothing;
 * - a claim is possible but larger than 1 MiB: not tried. */
#include "fuzz.h"

#include <accel/accel_ops.h>

enum { MAX_DIMS = 128, MAX_BYTES = 1 << 20, SMALL = 64 };

typedef enum claim { CLAIM_FITS, CLAIM_IMPOSSIBLE, CLAIM_TOO_BIG } claim_t;

typedef struct fuzz_tensor {
    DLTensor t;
    int64_t shape[MAX_DIMS];
    int64_t strides[MAX_DIMS];
    size_t bytes; /* byte_offset + elements * element size, when CLAIM_FITS */
    claim_t claim;
    unsigned char *buffer;
} fuzz_tensor_t;

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

static int64_t fuzz_dim(fuzz_reader_t *r)
{
    uint8_t pick = fuzz_u8(r);
    if (pick < 0xf0)
        return pick % 9;         /* mostly small */
    return (int64_t)fuzz_u64(r); /* anything, negative and huge included */
}

static void fuzz_tensor_read(fuzz_tensor_t *f, fuzz_reader_t *r)
{
    uint8_t flags = fuzz_u8(r);
    uint8_t dtype = fuzz_u8(r);
    static const DLDataType dtypes[] = {{kDLFloat, 32, 1}, {kDLFloat, 16, 1}, {kDLBfloat, 16, 1}};
    uint64_t elements = 1;
    unsigned element_bytes;
    bool bad_strides = false;
    memset(f, 0, sizeof *f);
    f->t.device.device_type = (flags & 0x01) ? (DLDeviceType)fuzz_u8(r) : kDLCPU;
    f->t.device.device_id = (flags & 0x02) ? (int32_t)fuzz_u8(r) - 1 : 0;
    /* mostly 0 to 4; with the flag any int8, negative included (the arrays
     * below hold 128 dims, so even a wrong ndim never reads past them) */
    f->t.ndim = (flags & 0x04) ? (int32_t)(int8_t)fuzz_u8(r) : fuzz_u8(r) % 5;
    if (dtype < 0xf0) {
        f->t.dtype = dtypes[dtype % 3];
    } else {
        f->t.dtype.code = fuzz_u8(r);
        f->t.dtype.bits = fuzz_u8(r);
        f->t.dtype.lanes = (uint16_t)(fuzz_u8(r) | fuzz_u8(r) << 8);
    }
    f->t.byte_offset = (flags & 0x08) ? fuzz_u64(r) : (uint64_t)(fuzz_u8(r) % 4) * 4;
    f->t.shape = f->shape;
    f->t.strides = (flags & 0x10) ? f->strides : NULL;
    f->claim = CLAIM_FITS;
    if (f->t.ndim < 0) {
        f->claim = CLAIM_IMPOSSIBLE;
        return;
    }
    for (int d = 0; d < f->t.ndim; d++)
        f->shape[d] = fuzz_dim(r);
    /* compact row-major strides, unless the input breaks one */
    for (int d = f->t.ndim - 1; d >= 0; d--) {
        int64_t next = d == f->t.ndim - 1 ? 1 : f->shape[d + 1];
        if (d == f->t.ndim - 1 ||
            __builtin_mul_overflow(f->strides[d + 1], next > 0 ? next : 1, &f->strides[d]))
            f->strides[d] = 1;
    }
    if ((flags & 0x10) && (flags & 0x20) && f->t.ndim > 0) {
        int d = fuzz_u8(r) % f->t.ndim;
        int64_t changed = (int64_t)fuzz_u64(r);
        bad_strides = changed != f->strides[d] && f->shape[d] > 1;
        f->strides[d] = changed;
    }
    for (int d = 0; d < f->t.ndim; d++) {
        if (f->shape[d] < 0) {
            f->claim = CLAIM_IMPOSSIBLE;
            return;
        }
    }
    /* a zero extent anywhere: empty, whatever the others multiply to */
    for (int d = 0; d < f->t.ndim && elements > 0; d++) {
        if (f->shape[d] == 0)
            elements = 0;
    }
    for (int d = 0; d < f->t.ndim && elements > 0; d++) {
        if (__builtin_mul_overflow(elements, (uint64_t)f->shape[d], &elements)) {
            f->claim = CLAIM_IMPOSSIBLE;
            return;
        }
    }
    if (bad_strides && elements > 0) {
        f->claim = CLAIM_IMPOSSIBLE; /* non-compact strides over real elements */
        return;
    }
    element_bytes = (unsigned)f->t.dtype.bits * f->t.dtype.lanes / 8;
    if (__builtin_mul_overflow(elements, (uint64_t)element_bytes, &elements) ||
        __builtin_add_overflow(elements, f->t.byte_offset, &elements)) {
        f->claim = CLAIM_IMPOSSIBLE;
        return;
    }
    if (elements > MAX_BYTES) {
        f->claim = CLAIM_TOO_BIG;
        return;
    }
    f->bytes = (size_t)elements;
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
