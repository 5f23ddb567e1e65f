/* optim_check.c: validation shared by every optimizer op (host and device):
 * hyper-parameters with torch.optim's rules, and the tensors of one step.
 * Nothing here touches tensor data. Stateless; safe from any thread. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "core/error.h"
#include "core/tensor_check.h"
#include "ops/ops.h"

size_t accel_optim_dtype_size(accel_dtype_t dtype)
{
    return dtype == ACCEL_DTYPE_F32 ? 4 : 2;
}

static accel_status_t check_range(const char *op, const char *field, float value, float low,
                                  bool low_open, float high, bool high_open)
{
    bool ok = isfinite(value) && (low_open ? value > low : value >= low) &&
              (high_open ? value < high : value <= high);
    if (ok)
        return ACCEL_OK;
    return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: invalid %s %g (must be in %c%g, %g%c)",
                       op, field, (double)value, low_open ? '(' : '[', (double)low, (double)high,
                       high_open ? ')' : ']');
}

static accel_status_t check_nonnegative(const char *op, const char *field, float value)
{
    return check_range(op, field, value, 0.0f, false, INFINITY, true);
}

static accel_status_t check_beta(const char *op, const char *field, float value)
{
    return check_range(op, field, value, 0.0f, false, 1.0f, true);
}

accel_status_t accel_adam_config_check(const char *op, const accel_adam_config_t *config,
                                       uint64_t step)
{
    accel_status_t status;
    if (config == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: config is NULL", op);
    if (step == 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: step must be >= 1 (the first step is 1)", op);
    if ((status = check_nonnegative(op, "lr", config->lr)) != ACCEL_OK ||
        (status = check_beta(op, "beta1", config->beta1)) != ACCEL_OK ||
        (status = check_beta(op, "beta2", config->beta2)) != ACCEL_OK ||
        (status = check_nonnegative(op, "eps", config->eps)) != ACCEL_OK ||
        (status = check_nonnegative(op, "weight_decay", config->weight_decay)) != ACCEL_OK)
        return status;
    return ACCEL_OK;
}

accel_status_t accel_adagrad_config_check(const char *op, const accel_adagrad_config_t *config)
{
    accel_status_t status;
    if (config == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: config is NULL", op);
    if ((status = check_nonnegative(op, "lr", config->lr)) != ACCEL_OK ||
        (status = check_nonnegative(op, "eps", config->eps)) != ACCEL_OK ||
        (status = check_nonnegative(op, "weight_decay", config->weight_decay)) != ACCEL_OK)
        return status;
    return ACCEL_OK;
}

accel_status_t accel_lion_config_check(const char *op, const accel_lion_config_t *config)
{
    accel_status_t status;
    if (config == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: config is NULL", op);
    if ((status = check_nonnegative(op, "lr", config->lr)) != ACCEL_OK ||
        (status = check_range(op, "beta1", config->beta1, 0.0f, false, 1.0f, false)) != ACCEL_OK ||
        (status = check_range(op, "beta2", config->beta2, 0.0f, false, 1.0f, false)) != ACCEL_OK ||
        (status = check_nonnegative(op, "weight_decay", config->weight_decay)) != ACCEL_OK)
        return status;
    return ACCEL_OK;
}

void accel_adam_coeffs_make(const accel_adam_config_t *config, uint64_t step,
                            accel_adam_coeffs_t *out)
{
    double bc1 = 1.0, bc2 = 1.0;
    if (config->bias_correction) {
        bc1 = 1.0 - pow((double)config->beta1, (double)step);
        bc2 = 1.0 / sqrt(1.0 - pow((double)config->beta2, (double)step));
    }
    /* beta = 0 gives bc1 = 1; beta -> 1 with tiny t could give bc1 = 0: the
     * config check keeps beta < 1, and t >= 1 makes bc1 >= 1 - beta > 0. */
    out->beta1 = config->beta1;
    out->one_minus_beta1 = 1.0f - config->beta1;
    out->beta2 = config->beta2;
    out->one_minus_beta2 = 1.0f - config->beta2;
    out->eps = config->eps;
    out->step_size = (float)(-(double)config->lr / bc1);
    out->bc2 = isfinite(bc2) ? (float)bc2 : 1.0f;
    out->l2_decay = config->adamw_mode ? 0.0f : config->weight_decay;
    out->decoupled_decay = config->adamw_mode ? -config->lr * config->weight_decay : 0.0f;
}

