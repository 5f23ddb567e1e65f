/* backend.c: the sdaa backend's ops table and everything about the devices
 * themselves: loading libsdaart, detection, the lazy start, per-thread
 * devices, the fork and callback rules, properties, flags, dtypes and the
 * runtime's error text. Memory and streams live next door.
 * Threads: the runtime table is filled once per process by the vendor-library loader and read-only
 * afterwards; every slot may be called from any thread. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "backends/sdaa/sdaa_backend.h"

#define SDAA_VISIBLE_ENV  "SDAA_VISIBLE_DEVICES"
#define SDAA_DEFAULT_PATH "/opt/tecoai/lib64/libsdaart.so"

/* ---------------------------------------------------------------- static facts */

/* DeepSpeed's sdaa values (accelerator/sdaa_accelerator.py): tccl,
 * inductor, SDAA_VISIBLE_DEVICES, exports NCCL / LD_LIBRARY / PATH. The
 * compile backends are torch._dynamo's list without a vendor graph backend. */
static const char *const sdaa_compile_backends[] = {"inductor", "eager", "aot_eager"};
static const char *const sdaa_visible_devices_envs[] = {SDAA_VISIBLE_ENV};
static const char *const sdaa_export_envs[] = {"NCCL", "LD_LIBRARY", "PATH"};

static const accel_backend_info_t sdaa_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .communication_backend = "tccl",
    .default_compile_backend = "inductor",
    .compile_backends = sdaa_compile_backends,
    .compile_backend_count = sizeof sdaa_compile_backends / sizeof sdaa_compile_backends[0],
    .visible_devices_envs = sdaa_visible_devices_envs,
    .visible_devices_env_count = 1,
    .export_envs = sdaa_export_envs,
    .export_env_count = sizeof sdaa_export_envs / sizeof sdaa_export_envs[0],
    .dlpack_device_type = kDLExtDev, /* DLPack has no Tecorigin device type */
    .device_name_ignores_index = false,
    .synchronized_device = false,
    .use_host_timers = false,
    .resolves_data_dependency = false,
    .handles_memory_backpressure = false,
    .nvtx_domain_supported = false,
    .lazy_call_runs_immediately = false,
    .runtime_library = "libsdaart.so",
    .vendor_stack = "Tecorigin SDAA (Teco SDK)",
    .current_device_from_local_rank = false,
    .fused_ops_unavailable =
        "the fused device optimizers need SDAA kernels, which this build cannot compile (no Teco "
        "kernel compiler); use the host optimizers (CPUAdamBuilder...)",
};

/* ---------------------------------------------------------------- loading libsdaart */

static accel_sdaa_api_t sdaa_rt_api;

static const accel_symbol_t sdaa_symbols[] = {
#define ACCEL_SDAA_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(sdaa_rt_api, required, name, export),
#include "backends/sdaa/symbols.h"
#undef ACCEL_SDAA_SYMBOL
};

static const char *const sdaa_rt_names[] = {SDAA_DEFAULT_PATH, "libsdaart.so", NULL};

static accel_vendor_library_t sdaa_rt = {
    .name = "sdaa",
    .candidates = sdaa_rt_names,
    .symbols = sdaa_symbols,
    .symbol_count = sizeof sdaa_symbols / sizeof sdaa_symbols[0],
    .not_found = "no Tecorigin SDAA runtime (libsdaart.so) found",
    .symbols_in = "the libsdaart.so that loaded",
    .path_from = "sdaaGetDeviceCount",
    .path = sdaa_rt_api.path,
    .path_cap = sizeof sdaa_rt_api.path,
    .handle_out = &sdaa_rt_api.library,
};

const accel_sdaa_api_t *accel_sdaa_runtime(char *reason, size_t cap)
{
    return accel_vendor_library_open(&sdaa_rt, reason, cap) ? &sdaa_rt_api : NULL;
}

/* ---------------------------------------------------------------- errors */

