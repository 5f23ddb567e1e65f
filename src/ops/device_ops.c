/* device_ops.c: FusedAdamBuilder and FusedLionBuilder over a backend's
 * fused_optim kernels. Everything that is the same for every device backend
 * happens here, once: the hyper-parameter and tensor checks, the stream
 * (given, or the thread's current one) on the tensors' device, alignment,
 * lazy initialisation and the per-step scalars; the backend's kernel slot
 * then only queues the work.
 * The op tables handed out are process-lifetime: one pair per backend table,
 * made at the first load and never freed (op tables outlive accel_close, as
 * accel_ops.h promises). A table's step runs on the accelerator it is given;
 * the implementation string names the backend it was loaded from.
 * Threads: steps from any thread; table creation under tables_lock. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "core/core.h"
#include "core/error.h"
#include "ops/ops.h"

/* ---------------------------------------------------------------- checks */

/* The stream a checked step queues on: `stream`, or the calling thread's
 * current stream when NULL; it must be on the tensors' device, and each
 * tensor aligned to its element size (the kernels read typed pointers). */
static accel_status_t device_step_stream(const char *op, accel_t *acc, accel_stream_t *stream,
                                         const accel_optim_view_t *view, accel_stream_t **out)
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

/* The backend's fused table when it has the kernel `has_kernel` says. */
static accel_status_t device_fused_table(const char *op, accel_t *acc, bool adam,
                                         const accel_fused_optim_ops_t **out)
{
    accel_status_t status = accel_check_handle(acc);
    const accel_fused_optim_ops_t *fused;
    if (status != ACCEL_OK)
        return status;
    fused = ACCEL_BACKEND_HAS(acc->ops, fused_optim) ? acc->ops->fused_optim : NULL;
    if (fused == NULL || (adam ? fused->adam == NULL : fused->lion == NULL))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: the %s backend has no device kernels for this op; load the op "
                           "from the builder of the accelerator it should run on",
                           op, acc->ops->name);
    *out = fused;
    return ACCEL_OK;
}

static accel_optim_launch_t device_launch_make(const accel_optim_view_t *view,
                                               const accel_stream_t *stream)
{
    return (accel_optim_launch_t){
        .struct_size = sizeof(accel_optim_launch_t),
        .device = view->device,
        .stream = stream->impl,
        .param = view->param,
        .grad = view->grad,
        .state1 = view->state1,
        .state2 = view->state2,
        .count = view->count,
        .param_dtype = view->param_dtype,
        .state_dtype = view->state_dtype,
    };
}

/* ---------------------------------------------------------------- steps */

static accel_status_t device_adam_step(accel_t *acc, accel_stream_t *stream,
                                       const accel_adam_config_t *config, uint64_t step,
                                       DLTensor *param, const DLTensor *grad, DLTensor *exp_avg,
                                       DLTensor *exp_avg_sq)
{
    const char *op = "fused_adam";
    const accel_fused_optim_ops_t *fused = NULL;
    accel_optim_view_t view;
    accel_stream_t *resolved = NULL;
    accel_adam_coeffs_t coeffs;
    accel_optim_launch_t launch;
    accel_status_t status = device_fused_table(op, acc, true, &fused);
    if (status == ACCEL_OK)
        status = accel_adam_config_check(op, config, step);
    if (status == ACCEL_OK)
        status = accel_optim_view_make(op, acc, ACCEL_OPTIM_DEVICE_MEMORY, param, grad, exp_avg,
                                       exp_avg_sq, 2, &view);
    if (status == ACCEL_OK)
        status = device_step_stream(op, acc, stream, &view, &resolved);
    if (status != ACCEL_OK || view.count == 0)
        return status;
    accel_adam_coeffs_make(config, step, &coeffs);
    launch = device_launch_make(&view, resolved);
    return fused->adam(acc->self, &launch, &coeffs);
}

static accel_status_t device_lion_step(accel_t *acc, accel_stream_t *stream,
                                       const accel_lion_config_t *config, DLTensor *param,
                                       const DLTensor *grad, DLTensor *exp_avg)
{
    const char *op = "fused_lion";
    const accel_fused_optim_ops_t *fused = NULL;
    accel_optim_view_t view;
    accel_stream_t *resolved = NULL;
    accel_lion_coeffs_t coeffs;
    accel_optim_launch_t launch;
    accel_status_t status = device_fused_table(op, acc, false, &fused);
    if (status == ACCEL_OK)
        status = accel_lion_config_check(op, config);
    if (status == ACCEL_OK)
        status = accel_optim_view_make(op, acc, ACCEL_OPTIM_DEVICE_MEMORY, param, grad, exp_avg,
                                       NULL, 1, &view);
    if (status == ACCEL_OK)
        status = device_step_stream(op, acc, stream, &view, &resolved);
    if (status != ACCEL_OK || view.count == 0)
        return status;
    accel_lion_coeffs_make(config, &coeffs);
    launch = device_launch_make(&view, resolved);
    return fused->lion(acc->self, &launch, &coeffs);
}

