/* acl_sim_device.c: the simulated ACL runtime's process state, devices and
 * memory. Device memory is host memory with a per-device capacity
 * (ACCEL_SIM_DEVICE_MEMORY, default 1G), tracked allocation by allocation
 * so that copies can be checked against their declared kind. Written from
 * vendor-apis.md §2 and CANN's acl_rt.h; see tests/sim/README.md for what
 * it models and the environment variables it reads. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl_sim_internal.h"
#include "sim_alloc.h"
#include "sim_thread.h"
#include "sim_violation.h"

pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t sim_changed = PTHREAD_COND_INITIALIZER;

static bool sim_init_done;
static int sim_devices = -1;
static size_t sim_capacity;
static size_t sim_used[SIM_MAX_DEVICES];
static sim_allocs_t sim_allocs; /* device, pinned and registered memory */
static _Thread_local bool sim_thread_in_callback;
/* Each device's one context (its primary context): aclrtGetCurrentContext
 * hands out the address, aclrtSetCurrentContext takes it back. */
static char sim_contexts[SIM_MAX_DEVICES];

aclError sim_error(aclError code, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    code = sim_thread_verror(code, fmt, args);
    va_end(args);
    return code;
}

void sim_violation(const char *rule, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    sim_violation_vreport("acl", rule, fmt, args);
    va_end(args);
}

/* For tests that load the sim in-process: how many rule violations it has
 * recorded (sim_violation). */
SIM_API unsigned long accel_sim_acl_violations(void)
{
    return sim_violation_count();
}

bool sim_in_callback(void)
{
    return sim_thread_in_callback;
}

void sim_set_in_callback(bool inside)
{
    sim_thread_in_callback = inside;
}

/* Rule C8: a callback (aclrtLaunchCallback) or host function
 * (aclrtLaunchHostFunc) must not synchronize a stream, the device or an
 * event (CANN runtime docs/zh/api_ref/12_execution_control.md,
 * aclrtLaunchCallback and aclrtLaunchHostFunc constraints). The real
 * runtime may deadlock; the sim refuses with 107000, the harsher reading. */
aclError sim_refuse_in_callback(const char *function)
{
    if (!sim_thread_in_callback)
        return ACL_SUCCESS;
    /* ACCEL_SIM_BREAK=C8, the test-only broken mode of rule C8: deadlock
     * here, as the document warns the runtime may. */
    while (sim_rule_broken("C8"))
        sleep(60);
    return sim_error(ACL_ERROR_RT_PARAM_INVALID,
                     "%s: called from inside a callback or host function (rule C8)", function);
}

SIM_API const char *aclGetRecentErrMsg(void)
{
    return sim_thread_last_message(1);
}

/* Under sim_lock. */
static void sim_read_config(void)
{
    if (sim_devices >= 0)
        return;
    sim_devices = sim_fault_device_count(2, SIM_MAX_DEVICES);
    sim_devices = sim_visible_devices("ASCEND_RT_VISIBLE_DEVICES", sim_devices, true);
    sim_capacity = sim_fault_env_size("ACCEL_SIM_DEVICE_MEMORY", (size_t)1 << 30);
}

int sim_device_count(void)
{
    int count;
    pthread_mutex_lock(&sim_lock);
    sim_read_config();
    count = sim_devices;
    pthread_mutex_unlock(&sim_lock);
    return count;
}

bool sim_initialised(void)
{
    bool done;
    pthread_mutex_lock(&sim_lock);
    done = sim_init_done;
    pthread_mutex_unlock(&sim_lock);
    return done;
}

int sim_current_device(void)
{
    return sim_thread_device(-1);
}

aclError sim_need_device(const char *function)
{
    if (!sim_initialised())
        return sim_error(ACL_ERROR_UNINITIALIZE, "%s: aclInit has not been called", function);
    if (sim_current_device() < 0)
        return sim_error(ACL_ERROR_RT_CONTEXT_NULL,
                         "%s: no current device on this thread (call aclrtSetDevice)", function);
    return ACL_SUCCESS;
}

/* ---------------------------------------------------------------- init and devices */

SIM_API aclError aclInit(const char *configPath)
{
    (void)configPath;
    SIM_ENTER("aclInit");
    pthread_mutex_lock(&sim_lock);
    sim_read_config();
    if (sim_init_done) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: already initialised");
    }
    sim_init_done = true;
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

SIM_API aclError aclFinalize(void)
{
    SIM_ENTER("aclFinalize");
    pthread_mutex_lock(&sim_lock);
    if (!sim_init_done) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: not initialised");
    }
    sim_init_done = false;
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

