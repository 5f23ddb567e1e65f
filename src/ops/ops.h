/* ops.h: what the op builders of every backend share: the validated view of
 * an optimizer step's tensors, the host (CPU) builders that every backend
 * lists, and the dtype helpers. Stateless; safe from any thread. */
#ifndef ACCEL_OPS_OPS_H
#define ACCEL_OPS_OPS_H

#include <stdbool.h>
#include <stddef.h>

#include "accel/accel_backend.h"
#include "accel/accel_ops.h"

/* Where a step's tensors must live. */
typedef enum accel_optim_memory {
    ACCEL_OPTIM_HOST_MEMORY,   /* host ops: kDLCPU or a *Host (pinned) device type */
    ACCEL_OPTIM_DEVICE_MEMORY, /* device ops: this backend's DLPack device type */
} accel_optim_memory_t;

/* A step's tensors after validation: base pointers with byte_offset applied,
 * the shared element count and the (param, state) dtypes. state2 is NULL for
 * one-state optimizers (Adagrad, Lion). Borrowed from the caller's tensors. */
typedef struct accel_optim_view {
    void *param;
    const void *grad;
    void *state1;
    void *state2;
    size_t count;
    accel_dtype_t param_dtype;
    accel_dtype_t state_dtype;
    int device; /* the tensors' device_id */
} accel_optim_view_t;

/* Validate param, grad and `state_count` (1 or 2) state tensors for
 * `op_name` (used in messages; state2 is ignored when state_count is 1):
 * non-NULL, contiguous, same element count, grad in the param dtype, a
 * supported (param, state) pair, no overlap, memory of the right kind for
 * `acc`. On failure sets the last error and returns INVALID_ARGUMENT. */
accel_status_t accel_optim_view_make(const char *op_name, accel_t *acc, accel_optim_memory_t memory,
                                     const DLTensor *param, const DLTensor *grad,
                                     const DLTensor *state1, const DLTensor *state2,
                                     size_t state_count, accel_optim_view_t *out);

/* Check every entry of a step over tensor lists (step_multi in accel_ops.h)
 * as accel_optim_view_make checks one step; for device memory also one
 * device for all entries and element-aligned data. The failing entry's index
 * starts the error sentence. OK for count 0. states2 is ignored for one
 * state. */
accel_status_t accel_optim_lists_check(const char *op, accel_t *acc, accel_optim_memory_t memory,
                                       size_t count, const DLTensor *params, const DLTensor *grads,
                                       const DLTensor *states1, const DLTensor *states2,
                                       size_t state_count);

/* One entry of an offload step (accel_offload_entry_t) after validation:
 * base pointers with byte_offset applied. lp is NULL when the entry has no
 * low-precision copy. Borrowed from the caller's tensors. */
typedef struct accel_offload_view {
    float *param;
    const void *grad;
    float *exp_avg;
    float *exp_avg_sq;
    void *lp;
    size_t count;
    accel_dtype_t grad_dtype; /* f32, f16 or bf16 */
    accel_dtype_t lp_dtype;   /* f16 or bf16; unused when lp is NULL */
} accel_offload_view_t;

/* Validate an offload step (accel_ops.h, accel_offload_config_t): config,
 * result, and every entry's hyper-parameters, step and tensors (host
 * memory), and that no two tensors of the whole call overlap. Fills
 * views[0..count) (the caller's array). INVALID_ARGUMENT naming the entry
 * otherwise; OUT_OF_MEMORY when the overlap check cannot allocate. */
accel_status_t accel_offload_check(const char *op, accel_t *acc,
                                   const accel_offload_config_t *config, size_t count,
                                   const accel_offload_entry_t *entries,
                                   const accel_offload_result_t *result,
                                   accel_offload_view_t *views);

/* The factor pass 2 multiplies the grads by (1 / combined scale) and the
 * combined scale itself, from the f32 norm, as DeepSpeed's
 * unscale_and_clip_grads computes them (accel_ops.h). */
void accel_offload_scale(const accel_offload_config_t *config, float grad_norm,
                         float *combined_scale, float *inverse);

/* Hyper-parameter checks with torch.optim's rules (0 <= lr, eps, weight_decay;
 * 0 <= beta < 1; all finite). INVALID_ARGUMENT naming the bad field. */
accel_status_t accel_adam_config_check(const char *op_name, const accel_adam_config_t *config,
                                       uint64_t step);
accel_status_t accel_adagrad_config_check(const char *op_name,
                                          const accel_adagrad_config_t *config);
accel_status_t accel_lion_config_check(const char *op_name, const accel_lion_config_t *config);
/* LAMB adds: 0 < max_coeff, 0 <= min_coeff <= max_coeff, 0 < grad_scale. */
accel_status_t accel_lamb_config_check(const char *op_name, const accel_lamb_config_t *config,
                                       uint64_t step);

/* Bytes of one element of the supported optimizer dtypes (f32, f16, bf16). */
size_t accel_optim_dtype_size(accel_dtype_t dtype);

