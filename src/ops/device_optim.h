/* device_optim.h: what a device optimizer op (fused_adam, fused_lion of a
 * backend with memory of its own) checks besides ops.h's tensor view: that
 * the accelerator is the backend its table belongs to, and where the step
 * runs (a stream on the tensors' device, every tensor aligned to its
 * elements, as the kernels read them through typed pointers). Stateless;
 * safe from any thread. Library-internal (uses core's private layout). */
#ifndef ACCEL_OPS_DEVICE_OPTIM_H
#define ACCEL_OPS_DEVICE_OPTIM_H

#include <stdint.h>

#include "core/core.h"
#include "core/error.h"
#include "ops/ops.h"

/* INVALID_ARGUMENT unless `acc` is a live accelerator of backend `ops`. */
static inline accel_status_t accel_device_optim_check_backend(const char *op, accel_t *acc,
                                                              const accel_backend_ops_t *ops)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (acc->ops != ops)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: this op table belongs to the %s backend but the accelerator "
                           "handle is %s; load the op from that accelerator's builder",
                           op, ops->name, acc->ops->name);
    return ACCEL_OK;
}

/* The stream a validated step queues on (`stream`, or the calling thread's
 * current stream when NULL) in *out. With elements to update, the stream
 * must be on the tensors' device and each tensor aligned to its element
 * size; an empty step only resolves the stream. */
static inline accel_status_t accel_device_optim_stream(const char *op, accel_t *acc,
                                                       accel_stream_t *stream,
                                                       const accel_optim_view_t *view,
                                                       accel_stream_t **out)
{
    static const char *const names[4] = {"param", "grad", "exp_avg", "exp_avg_sq"};
    const void *ptrs[4] = {view->param, view->grad, view->state1, view->state2};
    accel_dtype_t dtypes[4] = {view->param_dtype, view->param_dtype, view->state_dtype,
                               view->state_dtype};
    size_t n = view->state2 != NULL ? 4 : 3;
    accel_status_t status = accel_resolve_stream(acc, stream, out);
    if (status != ACCEL_OK || view->count == 0)
        return status;
    if ((*out)->device != view->device)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: the tensors are on device %d but the stream is on device %d", op,
                           view->device, (*out)->device);
    for (size_t k = 0; k < n; k++) {
        size_t size = accel_optim_dtype_size(dtypes[k]);
        if ((uintptr_t)ptrs[k] % size != 0)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: %s tensor data (with byte_offset) is not aligned to its "
                               "%zu-byte elements",
                               op, k == 2 && n == 3 ? "state" : names[k], size);
    }
    return accel_ensure_init(acc);
}

#endif /* ACCEL_OPS_DEVICE_OPTIM_H */
