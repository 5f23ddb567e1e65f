/* cpu_isa.c: which vector instruction sets this CPU runs (cpu_isa.h): cpuid
 * for the instructions, XGETBV for the OS saving their registers, and the
 * ACCEL_CPU_ISA cap; the library's only cpuid and XGETBV reader. Detection
 * runs once (pthread_once); reads afterwards are lock-free. Safe from any
 * thread. */
#include <pthread.h>
#include <string.h>

#include "core/cpu_isa.h"
#include "core/env.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define ACCEL_ISA_X86 1
#else
#define ACCEL_ISA_X86 0
#endif

static pthread_once_t detect_once = PTHREAD_ONCE_INIT;
static accel_cpu_isa_t detected = ACCEL_CPU_ISA_SCALAR;

bool accel_cpu_isa_cpuid(uint32_t leaf, uint32_t subleaf, accel_cpuid_t *out)
{
#if ACCEL_ISA_X86
    unsigned int eax, ebx, ecx, edx;
    if (__get_cpuid_count(leaf, subleaf, &eax, &ebx, &ecx, &edx) != 0) {
        *out = (accel_cpuid_t){eax, ebx, ecx, edx};
        return true;
    }
#else
    (void)leaf;
    (void)subleaf;
#endif
    *out = (accel_cpuid_t){0, 0, 0, 0};
    return false;
}

uint64_t accel_cpu_isa_xcr0(void)
{
#if ACCEL_ISA_X86
    accel_cpuid_t leaf1;
    unsigned int low, high;
    /* XGETBV faults unless the OS enabled XSAVE. */
    if (!accel_cpu_isa_cpuid(1, 0, &leaf1) || !(leaf1.ecx & (1u << 27))) /* OSXSAVE */
        return 0;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    return ((uint64_t)high << 32) | low;
#else
    return 0;
#endif
}

static void detect(void)
{
    accel_cpuid_t leaf1, leaf7;
    uint64_t xcr0;
    if (!accel_cpu_isa_cpuid(1, 0, &leaf1))
        return;
    bool fma = leaf1.ecx & (1u << 12), osxsave = leaf1.ecx & (1u << 27),
         f16c = leaf1.ecx & (1u << 29);
    if (!osxsave)
        return;
    if (!accel_cpu_isa_cpuid(7, 0, &leaf7))
        return;
    xcr0 = accel_cpu_isa_xcr0();
    bool avx_state = (xcr0 & 0x6) == 0x6;      /* XMM + YMM */
    bool avx512_state = (xcr0 & 0xe6) == 0xe6; /* + opmask, ZMM_Hi256, Hi16_ZMM */
    bool avx2 = leaf7.ebx & (1u << 5), avx512f = leaf7.ebx & (1u << 16);
    if (avx_state && avx2 && fma && f16c)
        detected = ACCEL_CPU_ISA_AVX2;
    if (detected == ACCEL_CPU_ISA_AVX2 && avx512_state && avx512f)
        detected = ACCEL_CPU_ISA_AVX512;
}

accel_cpu_isa_t accel_cpu_isa_detected(void)
{
    pthread_once(&detect_once, detect);
    return detected;
}

static const char *const isa_names[ACCEL_CPU_ISA_COUNT_] = {"scalar", "avx2", "avx512"};

const char *accel_cpu_isa_name(accel_cpu_isa_t isa)
{
    return isa < ACCEL_CPU_ISA_COUNT_ ? isa_names[isa] : "unknown";
}

accel_cpu_isa_t accel_cpu_isa_selected(void)
{
    accel_cpu_isa_t isa = accel_cpu_isa_detected();
    const char *cap = accel_env_get("ACCEL_CPU_ISA");
    if (cap == NULL)
        return isa;
    for (int i = 0; i < ACCEL_CPU_ISA_COUNT_; i++) {
        if (strcmp(cap, isa_names[i]) == 0)
            return (accel_cpu_isa_t)i < isa ? (accel_cpu_isa_t)i : isa;
    }
    accel_log(ACCEL_LOG_WARN, "ACCEL_CPU_ISA=%s is not one of scalar, avx2, avx512; ignored", cap);
    return isa;
}
