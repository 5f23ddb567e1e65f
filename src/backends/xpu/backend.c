/* backend.c: the xpu backend's ops table and everything about the devices
 * themselves: loading the Level Zero loader, zeInit and counting devices,
 * the fork rule, the context, properties, flags, dtypes and ze_result_t
 * text. Memory and streams live next door.
 * Threads: the loader table and zeInit's outcome are set once per process
 * under pthread_once and read-only afterwards; every slot may be called from
 * any thread. */
#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/xpu/xpu_backend.h"

#define XPU_VISIBLE_ENV "ZE_AFFINITY_MASK"

/* ---------------------------------------------------------------- static facts */

/* DeepSpeed's xpu values (accelerator/xpu_accelerator.py). The compile
 * backends are torch._dynamo's list without a vendor graph backend. */
static const char *const xpu_compile_backends[] = {"inductor", "eager", "aot_eager"};
static const char *const xpu_visible_devices_envs[] = {XPU_VISIBLE_ENV};

/* Written once by xpu_info_once (before the table is first handed out), then
 * read-only: communication_backend depends on whether oneCCL is installed. */
static accel_backend_info_t xpu_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .communication_backend = "xccl",
    .default_compile_backend = "inductor",
    .compile_backends = xpu_compile_backends,
    .compile_backend_count = sizeof xpu_compile_backends / sizeof xpu_compile_backends[0],
    .visible_devices_envs = xpu_visible_devices_envs,
    .visible_devices_env_count = 1,
    .export_envs = NULL, /* DeepSpeed's xpu forwards nothing of its own */
    .export_env_count = 0,
    .dlpack_device_type = 14, /* kDLOneAPI (DLPack 0.7+; Debian's dlpack.h predates it) */
    .device_name_ignores_index = false,
    .synchronized_device = false,
    .use_host_timers = false,
    .resolves_data_dependency = false,
    .handles_memory_backpressure = false,
    .nvtx_domain_supported = false,
    .lazy_call_runs_immediately = false,
    .runtime_library = "libze_loader.so.1",
    .vendor_stack = "Intel oneAPI Level Zero",
    .current_device_from_local_rank = false,
    .fused_ops_unavailable =
        "the fused device optimizers need SPIR-V kernels, which this build cannot compile (no "
        "SYCL/SPIR-V compiler); use the host optimizers (CPUAdamBuilder...)",
};

/* DeepSpeed picks "ccl" when oneCCL's torch bindings import and "xccl"
 * otherwise. Here "ccl" means oneCCL's library is present: already loaded in
 * the process, or the file libccl.so.1 in $CCL_ROOT/lib or a directory of
 * LD_LIBRARY_PATH. Only looked for, never loaded (loading oneCCL runs its
 * initialisation in every process that merely lists backends). */
static bool xpu_ccl_file_in(const char *dirs)
{
    char path[512];
    const char *start = dirs;
    while (start != NULL && *start != '\0') {
        const char *end = strchr(start, ':');
        size_t len = end != NULL ? (size_t)(end - start) : strlen(start);
        if (len > 0 && len < sizeof path - 16) {
            snprintf(path, sizeof path, "%.*s/libccl.so.1", (int)len, start);
            if (access(path, R_OK) == 0)
                return true;
        }
        start = end != NULL ? end + 1 : NULL;
    }
    return false;
}

/* dl_iterate_phdr callback: stops (returns 1) at an object named libccl.so*. */
static int xpu_ccl_loaded_one(struct dl_phdr_info *info, size_t size, void *data)
{
    const char *name = info->dlpi_name != NULL ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    (void)size;
    (void)data;
    return strncmp(base != NULL ? base + 1 : name, "libccl.so", 9) == 0;
}

static bool xpu_ccl_present(void)
{
    const char *root = getenv("CCL_ROOT");
    /* Loaded objects are listed in memory; dlopen(RTLD_NOLOAD) would first
     * search every library directory for the file (about 25 failed opens). */
    if (dl_iterate_phdr(xpu_ccl_loaded_one, NULL) != 0)
        return true;
    if (root != NULL && root[0] != '\0') {
        char lib[400];
        if (snprintf(lib, sizeof lib, "%s/lib", root) < (int)sizeof lib && xpu_ccl_file_in(lib))
            return true;
    }
    return xpu_ccl_file_in(getenv("LD_LIBRARY_PATH"));
}

