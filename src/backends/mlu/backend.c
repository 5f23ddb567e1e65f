/* backend.c: the mlu backend's ops table and everything about the devices
 * themselves: loading libcnrt, counting devices, the lazy first use,
 * per-thread devices, the fork rule, properties, flags, dtypes and CNRT
 * error text. Memory, queues, graphs and profiler ranges live next door.
 * Threads: the CNRT table is filled once per process by the vendor-library loader and
 * read-only afterwards; every slot may be called from any thread. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/mlu/mlu_backend.h"

/* ---------------------------------------------------------------- static facts */

/* DeepSpeed's mlu values (accelerator/mlu_accelerator.py). The compile
 * backends are torch._dynamo's list without a vendor graph backend. */
static const char *const mlu_compile_backends[] = {"inductor", "eager", "aot_eager"};
static const char *const mlu_visible_devices_envs[] = {"MLU_VISIBLE_DEVICES"};
static const char *const mlu_export_envs[] = {"NEUWARE_HOME", "CNCL", "LD_LIBRARY", "PATH"};

static const accel_backend_info_t mlu_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .communication_backend = "cncl",
    .default_compile_backend = "inductor",
    .compile_backends = mlu_compile_backends,
    .compile_backend_count = sizeof mlu_compile_backends / sizeof mlu_compile_backends[0],
    .visible_devices_envs = mlu_visible_devices_envs,
    .visible_devices_env_count = 1,
    .export_envs = mlu_export_envs,
    .export_env_count = sizeof mlu_export_envs / sizeof mlu_export_envs[0],
    .dlpack_device_type = kDLExtDev, /* DLPack has no Cambricon device type */
    .device_name_ignores_index = false,
    .synchronized_device = false,
    .use_host_timers = false,
    .resolves_data_dependency = false,
    .handles_memory_backpressure = false,
    .nvtx_domain_supported = false,
    .lazy_call_runs_immediately = false,
    .runtime_library = "libcnrt.so",
    .vendor_stack = "Cambricon Neuware (CNRT)",
    .current_device_from_local_rank = false,
    .fused_ops_unavailable =
        "the fused device optimizers need BANG C kernels, which this build cannot compile (no "
        "Cambricon kernel compiler); use the host optimizers (CPUAdamBuilder...)",
};

/* ---------------------------------------------------------------- loading libcnrt */

static accel_mlu_api_t mlu_cnrt_api;

static const accel_symbol_t mlu_cnrt_symbols[] = {
#define ACCEL_MLU_SYMBOL(required, ret, name, params, export_name)                                 \
    ACCEL_SYMBOL_ENTRY(mlu_cnrt_api, required, name, export_name),
#include "backends/mlu/symbols.h"
#undef ACCEL_MLU_SYMBOL
};

/* Whether cnrtMemcpyAsync resolved to the _V2 export. */
static bool mlu_cnrt_loaded(accel_vendor_library_t *lib, void *library)
{
    (void)lib;
    mlu_cnrt_api.memcpy_v2 =
        *(void **)&mlu_cnrt_api.cnrtMemcpyAsync == dlsym(library, "cnrtMemcpyAsync_V2");
    return true;
}

static const char *const mlu_cnrt_homes[] = {"NEUWARE_HOME", NULL};
static const char *const mlu_cnrt_names[] = {"libcnrt.so", NULL};

static accel_vendor_library_t mlu_cnrt = {
    .name = "mlu",
    .home_vars = mlu_cnrt_homes,
    .home_file = "lib64/libcnrt.so",
    .home_unset = "; NEUWARE_HOME is unset",
    .candidates = mlu_cnrt_names,
    .symbols = mlu_cnrt_symbols,
    .symbol_count = sizeof mlu_cnrt_symbols / sizeof mlu_cnrt_symbols[0],
    .not_found = "no Cambricon Neuware runtime (libcnrt.so) found",
    .symbols_in = "libcnrt.so",
    .path_from = "cnrtGetDeviceCount",
    .path = mlu_cnrt_api.path,
    .path_cap = sizeof mlu_cnrt_api.path,
    .handle_out = &mlu_cnrt_api.library,
    .on_load = mlu_cnrt_loaded,
};

