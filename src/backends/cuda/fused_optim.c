/* fused_optim.c: FusedAdam, FusedLion and FusedLamb on CUDA devices: CUDA C kernels
 * doing exactly the host kernels' arithmetic (src/ops/cpu/optim_scalar.c:
 * same operations in the same order, each correctly rounded through the
 * __*_rn intrinsics, fma where the host fuses), compiled at run time with
 * NVRTC and cached on disk by the backend (backends/cuda/kernels.c), and
 * launched with cuLaunchKernel on the caller's stream. Core validates every
 * step before it reaches a slot here. Constant; any thread. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "backends/cuda/fused_optim.h"

#define OPTIM_THREADS    256u
#define OPTIM_MAX_BLOCKS 65535u /* the kernels stride over the rest */

/* The kernels take the host's coefficient structs by value. */
_Static_assert(sizeof(accel_adam_coeffs_t) == 9 * sizeof(float) &&
                   offsetof(accel_adam_coeffs_t, decoupled_decay) == 8 * sizeof(float),
               "accel_adam_coeffs_t no longer matches struct adam_coeffs of the CUDA source");
_Static_assert(sizeof(accel_lamb_coeffs_t) == 11 * sizeof(float) &&
                   offsetof(accel_lamb_coeffs_t, eps_inside_sqrt) == 5 * sizeof(float) &&
                   offsetof(accel_lamb_coeffs_t, min_coeff) == 10 * sizeof(float),
               "accel_lamb_coeffs_t no longer matches struct lamb_coeffs of the CUDA source");
_Static_assert(sizeof(accel_lion_coeffs_t) == 7 * sizeof(float) &&
                   offsetof(accel_lion_coeffs_t, has_decay) == 6 * sizeof(float),
               "accel_lion_coeffs_t no longer matches struct lion_coeffs of the CUDA source");

/* float16 converts with the PTX cvt instructions (round to nearest even),
 * NaNs by hand so that they come out as the host's (half.h); bfloat16 is the
 * top half of a float, rounded to nearest even, NaN kept quiet. */
