/* backend.c: the npu backend's ops table and everything about the devices
 * themselves: loading libascendcl, detection without aclInit, the one
 * aclInit, per-thread devices, the fork rule, properties, flags, dtypes and
 * ACL error text. Memory and streams live next door.
 * Threads: the ACL table is filled once per process by the vendor-library loader and
 * read-only afterwards; every slot may be called from any thread. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "backends/npu/npu_backend.h"

#define NPU_VISIBLE_ENV "ASCEND_RT_VISIBLE_DEVICES"

/* ---------------------------------------------------------------- static facts */

/* DeepSpeed's npu values (accelerator/npu_accelerator.py). The compile
 * backends are torch._dynamo's list without a vendor graph backend. */
static const char *const npu_compile_backends[] = {"inductor", "eager", "aot_eager"};
static const char *const npu_visible_devices_envs[] = {NPU_VISIBLE_ENV};
static const char *const npu_export_envs[] = {"ASCEND", "HCCL", "LD_LIBRARY", "PATH"};

static const accel_backend_info_t npu_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .communication_backend = "hccl",
    .default_compile_backend = "inductor",
    .compile_backends = npu_compile_backends,
    .compile_backend_count = sizeof npu_compile_backends / sizeof npu_compile_backends[0],
    .visible_devices_envs = npu_visible_devices_envs,
    .visible_devices_env_count = 1,
    .export_envs = npu_export_envs,
    .export_env_count = sizeof npu_export_envs / sizeof npu_export_envs[0],
    .dlpack_device_type = kDLExtDev, /* DLPack has no Ascend device type */
    .device_name_ignores_index = false,
    .synchronized_device = false,
    .use_host_timers = false,
    .resolves_data_dependency = false,
    .handles_memory_backpressure = false,
    .nvtx_domain_supported = false,
    .lazy_call_runs_immediately = false,
    .runtime_library = "libascendcl.so",
    .vendor_stack = "Huawei Ascend CANN",
    .current_device_from_local_rank = false,
    .fused_ops_unavailable =
        "the fused device optimizers need Ascend C kernels, which this build cannot compile (no "
        "CANN kernel compiler); use the host optimizers (CPUAdamBuilder...)",
};

/* ---------------------------------------------------------------- loading libascendcl */

static accel_npu_api_t npu_acl_api;

static const accel_symbol_t npu_acl_symbols[] = {
#define ACCEL_NPU_SYMBOL(required, ret, name, params, export)                                      \
    ACCEL_SYMBOL_ENTRY(npu_acl_api, required, name, export),
#include "backends/npu/symbols.h"
#undef ACCEL_NPU_SYMBOL
};

static const char *const npu_acl_homes[] = {"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", NULL};
static const char *const npu_acl_names[] = {"libascendcl.so", NULL};

static accel_vendor_library_t npu_acl = {
    .name = "npu",
    .home_vars = npu_acl_homes,
    .home_file = "lib64/libascendcl.so",
    .home_unset = "; ASCEND_HOME_PATH and ASCEND_TOOLKIT_HOME are unset",
    .candidates = npu_acl_names,
    .symbols = npu_acl_symbols,
    .symbol_count = sizeof npu_acl_symbols / sizeof npu_acl_symbols[0],
    .not_found = "no Huawei Ascend runtime (libascendcl.so) found",
    .symbols_in = "the libascendcl.so that loaded",
    .too_old = "CANN too old?",
    .path_from = "aclInit",
    .path = npu_acl_api.path,
    .path_cap = sizeof npu_acl_api.path,
    .handle_out = &npu_acl_api.library,
};

const accel_npu_api_t *accel_npu_acl(char *reason, size_t cap)
{
    return accel_vendor_library_open(&npu_acl, reason, cap) ? &npu_acl_api : NULL;
}

/* ---------------------------------------------------------------- errors */

