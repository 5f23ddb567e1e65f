/* test_cpu_isa.c: unit tests of core's one cpuid/XGETBV reader (cpu_isa.h)
 * against what the kernel says about the same CPU in /proc/cpuinfo: the
 * vendor string, the OS-enabled register state, and the detected vector
 * set. Skips (77) off x86 Linux, where there is no cpuid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/cpu_isa.h"

/* The value of the first "key : value" line of /proc/cpuinfo ("" if none). */
static void cpuinfo_field(const char *key, char *out, size_t cap)
{
    char line[8192];
    FILE *in = fopen("/proc/cpuinfo", "r");
    out[0] = '\0';
    if (in == NULL)
        return;
    while (fgets(line, sizeof line, in) != NULL) {
        char *colon = strchr(line, ':');
        if (strncmp(line, key, strlen(key)) != 0 || colon == NULL)
            continue;
        colon++;
        while (*colon == ' ')
            colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, cap, "%s", colon);
        break;
    }
    fclose(in);
}

/* Whether the space-separated /proc/cpuinfo flags list `flag`. */
static bool has_flag(const char *flags, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = strstr(flags, flag); p != NULL; p = strstr(p + 1, flag))
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

static void test_vendor_matches_kernel(void **state)
{
    (void)state;
    accel_cpuid_t leaf0;
    uint32_t regs[3];
    char vendor[13], expected[64];
    assert_true(accel_cpu_isa_cpuid(0, 0, &leaf0));
    regs[0] = leaf0.ebx;
    regs[1] = leaf0.edx;
    regs[2] = leaf0.ecx;
    memcpy(vendor, regs, 12);
    vendor[12] = '\0';
    cpuinfo_field("vendor_id", expected, sizeof expected);
    assert_string_equal(vendor, expected);
}

static void test_leaf_beyond_maximum_refused(void **state)
{
    (void)state;
    accel_cpuid_t leaf0, beyond = {1, 1, 1, 1};
    assert_true(accel_cpu_isa_cpuid(0, 0, &leaf0));
    assert_false(accel_cpu_isa_cpuid(leaf0.eax + 1, 0, &beyond));
    assert_int_equal(beyond.eax | beyond.ebx | beyond.ecx | beyond.edx, 0);
}

static void test_state_and_set_match_kernel(void **state)
{
    (void)state;
    static char flags[8192];
    accel_cpuid_t leaf1;
    uint64_t xcr0 = accel_cpu_isa_xcr0();
    accel_cpu_isa_t isa = accel_cpu_isa_detected();
    cpuinfo_field("flags", flags, sizeof flags);
    assert_true(accel_cpu_isa_cpuid(1, 0, &leaf1));
    /* /proc/cpuinfo hides osxsave; XGETBV runs only when it is set. */
    if (!(leaf1.ecx & (1u << 27)))
        assert_int_equal(xcr0, 0);
    else
        assert_true((xcr0 & 1) != 0); /* x87 state is always saved */
    /* The kernel hides a set whose registers it does not save. */
    assert_int_equal(isa >= ACCEL_CPU_ISA_AVX2,
                     has_flag(flags, "avx2") && has_flag(flags, "fma") && has_flag(flags, "f16c"));
    assert_int_equal(isa >= ACCEL_CPU_ISA_AVX512,
                     isa >= ACCEL_CPU_ISA_AVX2 && has_flag(flags, "avx512f"));
}

int main(void)
{
#if !(defined(__x86_64__) || defined(__i386__)) || !defined(__linux__)
    printf("skipped: no cpuid off x86 Linux\n");
    return 77;
#else
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vendor_matches_kernel),
        cmocka_unit_test(test_leaf_beyond_maximum_refused),
        cmocka_unit_test(test_state_and_set_match_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
