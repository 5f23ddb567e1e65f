/* backend.c: the CUDA backend's ops table and everything about the devices
 * themselves: detection without a context, lazy initialisation, primary
 * contexts, properties, flags, dtypes and NVTX ranges. Loading the vendor
 * libraries and the driver's error text are loader.c; memory, streams,
 * kernels and fills live next door.
 * Threads: every slot may be called from any thread. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "backends/cuda/cuda_backend.h"
#include "accel/accel_backend_utils.h"
#include "backends/cuda/fused_optim.h"

#ifdef ACCEL_CUDA_HAVE_NVTX3
#include <nvtx3/nvToolsExt.h>
#endif

#define CUDA_VISIBLE_ENV "CUDA_VISIBLE_DEVICES"
#define CUDA_MAX_VISIBLE 1024

/* ---------------------------------------------------------------- static facts */

/* DeepSpeed's cuda list: torch._dynamo.list_backends() on a CUDA build. */
static const char *const cuda_compile_backends[] = {"inductor", "eager", "aot_eager", "cudagraphs"};
static const char *const cuda_visible_devices_envs[] = {CUDA_VISIBLE_ENV};
static const char *const cuda_export_envs[] = {"NCCL"};

static const accel_backend_info_t cuda_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .communication_backend = "nccl",
    .default_compile_backend = "inductor",
    .compile_backends = cuda_compile_backends,
    .compile_backend_count = sizeof cuda_compile_backends / sizeof cuda_compile_backends[0],
    .visible_devices_envs = cuda_visible_devices_envs,
    .visible_devices_env_count = 1,
    .export_envs = cuda_export_envs,
    .export_env_count = 1,
    .dlpack_device_type = kDLCUDA,
    .device_name_ignores_index = false,
    .synchronized_device = false,
    .use_host_timers = false,
    .resolves_data_dependency = false,
    .handles_memory_backpressure = false,
    .nvtx_domain_supported = true,
    .lazy_call_runs_immediately = false,
    .runtime_library = "libcuda.so.1",
    .vendor_stack = "NVIDIA driver",
    .current_device_from_local_rank = false,
};

/* ---------------------------------------------------------------- counting devices */

/* The NVML index of each device CUDA will show, from CUDA_VISIBLE_DEVICES as
 * torch reads it for its NVML count: entries up to the first one that is not
 * a non-negative integer below `nvml_count`; a repeated index hides every
 * device. Returns how many, or -1 when the list names devices by UUID or MIG
 * instance, which only the driver can resolve. */
static int cuda_visible_map(unsigned nvml_count, int *map, int cap)
{
    const char *text = getenv(CUDA_VISIBLE_ENV);
    int count = 0;
    if (text == NULL) {
        for (unsigned i = 0; i < nvml_count && count < cap; i++)
            map[count++] = (int)i;
        return count;
    }
    while (count < cap) {
        char *end;
        long index;
        while (isspace((unsigned char)*text))
            text++;
        if (strncmp(text, "GPU-", 4) == 0 || strncmp(text, "MIG-", 4) == 0)
            return -1;
        if (!isdigit((unsigned char)*text))
            break;
        index = strtol(text, &end, 10);
        if (index < 0 || index >= (long)nvml_count)
            break;
        for (int i = 0; i < count; i++)
            if (map[i] == (int)index)
                return 0;
        map[count++] = (int)index;
        text = end;
        while (isspace((unsigned char)*text))
            text++;
        if (*text != ',')
            break;
        text++;
    }
    return count;
}

/* Count visible devices without creating a context: NVML first; the driver
 * (cuInit + cuDeviceGetCount) when NVML is missing or cannot map
 * CUDA_VISIBLE_DEVICES. cuInit creates no context, but a process that has
 * called it should not use CUDA in a forked child, so the fallback is a
 * (mild) exception to fork safety, stated in `how`. `map` (may be NULL)
 * receives each device's NVML index, or -1. Returns false with `how` saying
 * why when the driver itself failed. */