/* The per-step scalars (accel_adam_coeffs_t and friends, declared in
 * accel_backend.h because device kernels receive them), computed once per
 * call in double and rounded to f32. DeepSpeed keeps beta^t in f32 across
 * steps; computing it from `step` makes a step independent of the ones
 * before it. */
void accel_adam_coeffs_make(const accel_adam_config_t *config, uint64_t step,
                            accel_adam_coeffs_t *out);

/* Adagrad's per-step scalars (host kernels only). */
typedef struct accel_adagrad_coeffs {
    float step_size; /* -lr */
    float eps;
    float weight_decay;
} accel_adagrad_coeffs_t;

void accel_lion_coeffs_make(const accel_lion_config_t *config, accel_lion_coeffs_t *out);
void accel_lamb_coeffs_make(const accel_lamb_config_t *config, uint64_t step,
                            accel_lamb_coeffs_t *out);
void accel_adagrad_coeffs_make(const accel_adagrad_config_t *config, accel_adagrad_coeffs_t *out);
/* The accel dtype of a DLPack type among the optimizer dtypes (f32, f16,
 * bf16, one lane); false for any other (optim_check.c, offload_check.c). */
bool accel_optim_dtype(DLDataType dl, accel_dtype_t *out);

/* The builders core lists on every accelerator (builders.c): the host
 * optimizer ops, then FusedAdam/FusedLion (the backend's fused_optim kernels,
 * or the host ops where the backend's memory is host memory), then the
 * backend's own op_builders. Allocates *out (freed by accel_ops_builders_free)
 * and fills each wrapper's desc and self. (*out)[*out_count], one past the
 * listed builders, is DeepSpeed's NotImplementedBuilder, which
 * accel_get_op_builder gives for a name the accelerator lacks. */
accel_status_t accel_ops_builders_make(accel_t *acc, accel_op_builder_t **out, size_t *out_count);
/* Frees the `count` listed builders and the NotImplementedBuilder after them. */
void accel_ops_builders_free(accel_op_builder_t *builders, size_t count);
/* Whether `builder` is the NotImplementedBuilder. */
bool accel_ops_builder_is_not_implemented(const accel_op_builder_t *builder);

/* The host builders' functions (host_ops.c); `self` is unused. */
bool accel_host_optim_is_compatible(void *self, char *reason, size_t reason_cap);
accel_status_t accel_host_adam_load(void *self, const void **out);
accel_status_t accel_host_adagrad_load(void *self, const void **out);
accel_status_t accel_host_lion_load(void *self, const void **out);
/* Wait for `stream` (NULL: nothing to wait for), as every host op does
 * before touching its tensors (host_ops.c). */
accel_status_t accel_host_wait_stream(accel_t *acc, accel_stream_t *stream);
/* accel_adam_op_t.offload_step on host memory (src/ops/cpu/host_offload.c). */
accel_status_t accel_host_offload_step(accel_t *acc, accel_stream_t *stream,
                                       const accel_offload_config_t *config, size_t count,
                                       const accel_offload_entry_t *entries,
                                       accel_offload_result_t *result);
/* FusedLamb on host memory (src/ops/cpu/host_ops.c). */
accel_status_t accel_host_lamb_load(void *self, const void **out);

/* AsyncIOBuilder (aio/builder.c), listed on every backend; `self` unused.
 * is_compatible is always true and writes the I/O path handles use into
 * reason (io_uring, or threads and why). */
bool accel_aio_is_compatible(void *self, char *reason, size_t reason_cap);
accel_status_t accel_aio_load(void *self, const void **out);

/* "avx512", "avx2" or "scalar": the kernels the host ops use (host_ops.c). */
const char *accel_host_optim_implementation(void);

/* What a listed builder is (builders.c): core's host ops, core's device ops
 * over the backend's fused_optim kernels, the backend's own, the backend's
 * fused ops listed as not compatible here (info->fused_ops_unavailable), or
 * the NotImplementedBuilder. */
typedef enum accel_ops_builder_kind {
    ACCEL_OPS_BUILDER_HOST,
    ACCEL_OPS_BUILDER_DEVICE,
    ACCEL_OPS_BUILDER_BACKEND,
    ACCEL_OPS_BUILDER_NOT_IMPLEMENTED,
    ACCEL_OPS_BUILDER_UNAVAILABLE,
} accel_ops_builder_kind_t;

accel_ops_builder_kind_t accel_ops_builder_kind(const accel_op_builder_t *builder);

/* The fused builders of a backend with a fused_optim table (device_ops.c);
 * `self` is the accel_t. */
bool accel_device_optim_is_compatible(void *self, char *reason, size_t reason_cap);
accel_status_t accel_device_adam_load(void *self, const void **out);
accel_status_t accel_device_lion_load(void *self, const void **out);
accel_status_t accel_device_lamb_load(void *self, const void **out);

#endif /* ACCEL_OPS_OPS_H */
