/* optim_avx512_bf16.c: the AVX-512 optimizer kernels again, for CPUs with
 * AVX512_BF16 and AVX512DQ, where a bf16 store is VCVTNEPS2BF16 (same bits:
 * see optim_avx512.c). Chosen by accel_optim_kernels_for when cpuid shows
 * both; reported as "avx512" like the plain table. */
#define OPTIM_AVX512_BF16 1
#include "optim_avx512.c"
