/* backend.c: the hpu backend's ops table and everything about the devices
 * themselves: loading libSynapse and libhlml, counting Gaudis without
 * acquiring one (HLML, else the driver's device nodes), the one
 * synInitialize, DeepSpeed's workarounds, acquiring a Gaudi once per
 * process, the fork rule, properties, flags, dtypes and Synapse's error text.
 * Memory and streams live next door.
 * Threads: the library tables are filled once per process by the vendor-library loader
 * and read-only afterwards; every slot may run on any thread. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/hpu/hpu_backend.h"

#define HPU_MODULES_ENV "HABANA_VISIBLE_MODULES"
#define HPU_HABANA_DIR  "/usr/lib/habanalabs"

/* ---------------------------------------------------------------- static facts */

/* DeepSpeed's hpu values (accelerator/hpu_accelerator.py): hccl, the
 * hpu_backend graph compiler first, the index ignored in device names,
 * CUDA_VISIBLE_DEVICES as the visible-devices variable (its
 * HABANA_VISIBLE_MODULES line is commented out) and nothing exported. */
static const char *const hpu_compile_backends[] = {"hpu_backend", "inductor", "eager", "aot_eager"};
static const char *const hpu_visible_devices_envs[] = {"CUDA_VISIBLE_DEVICES"};

static const accel_backend_info_t hpu_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .communication_backend = "hccl",
    .default_compile_backend = "hpu_backend",
    .compile_backends = hpu_compile_backends,
    .compile_backend_count = sizeof hpu_compile_backends / sizeof hpu_compile_backends[0],
    .visible_devices_envs = hpu_visible_devices_envs,
    .visible_devices_env_count = 1,
    .export_envs = NULL,
    .export_env_count = 0,
    .dlpack_device_type = kDLExtDev, /* DLPack has no Gaudi device type */
    .device_name_ignores_index = true,
    .synchronized_device = false,
    .use_host_timers = false,
    .resolves_data_dependency = true,
    .handles_memory_backpressure = true,
    .nvtx_domain_supported = false,
    .lazy_call_runs_immediately = true,
    .runtime_library = "libSynapse.so",
    .vendor_stack = "Habana Gaudi SynapseAI",
    .current_device_from_local_rank = false,
    .fused_ops_unavailable =
        "the fused device optimizers need Gaudi TPC kernels, which this build cannot compile (no "
        "Habana TPC compiler); use the host optimizers (CPUAdamBuilder...)",
};

/* DeepSpeed's apply_hpu_workarounds(): each set to 0 only when unset. */
static const char *const hpu_workarounds[] = {"PT_HPU_LAZY_ACC_PAR_MODE",
                                              "PT_HPU_ENABLE_REFINE_DYNAMIC_SHAPES"};

/* ---------------------------------------------------------------- loading the libraries */

static accel_hpu_api_t hpu_syn_api;

static const accel_symbol_t hpu_syn_symbols[] = {
#define ACCEL_HPU_SYMBOL(required, ret, name, params, export)                                      \
    ACCEL_SYMBOL_ENTRY(hpu_syn_api, required, name, export),
#include "backends/hpu/symbols.h"
#undef ACCEL_HPU_SYMBOL
};

static const char *const hpu_syn_names[] = {"libSynapse.so", HPU_HABANA_DIR "/libSynapse.so", NULL};

static accel_vendor_library_t hpu_syn = {
    .name = "hpu",
    .candidates = hpu_syn_names,
    .brief_tried = true,
    .symbols = hpu_syn_symbols,
    .symbol_count = sizeof hpu_syn_symbols / sizeof hpu_syn_symbols[0],
    .not_found = "no Habana Gaudi SynapseAI runtime (libSynapse.so) found",
    .symbols_in = "libSynapse.so",
    .path_from = "synInitialize",
    .path = hpu_syn_api.path,
    .path_cap = sizeof hpu_syn_api.path,
    .handle_out = &hpu_syn_api.library,
};

