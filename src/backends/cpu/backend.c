/* backend.c: the CPU backend's ops table and everything about the device
 * itself: detection (DeepSpeed's device_count rule), properties, memory
 * figures, flags and dtypes. Streams, memory, graphs and RNG live in the
 * neighbouring files.
 * Threads: the table and info are constant except `communication_backend`,
 * decided once per process by the first create() (see cpu_detect_ccl). Every
 * slot may be called from any thread. */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

#include "backends/cpu/cpu.h"
#include "core/env.h"
#include "ops/ops.h"

#define NUMA_SYSFS_DIR "/sys/devices/system/node"

/* ---------------------------------------------------------------- static facts */

/* What torch._dynamo.list_backends(exclude_tags=()) registers in a stock
 * torch, minus the CUDA-only "cudagraphs" and the test-only entries. */
static const char *const cpu_compile_backends[] = {
    "inductor", "eager",  "aot_eager", "aot_eager_decomp_partition",
    "aot_ts",   "onnxrt", "openxla",   "tvm",
};

/* DeepSpeed keeps CUDA_VISIBLE_DEVICES on the CPU backend too. */
static const char *const cpu_visible_devices_envs[] = {"CUDA_VISIBLE_DEVICES"};

/* Not const: communication_backend becomes "ccl" when the first create()
 * finds oneCCL (DeepSpeed: when oneccl_bindings_for_pytorch imports). Until
 * then, and on machines without it, "gloo". */
static accel_backend_info_t cpu_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .communication_backend = "gloo",
    .default_compile_backend = "inductor",
    .compile_backends = cpu_compile_backends,
    .compile_backend_count = sizeof cpu_compile_backends / sizeof cpu_compile_backends[0],
    .visible_devices_envs = cpu_visible_devices_envs,
    .visible_devices_env_count = 1,
    .export_envs = NULL,
    .export_env_count = 0,
    .dlpack_device_type = kDLCPU,
    .device_name_ignores_index = true,
    .synchronized_device = true,
    .use_host_timers = true,
    .resolves_data_dependency = true,
    .handles_memory_backpressure = true,
    .nvtx_domain_supported = false,
    .lazy_call_runs_immediately = true,
    .runtime_library = "libc",
    .vendor_stack = "host CPU",
};

static pthread_once_t cpu_ccl_once = PTHREAD_ONCE_INIT;

/* oneCCL is loaded (and kept loaded, as a Python import would be) only by
 * create(), never by probe(), so detection stays cheap and side-effect free. */
