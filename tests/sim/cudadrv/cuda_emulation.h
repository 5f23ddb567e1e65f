/* cuda_emulation.h: just enough of CUDA C's device-side vocabulary for the
 * cuda backend's kernel sources to compile as host C++ (cu_sim_kernels.cc),
 * so the simulated driver runs the very source NVRTC compiles. Each
 * intrinsic is its IEEE-754 meaning: the *_rn arithmetic is one correctly
 * rounded operation (the file is built with -ffp-contract=off, so nothing
 * else fuses), conversions between float and half round to nearest even
 * through the compiler's _Float16 (cu_sim_half.c), not through accel's own
 * code. The grid indices are thread-locals set by the launcher. Only the
 * kernels' needs are covered: no shared memory, no barriers, no warps. */
#ifndef ACCEL_TESTS_SIM_CUDA_EMULATION_H
#define ACCEL_TESTS_SIM_CUDA_EMULATION_H

#include <cmath>
#include <cstdint>
#include <cstring>

#define ACCEL_CUDA_HOST_EMULATION 1
#define __global__
#define __device__
#define __forceinline__ inline

struct sim_dim3 {
    unsigned x, y, z;
};
extern thread_local sim_dim3 threadIdx, blockIdx, blockDim, gridDim;

struct uint4 {
    unsigned x, y, z, w;
};
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w)
{
    return uint4{x, y, z, w};
}

static inline unsigned __umulhi(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
static inline unsigned __float_as_uint(float f)
{
    unsigned u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
static inline float __uint_as_float(unsigned u)
{
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}
static inline float __fmaf_rn(float a, float b, float c)
{
    return std::fma(a, b, c);
}
static inline float __fmul_rn(float a, float b)
{
    return a * b;
}
static inline float __fadd_rn(float a, float b)
{
    return a + b;
}
static inline float __fdiv_rn(float a, float b)
{
    return a / b;
}
static inline float __fsqrt_rn(float a)
{
    return std::sqrt(a);
}
using std::cos;
using std::log;
using std::sqrt;

/* The PTX cvt instructions the optimizer source names (cu_sim_half.c). */
extern "C" float sim_f16_to_f32(unsigned short h);
extern "C" unsigned short sim_f32_to_f16_rn(float f);
#define ACCEL_CVT_F32_F16(out, in)    ((out) = sim_f16_to_f32(in))
#define ACCEL_CVT_RN_F16_F32(out, in) ((out) = sim_f32_to_f16_rn(in))

#endif /* ACCEL_TESTS_SIM_CUDA_EMULATION_H */
