/* backend.c: the OpenCL backend's ops table and everything about the devices
 * themselves: detection (GPU/accelerator devices for auto-detect, CPU devices
 * only when named), properties, memory figures, flags and dtypes, and the
 * per-device contexts made by init(). Streams, memory and kernels live in the
 * neighbouring files. Threads: the table and info are constant; every slot
 * may be called from any thread. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accel/accel_backend_utils.h"
#include "backends/opencl/fused_optim.h"
#include "backends/opencl/icd_scan.h"
#include "backends/opencl/opencl_backend.h"

/* ---------------------------------------------------------------- static facts */

/* DeepSpeed has no OpenCL accelerator and torch.compile no OpenCL backend:
 * the only honest compile backend is running ops as they come. */
static const char *const opencl_compile_backends[] = {"eager"};

/* OpenCL has no standard variable; this one is ours and is honoured by
 * probe() and create() (loader.c). */
static const char *const opencl_visible_devices_envs[] = {"ACCEL_OPENCL_VISIBLE_DEVICES"};

/* What a multi-node launcher forwards: our own settings, the ICD loader's
 * (OCL_ICD_VENDORS, OCL_ICD_DEFAULT_PLATFORM...; OPENCL_VENDOR_PATH) and
 * PoCL's, the CPU/reference ICD this backend is tested on. */
static const char *const opencl_export_envs[] = {"ACCEL_OPENCL", "OCL_ICD", "OPENCL_VENDOR_PATH",
                                                 "POCL"};

static const accel_backend_info_t opencl_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .communication_backend = NULL, /* no torch.distributed backend drives OpenCL */
    .default_compile_backend = "eager",
    .compile_backends = opencl_compile_backends,
    .compile_backend_count = 1,
    .visible_devices_envs = opencl_visible_devices_envs,
    .visible_devices_env_count = 1,
    .export_envs = opencl_export_envs,
    .export_env_count = sizeof opencl_export_envs / sizeof opencl_export_envs[0],
    .dlpack_device_type = kDLOpenCL,
    .device_name_ignores_index = false,
    .synchronized_device = false,
    .use_host_timers = false,
    .resolves_data_dependency = false,
    .handles_memory_backpressure = false,
    .nvtx_domain_supported = false,
    .lazy_call_runs_immediately = false,
    .runtime_library = "libOpenCL.so.1",
    .vendor_stack = "an OpenCL ICD loader such as ocl-icd, plus a driver such as PoCL",
    .current_device_from_local_rank = false,
};

/* ---------------------------------------------------------------- detection */

static bool found_is_accelerator(const accel_opencl_found_t *found)
{
    return (found->type & (ACCEL_CL_DEVICE_TYPE_GPU | ACCEL_CL_DEVICE_TYPE_ACCELERATOR)) != 0;
}

/* When any GPU/accelerator device is present (and the user did not pick
 * devices with ACCEL_OPENCL_VISIBLE_DEVICES), CPU devices are dropped so that
 * device 0 is never a CPU runtime sitting next to a GPU. Returns how many
 * accelerator-class devices there are. */
static int opencl_prefer_accelerators(accel_opencl_found_t *list, int *count)
{
    int accelerators = 0, kept = 0;
    for (int i = 0; i < *count; i++)
        accelerators += found_is_accelerator(&list[i]);
    if (accelerators == 0 || accel_env_get(opencl_visible_devices_envs[0]) != NULL)
        return accelerators;
    for (int i = 0; i < *count; i++) {
        if (found_is_accelerator(&list[i]))
            list[kept++] = list[i];
    }
    *count = kept;
    return accelerators;
}

/* Counts devices without creating a context. CPU-only OpenCL (PoCL) is
 * explicit_only: usable when named (ACCEL_ACCELERATOR=opencl, accel_open) but
 * never taken by auto-detect, which falls through to the cpu backend. When
 * the ICD files alone show that (icd_scan.h), nothing is loaded or counted. */
