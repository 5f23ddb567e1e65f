/* cnrt_sim_device.c: the simulated CNRT's devices, memory and error text.
 * Device memory is host memory with a per-device capacity
 * (ACCEL_SIM_DEVICE_MEMORY, default 1G), tracked allocation by allocation so
 * that copies can be checked against their direction. Written from
 * vendor-apis.md §3; tests/sim/README.md lists what it models and the
 * variables it reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cnrt_sim_internal.h"
#include "sim_alloc.h"
#include "sim_thread.h"

pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t sim_changed = PTHREAD_COND_INITIALIZER;

static int sim_devices = -1;
static size_t sim_capacity;
static size_t sim_used[SIM_MAX_DEVICES];
static sim_allocs_t sim_allocs; /* device and pinned memory */

int sim_device_count(void)
{
    pthread_mutex_lock(&sim_lock);
    if (sim_devices < 0) {
        sim_devices = sim_visible_devices("MLU_VISIBLE_DEVICES",
                                          sim_fault_device_count(2, SIM_MAX_DEVICES), false);
        sim_capacity = sim_fault_env_size("ACCEL_SIM_DEVICE_MEMORY", (size_t)1 << 30);
    }
    pthread_mutex_unlock(&sim_lock);
    return sim_devices;
}

int sim_current_device(void)
{
    return sim_thread_device(-1);
}

cnrtRet_t sim_need_device(void)
{
    return sim_current_device() < 0 ? cnrtErrorNoCnrtContext : cnrtSuccess;
}

/* ---------------------------------------------------------------- devices */