static const char *npu_error_name(accel_acl_error_t code)
{
    static const struct {
        int code;
        const char *name;
    } names[] = {
        {100000, "ACL_ERROR_INVALID_PARAM"},
        {100001, "ACL_ERROR_UNINITIALIZE"},
        {100002, "ACL_ERROR_REPEAT_INITIALIZE"},
        {100033, "ACL_ERROR_REPEAT_SUBSCRIBE"},
        {100034, "ACL_ERROR_STREAM_NOT_SUBSCRIBE"},
        {100035, "ACL_ERROR_THREAD_NOT_SUBSCRIBE"},
        {100036, "ACL_ERROR_WAIT_CALLBACK_TIMEOUT"},
        {200000, "ACL_ERROR_BAD_ALLOC"},
        {200002, "ACL_ERROR_INVALID_DEVICE"},
        {107000, "ACL_ERROR_RT_PARAM_INVALID"},
        {107001, "ACL_ERROR_RT_INVALID_DEVICEID"},
        {107002, "ACL_ERROR_RT_CONTEXT_NULL"},
        {107003, "ACL_ERROR_RT_STREAM_CONTEXT"},
        {207000, "ACL_ERROR_RT_FEATURE_NOT_SUPPORT"},
        {207001, "ACL_ERROR_RT_MEMORY_ALLOCATION"},
        {207004, "ACL_ERROR_RT_NO_DEVICE"},
        {207018, "ACL_ERROR_RT_DEVICE_OOM"},
        {500000, "ACL_ERROR_INTERNAL_ERROR"},
        {500001, "ACL_ERROR_FAILURE"},
        {507000, "ACL_ERROR_RT_INTERNAL_ERROR"},
        {507004, "ACL_ERROR_RT_STREAM_NOT_COMPLETE"},
        {507006, "ACL_ERROR_RT_EVENT_NOT_COMPLETE"},
        {507033, "ACL_ERROR_RT_DEV_SETUP_ERROR"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == code)
            return names[i].name;
    return "an unlisted ACL code";
}

accel_status_t accel_npu_error(const accel_npu_api_t *acl, accel_acl_error_t code, const char *what)
{
    const char *detail = acl != NULL ? acl->aclGetRecentErrMsg() : NULL;
    accel_backend_vendor_error(
        (int64_t)code, "npu: %s failed with aclError %d (%s)%s%s", what, code, npu_error_name(code),
        detail != NULL && detail[0] != '\0' ? ": " : "", detail != NULL ? detail : "");
    if (code == ACCEL_ACL_ERROR_RT_MEMORY_ALLOCATION || code == ACCEL_ACL_ERROR_RT_DEVICE_OOM ||
        code == ACCEL_ACL_ERROR_BAD_ALLOC)
        return ACCEL_ERROR_OUT_OF_MEMORY; /* lets the caching allocator free and retry */
    return ACCEL_ERROR_DEVICE_ERROR;
}

/* ---------------------------------------------------------------- aclInit and fork */

static pthread_mutex_t npu_init_lock = PTHREAD_MUTEX_INITIALIZER;
static bool npu_init_ok;                /* under npu_init_lock */
static accel_fork_rule_t npu_fork_rule; /* started when aclInit succeeds */

bool accel_npu_forked(void)
{
    return accel_fork_rule_forked(&npu_fork_rule);
}

static accel_status_t npu_fork_error(void)
{
    return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                               "npu: cannot use the Ascend runtime in a forked child process: "
                               "ACL was initialised in the parent before fork(). Start child "
                               "processes with spawn (or exec), or initialise npu after forking");
}

/* aclInit once per process; a failed attempt is retried by the next call.
 * ACL_ERROR_REPEAT_INITIALIZE (another library in the process ran it
 * first) counts as success. */
static accel_status_t npu_acl_init(const accel_npu_api_t *acl)
{
    accel_status_t status = ACCEL_OK;
    pthread_mutex_lock(&npu_init_lock);
    if (!npu_init_ok) {
        accel_acl_error_t code = acl->aclInit(NULL);
        if (code == ACCEL_ACL_SUCCESS || code == ACCEL_ACL_ERROR_REPEAT_INITIALIZE) {
            npu_init_ok = true;
            accel_fork_rule_start(&npu_fork_rule);
        } else {
            status = accel_npu_error(acl, code, "aclInit");
        }
    }
    pthread_mutex_unlock(&npu_init_lock);
    return status;
}