static bool cuda_count_devices(const accel_cuda_api_t *cu, int *map, int cap, int *out, char *how,
                               size_t how_cap)
{
    const accel_nvml_api_t *nvml = accel_cuda_nvml();
    int nvml_map[CUDA_MAX_VISIBLE];
    const char *why_driver = "NVML not found; counted with the driver";
    const char *failed = "cuInit";
    accel_cu_result_t result;
    int count = 0;

    if (nvml != NULL) {
        unsigned nvml_count = 0;
        if (nvml->nvmlInit_v2() == ACCEL_NVML_SUCCESS) {
            int visible = -1;
            if (nvml->nvmlDeviceGetCount_v2(&nvml_count) == ACCEL_NVML_SUCCESS)
                visible = cuda_visible_map(nvml_count, nvml_map, CUDA_MAX_VISIBLE);
            nvml->nvmlShutdown();
            if (visible >= 0) {
                for (int i = 0; map != NULL && i < visible && i < cap; i++)
                    map[i] = nvml_map[i];
                *out = visible;
                snprintf(how, how_cap, "counted with NVML, no context created");
                return true;
            }
            why_driver = "NVML cannot resolve " CUDA_VISIBLE_ENV "; counted with the driver";
        } else {
            why_driver = "NVML failed to start; counted with the driver";
        }
    }
    result = cu->cuInit(0);
    if (result == ACCEL_CUDA_ERROR_NO_DEVICE) {
        *out = 0;
        snprintf(how, how_cap, "the NVIDIA driver reports no CUDA device");
        return true;
    }
    if (result == ACCEL_CUDA_ERROR_STUB_LIBRARY) {
        snprintf(how, how_cap,
                 "the libcuda that loaded is the CUDA toolkit's stub library, "
                 "not a driver");
        return false;
    }
    if (result == ACCEL_CUDA_SUCCESS) {
        failed = "cuDeviceGetCount";
        result = cu->cuDeviceGetCount(&count);
    }
    if (result != ACCEL_CUDA_SUCCESS) {
        const char *name = NULL;
        if (cu->cuGetErrorName(result, &name) != ACCEL_CUDA_SUCCESS || name == NULL)
            name = "CUDA_ERROR_UNKNOWN";
        snprintf(how, how_cap, "the NVIDIA driver failed to start: %s failed: %s (%u)", failed,
                 name, result);
        return false;
    }
    for (int i = 0; map != NULL && i < count && i < cap; i++)
        map[i] = -1;
    *out = count;
    snprintf(how, how_cap, "%s", why_driver);
    return true;
}

/* ---------------------------------------------------------------- lifecycle */

static void cuda_probe(accel_probe_result_t *out)
{
    char reason[sizeof out->reason];
    const accel_cuda_api_t *cu = accel_cuda_driver(reason, sizeof reason);
    int count = 0;
    if (cu == NULL) {
        out->available = false;
        snprintf(out->reason, sizeof out->reason, "%s", reason);
        return;
    }
    if (!cuda_count_devices(cu, NULL, 0, &count, reason, sizeof reason)) {
        out->available = false;
        snprintf(out->reason, sizeof out->reason, "%s", reason);
        return;
    }
    out->available = true;
    out->device_count = count;
    snprintf(out->reason, sizeof out->reason, "%s", reason);
}