accel_status_t accel_sdaa_error(const accel_sdaa_api_t *rt, accel_sdaa_error_t code,
                                const char *what)
{
    /* Both return a static string in HIP and CUDA, which the API copies;
     * a NULL (an unknown code on some runtime) is said as such. */
    const char *name = rt != NULL ? rt->sdaaGetErrorName(code) : NULL;
    const char *text = rt != NULL ? rt->sdaaGetErrorString(code) : NULL;
    accel_backend_vendor_error((int64_t)code, "sdaa: %s failed with sdaaError_t %d (%s)%s%s", what,
                               code, name != NULL ? name : "an unnamed code",
                               text != NULL && text[0] != '\0' ? ": " : "",
                               text != NULL ? text : "");
    if (code == ACCEL_SDAA_ERROR_OUT_OF_MEMORY)
        return ACCEL_ERROR_OUT_OF_MEMORY; /* lets the caching allocator free and retry */
    return ACCEL_ERROR_DEVICE_ERROR;
}

/* ---------------------------------------------------------------- start, fork, callbacks */

static accel_fork_rule_t sdaa_fork_rule; /* started when a device is opened */

bool accel_sdaa_forked(void)
{
    return accel_fork_rule_forked(&sdaa_fork_rule);
}

static accel_status_t sdaa_fork_error(void)
{
    return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                               "sdaa: cannot use the SDAA runtime in a forked child process: the "
                               "parent opened a device before fork(). Start child processes "
                               "with spawn (or exec), or use sdaa only after forking");
}

/* ---------------------------------------------------------------- per-thread device */

/* The calling thread's device as this library set it, keyed by the backend
 * instance so that a new backend never trusts an old entry. */
static _Thread_local accel_thread_device_t sdaa_thread;

accel_status_t accel_sdaa_activate(accel_sdaa_backend_t *sdaa, int device)
{
    accel_status_t status;
    if (accel_sdaa_forked())
        return sdaa_fork_error();
    /* stream.c's trampoline marks the runtime's thread around a callback */
    if (accel_callback_thread_of(sdaa, ACCEL_CALLBACK_ANY_DEVICE, NULL))
        return accel_backend_error(ACCEL_ERROR_UNSUPPORTED,
                                   "sdaa: a host callback may not call the SDAA runtime (it runs "
                                   "on a runtime thread, as CUDA's stream callbacks do); queue "
                                   "the work from another thread");
    if (accel_thread_device_is(&sdaa_thread, sdaa->instance, device))
        return ACCEL_OK;
    status = accel_sdaa_check(sdaa->rt, sdaa->rt->sdaaSetDevice(device), "sdaaSetDevice");
    if (status == ACCEL_OK) {
        accel_thread_device_set(&sdaa_thread, sdaa->instance, device);
    }
    return status;
}

int accel_sdaa_thread_device(const accel_sdaa_backend_t *sdaa)
{
    return accel_thread_device_get(&sdaa_thread, sdaa->instance);
}

/* ---------------------------------------------------------------- counting devices */

/* sdaaGetDeviceCount, the only counting call the API has. It opens no
 * device; whether it starts more of the runtime than that is not known
 * (README.md). sdaaErrorNoDevice is an answer (zero), not a failure. */
static bool sdaa_count_devices(const void *runtime, int *out, char *how, size_t how_cap)
{
    const accel_sdaa_api_t *rt = runtime;
    int count = 0;
    accel_sdaa_error_t code = rt->sdaaGetDeviceCount(&count);
    if (code == ACCEL_SDAA_ERROR_NO_DEVICE || (code == ACCEL_SDAA_SUCCESS && count <= 0)) {
        *out = 0;
        accel_reason_format(how, how_cap, "%s reports no SDAA device%s", rt->path,
                            getenv(SDAA_VISIBLE_ENV) != NULL ? " (" SDAA_VISIBLE_ENV " is set)"
                                                             : "");
        return true;
    }
    if (code != ACCEL_SDAA_SUCCESS) {
        const char *name = rt->sdaaGetErrorName(code);
        accel_reason_format(how, how_cap,
                            "sdaaGetDeviceCount in %s failed with sdaaError_t %d (%s)", rt->path,
                            code, name != NULL ? name : "an unnamed code");
        return false;
    }
    *out = count;
    accel_reason_format(
        how, how_cap,
        "devices counted with sdaaGetDeviceCount from %s; bound to the public SDAA runtime "
        "API, tested against a simulated runtime only, never run on Tecorigin hardware",
        rt->path);
    return true;
}

/* ---------------------------------------------------------------- lifecycle */

