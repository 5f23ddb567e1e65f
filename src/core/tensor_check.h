/* tensor_check.h: the one check of a DLPack tensor that the API is handed
 * (async_io's pread/pwrite, every optimizer step, pin_memory): its layout,
 * its size without overflow, its bytes inside the address space, and where
 * it lives. Every tensor-taking call uses it, so a hostile byte_offset or
 * shape is refused the same way everywhere (tensor_check.c).
 * Stateless; safe from any thread. Nothing here touches tensor data. */
#ifndef ACCEL_CORE_TENSOR_CHECK_H
#define ACCEL_CORE_TENSOR_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "accel/accel.h"

/* The most dimensions a tensor accel makes or takes may have. */
#define ACCEL_TENSOR_MAX_NDIM 32

/* A checked tensor: where its bytes are and how many. */
typedef struct accel_tensor_span {
    char *start;  /* data + byte_offset; NULL when data is NULL (then bytes is 0) */
    size_t count; /* elements; 0 when any extent is 0 */
    size_t bytes; /* count * element size */
} accel_tensor_span_t;

/* Check `t`'s layout: not NULL, 0..ACCEL_TENSOR_MAX_NDIM dimensions with a
 * shape array, no negative extent, compact row-major (strides NULL, or each
 * dimension of extent > 1 strided by the product of the later extents; an
 * empty tensor's strides are not read), elements of whole bytes, a size that
 * fits in PTRDIFF_MAX, data when the size is not 0, and data + byte_offset +
 * size not wrapping past the end of the address space. Fills *out.
 * INVALID_ARGUMENT with "<label> tensor ..." otherwise. */
accel_status_t accel_tensor_span_check(const char *label, const DLTensor *t,
                                       accel_tensor_span_t *out);

/* Where a tensor may live for a call. */
typedef enum accel_tensor_memory {
    ACCEL_TENSOR_HOST = 1,   /* kDLCPU, kDLCUDAHost or kDLROCMHost */
    ACCEL_TENSOR_DEVICE = 2, /* the accelerator's own DLPack device type */
} accel_tensor_memory_t;

/* Check where a spanned tensor lives, among `allowed` (a mask of
 * accel_tensor_memory_t). Host memory must not be device memory the host
 * cannot address (accel_check_host_range: a kDLCPU label on a device
 * pointer is refused); device memory must lie inside one live block of this
 * accelerator (accel_check_device_range). Writes ACCEL_TENSOR_HOST or
 * ACCEL_TENSOR_DEVICE into *out_memory and the device index (the label's
 * device_id for host memory and empty tensors) into *out_device. */
accel_status_t accel_tensor_span_locate(accel_t *acc, const char *label, const DLTensor *t,
                                        const accel_tensor_span_t *span, unsigned allowed,
                                        accel_tensor_memory_t *out_memory, int *out_device);

#endif /* ACCEL_CORE_TENSOR_CHECK_H */