const accel_mlu_api_t *accel_mlu_cnrt(char *reason, size_t cap)
{
    return accel_vendor_library_open(&mlu_cnrt, reason, cap) ? &mlu_cnrt_api : NULL;
}

bool accel_mlu_graphs_available(const accel_mlu_api_t *cnrt, char *reason, size_t cap)
{
    /* cnrtInvokeHostFunc too: accel graphs may hold host callbacks, which
     * the emulation (a notifier and a thread) cannot put into a topology */
    const char *missing = cnrt->cnrtInvokeHostFunc == NULL          ? "cnrtInvokeHostFunc"
                          : cnrt->cnrtQueueBeginCapture == NULL     ? "cnrtQueueBeginCapture"
                          : cnrt->cnrtQueueEndCapture == NULL       ? "cnrtQueueEndCapture"
                          : cnrt->cnrtTaskTopoInstantiate == NULL   ? "cnrtTaskTopoInstantiate"
                          : cnrt->cnrtTaskTopoDestroy == NULL       ? "cnrtTaskTopoDestroy"
                          : cnrt->cnrtTaskTopoEntityInvoke == NULL  ? "cnrtTaskTopoEntityInvoke"
                          : cnrt->cnrtTaskTopoEntityDestroy == NULL ? "cnrtTaskTopoEntityDestroy"
                                                                    : NULL;
    if (missing == NULL)
        return true;
    snprintf(reason, cap,
             "mlu: graphs are unsupported: the libcnrt.so found lacks %s, so it cannot capture "
             "queues into task topologies (CNRT 6 or later can)",
             missing);
    return false;
}

/* ---------------------------------------------------------------- errors */

accel_status_t accel_mlu_error(const accel_mlu_api_t *cnrt, accel_cnrt_ret_t code, const char *what)
{
    const char *name = cnrt != NULL ? cnrt->cnrtGetErrorName(code) : NULL;
    const char *text = cnrt != NULL ? cnrt->cnrtGetErrorStr(code) : NULL;
    accel_backend_vendor_error((int64_t)code, "mlu: %s failed with cnrtRet_t %u (%s)%s%s", what,
                               code, name != NULL ? name : "an unnamed CNRT code",
                               text != NULL && text[0] != '\0' ? ": " : "",
                               text != NULL ? text : "");
    if (code == ACCEL_CNRT_ERROR_NO_MEM || code == ACCEL_CNRT_ERROR_SYS_NO_MEM)
        return ACCEL_ERROR_OUT_OF_MEMORY; /* lets the caching allocator free and retry */
    return ACCEL_ERROR_DEVICE_ERROR;
}

/* ---------------------------------------------------------------- first use and fork */

static accel_fork_rule_t mlu_fork_rule; /* started when a CNRT context may exist */

bool accel_mlu_forked(void)
{
    return accel_fork_rule_forked(&mlu_fork_rule);
}

accel_status_t accel_mlu_fork_error(void)
{
    return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                               "mlu: cannot use the Cambricon runtime in a forked child process: "
                               "CNRT was used in the parent before fork(). Start child processes "
                               "with spawn (or exec), or initialise mlu after forking");
}

/* ---------------------------------------------------------------- per-thread device */

/* The calling thread's CNRT device as this library set it, keyed by the
 * backend instance so that a new backend never trusts an old entry. */
static _Thread_local accel_thread_device_t mlu_thread;

accel_status_t accel_mlu_activate(accel_mlu_backend_t *mlu, int device)
{
    accel_status_t status;
    if (accel_mlu_forked())
        return accel_mlu_fork_error();
    if (accel_thread_device_is(&mlu_thread, mlu->instance, device))
        return ACCEL_OK;
    status = accel_mlu_check(mlu->cnrt, mlu->cnrt->cnrtSetDevice(device), "cnrtSetDevice");
    if (status == ACCEL_OK) {
        accel_thread_device_set(&mlu_thread, mlu->instance, device);
    }
    return status;
}

int accel_mlu_thread_device(const accel_mlu_backend_t *mlu)
{
    return accel_thread_device_get(&mlu_thread, mlu->instance);
}

/* ---------------------------------------------------------------- lifecycle */