static void opencl_probe(accel_probe_result_t *out)
{
    char reason[sizeof out->reason] = "";
    accel_opencl_found_t *list = NULL;
    int count = 0, accelerators;
    const accel_cl_api_t *api;

    /* Every ICD a PoCL with CPU drivers only: nothing auto-detect would take,
     * and asking the runtime would load LLVM (tens of ms). Named selection
     * still works: create() enumerates for real. */
    if (out->struct_size >= offsetof(accel_probe_result_t, explicit_only) + sizeof(bool) &&
        accel_opencl_icds_cpu_only_here(reason, sizeof reason)) {
        out->available = true;
        out->device_count = -1; /* not counted: that would load the runtime */
        out->explicit_only = true;
        int n = snprintf(out->reason, sizeof out->reason,
                         "only CPU OpenCL runtimes are installed (%s); not loaded for "
                         "auto-detect, select with ACCEL_ACCELERATOR=opencl",
                         reason);
        (void)n; /* a long file list may be cut short: still true */
        return;
    }
    api = accel_opencl_api(reason, sizeof reason);
    out->available = false;
    out->device_count = -1;
    if (api == NULL) {
        snprintf(out->reason, sizeof out->reason, "%s", reason);
        return;
    }
    if (accel_opencl_enumerate(api, &list, &count, reason, sizeof reason) != ACCEL_OK) {
        out->available = true; /* the loader works; listing devices did not */
        out->device_count = 0;
        snprintf(out->reason, sizeof out->reason, "%s", accel_last_error());
        return;
    }
    accelerators = opencl_prefer_accelerators(list, &count);
    out->device_count = count;
    if (count == 0) {
        out->available = true; /* the runtime is there; core reports "no device" */
        snprintf(out->reason, sizeof out->reason, "%s", reason[0] ? reason : "no OpenCL device");
    } else if (accelerators > 0) {
        out->available = true;
        snprintf(out->reason, sizeof out->reason, "%d GPU/accelerator device(s), first %.160s",
                 accelerators, list[0].name);
    } else {
        out->available = true;
        if (out->struct_size >= offsetof(accel_probe_result_t, explicit_only) + sizeof(bool))
            out->explicit_only = true;
        snprintf(out->reason, sizeof out->reason,
                 "only CPU OpenCL devices (%.160s); select with ACCEL_ACCELERATOR=opencl",
                 list[0].name);
    }
    free(list);
}

/* ---------------------------------------------------------------- device facts */

static void device_string(const accel_cl_api_t *api, accel_cl_device_id id,
                          accel_cl_device_info param, char *out, size_t cap)
{
    out[0] = '\0';
    if (api->clGetDeviceInfo(id, param, cap - 1, out, NULL) != ACCEL_CL_SUCCESS)
        out[0] = '\0';
    out[cap - 1] = '\0';
}

/* "OpenCL 3.0 ..." -> 3, 0; -1, -1 when it does not parse. */
static void parse_cl_version(const char *text, int *major, int *minor)
{
    if (sscanf(text, "OpenCL %d.%d", major, minor) != 2)
        *major = *minor = -1;
}

/* Whether the space-separated extension list holds `name` as a whole word. */
static bool has_extension(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *at = strstr(list, name); at != NULL; at = strstr(at + 1, name)) {
        bool starts = at == list || at[-1] == ' ';
        bool ends = at[len] == '\0' || at[len] == ' ';
        if (starts && ends)
            return true;
    }
    return false;
}

/* What building device code needs: an online compiler (else only cached
 * binaries could run), and whether float divide and sqrt may be asked to
 * round correctly (-cl-fp32-correctly-rounded-divide-sqrt). */