/* Counts without aclInit, unless ACCEL_SIM_ACL_COUNT_NEEDS_INIT=1 (to play a
 * runtime that refuses, for the backend's other detection path). */
SIM_API aclError aclrtGetDeviceCount(uint32_t *count)
{
    const char *strict = getenv("ACCEL_SIM_ACL_COUNT_NEEDS_INIT");
    SIM_ENTER("aclrtGetDeviceCount");
    if (count == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is NULL");
    if (strict != NULL && strcmp(strict, "1") == 0 && !sim_initialised())
        return sim_error(ACL_ERROR_UNINITIALIZE,
                         "aclrtGetDeviceCount: aclInit has not been called");
    if (sim_device_count() == 0)
        return sim_error(ACL_ERROR_RT_NO_DEVICE, "aclrtGetDeviceCount: no NPU device");
    *count = (uint32_t)sim_device_count();
    return ACL_SUCCESS;
}

SIM_API aclError aclrtSetDevice(int32_t deviceId)
{
    SIM_ENTER("aclrtSetDevice");
    if (!sim_initialised())
        return sim_error(ACL_ERROR_UNINITIALIZE, "aclrtSetDevice: aclInit has not been called");
    if (deviceId < 0 || deviceId >= sim_device_count())
        return sim_error(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtSetDevice: no device %d (%d present)",
                         (int)deviceId, sim_device_count());
    sim_thread_set_device(deviceId);
    (void)sim_default_stream(deviceId);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtGetDevice(int32_t *deviceId)
{
    SIM_ENTER("aclrtGetDevice");
    if (deviceId == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is NULL");
    if (sim_current_device() < 0)
        return sim_error(ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetDevice: no current device");
    *deviceId = sim_current_device();
    return ACL_SUCCESS;
}

/* Rule S1: aclrtSetDevice makes the device's context current; these two
 * read and set it (acl_rt.h:1392,1410 aclrtSetCurrentContext and
 * aclrtGetCurrentContext). */
SIM_API aclError aclrtGetCurrentContext(aclrtContext *context)
{
    SIM_ENTER("aclrtGetCurrentContext");
    if (context == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is NULL");
    if (sim_current_device() < 0)
        return sim_error(ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetCurrentContext: no current context");
    *context = &sim_contexts[sim_current_device()];
    return ACL_SUCCESS;
}

SIM_API aclError aclrtSetCurrentContext(aclrtContext context)
{
    char *c = context;
    SIM_ENTER("aclrtSetCurrentContext");
    if (!sim_initialised())
        return sim_error(ACL_ERROR_UNINITIALIZE,
                         "aclrtSetCurrentContext: aclInit has not been called");
    if (c < sim_contexts || c >= sim_contexts + sim_device_count())
        return sim_error(ACL_ERROR_RT_PARAM_INVALID, "aclrtSetCurrentContext: %p is no context",
                         context);
    sim_thread_set_device((int)(c - sim_contexts));
    (void)sim_default_stream(sim_current_device());
    return ACL_SUCCESS;
}

SIM_API aclError aclrtResetDevice(int32_t deviceId)
{
    SIM_ENTER("aclrtResetDevice");
    if (deviceId < 0 || deviceId >= sim_device_count())
        return sim_error(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtResetDevice: no device %d",
                         (int)deviceId);
    sim_streams_drain(deviceId);
    if (sim_current_device() == deviceId)
        sim_thread_set_device(-1);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtSynchronizeDevice(void)
{
    aclError code;
    SIM_ENTER("aclrtSynchronizeDevice");
    if ((code = sim_need_device("aclrtSynchronizeDevice")) != ACL_SUCCESS)
        return code;
    if ((code = sim_refuse_in_callback("aclrtSynchronizeDevice")) != ACL_SUCCESS)
        return code;
    if (sim_streams_drain(sim_current_device()))
        return sim_error(ACL_ERROR_RT_INTERNAL_ERROR,
                         "aclrtSynchronizeDevice: a stream of device %d failed (see the sim's "
                         "rule violations on stderr)",
                         sim_current_device());
    return ACL_SUCCESS;
}

/* ACCEL_SIM_SOC, default "Ascend910B1" (a part with bf16). */
SIM_API const char *aclrtGetSocName(void)
{
    const char *name = getenv("ACCEL_SIM_SOC");
    if (sim_fault_hit("aclrtGetSocName") != 0)
        return NULL; /* the only way this function can fail */
    return name != NULL && *name != '\0' ? name : "Ascend910B1";
}

SIM_API aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion,
                                 int32_t *patchVersion)
{
    SIM_ENTER("aclrtGetVersion");
    /* ACCEL_SIM_BREAK=V1, the test-only broken mode of rule V1: a
     * deprecated aclrtGetVersion that is still exported but answers
     * nothing. */
    if (sim_rule_broken("V1"))
        return sim_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "aclrtGetVersion: deprecated (ACCEL_SIM_BREAK=V1)");
    if (majorVersion == NULL || minorVersion == NULL || patchVersion == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetVersion: a pointer is NULL");
    *majorVersion = 1;
    *minorVersion = 15;
    *patchVersion = 0;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    SIM_ENTER("aclrtGetRunMode");
    if (runMode == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode: runMode is NULL");
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    SIM_ENTER("aclrtGetDeviceInfo");
    if (value == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceInfo: value is NULL");
    if (deviceId >= (uint32_t)sim_device_count())
        return sim_error(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtGetDeviceInfo: no device %u",
                         deviceId);
    switch ((int)attr) {
    case ACL_DEV_ATTR_AICPU_CORE_NUM: *value = 6; return ACL_SUCCESS;
    case ACL_DEV_ATTR_AICORE_CORE_NUM: *value = 24; return ACL_SUCCESS;
    case ACL_DEV_ATTR_CUBE_CORE_NUM: *value = 24; return ACL_SUCCESS;
    case ACL_DEV_ATTR_VECTOR_CORE_NUM: *value = 48; return ACL_SUCCESS;
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE:
        pthread_mutex_lock(&sim_lock);
        sim_read_config();
        *value = (int64_t)sim_capacity;
        pthread_mutex_unlock(&sim_lock);
        return ACL_SUCCESS;
    case ACL_DEV_ATTR_L2_CACHE_SIZE: *value = 192 << 20; return ACL_SUCCESS;
    default:
        return sim_error(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "aclrtGetDeviceInfo: attribute %d is not simulated", (int)attr);
    }
}

/* ---------------------------------------------------------------- allocation records */

bool sim_is_device_range(const void *ptr, size_t size)
{
    bool inside;
    pthread_mutex_lock(&sim_lock);
    inside = sim_allocs_find(&sim_allocs, ptr, size, SIM_ALLOC_DEVICE) != NULL;
    pthread_mutex_unlock(&sim_lock);
    return inside;
}

/* ---------------------------------------------------------------- device memory */

SIM_API aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    void *base = NULL;
    bool recorded;
    aclError code;
    int device = sim_current_device();
    SIM_ENTER("aclrtMalloc");
    if ((code = sim_need_device("aclrtMalloc")) != ACL_SUCCESS)
        return code;
    if (devPtr == NULL || size == 0)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: devPtr NULL or size 0");
    if ((int)policy > 7)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: unknown policy %d", (int)policy);
    if (sim_fault_alloc_refused(size))
        return sim_error(ACL_ERROR_RT_MEMORY_ALLOCATION,
                         "aclrtMalloc: %zu bytes refused (ACCEL_SIM_FAIL_ALLOC_ABOVE)", size);
    pthread_mutex_lock(&sim_lock);
    if (size > sim_capacity - sim_used[device]) {
        size_t left = sim_capacity - sim_used[device];
        pthread_mutex_unlock(&sim_lock);
        return sim_error(ACL_ERROR_RT_MEMORY_ALLOCATION,
                         "aclrtMalloc: %zu bytes do not fit in device %d (%zu of %zu free)", size,
                         device, left, sim_capacity);
    }
    sim_used[device] += size;
    pthread_mutex_unlock(&sim_lock);
    recorded = posix_memalign(&base, 512, size) == 0;
    pthread_mutex_lock(&sim_lock);
    recorded = recorded && sim_allocs_add(&sim_allocs, base, size, device, SIM_ALLOC_DEVICE);
    if (!recorded)
        sim_used[device] -= size;
    pthread_mutex_unlock(&sim_lock);
    if (!recorded) {
        free(base);
        return sim_error(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc: host memory exhausted");
    }
    *devPtr = base;
    return ACL_SUCCESS;
}

/* M6: frees at once, as the real call does: "no implicit Device or stream
 * synchronization; it does not wait for tasks that use the memory" (CANN's
 * aclrtFree page, hicann/runtime docs/zh/api_ref/11-01; aclrtFreeWithDevSync
 * is the waiting variant). A stream still reading the memory shows up under
 * ASan. */
SIM_API aclError aclrtFree(void *devPtr)
{
    sim_alloc_t record;
    bool found;
    SIM_ENTER("aclrtFree");
    /* ACCEL_SIM_BREAK=M6, the test-only broken mode of rule M6: a free
     * that synchronizes the device first, as aclrtFreeWithDevSync does. */
    if (sim_rule_broken("M6") && sim_current_device() >= 0)
        (void)sim_streams_drain(sim_current_device());
    pthread_mutex_lock(&sim_lock);
    found = sim_allocs_take(&sim_allocs, devPtr, SIM_ALLOC_DEVICE, &record);
    if (found)
        sim_used[record.device] -= record.size;
    pthread_mutex_unlock(&sim_lock);
    if (!found)
        return sim_error(ACL_ERROR_RT_PARAM_INVALID, "aclrtFree: %p is not device memory", devPtr);
    free(record.base);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free_bytes, size_t *total)
{
    aclError code;
    SIM_ENTER("aclrtGetMemInfo");
    if ((code = sim_need_device("aclrtGetMemInfo")) != ACL_SUCCESS)
        return code;
    if (free_bytes == NULL || total == NULL)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: a pointer is NULL");
    if (attr != ACL_HBM_MEM && attr != ACL_DDR_MEM)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: attribute %d not simulated",
                         (int)attr);
    pthread_mutex_lock(&sim_lock);
    *total = sim_capacity;
    *free_bytes = sim_capacity - sim_used[sim_current_device()];
    pthread_mutex_unlock(&sim_lock);
    return ACL_SUCCESS;
}

/* ---------------------------------------------------------------- host memory */

static aclError sim_add_host(void *ptr, size_t size, sim_alloc_kind_t kind)
{
    bool recorded;
    pthread_mutex_lock(&sim_lock);
    recorded = sim_allocs_add(&sim_allocs, ptr, size, -1, kind);
    pthread_mutex_unlock(&sim_lock);
    return recorded ? ACL_SUCCESS : ACL_ERROR_BAD_ALLOC;
}

/* Pinned memory needs a current device, as the real call does. Whole
 * pages, as page-locked memory is (the size is rounded up to a page: no
 * other allocation shares its last page), so that a registration of a
 * caller's pages never overlaps it (M8). The record keeps the size asked
 * for. */
SIM_API aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    void *ptr = NULL;
    aclError code;
    SIM_ENTER("aclrtMallocHost");
    if ((code = sim_need_device("aclrtMallocHost")) != ACL_SUCCESS)
        return code;
    if (hostPtr == NULL || size == 0)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: hostPtr NULL or size 0");
    if (sim_fault_alloc_refused(size) || size > SIZE_MAX - (SIM_HOST_PAGE - 1) ||
        posix_memalign(&ptr, SIM_HOST_PAGE, (size + SIM_HOST_PAGE - 1) & ~(SIM_HOST_PAGE - 1)) != 0)
        return sim_error(ACL_ERROR_BAD_ALLOC, "aclrtMallocHost: %zu bytes refused", size);
    if (sim_add_host(ptr, size, SIM_ALLOC_PINNED) != ACL_SUCCESS) {
        free(ptr);
        return sim_error(ACL_ERROR_BAD_ALLOC, "aclrtMallocHost: out of host memory");
    }
    *hostPtr = ptr;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtFreeHost(void *hostPtr)
{
    sim_alloc_t record;
    bool found;
    SIM_ENTER("aclrtFreeHost");
    pthread_mutex_lock(&sim_lock);
    found = sim_allocs_take(&sim_allocs, hostPtr, SIM_ALLOC_PINNED, &record);
    pthread_mutex_unlock(&sim_lock);
    if (!found)
        return sim_error(ACL_ERROR_RT_PARAM_INVALID,
                         "aclrtFreeHost: %p did not come from aclrtMallocHost", hostPtr);
    free(record.base);
    return ACL_SUCCESS;
}

/* M7, M8: both register calls: `ptr` must be 4 KiB aligned. CANN 8.5's
 * aclrtHostRegister page says so ("ptr must be 4K-page-aligned"; the exact
 * code is not public: 107000 is the sim's choice); for aclrtHostRegisterV2
 * the sim applies the same rule (harsher reading). A range overlapping one
 * already registered or pinned is refused. Under sim_lock: no. */
static aclError sim_register_host(void *ptr, uint64_t size, const char *function)
{
    bool taken;
    if (!sim_initialised())
        return sim_error(ACL_ERROR_UNINITIALIZE, "%s: aclInit has not been called", function);
    if (ptr == NULL || size == 0)
        return sim_error(ACL_ERROR_INVALID_PARAM, "%s: ptr %p, size %llu", function, ptr,
                         (unsigned long long)size);
    /* ACCEL_SIM_BREAK=M7, the test-only broken mode of rule M7:
     * aclrtHostRegister takes any pointer. */
    if ((uintptr_t)ptr % SIM_HOST_PAGE != 0 &&
        !(sim_rule_broken("M7") && strcmp(function, "aclrtHostRegister") == 0))
        return sim_error(ACL_ERROR_RT_PARAM_INVALID, "%s: ptr %p is not 4 KiB aligned", function,
                         ptr);
    pthread_mutex_lock(&sim_lock);
    taken = sim_allocs_find(&sim_allocs, ptr, 1, SIM_ALLOC_REGISTERED) != NULL ||
            sim_allocs_find(&sim_allocs, (char *)ptr + size - 1, 1, SIM_ALLOC_REGISTERED) != NULL ||
            sim_allocs_find(&sim_allocs, ptr, 1, SIM_ALLOC_PINNED) != NULL ||
            sim_allocs_find(&sim_allocs, (char *)ptr + size - 1, 1, SIM_ALLOC_PINNED) != NULL;
    pthread_mutex_unlock(&sim_lock);
    if (taken)
        return sim_error(ACL_ERROR_RT_PARAM_INVALID,
                         "%s: %p overlaps memory already pinned or registered", function, ptr);
    if (sim_add_host(ptr, (size_t)size, SIM_ALLOC_REGISTERED) != ACL_SUCCESS)
        return sim_error(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", function);
    return ACL_SUCCESS;
}

/* M7: MAPPED maps the range for device-side access; the address returned
 * "cannot be used for memory operations, such as memory copy" (CANN 8.5's
 * aclrtHostRegister page). The sim hands out an address that is not the
 * host address (SIM_MAPPED_TAG set: any use faults), and copies naming it
 * are refused. */
SIM_API aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type,
                                   void **devPtr)
{
    aclError code;
    SIM_ENTER("aclrtHostRegister");
    if (devPtr == NULL || type != ACL_HOST_REGISTER_MAPPED)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtHostRegister: devPtr %p, type %d", devPtr,
                         (int)type);
    if ((code = sim_register_host(ptr, size, "aclrtHostRegister")) != ACL_SUCCESS)
        return code;
    *devPtr = (void *)((uintptr_t)ptr | SIM_MAPPED_TAG);
    return ACL_SUCCESS;
}

/* M8: V2 (acl_rt.h: ACL_HOST_REG_MAPPED 0x2, ACL_HOST_REG_PINNED 0x10000000;
 * CANN 8.5's aclrtHostRegisterV2 page). Only PINNED matters to copies; the
 * sim accepts the two flags alone or together and nothing else. */
SIM_API aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag)
{
    SIM_ENTER("aclrtHostRegisterV2");
    /* ACCEL_SIM_BREAK=M8, the test-only broken mode of rule M8: a runtime
     * whose V2 does not know ACL_HOST_REG_PINNED. */
    if (sim_rule_broken("M8") && (flag & ACL_HOST_REG_PINNED) != 0)
        return sim_error(ACL_ERROR_INVALID_PARAM,
                         "aclrtHostRegisterV2: flag 0x%x unknown (ACCEL_SIM_BREAK=M8)", flag);
    if (flag == 0 || (flag & ~(uint32_t)(ACL_HOST_REG_MAPPED | ACL_HOST_REG_PINNED)) != 0)
        return sim_error(ACL_ERROR_INVALID_PARAM, "aclrtHostRegisterV2: flag 0x%x not simulated",
                         flag);
    return sim_register_host(ptr, size, "aclrtHostRegisterV2");
}

bool sim_is_mapped_address(const void *ptr)
{
    return ((uintptr_t)ptr & SIM_MAPPED_TAG) != 0;
}

bool sim_is_acl_host_range(const void *ptr, size_t size)
{
    bool inside;
    pthread_mutex_lock(&sim_lock);
    inside = sim_allocs_find(&sim_allocs, ptr, size, SIM_ALLOC_PINNED) != NULL ||
             sim_allocs_find(&sim_allocs, ptr, size, SIM_ALLOC_REGISTERED) != NULL;
    pthread_mutex_unlock(&sim_lock);
    return inside;
}

SIM_API aclError aclrtHostUnregister(void *ptr)
{
    sim_alloc_t record;
    bool found;
    SIM_ENTER("aclrtHostUnregister");
    pthread_mutex_lock(&sim_lock);
    found = sim_allocs_take(&sim_allocs, ptr, SIM_ALLOC_REGISTERED, &record);
    pthread_mutex_unlock(&sim_lock);
    if (!found)
        return sim_error(ACL_ERROR_RT_PARAM_INVALID, "aclrtHostUnregister: %p is not registered",
                         ptr);
    return ACL_SUCCESS;
}