/* cnrtGetDeviceCount: the runtime applies MLU_VISIBLE_DEVICES; no device is
 * made current, so no context exists yet. Returns false with `how` saying
 * why when it fails. */
static bool mlu_count_devices(const void *runtime, int *out, char *how, size_t how_cap)
{
    const accel_mlu_api_t *cnrt = runtime;
    unsigned int count = 0;
    accel_cnrt_ret_t code = cnrt->cnrtGetDeviceCount(&count);
    if (code == ACCEL_CNRT_ERROR_NO_DEVICE) {
        *out = 0;
        accel_reason_format(how, how_cap, "%s reports no MLU device", cnrt->path);
        return true;
    }
    if (code != ACCEL_CNRT_SUCCESS) {
        const char *name = cnrt->cnrtGetErrorName(code);
        accel_reason_format(how, how_cap, "cnrtGetDeviceCount in %s failed with cnrtRet_t %u (%s)",
                            cnrt->path, code, name != NULL ? name : "unnamed");
        return false;
    }
    *out = (int)count;
    accel_reason_format(
        how, how_cap,
        "devices counted with cnrtGetDeviceCount from %s; bound to CNRT, tested against a "
        "simulated runtime only, never run on Cambricon hardware",
        cnrt->path);
    return true;
}

static const void *mlu_detect_load(char *reason, size_t cap)
{
    return accel_mlu_cnrt(reason, cap);
}

/* probe and create: libcnrt, the fork rule, the count. */
static const accel_backend_detect_t mlu_detect = {
    .backend = "mlu",
    .load = mlu_detect_load,
    .forked = accel_mlu_forked,
    .forked_reason = "CNRT was used before fork(); the runtime cannot be used in this child",
    .fork_error = accel_mlu_fork_error,
    .count = mlu_count_devices,
};

static void mlu_probe(accel_probe_result_t *out)
{
    accel_backend_detect_probe(&mlu_detect, out);
}

static accel_status_t mlu_create(void **out_self)
{
    const void *runtime;
    const accel_mlu_api_t *cnrt;
    accel_mlu_backend_t *mlu;
    int count = 0;
    accel_status_t status = accel_backend_detect_open(&mlu_detect, &runtime, &count);

    if (status != ACCEL_OK)
        return status;
    cnrt = runtime;
    mlu = calloc(1, sizeof *mlu);
    if (mlu != NULL && count > 0)
        mlu->bf16 = calloc((size_t)count, sizeof *mlu->bf16);
    if (mlu == NULL || (count > 0 && mlu->bf16 == NULL)) {
        free(mlu);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "mlu: out of host memory for state");
    }
    mlu->cnrt = cnrt;
    mlu->device_count = count;
    mlu->instance = accel_backend_instance_id();
    accel_mlu_callbacks_init(mlu);
    accel_log(ACCEL_LOG_DEBUG, "mlu: %d device(s) from %s", count, cnrt->path);
    *out_self = mlu;
    return ACCEL_OK;
}

/* Core releases streams, events, graphs and memory first. In a forked child
 * no CNRT call is made: only host memory is freed. */
static void mlu_destroy(void *self)
{
    accel_mlu_backend_t *mlu = self;
    if (mlu == NULL)
        return;
    if (accel_mlu_forked()) {
        /* The parent's threads are gone and its locks may be held: free our
         * own records only, touching neither the locks nor CNRT. */
        accel_callback_emulator_fini(&mlu->callbacks, true);
        free(mlu->bf16);
        free(mlu);
        return;
    }
    accel_mlu_callbacks_stop(mlu);
    accel_callback_calls_release(mlu); /* no graph can replay them now */
    free(mlu->bf16);
    free(mlu);
}

/* The first use: from here on a forked child must not touch CNRT. Reads
 * the versions, checks the count and each device's bf16 attribute. */
