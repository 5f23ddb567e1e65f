/* accel_ops.h: the op tables that accel_op_builder_load() returns, and the
 * hyper-parameter structs they take. One table type per op family:
 *
 *   builder (DeepSpeed's class name)   op name      table
 *   CPUAdamBuilder                     cpu_adam     accel_adam_op_t
 *   FusedAdamBuilder                   fused_adam   accel_adam_op_t
 *   CPUAdagradBuilder                  cpu_adagrad  accel_adagrad_op_t
 *   CPULionBuilder                     cpu_lion     accel_lion_op_t
 *   FusedLionBuilder                   fused_lion   accel_lion_op_t
 *   FusedLambBuilder                   fused_lamb   accel_lamb_op_t
 *   AsyncIOBuilder                     async_io     accel_aio_op_t
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
 * async_io (file I/O of tensors, DeepSpeed's aio_handle) has its own rules,
 * given with accel_aio_op_t below.
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

#define ACCEL_ADAM_CONFIG_DEFAULT                                                                  \
    {                                                                                              \
        1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, true, true                                               \
    }

/* Adagrad (DeepSpeedCPUAdagrad): g = grad (+ weight_decay * p when > 0);
 * v += g * g;  p += -lr * g / (sqrt(v) + eps). */
typedef struct accel_adagrad_config {
    float lr;
    float eps;
    float weight_decay;
} accel_adagrad_config_t;

#define ACCEL_ADAGRAD_CONFIG_DEFAULT                                                               \
    {                                                                                              \
        1e-2f, 1e-10f, 0.0f                                                                        \
    }

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

#define ACCEL_LION_CONFIG_DEFAULT                                                                  \
    {                                                                                              \
        1e-3f, 0.9f, 0.999f, 0.0f                                                                  \
    }

/* LAMB (DeepSpeed's FusedLamb), its arguments and defaults. One step of a
 * tensor, with g = grad / grad_scale and denom = sqrt(v) + eps (or
 * sqrt(v + eps) with eps_inside_sqrt):
 *   m = beta1 * m + (1 - beta1) * g
 *   v = beta2 * v + (1 - beta2) * g * g
 *   u = m / denom + weight_decay * p          (m and v as stored)
 *   ratio = |p| / |u| (L2 norms over the whole tensor, p before the step),
 *           clamped to [min_coeff, max_coeff]; 1 when either norm is 0
 *   p -= step_size * ratio * u
 * where step_size = lr * sqrt(1 - beta2^t) / (1 - beta1^t) with bias
 * correction, else lr. As in DeepSpeed, eps is added to the uncorrected
 * sqrt(v), and the trust ratio is per tensor: one call is one parameter
 * tensor. The norms are summed in a fixed order (accel_backend.h,
 * ACCEL_LAMB_SEGMENT) so host and device kernels agree bit for bit.
 * max_grad_norm clipping is the caller's: fold it into grad_scale. */
typedef struct accel_lamb_config {
    float lr;
    float beta1;
    float beta2;
    float eps;
    float weight_decay;
    float max_coeff;  /* > 0 */
    float min_coeff;  /* 0 <= min_coeff <= max_coeff */
    float grad_scale; /* > 0; 1 = unscaled gradients */
    bool bias_correction;
    bool eps_inside_sqrt;
} accel_lamb_config_t;

#define ACCEL_LAMB_CONFIG_DEFAULT                                                                  \
    {                                                                                              \
        1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f, 10.0f, 0.01f, 1.0f, true, false                          \
    }

/* ---- ZeRO-Offload's CPU phase in two passes (accel_adam_op_t.offload_step)
 *
 * What DeepSpeed's ZeRO-1/2 step does with offload_optimizer: cpu
 * (deepspeed/runtime/zero/stage_1_and_2.py, step()), over the partitions
 * this rank owns:
 *   1. overflow: any grad element inf or NaN -> skip the step;
 *   2. norm = L2 norm of all the grads as given (still loss-scaled), summed
 *      in double, rounded to f32;
 *   3. unscale and clip (unscale_and_clip_grads), in f32:
 *        combined = loss_scale                                clip_grad == 0
 *        combined = max(1, (norm / loss_scale + 1e-6) / clip_grad) * loss_scale
 *      g = grad * (1 / combined)
 *   4. the Adam step of accel_adam_config_t on (param, exp_avg, exp_avg_sq)
 *      with that g (DeepSpeedCPUAdam);
 *   5. lp_param = param rounded to nearest even (the fp32 -> bf16/fp16 copy).
 * Done one step after another that is four passes over memory (46 bytes
 * per parameter with fp32 grads; DeepSpeed takes 1-2 on the device before
 * the grads come to the host, so its host makes the last three, 42 bytes).
 * This makes two (34): pass 1 reads the grads for 1-2, pass 2 does 3-5
 * element by element, so g * (1 / combined) is never stored. The
 * results are those of the unfused sequence: the same f32 operations in the
 * same order; only the norm's summation order is accel's (fixed: the same
 * bits for any thread count and instruction set).
 *
 * Overflow is a result, not an error: result->overflow is set, ACCEL_OK is
 * returned and nothing is written (params, moments and lp_params keep their
 * values; the caller does not count the step, as DeepSpeed's loss scaler
 * does not). Bad input (NULL config or result, struct_size too small, a bad
 * hyper-parameter or step in any entry, a tensor of the wrong dtype, size or
 * memory, two tensors of the call overlapping) returns INVALID_ARGUMENT
 * naming the entry and writes nothing, result included. count 0 gives norm
 * 0 and no overflow; entries may then be NULL.
 * Threads: the host ops' rules (above): waits for `stream`, then runs both
 * passes on the CPU worker pool and returns when done. */