static accel_status_t cuda_create(void **out_self)
{
    char reason[256];
    const accel_cuda_api_t *cu = accel_cuda_driver(reason, sizeof reason);
    const accel_nvml_api_t *nvml;
    accel_cuda_backend_t *cuda;
    int map[CUDA_MAX_VISIBLE];
    int count = 0;

    if (cu == NULL)
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "%s", reason);
    if (!cuda_count_devices(cu, map, CUDA_MAX_VISIBLE, &count, reason, sizeof reason))
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "%s", reason);
    if (count > CUDA_MAX_VISIBLE)
        count = CUDA_MAX_VISIBLE;
    cuda = calloc(1, sizeof *cuda);
    if (cuda != NULL && count > 0)
        cuda->devices = calloc((size_t)count, sizeof *cuda->devices);
    if (cuda == NULL || (count > 0 && cuda->devices == NULL)) {
        free(cuda);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of host memory for state");
    }
    cuda->cu = cu;
    cuda->device_count = count;
    /* NVML stays started for the backend's lifetime (free memory figures). */
    nvml = accel_cuda_nvml();
    if (nvml != NULL && nvml->nvmlInit_v2() == ACCEL_NVML_SUCCESS)
        cuda->nvml = nvml;
    for (int d = 0; d < count; d++) {
        cuda->devices[d].nvml_index = map[d];
        cuda->devices[d].cc_major = cuda->devices[d].cc_minor = -1;
        pthread_mutex_init(&cuda->devices[d].lock, NULL);
    }
    accel_log(ACCEL_LOG_DEBUG, "cuda: %d device(s), %s", count, reason);
    *out_self = cuda;
    return ACCEL_OK;
}

/* Core releases streams, events, graphs and memory first. Modules are
 * unloaded and primary contexts released on the calling thread. */
static void cuda_destroy(void *self)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_context_t before = NULL;
    bool restore = true;
    if (cuda == NULL)
        return;
    accel_callback_calls_release(cuda); /* no graph can replay them now */
    /* The thread's context before (another library's, say) is current again
     * afterwards, unless it was one of those released here. */
    if (cuda->cu->cuCtxGetCurrent(&before) != ACCEL_CUDA_SUCCESS)
        before = NULL;
    for (int d = 0; d < cuda->device_count; d++) {
        accel_cuda_device_t *dev = &cuda->devices[d];
        accel_cu_context_t context = atomic_load(&dev->context);
        if (context != NULL) {
            if (context == before)
                restore = false;
            if (cuda->cu->cuCtxSetCurrent(context) == ACCEL_CUDA_SUCCESS)
                accel_cuda_kernels_unload(cuda, d);
            cuda->cu->cuCtxSetCurrent(NULL);
            cuda->cu->cuDevicePrimaryCtxRelease(dev->handle);
        }
        pthread_mutex_destroy(&dev->lock);
    }
    if (restore && before != NULL)
        cuda->cu->cuCtxSetCurrent(before);
    if (cuda->nvml != NULL)
        cuda->nvml->nvmlShutdown();
    free(cuda->devices);
    free(cuda);
}

/* cuInit and the per-device facts; contexts wait for each device's first use. */
static accel_status_t cuda_init(void *self)
{
    accel_cuda_backend_t *cuda = self;
    const accel_cuda_api_t *cu = cuda->cu;
    accel_status_t status;
    int count = 0;

    status = accel_cuda_check(cu, cu->cuInit(0), "cuInit");
    if (status == ACCEL_OK)
        status = accel_cuda_check(cu, cu->cuDriverGetVersion(&cuda->driver_version),
                                  "cuDriverGetVersion");
    if (status == ACCEL_OK) {
        accel_cuda_nvrtc_prefer(cuda->driver_version);
        status = accel_cuda_check(cu, cu->cuDeviceGetCount(&count), "cuDeviceGetCount");
    }
    if (status != ACCEL_OK)
        return status;
    if (count < cuda->device_count)
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE,
                                   "cuda: %d device(s) were counted before initialisation but "
                                   "the driver shows %d (check " CUDA_VISIBLE_ENV ")",
                                   cuda->device_count, count);
    for (int d = 0; d < cuda->device_count && status == ACCEL_OK; d++) {
        accel_cuda_device_t *dev = &cuda->devices[d];
        status = accel_cuda_check(cu, cu->cuDeviceGet(&dev->handle, d), "cuDeviceGet");
        if (status == ACCEL_OK)
            status = accel_cuda_check(
                cu,
                cu->cuDeviceGetAttribute(&dev->cc_major,
                                         ACCEL_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                         dev->handle),
                "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)");
        if (status == ACCEL_OK)
            status = accel_cuda_check(
                cu,
                cu->cuDeviceGetAttribute(&dev->cc_minor,
                                         ACCEL_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                         dev->handle),
                "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)");
    }
    return status;
}