const accel_hpu_api_t *accel_hpu_synapse(char *reason, size_t cap)
{
    return accel_vendor_library_open(&hpu_syn, reason, cap) ? &hpu_syn_api : NULL;
}

typedef struct hpu_hlml_api {
    char path[256];
#define ACCEL_HLML_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/hpu/symbols.h"
#undef ACCEL_HLML_SYMBOL
} hpu_hlml_api_t;

static hpu_hlml_api_t hpu_hlml_api;

static const accel_symbol_t hpu_hlml_symbols[] = {
#define ACCEL_HLML_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(hpu_hlml_api, required, name, export),
#include "backends/hpu/symbols.h"
#undef ACCEL_HLML_SYMBOL
};

static const char *const hpu_hlml_names[] = {"libhlml.so", HPU_HABANA_DIR "/libhlml.so", NULL};

/* ACCEL_HPU_HLML_LIBRARY names a file */
static accel_vendor_library_t hpu_hlml = {
    .name = "hpu_hlml",
    .backend = "hpu",
    .candidates = hpu_hlml_names,
    .brief_tried = true,
    .symbols = hpu_hlml_symbols,
    .symbol_count = sizeof hpu_hlml_symbols / sizeof hpu_hlml_symbols[0],
    .not_found = "no libhlml.so",
    .symbols_in = "libhlml.so",
    .path_from = "hlml_init",
    .path = hpu_hlml_api.path,
    .path_cap = sizeof hpu_hlml_api.path,
};

/* ---------------------------------------------------------------- errors */

const char *accel_hpu_status_name(accel_syn_status_t code)
{
    static const char *const names[] = {
        "synSuccess",
        "synInvalidArgument",
        "synCbFull",
        "synOutOfHostMemory",
        "synOutOfDeviceMemory",
        "synObjectAlreadyInitialized",
        "synObjectNotInitialized",
        "synCommandSubmissionFailure",
        "synNoDeviceFound",
        "synDeviceTypeMismatch",
        "synFailedToInitializeCb",
        "synFailedToFreeCb",
        "synFailedToMapCb",
        "synFailedToUnmapCb",
        "synFailedToAllocateDeviceMemory",
        "synFailedToFreeDeviceMemory",
        "synFailedNotEnoughDevicesFound",
        "synDeviceReset",
        "synUnsupported",
        "synWrongParamsFile",
        "synDeviceAlreadyAcquired",
        "synNameIsAlreadyUsed",
        "synBusy",
        "synAllResourcesTaken",
        "synUnavailable",
        "synInvalidTensorDimensions",
        "synFail",
        "synOutOfResources",
        "synUninitialized",
        "synAlreadyInitialized",
        "synFailedSectionValidation",
        "synSynapseTerminated",
        "synAssertAsync",
        "synInvalidEventHandle",
        "synMappingNotFound",
        "synFailedDynamicPatching",
        "synFailedStaticPatching",
        "synFailedToSubmitWorkload",
        "synInvalidSectionsDefinition",
        "synInvalidTensorProperties",
        "synFailHccl",
        "synFailedToCollectTime",
        "synTimeout",
        "synResourceBadUsage",
    };
    _Static_assert(sizeof names / sizeof names[0] == ACCEL_SYN_STATUS_LAST + 1, "synStatus names");
    return code <= ACCEL_SYN_STATUS_LAST ? names[code] : "an unlisted synStatus";
}

accel_status_t accel_hpu_error(const accel_hpu_api_t *syn, accel_syn_status_t code,
                               const char *what)
{
    char brief[ACCEL_SYN_STATUS_DESCRIPTION_MAX_SIZE] = "";
    if (syn != NULL &&
        syn->synStatusGetBriefDescription(code, brief, sizeof brief) != ACCEL_SYN_SUCCESS)
        brief[0] = '\0';
    brief[sizeof brief - 1] = '\0';
    accel_backend_vendor_error((int64_t)code, "hpu: %s failed with synStatus %u (%s%s%s)", what,
                               code, accel_hpu_status_name(code), brief[0] ? ": " : "", brief);
    if (code == ACCEL_SYN_OUT_OF_DEVICE_MEMORY || code == ACCEL_SYN_OUT_OF_HOST_MEMORY ||
        code == ACCEL_SYN_FAILED_TO_ALLOCATE_DEVICE_MEMORY)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    return ACCEL_ERROR_DEVICE_ERROR;
}

