/* host.c: what the host machine is, as the CPU backend reports it: the NUMA
 * layout (DeepSpeed's node-counting rule), online CPUs, the CPU's name,
 * vendor and fp16 support, and the memory figures, read from sysfs, /proc,
 * sysconf and the instruction set. See host.h for threads. */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

#include "backends/cpu/host.h"
#include "core/cpu_isa.h"

/* ---------------------------------------------------------------- small readers */

/* The first line of a small text file, without its newline; false if unreadable. */
static bool read_first_line(const char *path, char *out, size_t cap)
{
    FILE *file = fopen(path, "re");
    bool ok;
    if (file == NULL)
        return false;
    ok = fgets(out, (int)cap, file) != NULL;
    fclose(file);
    if (ok)
        out[strcspn(out, "\n")] = '\0';
    return ok;
}

/* Value of the first "key : value" line of a /proc file ("" when absent). */
static void read_proc_field(const char *path, const char *key, char *out, size_t cap)
{
    char line[512];
    size_t key_len = strlen(key);
    FILE *file = fopen(path, "re");
    out[0] = '\0';
    if (file == NULL)
        return;
    while (fgets(line, sizeof line, file) != NULL) {
        char *value;
        if (strncmp(line, key, key_len) != 0 ||
            (line[key_len] != ':' && !isspace((unsigned char)line[key_len])))
            continue;
        value = strchr(line, ':');
        if (value == NULL)
            continue;
        value++;
        while (isspace((unsigned char)*value))
            value++;
        value[strcspn(value, "\n")] = '\0';
        snprintf(out, cap, "%s", value);
        break;
    }
    fclose(file);
}

/* /proc/meminfo "<key>: N kB" in bytes; false when absent. */
static bool read_meminfo_bytes(const char *key, uint64_t *out)
{
    char text[64];
    char *end;
    unsigned long long kib;
    read_proc_field("/proc/meminfo", key, text, sizeof text);
    if (text[0] == '\0')
        return false;
    kib = strtoull(text, &end, 10);
    if (end == text)
        return false;
    *out = (uint64_t)kib * 1024u;
    return true;
}

/* ---------------------------------------------------------------- NUMA layout */

