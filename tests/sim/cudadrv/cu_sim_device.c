/* cu_sim_device.c: the simulated CUDA driver's process state: cuInit, the
 * devices, primary contexts and the thread's current context, device and
 * pinned memory, and error names. Device memory is host memory with a
 * per-device capacity (ACCEL_SIM_DEVICE_MEMORY, default 1G), tracked
 * allocation by allocation, so copies and kernels can be checked against
 * where their pointers really are. Written from NVIDIA's CUDA Driver API
 * reference; tests/sim/README.md lists the rules it enforces. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_sim_internal.h"
#include "sim_alloc.h"

pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t sim_changed = PTHREAD_COND_INITIALIZER;
_Thread_local bool sim_in_host_fn;

static bool sim_initialized;
static bool sim_forked; /* this process is a child forked after cuInit */
static int sim_devices;
static size_t sim_capacity;
static size_t sim_used[SIM_MAX_DEVICES];
/* Device memory, cuMemHostAlloc blocks and cuMemHostRegister ranges (the
 * caller's: not ours to free). */
static sim_allocs_t sim_allocs;
static struct CUctx_st sim_contexts[SIM_MAX_DEVICES];
static _Thread_local CUcontext sim_current;

CUresult sim_error(CUresult code, const char *fmt, ...)
{
    const char *log = getenv("ACCEL_SIM_FAULT_LOG");
    if (log != NULL && strcmp(log, "1") == 0) {
        va_list args;
        va_start(args, fmt);
        fprintf(stderr, "cuda sim: error %d: ", (int)code);
        vfprintf(stderr, fmt, args);
        fputc('\n', stderr);
        va_end(args);
    }
    return code;
}

CUresult sim_enter(const char *function)
{
    int injected = sim_fault_hit(function);
    if (injected != 0)
        return sim_error((CUresult)injected, "%s: injected fault", function);
    /* CU-HOSTFN (cuLaunchHostFunc: "CUDA functions may not be called from
     * within the host function"). */
    if (sim_in_host_fn)
        return sim_error(CUDA_ERROR_NOT_PERMITTED,
                         "%s: called from a host function (cuLaunchHostFunc), which CUDA forbids",
                         function);
    /* CU-INIT: nothing in a child forked after cuInit (cuInit). */
    if (sim_forked)
        return sim_error(CUDA_ERROR_NOT_INITIALIZED,
                         "%s: CUDA was initialised before this process forked", function);
    return CUDA_SUCCESS;
}

static void sim_after_fork_child(void)
{
    if (sim_initialized)
        sim_forked = true;
}

static void sim_atfork_install(void)
{
    pthread_atfork(NULL, NULL, sim_after_fork_child);
}

SIM_API CUresult cuInit(unsigned int flags)
{
    static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
    SIM_ENTER("cuInit");
    /* Test-only broken mode of rule CU-STUB: answer as the CUDA toolkit's
     * stub libcuda.so does, to every cuInit. */
    if (sim_rule_broken("CU-STUB"))
        return sim_error(CUDA_ERROR_STUB_LIBRARY, "cuInit: this is the toolkit's stub library");
    if (flags != 0)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuInit: flags must be 0, not %u", flags);
    pthread_once(&atfork_once, sim_atfork_install);
    pthread_mutex_lock(&sim_lock);
    if (!sim_initialized) {
        sim_devices = sim_visible_devices("CUDA_VISIBLE_DEVICES",
                                          sim_fault_device_count(2, SIM_MAX_DEVICES), false);
        sim_capacity = sim_device_capacity();
        for (int d = 0; d < SIM_MAX_DEVICES; d++)
            sim_contexts[d].device = d;
        sim_initialized = true;
    }
    pthread_mutex_unlock(&sim_lock);
    if (sim_devices == 0)
        return sim_error(CUDA_ERROR_NO_DEVICE, "cuInit: no devices (ACCEL_SIM_DEVICES=0)");
    return CUDA_SUCCESS;
}

/* CU-INIT: nothing before cuInit (cuInit). */
CUresult sim_need_init(const char *function)
{
    bool ready;
    pthread_mutex_lock(&sim_lock);
    ready = sim_initialized && sim_devices > 0;
    pthread_mutex_unlock(&sim_lock);
    return ready ? CUDA_SUCCESS
                 : sim_error(CUDA_ERROR_NOT_INITIALIZED, "%s: before cuInit", function);
}

