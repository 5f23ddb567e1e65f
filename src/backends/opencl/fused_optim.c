/* fused_optim.c: FusedAdam, FusedLion and FusedLamb on OpenCL devices: OpenCL C kernels
 * doing exactly the host kernels' arithmetic (src/ops/cpu/optim_scalar.c:
 * same operations, same order, fma where it fuses), built once per device
 * through the backend's program cache (backends/opencl/kernels.c) and queued
 * on the caller's stream. The op tables are constant; a step may be called
 * from any thread (kernel arguments are set under the device's kernel_lock).
 * Core validates every step before it reaches a slot here. */
#include <stdio.h>

#include "backends/opencl/fused_optim.h"
#include "backends/opencl/opencl_backend.h"

/* Work-items per launch: enough to fill a device, then each item strides. */
#define OPTIM_GROUP_MULTIPLE 256u
#define OPTIM_MAX_ITEMS      ((size_t)1 << 24)

/* dtype codes are accel_dtype_t's values: 0 float32, 1 float16, 2 bfloat16.
 * Contraction is off: only the explicit fma() calls fuse, as on the host.
 * float16 goes through vload_half / vstore_half_rte (core OpenCL C, no
 * cl_khr_fp16 needed); bfloat16 is the top half of a float, stored rounding
 * to nearest even with NaN kept as a quiet NaN (half.h's rule). */