static const void *sdaa_detect_load(char *reason, size_t cap)
{
    return accel_sdaa_runtime(reason, cap);
}

/* probe and create: libsdaart, the fork rule, the count. */
static const accel_backend_detect_t sdaa_detect = {
    .backend = "sdaa",
    .load = sdaa_detect_load,
    .forked = accel_sdaa_forked,
    .forked_reason = "the SDAA runtime was started before fork(); it cannot be used in this child",
    .fork_error = sdaa_fork_error,
    .count = sdaa_count_devices,
};

static void sdaa_probe(accel_probe_result_t *out)
{
    accel_backend_detect_probe(&sdaa_detect, out);
}

static accel_status_t sdaa_create(void **out_self)
{
    const void *runtime;
    const accel_sdaa_api_t *rt;
    accel_sdaa_backend_t *sdaa;
    accel_deferred_fence_ops_t fence;
    int count = 0;
    accel_status_t status = accel_backend_detect_open(&sdaa_detect, &runtime, &count);

    if (status != ACCEL_OK)
        return status;
    rt = runtime;
    sdaa = calloc(1, sizeof *sdaa);
    if (sdaa == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "sdaa: out of host memory for state");
    fence = accel_sdaa_event_fence;
    fence.self = sdaa;
    if ((status = accel_deferred_release_create(&fence, &sdaa->destroyed_events)) != ACCEL_OK) {
        free(sdaa);
        return status;
    }
    sdaa->rt = rt;
    sdaa->device_count = count;
    sdaa->instance = accel_backend_instance_id();
    sdaa->driver_version = -1;
    accel_log(ACCEL_LOG_DEBUG, "sdaa: %d device(s) from %s", count, rt->path);
    *out_self = sdaa;
    return ACCEL_OK;
}

/* Core releases streams, events and memory first. In a forked child no
 * runtime call is made: only host memory is freed. */
static void sdaa_destroy(void *self)
{
    accel_sdaa_backend_t *sdaa = self;
    if (sdaa == NULL)
        return;
    if (accel_sdaa_forked())
        accel_deferred_release_abandon(sdaa->destroyed_events);
    else
        accel_deferred_release_destroy(sdaa->destroyed_events);
    free(sdaa);
}

/* The first call that opens a device: from here on a fork() child may not
 * use the runtime. Versions are read once. */
static accel_status_t sdaa_init(void *self)
{
    accel_sdaa_backend_t *sdaa = self;
    const accel_sdaa_api_t *rt = sdaa->rt;
    accel_status_t status;
    int counted = 0;

    if (accel_sdaa_forked())
        return sdaa_fork_error();
    accel_fork_rule_start(&sdaa_fork_rule);
    status = accel_sdaa_check(rt, rt->sdaaGetDeviceCount(&counted), "sdaaGetDeviceCount");
    if (status != ACCEL_OK)
        return status;
    if (counted < sdaa->device_count)
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE,
                                   "sdaa: %d device(s) were counted when the backend was opened "
                                   "but the runtime now shows %d (check " SDAA_VISIBLE_ENV ")",
                                   sdaa->device_count, counted);
    status = accel_sdaa_check(rt, rt->sdaaRuntimeGetVersion(&sdaa->runtime_version),
                              "sdaaRuntimeGetVersion");
    if (status != ACCEL_OK)
        return status;
    if (rt->sdaaDriverGetVersion != NULL) {
        status = accel_sdaa_check(rt, rt->sdaaDriverGetVersion(&sdaa->driver_version),
                                  "sdaaDriverGetVersion");
        if (status != ACCEL_OK)
            return status;
    }
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- device queries */

static accel_status_t sdaa_device_count(void *self, int *out)
{
    *out = ((accel_sdaa_backend_t *)self)->device_count;
    return ACCEL_OK;
}

static accel_status_t sdaa_set_device(void *self, int device)
{
    return accel_sdaa_activate(self, device);
}

/* Name and total memory from sdaaGetDeviceProperties (the early layout's
 * leading fields, read from an oversized buffer). The struct's pciBusID is a
 * bare bus number, not a full domain:bus:device.function address, so no PCI
 * id is reported rather than a guessed one; core counts are not in the
 * public API (-1). */
