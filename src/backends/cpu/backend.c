/* backend.c: the CPU backend's ops table and everything about the device
 * itself: detection (DeepSpeed's device_count rule), properties, memory
 * figures, flags and dtypes. What the host machine is (NUMA layout, CPUs,
 * name, memory) is read by host.c; streams, memory, graphs and RNG live in
 * the other neighbouring files.
 * Threads: the table and info are constant except `communication_backend`,
 * decided once per process by the first create() (see cpu_detect_ccl). Every
 * slot may be called from any thread. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accel/accel_backend_utils.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/spin.h"
#include "backends/cpu/event.h"
#include "backends/cpu/graph.h"
#include "backends/cpu/host.h"
#include "backends/cpu/memory.h"
#include "backends/cpu/rng.h"
#include "backends/cpu/stream.h"

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
    /* DeepSpeed's current_device() is os.environ.get('LOCAL_RANK', 0). */
    .current_device_from_local_rank = true,
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

/* ---------------------------------------------------------------- lifecycle */

static int cpu_device_count_now(int *out_numa_nodes)
{
    int local = local_size_devices(false), nodes = accel_cpu_host_numa_scan(NULL);
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
                 "host CPU: 1 device (no NUMA information under " ACCEL_CPU_NUMA_SYSFS_DIR ")");
}

static accel_status_t cpu_create(void **out_self)
{
    accel_cpu_backend_t *cpu = calloc(1, sizeof *cpu);
    int local;

    if (cpu == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "cpu: out of host memory for backend state");
    pthread_once(&cpu_ccl_once, cpu_detect_ccl);
    cpu->page_size = sysconf(_SC_PAGESIZE);
    if (cpu->page_size <= 0)
        cpu->page_size = 4096;
    cpu->online_cpus = accel_cpu_host_online_cpus();
    cpu->spin_ns = cpu->online_cpus > 1 ? ACCEL_CPU_SPIN_NS : 0;
    cpu->node_count = accel_cpu_host_numa_scan(&cpu->node_cpus);
    local = local_size_devices(true);
    cpu->device_count = local > 0 ? local : (cpu->node_count > 0 ? cpu->node_count : 1);
    cpu->fp16_supported = accel_cpu_host_fp16();
    accel_cpu_host_name(cpu->cpu_name, sizeof cpu->cpu_name);
    accel_cpu_host_vendor(cpu->cpu_vendor, sizeof cpu->cpu_vendor);
    pthread_mutex_init(&cpu->streams_lock, NULL);
    pthread_mutex_init(&cpu->events_lock, NULL);
    if (accel_cpu_fork_track(cpu) != ACCEL_OK) {
        pthread_mutex_destroy(&cpu->events_lock);
        pthread_mutex_destroy(&cpu->streams_lock);
        free(cpu->node_cpus);
        free(cpu);
        return ACCEL_ERROR_INTERNAL; /* accel_fork_hooks_add said why */
    }
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
    pthread_mutex_lock(&cpu->events_lock);
    leaked = leaked || cpu->events != NULL;
    pthread_mutex_unlock(&cpu->events_lock);
    if (leaked) { /* still tracked for fork: the memory stays valid */
        accel_log(ACCEL_LOG_WARN,
                  "cpu: backend closed with streams or events still alive; leaking them");
        return;
    }
    accel_cpu_fork_untrack(cpu);
    pthread_mutex_destroy(&cpu->events_lock);
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

/* Device i is NUMA node i when there is one (its cores), else the whole host. */
static accel_status_t cpu_device_properties(void *self, int device, accel_device_properties_t *out)
{
    accel_cpu_backend_t *cpu = self;
    accel_device_properties_t props = {.struct_size = sizeof props};

    if (out->struct_size < offsetof(accel_device_properties_t, name))
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: device properties struct_size %zu is too small",
                                   out->struct_size);
    snprintf(props.name, sizeof props.name, "%s", cpu->cpu_name);
    snprintf(props.vendor, sizeof props.vendor, "%s", cpu->cpu_vendor);
    props.total_memory = accel_cpu_host_total_memory();
    props.compute_major = -1;
    props.compute_minor = -1;
    props.multiprocessor_count =
        device < cpu->node_count ? cpu->node_cpus[device] : cpu->online_cpus;
    return accel_device_properties_copy_out(out, &props);
}

static accel_status_t cpu_memory_info(void *self, int device, uint64_t *free_bytes,
                                      uint64_t *total_bytes)
{
    *free_bytes = accel_cpu_host_available_memory();
    *total_bytes = accel_cpu_host_total_memory();
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
    return accel_dtypes_copy_out("cpu", all, n, out, cap, out_count);
}

/* ---------------------------------------------------------------- the table */

static const accel_backend_ops_t cpu_ops = {
    ACCEL_BACKEND_OPS_HEAD(cpu),

    .device_count = cpu_device_count,
    .device_properties = cpu_device_properties,
    .set_device = NULL, /* DeepSpeed: no-op; core keeps the current device */
    .synchronize = accel_cpu_device_synchronize,
    .memory_info = cpu_memory_info,
    .query_flag = cpu_query_flag,
    .supported_dtypes = cpu_supported_dtypes,

    ACCEL_BACKEND_MEMORY_SLOTS(accel_cpu),
    ACCEL_BACKEND_PINNED_SLOTS(accel_cpu),
    ACCEL_BACKEND_REGISTER_SLOTS(accel_cpu),
    ACCEL_BACKEND_STREAM_SLOTS(accel_cpu),
    ACCEL_BACKEND_EVENT_SLOTS(accel_cpu),
    ACCEL_BACKEND_GRAPH_SLOTS(accel_cpu),

    .rng_fill = accel_cpu_rng_fill,

    .range_push = NULL, /* core's trace recorder records ranges */
    .range_pop = NULL,

};

const accel_backend_ops_t *accel_cpu_backend_ops(void)
{
    return &cpu_ops;
}