static accel_status_t mlu_init(void *self)
{
    accel_mlu_backend_t *mlu = self;
    const accel_mlu_api_t *cnrt = mlu->cnrt;
    unsigned int counted = 0;
    accel_status_t status;

    if (accel_mlu_forked())
        return accel_mlu_fork_error();
    accel_fork_rule_start(&mlu_fork_rule);
    status = accel_mlu_check(cnrt, cnrt->cnrtGetDeviceCount(&counted), "cnrtGetDeviceCount");
    if (status != ACCEL_OK)
        return status;
    if ((int)counted < mlu->device_count)
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE,
                                   "mlu: %d device(s) were counted at creation but the runtime "
                                   "now shows %u (check MLU_VISIBLE_DEVICES)",
                                   mlu->device_count, counted);
    status = accel_mlu_check(
        cnrt,
        cnrt->cnrtGetLibVersion(&mlu->lib_version[0], &mlu->lib_version[1], &mlu->lib_version[2]),
        "cnrtGetLibVersion");
    if (status == ACCEL_OK && cnrt->cnrtDriverGetVersion != NULL)
        status = accel_mlu_check(cnrt,
                                 cnrt->cnrtDriverGetVersion(&mlu->driver_version[0],
                                                            &mlu->driver_version[1],
                                                            &mlu->driver_version[2]),
                                 "cnrtDriverGetVersion");
    for (int d = 0; status == ACCEL_OK && d < mlu->device_count; d++) {
        int value = 0;
        status = accel_mlu_check(
            cnrt, cnrt->cnrtDeviceGetAttribute(&value, ACCEL_CNRT_ATTR_BF16_SUPPORTED, d),
            "cnrtDeviceGetAttribute(BF16ComputingSupported)");
        mlu->bf16[d] = value != 0;
    }
    if (status != ACCEL_OK)
        return status;
    if (accel_mlu_graphs_available(cnrt, mlu->graphs_reason, sizeof mlu->graphs_reason))
        mlu->graphs_reason[0] = '\0';
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- device queries */

static accel_status_t mlu_device_count(void *self, int *out)
{
    *out = ((accel_mlu_backend_t *)self)->device_count;
    return ACCEL_OK;
}

static accel_status_t mlu_set_device(void *self, int device)
{
    return accel_mlu_activate(self, device);
}

static accel_status_t mlu_attribute(const accel_mlu_api_t *cnrt, int device,
                                    accel_cnrt_device_attr_t attr, const char *what, int *out)
{
    return accel_mlu_check(cnrt, cnrt->cnrtDeviceGetAttribute(out, attr, device), what);
}

static accel_status_t mlu_device_properties(void *self, int device, accel_device_properties_t *out)
{
    accel_mlu_backend_t *mlu = self;
    const accel_mlu_api_t *cnrt = mlu->cnrt;
    accel_device_properties_t props = {.struct_size = sizeof props};
    /* CNRT 6.0.2's cnrtDeviceProp_t is only the name; later ones are longer */
    _Alignas(16) char buffer[ACCEL_CNRT_DEVICE_PROP_BUFFER] = {0};
    int major = 0, minor = 0, clusters = 0, cores = 0, total_mb = 0;
    accel_status_t status;

    if ((status = accel_mlu_activate(mlu, device)) != ACCEL_OK)
        return status;
    status = accel_mlu_check(
        cnrt, cnrt->cnrtGetDeviceProperties((accel_cnrt_device_prop_t *)buffer, device),
        "cnrtGetDeviceProperties");
    if (status == ACCEL_OK)
        status = mlu_attribute(cnrt, device, ACCEL_CNRT_ATTR_COMPUTE_MAJOR,
                               "cnrtDeviceGetAttribute(ComputeCapabilityMajor)", &major);
    if (status == ACCEL_OK)
        status = mlu_attribute(cnrt, device, ACCEL_CNRT_ATTR_COMPUTE_MINOR,
                               "cnrtDeviceGetAttribute(ComputeCapabilityMinor)", &minor);
    if (status == ACCEL_OK)
        status = mlu_attribute(cnrt, device, ACCEL_CNRT_ATTR_CLUSTER_COUNT,
                               "cnrtDeviceGetAttribute(ClusterCount)", &clusters);
    if (status == ACCEL_OK)
        status = mlu_attribute(cnrt, device, ACCEL_CNRT_ATTR_MCORE_PER_CLUSTER,
                               "cnrtDeviceGetAttribute(McorePerCluster)", &cores);
    if (status == ACCEL_OK)
        status = mlu_attribute(cnrt, device, ACCEL_CNRT_ATTR_TOTAL_MEM_SIZE,
                               "cnrtDeviceGetAttribute(TotalMemSize)", &total_mb);
    if (status != ACCEL_OK)
        return status;
    buffer[ACCEL_CNRT_DEVICE_NAME_SIZE - 1] = '\0';
    snprintf(props.name, sizeof props.name, "%s", buffer[0] != '\0' ? buffer : "Cambricon MLU");
    snprintf(props.vendor, sizeof props.vendor, "Cambricon");
    props.compute_major = major;
    props.compute_minor = minor;
    props.multiprocessor_count = clusters * cores; /* MLU cores: the nearest analogue */
    props.total_memory = (uint64_t)(total_mb > 0 ? total_mb : 0) << 20;
    snprintf(props.driver_version, sizeof props.driver_version, "CNRT %d.%d.%d, driver %d.%d.%d",
             mlu->lib_version[0], mlu->lib_version[1], mlu->lib_version[2], mlu->driver_version[0],
             mlu->driver_version[1], mlu->driver_version[2]);
    return accel_device_properties_copy_out(out, &props);
}