/* Number of CPUs in a kernel cpu list such as "0-3,8-11" (0 if empty). */
static int cpulist_count(const char *text)
{
    int count = 0;
    while (*text != '\0') {
        char *end;
        long first = strtol(text, &end, 10), last;
        if (end == text)
            break;
        last = first;
        if (*end == '-')
            last = strtol(end + 1, &end, 10);
        if (last >= first)
            count += (int)(last - first + 1);
        text = end;
        if (*text == ',')
            text++;
    }
    return count;
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The node numbers under /sys/devices/system/node, ascending. */
static int numa_node_ids(int **out)
{
    DIR *dir = opendir(ACCEL_CPU_NUMA_SYSFS_DIR);
    struct dirent *entry;
    int *ids = NULL, count = 0, capacity = 0;
    if (dir == NULL)
        return 0;
    while ((entry = readdir(dir)) != NULL) {
        char *end;
        long id;
        if (strncmp(entry->d_name, "node", 4) != 0 || !isdigit((unsigned char)entry->d_name[4]))
            continue;
        id = strtol(entry->d_name + 4, &end, 10);
        if (*end != '\0' || id > INT_MAX)
            continue;
        if (count == capacity) {
            int *grown = realloc(ids, (size_t)(capacity ? capacity * 2 : 8) * sizeof *ids);
            if (grown == NULL)
                break;
            ids = grown;
            capacity = capacity ? capacity * 2 : 8;
        }
        ids[count++] = (int)id;
    }
    closedir(dir);
    if (count > 0)
        qsort(ids, (size_t)count, sizeof *ids, compare_ints);
    *out = ids;
    return count;
}

/* DeepSpeed's rule: in node order, count nodes whose cpu list is non-empty
 * and differs from the previous counted node's (memory-only nodes, e.g. HBM
 * in flat mode, do not count). Writes each counted node's CPU count into
 * *out_cpus (caller frees; may be NULL) and returns how many; 0 = unknown. */
int accel_cpu_host_numa_scan(int **out_cpus)
{
    int *ids = NULL, *cpus = NULL;
    int total = numa_node_ids(&ids), counted = 0;
    char previous[4096] = "", list[4096];

    if (total > 0)
        cpus = malloc((size_t)total * sizeof *cpus);
    for (int i = 0; cpus != NULL && i < total; i++) {
        char path[128];
        snprintf(path, sizeof path, ACCEL_CPU_NUMA_SYSFS_DIR "/node%d/cpulist", ids[i]);
        if (!read_first_line(path, list, sizeof list) || cpulist_count(list) == 0)
            continue;
        if (counted > 0 && strcmp(list, previous) == 0)
            continue;
        snprintf(previous, sizeof previous, "%s", list);
        cpus[counted++] = cpulist_count(list);
    }
    free(ids);
    if (out_cpus != NULL && counted > 0)
        *out_cpus = cpus;
    else
        free(cpus);
    return counted;
}

int accel_cpu_host_online_cpus(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 && cpus <= INT_MAX ? (int)cpus : 1;
}

/* ---------------------------------------------------------------- instruction set */

#if defined(__x86_64__) || defined(__i386__)
/* What oneDNN's f16 check (torch's mkldnn fp16 test) asks for: AVX512-FP16
 * (with AVX512 F/BW/DQ/VL), or the AVX2-VNNI-2 set (AVX-VNNI, AVX-VNNI-INT8,
 * AVX-NE-CONVERT), or AMX-FP16; each only when the OS saves its registers.
 * The registers come from core's one cpuid/XGETBV reader (cpu_isa.h). */
bool accel_cpu_host_fp16(void)
{
    accel_cpuid_t leaf1, leaf7, leaf71;
    uint64_t xcr0;
    bool avx512_fp16, avx2_vnni_2, amx_fp16;

    if (!accel_cpu_isa_cpuid(1, 0, &leaf1) || !(leaf1.ecx & (1u << 27))) /* OSXSAVE */
        return false;
    if (!accel_cpu_isa_cpuid(7, 0, &leaf7))
        return false;
    accel_cpu_isa_cpuid(7, 1, &leaf71); /* zeroed when absent */
    xcr0 = accel_cpu_isa_xcr0();
    bool os_ymm = (xcr0 & 0x6) == 0x6;
    bool os_zmm = os_ymm && (xcr0 & 0xe0) == 0xe0;
    bool os_amx = (xcr0 & 0x60000) == 0x60000;

    avx512_fp16 = os_zmm && (leaf7.ebx & (1u << 16)) && (leaf7.ebx & (1u << 17)) &&
                  (leaf7.ebx & (1u << 30)) && (leaf7.ebx & (1u << 31)) && (leaf7.edx & (1u << 23));
    avx2_vnni_2 = os_ymm && (leaf7.ebx & (1u << 5)) && (leaf71.eax & (1u << 4)) &&
                  (leaf71.edx & (1u << 4)) && (leaf71.edx & (1u << 5));
    amx_fp16 = os_amx && (leaf7.edx & (1u << 24)) && (leaf71.eax & (1u << 21));
    return avx512_fp16 || avx2_vnni_2 || amx_fp16;
}

void accel_cpu_host_vendor(char *out, size_t cap)
{
    accel_cpuid_t leaf0;
    uint32_t regs[3];
    char text[13];
    if (!accel_cpu_isa_cpuid(0, 0, &leaf0)) {
        out[0] = '\0';
        return;
    }
    regs[0] = leaf0.ebx; /* the vendor string is ebx, edx, ecx */
    regs[1] = leaf0.edx;
    regs[2] = leaf0.ecx;
    memcpy(text, regs, 12);
    text[12] = '\0';
    snprintf(out, cap, "%s", text);
}
#else
/* Arm: half-precision arithmetic in both FP and Advanced SIMD (what
 * torch's cpuinfo-based check asks for). Elsewhere: no fp16. */
bool accel_cpu_host_fp16(void)
{
#if defined(__aarch64__) && defined(__linux__) && defined(HWCAP_FPHP) && defined(HWCAP_ASIMDHP)
    unsigned long caps = getauxval(AT_HWCAP);
    return (caps & HWCAP_FPHP) && (caps & HWCAP_ASIMDHP);
#else
    return false;
#endif
}

void accel_cpu_host_vendor(char *out, size_t cap)
{
    read_proc_field("/proc/cpuinfo", "vendor_id", out, cap);
}
#endif

void accel_cpu_host_name(char *out, size_t cap)
{
    struct utsname names;
    read_proc_field("/proc/cpuinfo", "model name", out, cap);
    if (out[0] != '\0')
        return;
    if (uname(&names) == 0)
        snprintf(out, cap, "%s CPU", names.machine);
    else
        snprintf(out, cap, "host CPU");
}

/* ---------------------------------------------------------------- memory */

uint64_t accel_cpu_host_total_memory(void)
{
    uint64_t bytes;
    if (read_meminfo_bytes("MemTotal", &bytes))
        return bytes;
    return (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
}

uint64_t accel_cpu_host_available_memory(void)
{
    uint64_t bytes;
    if (read_meminfo_bytes("MemAvailable", &bytes))
        return bytes;
    return (uint64_t)sysconf(_SC_AVPHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
}