static const char optim_source[] =
    "typedef unsigned short u16;\n"
    "typedef unsigned int u32;\n"
    "typedef unsigned long long u64;\n"
    "\n"
    "/* accel_adam_coeffs_t and accel_lion_coeffs_t (src/ops), member for member. */\n"
    "struct adam_coeffs {\n"
    "    float beta1, one_minus_beta1, beta2, one_minus_beta2, eps, step_size, bc2;\n"
    "    float l2_decay, decoupled_decay;\n"
    "};\n"
    "struct lion_coeffs {\n"
    "    float beta1, one_minus_beta1, beta2, one_minus_beta2, step_size, after_decay;\n"
    "    int has_decay;\n"
    "};\n"
    "\n"
    "/* The PTX conversions, as macros: tests/sim/cudadrv runs this source on\n"
    " * the host, where cuda_emulation.h defines them. */\n"
    "#ifndef ACCEL_CUDA_HOST_EMULATION\n"
    "#define ACCEL_CVT_F32_F16(out, in) asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(out) : \"h\"(in))\n"
    "#define ACCEL_CVT_RN_F16_F32(out, in) \\\n"
    "    asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(out) : \"f\"(in))\n"
    "#endif\n"
    "\n"
    "__device__ __forceinline__ float f16_to_f32(u16 h)\n"
    "{\n"
    "    float f;\n"
    "    if ((h & 0x7c00u) == 0x7c00u) /* inf or NaN, payload kept */\n"
    "        return __uint_as_float(((u32)(h & 0x8000u) << 16) | 0x7f800000u |\n"
    "                               ((u32)(h & 0x3ffu) << 13));\n"
    "    ACCEL_CVT_F32_F16(f, h);\n"
    "    return f;\n"
    "}\n"
    "\n"
    "__device__ __forceinline__ u16 f32_to_f16(float value)\n"
    "{\n"
    "    u32 bits = __float_as_uint(value);\n"
    "    u16 h;\n"
    "    if ((bits & 0x7fffffffu) > 0x7f800000u) /* NaN: quieted, top payload bits kept */\n"
    "        return (u16)(((bits >> 16) & 0x8000u) | 0x7e00u | ((bits >> 13) & 0x3ffu));\n"
    "    ACCEL_CVT_RN_F16_F32(h, value);\n"
    "    return h;\n"
    "}\n"
    "\n"
    "__device__ __forceinline__ u16 f32_to_bf16(float value)\n"
    "{\n"
    "    u32 bits = __float_as_uint(value);\n"
    "    if ((bits & 0x7fffffffu) > 0x7f800000u)\n"
    "        return (u16)(((bits >> 16) & 0x8000u) | 0x7fc0u);\n"
    "    bits += 0x7fffu + ((bits >> 16) & 1u);\n"
    "    return (u16)(bits >> 16);\n"
    "}\n"
    "\n"
    "/* DT: accel_dtype_t's code: 0 float32, 1 float16, 2 bfloat16. */\n"
    "template <int DT> __device__ __forceinline__ float load(const void *base, u64 i)\n"
    "{\n"
    "    if (DT == 0)\n"
    "        return ((const float *)base)[i];\n"
    "    u16 h = ((const u16 *)base)[i];\n"
    "    return DT == 1 ? f16_to_f32(h) : __uint_as_float((u32)h << 16);\n"
    "}\n"
    "\n"
    "template <int DT> __device__ __forceinline__ void store(void *base, u64 i, float value)\n"
    "{\n"
    "    if (DT == 0)\n"
    "        ((float *)base)[i] = value;\n"
    "    else if (DT == 1)\n"
    "        ((u16 *)base)[i] = f32_to_f16(value);\n"
    "    else\n"
    "        ((u16 *)base)[i] = f32_to_bf16(value);\n"
    "}\n"
    "\n"
    "template <int PT, int ST>\n"
    "__device__ void adam_range(void *param, const void *grad, void *exp_avg, void *exp_avg_sq,\n"
    "                           u64 count, const adam_coeffs &c)\n"
    "{\n"
    "    const u64 stride = (u64)gridDim.x * blockDim.x;\n"
    "    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {\n"
    "        float g = load<PT>(grad, i);\n"
    "        float p = load<PT>(param, i);\n"
    "        float m = load<ST>(exp_avg, i);\n"
    "        float s = load<ST>(exp_avg_sq, i);\n"
    "        if (c.l2_decay > 0.0f)\n"
    "            g = __fmaf_rn(p, c.l2_decay, g);\n"
    "        m = __fmaf_rn(g, c.one_minus_beta1, __fmul_rn(m, c.beta1));\n"
    "        s = __fmaf_rn(__fmul_rn(g, g), c.one_minus_beta2, __fmul_rn(s, c.beta2));\n"
    "        float update = __fdiv_rn(m, __fmaf_rn(__fsqrt_rn(s), c.bc2, c.eps));\n"
    "        if (c.decoupled_decay != 0.0f)\n"
    "            p = __fmaf_rn(p, c.decoupled_decay, p);\n"
    "        p = __fmaf_rn(update, c.step_size, p);\n"
    "        store<PT>(param, i, p);\n"
    "        store<ST>(exp_avg, i, m);\n"
    "        store<ST>(exp_avg_sq, i, s);\n"
    "    }\n"
    "}\n"
    "\n"
    "/* The step is -lr with the blend's sign bit flipped in: +0 steps down. */\n"
    "template <int PT, int ST>\n"
    "__device__ void lion_range(void *param, const void *grad, void *exp_avg, u64 count,\n"
    "                           const lion_coeffs &c)\n"
    "{\n"
    "    const u64 stride = (u64)gridDim.x * blockDim.x;\n"
    "    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {\n"
    "        float g = load<PT>(grad, i);\n"
    "        float p = load<PT>(param, i);\n"
    "        float m = load<ST>(exp_avg, i);\n"
    "        float blend = __fmaf_rn(g, c.one_minus_beta1, __fmul_rn(m, c.beta1));\n"
    "        float update = __uint_as_float(__float_as_uint(c.step_size) ^\n"
    "                                       (__float_as_uint(blend) & 0x80000000u));\n"
    "        p = c.has_decay ? __fmaf_rn(p, c.after_decay, update) : __fadd_rn(p, update);\n"
    "        m = __fmaf_rn(g, c.one_minus_beta2, __fmul_rn(m, c.beta2));\n"
    "        store<PT>(param, i, p);\n"
    "        store<ST>(exp_avg, i, m);\n"
    "    }\n"
    "}\n"
    "\n"
    "/* pair: 0 f32/f32, 1 f16/f32, 2 bf16/f32, 3 f16/f16, 4 bf16/bf16. */\n"
    "extern \"C\" __global__ void accel_fused_adam(void *param, const void *grad, void *exp_avg,\n"
    "                                            void *exp_avg_sq, u64 count, u32 pair,\n"
    "                                            adam_coeffs c)\n"
    "{\n"
    "    switch (pair) {\n"
    "    case 0: adam_range<0, 0>(param, grad, exp_avg, exp_avg_sq, count, c); break;\n"
    "    case 1: adam_range<1, 0>(param, grad, exp_avg, exp_avg_sq, count, c); break;\n"
    "    case 2: adam_range<2, 0>(param, grad, exp_avg, exp_avg_sq, count, c); break;\n"
    "    case 3: adam_range<1, 1>(param, grad, exp_avg, exp_avg_sq, count, c); break;\n"
    "    default: adam_range<2, 2>(param, grad, exp_avg, exp_avg_sq, count, c); break;\n"
    "    }\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void accel_fused_lion(void *param, const void *grad, void *exp_avg,\n"
    "                                            u64 count, u32 pair, lion_coeffs c)\n"
    "{\n"
    "    switch (pair) {\n"
    "    case 0: lion_range<0, 0>(param, grad, exp_avg, count, c); break;\n"
    "    case 1: lion_range<1, 0>(param, grad, exp_avg, count, c); break;\n"
    "    case 2: lion_range<2, 0>(param, grad, exp_avg, count, c); break;\n"
    "    case 3: lion_range<1, 1>(param, grad, exp_avg, count, c); break;\n"
    "    default: lion_range<2, 2>(param, grad, exp_avg, count, c); break;\n"
    "    }\n"
    "}\n"
    "\n"
    "/* LAMB in three kernels: the host's passes and summation order\n"
    " * (src/ops/cpu/lamb_scalar.c), one thread per segment for the partials. */\n"
    "struct lamb_coeffs {\n"
    "    float beta1, one_minus_beta1, beta2, one_minus_beta2, eps;\n"
    "    int eps_inside_sqrt;\n"
    "    float grad_scale, weight_decay, step_size, max_coeff, min_coeff;\n"
    "};\n"
    "\n"
    "template <int DT> __device__ __forceinline__ float store_back(void *base, u64 i, float "
    "value)\n"
    "{\n"
    "    store<DT>(base, i, value);\n"
    "    return load<DT>(base, i);\n"
    "}\n"
    "\n"
    "__device__ __forceinline__ float lamb_update(const lamb_coeffs &c, float p, float m, float "
    "v)\n"
    "{\n"
    "    float denom = c.eps_inside_sqrt ? __fsqrt_rn(__fadd_rn(v, c.eps))\n"
    "                                    : __fadd_rn(__fsqrt_rn(v), c.eps);\n"
    "    return __fmaf_rn(c.weight_decay, p, __fdiv_rn(m, denom));\n"
    "}\n"
    "\n"
    "template <int PT, int ST>\n"
    "__device__ void lamb_moments_range(void *param, const void *grad, void *exp_avg,\n"
    "                                   void *exp_avg_sq, u64 count, u64 segment, float "
    "*partials,\n"
    "                                   const lamb_coeffs &c)\n"
    "{\n"
    "    const u64 segments = (count + segment - 1) / segment;\n"
    "    const u64 stride = (u64)gridDim.x * blockDim.x;\n"
    "    for (u64 s = (u64)blockIdx.x * blockDim.x + threadIdx.x; s < segments; s += stride) {\n"
    "        u64 end = (s + 1) * segment < count ? (s + 1) * segment : count;\n"
    "        float w_sq = 0.0f, u_sq = 0.0f;\n"
    "        for (u64 i = s * segment; i < end; i++) {\n"
    "            float g = __fdiv_rn(load<PT>(grad, i), c.grad_scale);\n"
    "            float p = load<PT>(param, i);\n"
    "            float m = load<ST>(exp_avg, i);\n"
    "            float v = load<ST>(exp_avg_sq, i);\n"
    "            m = store_back<ST>(exp_avg, i,\n"
    "                               __fmaf_rn(g, c.one_minus_beta1, __fmul_rn(m, c.beta1)));\n"
    "            v = store_back<ST>(exp_avg_sq, i, __fmaf_rn(__fmul_rn(g, g), c.one_minus_beta2,\n"
    "                                                        __fmul_rn(v, c.beta2)));\n"
    "            float u = lamb_update(c, p, m, v);\n"
    "            w_sq = __fmaf_rn(p, p, w_sq);\n"
    "            u_sq = __fmaf_rn(u, u, u_sq);\n"
    "        }\n"
    "        partials[2 * s] = w_sq;\n"
    "        partials[2 * s + 1] = u_sq;\n"
    "    }\n"
    "}\n"
    "\n"
    "template <int PT, int ST>\n"
    "__device__ void lamb_apply_range(void *param, const void *exp_avg, const void *exp_avg_sq,\n"
    "                                 u64 count, const float *norms, const lamb_coeffs &c)\n"
    "{\n"
    "    float w = __fsqrt_rn(norms[0]), un = __fsqrt_rn(norms[1]), ratio = 1.0f;\n"
    "    if (w != 0.0f && un != 0.0f) {\n"
    "        ratio = __fdiv_rn(w, un);\n"
    "        if (ratio > c.max_coeff)\n"
    "            ratio = c.max_coeff;\n"
    "        if (ratio < c.min_coeff)\n"
    "            ratio = c.min_coeff;\n"
    "    }\n"
    "    const float scale = -__fmul_rn(c.step_size, ratio);\n"
    "    const u64 stride = (u64)gridDim.x * blockDim.x;\n"
    "    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {\n"
    "        float p = load<PT>(param, i);\n"
    "        float u = lamb_update(c, p, load<ST>(exp_avg, i), load<ST>(exp_avg_sq, i));\n"
    "        store<PT>(param, i, __fmaf_rn(u, scale, p));\n"
    "    }\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void accel_fused_lamb_moments(void *param, const void *grad,\n"
    "                                                    void *exp_avg, void *exp_avg_sq, u64 "
    "count,\n"
    "                                                    u32 pair, u64 segment, float *partials,\n"
    "                                                    lamb_coeffs c)\n"
    "{\n"
    "    switch (pair) {\n"
    "    case 0: lamb_moments_range<0, 0>(param, grad, exp_avg, exp_avg_sq, count, segment, "
    "partials, c); break;\n"
    "    case 1: lamb_moments_range<1, 0>(param, grad, exp_avg, exp_avg_sq, count, segment, "
    "partials, c); break;\n"
    "    case 2: lamb_moments_range<2, 0>(param, grad, exp_avg, exp_avg_sq, count, segment, "
    "partials, c); break;\n"
    "    case 3: lamb_moments_range<1, 1>(param, grad, exp_avg, exp_avg_sq, count, segment, "
    "partials, c); break;\n"
    "    default: lamb_moments_range<2, 2>(param, grad, exp_avg, exp_avg_sq, count, segment, "
    "partials, c); break;\n"
    "    }\n"
    "}\n"
    "\n"
    "/* One reduction level: pair j of out sums pairs [j S, (j + 1) S) of in. */\n"
    "extern \"C\" __global__ void accel_fused_lamb_reduce(const float *in, u64 n, u64 segment,\n"
    "                                                   float *out)\n"
    "{\n"
    "    const u64 groups = (n + segment - 1) / segment;\n"
    "    const u64 stride = (u64)gridDim.x * blockDim.x;\n"
    "    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < groups; j += stride) {\n"
    "        u64 end = (j + 1) * segment < n ? (j + 1) * segment : n;\n"
    "        float w = 0.0f, u = 0.0f;\n"
    "        for (u64 k = j * segment; k < end; k++) {\n"
    "            w = __fadd_rn(w, in[2 * k]);\n"
    "            u = __fadd_rn(u, in[2 * k + 1]);\n"
    "        }\n"
    "        out[2 * j] = w;\n"
    "        out[2 * j + 1] = u;\n"
    "    }\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void accel_fused_lamb_apply(void *param, const void *exp_avg,\n"
    "                                                  const void *exp_avg_sq, u64 count, u32 "
    "pair,\n"
    "                                                  const float *norms, lamb_coeffs c)\n"
    "{\n"
    "    switch (pair) {\n"
    "    case 0: lamb_apply_range<0, 0>(param, exp_avg, exp_avg_sq, count, norms, c); break;\n"
    "    case 1: lamb_apply_range<1, 0>(param, exp_avg, exp_avg_sq, count, norms, c); break;\n"
    "    case 2: lamb_apply_range<2, 0>(param, exp_avg, exp_avg_sq, count, norms, c); break;\n"
    "    case 3: lamb_apply_range<1, 1>(param, exp_avg, exp_avg_sq, count, norms, c); break;\n"
    "    default: lamb_apply_range<2, 2>(param, exp_avg, exp_avg_sq, count, norms, c); break;\n"
    "    }\n"
    "}\n";

