/* accel_ops.h: the op tables that accel_op_builder_load() returns, and the
 * hyper-parameter structs they take. One table type per op family:
 *
 *   builder (DeepSpeed's class name)   op name      table
 *   CPUAdamBuilder                     cpu_adam     accel_adam_op_t
 *   FusedAdamBuilder                   fused_adam   accel_adam_op_t
 *   CPUAdagradBuilder                  cpu_adagrad  accel_adagrad_op_t
 *   CPULionBuilder                     cpu_lion     accel_lion_op_t
 *   FusedLionBuilder                   fused_lion   accel_lion_op_t
 *
 * The "cpu_" ops are host ops on every backend (as in DeepSpeed: ZeRO-Offload
 * keeps optimizer state in host memory whatever the accelerator). The "fused_"
 * ops run on the backend's devices; on the cpu backend they are the host ops.
 *
 * Tensors are DLPack DLTensors, contiguous (strides NULL or compact row-major),
 * byte_offset honoured (data + byte_offset + the tensor's bytes must not wrap
 * past the end of the address space). grad has the param's dtype and element count; the
 * state tensors share one dtype. Supported (param, state) dtype pairs, as in
 * DeepSpeed: (f32,f32) (f16,f32) (bf16,f32) (f16,f16) (bf16,bf16). All
 * arithmetic is f32; f16 and bf16 are stored rounding to nearest even, and a
 * NaN stays a NaN.
 *
 * Alignment: host ops take tensors at any address (their kernels use
 * unaligned loads and stores, so a step on data one byte off a boundary gives
 * the same bits as on aligned data). Device ops need each tensor's data +
 * byte_offset aligned to its element size and refuse anything else with
 * INVALID_ARGUMENT.
 *
 * Ordering and threads:
 * - Host ops first wait for `stream` when it is not NULL, then run the whole
 *   step before returning (on the calling thread and accel's CPU worker pool,
 *   ACCEL_CPU_THREADS). The tensors must be host memory: device memory
 *   labelled kDLCPU is refused unless the backend's device memory is host
 *   memory (the cpu backend).
 * - Device ops queue the step on `stream` (NULL = the calling thread's current
 *   stream) and return; the tensors must be memory of this backend's device.
 * - The tables are owned by the library, valid until the process ends, and
 *   may be called from any thread; two steps must not write the same tensors
 *   at the same time.
 * - Bad input (NULL, mismatched sizes, an unsupported dtype pair, step 0, a
 *   tensor in the wrong memory) returns INVALID_ARGUMENT and touches nothing.
 *
 * Tables only grow: new members are appended, and callers check struct_size
 * before using a member added after the first version. */
#ifndef ACCEL_ACCEL_OPS_H
#define ACCEL_ACCEL_OPS_H

#include "accel/accel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adam / AdamW, DeepSpeedCPUAdam's arguments and defaults. With
 * bc1 = 1 - beta1^t and bc2 = 1 / sqrt(1 - beta2^t) (both 1 without bias
 * correction), one step of element i is:
 *   g = grad;            if (weight_decay > 0 && !adamw_mode) g += weight_decay * p
 *   m = beta1 * m + (1 - beta1) * g
 *   v = beta2 * v + (1 - beta2) * g * g
 *   if (weight_decay > 0 && adamw_mode) p += (-lr * weight_decay) * p
 *   p += (-lr / bc1) * m / (sqrt(v) * bc2 + eps) */
typedef struct accel_adam_config {
    float lr;
    float beta1;
    float beta2;
    float eps;
    float weight_decay;
    bool bias_correction;
    bool adamw_mode; /* true: decoupled weight decay (AdamW); false: L2 added to g */
} accel_adam_config_t;

#define ACCEL_ADAM_CONFIG_DEFAULT {1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, true, true}

/* Adagrad (DeepSpeedCPUAdagrad): g = grad (+ weight_decay * p when > 0);
 * v += g * g;  p += -lr * g / (sqrt(v) + eps). */
typedef struct accel_adagrad_config {
    float lr;
    float eps;
    float weight_decay;
} accel_adagrad_config_t;

#define ACCEL_ADAGRAD_CONFIG_DEFAULT {1e-2f, 1e-10f, 0.0f}

/* Lion (DeepSpeedCPULion): c = beta1 * m + (1 - beta1) * g;
 * p = p * (1 - lr * weight_decay) (when weight_decay > 0);
 * p += -lr * sign(c), where sign takes c's sign bit (so +0 steps down, as
 * DeepSpeed's kernel does); m = beta2 * m + (1 - beta2) * g. */
typedef struct accel_lion_config {
    float lr;
    float beta1;
    float beta2;
    float weight_decay;
} accel_lion_config_t;

#define ACCEL_LION_CONFIG_DEFAULT {1e-3f, 0.9f, 0.999f, 0.0f}

typedef struct accel_adam_op {
    size_t struct_size;
    /* What runs the step: "avx512", "avx2", "scalar" (host ops, chosen from
     * cpuid at load time, capped by ACCEL_CPU_ISA), "opencl", "cuda". */
    const char *implementation;
    /* One step, number `step` (1 for the first; 0 is refused), over one
     * parameter tensor and its two moments. */
    accel_status_t (*step)(accel_t *acc, accel_stream_t *stream, const accel_adam_config_t *config,
                           uint64_t step, DLTensor *param, const DLTensor *grad,
                           DLTensor *exp_avg, DLTensor *exp_avg_sq);
    /* (added after the first version: check struct_size) One step over
     * lists of `count` tensors each, DeepSpeed's FusedAdam multi_tensor_adam
     * over [grads, params, exp_avgs, exp_avg_sqs]: what `step` does to
     * entry i of the four arrays, for every i, in order. Every entry is
     * checked before any runs (the rules of `step`; device ops also need one
     * device for all entries), so bad input anywhere returns
     * INVALID_ARGUMENT naming the entry and touches nothing. count 0 does
     * nothing; the arrays may then be NULL. Entries must not share memory. */
    accel_status_t (*step_multi)(accel_t *acc, accel_stream_t *stream,
                                 const accel_adam_config_t *config, uint64_t step, size_t count,
                                 DLTensor *params, const DLTensor *grads, DLTensor *exp_avgs,
                                 DLTensor *exp_avg_sqs);
} accel_adam_op_t;

typedef struct accel_adagrad_op {
    size_t struct_size;
    const char *implementation;
    accel_status_t (*step)(accel_t *acc, accel_stream_t *stream,
                           const accel_adagrad_config_t *config, DLTensor *param,
                           const DLTensor *grad, DLTensor *exp_avg_sq);
} accel_adagrad_op_t;

typedef struct accel_lion_op {
    size_t struct_size;
    const char *implementation;
    accel_status_t (*step)(accel_t *acc, accel_stream_t *stream, const accel_lion_config_t *config,
                           DLTensor *param, const DLTensor *grad, DLTensor *exp_avg);
    /* (added after the first version: check struct_size) `step` over lists
     * of `count` tensors (FusedLion's multi-tensor apply), with the rules of
     * accel_adam_op_t's step_multi. */
    accel_status_t (*step_multi)(accel_t *acc, accel_stream_t *stream,
                                 const accel_lion_config_t *config, size_t count,
                                 DLTensor *params, const DLTensor *grads, DLTensor *exp_avgs);
} accel_lion_op_t;

#ifdef __cplusplus
}
#endif

#endif /* ACCEL_ACCEL_OPS_H */
