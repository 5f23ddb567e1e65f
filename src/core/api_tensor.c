/* api_tensor.c: DLPack tensors allocated through accel, and on_accelerator.
 * A tensor from accel_tensor_empty owns its data (caching allocator) and its
 * shape array (heap); accel_tensor_free releases both, and accel_free refuses
 * the data (its block is marked tensor-owned). Strides are NULL
 * (compact row-major). Thread-safe like the allocator. */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "error.h"
#include "tensor_check.h"

static accel_status_t tensor_bytes(accel_dtype_t dtype, int32_t ndim, const int64_t *shape,
                                   size_t *out)
{
    DLDataType dl;
    size_t bytes;
    accel_status_t status = accel_dtype_to_dlpack(dtype, &dl);
    if (status != ACCEL_OK)
        return status;
    if (ndim < 0 || ndim > ACCEL_TENSOR_MAX_NDIM || (ndim > 0 && shape == NULL))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "tensor needs 0..%d dimensions and a shape array (got ndim %d%s)",
                           ACCEL_TENSOR_MAX_NDIM, ndim, shape == NULL ? ", shape NULL" : "");
    bytes = dl.bits / 8;
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "tensor dimension %d is negative (%lld)", i, (long long)shape[i]);
        if (shape[i] != 0 && bytes > SIZE_MAX / (size_t)shape[i])
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "tensor size overflows size_t");
        bytes *= (size_t)shape[i];
    }
    *out = bytes;
    return ACCEL_OK;
}

static accel_status_t tensor_make(accel_t *acc, int device, accel_dtype_t dtype, int32_t ndim,
                                  const int64_t *shape, bool zero, DLTensor *out)
{
    size_t bytes = 0;
    int64_t *shape_copy;
    void *data = NULL;
    accel_stream_t *stream;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output tensor is NULL");
    status = accel_resolve_device(acc, device, &device);
    if (status == ACCEL_OK)
        status = tensor_bytes(dtype, ndim, shape, &bytes);
    if (status == ACCEL_OK)
        status = accel_default_stream(acc, device, &stream);
    if (status != ACCEL_OK)
        return status;
    shape_copy = malloc(sizeof *shape_copy * (size_t)(ndim > 0 ? ndim : 1));
    if (shape_copy == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory for a tensor shape");
    if (ndim > 0)
        memcpy(shape_copy, shape, sizeof *shape_copy * (size_t)ndim);
    status = accel_malloc_async(acc, bytes, stream, &data);
    if (status == ACCEL_OK && data != NULL)
        accel_allocator_set_tensor_owned(acc->devices[device].allocator, data, true);
    if (status == ACCEL_OK && zero && bytes > 0)
        status = accel_memset_async(acc, data, 0, bytes, stream);
    if (status == ACCEL_OK && zero)
        status = accel_stream_synchronize(stream);
    if (status != ACCEL_OK) {
        accel_memory_free_tensor_data(acc, data);
        free(shape_copy);
        return status;
    }
    DLDataType dl;
    accel_dtype_to_dlpack(dtype, &dl);
    *out = (DLTensor){.data = data,
                      .device = {.device_type = (DLDeviceType)acc->ops->info->dlpack_device_type,
                                 .device_id = device},
                      .ndim = ndim,
                      .dtype = dl,
                      .shape = shape_copy,
                      .strides = NULL,
                      .byte_offset = 0};
    return ACCEL_OK;
}

accel_status_t accel_tensor_empty(accel_t *acc, int device, accel_dtype_t dtype, int32_t ndim,
                                  const int64_t *shape, DLTensor *out)
{
    return tensor_make(acc, device, dtype, ndim, shape, false, out);
}

accel_status_t accel_tensor_zeros(accel_t *acc, int device, accel_dtype_t dtype, int32_t ndim,
                                  const int64_t *shape, DLTensor *out)
{
    return tensor_make(acc, device, dtype, ndim, shape, true, out);
}

/* Copy `data` into a new tensor's memory on its device's default stream
 * (the stream the tensor was made on), then wait: the bytes are in place when
 * the call returns. */
accel_status_t accel_tensor_from_host(accel_t *acc, int device, accel_dtype_t dtype, int32_t ndim,
                                      const int64_t *shape, const void *data, DLTensor *out)
{
    size_t bytes = 0;
    accel_stream_t *stream;
    DLTensor tensor;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output tensor is NULL");
    status = tensor_bytes(dtype, ndim, shape, &bytes);
    if (status != ACCEL_OK)
        return status;
    if (data == NULL && bytes > 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "tensor_from_host: data is NULL but the tensor holds %zu bytes", bytes);
    status = tensor_make(acc, device, dtype, ndim, shape, false, &tensor);
    if (status != ACCEL_OK)
        return status;
    status = accel_default_stream(acc, tensor.device.device_id, &stream);
    if (status == ACCEL_OK && bytes > 0)
        status =
            accel_memcpy_async(acc, tensor.data, data, bytes, ACCEL_COPY_HOST_TO_DEVICE, stream);
    if (status == ACCEL_OK)
        status = accel_stream_synchronize(stream);
    if (status != ACCEL_OK) {
        char saved[1024];
        accel_error_copy(saved, sizeof saved);
        accel_tensor_free(acc, &tensor);
        return accel_error(status, "%s", saved);
    }
    *out = tensor;
    return ACCEL_OK;
}

accel_status_t accel_tensor_free(accel_t *acc, DLTensor *tensor)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (tensor == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "tensor is NULL");
    if (tensor->shape == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "tensor has no shape array: not one from accel_tensor_empty, or "
                           "already freed");
    status = accel_memory_free_tensor_data(acc, tensor->data);
    if (status != ACCEL_OK)
        return status;
    free(tensor->shape);
    memset(tensor, 0, sizeof *tensor);
    return ACCEL_OK;
}

accel_status_t accel_on_accelerator(const accel_t *acc, const DLTensor *tensor, bool *out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (tensor == NULL || out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "tensor or output pointer is NULL");
    *out = (int32_t)tensor->device.device_type == acc->ops->info->dlpack_device_type;
    return ACCEL_OK;
}
