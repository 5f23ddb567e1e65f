/* host_offload.c: ZeRO-Offload's CPU phase in two passes over memory
 * (accel_adam_op_t.offload_step, accel_ops.h). Pass 1 sums the grads'
 * squares per segment across the host thread pool; this thread adds the
 * segments in order and decides overflow and the unscale/clip factor; pass
 * 2 runs the Adam step with that factor and the low-precision copy across
 * the pool. A call's plan (views, prefix sums, coefficients, partial sums)
 * is one allocation owned by the call. Safe from any thread; two calls must
 * not write the same tensors at the same time. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "accel/accel_backend_utils.h"
#include "core/core.h"
#include "core/error.h"
#include "ops/cpu/optim_kernels.h"

#define OFFLOAD_GRAIN          64 /* pass 2 chunks: whole cache lines of every dtype */
#define OFFLOAD_MIN_PER_THREAD (32 * 1024)

/* Entry e covers segments [segment_first[e], segment_first[e + 1]) of pass 1
 * and elements [element_first[e], element_first[e + 1]) of pass 2 (indices
 * over the whole call). */
typedef struct offload_plan {
    const accel_optim_kernels_t *kernels;
    size_t count;
    accel_offload_view_t *views;
    accel_adam_coeffs_t *coeffs;
    size_t *segment_first;
    size_t *element_first;
    double *partials; /* one per segment */
    float inverse;
} offload_plan_t;

static void plan_free(offload_plan_t *plan)
{
    free(plan->views);
    free(plan->coeffs);
    free(plan->segment_first);
    free(plan->element_first);
    free(plan->partials);
}

static accel_status_t plan_alloc(offload_plan_t *plan, size_t count)
{
    *plan = (offload_plan_t){.kernels = accel_host_optim_kernels(), .count = count};
    if (count == 0)
        return ACCEL_OK;
    plan->views = calloc(count, sizeof *plan->views);
    plan->coeffs = calloc(count, sizeof *plan->coeffs);
    plan->segment_first = calloc(count + 1, sizeof *plan->segment_first);
    plan->element_first = calloc(count + 1, sizeof *plan->element_first);
    if (plan->views && plan->coeffs && plan->segment_first && plan->element_first)
        return ACCEL_OK;
    plan_free(plan);
    return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                       "offload step: out of host memory for %zu entries", count);
}

/* Prefix sums and coefficients, after the views are checked. */
static accel_status_t plan_fill(offload_plan_t *plan, const accel_offload_entry_t *entries)
{
    for (size_t e = 0; e < plan->count; e++) {
        size_t n = plan->views[e].count;
        plan->segment_first[e + 1] =
            plan->segment_first[e] + (n + ACCEL_OFFLOAD_SEGMENT - 1) / ACCEL_OFFLOAD_SEGMENT;
        plan->element_first[e + 1] = plan->element_first[e] + n;
        accel_adam_coeffs_make(entries[e].adam, entries[e].step, &plan->coeffs[e]);
    }
    size_t segments = plan->count ? plan->segment_first[plan->count] : 0;
    plan->partials = malloc((segments ? segments : 1) * sizeof *plan->partials);
    if (plan->partials == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "offload step: out of host memory for %zu norm partials", segments);
    return ACCEL_OK;
}

/* The entry holding global index `index` of `first` (count + 1 prefix sums). */
static size_t plan_entry_of(const size_t *first, size_t count, size_t index)
{
    size_t low = 0, high = count; /* first[low] <= index < first[high] */
    while (high - low > 1) {
        size_t mid = low + (high - low) / 2;
        if (first[mid] <= index)
            low = mid;
        else
            high = mid;
    }
    return low;
}

static void sumsq_chunk(void *ctx, size_t begin, size_t end)
{
    const offload_plan_t *plan = ctx;
    size_t e = plan_entry_of(plan->segment_first, plan->count, begin);
    for (size_t s = begin; s < end; s++) {
        while (s >= plan->segment_first[e + 1])
            e++;
        const accel_offload_view_t *view = &plan->views[e];
        size_t first = (s - plan->segment_first[e]) * ACCEL_OFFLOAD_SEGMENT;
        size_t last = first + ACCEL_OFFLOAD_SEGMENT < view->count ? first + ACCEL_OFFLOAD_SEGMENT
                                                                  : view->count;
        plan->partials[s] = plan->kernels->offload_sumsq(view, first, last);
    }
}

static void adam_chunk(void *ctx, size_t begin, size_t end)
{
    const offload_plan_t *plan = ctx;
    size_t e = plan_entry_of(plan->element_first, plan->count, begin);
    while (begin < end) {
        while (begin >= plan->element_first[e + 1])
            e++;
        size_t base = plan->element_first[e];
        size_t stop = end < plan->element_first[e + 1] ? end : plan->element_first[e + 1];
        plan->kernels->offload_adam(&plan->coeffs[e], plan->inverse, &plan->views[e], begin - base,
                                    stop - base);
        begin = stop;
    }
}

accel_status_t accel_host_offload_step(accel_t *acc, accel_stream_t *stream,
                                       const accel_offload_config_t *config, size_t count,
                                       const accel_offload_entry_t *entries,
                                       accel_offload_result_t *result)
{
    const char *op = "offload step";
    offload_plan_t plan;
    /* The check writes the views into the plan, so the plan comes first. */
    accel_status_t status = plan_alloc(&plan, entries != NULL ? count : 0);
    if (status == ACCEL_OK)
        status = accel_offload_check(op, acc, config, count, entries, result, plan.views);
    if (status == ACCEL_OK)
        status = plan_fill(&plan, entries);
    if (status == ACCEL_OK)
        status = accel_host_wait_stream(acc, stream);
    if (status != ACCEL_OK) {
        plan_free(&plan);
        return status;
    }
    size_t segments = count ? plan.segment_first[count] : 0;
    accel_thread_pool_run(segments, 1, OFFLOAD_MIN_PER_THREAD / ACCEL_OFFLOAD_SEGMENT, sumsq_chunk,
                          &plan);
    double sumsq = 0.0;
    for (size_t s = 0; s < segments; s++)
        sumsq += plan.partials[s];
    float grad_norm = (float)sqrt(sumsq);
    if (!isfinite(sumsq)) {
        *result = (accel_offload_result_t){true, grad_norm, config->loss_scale};
        plan_free(&plan);
        return ACCEL_OK;
    }
    float combined;
    accel_offload_scale(config, grad_norm, &combined, &plan.inverse);
    size_t elements = count ? plan.element_first[count] : 0;
    accel_thread_pool_run(elements, OFFLOAD_GRAIN, OFFLOAD_MIN_PER_THREAD, adam_chunk, &plan);
    *result = (accel_offload_result_t){false, grad_norm, combined};
    plan_free(&plan);
    return ACCEL_OK;
}