void accel_lion_coeffs_make(const accel_lion_config_t *config, accel_lion_coeffs_t *out)
{
    out->beta1 = config->beta1;
    out->one_minus_beta1 = 1.0f - config->beta1;
    out->beta2 = config->beta2;
    out->one_minus_beta2 = 1.0f - config->beta2;
    out->step_size = -config->lr;
    out->after_decay = 1.0f - config->lr * config->weight_decay;
    out->has_decay = config->weight_decay > 0.0f;
}

accel_status_t accel_lamb_config_check(const char *op, const accel_lamb_config_t *config,
                                       uint64_t step)
{
    accel_status_t status;
    if (config == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: config is NULL", op);
    if (step == 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: step must be >= 1 (the first step is 1)", op);
    if ((status = check_nonnegative(op, "lr", config->lr)) != ACCEL_OK ||
        (status = check_beta(op, "beta1", config->beta1)) != ACCEL_OK ||
        (status = check_beta(op, "beta2", config->beta2)) != ACCEL_OK ||
        (status = check_nonnegative(op, "eps", config->eps)) != ACCEL_OK ||
        (status = check_nonnegative(op, "weight_decay", config->weight_decay)) != ACCEL_OK ||
        (status = check_range(op, "max_coeff", config->max_coeff, 0.0f, true, INFINITY, true)) !=
            ACCEL_OK ||
        (status = check_range(op, "min_coeff", config->min_coeff, 0.0f, false, config->max_coeff,
                              false)) != ACCEL_OK ||
        (status = check_range(op, "grad_scale", config->grad_scale, 0.0f, true, INFINITY, true)) !=
            ACCEL_OK)
        return status;
    return ACCEL_OK;
}

void accel_lamb_coeffs_make(const accel_lamb_config_t *config, uint64_t step,
                            accel_lamb_coeffs_t *out)
{
    double step_size = config->lr;
    if (config->bias_correction) {
        double bc1 = 1.0 - pow((double)config->beta1, (double)step);
        double bc2 = 1.0 - pow((double)config->beta2, (double)step);
        step_size = (double)config->lr * sqrt(bc2) / bc1; /* bc1 >= 1 - beta1 > 0 */
    }
    out->beta1 = config->beta1;
    out->one_minus_beta1 = 1.0f - config->beta1;
    out->beta2 = config->beta2;
    out->one_minus_beta2 = 1.0f - config->beta2;
    out->eps = config->eps;
    out->eps_inside_sqrt = config->eps_inside_sqrt ? 1 : 0;
    out->grad_scale = config->grad_scale;
    out->weight_decay = config->weight_decay;
    out->step_size = (float)step_size;
    out->max_coeff = config->max_coeff;
    out->min_coeff = config->min_coeff;
}

void accel_adagrad_coeffs_make(const accel_adagrad_config_t *config, accel_adagrad_coeffs_t *out)
{
    out->step_size = -config->lr;
    out->eps = config->eps;
    out->weight_decay = config->weight_decay;
}

bool accel_optim_dtype(DLDataType dl, accel_dtype_t *out)
{
    if (dl.lanes != 1)
        return false;
    if (dl.code == kDLFloat && dl.bits == 32)
        *out = ACCEL_DTYPE_F32;
    else if (dl.code == kDLFloat && dl.bits == 16)
        *out = ACCEL_DTYPE_F16;
    else if (dl.code == kDLBfloat && dl.bits == 16)
        *out = ACCEL_DTYPE_BF16;
    else
        return false;
    return true;
}

static bool pair_supported(accel_dtype_t param, accel_dtype_t state)
{
    return state == ACCEL_DTYPE_F32 || state == param;
}

typedef struct optim_range {
    const char *what;
    const char *start;
    size_t bytes;
} optim_range_t;

static accel_status_t check_disjoint(const char *op, const optim_range_t *ranges, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) {
            const optim_range_t *a = &ranges[i], *b = &ranges[j];
            if (a->bytes == 0 || b->bytes == 0)
                continue;
            if (a->start < b->start + b->bytes && b->start < a->start + a->bytes)
                return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "%s: %s and %s tensors overlap in memory", op, a->what, b->what);
        }
    }
    return ACCEL_OK;
}