/* ---------------------------------------------------------------- synInitialize and fork */

static pthread_mutex_t hpu_init_lock = PTHREAD_MUTEX_INITIALIZER;
static bool hpu_init_ok;                /* under hpu_init_lock */
static accel_fork_rule_t hpu_fork_rule; /* started when synInitialize succeeds */

bool accel_hpu_forked(void)
{
    return accel_fork_rule_forked(&hpu_fork_rule);
}

accel_status_t accel_hpu_fork_error(void)
{
    return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                               "hpu: cannot use SynapseAI in a forked child process: "
                               "synInitialize ran in the parent before fork() and the child "
                               "cannot use the parent's Gaudi. Start child processes with spawn "
                               "(or exec), or initialise hpu after forking");
}

/* synInitialize once per process; a failed attempt is retried by the next
 * call. A repeated synInitialize succeeds in Synapse, so another user of
 * Synapse in the process is no problem. */
static accel_status_t hpu_syn_init(const accel_hpu_api_t *syn)
{
    accel_status_t status = ACCEL_OK;
    pthread_mutex_lock(&hpu_init_lock);
    if (!hpu_init_ok) {
        status = accel_hpu_check(syn, syn->synInitialize(), "synInitialize");
        if (status == ACCEL_OK) {
            hpu_init_ok = true;
            accel_fork_rule_start(&hpu_fork_rule);
        }
    }
    pthread_mutex_unlock(&hpu_init_lock);
    return status;
}

/* ---------------------------------------------------------------- acquiring a Gaudi */

/* The process's acquisitions, by module id: a Gaudi is acquired once per
 * process and released when no backend instance uses it any more. */
static pthread_mutex_t hpu_held_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    unsigned refs;
    accel_syn_device_id_t id;
    bool kept; /* a release failed: still ours, reused by the next acquire */
} hpu_held[ACCEL_HPU_MAX_DEVICES];

static _Thread_local accel_thread_device_t hpu_thread;

int accel_hpu_thread_device(const accel_hpu_backend_t *hpu)
{
    return accel_thread_device_get(&hpu_thread, hpu->instance);
}

static accel_status_t hpu_acquire_module(const accel_hpu_api_t *syn, accel_syn_module_id_t module,
                                         accel_syn_device_id_t *out)
{
    accel_syn_status_t code;
    accel_status_t status = ACCEL_OK;
    pthread_mutex_lock(&hpu_held_lock);
    if (hpu_held[module].refs == 0 && !hpu_held[module].kept) {
        code = syn->synDeviceAcquireByModuleId(&hpu_held[module].id, module);
        if (code == ACCEL_SYN_NO_DEVICE_FOUND || code == ACCEL_SYN_DEVICE_ALREADY_ACQUIRED ||
            code == ACCEL_SYN_BUSY) {
            char what[200];
            snprintf(what, sizeof what,
                     "synDeviceAcquireByModuleId(module %u): the Gaudi is %s; a Gaudi can be "
                     "held by one process at a time (see `hl-smi` for the process holding it)",
                     (unsigned)module,
                     code == ACCEL_SYN_DEVICE_ALREADY_ACQUIRED
                         ? "already acquired by another user of Synapse in this process"
                         : "not free, probably held by another process");
            status = accel_hpu_error(syn, code, what);
        } else {
            status = accel_hpu_check(syn, code, "synDeviceAcquireByModuleId");
        }
    }
    if (status == ACCEL_OK) {
        hpu_held[module].kept = false;
        hpu_held[module].refs++;
        *out = hpu_held[module].id;
    }
    pthread_mutex_unlock(&hpu_held_lock);
    return status;
}