static void device_capabilities(const accel_cl_api_t *api, accel_cl_device_id id,
                                accel_opencl_device_t *dev)
{
    accel_cl_bool compiler = ACCEL_CL_FALSE;
    accel_cl_bitfield single = 0;
    if (api->clGetDeviceInfo(id, ACCEL_CL_DEVICE_COMPILER_AVAILABLE, sizeof compiler, &compiler,
                             NULL) != ACCEL_CL_SUCCESS)
        compiler = ACCEL_CL_FALSE;
    if (api->clGetDeviceInfo(id, ACCEL_CL_DEVICE_SINGLE_FP_CONFIG, sizeof single, &single, NULL) !=
        ACCEL_CL_SUCCESS)
        single = 0;
    dev->compiler_available = compiler != ACCEL_CL_FALSE;
    dev->correctly_rounded_div_sqrt = (single & ACCEL_CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
}

static void device_describe(const accel_cl_api_t *api, const accel_opencl_found_t *found,
                            accel_opencl_device_t *dev)
{
    char platform_version[128] = "";
    char *extensions;
    size_t ext_size = 0;
    accel_cl_ulong value = 0, half = 0, dbl = 0;
    accel_cl_uint units = 0;

    dev->platform = found->platform;
    dev->id = found->id;
    dev->type = found->type;
    snprintf(dev->name, sizeof dev->name, "%s", found->name);
    device_string(api, found->id, ACCEL_CL_DEVICE_VENDOR, dev->vendor, sizeof dev->vendor);
    device_string(api, found->id, ACCEL_CL_DRIVER_VERSION, dev->driver_version,
                  sizeof dev->driver_version);
    device_string(api, found->id, ACCEL_CL_DEVICE_VERSION, dev->device_version,
                  sizeof dev->device_version);
    if (api->clGetPlatformInfo(found->platform, ACCEL_CL_PLATFORM_VERSION,
                               sizeof platform_version - 1, platform_version,
                               NULL) == ACCEL_CL_SUCCESS)
        snprintf(dev->platform_version, sizeof dev->platform_version, "%s", platform_version);
    parse_cl_version(dev->device_version, &dev->version_major, &dev->version_minor);
    parse_cl_version(dev->platform_version, &dev->platform_major, &dev->platform_minor);
    if (api->clGetDeviceInfo(found->id, ACCEL_CL_DEVICE_GLOBAL_MEM_SIZE, sizeof value, &value,
                             NULL) == ACCEL_CL_SUCCESS)
        dev->global_mem_size = value;
    value = 0;
    if (api->clGetDeviceInfo(found->id, ACCEL_CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof value, &value,
                             NULL) == ACCEL_CL_SUCCESS)
        dev->max_alloc_size = value;
    dev->compute_units = -1;
    if (api->clGetDeviceInfo(found->id, ACCEL_CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units,
                             NULL) == ACCEL_CL_SUCCESS)
        dev->compute_units = (int)units;
    if (api->clGetDeviceInfo(found->id, ACCEL_CL_DEVICE_HALF_FP_CONFIG, sizeof half, &half, NULL) !=
        ACCEL_CL_SUCCESS)
        half = 0;
    if (api->clGetDeviceInfo(found->id, ACCEL_CL_DEVICE_DOUBLE_FP_CONFIG, sizeof dbl, &dbl, NULL) !=
        ACCEL_CL_SUCCESS)
        dbl = 0;
    dev->fp16 = half != 0;
    dev->fp64 = dbl != 0;
    device_capabilities(api, found->id, dev);
    if (api->clGetDeviceInfo(found->id, ACCEL_CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size) ==
            ACCEL_CL_SUCCESS &&
        (extensions = calloc(ext_size + 1, 1)) != NULL) {
        if (api->clGetDeviceInfo(found->id, ACCEL_CL_DEVICE_EXTENSIONS, ext_size, extensions,
                                 NULL) == ACCEL_CL_SUCCESS) {
            dev->fp16 = dev->fp16 || has_extension(extensions, "cl_khr_fp16");
            dev->fp64 = dev->fp64 || has_extension(extensions, "cl_khr_fp64");
        }
        free(extensions);
    }
}

/* ---------------------------------------------------------------- lifecycle */

static void opencl_free(accel_opencl_backend_t *cl)
{
    for (int d = 0; d < cl->device_count; d++)
        pthread_mutex_destroy(&cl->devices[d].kernel_lock);
    accel_opencl_range_map_destroy(&cl->buffers);
    accel_opencl_range_map_destroy(&cl->pinned);
    pthread_mutex_destroy(&cl->streams_lock);
    free(cl->devices);
    free(cl);
}

/* Loads the loader and lists devices (no context: init() makes those).
 * CPU devices are accepted here whatever the probe told auto-detect. */
static accel_status_t opencl_create(void **out_self)
{
    ACCEL_OPENCL_FORK_GUARD();
    char reason[256] = "";
    accel_opencl_found_t *list = NULL;
    int count = 0;
    accel_opencl_backend_t *cl;
    const accel_cl_api_t *api = accel_opencl_api(reason, sizeof reason);
    accel_status_t status;

    if (api == NULL)
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "opencl: %s", reason);
    status = accel_opencl_enumerate(api, &list, &count, reason, sizeof reason);
    if (status != ACCEL_OK)
        return status;
    opencl_prefer_accelerators(list, &count);
    if (count == 0) {
        free(list);
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "opencl: %s",
                                   reason[0] ? reason : "no OpenCL device");
    }
    cl = calloc(1, sizeof *cl);
    if (cl != NULL)
        cl->devices = calloc((size_t)count, sizeof *cl->devices);
    if (cl == NULL || cl->devices == NULL) {
        free(cl);
        free(list);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "opencl: out of host memory");
    }
    cl->api = api;
    cl->device_count = count;
    cl->page_size = sysconf(_SC_PAGESIZE);
    for (int d = 0; d < count; d++) {
        device_describe(api, &list[d], &cl->devices[d]);
        pthread_mutex_init(&cl->devices[d].kernel_lock, NULL);
        atomic_init(&cl->devices[d].allocated, 0);
    }
    free(list);
    accel_opencl_range_map_init(&cl->buffers);
    accel_opencl_range_map_init(&cl->pinned);
    pthread_mutex_init(&cl->streams_lock, NULL);
    *out_self = cl;
    return ACCEL_OK;
}

