/* lamb_fma.c: the "fma" LAMB kernel table: lamb_scalar.c's code compiled
 * for AVX2 + FMA + F16C (src/CMakeLists.txt), so fmaf is one vfmadd and the
 * compiler may vectorise the element loops; the operations and their order
 * are the scalar table's, each correctly rounded, so the bits are the same.
 * Used only where cpuid reports AVX2 and FMA (and ACCEL_CPU_ISA allows it). */
#define LAMB_VARIANT 1
#include "lamb_scalar.c"