static void hpu_release_module(const accel_hpu_api_t *syn, accel_syn_module_id_t module)
{
    pthread_mutex_lock(&hpu_held_lock);
    if (hpu_held[module].refs > 0 && --hpu_held[module].refs == 0) {
        accel_syn_status_t code = syn->synDeviceRelease(hpu_held[module].id);
        /* Still held: the next acquisition reuses it instead of asking for
         * a Gaudi this process already has. */
        hpu_held[module].kept = code != ACCEL_SYN_SUCCESS;
        if (code != ACCEL_SYN_SUCCESS)
            accel_log(ACCEL_LOG_WARN,
                      "hpu: synDeviceRelease(module %u) failed with synStatus %u; the Gaudi "
                      "stays held by this process",
                      (unsigned)module, code);
    }
    pthread_mutex_unlock(&hpu_held_lock);
}

accel_status_t accel_hpu_acquire(accel_hpu_backend_t *hpu, int device, accel_hpu_device_t **out)
{
    accel_hpu_device_t *dev = &hpu->devices[device];
    accel_status_t status = ACCEL_OK;
    if (accel_hpu_forked())
        return accel_hpu_fork_error();
    pthread_mutex_lock(&hpu->acquire_lock);
    if (!dev->used) {
        accel_syn_device_id_t id = 0;
        status = hpu_acquire_module(hpu->syn, dev->module, &id);
        if (status == ACCEL_OK) {
            status = accel_hpu_stream_new(hpu, device, id, &dev->default_stream);
            if (status != ACCEL_OK)
                hpu_release_module(hpu->syn, dev->module);
        }
        if (status == ACCEL_OK) {
            dev->id = id;
            dev->used = true;
        }
    }
    pthread_mutex_unlock(&hpu->acquire_lock);
    if (status == ACCEL_OK && out != NULL)
        *out = dev;
    return status;
}

/* ---------------------------------------------------------------- counting devices */

/* Names like <prefix><digits>. */
static int hpu_count_nodes(const char *dir_name, const char *prefix)
{
    size_t len = strlen(prefix);
    struct dirent *entry;
    DIR *dir = opendir(dir_name);
    int count = 0;
    if (dir == NULL)
        return 0;
    while ((entry = readdir(dir)) != NULL) {
        const char *digits = entry->d_name + len;
        if (strncmp(entry->d_name, prefix, len) != 0 || *digits == '\0')
            continue;
        while (*digits >= '0' && *digits <= '9')
            digits++;
        if (*digits == '\0')
            count++;
    }
    closedir(dir);
    return count;
}

/* The Gaudis HLML sees (hlml_init reads the driver, it acquires nothing),
 * with their module ids; false with `how` saying why when HLML cannot. */
static bool hpu_count_hlml(int *count, accel_syn_module_id_t *modules, char *how, size_t cap)
{
    const hpu_hlml_api_t *hlml;
    accel_hlml_return_t code;
    unsigned int n = 0;
    bool owned;
    if (!accel_vendor_library_open(&hpu_hlml, how, cap))
        return false;
    hlml = &hpu_hlml_api;
    code = hlml->hlml_init();
    /* ALREADY_INITIALIZED: another user in the process owns the init (and
     * its shutdown); ours is then balanced by no shutdown either. */
    owned = code == ACCEL_HLML_SUCCESS;
    if (code != ACCEL_HLML_SUCCESS && code != ACCEL_HLML_ERROR_ALREADY_INITIALIZED) {
        accel_reason_format(how, cap, "hlml_init in %s failed with hlml_return_t %d", hlml->path,
                            code);
        return false;
    }
    code = hlml->hlml_device_get_count(&n);
    if (code != ACCEL_HLML_SUCCESS) {
        accel_reason_format(how, cap, "hlml_device_get_count in %s failed with hlml_return_t %d",
                            hlml->path, code);
        if (owned)
            hlml->hlml_shutdown();
        return false;
    }
    if (n > ACCEL_HPU_MAX_DEVICES)
        n = ACCEL_HPU_MAX_DEVICES;
    for (unsigned int i = 0; i < n; i++) {
        accel_hlml_device_t handle = NULL;
        unsigned int module = i;
        code = hlml->hlml_device_get_handle_by_index(i, &handle);
        if (code == ACCEL_HLML_SUCCESS)
            code = hlml->hlml_device_get_module_id(handle, &module);
        if (code != ACCEL_HLML_SUCCESS) {
            accel_reason_format(how, cap,
                                "asking %s for device %u's module id failed with hlml_return_t %d",
                                hlml->path, i, code);
            if (owned)
                hlml->hlml_shutdown();
            return false;
        }
        modules[i] = module < ACCEL_HPU_MAX_DEVICES ? module : i;
    }
    if (owned)
        hlml->hlml_shutdown();
    *count = (int)n;
    accel_reason_format(how, cap, "%u Gaudi(s) counted by HLML (%s) without acquiring any", n,
                        hlml->path);
    return true;
}