static pthread_once_t xpu_info_once = PTHREAD_ONCE_INIT;

static void xpu_info_fill(void)
{
    if (xpu_ccl_present())
        xpu_info.communication_backend = "ccl";
}

/* ---------------------------------------------------------------- loading the loader */

static accel_xpu_api_t xpu_ze_api;

static const accel_symbol_t xpu_ze_symbols[] = {
#define ACCEL_ZE_SYMBOL(required, ret, name, params, export_name)                                  \
    ACCEL_SYMBOL_ENTRY(xpu_ze_api, required, name, export_name),
#include "backends/xpu/symbols.h"
#undef ACCEL_ZE_SYMBOL
};

static const char *const xpu_ze_names[] = {"libze_loader.so.1", NULL};

static accel_vendor_library_t xpu_ze = {
    .name = "xpu",
    .candidates = xpu_ze_names,
    .symbols = xpu_ze_symbols,
    .symbol_count = sizeof xpu_ze_symbols / sizeof xpu_ze_symbols[0],
    .not_found = "no Level Zero loader (libze_loader.so.1) found",
    .symbols_in = "libze_loader.so.1",
    .path_from = "zeInit",
    .path = xpu_ze_api.path,
    .path_cap = sizeof xpu_ze_api.path,
};

const accel_xpu_api_t *accel_xpu_ze(char *reason, size_t cap)
{
    return accel_vendor_library_open(&xpu_ze, reason, cap) ? &xpu_ze_api : NULL;
}

/* ---------------------------------------------------------------- errors */

