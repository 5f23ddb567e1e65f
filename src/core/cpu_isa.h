/* cpu_isa.h: the vector instruction sets this CPU can run (cpuid, and the OS
 * saving their registers), for the code that picks a SIMD variant at run
 * time: the optimizer kernels (src/ops/cpu/) and the Philox generator. Also
 * the library's one cpuid and XGETBV reader, for code that tests other
 * feature bits (the cpu backend's fp16 check and vendor string).
 * Detection runs once; safe from any thread. */
#ifndef ACCEL_CORE_CPU_ISA_H
#define ACCEL_CORE_CPU_ISA_H

#include <stdbool.h>
#include <stdint.h>

typedef enum accel_cpu_isa {
    ACCEL_CPU_ISA_SCALAR = 0,
    ACCEL_CPU_ISA_AVX2 = 1,   /* AVX2 + FMA + F16C */
    ACCEL_CPU_ISA_AVX512 = 2, /* AVX-512 F */
    ACCEL_CPU_ISA_COUNT_ = 3
} accel_cpu_isa_t;

/* The best set this CPU runs; scalar off x86. */
accel_cpu_isa_t accel_cpu_isa_detected(void);
/* The detected set capped by ACCEL_CPU_ISA ("scalar" | "avx2" | "avx512";
 * an unknown value is logged and ignored). Reads the variable each call. */
accel_cpu_isa_t accel_cpu_isa_selected(void);
/* "scalar", "avx2", "avx512". */
const char *accel_cpu_isa_name(accel_cpu_isa_t isa);

/* The registers one cpuid leaf returns. */
typedef struct accel_cpuid {
    uint32_t eax, ebx, ecx, edx;
} accel_cpuid_t;

/* cpuid `leaf`/`subleaf` into *out; false (and *out zeroed) when the CPU
 * does not have that leaf, and always off x86. */
bool accel_cpu_isa_cpuid(uint32_t leaf, uint32_t subleaf, accel_cpuid_t *out);
/* XCR0, the register state the OS saves (XGETBV 0); 0 when the OS has not
 * enabled XSAVE (OSXSAVE clear), and always off x86. */
uint64_t accel_cpu_isa_xcr0(void);

#endif /* ACCEL_CORE_CPU_ISA_H */