/* The driver's version: ACCEL_SIM_CUDA_DRIVER_VERSION, default 13000 (NVRTC
 * must not be newer: the backend refuses one that is). */
SIM_API CUresult cuDriverGetVersion(int *version)
{
    const char *text = getenv("ACCEL_SIM_CUDA_DRIVER_VERSION");
    SIM_ENTER("cuDriverGetVersion");
    if (version == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuDriverGetVersion: version is NULL");
    *version = text != NULL ? atoi(text) : 13000;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGetCount(int *count)
{
    CUresult code;
    SIM_ENTER("cuDeviceGetCount");
    if ((code = sim_need_init("cuDeviceGetCount")) != CUDA_SUCCESS)
        return code;
    if (count == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuDeviceGetCount: count is NULL");
    *count = sim_devices;
    return CUDA_SUCCESS;
}

/* CUDA_SUCCESS when `dev` names a device. */
static CUresult sim_check_device(CUdevice dev, const char *function)
{
    CUresult code = sim_need_init(function);
    if (code != CUDA_SUCCESS)
        return code;
    if (dev < 0 || dev >= sim_devices)
        return sim_error(CUDA_ERROR_INVALID_DEVICE, "%s: no device %d", function, dev);
    return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    CUresult code;
    SIM_ENTER("cuDeviceGet");
    if ((code = sim_check_device(ordinal, "cuDeviceGet")) != CUDA_SUCCESS)
        return code;
    if (device == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuDeviceGet: device is NULL");
    *device = ordinal;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult code;
    SIM_ENTER("cuDeviceGetName");
    if ((code = sim_check_device(dev, "cuDeviceGetName")) != CUDA_SUCCESS)
        return code;
    if (name == NULL || len <= 0)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuDeviceGetName: name NULL or len %d", len);
    snprintf(name, (size_t)len, "Simulated CUDA device (tests/sim)");
    return CUDA_SUCCESS;
}

/* The compute capability: ACCEL_SIM_CUDA_CC ("9.0" by default). */
void sim_compute_capability(int *major, int *minor)
{
    const char *text = getenv("ACCEL_SIM_CUDA_CC");
    *major = 9;
    *minor = 0;
    if (text != NULL && sscanf(text, "%d.%d", major, minor) != 2) {
        *major = 9;
        *minor = 0;
    }
}

int sim_device_arch(void)
{
    int major, minor;
    sim_compute_capability(&major, &minor);
    return major * 10 + minor;
}

SIM_API CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice dev)
{
    CUresult code;
    int major, minor;
    SIM_ENTER("cuDeviceGetAttribute");
    if ((code = sim_check_device(dev, "cuDeviceGetAttribute")) != CUDA_SUCCESS)
        return code;
    if (value == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuDeviceGetAttribute: value is NULL");
    sim_compute_capability(&major, &minor);
    switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = 49152; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 4; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *value = dev + 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = minor; break;
    default:
        return sim_error(CUDA_ERROR_INVALID_VALUE,
                         "cuDeviceGetAttribute: attribute %d is not simulated", attribute);
    }
    return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CUresult code;
    SIM_ENTER("cuDeviceTotalMem_v2");
    if ((code = sim_check_device(dev, "cuDeviceTotalMem_v2")) != CUDA_SUCCESS)
        return code;
    if (bytes == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuDeviceTotalMem_v2: bytes is NULL");
    *bytes = sim_capacity;
    return CUDA_SUCCESS;
}

static CUresult sim_uuid(CUuuid *uuid, CUdevice dev, const char *function)
{
    CUresult code = sim_check_device(dev, function);
    if (code != CUDA_SUCCESS)
        return code;
    if (uuid == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "%s: uuid is NULL", function);
    for (int i = 0; i < 16; i++)
        uuid->bytes[i] = (char)(0x5a ^ (i * 17) ^ dev);
    return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    SIM_ENTER("cuDeviceGetUuid");
    return sim_uuid(uuid, dev, "cuDeviceGetUuid");
}

SIM_API CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    SIM_ENTER("cuDeviceGetUuid_v2");
    return sim_uuid(uuid, dev, "cuDeviceGetUuid_v2");
}

SIM_API CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    CUresult code;
    SIM_ENTER("cuDeviceGetPCIBusId");
    if ((code = sim_check_device(dev, "cuDeviceGetPCIBusId")) != CUDA_SUCCESS)
        return code;
    if (pciBusId == NULL || len < 13)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuDeviceGetPCIBusId: buffer NULL or len %d",
                         len);
    snprintf(pciBusId, (size_t)len, "0000:%02x:00.0", dev + 1);
    return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- contexts */

SIM_API CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult code;
    SIM_ENTER("cuDevicePrimaryCtxRetain");
    if ((code = sim_check_device(dev, "cuDevicePrimaryCtxRetain")) != CUDA_SUCCESS)
        return code;
    if (pctx == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuDevicePrimaryCtxRetain: pctx is NULL");
    pthread_mutex_lock(&sim_lock);
    sim_contexts[dev].refs++;
    pthread_mutex_unlock(&sim_lock);
    *pctx = &sim_contexts[dev];
    return CUDA_SUCCESS;
}

/* The last release resets the device: its streams, events and memory go,
 * and a sticky error is cleared. The handle stays valid (for a later
 * retain) but is not usable until retained again. */
SIM_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CUresult code;
    bool reset;
    SIM_ENTER("cuDevicePrimaryCtxRelease_v2");
    if ((code = sim_check_device(dev, "cuDevicePrimaryCtxRelease_v2")) != CUDA_SUCCESS)
        return code;
    pthread_mutex_lock(&sim_lock);
    if (sim_contexts[dev].refs == 0) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(CUDA_ERROR_INVALID_CONTEXT,
                         "cuDevicePrimaryCtxRelease_v2: device %d's context is not retained", dev);
    }
    reset = --sim_contexts[dev].refs == 0;
    pthread_mutex_unlock(&sim_lock);
    if (reset) {
        sim_streams_drain(dev, true);
        sim_events_drop(dev);
        sim_device_reset(dev);
        pthread_mutex_lock(&sim_lock);
        sim_contexts[dev].sticky = CUDA_SUCCESS;
        pthread_mutex_unlock(&sim_lock);
    }
    return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxSetCurrent(CUcontext ctx)
{
    CUresult code;
    SIM_ENTER("cuCtxSetCurrent");
    if ((code = sim_need_init("cuCtxSetCurrent")) != CUDA_SUCCESS)
        return code;
    if (ctx != NULL && (ctx < &sim_contexts[0] || ctx >= &sim_contexts[sim_devices]))
        return sim_error(CUDA_ERROR_INVALID_CONTEXT, "cuCtxSetCurrent: %p is not a context",
                         (void *)ctx);
    sim_current = ctx;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    CUresult code;
    SIM_ENTER("cuCtxGetCurrent");
    if ((code = sim_need_init("cuCtxGetCurrent")) != CUDA_SUCCESS)
        return code;
    if (pctx == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuCtxGetCurrent: pctx is NULL");
    *pctx = sim_current;
    return CUDA_SUCCESS;
}

/* The device of the thread's current context (CUDA_ERROR_INVALID_CONTEXT
 * without one, the context's sticky error after a bad kernel access). */
SIM_API CUresult cuCtxGetDevice(CUdevice *device)
{
    CUresult code;
    CUcontext ctx;
    SIM_ENTER("cuCtxGetDevice");
    if ((ctx = sim_need_context("cuCtxGetDevice", &code)) == NULL)
        return code;
    if (device == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuCtxGetDevice: device is NULL");
    *device = ctx->device;
    return CUDA_SUCCESS;
}

CUcontext sim_need_context(const char *function, CUresult *code)
{
    CUcontext ctx = sim_current;
    unsigned refs;
    CUresult sticky;
    if ((*code = sim_need_init(function)) != CUDA_SUCCESS)
        return NULL;
    if (ctx == NULL) {
        *code = sim_error(CUDA_ERROR_INVALID_CONTEXT, "%s: no current context", function);
        return NULL;
    }
    pthread_mutex_lock(&sim_lock);
    refs = ctx->refs;
    sticky = ctx->sticky;
    pthread_mutex_unlock(&sim_lock);
    if (refs == 0) {
        *code =
            sim_error(CUDA_ERROR_INVALID_CONTEXT,
                      "%s: the current context (device %d) was released", function, ctx->device);
        return NULL;
    }
    if (sticky != CUDA_SUCCESS) {
        *code = sim_error(sticky, "%s: the context has a sticky error from an earlier kernel",
                          function);
        return NULL;
    }
    return ctx;
}

SIM_API CUresult cuCtxSynchronize(void)
{
    CUresult code;
    CUcontext ctx;
    SIM_ENTER("cuCtxSynchronize");
    if ((ctx = sim_need_context("cuCtxSynchronize", &code)) == NULL)
        return code;
    /* CAP-SYNC-CTX (CUDA programming guide, stream capture, "Prohibited and
     * Unhandled Operations"): a context with a capturing stream may not be
     * synchronized; error 900's text. Test-only broken mode of rule
     * CAP-SYNC-CTX: the synchronize is let through. */
    if (!sim_rule_broken("CAP-SYNC-CTX") &&
        (code = sim_device_capture_conflict(ctx->device, false, "cuCtxSynchronize")) !=
            CUDA_SUCCESS)
        return code;
    sim_streams_drain(ctx->device, false);
    pthread_mutex_lock(&sim_lock);
    code = ctx->sticky;
    pthread_mutex_unlock(&sim_lock);
    return code;
}

void sim_context_poison(int device, CUresult code)
{
    pthread_mutex_lock(&sim_lock);
    if (sim_contexts[device].sticky == CUDA_SUCCESS)
        sim_contexts[device].sticky = code;
    pthread_mutex_unlock(&sim_lock);
}

/* ---------------------------------------------------------------- memory */

sim_mem_kind_t sim_memory_kind(const void *ptr, size_t size, int *device)
{
    sim_mem_kind_t kind = SIM_MEM_HOST;
    pthread_mutex_lock(&sim_lock);
    sim_alloc_t *a = sim_allocs_find(&sim_allocs, ptr, size > 0 ? size : 1, SIM_ALLOC_ANY);
    if (a != NULL) {
        kind = a->kind == SIM_ALLOC_DEVICE ? SIM_MEM_DEVICE : SIM_MEM_PINNED;
        if (device != NULL)
            *device = a->device;
    }
    pthread_mutex_unlock(&sim_lock);
    return kind;
}

static CUresult sim_track(char *base, size_t size, int device, sim_alloc_kind_t kind,
                          const char *function)
{
    bool recorded;
    pthread_mutex_lock(&sim_lock);
    recorded = sim_allocs_add(&sim_allocs, base, size, device, kind);
    pthread_mutex_unlock(&sim_lock);
    if (!recorded)
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "%s: out of host memory", function);
    return CUDA_SUCCESS;
}

/* Removes the allocation that starts at `ptr` and is of `kind`; false when
 * there is none. */
static bool sim_untrack(const void *ptr, sim_alloc_kind_t kind)
{
    sim_alloc_t taken;
    bool found;
    pthread_mutex_lock(&sim_lock);
    found = sim_allocs_take(&sim_allocs, ptr, kind, &taken);
    if (found && kind == SIM_ALLOC_DEVICE)
        sim_used[taken.device] -= taken.size;
    pthread_mutex_unlock(&sim_lock);
    return found;
}

size_t sim_device_capacity(void)
{
    return sim_fault_env_size("ACCEL_SIM_DEVICE_MEMORY", (size_t)1 << 30);
}

size_t sim_device_used(int device)
{
    size_t used = 0;
    pthread_mutex_lock(&sim_lock);
    if (device >= 0 && device < SIM_MAX_DEVICES)
        used = sim_used[device];
    pthread_mutex_unlock(&sim_lock);
    return used;
}

CUresult sim_device_alloc(int device, size_t size, void **out, const char *function)
{
    char *base;
    bool fits;
    CUresult code;
    if (size == 0)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "%s: size is 0", function);
    if (sim_fault_alloc_refused(size))
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY,
                         "%s: %zu bytes refused (ACCEL_SIM_FAIL_ALLOC_ABOVE)", function, size);
    pthread_mutex_lock(&sim_lock);
    fits = size <= sim_capacity - sim_used[device];
    if (fits)
        sim_used[device] += size;
    pthread_mutex_unlock(&sim_lock);
    if (!fits)
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "%s: %zu bytes do not fit on device %d",
                         function, size, device);
    /* 256-byte aligned, as cuMemAlloc's are; never NULL for a live block. */
    base = aligned_alloc(256, (size + 255) & ~(size_t)255);
    if (base == NULL ||
        (code = sim_track(base, size, device, SIM_ALLOC_DEVICE, function)) != CUDA_SUCCESS) {
        free(base);
        pthread_mutex_lock(&sim_lock);
        sim_used[device] -= size;
        pthread_mutex_unlock(&sim_lock);
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "%s: out of host memory", function);
    }
    *out = base;
    return CUDA_SUCCESS;
}