static const char *xpu_result_name(accel_ze_result_t code)
{
    static const struct {
        accel_ze_result_t code;
        const char *name;
    } names[] = {
        {ACCEL_ZE_NOT_READY, "ZE_RESULT_NOT_READY"},
        {ACCEL_ZE_ERROR_DEVICE_LOST, "ZE_RESULT_ERROR_DEVICE_LOST"},
        {ACCEL_ZE_ERROR_OUT_OF_HOST_MEMORY, "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY"},
        {ACCEL_ZE_ERROR_OUT_OF_DEVICE_MEMORY, "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"},
        {ACCEL_ZE_ERROR_UNINITIALIZED, "ZE_RESULT_ERROR_UNINITIALIZED"},
        {ACCEL_ZE_ERROR_UNSUPPORTED_VERSION, "ZE_RESULT_ERROR_UNSUPPORTED_VERSION"},
        {ACCEL_ZE_ERROR_UNSUPPORTED_FEATURE, "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE"},
        {ACCEL_ZE_ERROR_INVALID_ARGUMENT, "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
        {ACCEL_ZE_ERROR_INVALID_NULL_HANDLE, "ZE_RESULT_ERROR_INVALID_NULL_HANDLE"},
        {ACCEL_ZE_ERROR_INVALID_NULL_POINTER, "ZE_RESULT_ERROR_INVALID_NULL_POINTER"},
        {ACCEL_ZE_ERROR_INVALID_SIZE, "ZE_RESULT_ERROR_INVALID_SIZE"},
        {ACCEL_ZE_ERROR_UNKNOWN, "ZE_RESULT_ERROR_UNKNOWN"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == code)
            return names[i].name;
    return "an unlisted ze_result_t";
}

accel_status_t accel_xpu_error(accel_ze_result_t code, const char *what)
{
    accel_backend_vendor_error((int64_t)code, "xpu: %s failed with ze_result_t 0x%x (%s)", what,
                               code, xpu_result_name(code));
    if (code == ACCEL_ZE_ERROR_OUT_OF_DEVICE_MEMORY || code == ACCEL_ZE_ERROR_OUT_OF_HOST_MEMORY)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    return ACCEL_ERROR_DEVICE_ERROR;
}

/* ---------------------------------------------------------------- zeInit and fork */

static pthread_once_t xpu_init_once = PTHREAD_ONCE_INIT;
static accel_ze_result_t xpu_init_result = ACCEL_ZE_ERROR_UNINITIALIZED;
static accel_fork_rule_t xpu_fork_rule; /* started as zeInit is called */

/* zeInit(ZE_INIT_FLAG_GPU_ONLY) once per process: "only initialize GPU
 * drivers" (ze_api.h:746), as Intel's unified runtime does, so Intel's NPU
 * driver is not taken for xpu (zeInit(0) loads it too). Its result is the
 * process's: Level Zero does not retry a failed driver load either. */
static void xpu_ze_init(void)
{
    accel_fork_rule_start(&xpu_fork_rule);
    xpu_init_result = xpu_ze_api.zeInit(ACCEL_ZE_INIT_FLAG_GPU_ONLY);
}

accel_status_t accel_xpu_usable(void)
{
    if (!accel_fork_rule_forked(&xpu_fork_rule))
        return ACCEL_OK;
    return accel_backend_error(ACCEL_ERROR_UNAVAILABLE,
                               "xpu: cannot use Level Zero in a forked child process: zeInit "
                               "ran in the parent before fork(). Start child processes with "
                               "spawn (or exec), or use xpu only after forking");
}

/* The driver's GPU devices (ZE_DEVICE_TYPE_GPU), in its order, up to
 * ACCEL_XPU_MAX_DEVICES into `gpus`: a driver that ignored GPU_ONLY (or
 * lists other kinds) contributes only its GPUs, as in Intel's unified
 * runtime. A failed call: its code. */
static accel_ze_result_t xpu_driver_gpus(const accel_xpu_api_t *ze, accel_ze_driver_t driver,
                                         accel_ze_device_t *gpus, uint32_t *count)
{
    accel_ze_device_t all[ACCEL_XPU_MAX_DEVICES];
    uint32_t listed = 0;
    accel_ze_result_t code = ze->zeDeviceGet(driver, &listed, NULL);
    *count = 0;
    if (code != ACCEL_ZE_SUCCESS || listed == 0)
        return code;
    listed = listed > ACCEL_XPU_MAX_DEVICES ? ACCEL_XPU_MAX_DEVICES : listed;
    if ((code = ze->zeDeviceGet(driver, &listed, all)) != ACCEL_ZE_SUCCESS)
        return code;
    for (uint32_t i = 0; i < listed; i++) {
        accel_ze_device_properties_t props = {.stype = ACCEL_ZE_STYPE_DEVICE_PROPERTIES};
        if ((code = ze->zeDeviceGetProperties(all[i], &props)) != ACCEL_ZE_SUCCESS)
            return code;
        if (props.type == ACCEL_ZE_DEVICE_TYPE_GPU)
            gpus[(*count)++] = all[i];
    }
    return ACCEL_ZE_SUCCESS;
}

/* The first driver with at least one GPU device and those devices (up to
 * ACCEL_XPU_MAX_DEVICES), else the first driver (with 0 devices and `why`
 * saying so: the backend then opens with no device, as core allows). False
 * with `why` when zeInit failed (no driver at all) or a call failed. */
static bool xpu_find_devices(const accel_xpu_api_t *ze, accel_ze_driver_t *driver,
                             uint32_t *driver_count, accel_ze_device_t *gpus,
                             uint32_t *device_count, char *why, size_t cap)
{
    accel_ze_driver_t drivers[16];
    uint32_t count = 0;
    accel_ze_result_t code;

    pthread_once(&xpu_init_once, xpu_ze_init);
    if (xpu_init_result != ACCEL_ZE_SUCCESS) {
        accel_reason_format(
            why, cap,
            "Level Zero loader found, no driver/devices: zeInit in %s returned 0x%x (%s); "
            "no Level Zero driver (e.g. Intel's libze_intel_gpu.so.1) loaded",
            ze->path, xpu_init_result, xpu_result_name(xpu_init_result));
        return false;
    }
    code = ze->zeDriverGet(&count, NULL);
    if (code == ACCEL_ZE_SUCCESS && count > 16)
        count = 16;
    if (code == ACCEL_ZE_SUCCESS && count > 0)
        code = ze->zeDriverGet(&count, drivers);
    if (code != ACCEL_ZE_SUCCESS) {
        accel_reason_format(why, cap, "zeDriverGet in %s failed with ze_result_t 0x%x (%s)",
                            ze->path, code, xpu_result_name(code));
        return false;
    }
    *driver_count = count;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t devices = 0;
        code = xpu_driver_gpus(ze, drivers[i], gpus, &devices);
        if (code != ACCEL_ZE_SUCCESS) {
            accel_reason_format(why, cap,
                                "zeDeviceGet or zeDeviceGetProperties in %s failed with "
                                "ze_result_t 0x%x (%s)",
                                ze->path, code, xpu_result_name(code));
            return false;
        }
        if (devices > 0) {
            *driver = drivers[i];
            *device_count = devices;
            return true;
        }
    }
    accel_reason_format(why, cap,
                        "Level Zero loader found, no driver/devices: %u driver(s) in %s, none "
                        "with a GPU device (check " XPU_VISIBLE_ENV ")",
                        count, ze->path);
    if (count == 0)
        return false;
    *driver = drivers[0];
    *device_count = 0;
    return true;
}

/* ---------------------------------------------------------------- lifecycle */

/* Level Zero's GPU drivers reach the hardware through a DRM render node
 * (/dev/dri/renderD*), or /dev/dxg under WSL. With neither, and no loader
 * or driver named by hand (ACCEL_XPU_LIBRARY, ZE_ENABLE_ALT_DRIVERS,
 * ZE_ENABLE_NULL_DRIVER: the simulated driver comes that way), zeInit can
 * find no GPU, so auto-detect need not load the loader and the C++ runtime
 * it pulls in (about 1 ms of a 2.5 ms start) to learn it. True, with the
 * reason written, when that is so. */
static bool xpu_surely_no_gpu(char *why, size_t cap)
{
    static const char *const by_hand[] = {"ACCEL_XPU_LIBRARY", "ZE_ENABLE_ALT_DRIVERS",
                                          "ZE_ENABLE_NULL_DRIVER"};
    bool render_node = false;
    for (size_t i = 0; i < sizeof by_hand / sizeof by_hand[0]; i++)
        if (accel_env_get(by_hand[i]) != NULL)
            return false;
    if (access("/dev/dxg", F_OK) == 0)
        return false;
    DIR *dri = opendir("/dev/dri");
    for (struct dirent *entry; dri != NULL && !render_node && (entry = readdir(dri)) != NULL;)
        render_node = strncmp(entry->d_name, "renderD", 7) == 0;
    if (dri != NULL)
        closedir(dri);
    if (!render_node)
        accel_reason_format(why, cap,
                            "no GPU device node (/dev/dri/renderD*, /dev/dxg), so no Level Zero "
                            "GPU; the loader was not loaded for auto-detect");
    return !render_node;
}

static void xpu_probe(accel_probe_result_t *out)
{
    char reason[sizeof out->reason];
    const accel_xpu_api_t *ze;
    accel_ze_driver_t driver;
    accel_ze_device_t gpus[ACCEL_XPU_MAX_DEVICES];
    uint32_t drivers = 0, devices = 0;

    pthread_once(&xpu_info_once, xpu_info_fill);
    out->available = false;
    if (out->struct_size >= offsetof(accel_probe_result_t, auto_detect_only) + sizeof(bool) &&
        out->auto_detect_only && xpu_surely_no_gpu(out->reason, sizeof out->reason))
        return;
    ze = accel_xpu_ze(reason, sizeof reason);
    if (ze == NULL) {
        accel_reason_format(out->reason, sizeof out->reason, "%s", reason);
        return;
    }
    if (accel_xpu_usable() != ACCEL_OK) {
        accel_reason_format(out->reason, sizeof out->reason,
                            "zeInit ran before fork(); Level Zero cannot be used in this child");
        return;
    }
    /* The loader is there: without a driver or device it is "found, no
     * device" (core words it so), not "missing". */
    if (!xpu_find_devices(ze, &driver, &drivers, gpus, &devices, out->reason, sizeof out->reason)) {
        out->available = true;
        out->device_count = 0;
        return;
    }
    out->available = true;
    out->device_count = (int)devices;
    if (devices == 0)
        return; /* the reason says why */
    accel_reason_format(
        out->reason, sizeof out->reason,
        "devices counted with zeDeviceGet after zeInit (no context) in %s; bound to Level "
        "Zero, tested against a simulated driver only, never run on Intel hardware",
        ze->path);
}

/* Core prefixes create()'s errors with "xpu: ", so they carry none here. */
static accel_status_t xpu_create(void **out_self)
{
    char reason[256];
    const accel_xpu_api_t *ze = accel_xpu_ze(reason, sizeof reason);
    accel_ze_driver_t driver = NULL;
    uint32_t drivers = 0, count = 0;
    accel_ze_device_t handles[ACCEL_XPU_MAX_DEVICES];
    accel_xpu_backend_t *xpu;

    pthread_once(&xpu_info_once, xpu_info_fill);
    if (ze == NULL)
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "%s", reason);
    if (accel_xpu_usable() != ACCEL_OK)
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE,
                                   "zeInit ran before fork(); Level Zero cannot be used in this "
                                   "child");
    if (!xpu_find_devices(ze, &driver, &drivers, handles, &count, reason, sizeof reason))
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "%s", reason);
    xpu = calloc(1, sizeof *xpu);
    if (xpu != NULL) {
        xpu->devices = calloc(count > 0 ? count : 1, sizeof *xpu->devices);
        xpu->allocated = calloc(count > 0 ? count : 1, sizeof *xpu->allocated);
    }
    if (xpu == NULL || xpu->devices == NULL || xpu->allocated == NULL ||
        accel_xpu_deferred_new(xpu) != ACCEL_OK) {
        if (xpu != NULL) {
            free(xpu->devices);
            free(xpu->allocated);
        }
        free(xpu);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory for state");
    }
    xpu->ze = ze;
    xpu->driver = driver;
    xpu->driver_count = drivers;
    xpu->device_count = (int)count;
    for (uint32_t i = 0; i < count; i++)
        xpu->devices[i].handle = handles[i];
    pthread_mutex_init(&xpu->lock, NULL);
    accel_range_map_init(&xpu->device_ranges, sizeof(int));
    accel_range_map_init(&xpu->host_ranges, 0);
    accel_log(ACCEL_LOG_DEBUG, "xpu: %u device(s) from %s", count, ze->path);
    *out_self = xpu;
    return ACCEL_OK;
}