enum {
    OPTIM_KERNEL_ADAM = 0,
    OPTIM_KERNEL_LION = 1,
    OPTIM_KERNEL_LAMB_MOMENTS = 2,
    OPTIM_KERNEL_LAMB_REDUCE = 3,
    OPTIM_KERNEL_LAMB_APPLY = 4,
};

static const char *const optim_kernel_names[] = {
    "accel_fused_adam", "accel_fused_lion", "accel_fused_lamb_moments", "accel_fused_lamb_reduce",
    "accel_fused_lamb_apply"};
static const char *const optim_launch_names[] = {
    "cuLaunchKernel (fused_adam)", "cuLaunchKernel (fused_lion)",
    "cuLaunchKernel (fused_lamb moments)", "cuLaunchKernel (fused_lamb reduce)",
    "cuLaunchKernel (fused_lamb apply)"};

const accel_cuda_program_t accel_cuda_optim_program = {
    .id = ACCEL_CUDA_PROGRAM_OPTIM,
    .file_name = "accel_fused_optim.cu",
    .what = "the fused optimizer kernels",
    .source = optim_source,
    .kernel_names = optim_kernel_names,
    .kernel_count = 5,
};

/* ---------------------------------------------------------------- one step */

/* The kernels' pair code of a checked launch (the order of accel_ops.h). */
static unsigned optim_pair_code(const accel_optim_launch_t *launch)
{
    if (launch->param_dtype == ACCEL_DTYPE_F32)
        return 0;
    if (launch->state_dtype == ACCEL_DTYPE_F32)
        return launch->param_dtype == ACCEL_DTYPE_F16 ? 1 : 2;
    return launch->param_dtype == ACCEL_DTYPE_F16 ? 3 : 4;
}