bool sim_device_free(void *ptr)
{
    if (!sim_untrack(ptr, SIM_ALLOC_DEVICE))
        return false;
    free(ptr);
    return true;
}

void sim_device_reset(int device)
{
    sim_alloc_t taken;
    pthread_mutex_lock(&sim_lock);
    while (sim_allocs_take_device(&sim_allocs, device, SIM_ALLOC_DEVICE, &taken)) {
        sim_used[device] -= taken.size;
        free(taken.base);
    }
    pthread_mutex_unlock(&sim_lock);
}

SIM_API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    CUresult code;
    CUcontext ctx;
    void *ptr = NULL;
    SIM_ENTER("cuMemAlloc_v2");
    if ((ctx = sim_need_context("cuMemAlloc_v2", &code)) == NULL)
        return code;
    if (dptr == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc_v2: dptr is NULL");
    if ((code = sim_device_alloc(ctx->device, bytesize, &ptr, "cuMemAlloc_v2")) != CUDA_SUCCESS)
        return code;
    *dptr = (CUdeviceptr)(uintptr_t)ptr;
    return CUDA_SUCCESS;
}

/* cuMemFree is synchronous with the device: it waits for the device's work. */
SIM_API CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    CUresult code;
    CUcontext ctx;
    SIM_ENTER("cuMemFree_v2");
    if ((ctx = sim_need_context("cuMemFree_v2", &code)) == NULL)
        return code;
    /* CAP-FREE (cuThreadExchangeStreamCaptureMode): cuMemFree is an unsafe
     * call, refused under a GLOBAL capture or this thread's THREAD_LOCAL
     * one; RELAXED permits it. */
    if ((code = sim_device_capture_conflict(ctx->device, true, "cuMemFree_v2")) != CUDA_SUCCESS)
        return code;
    sim_streams_drain(ctx->device, false);
    if (!sim_device_free((void *)(uintptr_t)dptr))
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuMemFree_v2: %#llx is not an allocation",
                         dptr);
    return CUDA_SUCCESS;
}