/* DeepSpeed: fp16 always, bf16 from torch_mlu (the device attribute),
 * Triton supported, graphs where CNRT can capture. */
static accel_status_t mlu_query_flag(void *self, int device, accel_flag_t flag, bool *out)
{
    accel_mlu_backend_t *mlu = self;
    switch (flag) {
    case ACCEL_FLAG_IS_AVAILABLE: *out = mlu->device_count > 0; return ACCEL_OK;
    case ACCEL_FLAG_BF16_SUPPORTED:
        *out = device >= 0 && device < mlu->device_count && mlu->bf16[device];
        return ACCEL_OK;
    case ACCEL_FLAG_FP16_SUPPORTED: *out = true; return ACCEL_OK;
    case ACCEL_FLAG_TRITON_SUPPORTED: *out = true; return ACCEL_OK;
    case ACCEL_FLAG_PREFER_TRITON_GROUPED_MM: *out = false; return ACCEL_OK;
    case ACCEL_FLAG_GRAPHS_SUPPORTED: *out = mlu->graphs_reason[0] == '\0'; return ACCEL_OK;
    default: return ACCEL_ERROR_UNSUPPORTED;
    }
}

/* DeepSpeed's mlu list: [float, half] + bfloat16 when supported. */
static accel_status_t mlu_supported_dtypes(void *self, int device, accel_dtype_t *out, size_t cap,
                                           size_t *out_count)
{
    accel_mlu_backend_t *mlu = self;
    accel_dtype_t all[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F16, ACCEL_DTYPE_BF16};
    size_t count = mlu->bf16[device] ? 3 : 2;
    return accel_dtypes_copy_out("mlu", all, count, out, cap, out_count);
}

/* ---------------------------------------------------------------- the table */

static const accel_backend_ops_t mlu_ops = {
    ACCEL_BACKEND_OPS_HEAD(mlu),

    ACCEL_BACKEND_DEVICE_SLOTS(mlu),
    .synchronize = accel_mlu_synchronize,
    .memory_info = accel_mlu_memory_info,

    ACCEL_BACKEND_MEMORY_SLOTS(accel_mlu),
    ACCEL_BACKEND_PINNED_SLOTS(accel_mlu),
    ACCEL_BACKEND_STREAM_SLOTS(accel_mlu),
    ACCEL_BACKEND_EVENT_SLOTS(accel_mlu),
    ACCEL_BACKEND_GRAPH_SLOTS(accel_mlu),

    .range_push = accel_mlu_range_push,
    .range_pop = accel_mlu_range_pop,

    .native_stream = accel_mlu_native_stream,
};

/* One table for every CNRT: where it cannot capture, the graph slots refuse
 * with the reason and ACCEL_FLAG_GRAPHS_SUPPORTED is false, so core refuses
 * accel_graph_create itself (UNSUPPORTED), as for a backend without graphs. */
const accel_backend_ops_t *accel_mlu_backend_ops(void)
{
    return &mlu_ops;
}