/* Queue kernel `kernel` over `work` threads (at most OPTIM_MAX_BLOCKS
 * blocks; the kernels stride) on the launch's stream. */
static accel_status_t optim_launch_over(accel_cuda_backend_t *cuda,
                                        const accel_optim_launch_t *launch, int kernel,
                                        void **params, unsigned long long work)
{
    unsigned long long blocks = (work + OPTIM_THREADS - 1) / OPTIM_THREADS;
    accel_cu_function_t function = NULL;
    accel_status_t status = accel_cuda_activate(cuda, launch->device);
    if (status == ACCEL_OK)
        status =
            accel_cuda_kernel(cuda, launch->device, &accel_cuda_optim_program, kernel, &function);
    if (status != ACCEL_OK)
        return status;
    if (blocks > OPTIM_MAX_BLOCKS)
        blocks = OPTIM_MAX_BLOCKS;
    return accel_cuda_check(cuda->cu,
                            cuda->cu->cuLaunchKernel(function, (unsigned)blocks, 1, 1,
                                                     OPTIM_THREADS, 1, 1, 0, launch->stream, params,
                                                     NULL),
                            optim_launch_names[kernel]);
}

/* Queue kernel `kernel` over the launch's elements on its stream. */
static accel_status_t optim_launch(accel_cuda_backend_t *cuda, const accel_optim_launch_t *launch,
                                   int kernel, void **params)
{
    return optim_launch_over(cuda, launch, kernel, params, launch->count);
}

