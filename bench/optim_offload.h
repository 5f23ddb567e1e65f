/* optim_offload.h: the optim suite's ZeRO-Offload figures (optim_offload.c):
 * accel's fused two-pass CPU phase against ZeRO-2's four passes, and each
 * against its STREAM ceiling. */
#ifndef ACCEL_BENCH_OPTIM_OFFLOAD_H
#define ACCEL_BENCH_OPTIM_OFFLOAD_H

#include <accel/accel_ops.h>

#include "bench.h"

/* Three figures for 2^log2_count parameters with `grad_dtype` grads (f32
 * or bf16): fused vs unfused (G params/s, goal 1.3x), and fused and unfused
 * as fractions of their ceilings. `adam` is CPUAdamBuilder's table, or NULL
 * with `load_error` saying why. */
void bench_optim_offload(bench_ctx_t *ctx, const accel_adam_op_t *adam, const char *load_error,
                         unsigned log2_count, accel_dtype_t grad_dtype);

#endif /* ACCEL_BENCH_OPTIM_OFFLOAD_H */
