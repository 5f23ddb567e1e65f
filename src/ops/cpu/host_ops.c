/* host_ops.c: the host optimizer ops (CPUAdam, CPUAdagrad, CPULion) that
 * every backend lists, and the cpu backend's fused ops, which are the same
 * code. A step validates everything first, waits for the caller's stream,
 * then runs the kernel table chosen at the first load (isa.c) across the
 * host thread pool (core/thread_pool.c). The tables are process-wide
 * constants once chosen; safe from any thread. */
#include <pthread.h>
#include <stdlib.h>

#include "accel/accel_backend_utils.h"
#include "core/core.h"
#include "core/error.h"
#include "ops/cpu/lamb_kernels.h"
#include "ops/cpu/optim_kernels.h"

/* Chunks are whole cache lines of every dtype; below this many elements per
 * thread, waking a worker costs more than it saves. */
#define HOST_GRAIN          64
#define HOST_MIN_PER_THREAD (32 * 1024)

static pthread_once_t choose_once = PTHREAD_ONCE_INIT;
static const accel_optim_kernels_t *chosen = &accel_optim_kernels_scalar;

#if defined(__x86_64__) || defined(__i386__)
/* AVX512DQ (leaf 7 EBX bit 17) and AVX512_BF16 (leaf 7 subleaf 1 EAX bit 5);
 * the ZMM state is the AVX-512 level's own check. */
static bool cpu_has_avx512_bf16(void)
{
    accel_cpuid_t leaf7, leaf7_1;
    return accel_cpu_isa_cpuid(7, 0, &leaf7) && (leaf7.ebx & (1u << 17)) && leaf7.eax >= 1 &&
           accel_cpu_isa_cpuid(7, 1, &leaf7_1) && (leaf7_1.eax & (1u << 5));
}
#endif

const accel_optim_kernels_t *accel_optim_kernels_for(accel_cpu_isa_t isa)
{
    if (isa > accel_cpu_isa_detected())
        return NULL;
    switch (isa) {
    case ACCEL_CPU_ISA_SCALAR: return &accel_optim_kernels_scalar;
#if defined(__x86_64__) || defined(__i386__)
    case ACCEL_CPU_ISA_AVX2: return &accel_optim_kernels_avx2;
    case ACCEL_CPU_ISA_AVX512:
        return cpu_has_avx512_bf16() ? &accel_optim_kernels_avx512_bf16
                                     : &accel_optim_kernels_avx512;
#endif
    default: return NULL;
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

const accel_optim_kernels_t *accel_host_optim_kernels(void)
{
    return host_kernels();
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

accel_status_t accel_host_wait_stream(accel_t *acc, accel_stream_t *stream)
{
    return host_wait_stream(acc, stream);
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

/* LAMB runs in three passes (lamb_kernels.h): moments and per-segment
 * partial norms across the pool, the reduction on this thread, then the
 * update across the pool. The partials buffer is this call's. */
static accel_status_t host_lamb_step(accel_t *acc, accel_stream_t *stream,
                                     const accel_lamb_config_t *config, uint64_t step,
                                     DLTensor *param, const DLTensor *grad, DLTensor *exp_avg,
                                     DLTensor *exp_avg_sq);
/* The LAMB table's implementation names the kernel table chosen at load. */
static accel_lamb_op_t host_lamb_op = {sizeof(accel_lamb_op_t), "scalar", host_lamb_step};
static pthread_once_t lamb_once = PTHREAD_ONCE_INIT;
static const accel_lamb_kernels_t *lamb_chosen = &accel_lamb_kernels_scalar;

static void choose_lamb(void)
{
    const accel_lamb_kernels_t *table = accel_lamb_kernels_for(accel_cpu_isa_selected());
    if (table != NULL)
        lamb_chosen = table;
    host_lamb_op.implementation = lamb_chosen->name;
}

typedef struct lamb_job {
    const accel_lamb_kernels_t *kernels;
    const accel_optim_view_t *view;
    const accel_lamb_coeffs_t *coeffs;
    float *partials;
    float scale;
} lamb_job_t;

static void lamb_moments_chunk(void *ctx, size_t begin, size_t end)
{
    const lamb_job_t *job = ctx;
    job->kernels->moments(job->coeffs, job->view, begin, end, job->partials);
}

static void lamb_apply_chunk(void *ctx, size_t begin, size_t end)
{
    const lamb_job_t *job = ctx;
    job->kernels->apply(job->coeffs, job->view, job->scale, begin, end);
}

static accel_status_t host_lamb_step(accel_t *acc, accel_stream_t *stream,
                                     const accel_lamb_config_t *config, uint64_t step,
                                     DLTensor *param, const DLTensor *grad, DLTensor *exp_avg,
                                     DLTensor *exp_avg_sq)
{
    accel_optim_view_t view;
    accel_lamb_coeffs_t coeffs;
    float norms[2];
    accel_status_t status = accel_lamb_config_check("lamb step", config, step);
    if (status == ACCEL_OK)
        status = accel_optim_view_make("lamb step", acc, ACCEL_OPTIM_HOST_MEMORY, param, grad,
                                       exp_avg, exp_avg_sq, 2, &view);
    if (status == ACCEL_OK)
        status = host_wait_stream(acc, stream);
    if (status != ACCEL_OK || view.count == 0)
        return status;
    size_t segments = accel_lamb_segments(view.count);
    float *partials = malloc(segments * 2 * sizeof *partials);
    if (partials == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "lamb step: out of host memory for %zu norm partials", segments);
    accel_lamb_coeffs_make(config, step, &coeffs);
    lamb_job_t job = {lamb_chosen, &view, &coeffs, partials, 0.0f};
    accel_thread_pool_run(segments, 1, HOST_MIN_PER_THREAD / ACCEL_LAMB_SEGMENT, lamb_moments_chunk,
                          &job);
    accel_lamb_reduce(partials, segments, norms);
    free(partials);
    job.scale = accel_lamb_scale(&coeffs, norms[0], norms[1]);
    accel_thread_pool_run(view.count, HOST_GRAIN, HOST_MIN_PER_THREAD, lamb_apply_chunk, &job);
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
                                       host_adam_step_multi, accel_host_offload_step};
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

accel_status_t accel_host_lamb_load(void *self, const void **out)
{
    (void)self;
    pthread_once(&lamb_once, choose_lamb);
    *out = &host_lamb_op;
    return ACCEL_OK;
}

/* The instruction set the host kernels run with (chosen once, at the first
 * use, from cpuid and ACCEL_CPU_ISA): what a load would report. */
const char *accel_host_optim_implementation(void)
{
    return host_kernels()->name;
}