/* Core releases streams, events and memory first. In a forked child no
 * Level Zero call is made: only host memory is freed. */
static void xpu_destroy(void *self)
{
    accel_xpu_backend_t *xpu = self;
    bool usable = accel_xpu_usable() == ACCEL_OK;
    if (xpu == NULL)
        return;
    if (usable) {
        for (int i = 0; i < xpu->device_count; i++)
            if (xpu->devices[i].default_stream != NULL)
                accel_xpu_stream_free(xpu, xpu->devices[i].default_stream);
        /* After the streams: each was drained (or, when that failed, its
         * list destroyed anyway), so no command names a deferred event. */
        accel_deferred_release_destroy(xpu->deferred);
        if (xpu->context != NULL && xpu->ze->zeContextDestroy(xpu->context) != ACCEL_ZE_SUCCESS)
            accel_log(ACCEL_LOG_WARN, "xpu: zeContextDestroy failed at teardown");
    } else {
        accel_deferred_release_abandon(xpu->deferred);
    }
    accel_range_map_fini(&xpu->device_ranges);
    accel_range_map_fini(&xpu->host_ranges);
    pthread_mutex_destroy(&xpu->lock);
    free(xpu->allocated);
    free(xpu->devices);
    free(xpu);
}

/* One device's facts: properties, memory total and the compute queue group.
 * `api`: the driver's zeDriverGetApiVersion; from 1.2 on, timerResolution
 * is read with the 1.2 stype, in ticks per second (ze_api.h:1171-1175), as
 * Intel's unified runtime reads it, since the 1.0 stype's whole ns cannot
 * say 52.083 (19.2 MHz). */
