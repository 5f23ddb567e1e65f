/* cpu_isa.h: the vector instruction sets this CPU can run (cpuid, and the OS
 * saving their registers), for the code that picks a SIMD variant at run
 * time: the optimizer kernels (src/ops/cpu/) and the Philox generator.
 * Detection runs once; safe from any thread. */
#ifndef ACCEL_CORE_CPU_ISA_H
#define ACCEL_CORE_CPU_ISA_H

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

#endif /* ACCEL_CORE_CPU_ISA_H */
