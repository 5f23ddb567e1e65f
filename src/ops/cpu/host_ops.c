/* host_ops.c: the host optimizer ops (CPUAdam, CPUAdagrad, CPULion) that
 * every backend lists, and the cpu backend's fused ops, which are the same
 * code. A step validates everything first, waits for the caller's stream,
 * then runs the kernel table chosen at the first load (isa.c) across the
 * host thread pool (core/thread_pool.c). The tables are process-wide
 * constants once chosen; safe from any thread. */
#include <pthread.h>

#include "accel/accel_backend_utils.h"
#include "core/core.h"
#include "core/error.h"
#include "ops/cpu/optim_kernels.h"

/* Chunks are whole cache lines of every dtype; below this many elements per
 * thread, waking a worker costs more than it saves. */
#define HOST_GRAIN 64
#define HOST_MIN_PER_THREAD (32 * 1024)

static pthread_once_t choose_once = PTHREAD_ONCE_INIT;
static const accel_optim_kernels_t *chosen = &accel_optim_kernels_scalar;

const accel_optim_kernels_t *accel_optim_kernels_for(accel_cpu_isa_t isa)
{
    if (isa > accel_cpu_isa_detected())
        return NULL;
    switch (isa) {
    case ACCEL_CPU_ISA_SCALAR:
        return &accel_optim_kernels_scalar;
#if defined(__x86_64__) || defined(__i386__)
    case ACCEL_CPU_ISA_AVX2:
        return &accel_optim_kernels_avx2;
    case ACCEL_CPU_ISA_AVX512:
        return &accel_optim_kernels_avx512;
#endif
    default:
        return NULL;
    }
}

static void choose_kernels(void)
{
    const accel_optim_kernels_t *table = accel_optim_kernels_for(accel_cpu_isa_selected());
    if (table != NULL)
        chosen = table;
    accel_log(ACCEL_LOG_INFO, "host optimizer ops use the %s kernels", chosen->name);
}

static const accel_optim_kernels_t *host_kernels(void)
{
    pthread_once(&choose_once, choose_kernels);
    return chosen;
}

/* Host ops order themselves after work already queued on `stream`. */
static accel_status_t host_wait_stream(accel_t *acc, accel_stream_t *stream)
{
    accel_stream_t *resolved = NULL;
    accel_status_t status;
    if (stream == NULL)
        return ACCEL_OK;
    status = accel_resolve_stream(acc, stream, &resolved);
    if (status != ACCEL_OK)
        return status;
    return accel_stream_synchronize(resolved);
}

typedef struct host_job {
    const accel_optim_view_t *view;
    const void *coeffs;
    const accel_optim_kernels_t *kernels;
} host_job_t;

static void adam_chunk(void *ctx, size_t begin, size_t end)
{
    const host_job_t *job = ctx;
    job->kernels->adam(job->coeffs, job->view, begin, end);
}

static void adagrad_chunk(void *ctx, size_t begin, size_t end)
{
    const host_job_t *job = ctx;
    job->kernels->adagrad(job->coeffs, job->view, begin, end);
}

static void lion_chunk(void *ctx, size_t begin, size_t end)
{
    const host_job_t *job = ctx;
    job->kernels->lion(job->coeffs, job->view, begin, end);
}

static accel_status_t host_adam_step(accel_t *acc, accel_stream_t *stream,
                                     const accel_adam_config_t *config, uint64_t step,
                                     DLTensor *param, const DLTensor *grad, DLTensor *exp_avg,
                                     DLTensor *exp_avg_sq)
{
    accel_optim_view_t view;
    accel_adam_coeffs_t coeffs;
    accel_status_t status = accel_adam_config_check("adam step", config, step);
    if (status == ACCEL_OK)
        status = accel_optim_view_make("adam step", acc, ACCEL_OPTIM_HOST_MEMORY, param, grad,
                                       exp_avg, exp_avg_sq, 2, &view);
    if (status == ACCEL_OK)
        status = host_wait_stream(acc, stream);
    if (status != ACCEL_OK)
        return status;
    accel_adam_coeffs_make(config, step, &coeffs);
    host_job_t job = {&view, &coeffs, host_kernels()};
    accel_thread_pool_run(view.count, HOST_GRAIN, HOST_MIN_PER_THREAD, adam_chunk, &job);
    return ACCEL_OK;
}

static accel_status_t host_adagrad_step(accel_t *acc, accel_stream_t *stream,
                                        const accel_adagrad_config_t *config, DLTensor *param,
                                        const DLTensor *grad, DLTensor *exp_avg_sq)
{
    accel_optim_view_t view;
    accel_adagrad_coeffs_t coeffs;
    accel_status_t status = accel_adagrad_config_check("adagrad step", config);
    if (status == ACCEL_OK)
        status = accel_optim_view_make("adagrad step", acc, ACCEL_OPTIM_HOST_MEMORY, param, grad,
                                       exp_avg_sq, NULL, 1, &view);
    if (status == ACCEL_OK)
        status = host_wait_stream(acc, stream);
    if (status != ACCEL_OK)
        return status;
    accel_adagrad_coeffs_make(config, &coeffs);
    host_job_t job = {&view, &coeffs, host_kernels()};
    accel_thread_pool_run(view.count, HOST_GRAIN, HOST_MIN_PER_THREAD, adagrad_chunk, &job);
    return ACCEL_OK;
}