static const char optim_source[] =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "\n"
    "float optim_load(const __global uchar *base, ulong i, uint dtype)\n"
    "{\n"
    "    if (dtype == 0u)\n"
    "        return ((const __global float *)base)[i];\n"
    "    if (dtype == 1u)\n"
    "        return vload_half((size_t)i, (const __global half *)base);\n"
    "    return as_float((uint)((const __global ushort *)base)[i] << 16);\n"
    "}\n"
    "\n"
    "ushort optim_bf16(float value)\n"
    "{\n"
    "    uint bits = as_uint(value);\n"
    "    if ((bits & 0x7fffffffu) > 0x7f800000u)\n"
    "        return (ushort)(((bits >> 16) & 0x8000u) | 0x7fc0u);\n"
    "    bits += 0x7fffu + ((bits >> 16) & 1u);\n"
    "    return (ushort)(bits >> 16);\n"
    "}\n"
    "\n"
    "void optim_store(__global uchar *base, ulong i, uint dtype, float value)\n"
    "{\n"
    "    if (dtype == 0u)\n"
    "        ((__global float *)base)[i] = value;\n"
    "    else if (dtype == 1u)\n"
    "        vstore_half_rte(value, (size_t)i, (__global half *)base);\n"
    "    else\n"
    "        ((__global ushort *)base)[i] = optim_bf16(value);\n"
    "}\n"
    "\n"
    "__kernel void accel_fused_adam(__global uchar *param, ulong param_offset,\n"
    "                               __global uchar *grad, ulong grad_offset,\n"
    "                               __global uchar *exp_avg, ulong exp_avg_offset,\n"
    "                               __global uchar *exp_avg_sq, ulong exp_avg_sq_offset,\n"
    "                               ulong count, uint pt, uint st, float beta1,\n"
    "                               float one_minus_beta1, float beta2, float one_minus_beta2,\n"
    "                               float eps, float step_size, float bc2, float l2_decay,\n"
    "                               float decoupled_decay)\n"
    "{\n"
    "    param += param_offset;\n"
    "    grad += grad_offset;\n"
    "    exp_avg += exp_avg_offset;\n"
    "    exp_avg_sq += exp_avg_sq_offset;\n"
    "    for (ulong i = get_global_id(0); i < count; i += get_global_size(0)) {\n"
    "        float g = optim_load(grad, i, pt);\n"
    "        float p = optim_load(param, i, pt);\n"
    "        float m = optim_load(exp_avg, i, st);\n"
    "        float s = optim_load(exp_avg_sq, i, st);\n"
    "        if (l2_decay > 0.0f)\n"
    "            g = fma(p, l2_decay, g);\n"
    "        m = fma(g, one_minus_beta1, m * beta1);\n"
    "        s = fma(g * g, one_minus_beta2, s * beta2);\n"
    "        float update = m / fma(sqrt(s), bc2, eps);\n"
    "        if (decoupled_decay != 0.0f)\n"
    "            p = fma(p, decoupled_decay, p);\n"
    "        p = fma(update, step_size, p);\n"
    "        optim_store(param, i, pt, p);\n"
    "        optim_store(exp_avg, i, st, m);\n"
    "        optim_store(exp_avg_sq, i, st, s);\n"
    "    }\n"
    "}\n"
    "\n"
    "/* The step is -lr with the blend's sign bit flipped in: +0 steps down. */\n"
    "__kernel void accel_fused_lion(__global uchar *param, ulong param_offset,\n"
    "                               __global uchar *grad, ulong grad_offset,\n"
    "                               __global uchar *exp_avg, ulong exp_avg_offset,\n"
    "                               ulong count, uint pt, uint st, float beta1,\n"
    "                               float one_minus_beta1, float beta2, float one_minus_beta2,\n"
    "                               float step_size, float after_decay, int has_decay)\n"
    "{\n"
    "    param += param_offset;\n"
    "    grad += grad_offset;\n"
    "    exp_avg += exp_avg_offset;\n"
    "    for (ulong i = get_global_id(0); i < count; i += get_global_size(0)) {\n"
    "        float g = optim_load(grad, i, pt);\n"
    "        float p = optim_load(param, i, pt);\n"
    "        float m = optim_load(exp_avg, i, st);\n"
    "        float blend = fma(g, one_minus_beta1, m * beta1);\n"
    "        float update = as_float(as_uint(step_size) ^ (as_uint(blend) & 0x80000000u));\n"
    "        p = has_decay ? fma(p, after_decay, update) : p + update;\n"
    "        m = fma(g, one_minus_beta2, m * beta2);\n"
    "        optim_store(param, i, pt, p);\n"
    "        optim_store(exp_avg, i, st, m);\n"
    "    }\n"
    "}\n"
    "\n"
    "/* LAMB, in three kernels (the host's three passes, lamb_kernels.h). */\n"
    "float lamb_store(__global uchar *base, ulong i, uint dtype, float value)\n"
    "{\n"
    "    optim_store(base, i, dtype, value);\n"
    "    return optim_load(base, i, dtype);\n"
    "}\n"
    "\n"
    "float lamb_update(float p, float m, float v, float eps, int eps_inside_sqrt, float "
    "weight_decay)\n"
    "{\n"
    "    float denom = eps_inside_sqrt ? sqrt(v + eps) : sqrt(v) + eps;\n"
    "    return fma(weight_decay, p, m / denom);\n"
    "}\n"
    "\n"
    "/* One work-item per segment of `segment` elements, in element order. */\n"
    "__kernel void accel_fused_lamb_moments(__global uchar *param, ulong param_offset,\n"
    "                                       __global uchar *grad, ulong grad_offset,\n"
    "                                       __global uchar *exp_avg, ulong exp_avg_offset,\n"
    "                                       __global uchar *exp_avg_sq, ulong exp_avg_sq_offset,\n"
    "                                       ulong count, uint pt, uint st, float beta1,\n"
    "                                       float one_minus_beta1, float beta2, float "
    "one_minus_beta2,\n"
    "                                       float eps, int eps_inside_sqrt, float grad_scale,\n"
    "                                       float weight_decay, ulong segment,\n"
    "                                       __global float *partials)\n"
    "{\n"
    "    ulong segments = (count + segment - 1) / segment;\n"
    "    param += param_offset;\n"
    "    grad += grad_offset;\n"
    "    exp_avg += exp_avg_offset;\n"
    "    exp_avg_sq += exp_avg_sq_offset;\n"
    "    for (ulong s = get_global_id(0); s < segments; s += get_global_size(0)) {\n"
    "        ulong end = min(count, (s + 1) * segment);\n"
    "        float w_sq = 0.0f, u_sq = 0.0f;\n"
    "        for (ulong i = s * segment; i < end; i++) {\n"
    "            float g = optim_load(grad, i, pt) / grad_scale;\n"
    "            float p = optim_load(param, i, pt);\n"
    "            float m = optim_load(exp_avg, i, st);\n"
    "            float v = optim_load(exp_avg_sq, i, st);\n"
    "            m = lamb_store(exp_avg, i, st, fma(g, one_minus_beta1, m * beta1));\n"
    "            v = lamb_store(exp_avg_sq, i, st, fma(g * g, one_minus_beta2, v * beta2));\n"
    "            float u = lamb_update(p, m, v, eps, eps_inside_sqrt, weight_decay);\n"
    "            w_sq = fma(p, p, w_sq);\n"
    "            u_sq = fma(u, u, u_sq);\n"
    "        }\n"
    "        partials[2 * s] = w_sq;\n"
    "        partials[2 * s + 1] = u_sq;\n"
    "    }\n"
    "}\n"
    "\n"
    "/* One reduction level: pair j of out sums pairs [j S, (j + 1) S) of in. */\n"
    "__kernel void accel_fused_lamb_reduce(__global const float *in, ulong in_offset, ulong n,\n"
    "                                      ulong segment, __global float *out, ulong out_offset)\n"
    "{\n"
    "    ulong groups = (n + segment - 1) / segment;\n"
    "    in += in_offset;\n"
    "    out += out_offset;\n"
    "    for (ulong j = get_global_id(0); j < groups; j += get_global_size(0)) {\n"
    "        ulong end = min(n, (j + 1) * segment);\n"
    "        float w = 0.0f, u = 0.0f;\n"
    "        for (ulong k = j * segment; k < end; k++) {\n"
    "            w += in[2 * k];\n"
    "            u += in[2 * k + 1];\n"
    "        }\n"
    "        out[2 * j] = w;\n"
    "        out[2 * j + 1] = u;\n"
    "    }\n"
    "}\n"
    "\n"
    "/* Every work-item derives the same trust ratio from the two sums. */\n"
    "__kernel void accel_fused_lamb_apply(__global uchar *param, ulong param_offset,\n"
    "                                     __global uchar *exp_avg, ulong exp_avg_offset,\n"
    "                                     __global uchar *exp_avg_sq, ulong exp_avg_sq_offset,\n"
    "                                     ulong count, uint pt, uint st, float eps,\n"
    "                                     int eps_inside_sqrt, float weight_decay, float "
    "step_size,\n"
    "                                     float max_coeff, float min_coeff,\n"
    "                                     __global const float *norms, ulong norms_offset)\n"
    "{\n"
    "    float w = sqrt(norms[norms_offset]), un = sqrt(norms[norms_offset + 1]);\n"
    "    float ratio = 1.0f;\n"
    "    if (w != 0.0f && un != 0.0f) {\n"
    "        ratio = w / un;\n"
    "        if (ratio > max_coeff)\n"
    "            ratio = max_coeff;\n"
    "        if (ratio < min_coeff)\n"
    "            ratio = min_coeff;\n"
    "    }\n"
    "    float scale = -(step_size * ratio);\n"
    "    param += param_offset;\n"
    "    exp_avg += exp_avg_offset;\n"
    "    exp_avg_sq += exp_avg_sq_offset;\n"
    "    for (ulong i = get_global_id(0); i < count; i += get_global_size(0)) {\n"
    "        float p = optim_load(param, i, pt);\n"
    "        float u = lamb_update(p, optim_load(exp_avg, i, st), optim_load(exp_avg_sq, i, st), "
    "eps,\n"
    "                              eps_inside_sqrt, weight_decay);\n"
    "        optim_store(param, i, pt, fma(u, scale, p));\n"
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