/* ---------------------------------------------------------------- per-thread device */

/* The calling thread's ACL device as this library set it, keyed by the
 * backend instance so that a new backend never trusts an old entry. */
static _Thread_local accel_thread_device_t npu_thread;

/* The device's default stream is made here, on its first activation on any
 * thread (accel_npu_stream_handle reads it). */
accel_status_t accel_npu_activate(accel_npu_backend_t *npu, int device)
{
    accel_acl_stream_t handle = NULL;
    accel_status_t status;
    if (accel_npu_forked())
        return npu_fork_error();
    if (accel_thread_device_is(&npu_thread, npu->instance, device))
        return ACCEL_OK;
    status = accel_npu_check(npu->acl, npu->acl->aclrtSetDevice(device), "aclrtSetDevice");
    if (status == ACCEL_OK)
        status = accel_npu_default_stream_make(npu, device, &handle);
    if (status == ACCEL_OK)
        accel_thread_device_set(&npu_thread, npu->instance, device);
    return status;
}

int accel_npu_thread_device(const accel_npu_backend_t *npu)
{
    return accel_thread_device_get(&npu_thread, npu->instance);
}

/* ---------------------------------------------------------------- counting devices */

/* The Ascend driver's device nodes, /dev/davinci<N> (ACCEL_NPU_DEVICE_DIR
 * names another folder), counted without touching the runtime; then
 * ASCEND_RT_VISIBLE_DEVICES as CANN reads it: ascending ids below the
 * count, up to the first entry that is not one. */
static int npu_count_device_nodes(char *dir_out, size_t dir_cap)
{
    const char *dir_name = getenv("ACCEL_NPU_DEVICE_DIR");
    const char *visible = getenv(NPU_VISIBLE_ENV);
    struct dirent *entry;
    DIR *dir;
    int count = 0;
    if (dir_name == NULL || dir_name[0] == '\0')
        dir_name = "/dev";
    snprintf(dir_out, dir_cap, "%s", dir_name);
    if ((dir = opendir(dir_name)) == NULL)
        return 0;
    while ((entry = readdir(dir)) != NULL) {
        const char *digits = entry->d_name + 7;
        if (strncmp(entry->d_name, "davinci", 7) != 0 || *digits == '\0')
            continue;
        while (*digits >= '0' && *digits <= '9')
            digits++;
        if (*digits == '\0')
            count++;
    }
    closedir(dir);
    if (visible != NULL) {
        int shown = 0;
        long last = -1;
        const char *p = visible;
        while (*p >= '0' && *p <= '9') {
            char *end;
            long id = strtol(p, &end, 10);
            if (id <= last || id >= count)
                break;
            last = id;
            shown++;
            if (*end != ',')
                break;
            p = end + 1;
        }
        count = shown;
    }
    return count;
}

/* Count with aclrtGetDeviceCount, which CANN answers before aclInit (no
 * device is opened). A runtime that refuses before aclInit is answered by
 * the driver's device nodes instead. Returns false with `how` saying why
 * when neither can count. */
static bool npu_count_devices(const void *runtime, int *out, char *how, size_t how_cap)
{
    const accel_npu_api_t *acl = runtime;
    uint32_t count = 0;
    accel_acl_error_t code = acl->aclrtGetDeviceCount(&count);
    if (code == ACCEL_ACL_ERROR_RT_NO_DEVICE) {
        *out = 0;
        accel_reason_format(how, how_cap, "%s reports no Ascend device", acl->path);
        return true;
    }
    if (code == ACCEL_ACL_ERROR_UNINITIALIZE) {
        char dir[128];
        int nodes = npu_count_device_nodes(dir, sizeof dir);
        *out = nodes;
        accel_reason_format(
            how, how_cap,
            "%s will not count devices before aclInit; counted %d %s/davinci<N> device "
            "node(s) instead%s",
            acl->path, nodes, dir, nodes > 0 ? "" : " (none: no Ascend driver here)");
        return true;
    }
    if (code != ACCEL_ACL_SUCCESS) {
        accel_reason_format(how, how_cap, "aclrtGetDeviceCount in %s failed with aclError %d (%s)",
                            acl->path, code, npu_error_name(code));
        return false;
    }
    *out = (int)count;
    accel_reason_format(
        how, how_cap,
        "devices counted with aclrtGetDeviceCount from %s, before aclInit; bound to ACL, "
        "tested against a simulated runtime only, never run on Ascend hardware",
        acl->path);
    return true;
}

