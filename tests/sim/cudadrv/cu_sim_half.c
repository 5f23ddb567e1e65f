/* cu_sim_half.c: float <-> IEEE half conversions for cuda_emulation.h, by
 * the CPU's F16C instructions (vcvtps2ph with round to nearest even, as
 * PTX's cvt.rn.f16.f32; vcvtph2ps is exact). Kept apart from accel's
 * src/ops/cpu/half.h so that the sim does not check accel against itself.
 * Every x86-64 CPU with AVX has F16C. Pure; any thread. */
#include <immintrin.h>

float sim_f16_to_f32(unsigned short h);
unsigned short sim_f32_to_f16_rn(float f);

__attribute__((target("f16c"))) float sim_f16_to_f32(unsigned short h)
{
    return _cvtsh_ss(h);
}

__attribute__((target("f16c"))) unsigned short sim_f32_to_f16_rn(float f)
{
    return (unsigned short)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
}