static accel_status_t xpu_device_facts(accel_xpu_backend_t *xpu, accel_xpu_device_t *dev,
                                       accel_ze_api_version_t api)
{
    const accel_xpu_api_t *ze = xpu->ze;
    accel_ze_memory_properties_t memory[8];
    accel_ze_queue_group_properties_t groups[16];
    uint32_t count = 0;
    bool per_second = api >= ACCEL_ZE_API_VERSION_1_2;
    accel_status_t status;

    dev->props =
        (accel_ze_device_properties_t){.stype = per_second ? ACCEL_ZE_STYPE_DEVICE_PROPERTIES_1_2
                                                           : ACCEL_ZE_STYPE_DEVICE_PROPERTIES};
    status = accel_xpu_check(ze->zeDeviceGetProperties(dev->handle, &dev->props),
                             "zeDeviceGetProperties");
    if (status != ACCEL_OK)
        return status;
    if (dev->props.timerResolution == 0)
        return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                                   "xpu: device \"%s\" reports a timerResolution of 0",
                                   dev->props.name);
    dev->tick_ns =
        per_second ? 1e9 / (double)dev->props.timerResolution : (double)dev->props.timerResolution;
    status = accel_xpu_check(ze->zeDeviceGetMemoryProperties(dev->handle, &count, NULL),
                             "zeDeviceGetMemoryProperties (count)");
    if (status != ACCEL_OK)
        return status;
    count = count > 8 ? 8 : count;
    for (uint32_t i = 0; i < count; i++)
        memory[i] = (accel_ze_memory_properties_t){.stype = ACCEL_ZE_STYPE_MEMORY_PROPERTIES};
    status = accel_xpu_check(ze->zeDeviceGetMemoryProperties(dev->handle, &count, memory),
                             "zeDeviceGetMemoryProperties");
    if (status != ACCEL_OK)
        return status;
    dev->total_memory = 0;
    for (uint32_t i = 0; i < count; i++)
        dev->total_memory += memory[i].totalSize;

    count = 0;
    status = accel_xpu_check(ze->zeDeviceGetCommandQueueGroupProperties(dev->handle, &count, NULL),
                             "zeDeviceGetCommandQueueGroupProperties (count)");
    if (status != ACCEL_OK)
        return status;
    count = count > 16 ? 16 : count;
    for (uint32_t i = 0; i < count; i++)
        groups[i] =
            (accel_ze_queue_group_properties_t){.stype = ACCEL_ZE_STYPE_QUEUE_GROUP_PROPERTIES};
    status =
        accel_xpu_check(ze->zeDeviceGetCommandQueueGroupProperties(dev->handle, &count, groups),
                        "zeDeviceGetCommandQueueGroupProperties");
    if (status != ACCEL_OK)
        return status;
    for (uint32_t i = 0; i < count; i++) {
        if (groups[i].flags & ACCEL_ZE_QUEUE_GROUP_FLAG_COMPUTE) {
            dev->compute_ordinal = i;
            return ACCEL_OK;
        }
    }
    return accel_backend_error(ACCEL_ERROR_UNAVAILABLE,
                               "xpu: device \"%s\" has no compute command queue group "
                               "(zeDeviceGetCommandQueueGroupProperties listed %u group(s))",
                               dev->props.name, count);
}