SIM_API cnrtRet_t cnrtGetDeviceCount(unsigned int *pCount)
{
    int count;
    SIM_ENTER("cnrtGetDeviceCount");
    if (pCount == NULL)
        return cnrtErrorArgsInvalid;
    count = sim_device_count();
    if (count == 0)
        return cnrtErrorNoDevice;
    *pCount = (unsigned int)count;
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtSetDevice(int ordinal)
{
    SIM_ENTER("cnrtSetDevice");
    if (ordinal < 0 || ordinal >= sim_device_count())
        return cnrtErrorDeviceInvalid;
    sim_thread_set_device(ordinal);
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtGetDevice(int *pOrdinal)
{
    SIM_ENTER("cnrtGetDevice");
    if (pOrdinal == NULL)
        return cnrtErrorArgsInvalid;
    if (sim_current_device() < 0)
        return cnrtErrorNoCnrtContext;
    *pOrdinal = sim_current_device();
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtSyncDevice(void)
{
    SIM_ENTER("cnrtSyncDevice");
    if (sim_need_device() != cnrtSuccess)
        return cnrtErrorNoCnrtContext;
    /* Harsher (torch_mlu caching_allocator.cpp asserts no capture before
     * its syncing release): refused during a capture, which it invalidates. */
    if (sim_device_capture_conflict(sim_current_device()) != cnrtSuccess)
        return cnrtErrorQueueCaptureUnsupported;
    sim_queues_drain(sim_current_device());
    return cnrtSuccess;
}

/* The name from ACCEL_SIM_MLU_NAME (default "MLU370-X8"). */
SIM_API cnrtRet_t cnrtGetDeviceProperties(cnrtDeviceProp_t *prop, int device)
{
    const char *name = getenv("ACCEL_SIM_MLU_NAME");
    SIM_ENTER("cnrtGetDeviceProperties");
    if (prop == NULL)
        return cnrtErrorArgsInvalid;
    if (device < 0 || device >= sim_device_count())
        return cnrtErrorDeviceInvalid;
    snprintf(prop->name, sizeof prop->name, "%s", name != NULL ? name : "MLU370-X8");
    return cnrtSuccess;
}

/* bf16 from ACCEL_SIM_MLU_BF16 (default 1). */
SIM_API cnrtRet_t cnrtDeviceGetAttribute(int *pValue, cnrtDeviceAttr_t attr, int device)
{
    const char *bf16 = getenv("ACCEL_SIM_MLU_BF16");
    SIM_ENTER("cnrtDeviceGetAttribute");
    if (pValue == NULL)
        return cnrtErrorArgsInvalid;
    if (device < 0 || device >= sim_device_count())
        return cnrtErrorDeviceInvalid;
    switch (attr) {
    case cnrtAttrComputeCapabilityMajor: *pValue = 3; break;
    case cnrtAttrComputeCapabilityMinor: *pValue = 0; break;
    case cnrtAttrFP16ComputingSupported: *pValue = 1; break;
    case cnrtAttrBF16ComputingSupported: *pValue = bf16 == NULL || strcmp(bf16, "0") != 0; break;
    case cnrtAttrClusterCount: *pValue = 8; break;
    case cnrtAttrMcorePerCluster: *pValue = 4; break;
    case cnrtAttrMaxL2CacheSize: *pValue = 48 << 20; break;
    case cnrtAttrTotalMemSize: *pValue = (int)(sim_capacity >> 20); break;
    default: return cnrtErrorArgsInvalid;
    }
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtGetLibVersion(int *major, int *minor, int *patch)
{
    SIM_ENTER("cnrtGetLibVersion");
    if (major == NULL || minor == NULL || patch == NULL)
        return cnrtErrorArgsInvalid;
    *major = 6, *minor = 0, *patch = 2;
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtDriverGetVersion(int *major, int *minor, int *patch)
{
    SIM_ENTER("cnrtDriverGetVersion");
    if (major == NULL || minor == NULL || patch == NULL)
        return cnrtErrorArgsInvalid;
    *major = 5, *minor = 10, *patch = 22;
    return cnrtSuccess;
}

/* ---------------------------------------------------------------- error text */

static const struct {
    cnrtRet_t code;
    const char *name, *text;
} sim_codes[] = {
    {cnrtSuccess, "cnrtSuccess", "no error"},
    {cnrtErrorNotReady, "cnrtErrorNotReady", "the device or resource is busy"},
    {cnrtErrorInit, "cnrtErrorInit", "initialization of CNRT failed"},
    {cnrtErrorNoDevice, "cnrtErrorNoDevice", "no MLU device was found"},
    {cnrtErrorDeviceInvalid, "cnrtErrorDeviceInvalid", "the device ordinal is out of range"},
    {cnrtErrorArgsInvalid, "cnrtErrorArgsInvalid", "a parameter is invalid or out of range"},
    {cnrtErrorSysNoMem, "cnrtErrorSysNoMem", "not enough host memory"},
    {cnrtErrorInvalidResourceHandle, "cnrtErrorInvalidResourceHandle",
     "the resource handle is invalid"},
    {cnrtErrorIllegalState, "cnrtErrorIllegalState", "the resource is not in a valid state"},
    {cnrtErrorNotSupport, "cnrtErrorNotSupport", "the feature is not supported"},
    {cnrtErrorNoMem, "cnrtErrorNoMem", "not enough MLU device memory"},
    {cnrtErrorQueueCaptureUnsupported, "cnrtErrorQueueCaptureUnsupported",
     "the operation is not permitted while the queue is capturing"},
    {cnrtErrorQueueCaptureInvalidated, "cnrtErrorQueueCaptureInvalidated",
     "the capture was invalidated"},
    {cnrtErrorDevice, "cnrtErrorDevice", "the resource is not from the current device"},
    {cnrtErrorMemcpyDirectionInvalid, "cnrtErrorMemcpyDirectionInvalid",
     "the copy direction does not match the memory"},
    {cnrtErrorBusy, "cnrtErrorBusy", "the device or resource is busy"},
    {cnrtErrorNoCnrtContext, "cnrtErrorNoCnrtContext", "no CNRT context on this thread"},
    {cnrtErrorUnknown, "cnrtErrorUnknown", "unknown error"},
};

/* NULL when a fault is injected (the function has no code to return). */
SIM_API const char *cnrtGetErrorName(cnrtRet_t error)
{
    if (sim_fault_hit("cnrtGetErrorName") != 0)
        return NULL;
    for (size_t i = 0; i < sizeof sim_codes / sizeof sim_codes[0]; i++)
        if (sim_codes[i].code == error)
            return sim_codes[i].name;
    return "cnrtErrorUnknown";
}

SIM_API const char *cnrtGetErrorStr(cnrtRet_t error)
{
    if (sim_fault_hit("cnrtGetErrorStr") != 0)
        return NULL;
    for (size_t i = 0; i < sizeof sim_codes / sizeof sim_codes[0]; i++)
        if (sim_codes[i].code == error)
            return sim_codes[i].text;
    return "an error the simulated runtime does not know";
}

/* ---------------------------------------------------------------- memory */

bool sim_is_device_range(const void *ptr, size_t size)
{
    bool found;
    pthread_mutex_lock(&sim_lock);
    found = sim_allocs_find(&sim_allocs, ptr, size, SIM_ALLOC_DEVICE) != NULL;
    pthread_mutex_unlock(&sim_lock);
    return found;
}

/* Device memory on `device`, or pinned host memory (-1). */
static cnrtRet_t sim_allocate(void **pPtr, size_t bytes, int device)
{
    void *base;
    if (pPtr == NULL || bytes == 0)
        return cnrtErrorArgsInvalid;
    if (sim_fault_alloc_refused(bytes))
        return device >= 0 ? cnrtErrorNoMem : cnrtErrorSysNoMem;
    pthread_mutex_lock(&sim_lock);
    if (device >= 0 && bytes > sim_capacity - sim_used[device]) {
        pthread_mutex_unlock(&sim_lock);
        return cnrtErrorNoMem;
    }
    base = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (base == NULL || !sim_allocs_add(&sim_allocs, base, bytes, device,
                                        device >= 0 ? SIM_ALLOC_DEVICE : SIM_ALLOC_PINNED)) {
        pthread_mutex_unlock(&sim_lock);
        free(base);
        return device >= 0 ? cnrtErrorNoMem : cnrtErrorSysNoMem;
    }
    if (device >= 0)
        sim_used[device] += bytes;
    pthread_mutex_unlock(&sim_lock);
    *pPtr = base;
    return cnrtSuccess;
}

/* Frees the allocation that starts at `ptr` and is of the right kind. */
static cnrtRet_t sim_release(void *ptr, bool device)
{
    sim_alloc_t found;
    bool taken;
    pthread_mutex_lock(&sim_lock);
    taken = sim_allocs_take(&sim_allocs, ptr, device ? SIM_ALLOC_DEVICE : SIM_ALLOC_PINNED, &found);
    if (taken && device)
        sim_used[found.device] -= found.size;
    pthread_mutex_unlock(&sim_lock);
    if (!taken)
        return cnrtErrorArgsInvalid;
    free(found.base);
    return cnrtSuccess;
}

SIM_API cnrtRet_t cnrtMalloc(void **pPtr, size_t bytes)
{
    SIM_ENTER("cnrtMalloc");
    if (sim_need_device() != cnrtSuccess)
        return cnrtErrorNoCnrtContext;
    return sim_allocate(pPtr, bytes, sim_current_device());
}

SIM_API cnrtRet_t cnrtFree(void *ptr)
{
    SIM_ENTER("cnrtFree");
    if (sim_need_device() != cnrtSuccess)
        return cnrtErrorNoCnrtContext;
    /* CNRT-CAP-FREE, harsher (torch_mlu caching_allocator.cpp frees no
     * cached chunk while a capture is underway): refused then, and the
     * capture invalidated. */
    if (sim_device_capture_conflict(sim_current_device()) != cnrtSuccess)
        return cnrtErrorQueueCaptureUnsupported;
    return sim_release(ptr, true);
}

SIM_API cnrtRet_t cnrtHostMalloc(void **pPtr, size_t bytes)
{
    SIM_ENTER("cnrtHostMalloc");
    if (sim_need_device() != cnrtSuccess)
        return cnrtErrorNoCnrtContext;
    /* Test-only broken mode of rule CNRT-HOSTMALLOC0: 0 bytes give a
     * pointer (to a 64-byte block). */
    if (bytes == 0 && sim_rule_broken("CNRT-HOSTMALLOC0"))
        return sim_allocate(pPtr, 64, -1);
    return sim_allocate(pPtr, bytes, -1);
}

SIM_API cnrtRet_t cnrtFreeHost(void *ptr)
{
    SIM_ENTER("cnrtFreeHost");
    return sim_release(ptr, false);
}

SIM_API cnrtRet_t cnrtMemGetInfo(size_t *free_bytes, size_t *total)
{
    SIM_ENTER("cnrtMemGetInfo");
    if (free_bytes == NULL || total == NULL)
        return cnrtErrorArgsInvalid;
    if (sim_need_device() != cnrtSuccess)
        return cnrtErrorNoCnrtContext;
    pthread_mutex_lock(&sim_lock);
    *total = sim_capacity;
    *free_bytes = sim_capacity - sim_used[sim_current_device()];
    pthread_mutex_unlock(&sim_lock);
    return cnrtSuccess;
}