/* ---------------------------------------------------------------- contexts */

static accel_status_t cuda_retain_context(accel_cuda_backend_t *cuda, int device,
                                          accel_cu_context_t *out)
{
    accel_cuda_device_t *dev = &cuda->devices[device];
    accel_status_t status = ACCEL_OK;
    accel_cu_context_t context;
    pthread_mutex_lock(&dev->lock);
    context = atomic_load(&dev->context);
    if (context == NULL) {
        status =
            accel_cuda_check(cuda->cu, cuda->cu->cuDevicePrimaryCtxRetain(&context, dev->handle),
                             "cuDevicePrimaryCtxRetain");
        if (status == ACCEL_OK)
            atomic_store(&dev->context, context);
    }
    pthread_mutex_unlock(&dev->lock);
    if (status == ACCEL_OK)
        *out = context;
    return status;
}

accel_status_t accel_cuda_activate(accel_cuda_backend_t *cuda, int device)
{
    accel_cu_context_t wanted =
        atomic_load_explicit(&cuda->devices[device].context, memory_order_acquire);
    accel_cu_context_t current = NULL;
    /* stream.c's cuLaunchHostFunc calls mark the driver's thread around a
     * callback; the driver refuses every call from there
     * (CUDA_ERROR_NOT_PERMITTED), which is the caller's misuse, not a
     * device failure: say so before calling it. */
    if (accel_callback_thread_of(cuda, ACCEL_CALLBACK_ANY_DEVICE, NULL))
        return accel_backend_error(ACCEL_ERROR_UNSUPPORTED,
                                   "cuda: a host callback may not call the CUDA driver (it runs "
                                   "on the driver's thread, cuLaunchHostFunc's rule); queue the "
                                   "work from another thread");
    if (wanted == NULL) {
        accel_status_t status = cuda_retain_context(cuda, device, &wanted);
        if (status != ACCEL_OK)
            return status;
    }
    if (cuda->cu->cuCtxGetCurrent(&current) == ACCEL_CUDA_SUCCESS && current == wanted)
        return ACCEL_OK;
    return accel_cuda_check(cuda->cu, cuda->cu->cuCtxSetCurrent(wanted), "cuCtxSetCurrent");
}

/* ---------------------------------------------------------------- device queries */

static accel_status_t cuda_device_count(void *self, int *out)
{
    *out = ((accel_cuda_backend_t *)self)->device_count;
    return ACCEL_OK;
}

static accel_status_t cuda_set_device(void *self, int device)
{
    return accel_cuda_activate(self, device);
}