/* The context of the chosen driver, every device's facts and its default
 * stream. A failure leaves nothing behind, so init can be tried again. */
static accel_status_t xpu_init(void *self)
{
    accel_xpu_backend_t *xpu = self;
    const accel_xpu_api_t *ze = xpu->ze;
    accel_ze_driver_properties_t driver = {.stype = ACCEL_ZE_STYPE_DRIVER_PROPERTIES};
    accel_ze_context_desc_t desc = {.stype = ACCEL_ZE_STYPE_CONTEXT_DESC};
    accel_ze_api_version_t api = 0;
    accel_status_t status;
    int made = 0;

    if ((status = accel_xpu_usable()) != ACCEL_OK)
        return status;
    status =
        accel_xpu_check(ze->zeDriverGetProperties(xpu->driver, &driver), "zeDriverGetProperties");
    if (status != ACCEL_OK)
        return status;
    xpu->driver_version = driver.driverVersion;
    status = accel_xpu_check(ze->zeDriverGetApiVersion(xpu->driver, &api), "zeDriverGetApiVersion");
    for (int i = 0; i < xpu->device_count && status == ACCEL_OK; i++)
        status = xpu_device_facts(xpu, &xpu->devices[i], api);
    if (status != ACCEL_OK)
        return status;
    status =
        accel_xpu_check(ze->zeContextCreate(xpu->driver, &desc, &xpu->context), "zeContextCreate");
    if (status != ACCEL_OK)
        return status;
    for (; made < xpu->device_count; made++) {
        status = accel_xpu_stream_new(xpu, made, ACCEL_ZE_QUEUE_PRIORITY_NORMAL,
                                      &xpu->devices[made].default_stream);
        if (status != ACCEL_OK)
            break;
    }
    if (status == ACCEL_OK)
        return ACCEL_OK;
    while (made-- > 0) {
        accel_xpu_stream_free(xpu, xpu->devices[made].default_stream);
        xpu->devices[made].default_stream = NULL;
    }
    if (ze->zeContextDestroy(xpu->context) != ACCEL_ZE_SUCCESS)
        accel_log(ACCEL_LOG_WARN, "xpu: zeContextDestroy after a failed init failed too");
    xpu->context = NULL;
    return status;
}