static accel_status_t host_lion_step(accel_t *acc, accel_stream_t *stream,
                                     const accel_lion_config_t *config, DLTensor *param,
                                     const DLTensor *grad, DLTensor *exp_avg)
{
    accel_optim_view_t view;
    accel_lion_coeffs_t coeffs;
    accel_status_t status = accel_lion_config_check("lion step", config);
    if (status == ACCEL_OK)
        status = accel_optim_view_make("lion step", acc, ACCEL_OPTIM_HOST_MEMORY, param, grad,
                                       exp_avg, NULL, 1, &view);
    if (status == ACCEL_OK)
        status = host_wait_stream(acc, stream);
    if (status != ACCEL_OK)
        return status;
    accel_lion_coeffs_make(config, &coeffs);
    host_job_t job = {&view, &coeffs, host_kernels()};
    accel_thread_pool_run(view.count, HOST_GRAIN, HOST_MIN_PER_THREAD, lion_chunk, &job);
    return ACCEL_OK;
}

/* ---- tensor lists: every entry checked, then each stepped in order */

static accel_status_t host_adam_step_multi(accel_t *acc, accel_stream_t *stream,
                                           const accel_adam_config_t *config, uint64_t step,
                                           size_t count, DLTensor *params, const DLTensor *grads,
                                           DLTensor *exp_avgs, DLTensor *exp_avg_sqs)
{
    accel_status_t status = accel_adam_config_check("adam step", config, step);
    if (status == ACCEL_OK)
        status = accel_optim_lists_check("adam step", acc, ACCEL_OPTIM_HOST_MEMORY, count, params,
                                         grads, exp_avgs, exp_avg_sqs, 2);
    for (size_t i = 0; i < count && status == ACCEL_OK; i++)
        status = host_adam_step(acc, i == 0 ? stream : NULL, config, step, &params[i], &grads[i],
                                &exp_avgs[i], &exp_avg_sqs[i]);
    return status;
}

static accel_status_t host_lion_step_multi(accel_t *acc, accel_stream_t *stream,
                                           const accel_lion_config_t *config, size_t count,
                                           DLTensor *params, const DLTensor *grads,
                                           DLTensor *exp_avgs)
{
    accel_status_t status = accel_lion_config_check("lion step", config);
    if (status == ACCEL_OK)
        status = accel_optim_lists_check("lion step", acc, ACCEL_OPTIM_HOST_MEMORY, count, params,
                                         grads, exp_avgs, NULL, 1);
    for (size_t i = 0; i < count && status == ACCEL_OK; i++)
        status = host_lion_step(acc, i == 0 ? stream : NULL, config, &params[i], &grads[i],
                                &exp_avgs[i]);
    return status;
}

/* ---- builders */

static accel_adam_op_t host_adam_op = {sizeof(accel_adam_op_t), "scalar", host_adam_step,
                                       host_adam_step_multi};
static accel_adagrad_op_t host_adagrad_op = {sizeof(accel_adagrad_op_t), "scalar",
                                             host_adagrad_step};
static accel_lion_op_t host_lion_op = {sizeof(accel_lion_op_t), "scalar", host_lion_step,
                                       host_lion_step_multi};
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void name_tables(void)
{
    const char *name = host_kernels()->name;
    host_adam_op.implementation = name;
    host_adagrad_op.implementation = name;
    host_lion_op.implementation = name;
}

/* The host ops always have a path (the scalar kernels), so they are always
 * compatible; the report shows which instruction set they use. */
bool accel_host_optim_is_compatible(void *self, char *reason, size_t reason_cap)
{
    (void)self;
    (void)reason;
    (void)reason_cap;
    return true;
}

accel_status_t accel_host_adam_load(void *self, const void **out)
{
    (void)self;
    pthread_once(&tables_once, name_tables);
    *out = &host_adam_op;
    return ACCEL_OK;
}

accel_status_t accel_host_adagrad_load(void *self, const void **out)
{
    (void)self;
    pthread_once(&tables_once, name_tables);
    *out = &host_adagrad_op;
    return ACCEL_OK;
}

accel_status_t accel_host_lion_load(void *self, const void **out)
{
    (void)self;
    pthread_once(&tables_once, name_tables);
    *out = &host_lion_op;
    return ACCEL_OK;
}

/* The instruction set the host kernels run with (chosen once, at the first
 * use, from cpuid and ACCEL_CPU_ISA): what a load would report. */
const char *accel_host_optim_implementation(void)
{
    return host_kernels()->name;
}