static accel_status_t cuda_fused_adam(void *self, const accel_optim_launch_t *launch,
                                      const accel_adam_coeffs_t *coeffs)
{
    void *param = launch->param, *state1 = launch->state1, *state2 = launch->state2;
    const void *grad = launch->grad;
    unsigned long long count = launch->count;
    unsigned pair = optim_pair_code(launch);
    accel_adam_coeffs_t c = *coeffs;
    void *params[] = {&param, &grad, &state1, &state2, &count, &pair, &c};
    return optim_launch(self, launch, OPTIM_KERNEL_ADAM, params);
}

static accel_status_t cuda_fused_lion(void *self, const accel_optim_launch_t *launch,
                                      const accel_lion_coeffs_t *coeffs)
{
    void *param = launch->param, *state1 = launch->state1;
    const void *grad = launch->grad;
    unsigned long long count = launch->count;
    unsigned pair = optim_pair_code(launch);
    accel_lion_coeffs_t c = *coeffs;
    void *params[] = {&param, &grad, &state1, &count, &pair, &c};
    return optim_launch(self, launch, OPTIM_KERNEL_LION, params);
}

/* Bytes of the norm partials of every reduction level of `segments`. */
static size_t lamb_scratch_bytes(unsigned long long segments)
{
    size_t total = 0;
    for (unsigned long long n = segments;; n = (n + ACCEL_LAMB_SEGMENT - 1) / ACCEL_LAMB_SEGMENT) {
        total += 2 * n * sizeof(float);
        if (n == 1)
            return total;
    }
}