static void cpu_detect_ccl(void)
{
    static const char *const names[] = {"libccl.so.1", "libccl.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (dlopen(names[i], RTLD_LAZY | RTLD_LOCAL) != NULL) {
            cpu_info.communication_backend = "ccl";
            accel_log(ACCEL_LOG_DEBUG, "cpu: %s loads; communication backend is ccl", names[i]);
            return;
        }
    }
}

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
    DIR *dir = opendir(NUMA_SYSFS_DIR);
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
static int numa_scan(int **out_cpus)
{
    int *ids = NULL, *cpus = NULL;
    int total = numa_node_ids(&ids), counted = 0;
    char previous[4096] = "", list[4096];

    if (total > 0)
        cpus = malloc((size_t)total * sizeof *cpus);
    for (int i = 0; cpus != NULL && i < total; i++) {
        char path[128];
        snprintf(path, sizeof path, NUMA_SYSFS_DIR "/node%d/cpulist", ids[i]);
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

/* The most devices LOCAL_SIZE may ask for: far above any node's process
 * count, low enough that per-device state (allocator, generators, streams)
 * stays small. docs/env-vars.md states it. */
#define CPU_LOCAL_SIZE_MAX 4096

/* LOCAL_SIZE when it is an integer in [1, CPU_LOCAL_SIZE_MAX] (the launcher's
 * process count); 0 (fall back to the NUMA count) otherwise. */
static int local_size_devices(bool warn)
{
    const char *text = accel_env_get("LOCAL_SIZE");
    long value;
    if (text == NULL)
        return 0;
    if (!accel_env_parse_int(text, &value) || value < 1 || value > CPU_LOCAL_SIZE_MAX) {
        if (warn)
            accel_log(ACCEL_LOG_WARN,
                      "cpu: LOCAL_SIZE=%s is not an integer from 1 to %d; counting NUMA nodes",
                      text, CPU_LOCAL_SIZE_MAX);
        return 0;
    }
    return (int)value;
}

/* ---------------------------------------------------------------- instruction set */

#if defined(__x86_64__) || defined(__i386__)
static uint64_t cpu_xgetbv0(void)
{
    uint32_t eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}

/* What oneDNN's f16 check (torch's mkldnn fp16 test) asks for: AVX512-FP16
 * (with AVX512 F/BW/DQ/VL), or the AVX2-VNNI-2 set (AVX-VNNI, AVX-VNNI-INT8,
 * AVX-NE-CONVERT), or AMX-FP16; each only when the OS saves its registers. */
static bool cpu_detect_fp16(void)
{
    unsigned a1, b1, c1, d1, a7, b7, c7, d7, a71, b71, c71, d71;
    uint64_t xcr0;
    bool avx512_fp16, avx2_vnni_2, amx_fp16;

    if (!__get_cpuid(1, &a1, &b1, &c1, &d1) || !(c1 & (1u << 27))) /* OSXSAVE */
        return false;
    if (!__get_cpuid_count(7, 0, &a7, &b7, &c7, &d7))
        return false;
    if (!__get_cpuid_count(7, 1, &a71, &b71, &c71, &d71))
        a71 = b71 = c71 = d71 = 0;
    xcr0 = cpu_xgetbv0();
    bool os_ymm = (xcr0 & 0x6) == 0x6;
    bool os_zmm = os_ymm && (xcr0 & 0xe0) == 0xe0;
    bool os_amx = (xcr0 & 0x60000) == 0x60000;

    avx512_fp16 = os_zmm && (b7 & (1u << 16)) && (b7 & (1u << 17)) && (b7 & (1u << 30)) &&
                  (b7 & (1u << 31)) && (d7 & (1u << 23));
    avx2_vnni_2 =
        os_ymm && (b7 & (1u << 5)) && (a71 & (1u << 4)) && (d71 & (1u << 4)) && (d71 & (1u << 5));
    amx_fp16 = os_amx && (d7 & (1u << 24)) && (a71 & (1u << 21));
    return avx512_fp16 || avx2_vnni_2 || amx_fp16;
}

static void cpu_read_vendor(char *out, size_t cap)
{
    unsigned eax, regs[3];
    char text[13];
    if (!__get_cpuid(0, &eax, &regs[0], &regs[2], &regs[1])) { /* ebx, edx, ecx order */
        out[0] = '\0';
        return;
    }
    memcpy(text, regs, 12);
    text[12] = '\0';
    snprintf(out, cap, "%s", text);
}
#else
/* Arm: half-precision arithmetic in both FP and Advanced SIMD (what
 * torch's cpuinfo-based check asks for). Elsewhere: no fp16. */
static bool cpu_detect_fp16(void)
{
#if defined(__aarch64__) && defined(__linux__) && defined(HWCAP_FPHP) && defined(HWCAP_ASIMDHP)
    unsigned long caps = getauxval(AT_HWCAP);
    return (caps & HWCAP_FPHP) && (caps & HWCAP_ASIMDHP);
#else
    return false;
#endif
}

static void cpu_read_vendor(char *out, size_t cap)
{
    read_proc_field("/proc/cpuinfo", "vendor_id", out, cap);
}
#endif

static void cpu_read_name(char *out, size_t cap)
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

/* ---------------------------------------------------------------- lifecycle */

static int cpu_device_count_now(int *out_numa_nodes)
{
    int local = local_size_devices(false), nodes = numa_scan(NULL);
    *out_numa_nodes = nodes;
    if (local > 0)
        return local;
    return nodes > 0 ? nodes : 1;
}

static void cpu_probe(accel_probe_result_t *out)
{
    int nodes, count = cpu_device_count_now(&nodes);
    out->available = true;
    out->device_count = count;
    if (local_size_devices(false) > 0)
        snprintf(out->reason, sizeof out->reason, "host CPU: %d device(s) from LOCAL_SIZE", count);
    else if (nodes > 0)
        snprintf(out->reason, sizeof out->reason, "host CPU: %d NUMA node(s)", nodes);
    else
        snprintf(out->reason, sizeof out->reason,
                 "host CPU: 1 device (no NUMA information under " NUMA_SYSFS_DIR ")");
}

static accel_status_t cpu_create(void **out_self)
{
    accel_cpu_backend_t *cpu = calloc(1, sizeof *cpu);
    long cpus;
    int local;

    if (cpu == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "cpu: out of host memory for backend state");
    pthread_once(&cpu_ccl_once, cpu_detect_ccl);
    cpu->page_size = sysconf(_SC_PAGESIZE);
    if (cpu->page_size <= 0)
        cpu->page_size = 4096;
    cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu->online_cpus = cpus > 0 && cpus <= INT_MAX ? (int)cpus : 1;
    cpu->node_count = numa_scan(&cpu->node_cpus);
    local = local_size_devices(true);
    cpu->device_count = local > 0 ? local : (cpu->node_count > 0 ? cpu->node_count : 1);
    cpu->fp16_supported = cpu_detect_fp16();
    cpu_read_name(cpu->cpu_name, sizeof cpu->cpu_name);
    cpu_read_vendor(cpu->cpu_vendor, sizeof cpu->cpu_vendor);
    pthread_mutex_init(&cpu->streams_lock, NULL);
    *out_self = cpu;
    return ACCEL_OK;
}

/* Core releases every stream first. If the program leaked some, their
 * workers still use them (not this struct), so the state is left allocated
 * rather than freed under them. */
static void cpu_destroy(void *self)
{
    accel_cpu_backend_t *cpu = self;
    bool leaked;
    if (cpu == NULL)
        return;
    pthread_mutex_lock(&cpu->streams_lock);
    leaked = cpu->streams != NULL;
    pthread_mutex_unlock(&cpu->streams_lock);
    if (leaked) {
        accel_log(ACCEL_LOG_WARN, "cpu: backend closed with streams still alive; leaking them");
        return;
    }
    pthread_mutex_destroy(&cpu->streams_lock);
    free(cpu->node_cpus);
    free(cpu);
}

/* Nothing to start: the host is always ready, and stream workers start with
 * their streams. */
static accel_status_t cpu_init(void *self)
{
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- device queries */

static accel_status_t cpu_device_count(void *self, int *out)
{
    *out = ((accel_cpu_backend_t *)self)->device_count;
    return ACCEL_OK;
}

static uint64_t cpu_total_memory(void)
{
    uint64_t bytes;
    if (read_meminfo_bytes("MemTotal", &bytes))
        return bytes;
    return (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t cpu_available_memory(void)
{
    uint64_t bytes;
    if (read_meminfo_bytes("MemAvailable", &bytes))
        return bytes;
    return (uint64_t)sysconf(_SC_AVPHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Device i is NUMA node i when there is one (its cores), else the whole host. */
static accel_status_t cpu_device_properties(void *self, int device, accel_device_properties_t *out)
{
    accel_cpu_backend_t *cpu = self;
    accel_device_properties_t props = {.struct_size = sizeof props};
    size_t size = out->struct_size < sizeof props ? out->struct_size : sizeof props;

    if (out->struct_size < offsetof(accel_device_properties_t, name))
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: device properties struct_size %zu is too small",
                                   out->struct_size);
    snprintf(props.name, sizeof props.name, "%s", cpu->cpu_name);
    snprintf(props.vendor, sizeof props.vendor, "%s", cpu->cpu_vendor);
    props.total_memory = cpu_total_memory();
    props.compute_major = -1;
    props.compute_minor = -1;
    props.multiprocessor_count =
        device < cpu->node_count ? cpu->node_cpus[device] : cpu->online_cpus;
    props.struct_size = out->struct_size;
    memcpy(out, &props, size);
    return ACCEL_OK;
}

static accel_status_t cpu_memory_info(void *self, int device, uint64_t *free_bytes,
                                      uint64_t *total_bytes)
{
    *free_bytes = cpu_available_memory();
    *total_bytes = cpu_total_memory();
    return ACCEL_OK;
}

/* Flags the info table answers (synchronized device, host timers...) are
 * left to core: UNSUPPORTED here means "ask info", not an error. */
static accel_status_t cpu_query_flag(void *self, int device, accel_flag_t flag, bool *out)
{
    accel_cpu_backend_t *cpu = self;
    switch (flag) {
    case ACCEL_FLAG_IS_AVAILABLE:
    case ACCEL_FLAG_BF16_SUPPORTED:
    case ACCEL_FLAG_GRAPHS_SUPPORTED:
    case ACCEL_FLAG_STREAMS_SUPPORTED:
    case ACCEL_FLAG_EVENTS_SUPPORTED: *out = true; return ACCEL_OK;
    case ACCEL_FLAG_FP16_SUPPORTED: *out = cpu->fp16_supported; return ACCEL_OK;
    case ACCEL_FLAG_TRITON_SUPPORTED:
    case ACCEL_FLAG_PREFER_TRITON_GROUPED_MM: *out = false; return ACCEL_OK;
    default: return ACCEL_ERROR_UNSUPPORTED;
    }
}

/* DeepSpeed's order on cpu: float, bfloat16, then float16 when supported. */
static accel_status_t cpu_supported_dtypes(void *self, int device, accel_dtype_t *out, size_t cap,
                                           size_t *out_count)
{
    accel_cpu_backend_t *cpu = self;
    const accel_dtype_t all[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_BF16, ACCEL_DTYPE_F16};
    size_t n = cpu->fp16_supported ? 3 : 2;
    if (out == NULL && cap > 0)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: dtype output array is NULL but capacity is %zu", cap);
    for (size_t i = 0; i < n && i < cap; i++)
        out[i] = all[i];
    *out_count = n;
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- the table */

static const accel_backend_ops_t cpu_ops = {
    .abi_version = ACCEL_BACKEND_ABI_VERSION,
    .struct_size = sizeof(accel_backend_ops_t),
    .name = "cpu",
    .info = &cpu_info,

    .probe = cpu_probe,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .init = cpu_init,

    .device_count = cpu_device_count,
    .device_properties = cpu_device_properties,
    .set_device = NULL, /* DeepSpeed: no-op; core keeps the current device */
    .synchronize = accel_cpu_device_synchronize,
    .memory_info = cpu_memory_info,
    .query_flag = cpu_query_flag,
    .supported_dtypes = cpu_supported_dtypes,

    .mem_alloc = accel_cpu_mem_alloc,
    .mem_free = accel_cpu_mem_free,
    .memcpy_async = accel_cpu_memcpy_async,
    .memset_async = accel_cpu_memset_async,

    .host_alloc = accel_cpu_host_alloc,
    .host_free = accel_cpu_host_free,
    .host_register = accel_cpu_host_register,
    .host_unregister = accel_cpu_host_unregister,

    .stream_create = accel_cpu_stream_create,
    .stream_destroy = accel_cpu_stream_destroy,
    .stream_synchronize = accel_cpu_stream_synchronize,
    .stream_query = accel_cpu_stream_query,
    .stream_wait_event = accel_cpu_stream_wait_event,
    .stream_add_callback = accel_cpu_stream_add_callback,

    .event_create = accel_cpu_event_create,
    .event_destroy = accel_cpu_event_destroy,
    .event_record = accel_cpu_event_record,
    .event_synchronize = accel_cpu_event_synchronize,
    .event_query = accel_cpu_event_query,
    .event_elapsed_ms = accel_cpu_event_elapsed_ms,

    .graph_capture_begin = accel_cpu_graph_capture_begin,
    .graph_capture_end = accel_cpu_graph_capture_end,
    .graph_launch = accel_cpu_graph_launch,
    .graph_destroy = accel_cpu_graph_destroy,

    .rng_fill = accel_cpu_rng_fill,

    .range_push = NULL, /* core's trace recorder records ranges */
    .range_pop = NULL,
    .op_builders = accel_cpu_backend_op_builders,
};

const accel_backend_ops_t *accel_cpu_backend_ops(void)
{
    return &cpu_ops;
}