/* HABANA_VISIBLE_MODULES: the module ids it lists, up to the first entry
 * that is not a module id; the count is at most `count`. */
static int hpu_apply_visible_modules(int count, accel_syn_module_id_t *modules)
{
    const char *p = getenv(HPU_MODULES_ENV);
    int shown = 0;
    if (p == NULL || *p == '\0')
        return count;
    while (*p >= '0' && *p <= '9' && shown < count) {
        char *end;
        long id = strtol(p, &end, 10);
        if (id >= ACCEL_HPU_MAX_DEVICES)
            break;
        modules[shown++] = (accel_syn_module_id_t)id;
        if (*end != ',')
            break;
        p = end + 1;
    }
    return shown;
}

/* Count the Gaudis without acquiring one: HLML, else the driver's nodes
 * (/dev/accel/accel<N>, else /dev/hl<N>; ACCEL_HPU_DEVICE_DIR names another
 * folder for /dev). `how` says which. */
static void hpu_count_devices(int *count, accel_syn_module_id_t *modules, char *how, size_t cap)
{
    char hlml_why[256];
    const char *dev = getenv("ACCEL_HPU_DEVICE_DIR");
    char accel_dir[200];
    int n;
    for (int i = 0; i < ACCEL_HPU_MAX_DEVICES; i++)
        modules[i] = (accel_syn_module_id_t)i;
    if (hpu_count_hlml(&n, modules, how, cap)) {
        *count = hpu_apply_visible_modules(n, modules);
        return;
    }
    /* The full story of HLML goes to the debug log; the reason keeps it
     * short, since a probe's reason holds 256 bytes. */
    accel_log(ACCEL_LOG_DEBUG, "hpu: %s", how);
    snprintf(hlml_why, sizeof hlml_why, "%s",
             accel_vendor_library_open(&hpu_hlml, NULL, 0) ? "HLML could not count"
                                                           : "HLML not loaded (no libhlml.so)");
    if (dev == NULL || *dev == '\0')
        dev = "/dev";
    snprintf(accel_dir, sizeof accel_dir, "%s/accel", dev);
    n = hpu_count_nodes(accel_dir, "accel");
    if (n > 0) {
        accel_reason_format(how, cap, "%s; counted %d accel<N> node(s) in %s", hlml_why, n,
                            accel_dir);
    } else {
        n = hpu_count_nodes(dev, "hl");
        accel_reason_format(how, cap, "%s; counted %d hl<N> node(s) in %s%s", hlml_why, n, dev,
                            n > 0 ? "" : " (none: no habanalabs driver)");
    }
    if (n > ACCEL_HPU_MAX_DEVICES)
        n = ACCEL_HPU_MAX_DEVICES;
    *count = hpu_apply_visible_modules(n, modules);
}