static accel_status_t sdaa_device_properties(void *self, int device, accel_device_properties_t *out)
{
    accel_sdaa_backend_t *sdaa = self;
    const accel_sdaa_api_t *rt = sdaa->rt;
    accel_device_properties_t props = {.struct_size = sizeof props};
    accel_sdaa_device_prop_buffer_t raw;
    accel_status_t status = accel_sdaa_activate(sdaa, device);

    if (status != ACCEL_OK)
        return status;
    memset(&raw, 0, sizeof raw);
    status = accel_sdaa_check(rt, rt->sdaaGetDeviceProperties(&raw.prop, device),
                              "sdaaGetDeviceProperties");
    if (status != ACCEL_OK)
        return status;
    raw.prop.name[sizeof raw.prop.name - 1] = '\0';
    snprintf(props.name, sizeof props.name, "%s",
             raw.prop.name[0] != '\0' ? raw.prop.name : "Tecorigin SDAA device");
    snprintf(props.vendor, sizeof props.vendor, "Tecorigin");
    props.total_memory = (uint64_t)raw.prop.total_global_mem;
    props.compute_major = props.compute_minor = -1;
    props.multiprocessor_count = -1;
    if (sdaa->driver_version >= 0)
        snprintf(props.driver_version, sizeof props.driver_version, "SDAA runtime %d, driver %d",
                 sdaa->runtime_version, sdaa->driver_version);
    else
        snprintf(props.driver_version, sizeof props.driver_version, "SDAA runtime %d",
                 sdaa->runtime_version);
    return accel_device_properties_copy_out(out, &props);
}

/* DeepSpeed: fp16 always; bf16 from torch.sdaa.is_bf16_supported(), whose
 * answer is not public and has no runtime-API query: taken as true for the
 * T1 [unconfirmed, README.md]; no Triton; no graphs (create_graph returns
 * None on sdaa, and the public API has no stream capture). */
static accel_status_t sdaa_query_flag(void *self, int device, accel_flag_t flag, bool *out)
{
    accel_sdaa_backend_t *sdaa = self;
    (void)device;
    switch (flag) {
    case ACCEL_FLAG_IS_AVAILABLE: *out = sdaa->device_count > 0; return ACCEL_OK;
    case ACCEL_FLAG_BF16_SUPPORTED: *out = true; return ACCEL_OK;
    case ACCEL_FLAG_FP16_SUPPORTED: *out = true; return ACCEL_OK;
    case ACCEL_FLAG_TRITON_SUPPORTED: *out = false; return ACCEL_OK;
    case ACCEL_FLAG_PREFER_TRITON_GROUPED_MM: *out = false; return ACCEL_OK;
    case ACCEL_FLAG_GRAPHS_SUPPORTED: *out = false; return ACCEL_OK;
    default: return ACCEL_ERROR_UNSUPPORTED;
    }
}

/* DeepSpeed's sdaa list: [float] + half + bfloat16 when supported. */
static accel_status_t sdaa_supported_dtypes(void *self, int device, accel_dtype_t *out, size_t cap,
                                            size_t *out_count)
{
    static const accel_dtype_t all[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F16, ACCEL_DTYPE_BF16};
    (void)self;
    (void)device;
    return accel_dtypes_copy_out("sdaa", all, sizeof all / sizeof all[0], out, cap, out_count);
}

/* ---------------------------------------------------------------- the table */

static const accel_backend_ops_t sdaa_ops = {
    ACCEL_BACKEND_OPS_HEAD(sdaa),

    ACCEL_BACKEND_DEVICE_SLOTS(sdaa),
    .synchronize = accel_sdaa_synchronize,
    .memory_info = accel_sdaa_memory_info,

    ACCEL_BACKEND_MEMORY_SLOTS(accel_sdaa),

    /* pinned allocation only: the public API has no host registration */
    ACCEL_BACKEND_PINNED_SLOTS(accel_sdaa),

    ACCEL_BACKEND_STREAM_SLOTS(accel_sdaa),
    ACCEL_BACKEND_EVENT_SLOTS(accel_sdaa),

    .native_stream = accel_sdaa_native_stream,
};

const accel_backend_ops_t *accel_sdaa_backend_ops(void)
{
    return &sdaa_ops;
}