/* Tensor lists: every entry checked (one device, aligned), then each queued
 * in order on the one stream. */
static accel_status_t device_adam_step_multi(accel_t *acc, accel_stream_t *stream,
                                             const accel_adam_config_t *config, uint64_t step,
                                             size_t count, DLTensor *params,
                                             const DLTensor *grads, DLTensor *exp_avgs,
                                             DLTensor *exp_avg_sqs)
{
    const char *op = "fused_adam";
    const accel_fused_optim_ops_t *fused = NULL;
    accel_status_t status = device_fused_table(op, acc, true, &fused);
    if (status == ACCEL_OK)
        status = accel_adam_config_check(op, config, step);
    if (status == ACCEL_OK)
        status = accel_optim_lists_check(op, acc, ACCEL_OPTIM_DEVICE_MEMORY, count, params, grads,
                                         exp_avgs, exp_avg_sqs, 2);
    for (size_t i = 0; i < count && status == ACCEL_OK; i++)
        status = device_adam_step(acc, stream, config, step, &params[i], &grads[i], &exp_avgs[i],
                                  &exp_avg_sqs[i]);
    return status;
}

static accel_status_t device_lion_step_multi(accel_t *acc, accel_stream_t *stream,
                                             const accel_lion_config_t *config, size_t count,
                                             DLTensor *params, const DLTensor *grads,
                                             DLTensor *exp_avgs)
{
    const char *op = "fused_lion";
    const accel_fused_optim_ops_t *fused = NULL;
    accel_status_t status = device_fused_table(op, acc, false, &fused);
    if (status == ACCEL_OK)
        status = accel_lion_config_check(op, config);
    if (status == ACCEL_OK)
        status = accel_optim_lists_check(op, acc, ACCEL_OPTIM_DEVICE_MEMORY, count, params, grads,
                                         exp_avgs, NULL, 1);
    for (size_t i = 0; i < count && status == ACCEL_OK; i++)
        status = device_lion_step(acc, stream, config, &params[i], &grads[i], &exp_avgs[i]);
    return status;
}

/* ---------------------------------------------------------------- tables */

#define DEVICE_TABLES_MAX 16

typedef struct device_tables {
    const accel_backend_ops_t *backend;
    accel_adam_op_t adam;
    accel_lion_op_t lion;
} device_tables_t;

static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static device_tables_t tables[DEVICE_TABLES_MAX]; /* guarded by tables_lock; never freed */
static size_t tables_count;

/* The op tables of `backend`, made on first use. */
static accel_status_t device_tables_get(const accel_backend_ops_t *backend,
                                        const device_tables_t **out)
{
    accel_status_t status = ACCEL_OK;
    size_t i;
    pthread_mutex_lock(&tables_lock);
    for (i = 0; i < tables_count && tables[i].backend != backend; i++)
        ;
    if (i == tables_count && tables_count == DEVICE_TABLES_MAX) {
        status = accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                             "%s: more than %d backends have loaded fused ops in this process",
                             backend->name, DEVICE_TABLES_MAX);
    } else if (i == tables_count) {
        tables[i] = (device_tables_t){
            .backend = backend,
            .adam = {sizeof(accel_adam_op_t), backend->name, device_adam_step,
                     device_adam_step_multi},
            .lion = {sizeof(accel_lion_op_t), backend->name, device_lion_step,
                     device_lion_step_multi},
        };
        tables_count++;
    }
    if (status == ACCEL_OK)
        *out = &tables[i];
    pthread_mutex_unlock(&tables_lock);
    return status;
}

/* ---------------------------------------------------------------- builders */

bool accel_device_optim_is_compatible(void *self, char *reason, size_t reason_cap)
{
    accel_t *acc = self;
    return acc->ops->fused_optim->is_compatible(acc->self, reason, reason_cap);
}

/* Build the kernels now (core initialised the backend before load), then
 * hand out the backend's table. */
static accel_status_t device_load(accel_t *acc, bool adam, const void **out)
{
    const device_tables_t *tables_of = NULL;
    accel_status_t status = acc->ops->fused_optim->build(acc->self);
    if (status == ACCEL_OK)
        status = device_tables_get(acc->ops, &tables_of);
    if (status == ACCEL_OK)
        *out = adam ? (const void *)&tables_of->adam : (const void *)&tables_of->lion;
    return status;
}

accel_status_t accel_device_adam_load(void *self, const void **out)
{
    return device_load(self, true, out);
}

accel_status_t accel_device_lion_load(void *self, const void **out)
{
    return device_load(self, false, out);
}