/* ---------------------------------------------------------------- lifecycle */

static const void *npu_detect_load(char *reason, size_t cap)
{
    return accel_npu_acl(reason, cap);
}

/* probe and create: libascendcl, the fork rule, the count. */
static const accel_backend_detect_t npu_detect = {
    .backend = "npu",
    .load = npu_detect_load,
    .forked = accel_npu_forked,
    .forked_reason = "ACL was initialised before fork(); the runtime cannot be used in this child",
    .fork_error = npu_fork_error,
    .count = npu_count_devices,
};

static void npu_probe(accel_probe_result_t *out)
{
    accel_backend_detect_probe(&npu_detect, out);
}

static accel_status_t npu_create(void **out_self)
{
    const void *runtime;
    const accel_npu_api_t *acl;
    accel_npu_backend_t *npu;
    int count = 0;
    accel_status_t status = accel_backend_detect_open(&npu_detect, &runtime, &count);

    if (status != ACCEL_OK)
        return status;
    acl = runtime;
    npu = calloc(1, sizeof *npu);
    if (npu != NULL && count > 0) {
        npu->defaults = calloc((size_t)count, sizeof *npu->defaults);
        npu->reports = calloc((size_t)count, sizeof *npu->reports);
        npu->synchronized = calloc((size_t)count, sizeof *npu->synchronized);
    }
    if (npu == NULL || (count > 0 && (npu->defaults == NULL || npu->reports == NULL ||
                                      npu->synchronized == NULL))) {
        if (npu != NULL) {
            free(npu->defaults);
            free(npu->reports);
            free(npu->synchronized);
        }
        free(npu);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "npu: out of host memory for state");
    }
    if ((status = accel_npu_events_init(npu)) != ACCEL_OK) {
        free(npu->defaults);
        free(npu->reports);
        free(npu->synchronized);
        free(npu);
        return status;
    }
    for (int d = 0; d < count; d++)
        npu->defaults[d].device = d;
    /* One callback mechanism per instance, never both on one stream (CANN
     * runtime docs 12_execution_control.md): host functions when exported. */
    npu->host_func = acl->aclrtLaunchHostFunc != NULL;
    npu->acl = acl;
    npu->device_count = count;
    npu->instance = accel_backend_instance_id();
    npu->mem_attr = ACCEL_ACL_HBM_MEM;
    if ((status = accel_npu_copy_staging_open(npu)) != ACCEL_OK) {
        accel_npu_events_release(npu);
        free(npu->defaults);
        free(npu->reports);
        free(npu->synchronized);
        free(npu);
        return status;
    }
    pthread_mutex_init(&npu->defaults_lock, NULL);
    pthread_mutex_init(&npu->report_lock, NULL);
    pthread_cond_init(&npu->report_changed, NULL);
    pthread_mutex_init(&npu->pinned_lock, NULL);
    accel_range_map_init(&npu->pinned, 0);
    accel_log(ACCEL_LOG_DEBUG, "npu: %d device(s) from %s; callbacks through %s", count, acl->path,
              npu->host_func ? "aclrtLaunchHostFunc" : "aclrtLaunchCallback");
    *out_self = npu;
    return ACCEL_OK;
}

/* Core releases streams, events and memory first. In a forked child no ACL
 * call is made: only host memory is freed. */