SIM_API CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    CUresult code;
    CUcontext ctx;
    SIM_ENTER("cuMemGetInfo_v2");
    if ((ctx = sim_need_context("cuMemGetInfo_v2", &code)) == NULL)
        return code;
    if (free_bytes == NULL || total == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuMemGetInfo_v2: an output is NULL");
    pthread_mutex_lock(&sim_lock);
    *free_bytes = sim_capacity - sim_used[ctx->device];
    *total = sim_capacity;
    pthread_mutex_unlock(&sim_lock);
    return CUDA_SUCCESS;
}

/* Pinned host memory needs a current context (any), as CUDA's does. */
SIM_API CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    CUresult code;
    char *base;
    SIM_ENTER("cuMemHostAlloc");
    if (sim_need_context("cuMemHostAlloc", &code) == NULL)
        return code;
    if (pp == NULL || bytesize == 0 ||
        (Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                             CU_MEMHOSTALLOC_WRITECOMBINED)) != 0)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuMemHostAlloc: pp NULL, size 0 or flags %#x",
                         Flags);
    if (sim_fault_alloc_refused(bytesize))
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "cuMemHostAlloc: %zu bytes refused", bytesize);
    base = aligned_alloc(4096, (bytesize + 4095) & ~(size_t)4095);
    if (base == NULL)
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "cuMemHostAlloc: out of host memory");
    if ((code = sim_track(base, bytesize, -1, SIM_ALLOC_PINNED, "cuMemHostAlloc")) !=
        CUDA_SUCCESS) {
        free(base);
        return code;
    }
    *pp = base;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuMemFreeHost(void *p)
{
    CUresult code;
    SIM_ENTER("cuMemFreeHost");
    if (sim_need_context("cuMemFreeHost", &code) == NULL)
        return code;
    if (!sim_untrack(p, SIM_ALLOC_PINNED))
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuMemFreeHost: %p is not from cuMemHostAlloc",
                         p);
    free(p);
    return CUDA_SUCCESS;
}