static void opencl_release_devices(accel_opencl_backend_t *cl)
{
    const accel_cl_api_t *api = cl->api;
    if (cl->pin_queue != NULL)
        api->clReleaseCommandQueue(cl->pin_queue);
    cl->pin_queue = NULL;
    for (int d = 0; d < cl->device_count; d++) {
        accel_opencl_device_t *dev = &cl->devices[d];
        accel_opencl_kernels_release(cl, dev);
        accel_opencl_queue_release(cl, &dev->default_queue);
        if (dev->context != NULL)
            api->clReleaseContext(dev->context);
        dev->context = NULL;
    }
}

/* Core releases every stream and allocation first. A program that leaked
 * streams still has their queues: the state is then left allocated. */
static void opencl_destroy(void *self)
{
    ACCEL_OPENCL_FORK_GUARD_VOID();
    accel_opencl_backend_t *cl = self;
    bool leaked;
    if (cl == NULL)
        return;
    pthread_mutex_lock(&cl->streams_lock);
    leaked = cl->streams != NULL;
    pthread_mutex_unlock(&cl->streams_lock);
    if (leaked) {
        accel_log(ACCEL_LOG_WARN, "opencl: backend closed with streams still alive; leaking them");
        return;
    }
    for (int d = 0; d < cl->device_count; d++) {
        if (cl->devices[d].default_queue.handle != NULL)
            cl->api->clFinish(cl->devices[d].default_queue.handle);
    }
    accel_opencl_memory_release_all(cl);
    opencl_release_devices(cl);
    opencl_free(cl);
}

/* One context and one default in-order queue per device. Kernels are built
 * on the first fill (kernels.c), so programs that never fill never compile. */
static accel_status_t opencl_init_device(accel_opencl_backend_t *cl, accel_opencl_device_t *dev)
{
    const accel_cl_context_properties props[] = {ACCEL_CL_CONTEXT_PLATFORM,
                                                 (accel_cl_context_properties)dev->platform, 0};
    accel_cl_int err = ACCEL_CL_SUCCESS;
    dev->context = cl->api->clCreateContext(props, 1, &dev->id, NULL, NULL, &err);
    if (err != ACCEL_CL_SUCCESS) {
        dev->context = NULL;
        return accel_opencl_fail("clCreateContext", err);
    }
    return accel_opencl_queue_init(cl, dev, &dev->default_queue);
}

static accel_status_t opencl_init(void *self)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    accel_status_t status = ACCEL_OK;
    for (int d = 0; d < cl->device_count && status == ACCEL_OK; d++)
        status = opencl_init_device(cl, &cl->devices[d]);
    if (status == ACCEL_OK)
        status = accel_opencl_queue_create(cl, &cl->devices[0], &cl->pin_queue);
    if (status != ACCEL_OK) {
        opencl_release_devices(cl);
        return status;
    }
    cl->initialized = true;
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- device queries */

static accel_status_t opencl_device_count(void *self, int *out)
{
    *out = ((accel_opencl_backend_t *)self)->device_count;
    return ACCEL_OK;
}

/* compute_major/minor carry the device's OpenCL version (3.0 on PoCL 3):
 * the nearest thing OpenCL has to a compute capability. */