/* LAMB as three kernels on the stream (moments with per-segment partials,
 * reduction levels, update), in the host's summation order
 * (accel_backend.h). One thread per segment reads its segment in order:
 * uncoalesced, but the order is what makes the result equal to the host
 * op's. The partials live in stream-ordered memory (cuMemAllocAsync and
 * cuMemFreeAsync, CUDA 11.2+); with an older driver, or a device without
 * memory pools, they are a plain allocation freed after the stream drains,
 * so the step then waits (and cannot be captured into a graph). */
static accel_status_t cuda_fused_lamb(void *self, const accel_optim_launch_t *launch,
                                      const accel_lamb_coeffs_t *coeffs)
{
    accel_cuda_backend_t *cuda = self;
    const accel_cuda_api_t *cu = cuda->cu;
    void *param = launch->param, *state1 = launch->state1, *state2 = launch->state2;
    const void *grad = launch->grad;
    unsigned long long count = launch->count, segment = ACCEL_LAMB_SEGMENT;
    unsigned long long segments = (count + segment - 1) / segment;
    unsigned pair = optim_pair_code(launch);
    accel_lamb_coeffs_t c = *coeffs;
    bool stream_ordered = cu->cuMemAllocAsync != NULL && cu->cuMemFreeAsync != NULL;
    accel_cu_deviceptr_t scratch = 0;
    accel_status_t status = accel_cuda_activate(cuda, launch->device);
    if (status != ACCEL_OK)
        return status;
    accel_cu_result_t result = ACCEL_CUDA_ERROR_NOT_SUPPORTED;
    if (stream_ordered)
        result = cu->cuMemAllocAsync(&scratch, lamb_scratch_bytes(segments), launch->stream);
    if (result == ACCEL_CUDA_ERROR_NOT_SUPPORTED) {
        /* No driver support, or a device without memory pools (some vGPU
         * and WSL setups): a plain allocation, freed once the stream drains. */
        stream_ordered = false;
        result = cu->cuMemAlloc_v2(&scratch, lamb_scratch_bytes(segments));
    }
    status = accel_cuda_check(cu, result, "cuMemAlloc (fused_lamb norm partials)");
    if (status != ACCEL_OK)
        return status;
    float *partials = (float *)(uintptr_t)scratch;
    void *moments[] = {&param, &grad, &state1, &state2, &count, &pair, &segment, &partials, &c};
    status = optim_launch_over(cuda, launch, OPTIM_KERNEL_LAMB_MOMENTS, moments, segments);
    unsigned long long n = segments;
    float *level = partials;
    while (status == ACCEL_OK && n > 1) {
        float *next = level + 2 * n;
        unsigned long long groups = (n + segment - 1) / segment;
        void *reduce[] = {&level, &n, &segment, &next};
        status = optim_launch_over(cuda, launch, OPTIM_KERNEL_LAMB_REDUCE, reduce, groups);
        level = next;
        n = groups;
    }
    if (status == ACCEL_OK) {
        void *apply[] = {&param, &state1, &state2, &count, &pair, &level, &c};
        status = optim_launch(cuda, launch, OPTIM_KERNEL_LAMB_APPLY, apply);
    }
    if (stream_ordered) {
        accel_status_t freed = accel_cuda_check(cu, cu->cuMemFreeAsync(scratch, launch->stream),
                                                "cuMemFreeAsync (fused_lamb norm partials)");
        return status != ACCEL_OK ? status : freed;
    }
    accel_status_t drained = accel_cuda_check(cu, cu->cuStreamSynchronize(launch->stream),
                                              "cuStreamSynchronize (fused_lamb)");
    cu->cuMemFree_v2(scratch);
    return status != ACCEL_OK ? status : drained;
}