SIM_API CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    CUresult code;
    bool overlaps;
    SIM_ENTER("cuMemHostRegister_v2");
    if (sim_need_context("cuMemHostRegister_v2", &code) == NULL)
        return code;
    if (p == NULL || bytesize == 0 ||
        (Flags & ~(unsigned)(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP)) != 0)
        return sim_error(CUDA_ERROR_INVALID_VALUE,
                         "cuMemHostRegister_v2: p NULL, size 0 or flags %#x", Flags);
    pthread_mutex_lock(&sim_lock);
    overlaps = sim_allocs_overlap(&sim_allocs, p, bytesize);
    pthread_mutex_unlock(&sim_lock);
    if (overlaps)
        return sim_error(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                         "cuMemHostRegister_v2: %p overlaps pinned or device memory", p);
    return sim_track(p, bytesize, -1, SIM_ALLOC_REGISTERED, "cuMemHostRegister_v2");
}

SIM_API CUresult cuMemHostUnregister(void *p)
{
    CUresult code;
    SIM_ENTER("cuMemHostUnregister");
    if (sim_need_context("cuMemHostUnregister", &code) == NULL)
        return code;
    if (!sim_untrack(p, SIM_ALLOC_REGISTERED))
        return sim_error(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
                         "cuMemHostUnregister: %p was not registered", p);
    return CUDA_SUCCESS;
}

