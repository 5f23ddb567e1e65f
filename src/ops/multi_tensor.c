/* multi_tensor.c: the checks of a step over tensor lists (step_multi in
 * accel_ops.h, DeepSpeed's multi_tensor_apply): every entry is checked as one
 * step would check it before any entry runs, so a bad entry anywhere changes
 * nothing. Stateless; any thread. */
#include <stdint.h>
#include <stdio.h>

#include "core/core.h"
#include "core/error.h"
#include "ops/ops.h"

/* Device kernels read typed pointers: each tensor aligned to its elements. */
static accel_status_t lists_check_alignment(const char *op, size_t index,
                                            const accel_optim_view_t *view)
{
    const void *ptrs[4] = {view->param, view->grad, view->state1, view->state2};
    accel_dtype_t dtypes[4] = {view->param_dtype, view->param_dtype, view->state_dtype,
                               view->state_dtype};
    size_t n = view->state2 != NULL ? 4 : 3;
    for (size_t k = 0; k < n; k++) {
        if ((uintptr_t)ptrs[k] % accel_optim_dtype_size(dtypes[k]) != 0)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: tensor list entry %zu: a tensor's data (with byte_offset) is "
                               "not aligned to its %zu-byte elements",
                               op, index, accel_optim_dtype_size(dtypes[k]));
    }
    return ACCEL_OK;
}

accel_status_t accel_optim_lists_check(const char *op, accel_t *acc, accel_optim_memory_t memory,
                                       size_t count, const DLTensor *params, const DLTensor *grads,
                                       const DLTensor *states1, const DLTensor *states2,
                                       size_t state_count)
{
    int device = 0;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK || count == 0)
        return status;
    if (params == NULL || grads == NULL || states1 == NULL || (state_count == 2 && states2 == NULL))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: %zu entries but a tensor list is NULL", op, count);
    for (size_t i = 0; i < count; i++) {
        accel_optim_view_t view;
        status = accel_optim_view_make(op, acc, memory, &params[i], &grads[i], &states1[i],
                                       state_count == 2 ? &states2[i] : NULL, state_count, &view);
        if (status != ACCEL_OK) {
            char prefix[48];
            snprintf(prefix, sizeof prefix, "tensor list entry %zu: ", i);
            accel_error_prefix(prefix);
            return status;
        }
        if (memory != ACCEL_OPTIM_DEVICE_MEMORY)
            continue;
        if (i == 0)
            device = view.device;
        else if (view.device != device)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: tensor list entry %zu is on device %d but entry 0 is on "
                               "device %d; one call steps one device",
                               op, i, view.device, device);
        status = lists_check_alignment(op, i, &view);
        if (status != ACCEL_OK)
            return status;
    }
    return ACCEL_OK;
}