/* "PT_HPU_LAZY_ACC_PAR_MODE=0 (set at init)" or "... =1 (kept)" for each. */
static void hpu_workaround_text(char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof hpu_workarounds / sizeof hpu_workarounds[0]; i++) {
        const char *value = getenv(hpu_workarounds[i]);
        int n = snprintf(out + used, cap - used, "%s%s=%s", i ? ", " : "", hpu_workarounds[i],
                         value != NULL ? value : "0 at init");
        if (n < 0 || (size_t)n >= cap - used)
            return;
        used += (size_t)n;
    }
}

/* ---------------------------------------------------------------- lifecycle */

static const void *hpu_detect_load(char *reason, size_t cap)
{
    return accel_hpu_synapse(reason, cap);
}

/* probe's count: never fails (no device is an answer); `how` also names the
 * workarounds applied. create counts itself, keeping the module ids. */
static bool hpu_detect_count(const void *runtime, int *count, char *how, size_t cap)
{
    char found[200], workarounds[120];
    accel_syn_module_id_t modules[ACCEL_HPU_MAX_DEVICES];
    (void)runtime;
    hpu_count_devices(count, modules, found, sizeof found);
    hpu_workaround_text(workarounds, sizeof workarounds);
    accel_reason_format(how, cap, "%s; %s; never run on a Gaudi (sims only)", found, workarounds);
    return true;
}

/* probe and create: libSynapse, the fork rule, the count. */
static const accel_backend_detect_t hpu_detect = {
    .backend = "hpu",
    .load = hpu_detect_load,
    .forked = accel_hpu_forked,
    .forked_reason = "synInitialize ran before fork(); SynapseAI cannot be used in this child",
    .fork_error = accel_hpu_fork_error,
    .count = hpu_detect_count,
};

static void hpu_probe(accel_probe_result_t *out)
{
    accel_backend_detect_probe(&hpu_detect, out);
}

static accel_status_t hpu_create(void **out_self)
{
    accel_syn_module_id_t modules[ACCEL_HPU_MAX_DEVICES];
    const void *runtime;
    accel_hpu_backend_t *hpu;
    int count = 0;
    accel_status_t status = accel_backend_detect_open(&hpu_detect, &runtime, NULL);

    if (status != ACCEL_OK)
        return status;
    hpu = calloc(1, sizeof *hpu);
    if (hpu == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "hpu: out of host memory for state");
    if ((status = accel_hpu_staging_open(hpu)) != ACCEL_OK) {
        free(hpu);
        return status;
    }
    hpu_count_devices(&count, modules, hpu->detection, sizeof hpu->detection);
    hpu->syn = runtime;
    hpu->device_count = count;
    for (int i = 0; i < count; i++)
        hpu->devices[i].module = modules[i];
    hpu->instance = accel_backend_instance_id();
    pthread_mutex_init(&hpu->acquire_lock, NULL);
    pthread_mutex_init(&hpu->lock, NULL);
    pthread_cond_init(&hpu->changed, NULL);
    pthread_mutex_init(&hpu->pinned_lock, NULL);
    accel_range_map_init(&hpu->pinned, sizeof(accel_hpu_pinned_t));
    accel_log(ACCEL_LOG_DEBUG, "hpu: %s", hpu->detection);
    *out_self = hpu;
    return ACCEL_OK;
}

/* Core releases streams, events and memory first. In a forked child no
 * Synapse call is made: only host memory is freed. */