/* Ask for correctly rounded divide and sqrt where the device offers them
 * (the host kernels round both correctly); elsewhere OpenCL allows 2.5 and
 * 3 ulp, still far inside the ops' float32 tolerance. */
static void optim_options(const accel_opencl_device_t *dev, char *out, size_t cap)
{
    snprintf(out, cap, "%s",
             dev->correctly_rounded_div_sqrt ? "-cl-fp32-correctly-rounded-divide-sqrt" : "");
}

static const accel_opencl_program_source_t optim_program = {
    .id = ACCEL_OPENCL_PROGRAM_OPTIM,
    .what = "the fused optimizer kernels",
    .text = optim_source,
    .kernel_names = optim_kernel_names,
    .kernel_count = 5,
    .options = optim_options,
};

/* ---------------------------------------------------------------- one step */

/* Bytes of one element of an optimizer dtype (f32, or f16/bf16). */
static size_t optim_element_size(accel_dtype_t dtype)
{
    return dtype == ACCEL_DTYPE_F32 ? 4 : 2;
}

/* Where a checked step runs: the device and stream, and each tensor as
 * (buffer, byte offset), plus how many work-items to queue. */
typedef struct optim_target {
    accel_cl_mem mems[4];
    accel_cl_ulong offsets[4];
    size_t items;
} optim_target_t;

