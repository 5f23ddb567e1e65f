/* tensor_check.c: the shared check of DLPack tensors handed to the API
 * (tensor_check.h): layout, size, address-space bounds and placement.
 * Stateless; safe from any thread. */
#include <stdint.h>
#include <stdio.h>

#include "core.h"
#include "error.h"
#include "tensor_check.h"

/* Shape and strides: element count (0 for an empty tensor), or a refusal. */
static accel_status_t span_count(const char *label, const DLTensor *t, size_t element_bytes,
                                 size_t *out)
{
    size_t count = 1;
    int64_t expected_stride = 1;
    bool empty = false;
    for (int32_t i = 0; i < t->ndim; i++) {
        if (t->shape[i] < 0)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s tensor has a negative extent (%lld) in dimension %d", label,
                               (long long)t->shape[i], i);
        empty = empty || t->shape[i] == 0;
    }
    if (empty) { /* nothing to address: no size can overflow, no stride is read */
        *out = 0;
        return ACCEL_OK;
    }
    for (int32_t i = t->ndim - 1; i >= 0; i--) {
        int64_t extent = t->shape[i];
        if (t->strides != NULL && extent > 1 && t->strides[i] != expected_stride)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s tensor is not contiguous (stride %lld in dimension %d, "
                               "expected %lld); pass a compact row-major tensor",
                               label, (long long)t->strides[i], i, (long long)expected_stride);
        if (count > (size_t)PTRDIFF_MAX / element_bytes / (size_t)extent)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s tensor size overflows: its extents multiply past %lld bytes",
                               label, (long long)PTRDIFF_MAX);
        count *= (size_t)extent;
        expected_stride *= extent; /* <= count: cannot overflow */
    }
    *out = count;
    return ACCEL_OK;
}

accel_status_t accel_tensor_span_check(const char *label, const DLTensor *t,
                                       accel_tensor_span_t *out)
{
    size_t count = 0, element_bytes;
    uintptr_t base;
    accel_status_t status;
    if (t == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s tensor is NULL", label);
    if (t->ndim < 0 || t->ndim > ACCEL_TENSOR_MAX_NDIM || (t->ndim > 0 && t->shape == NULL))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s tensor has a bad shape (ndim %d%s; 0..%d dimensions with a shape "
                           "array)",
                           label, (int)t->ndim, t->shape == NULL ? ", shape NULL" : "",
                           ACCEL_TENSOR_MAX_NDIM);
    if (t->dtype.bits == 0 || t->dtype.bits % 8 != 0 || t->dtype.lanes == 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s tensor elements of %u bits x %u lanes are not whole bytes", label,
                           (unsigned)t->dtype.bits, (unsigned)t->dtype.lanes);
    element_bytes = (size_t)(t->dtype.bits / 8) * t->dtype.lanes;
    if ((status = span_count(label, t, element_bytes, &count)) != ACCEL_OK)
        return status;
    if (t->data == NULL && count > 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s tensor has no data (data is NULL)",
                           label);
    /* data + byte_offset + bytes must stay inside the address space: a sum
     * that wraps names memory before `data` (or address 0). */
    base = (uintptr_t)t->data;
    if (t->data != NULL && (t->byte_offset > UINTPTR_MAX - base ||
                            count * element_bytes > UINTPTR_MAX - base - t->byte_offset))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s tensor's byte_offset %llu plus its %zu bytes wraps past the end "
                           "of the address space",
                           label, (unsigned long long)t->byte_offset, count * element_bytes);
    out->start = t->data == NULL ? NULL : (char *)t->data + t->byte_offset;
    out->count = count;
    out->bytes = count * element_bytes;
    return ACCEL_OK;
}

static bool host_device_type(int32_t type)
{
    return type == kDLCPU || type == kDLCUDAHost || type == kDLROCMHost;
}

accel_status_t accel_tensor_span_locate(accel_t *acc, const char *label, const DLTensor *t,
                                        const accel_tensor_span_t *span, unsigned allowed,
                                        accel_tensor_memory_t *out_memory, int *out_device)
{
    int32_t own = acc->ops->info->dlpack_device_type;
    int32_t type = (int32_t)t->device.device_type;
    char what[96];
    snprintf(what, sizeof what, "%s tensor", label);
    *out_device = t->device.device_id;
    if ((allowed & ACCEL_TENSOR_HOST) && host_device_type(type)) {
        *out_memory = ACCEL_TENSOR_HOST;
        return span->bytes == 0 ? ACCEL_OK
                                : accel_check_host_range(acc, span->start, span->bytes, what);
    }
    if ((allowed & ACCEL_TENSOR_DEVICE) && type == own) {
        *out_memory = ACCEL_TENSOR_DEVICE;
        return span->bytes == 0
                   ? ACCEL_OK
                   : accel_check_device_range(acc, span->start, span->bytes, what, out_device);
    }
    if (allowed == ACCEL_TENSOR_HOST)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s is not in host memory (DLPack device type %d); host calls take "
                           "kDLCPU or pinned host tensors",
                           what, (int)type);
    if (allowed == ACCEL_TENSOR_DEVICE)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s is not %s memory (DLPack device type %d, expected %d)", what,
                           acc->ops->name, (int)type, (int)own);
    return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                       "%s is neither host memory nor %s memory (DLPack device type %d)", what,
                       acc->ops->name, (int)type);
}