static void npu_destroy(void *self)
{
    accel_npu_backend_t *npu = self;
    if (npu == NULL)
        return;
    /* Before the report thread stops: a copy may sit behind a callback. */
    accel_npu_copy_staging_close(npu);
    if (!accel_npu_forked())
        accel_npu_report_stop(npu);
    accel_npu_events_release(npu);
    if (!accel_npu_forked())
        accel_npu_default_streams_release(npu);
    pthread_cond_destroy(&npu->report_changed);
    accel_range_map_fini(&npu->pinned);
    pthread_mutex_destroy(&npu->pinned_lock);
    pthread_mutex_destroy(&npu->report_lock);
    pthread_mutex_destroy(&npu->defaults_lock);
    free(npu->defaults);
    free(npu->reports);
    free(npu->synchronized);
    free(npu);
}

/* bf16 from the SoC name: Ascend 910B (910B1..B4), the 910_93 family and
 * 310B parts, as torch_npu's is_bf16_supported orders its SoC list; the
 * 910A/ProA/PremiumA and 310P parts lack it. */
static bool npu_soc_has_bf16(const char *soc)
{
    static const char *const with_bf16[] = {"Ascend910B", "Ascend910_93", "Ascend310B",
                                            "Ascend910C", "Ascend950"};
    for (size_t i = 0; i < sizeof with_bf16 / sizeof with_bf16[0]; i++) {
        size_t len = strlen(with_bf16[i]);
        if (strncmp(soc, with_bf16[i], len) == 0 && soc[len] != '\0')
            return true;
    }
    return false;
}

/* aclInit (once per process) and the facts every device shares. */
static accel_status_t npu_init(void *self)
{
    accel_npu_backend_t *npu = self;
    const accel_npu_api_t *acl = npu->acl;
    uint32_t counted = 0;
    const char *soc;
    accel_status_t status;

    if (accel_npu_forked())
        return npu_fork_error();
    if ((status = npu_acl_init(acl)) != ACCEL_OK)
        return status;
    /* The count may have come from the device nodes: the runtime must agree. */
    status = accel_npu_check(acl, acl->aclrtGetDeviceCount(&counted), "aclrtGetDeviceCount");
    if (status != ACCEL_OK)
        return status;
    if ((int)counted < npu->device_count)
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE,
                                   "npu: %d device(s) were counted before initialisation but "
                                   "the runtime shows %u (check " NPU_VISIBLE_ENV ")",
                                   npu->device_count, counted);
    /* aclrtGetVersion is deprecated (optional): without it the driver
     * version in the device properties says "unknown". */
    if (acl->aclrtGetVersion != NULL) {
        status = accel_npu_check(
            acl, acl->aclrtGetVersion(&npu->version[0], &npu->version[1], &npu->version[2]),
            "aclrtGetVersion");
        if (status != ACCEL_OK)
            return status;
    }
    /* aclrtGetSocName has no error code: NULL means "unknown", which is no
     * reason to refuse the devices (bf16 is then reported as absent). */
    soc = acl->aclrtGetSocName();
    if (soc == NULL) {
        accel_log(ACCEL_LOG_WARN, "npu: aclrtGetSocName returned NULL; SoC unknown, bf16 off");
        npu->soc_name[0] = '\0';
    } else {
        snprintf(npu->soc_name, sizeof npu->soc_name, "%s", soc);
    }
    npu->bf16 = npu_soc_has_bf16(npu->soc_name);
    npu->mem_attr =
        strncmp(npu->soc_name, "Ascend310", 9) == 0 ? ACCEL_ACL_DDR_MEM : ACCEL_ACL_HBM_MEM;
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- device queries */

static accel_status_t npu_device_count(void *self, int *out)
{
    *out = ((accel_npu_backend_t *)self)->device_count;
    return ACCEL_OK;
}

static accel_status_t npu_set_device(void *self, int device)
{
    return accel_npu_activate(self, device);
}