/* Find the buffers behind a launch's pointers (core checked that they are
 * this device's memory). */
static accel_status_t optim_target_make(accel_opencl_backend_t *cl,
                                        const accel_optim_launch_t *launch, optim_target_t *out)
{
    const void *ptrs[4] = {launch->param, launch->grad, launch->state1, launch->state2};
    accel_dtype_t dtypes[4] = {launch->param_dtype, launch->param_dtype, launch->state_dtype,
                               launch->state_dtype};
    size_t n = launch->state2 != NULL ? 4 : 3;
    accel_status_t status = ACCEL_OK;
    *out = (optim_target_t){0};
    for (size_t k = 0; k < n && status == ACCEL_OK; k++) {
        size_t offset = 0;
        status = accel_opencl_resolve(cl, launch->device, ptrs[k],
                                      launch->count * optim_element_size(dtypes[k]), &out->mems[k],
                                      &offset);
        out->offsets[k] = offset;
    }
    out->items = launch->count < OPTIM_MAX_ITEMS ? launch->count : OPTIM_MAX_ITEMS;
    out->items =
        (out->items + OPTIM_GROUP_MULTIPLE - 1) / OPTIM_GROUP_MULTIPLE * OPTIM_GROUP_MULTIPLE;
    return status;
}

static accel_status_t opencl_fused_adam(void *self, const accel_optim_launch_t *launch,
                                        const accel_adam_coeffs_t *coeffs)
{
    accel_opencl_backend_t *cl = self;
    accel_adam_coeffs_t c = *coeffs;
    optim_target_t target;
    accel_status_t status = optim_target_make(cl, launch, &target);
    if (status != ACCEL_OK)
        return status;
    accel_cl_ulong count = launch->count;
    accel_cl_uint pt = (accel_cl_uint)launch->param_dtype;
    accel_cl_uint st = (accel_cl_uint)launch->state_dtype;
    const accel_opencl_arg_t args[] = {
        {sizeof(accel_cl_mem), &target.mems[0]},
        {sizeof(accel_cl_ulong), &target.offsets[0]},
        {sizeof(accel_cl_mem), &target.mems[1]},
        {sizeof(accel_cl_ulong), &target.offsets[1]},
        {sizeof(accel_cl_mem), &target.mems[2]},
        {sizeof(accel_cl_ulong), &target.offsets[2]},
        {sizeof(accel_cl_mem), &target.mems[3]},
        {sizeof(accel_cl_ulong), &target.offsets[3]},
        {sizeof count, &count},
        {sizeof pt, &pt},
        {sizeof st, &st},
        {sizeof(float), &c.beta1},
        {sizeof(float), &c.one_minus_beta1},
        {sizeof(float), &c.beta2},
        {sizeof(float), &c.one_minus_beta2},
        {sizeof(float), &c.eps},
        {sizeof(float), &c.step_size},
        {sizeof(float), &c.bc2},
        {sizeof(float), &c.l2_decay},
        {sizeof(float), &c.decoupled_decay},
    };
    return accel_opencl_launch(cl, launch->device, launch->stream, &optim_program,
                               OPTIM_KERNEL_ADAM, args, sizeof args / sizeof args[0], target.items);
}

static accel_status_t opencl_fused_lion(void *self, const accel_optim_launch_t *launch,
                                        const accel_lion_coeffs_t *coeffs)
{
    accel_opencl_backend_t *cl = self;
    accel_lion_coeffs_t c = *coeffs;
    optim_target_t target;
    accel_status_t status = optim_target_make(cl, launch, &target);
    if (status != ACCEL_OK)
        return status;
    accel_cl_ulong count = launch->count;
    accel_cl_uint pt = (accel_cl_uint)launch->param_dtype;
    accel_cl_uint st = (accel_cl_uint)launch->state_dtype;
    accel_cl_int has_decay = c.has_decay;
    const accel_opencl_arg_t args[] = {
        {sizeof(accel_cl_mem), &target.mems[0]},
        {sizeof(accel_cl_ulong), &target.offsets[0]},
        {sizeof(accel_cl_mem), &target.mems[1]},
        {sizeof(accel_cl_ulong), &target.offsets[1]},
        {sizeof(accel_cl_mem), &target.mems[2]},
        {sizeof(accel_cl_ulong), &target.offsets[2]},
        {sizeof count, &count},
        {sizeof pt, &pt},
        {sizeof st, &st},
        {sizeof(float), &c.beta1},
        {sizeof(float), &c.one_minus_beta1},
        {sizeof(float), &c.beta2},
        {sizeof(float), &c.one_minus_beta2},
        {sizeof(float), &c.step_size},
        {sizeof(float), &c.after_decay},
        {sizeof has_decay, &has_decay},
    };
    return accel_opencl_launch(cl, launch->device, launch->stream, &optim_program,
                               OPTIM_KERNEL_LION, args, sizeof args / sizeof args[0], target.items);
}