static accel_status_t opencl_device_properties(void *self, int device,
                                               accel_device_properties_t *out)
{
    const accel_opencl_device_t *dev = &((accel_opencl_backend_t *)self)->devices[device];
    accel_device_properties_t props = {.struct_size = sizeof props};
    snprintf(props.name, sizeof props.name, "%s", dev->name);
    snprintf(props.vendor, sizeof props.vendor, "%s", dev->vendor);
    snprintf(props.driver_version, sizeof props.driver_version, "%s", dev->driver_version);
    props.total_memory = dev->global_mem_size;
    props.compute_major = dev->version_major;
    props.compute_minor = dev->version_minor;
    props.multiprocessor_count = dev->compute_units;
    return accel_device_properties_copy_out(out, &props);
}

/* OpenCL does not report free memory. free = total - what this backend has
 * allocated on the device (raw buffers, cached ones included); other
 * processes' use is not visible. */
static accel_status_t opencl_memory_info(void *self, int device, uint64_t *free_bytes,
                                         uint64_t *total_bytes)
{
    accel_opencl_device_t *dev = &((accel_opencl_backend_t *)self)->devices[device];
    uint64_t used = atomic_load(&dev->allocated);
    *total_bytes = dev->global_mem_size;
    *free_bytes = used < dev->global_mem_size ? dev->global_mem_size - used : 0;
    return ACCEL_OK;
}

/* Flags the info table answers are left to core (UNSUPPORTED = ask info). */
static accel_status_t opencl_query_flag(void *self, int device, accel_flag_t flag, bool *out)
{
    const accel_opencl_device_t *dev = &((accel_opencl_backend_t *)self)->devices[device];
    switch (flag) {
    case ACCEL_FLAG_IS_AVAILABLE:
    case ACCEL_FLAG_STREAMS_SUPPORTED:
    case ACCEL_FLAG_EVENTS_SUPPORTED: *out = true; return ACCEL_OK;
    case ACCEL_FLAG_FP16_SUPPORTED: *out = dev->fp16; return ACCEL_OK;
    case ACCEL_FLAG_BF16_SUPPORTED:   /* no bf16 arithmetic in OpenCL C */
    case ACCEL_FLAG_GRAPHS_SUPPORTED: /* cl_khr_command_buffer is not used */
    case ACCEL_FLAG_TRITON_SUPPORTED:
    case ACCEL_FLAG_PREFER_TRITON_GROUPED_MM: *out = false; return ACCEL_OK;
    default: return ACCEL_ERROR_UNSUPPORTED;
    }
}

/* float, then half where the device has cl_khr_fp16. */
static accel_status_t opencl_supported_dtypes(void *self, int device, accel_dtype_t *out,
                                              size_t cap, size_t *out_count)
{
    const accel_opencl_device_t *dev = &((accel_opencl_backend_t *)self)->devices[device];
    const accel_dtype_t all[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F16};
    size_t n = dev->fp16 ? 2 : 1;
    return accel_dtypes_copy_out("opencl", all, n, out, cap, out_count);
}

/* ---------------------------------------------------------------- the table */

static const accel_backend_ops_t opencl_ops = {
    ACCEL_BACKEND_OPS_HEAD(opencl),

    .device_count = opencl_device_count,
    .device_properties = opencl_device_properties,
    .set_device = NULL, /* no per-thread binding in OpenCL; core keeps the current device */
    .synchronize = accel_opencl_device_synchronize,
    .memory_info = opencl_memory_info,
    .query_flag = opencl_query_flag,
    .supported_dtypes = opencl_supported_dtypes,

    ACCEL_BACKEND_MEMORY_SLOTS(accel_opencl),
    ACCEL_BACKEND_PINNED_SLOTS(accel_opencl),
    ACCEL_BACKEND_REGISTER_SLOTS(accel_opencl),
    ACCEL_BACKEND_STREAM_SLOTS(accel_opencl),
    ACCEL_BACKEND_EVENT_SLOTS(accel_opencl),

    /* No graphs: cl_khr_command_buffer could record them, but it is not
     * implemented here, so core answers UNSUPPORTED. */
    .graph_capture_begin = NULL,
    .graph_capture_end = NULL,
    .graph_launch = NULL,
    .graph_destroy = NULL,

    .rng_fill = accel_opencl_rng_fill,

    .range_push = NULL, /* core's trace recorder records ranges */
    .range_pop = NULL,
    .fused_optim = &accel_opencl_fused_optim,
};

const accel_backend_ops_t *accel_opencl_backend_ops(void)
{
    return &opencl_ops;
}
