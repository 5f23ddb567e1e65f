/* fused_optim.c: FusedAdam and FusedLion on CUDA devices: CUDA C kernels
 * doing exactly the host kernels' arithmetic (src/ops/cpu/optim_scalar.c:
 * same operations in the same order, each correctly rounded through the
 * __*_rn intrinsics, fma where the host fuses), compiled at run time with
 * NVRTC and cached on disk by the backend (backends/cuda/kernels.c), and
 * launched with cuLaunchKernel on the caller's stream. Core validates every
 * step before it reaches a slot here. Constant; any thread. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "backends/cuda/fused_optim.h"

#define OPTIM_THREADS    256u
#define OPTIM_MAX_BLOCKS 65535u /* the kernels stride over the rest */

/* The kernels take the host's coefficient structs by value. */
_Static_assert(sizeof(accel_adam_coeffs_t) == 9 * sizeof(float) &&
                   offsetof(accel_adam_coeffs_t, decoupled_decay) == 8 * sizeof(float),
               "accel_adam_coeffs_t no longer matches struct adam_coeffs of the CUDA source");
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
    "__device__ __forceinline__ float f16_to_f32(u16 h)\n"
    "{\n"
    "    float f;\n"
    "    if ((h & 0x7c00u) == 0x7c00u) /* inf or NaN, payload kept */\n"
    "        return __uint_as_float(((u32)(h & 0x8000u) << 16) | 0x7f800000u |\n"
    "                               ((u32)(h & 0x3ffu) << 13));\n"
    "    asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h));\n"
    "    return f;\n"
    "}\n"
    "\n"
    "__device__ __forceinline__ u16 f32_to_f16(float value)\n"
    "{\n"
    "    u32 bits = __float_as_uint(value);\n"
    "    u16 h;\n"
    "    if ((bits & 0x7fffffffu) > 0x7f800000u) /* NaN: quieted, top payload bits kept */\n"
    "        return (u16)(((bits >> 16) & 0x8000u) | 0x7e00u | ((bits >> 13) & 0x3ffu));\n"
    "    asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(value));\n"
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
    "}\n";

enum { OPTIM_KERNEL_ADAM = 0, OPTIM_KERNEL_LION = 1 };

static const char *const optim_kernel_names[] = {"accel_fused_adam", "accel_fused_lion"};

const accel_cuda_program_t accel_cuda_optim_program = {
    .id = ACCEL_CUDA_PROGRAM_OPTIM,
    .file_name = "accel_fused_optim.cu",
    .what = "the fused optimizer kernels",
    .source = optim_source,
    .kernel_names = optim_kernel_names,
    .kernel_count = 2,
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

/* Queue kernel `kernel` over the launch's elements on its stream. */
static accel_status_t optim_launch(accel_cuda_backend_t *cuda, const accel_optim_launch_t *launch,
                                   int kernel, void **params)
{
    unsigned long long blocks = (launch->count + OPTIM_THREADS - 1) / OPTIM_THREADS;
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
                                                     OPTIM_THREADS, 1, 1, 0, launch->stream,
                                                     params, NULL),
                            kernel == OPTIM_KERNEL_ADAM ? "cuLaunchKernel (fused_adam)"
                                                        : "cuLaunchKernel (fused_lion)");
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
};
