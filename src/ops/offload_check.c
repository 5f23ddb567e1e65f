/* offload_check.c: the checks of ZeRO-Offload's fused CPU phase
 * (accel_adam_op_t.offload_step, accel_ops.h) and its unscale/clip factor.
 * Every entry is checked, and no two tensors of the whole call may overlap,
 * before anything is read or written. Nothing here touches tensor data.
 * Stateless; safe from any thread. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/core.h"
#include "core/error.h"
#include "core/tensor_check.h"
#include "ops/ops.h"

#define OFFLOAD_TENSORS 5 /* param, grad, exp_avg, exp_avg_sq, lp_param */

static const char *const tensor_names[OFFLOAD_TENSORS] = {"param", "grad", "exp_avg", "exp_avg_sq",
                                                          "lp_param"};

/* A tensor's bytes, for the overlap check: which entry and tensor it is. */
typedef struct offload_range {
    const char *start;
    size_t bytes;
    size_t entry;
    int tensor;
} offload_range_t;

/* Which dtypes tensor k of an entry may have: param and the moments f32,
 * grad any of the three, lp_param a 16-bit one. */
static bool dtype_allowed(int k, accel_dtype_t dtype)
{
    if (k == 1)
        return true;
    if (k == 4)
        return dtype != ACCEL_DTYPE_F32;
    return dtype == ACCEL_DTYPE_F32;
}

static const char *allowed_text(int k)
{
    return k == 1 ? "float32, float16 or bfloat16" : k == 4 ? "float16 or bfloat16" : "float32";
}

/* One entry's tensors into *view and ranges[0..n) (n returned in *n_ranges). */
static accel_status_t check_entry(const char *op, accel_t *acc, size_t index,
                                  const accel_offload_entry_t *e, accel_offload_view_t *view,
                                  offload_range_t *ranges, size_t *n_ranges)
{
    const DLTensor *tensors[OFFLOAD_TENSORS] = {e->param, e->grad, e->exp_avg, e->exp_avg_sq,
                                                e->lp_param};
    accel_dtype_t dtypes[OFFLOAD_TENSORS] = {ACCEL_DTYPE_F32};
    char *starts[OFFLOAD_TENSORS] = {NULL};
    size_t count = 0;
    int n = e->lp_param != NULL ? OFFLOAD_TENSORS : OFFLOAD_TENSORS - 1;
    char label[80];
    accel_status_t status = accel_adam_config_check(op, e->adam, e->step);
    if (status != ACCEL_OK)
        return status;
    for (int k = 0; k < n; k++) {
        accel_tensor_span_t span;
        accel_tensor_memory_t where;
        int device;
        snprintf(label, sizeof label, "%s: %s", op, tensor_names[k]);
        status = accel_tensor_span_check(label, tensors[k], &span);
        if (status != ACCEL_OK)
            return status;
        if (!accel_optim_dtype(tensors[k]->dtype, &dtypes[k]) || !dtype_allowed(k, dtypes[k]))
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: %s tensor has DLPack dtype code %u bits %u lanes %u; it must "
                               "be %s",
                               op, tensor_names[k], tensors[k]->dtype.code, tensors[k]->dtype.bits,
                               tensors[k]->dtype.lanes, allowed_text(k));
        if (k == 0)
            count = span.count;
        else if (span.count != count)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: %s tensor has %zu elements but param has %zu", op,
                               tensor_names[k], span.count, count);
        status = accel_tensor_span_locate(acc, label, tensors[k], &span, ACCEL_TENSOR_HOST, &where,
                                          &device);
        if (status != ACCEL_OK)
            return status;
        starts[k] = span.start;
        ranges[k] = (offload_range_t){span.start, span.bytes, index, k};
    }
    *n_ranges = (size_t)n;
    *view = (accel_offload_view_t){.param = (float *)starts[0],
                                   .grad = starts[1],
                                   .exp_avg = (float *)starts[2],
                                   .exp_avg_sq = (float *)starts[3],
                                   .lp = n == OFFLOAD_TENSORS ? starts[4] : NULL,
                                   .count = count,
                                   .grad_dtype = dtypes[1],
                                   .lp_dtype = n == OFFLOAD_TENSORS ? dtypes[4] : ACCEL_DTYPE_BF16};
    return ACCEL_OK;
}