/* No context is needed for any of these (a report does not retain one). */
static accel_status_t cuda_device_properties(void *self, int device, accel_device_properties_t *out)
{
    accel_cuda_backend_t *cuda = self;
    const accel_cuda_api_t *cu = cuda->cu;
    accel_cuda_device_t *dev = &cuda->devices[device];
    accel_device_properties_t props = {.struct_size = sizeof props};
    size_t total = 0;
    accel_cu_uuid_t uuid;
    accel_status_t status;
    const unsigned char *b;

    status =
        accel_cuda_check(cu, cu->cuDeviceGetName(props.name, (int)sizeof props.name, dev->handle),
                         "cuDeviceGetName");
    if (status == ACCEL_OK)
        status = accel_cuda_check(cu, cu->cuDeviceTotalMem_v2(&total, dev->handle),
                                  "cuDeviceTotalMem_v2");
    if (status == ACCEL_OK)
        status = accel_cuda_check(
            cu,
            cu->cuDeviceGetAttribute(&props.multiprocessor_count,
                                     ACCEL_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev->handle),
            "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)");
    if (status != ACCEL_OK)
        return status;
    snprintf(props.vendor, sizeof props.vendor, "NVIDIA");
    props.total_memory = total;
    props.compute_major = dev->cc_major;
    props.compute_minor = dev->cc_minor;
    if (cu->cuDeviceGetPCIBusId(props.pci_bus_id, (int)sizeof props.pci_bus_id, dev->handle) !=
        ACCEL_CUDA_SUCCESS)
        props.pci_bus_id[0] = '\0';
    for (char *c = props.pci_bus_id; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    if (cu->cuDeviceGetUuid(&uuid, dev->handle) == ACCEL_CUDA_SUCCESS) {
        b = (const unsigned char *)uuid.bytes;
        snprintf(props.uuid, sizeof props.uuid,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                 b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                 b[14], b[15]);
    }
    snprintf(props.driver_version, sizeof props.driver_version, "%d.%d",
             cuda->driver_version / 1000, (cuda->driver_version % 1000) / 10);
    return accel_device_properties_copy_out(out, &props);
}

/* DeepSpeed: fp16 on cc >= 7, on cc 6 only with DS_ALLOW_DEPRECATED_FP16=1. */
static bool cuda_fp16(const accel_cuda_device_t *dev)
{
    const char *allow;
    if (dev->cc_major >= 7)
        return true;
    if (dev->cc_major != 6)
        return false;
    allow = getenv("DS_ALLOW_DEPRECATED_FP16");
    return allow != NULL && strcmp(allow, "1") == 0;
}

/* prefer_triton_grouped_mm needs to know whether Triton imports, which a C
 * library cannot tell: it is false, as DeepSpeed answers without Triton. */
static accel_status_t cuda_query_flag(void *self, int device, accel_flag_t flag, bool *out)
{
    accel_cuda_backend_t *cuda = self;
    const accel_cuda_device_t *dev = &cuda->devices[device];
    switch (flag) {
    case ACCEL_FLAG_IS_AVAILABLE: *out = cuda->device_count > 0; return ACCEL_OK;
    case ACCEL_FLAG_BF16_SUPPORTED: *out = dev->cc_major >= 8; return ACCEL_OK;
    case ACCEL_FLAG_FP16_SUPPORTED: *out = cuda_fp16(dev); return ACCEL_OK;
    case ACCEL_FLAG_TRITON_SUPPORTED: *out = dev->cc_major >= 8; return ACCEL_OK;
    case ACCEL_FLAG_PREFER_TRITON_GROUPED_MM: *out = false; return ACCEL_OK;
    case ACCEL_FLAG_GRAPHS_SUPPORTED:
        *out = cuda->cu->cuGraphInstantiateWithFlags != NULL;
        return ACCEL_OK;
    default: return ACCEL_ERROR_UNSUPPORTED;
    }
}

/* DeepSpeed's order on cuda: float, then half if fp16, then bfloat16 if bf16. */
static accel_status_t cuda_supported_dtypes(void *self, int device, accel_dtype_t *out, size_t cap,
                                            size_t *out_count)
{
    accel_cuda_backend_t *cuda = self;
    const accel_cuda_device_t *dev = &cuda->devices[device];
    accel_dtype_t all[3];
    size_t n = 0;
    all[n++] = ACCEL_DTYPE_F32;
    if (cuda_fp16(dev))
        all[n++] = ACCEL_DTYPE_F16;
    if (dev->cc_major >= 8)
        all[n++] = ACCEL_DTYPE_BF16;
    return accel_dtypes_copy_out("cuda", all, n, out, cap, out_count);
}

/* ---------------------------------------------------------------- NVTX ranges */

#ifdef ACCEL_CUDA_HAVE_NVTX3
/* NVTX domains and category ids, created on first use and kept for the
 * process lifetime (NVTX has no per-library teardown). NULL name = NVTX's
 * default domain. Guarded by cuda_nvtx_lock. */
typedef struct cuda_nvtx_category {
    char *name;
    uint32_t id;
    struct cuda_nvtx_category *next;
} cuda_nvtx_category_t;

typedef struct cuda_nvtx_domain {
    char *name;
    nvtxDomainHandle_t handle;
    uint32_t next_category;
    cuda_nvtx_category_t *categories;
    struct cuda_nvtx_domain *next;
} cuda_nvtx_domain_t;

static pthread_mutex_t cuda_nvtx_lock = PTHREAD_MUTEX_INITIALIZER;
static cuda_nvtx_domain_t *cuda_nvtx_domains;

static bool cuda_same_name(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The domain (created if new) and the category id (0 = none) to use. */
static nvtxDomainHandle_t cuda_nvtx_lookup(const char *domain, const char *category,
                                           uint32_t *out_category)
{
    cuda_nvtx_domain_t *entry;
    nvtxDomainHandle_t handle = NULL;
    *out_category = 0;
    pthread_mutex_lock(&cuda_nvtx_lock);
    for (entry = cuda_nvtx_domains; entry != NULL; entry = entry->next)
        if (cuda_same_name(entry->name, domain))
            break;
    if (entry == NULL && (entry = calloc(1, sizeof *entry)) != NULL) {
        entry->name = domain != NULL ? strdup(domain) : NULL;
        entry->handle = domain != NULL ? nvtxDomainCreateA(domain) : NULL;
        entry->next = cuda_nvtx_domains;
        cuda_nvtx_domains = entry;
    }
    if (entry != NULL) {
        handle = entry->handle;
        if (category != NULL) {
            cuda_nvtx_category_t *c;
            for (c = entry->categories; c != NULL; c = c->next)
                if (strcmp(c->name, category) == 0)
                    break;
            if (c == NULL && (c = calloc(1, sizeof *c)) != NULL &&
                (c->name = strdup(category)) != NULL) {
                c->id = ++entry->next_category;
                c->next = entry->categories;
                entry->categories = c;
                if (handle != NULL)
                    nvtxDomainNameCategoryA(handle, c->id, category);
                else
                    nvtxNameCategoryA(c->id, category);
            }
            if (c != NULL && c->name != NULL)
                *out_category = c->id;
        }
    }
    pthread_mutex_unlock(&cuda_nvtx_lock);
    return handle;
}

static void cuda_range_push(void *self, const char *msg, const char *domain, const char *category)
{
    nvtxEventAttributes_t attributes;
    uint32_t category_id;
    nvtxDomainHandle_t handle;
    if (domain == NULL && category == NULL) {
        nvtxRangePushA(msg);
        return;
    }
    handle = cuda_nvtx_lookup(domain, category, &category_id);
    memset(&attributes, 0, sizeof attributes);
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.category = category_id;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = msg;
    nvtxDomainRangePushEx(handle, &attributes);
}

static void cuda_range_pop(void *self, const char *domain)
{
    uint32_t unused;
    if (domain == NULL) {
        nvtxRangePop();
        return;
    }
    nvtxDomainRangePop(cuda_nvtx_lookup(domain, NULL, &unused));
}
#define CUDA_RANGE_PUSH cuda_range_push
#define CUDA_RANGE_POP  cuda_range_pop
#else
/* Built without the NVTX v3 headers: only core's trace recorder sees ranges. */
#define CUDA_RANGE_PUSH NULL
#define CUDA_RANGE_POP  NULL
#endif

/* ---------------------------------------------------------------- the table */

static const accel_backend_ops_t cuda_ops = {
    ACCEL_BACKEND_OPS_HEAD(cuda),

    ACCEL_BACKEND_DEVICE_SLOTS(cuda),
    .synchronize = accel_cuda_synchronize,
    .memory_info = accel_cuda_memory_info,

    ACCEL_BACKEND_MEMORY_SLOTS(accel_cuda),
    ACCEL_BACKEND_PINNED_SLOTS(accel_cuda),
    ACCEL_BACKEND_REGISTER_SLOTS(accel_cuda),
    ACCEL_BACKEND_STREAM_SLOTS(accel_cuda),
    ACCEL_BACKEND_EVENT_SLOTS(accel_cuda),
    ACCEL_BACKEND_GRAPH_SLOTS(accel_cuda),

    .rng_fill = accel_cuda_rng_fill,

    .range_push = CUDA_RANGE_PUSH,
    .range_pop = CUDA_RANGE_POP,
    .fused_optim = &accel_cuda_fused_optim,

    .native_stream = accel_cuda_native_stream,
};

const accel_backend_ops_t *accel_cuda_backend_ops(void)
{
    return &cuda_ops;
}