static accel_status_t npu_device_properties(void *self, int device, accel_device_properties_t *out)
{
    accel_npu_backend_t *npu = self;
    const accel_npu_api_t *acl = npu->acl;
    accel_device_properties_t props = {.struct_size = sizeof props};
    accel_status_t status;

    if (accel_npu_forked())
        return npu_fork_error();
    snprintf(props.name, sizeof props.name, "%s",
             npu->soc_name[0] != '\0' ? npu->soc_name : "Ascend NPU (SoC unknown)");
    snprintf(props.vendor, sizeof props.vendor, "Huawei");
    props.compute_major = props.compute_minor = -1;
    props.multiprocessor_count = -1;
    if (acl->aclrtGetDeviceInfo != NULL) {
        int64_t total = 0, cores = 0;
        status =
            accel_npu_check(acl,
                            acl->aclrtGetDeviceInfo(
                                (uint32_t)device, ACCEL_ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &total),
                            "aclrtGetDeviceInfo(TOTAL_GLOBAL_MEM_SIZE)");
        if (status == ACCEL_OK)
            status =
                accel_npu_check(acl,
                                acl->aclrtGetDeviceInfo((uint32_t)device,
                                                        ACCEL_ACL_DEV_ATTR_AICORE_CORE_NUM, &cores),
                                "aclrtGetDeviceInfo(AICORE_CORE_NUM)");
        if (status != ACCEL_OK)
            return status;
        props.total_memory = (uint64_t)total;
        props.multiprocessor_count = (int)cores;
    } else {
        /* Older CANN: the total from aclrtGetMemInfo on the device. */
        uint64_t free_bytes = 0, total = 0;
        if ((status = accel_npu_memory_info(npu, device, &free_bytes, &total)) != ACCEL_OK)
            return status;
        props.total_memory = total;
    }
    if (acl->aclrtGetVersion != NULL)
        snprintf(props.driver_version, sizeof props.driver_version, "ACL %d.%d.%d",
                 (int)npu->version[0], (int)npu->version[1], (int)npu->version[2]);
    else
        snprintf(props.driver_version, sizeof props.driver_version,
                 "ACL (version unknown: no aclrtGetVersion)");
    return accel_device_properties_copy_out(out, &props);
}

/* DeepSpeed: fp16 always, bf16 from torch_npu (the SoC), no Triton, no
 * graphs (create_graph returns None on npu). */
static accel_status_t npu_query_flag(void *self, int device, accel_flag_t flag, bool *out)
{
    accel_npu_backend_t *npu = self;
    (void)device;
    switch (flag) {
    case ACCEL_FLAG_IS_AVAILABLE: *out = npu->device_count > 0; return ACCEL_OK;
    case ACCEL_FLAG_BF16_SUPPORTED: *out = npu->bf16; return ACCEL_OK;
    case ACCEL_FLAG_FP16_SUPPORTED: *out = true; return ACCEL_OK;
    case ACCEL_FLAG_TRITON_SUPPORTED: *out = false; return ACCEL_OK;
    case ACCEL_FLAG_PREFER_TRITON_GROUPED_MM: *out = false; return ACCEL_OK;
    case ACCEL_FLAG_GRAPHS_SUPPORTED: *out = false; return ACCEL_OK;
    default: return ACCEL_ERROR_UNSUPPORTED;
    }
}

/* DeepSpeed's npu list is static: [float, half, bfloat16]. */
static accel_status_t npu_supported_dtypes(void *self, int device, accel_dtype_t *out, size_t cap,
                                           size_t *out_count)
{
    static const accel_dtype_t all[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F16, ACCEL_DTYPE_BF16};
    (void)self;
    (void)device;
    return accel_dtypes_copy_out("npu", all, sizeof all / sizeof all[0], out, cap, out_count);
}

/* ---------------------------------------------------------------- the table */

static const accel_backend_ops_t npu_ops = {
    ACCEL_BACKEND_OPS_HEAD(npu),

    ACCEL_BACKEND_DEVICE_SLOTS(npu),
    .synchronize = accel_npu_synchronize,
    .memory_info = accel_npu_memory_info,

    ACCEL_BACKEND_MEMORY_SLOTS(accel_npu),
    ACCEL_BACKEND_PINNED_SLOTS(accel_npu),
    ACCEL_BACKEND_REGISTER_SLOTS(accel_npu),
    ACCEL_BACKEND_STREAM_SLOTS(accel_npu),
    ACCEL_BACKEND_EVENT_SLOTS(accel_npu),

    .native_stream = accel_npu_native_stream,
};

const accel_backend_ops_t *accel_npu_backend_ops(void)
{
    return &npu_ops;
}