static int compare_ranges(const void *a, const void *b)
{
    const offload_range_t *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* After sorting by start, two ranges overlap only if some range overlaps
 * the one that reaches furthest among those before it. */
static accel_status_t check_disjoint(const char *op, offload_range_t *ranges, size_t n)
{
    const offload_range_t *furthest = NULL;
    qsort(ranges, n, sizeof *ranges, compare_ranges);
    for (size_t i = 0; i < n; i++) {
        const offload_range_t *r = &ranges[i];
        if (r->bytes == 0)
            continue;
        if (furthest != NULL && r->start < furthest->start + furthest->bytes)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: entry %zu's %s and entry %zu's %s overlap in memory", op,
                               furthest->entry, tensor_names[furthest->tensor], r->entry,
                               tensor_names[r->tensor]);
        if (furthest == NULL || r->start + r->bytes > furthest->start + furthest->bytes)
            furthest = r;
    }
    return ACCEL_OK;
}

static accel_status_t check_config(const char *op, const accel_offload_config_t *config)
{
    if (config == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: config is NULL", op);
    if (config->struct_size < sizeof(accel_offload_config_t))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: config struct_size %zu is smaller than accel_offload_config_t "
                           "(%zu); set it to sizeof(accel_offload_config_t)",
                           op, config->struct_size, sizeof(accel_offload_config_t));
    if (!(isfinite(config->loss_scale) && config->loss_scale > 0.0f))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: invalid loss_scale %g (must be finite and > 0)", op,
                           (double)config->loss_scale);
    if (!(isfinite(config->clip_grad) && config->clip_grad >= 0.0f))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: invalid clip_grad %g (must be finite and >= 0; 0 = no clipping)",
                           op, (double)config->clip_grad);
    return ACCEL_OK;
}

accel_status_t accel_offload_check(const char *op, accel_t *acc,
                                   const accel_offload_config_t *config, size_t count,
                                   const accel_offload_entry_t *entries,
                                   const accel_offload_result_t *result,
                                   accel_offload_view_t *views)
{
    offload_range_t *ranges;
    size_t n_ranges = 0;
    accel_status_t status = accel_check_handle(acc);
    if (status == ACCEL_OK)
        status = check_config(op, config);
    if (status != ACCEL_OK)
        return status;
    if (result == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: result is NULL", op);
    if (count == 0)
        return ACCEL_OK;
    if (entries == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: %zu entries but entries is NULL", op,
                           count);
    if (count > SIZE_MAX / (OFFLOAD_TENSORS * sizeof *ranges))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: %zu entries is too many", op, count);
    ranges = malloc(count * OFFLOAD_TENSORS * sizeof *ranges);
    if (ranges == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "%s: out of host memory checking %zu entries",
                           op, count);
    for (size_t i = 0; i < count && status == ACCEL_OK; i++) {
        size_t n = 0;
        status = check_entry(op, acc, i, &entries[i], &views[i], ranges + n_ranges, &n);
        n_ranges += n;
        if (status != ACCEL_OK) {
            char prefix[48];
            snprintf(prefix, sizeof prefix, "entry %zu: ", i);
            accel_error_prefix(prefix);
        }
    }
    if (status == ACCEL_OK)
        status = check_disjoint(op, ranges, n_ranges);
    free(ranges);
    return status;
}

void accel_offload_scale(const accel_offload_config_t *config, float grad_norm,
                         float *combined_scale, float *inverse)
{
    if (config->clip_grad > 0.0f) {
        /* f32 tensor arithmetic, as unscale_and_clip_grads does it */
        float clip = grad_norm / config->loss_scale;
        clip = clip + 1e-6f;
        clip = clip / config->clip_grad;
        float combined = (clip < 1.0f ? 1.0f : clip) * config->loss_scale;
        *combined_scale = combined;
        *inverse = 1.0f / combined;
        return;
    }
    /* grad.mul_(1. / loss_scale): a Python float quotient, read as f32 */
    *combined_scale = config->loss_scale;
    *inverse = (float)(1.0 / (double)config->loss_scale);
}