/* ---------------------------------------------------------------- the slot */

/* The kernels are compiled at run time: NVRTC must load. */
static bool cuda_optim_is_compatible(void *self, char *reason, size_t reason_cap)
{
    const accel_cuda_backend_t *cuda = self;
    char why[320] = "";
    if (cuda == NULL || cuda->cu == NULL || cuda->device_count == 0) {
        snprintf(reason, reason_cap, "the CUDA driver is not usable (no libcuda or no device)");
        return false;
    }
    if (accel_cuda_nvrtc(why, sizeof why) == NULL) {
        snprintf(reason, reason_cap,
                 "the fused optimizer kernels are compiled at run time with NVRTC: %s; install "
                 "the CUDA toolkit's NVRTC or set ACCEL_NVRTC_LIBRARY",
                 why);
        return false;
    }
    return true;
}

/* Compile (or find in the cache) an image for every device architecture
 * now, so a builder's load reports a compile failure; modules load into each
 * device's context on its first step. Core has initialised the backend. */
static accel_status_t cuda_optim_build(void *self)
{
    accel_cuda_backend_t *cuda = self;
    for (int d = 0; d < cuda->device_count; d++) {
        const accel_cuda_device_t *dev = &cuda->devices[d];
        bool seen = false;
        void *image = NULL;
        size_t size = 0;
        accel_status_t status;
        for (int e = 0; e < d && !seen; e++)
            seen = cuda->devices[e].cc_major == dev->cc_major &&
                   cuda->devices[e].cc_minor == dev->cc_minor;
        if (seen)
            continue;
        status = accel_cuda_program_image(cuda, d, &accel_cuda_optim_program, &image, &size);
        free(image);
        if (status != ACCEL_OK)
            return status;
    }
    return ACCEL_OK;
}

const accel_fused_optim_ops_t accel_cuda_fused_optim = {
    .struct_size = sizeof(accel_fused_optim_ops_t),
    .is_compatible = cuda_optim_is_compatible,
    .build = cuda_optim_build,
    .adam = cuda_fused_adam,
    .lion = cuda_fused_lion,
    .lamb = cuda_fused_lamb,
};