/* LAMB (DeepSpeed's two-norm trust ratio) as three kernels on the stream:
 * moments with one f32 partial pair per segment of ACCEL_LAMB_SEGMENT
 * elements, then reduction levels of ACCEL_LAMB_SEGMENT partials each until
 * one pair is left, then the update. This is the host's summation order
 * (accel_backend.h), so the norms, and the step, match the host op. One
 * work-item per segment reads its segment sequentially: not coalesced, but
 * order-preserving; LAMB's cost is dominated by the element passes anyway.
 * The scratch buffer holds every level; it is released right after the
 * kernels are queued (OpenCL keeps it until they finish). */
static size_t lamb_levels_floats(size_t segments)
{
    size_t total = 0;
    for (size_t n = segments;; n = (n + ACCEL_LAMB_SEGMENT - 1) / ACCEL_LAMB_SEGMENT) {
        total += 2 * n;
        if (n == 1)
            return total;
    }
}

static size_t lamb_items(size_t work)
{
    size_t items = work < OPTIM_MAX_ITEMS ? work : OPTIM_MAX_ITEMS;
    return (items + OPTIM_GROUP_MULTIPLE - 1) / OPTIM_GROUP_MULTIPLE * OPTIM_GROUP_MULTIPLE;
}

static accel_status_t opencl_fused_lamb(void *self, const accel_optim_launch_t *launch,
                                        const accel_lamb_coeffs_t *coeffs)
{
    accel_opencl_backend_t *cl = self;
    accel_lamb_coeffs_t c = *coeffs;
    optim_target_t target;
    accel_cl_int err = ACCEL_CL_SUCCESS;
    accel_status_t status = optim_target_make(cl, launch, &target);
    if (status != ACCEL_OK)
        return status;
    accel_cl_ulong count = launch->count, segment = ACCEL_LAMB_SEGMENT;
    accel_cl_ulong segments = (count + segment - 1) / segment;
    accel_cl_uint pt = (accel_cl_uint)launch->param_dtype;
    accel_cl_uint st = (accel_cl_uint)launch->state_dtype;
    accel_cl_int eps_inside = c.eps_inside_sqrt;
    accel_cl_mem scratch =
        cl->api->clCreateBuffer(cl->devices[launch->device].context, ACCEL_CL_MEM_READ_WRITE,
                                lamb_levels_floats(segments) * sizeof(float), NULL, &err);
    if (err != ACCEL_CL_SUCCESS)
        return accel_opencl_fail("clCreateBuffer (fused_lamb norm partials)", err);
    const accel_opencl_arg_t moments[] = {
        {sizeof(accel_cl_mem), &target.mems[0]},
        {sizeof(accel_cl_ulong), &target.offsets[0]},
        {sizeof(accel_cl_mem), &target.mems[1]},
        {sizeof(accel_cl_ulong), &target.offsets[1]},
        {sizeof(accel_cl_mem), &target.mems[2]},
        {sizeof(accel_cl_ulong), &target.offsets[2]},
        {sizeof(accel_cl_mem), &target.mems[3]},
        {sizeof(accel_cl_ulong), &target.offsets[3]},
        {sizeof count, &count},
        {sizeof pt, &pt},
        {sizeof st, &st},
        {sizeof(float), &c.beta1},
        {sizeof(float), &c.one_minus_beta1},
        {sizeof(float), &c.beta2},
        {sizeof(float), &c.one_minus_beta2},
        {sizeof(float), &c.eps},
        {sizeof eps_inside, &eps_inside},
        {sizeof(float), &c.grad_scale},
        {sizeof(float), &c.weight_decay},
        {sizeof segment, &segment},
        {sizeof(accel_cl_mem), &scratch},
    };
    status = accel_opencl_launch(cl, launch->device, launch->stream, &optim_program,
                                 OPTIM_KERNEL_LAMB_MOMENTS, moments,
                                 sizeof moments / sizeof moments[0], lamb_items(segments));
    /* Level k's pairs start at in_offset; level k + 1's right after them. */
    accel_cl_ulong n = segments, in_offset = 0;
    while (status == ACCEL_OK && n > 1) {
        accel_cl_ulong out_offset = in_offset + 2 * n;
        const accel_opencl_arg_t reduce[] = {
            {sizeof(accel_cl_mem), &scratch},
            {sizeof in_offset, &in_offset},
            {sizeof n, &n},
            {sizeof segment, &segment},
            {sizeof(accel_cl_mem), &scratch},
            {sizeof out_offset, &out_offset},
        };
        accel_cl_ulong groups = (n + segment - 1) / segment;
        status = accel_opencl_launch(cl, launch->device, launch->stream, &optim_program,
                                     OPTIM_KERNEL_LAMB_REDUCE, reduce,
                                     sizeof reduce / sizeof reduce[0], lamb_items(groups));
        in_offset = out_offset;
        n = groups;
    }
    if (status == ACCEL_OK) {
        const accel_opencl_arg_t apply[] = {
            {sizeof(accel_cl_mem), &target.mems[0]},
            {sizeof(accel_cl_ulong), &target.offsets[0]},
            {sizeof(accel_cl_mem), &target.mems[2]},
            {sizeof(accel_cl_ulong), &target.offsets[2]},
            {sizeof(accel_cl_mem), &target.mems[3]},
            {sizeof(accel_cl_ulong), &target.offsets[3]},
            {sizeof count, &count},
            {sizeof pt, &pt},
            {sizeof st, &st},
            {sizeof(float), &c.eps},
            {sizeof eps_inside, &eps_inside},
            {sizeof(float), &c.weight_decay},
            {sizeof(float), &c.step_size},
            {sizeof(float), &c.max_coeff},
            {sizeof(float), &c.min_coeff},
            {sizeof(accel_cl_mem), &scratch},
            {sizeof in_offset, &in_offset},
        };
        status = accel_opencl_launch(cl, launch->device, launch->stream, &optim_program,
                                     OPTIM_KERNEL_LAMB_APPLY, apply, sizeof apply / sizeof apply[0],
                                     target.items);
    }
    cl->api->clReleaseMemObject(scratch);
    return status;
}