/* ---------------------------------------------------------------- device queries */

static accel_status_t xpu_device_count(void *self, int *out)
{
    *out = ((accel_xpu_backend_t *)self)->device_count;
    return ACCEL_OK;
}

/* Level Zero has no current device: every call names its device. */
static accel_status_t xpu_set_device(void *self, int device)
{
    (void)self;
    (void)device;
    return accel_xpu_usable();
}

static accel_status_t xpu_device_properties(void *self, int device, accel_device_properties_t *out)
{
    accel_xpu_backend_t *xpu = self;
    const accel_xpu_device_t *dev = &xpu->devices[device];
    accel_device_properties_t props = {.struct_size = sizeof props};
    accel_status_t status;

    if ((status = accel_xpu_usable()) != ACCEL_OK)
        return status;
    snprintf(props.name, sizeof props.name, "%s", dev->props.name);
    snprintf(props.vendor, sizeof props.vendor, "%s",
             dev->props.vendorId == 0x8086 ? "Intel" : "unknown vendor");
    props.compute_major = props.compute_minor = -1;
    props.multiprocessor_count = (int)(dev->props.numSlices * dev->props.numSubslicesPerSlice *
                                       dev->props.numEUsPerSubslice); /* execution units */
    props.total_memory = dev->total_memory;
    snprintf(props.driver_version, sizeof props.driver_version, "Level Zero driver %u",
             xpu->driver_version);
    return accel_device_properties_copy_out(out, &props);
}

/* DeepSpeed: bf16 and fp16 always, Triton through intel-xpu-backend-for-
 * triton is not claimed here, no graphs (create_graph returns None on xpu). */
static accel_status_t xpu_query_flag(void *self, int device, accel_flag_t flag, bool *out)
{
    accel_xpu_backend_t *xpu = self;
    (void)device;
    switch (flag) {
    case ACCEL_FLAG_IS_AVAILABLE: *out = xpu->device_count > 0; return ACCEL_OK;
    case ACCEL_FLAG_BF16_SUPPORTED: *out = true; return ACCEL_OK;
    case ACCEL_FLAG_FP16_SUPPORTED: *out = true; return ACCEL_OK;
    case ACCEL_FLAG_TRITON_SUPPORTED: *out = false; return ACCEL_OK;
    case ACCEL_FLAG_PREFER_TRITON_GROUPED_MM: *out = false; return ACCEL_OK;
    case ACCEL_FLAG_GRAPHS_SUPPORTED: *out = false; return ACCEL_OK;
    default: return ACCEL_ERROR_UNSUPPORTED;
    }
}

/* DeepSpeed's xpu list is static: [float, half, bfloat16]. */
static accel_status_t xpu_supported_dtypes(void *self, int device, accel_dtype_t *out, size_t cap,
                                           size_t *out_count)
{
    static const accel_dtype_t all[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F16, ACCEL_DTYPE_BF16};
    (void)self;
    (void)device;
    return accel_dtypes_copy_out("xpu", all, sizeof all / sizeof all[0], out, cap, out_count);
}

/* ---------------------------------------------------------------- the table */

static const accel_backend_ops_t xpu_ops = {
    ACCEL_BACKEND_OPS_HEAD(xpu),

    ACCEL_BACKEND_DEVICE_SLOTS(xpu),
    .synchronize = accel_xpu_synchronize,
    .memory_info = accel_xpu_memory_info,

    ACCEL_BACKEND_MEMORY_SLOTS(accel_xpu),
    ACCEL_BACKEND_PINNED_SLOTS(accel_xpu),
    ACCEL_BACKEND_STREAM_SLOTS(accel_xpu),
    ACCEL_BACKEND_EVENT_SLOTS(accel_xpu),

    .rng_fill = NULL, /* core fills pinned staging on the host and copies it */
};

const accel_backend_ops_t *accel_xpu_backend_ops(void)
{
    pthread_once(&xpu_info_once, xpu_info_fill);
    return &xpu_ops;
}