typedef struct accel_offload_config {
    size_t struct_size; /* sizeof(accel_offload_config_t) */
    float loss_scale;   /* > 0 and finite; the grads hold loss_scale * gradient */
    float clip_grad;    /* >= 0 and finite; 0 = no clipping (DeepSpeed's gradient_clipping) */
} accel_offload_config_t;

/* One fp32 master partition: param, exp_avg and exp_avg_sq float32; grad
 * float32, float16 or bfloat16; lp_param (optional, NULL = no copy) float16
 * or bfloat16; all with param's element count, contiguous host memory, no
 * two tensors of the call overlapping. `adam` and `step` (>= 1) are this
 * entry's group hyper-parameters and DeepSpeedCPUAdam's state['step']. */
typedef struct accel_offload_entry {
    DLTensor *param;
    const DLTensor *grad;
    DLTensor *exp_avg;
    DLTensor *exp_avg_sq;
    DLTensor *lp_param;
    const accel_adam_config_t *adam;
    uint64_t step;
} accel_offload_entry_t;

typedef struct accel_offload_result {
    bool overflow;        /* a grad was inf or NaN: nothing was written */
    float grad_norm;      /* the loss-scaled norm (DeepSpeed's scaled_global_grad_norm);
                             inf or NaN on overflow */
    float combined_scale; /* what the grads were divided by; loss_scale on overflow */
} accel_offload_result_t;

typedef struct accel_adam_op {
    size_t struct_size;
    /* What runs the step: "avx512", "avx2", "scalar" (host ops, chosen from
     * cpuid at load time, capped by ACCEL_CPU_ISA), "opencl", "cuda". */
    const char *implementation;
    /* One step, number `step` (1 for the first; 0 is refused), over one
     * parameter tensor and its two moments. */
    accel_status_t (*step)(accel_t *acc, accel_stream_t *stream, const accel_adam_config_t *config,
                           uint64_t step, DLTensor *param, const DLTensor *grad, DLTensor *exp_avg,
                           DLTensor *exp_avg_sq);
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
    /* (added after step_multi: check struct_size; NULL in device op tables,
     * FusedAdam on a device backend) ZeRO-Offload's CPU phase, see
     * accel_offload_config_t above. Host memory only. */
    accel_status_t (*offload_step)(accel_t *acc, accel_stream_t *stream,
                                   const accel_offload_config_t *config, size_t count,
                                   const accel_offload_entry_t *entries,
                                   accel_offload_result_t *result);
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
                                 const accel_lion_config_t *config, size_t count, DLTensor *params,
                                 const DLTensor *grads, DLTensor *exp_avgs);
} accel_lion_op_t;

/* LAMB: one step, number `step` (>= 1), over one parameter tensor and its
 * two moments (exp_avg, exp_avg_sq). */
typedef struct accel_lamb_op {
    size_t struct_size;
    const char *implementation;
    accel_status_t (*step)(accel_t *acc, accel_stream_t *stream, const accel_lamb_config_t *config,
                           uint64_t step, DLTensor *param, const DLTensor *grad, DLTensor *exp_avg,
                           DLTensor *exp_avg_sq);
} accel_lamb_op_t;

