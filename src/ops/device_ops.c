/* device_ops.c: FusedAdamBuilder, FusedLionBuilder and FusedLambBuilder over a backend's
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

typedef enum device_kernel { DEVICE_ADAM, DEVICE_LION, DEVICE_LAMB } device_kernel_t;

static bool device_has_kernel(const accel_fused_optim_ops_t *fused, device_kernel_t kernel)
{
    switch (kernel) {
    case DEVICE_ADAM: return fused->adam != NULL;
    case DEVICE_LION: return fused->lion != NULL;
    default: return ACCEL_FUSED_OPTIM_LAMB(fused) != NULL;
    }
}

/* The backend's fused table when it has `kernel`. */
static accel_status_t device_fused_table(const char *op, accel_t *acc, device_kernel_t kernel,
                                         const accel_fused_optim_ops_t **out)
{
    accel_status_t status = accel_check_handle(acc);
    const accel_fused_optim_ops_t *fused;
    if (status != ACCEL_OK)
        return status;
    fused = ACCEL_BACKEND_HAS(acc->ops, fused_optim) ? acc->ops->fused_optim : NULL;
    if (fused == NULL || !device_has_kernel(fused, kernel))
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

/* What every step checks besides its hyper-parameters: the backend has the
 * kernel, the tensors (`states` of them: 2, or 1 with state2 ignored), the stream on
 * their device, lazy init. Fills *launch; *has_work is false for an empty
 * step, which then succeeds without calling the backend. */
static accel_status_t device_step_begin(const char *op, accel_t *acc, device_kernel_t kernel,
                                        accel_stream_t *stream, const DLTensor *param,
                                        const DLTensor *grad, const DLTensor *state1,
                                        const DLTensor *state2, size_t states,
                                        const accel_fused_optim_ops_t **fused,
                                        accel_optim_launch_t *launch, bool *has_work)
{
    accel_optim_view_t view;
    accel_stream_t *resolved = NULL;
    accel_status_t status = device_fused_table(op, acc, kernel, fused);
    *has_work = false;
    if (status == ACCEL_OK)
        status = accel_optim_view_make(op, acc, ACCEL_OPTIM_DEVICE_MEMORY, param, grad, state1,
                                       state2, states, &view);
    if (status == ACCEL_OK)
        status = device_step_stream(op, acc, stream, &view, &resolved);
    if (status != ACCEL_OK || view.count == 0)
        return status;
    *launch = device_launch_make(&view, resolved);
    *has_work = true;
    return ACCEL_OK;
}

static accel_status_t device_adam_step(accel_t *acc, accel_stream_t *stream,
                                       const accel_adam_config_t *config, uint64_t step,
                                       DLTensor *param, const DLTensor *grad, DLTensor *exp_avg,
                                       DLTensor *exp_avg_sq)
{
    const accel_fused_optim_ops_t *fused = NULL;
    accel_adam_coeffs_t coeffs;
    accel_optim_launch_t launch;
    bool has_work = false;
    accel_status_t status = accel_adam_config_check("fused_adam", config, step);
    if (status == ACCEL_OK)
        status = device_step_begin("fused_adam", acc, DEVICE_ADAM, stream, param, grad, exp_avg,
                                   exp_avg_sq, 2, &fused, &launch, &has_work);
    if (status != ACCEL_OK || !has_work)
        return status;
    accel_adam_coeffs_make(config, step, &coeffs);
    return fused->adam(acc->self, &launch, &coeffs);
}

static accel_status_t device_lion_step(accel_t *acc, accel_stream_t *stream,
                                       const accel_lion_config_t *config, DLTensor *param,
                                       const DLTensor *grad, DLTensor *exp_avg)
{
    const accel_fused_optim_ops_t *fused = NULL;
    accel_lion_coeffs_t coeffs;
    accel_optim_launch_t launch;
    bool has_work = false;
    accel_status_t status = accel_lion_config_check("fused_lion", config);
    if (status == ACCEL_OK)
        status = device_step_begin("fused_lion", acc, DEVICE_LION, stream, param, grad, exp_avg,
                                   NULL, 1, &fused, &launch, &has_work);
    if (status != ACCEL_OK || !has_work)
        return status;
    accel_lion_coeffs_make(config, &coeffs);
    return fused->lion(acc->self, &launch, &coeffs);
}

static accel_status_t device_lamb_step(accel_t *acc, accel_stream_t *stream,
                                       const accel_lamb_config_t *config, uint64_t step,
                                       DLTensor *param, const DLTensor *grad, DLTensor *exp_avg,
                                       DLTensor *exp_avg_sq)
{
    const accel_fused_optim_ops_t *fused = NULL;
    accel_lamb_coeffs_t coeffs;
    accel_optim_launch_t launch;
    bool has_work = false;
    accel_status_t status = accel_lamb_config_check("fused_lamb", config, step);
    if (status == ACCEL_OK)
        status = device_step_begin("fused_lamb", acc, DEVICE_LAMB, stream, param, grad, exp_avg,
                                   exp_avg_sq, 2, &fused, &launch, &has_work);
    if (status != ACCEL_OK || !has_work)
        return status;
    accel_lamb_coeffs_make(config, step, &coeffs);
    return fused->lamb(acc->self, &launch, &coeffs);
}

/* Tensor lists: every entry checked (one device, aligned), then each queued
 * in order on the one stream. */
static accel_status_t device_adam_step_multi(accel_t *acc, accel_stream_t *stream,
                                             const accel_adam_config_t *config, uint64_t step,
                                             size_t count, DLTensor *params, const DLTensor *grads,
                                             DLTensor *exp_avgs, DLTensor *exp_avg_sqs)
{
    const char *op = "fused_adam";
    const accel_fused_optim_ops_t *fused = NULL;
    accel_status_t status = device_fused_table(op, acc, DEVICE_ADAM, &fused);
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
    accel_status_t status = device_fused_table(op, acc, DEVICE_LION, &fused);
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
    accel_lamb_op_t lamb;
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
            /* offload_step is host memory's only (accel_ops.h): NULL here */
            .adam = {sizeof(accel_adam_op_t), backend->name, device_adam_step,
                     device_adam_step_multi, NULL},
            .lion = {sizeof(accel_lion_op_t), backend->name, device_lion_step,
                     device_lion_step_multi},
            .lamb = {sizeof(accel_lamb_op_t), backend->name, device_lamb_step},
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
static accel_status_t device_load(accel_t *acc, device_kernel_t kernel, const void **out)
{
    const device_tables_t *tables_of = NULL;
    accel_status_t status = acc->ops->fused_optim->build(acc->self);
    if (status == ACCEL_OK)
        status = device_tables_get(acc->ops, &tables_of);
    if (status == ACCEL_OK)
        *out = kernel == DEVICE_ADAM   ? (const void *)&tables_of->adam
               : kernel == DEVICE_LION ? (const void *)&tables_of->lion
                                       : (const void *)&tables_of->lamb;
    return status;
}

accel_status_t accel_device_adam_load(void *self, const void **out)
{
    return device_load(self, DEVICE_ADAM, out);
}

accel_status_t accel_device_lion_load(void *self, const void **out)
{
    return device_load(self, DEVICE_LION, out);
}

accel_status_t accel_device_lamb_load(void *self, const void **out)
{
    return device_load(self, DEVICE_LAMB, out);
}