accel_status_t accel_optim_view_make(const char *op, accel_t *acc, accel_optim_memory_t memory,
                                     const DLTensor *param, const DLTensor *grad,
                                     const DLTensor *state1, const DLTensor *state2,
                                     size_t state_count, accel_optim_view_t *out)
{
    const DLTensor *tensors[4] = {param, grad, state1, state2};
    const char *names[4] = {"param", "grad", "exp_avg", "exp_avg_sq"};
    size_t n_tensors = state_count == 2 ? 4 : 3;
    accel_tensor_span_t spans[4] = {{0}};
    accel_dtype_t dtypes[4] = {ACCEL_DTYPE_F32};
    optim_range_t ranges[4];
    char labels[4][64];
    int devices[4] = {0};
    unsigned allowed = memory == ACCEL_OPTIM_HOST_MEMORY ? ACCEL_TENSOR_HOST : ACCEL_TENSOR_DEVICE;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (state_count != 1 && state_count != 2)
        return accel_error(ACCEL_ERROR_INTERNAL, "%s: %zu optimizer states", op, state_count);
    if (state_count == 1)
        names[2] = "state";
    for (size_t i = 0; i < n_tensors; i++) {
        snprintf(labels[i], sizeof labels[i], "%s: %s", op, names[i]);
        status = accel_tensor_span_check(labels[i], tensors[i], &spans[i]);
        if (status != ACCEL_OK)
            return status;
        if (!accel_optim_dtype(tensors[i]->dtype, &dtypes[i]))
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: %s tensor has DLPack dtype code %u bits %u lanes %u; "
                               "optimizer tensors are float32, float16 or bfloat16",
                               op, names[i], tensors[i]->dtype.code, tensors[i]->dtype.bits,
                               tensors[i]->dtype.lanes);
        if (spans[i].count != spans[0].count)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: %s tensor has %zu elements but param has %zu", op, names[i],
                               spans[i].count, spans[0].count);
    }
    if (dtypes[1] != dtypes[0])
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: grad is %s but param is %s; grad must have the param's dtype", op,
                           accel_dtype_name(dtypes[1]), accel_dtype_name(dtypes[0]));
    if (n_tensors == 4 && dtypes[3] != dtypes[2])
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: exp_avg is %s but exp_avg_sq is %s; the states share one dtype", op,
                           accel_dtype_name(dtypes[2]), accel_dtype_name(dtypes[3]));
    if (!pair_supported(dtypes[0], dtypes[2]))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: param type %s with state type %s is not supported (supported: "
                           "float32/float32, float16/float32, bfloat16/float32, float16/float16, "
                           "bfloat16/bfloat16)",
                           op, accel_dtype_name(dtypes[0]), accel_dtype_name(dtypes[2]));
    for (size_t i = 0; i < n_tensors; i++) {
        accel_tensor_memory_t where;
        ranges[i] = (optim_range_t){names[i], spans[i].start, spans[i].bytes};
        status = accel_tensor_span_locate(acc, labels[i], tensors[i], &spans[i], allowed, &where,
                                          &devices[i]);
        if (status != ACCEL_OK)
            return status;
        if (memory == ACCEL_OPTIM_DEVICE_MEMORY && devices[i] != devices[0])
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s: %s tensor is on device %d but param is on device %d", op,
                               names[i], devices[i], devices[0]);
    }
    status = check_disjoint(op, ranges, n_tensors);
    if (status != ACCEL_OK)
        return status;
    *out = (accel_optim_view_t){.param = (void *)ranges[0].start,
                                .grad = ranges[1].start,
                                .state1 = (void *)ranges[2].start,
                                .state2 = n_tensors == 4 ? (void *)ranges[3].start : NULL,
                                .count = spans[0].count,
                                .param_dtype = dtypes[0],
                                .state_dtype = dtypes[2],
                                .device = devices[0]};
    return ACCEL_OK;
}