static void hpu_destroy(void *self)
{
    accel_hpu_backend_t *hpu = self;
    bool forked = accel_hpu_forked();
    if (hpu == NULL)
        return;
    /* The default streams first (their deferred copies may still add
     * staging buffers), then the staging and pinned memory, which need the
     * Gaudis' ids, then the Gaudis. */
    for (int i = 0; i < hpu->device_count; i++) {
        accel_hpu_device_t *dev = &hpu->devices[i];
        if (!dev->used)
            continue;
        if (!forked)
            accel_hpu_stream_free(hpu, dev->default_stream);
        else
            free(dev->default_stream);
    }
    accel_hpu_staging_close(hpu, forked);
    if (!forked) {
        accel_hpu_pinned_release(hpu);
        for (int i = 0; i < hpu->device_count; i++)
            if (hpu->devices[i].used)
                hpu_release_module(hpu->syn, hpu->devices[i].module);
    }
    accel_range_map_fini(&hpu->pinned);
    pthread_mutex_destroy(&hpu->pinned_lock);
    pthread_cond_destroy(&hpu->changed);
    pthread_mutex_destroy(&hpu->lock);
    pthread_mutex_destroy(&hpu->acquire_lock);
    free(hpu);
}

/* synInitialize (once per process), DeepSpeed's workarounds and what every
 * Gaudi is, asked by module id (nothing is acquired here). */
static accel_status_t hpu_init(void *self)
{
    accel_hpu_backend_t *hpu = self;
    const accel_hpu_api_t *syn = hpu->syn;
    static const accel_syn_device_attr_t attrs[] = {ACCEL_SYN_DEVICE_ATTRIBUTE_DEVICE_TYPE,
                                                    ACCEL_SYN_DEVICE_ATTRIBUTE_DRAM_SIZE,
                                                    ACCEL_SYN_DEVICE_ATTRIBUTE_CLK_RATE};
    uint32_t counted = 0;
    accel_status_t status;

    if (accel_hpu_forked())
        return accel_hpu_fork_error();
    /* setenv is not safe against a concurrent getenv: init runs once, before
     * the backend is used, as DeepSpeed applies them at construction. */
    for (size_t i = 0; i < sizeof hpu_workarounds / sizeof hpu_workarounds[0]; i++)
        if (getenv(hpu_workarounds[i]) == NULL && setenv(hpu_workarounds[i], "0", 0) != 0)
            return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "hpu: cannot set %s=0",
                                       hpu_workarounds[i]);
    if ((status = hpu_syn_init(syn)) != ACCEL_OK)
        return status;
    status = accel_hpu_check(
        syn, syn->synDriverGetVersion(hpu->driver_version, (int)sizeof hpu->driver_version),
        "synDriverGetVersion");
    if (status != ACCEL_OK)
        return status;
    hpu->driver_version[sizeof hpu->driver_version - 1] = '\0';
    status = accel_hpu_check(syn, syn->synDeviceGetCount(&counted), "synDeviceGetCount");
    if (status != ACCEL_OK)
        return status;
    if ((int)counted < hpu->device_count)
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE,
                                   "hpu: %d Gaudi(s) were counted before initialisation (%s) "
                                   "but synDeviceGetCount shows %u (check " HPU_MODULES_ENV ")",
                                   hpu->device_count, hpu->detection, counted);
    for (int i = 0; i < hpu->device_count; i++) {
        uint64_t values[3] = {0, 0, 0};
        accel_hpu_device_t *dev = &hpu->devices[i];
        status = accel_hpu_check(
            syn, syn->synDeviceGetAttributeByModuleId(values, attrs, 3, dev->module),
            "synDeviceGetAttributeByModuleId");
        if (status != ACCEL_OK)
            return status;
        dev->type = values[0];
        dev->dram_size = values[1];
        dev->clock_mhz = values[2];
    }
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- device queries */

static accel_status_t hpu_device_count(void *self, int *out)
{
    *out = ((accel_hpu_backend_t *)self)->device_count;
    return ACCEL_OK;
}

/* Selecting a device acquires it, so that a Gaudi held elsewhere is said
 * at once; pinned memory then goes to this device. */
static accel_status_t hpu_set_device(void *self, int device)
{
    accel_hpu_backend_t *hpu = self;
    accel_status_t status = accel_hpu_acquire(hpu, device, NULL);
    if (status == ACCEL_OK) {
        accel_thread_device_set(&hpu_thread, hpu->instance, device);
    }
    return status;
}