/* What the driver knows of an address: the allocation holding it (device
 * memory, or pinned memory: allocated or registered), as CUDA reports it;
 * CUDA_ERROR_INVALID_VALUE for pageable memory, as CUDA answers. Only the
 * attributes cu_sim.h lists are simulated (CUDA_ERROR_NOT_SUPPORTED for the
 * others, and for the device ordinal of pinned memory, whose context the sim
 * does not record). Needs cuInit, not a current context. */
SIM_API CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr)
{
    CUresult code;
    sim_alloc_t found;
    bool known = false;
    SIM_ENTER("cuPointerGetAttribute");
    if ((code = sim_need_init("cuPointerGetAttribute")) != CUDA_SUCCESS)
        return code;
    if (data == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuPointerGetAttribute: data is NULL");
    pthread_mutex_lock(&sim_lock);
    sim_alloc_t *a = sim_allocs_find(&sim_allocs, (const void *)(uintptr_t)ptr, 1, SIM_ALLOC_ANY);
    if (a != NULL) {
        found = *a;
        known = true;
    }
    pthread_mutex_unlock(&sim_lock);
    if (!known)
        return sim_error(CUDA_ERROR_INVALID_VALUE,
                         "cuPointerGetAttribute: %#llx is neither device nor pinned memory", ptr);
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned int *)data =
            found.kind == SIM_ALLOC_DEVICE ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        if (found.kind != SIM_ALLOC_DEVICE)
            return sim_error(CUDA_ERROR_NOT_SUPPORTED,
                             "cuPointerGetAttribute: the device ordinal of pinned memory is not "
                             "simulated");
        *(int *)data = found.device;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = (CUdeviceptr)(uintptr_t)found.base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = found.size; return CUDA_SUCCESS;
    default:
        return sim_error(CUDA_ERROR_NOT_SUPPORTED,
                         "cuPointerGetAttribute: attribute %d is not simulated", attribute);
    }
}

/* ---------------------------------------------------------------- error text */

static const struct {
    CUresult code;
    const char *name, *text;
} sim_errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE",
     "the operation cannot be performed in the present state"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "operation failed due to a previous error during capture"},
    {CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
     "the capture was not initiated in this stream"},
    {CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
     "the capture sequence contains a fork that was not joined to the primary stream"},
    {CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
     "a dependency would have been created which crosses the capture sequence boundary"},
    {CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
     "the operation would make the legacy stream depend on a capturing blocking stream"},
    {CUDA_ERROR_CAPTURED_EVENT, "CUDA_ERROR_CAPTURED_EVENT",
     "operation not permitted on an event last recorded in a capturing stream"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

/* Unknown codes: CUDA_ERROR_INVALID_VALUE with *pStr NULL, as documented. */
static CUresult sim_error_text(CUresult error, const char **pStr, bool name)
{
    if (pStr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof sim_errors / sizeof sim_errors[0]; i++)
        if (sim_errors[i].code == error) {
            *pStr = name ? sim_errors[i].name : sim_errors[i].text;
            return CUDA_SUCCESS;
        }
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

/* Callable before cuInit, and from host functions (no SIM_ENTER check of
 * those): they touch no state. Faults still inject. */
SIM_API CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    int injected = sim_fault_hit("cuGetErrorName");
    if (injected != 0)
        return (CUresult)injected;
    return sim_error_text(error, pStr, true);
}

SIM_API CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    int injected = sim_fault_hit("cuGetErrorString");
    if (injected != 0)
        return (CUresult)injected;
    return sim_error_text(error, pStr, false);
}
