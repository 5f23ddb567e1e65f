/* machine.c: facts about the machine a bench ran on that accel's public API
 * does not give: the vector set its CPU kernels use. Mirrors
 * src/core/cpu_isa.c's rule (AVX2 needs FMA and F16C too; AVX-512 means
 * AVX-512 F; the compiler's cpu checks include the OS saving the registers)
 * and its ACCEL_CPU_ISA cap. Any thread. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

const char *bench_cpu_isa(void)
{
    static const char *const names[] = {"scalar", "avx2", "avx512"};
    int best = 0, cap = 2;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        best = 1;
    if (best == 1 && __builtin_cpu_supports("avx512f"))
        best = 2;
#endif
    const char *value = getenv("ACCEL_CPU_ISA");
    for (int i = 0; value != NULL && i < 3; i++)
        if (strcmp(value, names[i]) == 0)
            cap = i;
    return names[best < cap ? best : cap];
}