/* ---- async_io: DeepSpeed's aio_handle (AsyncIOBuilder, csrc/aio)
 *
 * A handle reads and writes the bytes of contiguous DLPack tensors from and
 * to files at an offset, synchronously or asynchronously (then wait()). Each
 * request is split into block_size pieces, spread over the handle's
 * intra_op_parallelism threads, each keeping up to queue_depth pieces in
 * flight (io_uring through liburing.so.2 where the kernel allows it, else
 * plain pread/pwrite on those threads; the table's implementation says
 * which, ACCEL_AIO_ENGINE forces one).
 *
 * Memory: host tensors (kDLCPU, or a pinned *Host type) are read and written
 * in place when they suit O_DIRECT (address aligned to `alignment`), else
 * through the handle's aligned bounce buffers. Tensors in the accelerator's
 * device memory go through pinned bounce buffers, the device copy of one
 * block overlapping the file I/O of the next.
 *
 * O_DIRECT (config.direct, the default as in DeepSpeed): file_offset must be
 * a multiple of `alignment` (4096), else INVALID_ARGUMENT naming it; block_size
 * must be one too. A length that is not a multiple is fine: the last partial
 * block goes through the page cache.
 *
 * Errors: a write never reports bytes written that were not: a short write
 * (full disk, file size limit) fails the request with what was written; a
 * read past the end of the file fails it with how much was there. A failed
 * async request is reported by the wait() that collects it.
 *
 * Threads: a handle may be used from one thread at a time (calls on one
 * handle are serialised by its lock); different handles are independent.
 * The tensors of an async request must stay alive and untouched until
 * wait() returns. Queued requests may overlap in time (as in DeepSpeed):
 * wait() between an async write and a read of the same bytes. */
typedef struct accel_aio_handle accel_aio_handle_t;

typedef struct accel_aio_config {
    size_t struct_size;            /* sizeof(accel_aio_config_t) */
    size_t block_size;             /* bytes per I/O; default 1 MiB */
    unsigned queue_depth;          /* I/Os in flight per thread; default 128 */
    bool single_submit;            /* submit I/Os one by one instead of in batches */
    bool overlap_events;           /* refill as each I/O completes (else per batch) */
    unsigned intra_op_parallelism; /* threads per handle; default 1 */
    bool direct;                   /* O_DIRECT; default true */
} accel_aio_config_t;

#define ACCEL_AIO_CONFIG_DEFAULT                                                                   \
    {                                                                                              \
        sizeof(accel_aio_config_t), 1024 * 1024, 128, false, false, 1, true                        \
    }

typedef struct accel_aio_op {
    size_t struct_size;
    /* "io_uring" or "threads": what the handles made from this table use. */
    const char *implementation;
    /* Alignment O_DIRECT needs of file offsets and block sizes (4096). */
    size_t alignment;
    /* A handle for accelerator `acc` (device tensors use its copies). NULL
     * config = ACCEL_AIO_CONFIG_DEFAULT. */
    accel_status_t (*handle_create)(accel_t *acc, const accel_aio_config_t *config,
                                    accel_aio_handle_t **out);
    /* Waits for pending requests (their errors are dropped), then frees. */
    void (*handle_destroy)(accel_aio_handle_t *handle);
    /* Read the tensor's bytes from `path` at file_offset into the tensor.
     * With async false, returns when done, collecting (as wait() does) the
     * requests queued before it too, whose failure it then reports; with
     * true, returns once queued. */
    accel_status_t (*pread)(accel_aio_handle_t *handle, DLTensor *tensor, const char *path,
                            uint64_t file_offset, bool async);
    /* Write the tensor's bytes to `path` (created if missing, never
     * truncated) at file_offset. */
    accel_status_t (*pwrite)(accel_aio_handle_t *handle, const DLTensor *tensor, const char *path,
                             uint64_t file_offset, bool async);
    /* Wait for every queued request; *completed (may be NULL) = how many
     * finished, failed ones included. Returns the first failure's status
     * (its message in accel_last_error), else ACCEL_OK. */
    accel_status_t (*wait)(accel_aio_handle_t *handle, size_t *completed);
    /* The handle's settings, as DeepSpeed's get_block_size... */
    accel_status_t (*get_config)(const accel_aio_handle_t *handle, accel_aio_config_t *out);
    /* DeepSpeed's new_cpu_locked_tensor / free_cpu_locked_tensor: `size`
     * bytes of host memory aligned to `alignment` (so O_DIRECT reads and
     * writes it in place) and pinned through the handle's accelerator where
     * it can pin (fast device copies). Free with pinned_free on the same
     * handle, before destroying it. */
    accel_status_t (*pinned_alloc)(accel_aio_handle_t *handle, size_t size, void **out);
    accel_status_t (*pinned_free)(accel_aio_handle_t *handle, void *ptr);
} accel_aio_op_t;

#ifdef __cplusplus
}
#endif

#endif /* ACCEL_ACCEL_OPS_H */