/* ---------------------------------------------------------------- the slot */

/* The kernels are built from source, so every device needs its compiler. */
static bool opencl_optim_is_compatible(void *self, char *reason, size_t reason_cap)
{
    const accel_opencl_backend_t *cl = self;
    if (cl == NULL || cl->api == NULL || cl->device_count == 0) {
        snprintf(reason, reason_cap, "the OpenCL runtime is not usable (no loader or no device)");
        return false;
    }
    for (int d = 0; d < cl->device_count; d++) {
        if (!cl->devices[d].compiler_available) {
            snprintf(reason, reason_cap,
                     "OpenCL device %d (%s) has no online compiler "
                     "(CL_DEVICE_COMPILER_AVAILABLE is false); the fused optimizer kernels are "
                     "built from source",
                     d, cl->devices[d].name);
            return false;
        }
    }
    return true;
}

/* Build the program on every device now, so a builder's load reports a
 * build failure (core has initialised the backend). */
static accel_status_t opencl_optim_build(void *self)
{
    accel_opencl_backend_t *cl = self;
    accel_status_t status = ACCEL_OK;
    for (int d = 0; d < cl->device_count && status == ACCEL_OK; d++) {
        accel_opencl_device_t *dev = &cl->devices[d];
        pthread_mutex_lock(&dev->kernel_lock);
        status = accel_opencl_program_ensure(cl, dev, &optim_program);
        pthread_mutex_unlock(&dev->kernel_lock);
    }
    return status;
}

const accel_fused_optim_ops_t accel_opencl_fused_optim = {
    .struct_size = sizeof(accel_fused_optim_ops_t),
    .is_compatible = opencl_optim_is_compatible,
    .build = opencl_optim_build,
    .adam = opencl_fused_adam,
    .lion = opencl_fused_lion,
    .lamb = opencl_fused_lamb,
};
