/* fuzz_tensor.h: a DLTensor descriptor from fuzz input, for the harnesses
 * that hand tensors to accel (fuzz_adam_tensors, fuzz_tensor_calls). Each
 * field is fuzzed (device, ndim, shape, strides, dtype, byte_offset), and the
 * harness is told the bytes the descriptor claims, worked out with its own
 * overflow checks:
 * - CLAIM_FITS: `bytes` (byte_offset + elements * element size, up to
 *   1 MiB): give a buffer of exactly that size; the call may succeed or
 *   refuse, and ASan sees any byte it touches outside it;
 * - CLAIM_IMPOSSIBLE (negative extent, overflow, strides that are not
 *   compact row-major): the call must refuse;
 * - CLAIM_TOO_BIG: possible but larger than 1 MiB: not tried.
 * Header-only (static functions), single-threaded. */
#ifndef ACCEL_FUZZ_TENSOR_H
#define ACCEL_FUZZ_TENSOR_H

#include "fuzz.h"

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

static inline int64_t fuzz_dim(fuzz_reader_t *r)
{
    uint8_t pick = fuzz_u8(r);
    if (pick < 0xf0)
        return pick % 9;         /* mostly small */
    return (int64_t)fuzz_u64(r); /* anything, negative and huge included */
}

static inline void fuzz_tensor_read(fuzz_tensor_t *f, fuzz_reader_t *r)
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

#endif /* ACCEL_FUZZ_TENSOR_H */