static const char *hpu_type_name(uint64_t type)
{
    switch (type) {
    case ACCEL_SYN_DEVICE_GAUDI: return "Gaudi";
    case ACCEL_SYN_DEVICE_GAUDI2: return "Gaudi2";
    case ACCEL_SYN_DEVICE_GAUDI3: return "Gaudi3";
    default: return "Gaudi (unknown type)";
    }
}

static accel_status_t hpu_device_properties(void *self, int device, accel_device_properties_t *out)
{
    accel_hpu_backend_t *hpu = self;
    const accel_hpu_device_t *dev = &hpu->devices[device];
    accel_device_properties_t props = {.struct_size = sizeof props};
    if (accel_hpu_forked())
        return accel_hpu_fork_error();
    snprintf(props.name, sizeof props.name, "%s (module %u)", hpu_type_name(dev->type),
             (unsigned)dev->module);
    snprintf(props.vendor, sizeof props.vendor, "Habana Labs (Intel)");
    props.total_memory = dev->dram_size;
    props.compute_major = props.compute_minor = -1;
    props.multiprocessor_count = -1;
    snprintf(props.driver_version, sizeof props.driver_version, "%s", hpu->driver_version);
    return accel_device_properties_copy_out(out, &props);
}

/* DeepSpeed: bf16 always; fp16 on Gaudi2 and later; no Triton; no graphs
 * (Synapse's graphs are compiled recipes, not a capture of stream work). */
static accel_status_t hpu_query_flag(void *self, int device, accel_flag_t flag, bool *out)
{
    accel_hpu_backend_t *hpu = self;
    switch (flag) {
    case ACCEL_FLAG_IS_AVAILABLE: *out = hpu->device_count > 0; return ACCEL_OK;
    case ACCEL_FLAG_BF16_SUPPORTED: *out = true; return ACCEL_OK;
    case ACCEL_FLAG_FP16_SUPPORTED:
        *out = hpu->devices[device].type >= ACCEL_SYN_DEVICE_GAUDI2 &&
               hpu->devices[device].type <= ACCEL_SYN_DEVICE_GAUDI3;
        return ACCEL_OK;
    case ACCEL_FLAG_TRITON_SUPPORTED: *out = false; return ACCEL_OK;
    case ACCEL_FLAG_PREFER_TRITON_GROUPED_MM: *out = false; return ACCEL_OK;
    case ACCEL_FLAG_GRAPHS_SUPPORTED: *out = false; return ACCEL_OK;
    default: return ACCEL_ERROR_UNSUPPORTED;
    }
}

/* DeepSpeed's order: [float, bfloat16] + half when fp16. */
static accel_status_t hpu_supported_dtypes(void *self, int device, accel_dtype_t *out, size_t cap,
                                           size_t *out_count)
{
    static const accel_dtype_t all[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_BF16, ACCEL_DTYPE_F16};
    bool fp16 = false;
    hpu_query_flag(self, device, ACCEL_FLAG_FP16_SUPPORTED, &fp16);
    return accel_dtypes_copy_out("hpu", all, fp16 ? 3 : 2, out, cap, out_count);
}

/* ---------------------------------------------------------------- the table */

static const accel_backend_ops_t hpu_ops = {
    ACCEL_BACKEND_OPS_HEAD(hpu),

    ACCEL_BACKEND_DEVICE_SLOTS(hpu),
    .synchronize = accel_hpu_synchronize,
    .memory_info = accel_hpu_memory_info,

    ACCEL_BACKEND_MEMORY_SLOTS(accel_hpu),
    ACCEL_BACKEND_PINNED_SLOTS(accel_hpu),
    ACCEL_BACKEND_REGISTER_SLOTS(accel_hpu),
    ACCEL_BACKEND_STREAM_SLOTS(accel_hpu),
    ACCEL_BACKEND_EVENT_SLOTS(accel_hpu),

    .native_stream = accel_hpu_native_stream,
};

const accel_backend_ops_t *accel_hpu_backend_ops(void)
{
    return &hpu_ops;
}
