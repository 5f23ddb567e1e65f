/* ze_sim_device.c: the simulated Level Zero driver's zeInit, driver,
 * devices, context and USM memory (host memory standing in for device
 * memory, with a per-device capacity). Written from the Level Zero spec
 * (1.4, the loader Debian ships); see tests/sim/README.md for what it models.
 * Threads: every function may be called from any thread (sim_lock). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ze_sim_internal.h"

pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t sim_changed = PTHREAD_COND_INITIALIZER;

static struct _ze_driver_handle_t sim_driver;
static struct _ze_device_handle_t sim_devices[SIM_MAX_DEVICES];
static int sim_count;
static bool sim_initialised;

/* A USM allocation: device (device != NULL) or host. */
typedef struct sim_alloc {
    void *ptr;
    size_t size;
    ze_device_handle_t device;
    struct sim_alloc *next;
} sim_alloc_t;
static sim_alloc_t *sim_allocs;
/* Live contexts, kept reachable (a failed zeContextDestroy leaves one). */
#define SIM_MAX_CONTEXTS 256
static ze_context_handle_t sim_contexts[SIM_MAX_CONTEXTS];

bool sim_ze_initialised(void)
{
    bool done;
    pthread_mutex_lock(&sim_lock);
    done = sim_initialised;
    pthread_mutex_unlock(&sim_lock);
    return done;
}

int sim_ze_device_count(void)
{
    return sim_count;
}

ze_device_handle_t sim_ze_device(int index)
{
    return &sim_devices[index];
}

bool sim_ze_is_device(ze_device_handle_t handle)
{
    for (int i = 0; i < sim_count; i++)
        if (handle == &sim_devices[i])
            return true;
    return false;
}

/* ZE_AFFINITY_MASK as the spec gives it: a comma list of device indices,
 * each optionally followed by ".subdevice" (sub-devices are not simulated:
 * the root device is kept). Indices out of range are ignored; a malformed
 * list hides every device, as the Intel driver does. */
static int sim_apply_affinity(int physical, int *map)
{
    const char *mask = getenv("ZE_AFFINITY_MASK");
    bool seen[SIM_MAX_DEVICES] = {false};
    int count = 0;
    if (mask == NULL || mask[0] == '\0') {
        for (int i = 0; i < physical; i++)
            map[i] = i;
        return physical;
    }
    while (*mask != '\0') {
        char *end;
        long index = strtol(mask, &end, 10);
        if (end == mask)
            return 0;
        if (*end == '.') { /* a sub-device: skip its number */
            char *sub_end;
            (void)strtol(end + 1, &sub_end, 10);
            end = sub_end;
        }
        if (index >= 0 && index < physical && !seen[index]) {
            seen[index] = true;
            map[count++] = (int)index;
        }
        if (*end == ',')
            end++;
        else if (*end != '\0')
            return 0;
        mask = end;
    }
    return count;
}

/* ZE-VPU: built with SIM_ZE_VPU, the driver plays Intel's NPU driver: one
 * device of type VPU (ze_api.h:1110), named "Simulated Level Zero NPU".
 * It declines zeInit(ZE_INIT_FLAG_GPU_ONLY) ("only initialize GPU drivers",
 * ze_api.h:746) unless ACCEL_SIM_ZE_VPU_IGNORES_FLAGS=1 (the harsher
 * reading: a driver that ignores the flag, so only a device-type filter
 * keeps it out). */
#ifdef SIM_ZE_VPU
#define SIM_ZE_DEVICE_TYPE ZE_DEVICE_TYPE_VPU
#define SIM_ZE_DEVICE_NAME "Simulated Level Zero NPU"
#else
#define SIM_ZE_DEVICE_TYPE ZE_DEVICE_TYPE_GPU
#define SIM_ZE_DEVICE_NAME "Simulated Level Zero GPU"
#endif

static bool sim_init_declined(ze_init_flags_t flags)
{
#ifdef SIM_ZE_VPU
    /* Test-only broken mode of rule ZE-VPU: the same as the variable. */
    const char *ignore = getenv("ACCEL_SIM_ZE_VPU_IGNORES_FLAGS");
    return flags == ZE_INIT_FLAG_GPU_ONLY && !(ignore != NULL && strcmp(ignore, "1") == 0) &&
           !sim_rule_broken("ZE-VPU");
#else
    return flags == ZE_INIT_FLAG_VPU_ONLY;
#endif
}

ze_result_t sim_zeInit(ze_init_flags_t flags)
{
    int map[SIM_MAX_DEVICES];
    SIM_ENTER("zeInit");
    if (flags & ~(ze_init_flags_t)(ZE_INIT_FLAG_GPU_ONLY | ZE_INIT_FLAG_VPU_ONLY))
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (sim_init_declined(flags))
        return ZE_RESULT_ERROR_UNINITIALIZED;
    pthread_mutex_lock(&sim_lock);
    if (!sim_initialised) {
        size_t capacity = sim_fault_env_size("ACCEL_SIM_DEVICE_MEMORY", (size_t)1 << 30);
#ifdef SIM_ZE_VPU
        int physical = 1;
#else
        int physical = sim_fault_device_count(2, SIM_MAX_DEVICES);
#endif
        sim_count = sim_apply_affinity(physical, map);
        for (int i = 0; i < sim_count; i++)
            sim_devices[i] = (struct _ze_device_handle_t){.index = map[i], .capacity = capacity};
        sim_initialised = true;
    }
    pthread_mutex_unlock(&sim_lock);
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers)
{
    SIM_ENTER("zeDriverGet");
    if (!sim_ze_initialised())
        return ZE_RESULT_ERROR_UNINITIALIZED;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || phDrivers == NULL) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    phDrivers[0] = &sim_driver;
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_zeDriverGetProperties(ze_driver_handle_t hDriver,
                                      ze_driver_properties_t *pDriverProperties)
{
    SIM_ENTER("zeDriverGetProperties");
    if (hDriver != &sim_driver)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pDriverProperties == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    memset(pDriverProperties->uuid.id, 0x5a, sizeof pDriverProperties->uuid.id);
    pDriverProperties->driverVersion = 0x01080000u;
    return ZE_RESULT_SUCCESS;
}

/* ACCEL_SIM_ZE_API_VERSION=1.1 plays a driver older than 1.2 (no
 * DEVICE_PROPERTIES_1_2 stype); the default is the header's 1.4. */
static ze_api_version_t sim_api_version(void)
{
    const char *text = getenv("ACCEL_SIM_ZE_API_VERSION");
    unsigned major = 1, minor = 4;
    if (text != NULL && sscanf(text, "%u.%u", &major, &minor) != 2) {
        major = 1;
        minor = 4;
    }
    return (ze_api_version_t)ZE_MAKE_VERSION(major, minor);
}

ze_result_t sim_zeDriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t *version)
{
    SIM_ENTER("zeDriverGetApiVersion");
    if (hDriver != &sim_driver)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (version == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *version = sim_api_version();
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount,
                            ze_device_handle_t *phDevices)
{
    SIM_ENTER("zeDeviceGet");
    if (hDriver != &sim_driver)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || phDevices == NULL) {
        *pCount = (uint32_t)sim_count;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > (uint32_t)sim_count)
        *pCount = (uint32_t)sim_count;
    for (uint32_t i = 0; i < *pCount; i++)
        phDevices[i] = &sim_devices[i];
    return ZE_RESULT_SUCCESS;
}

/* ZE-TS-UNITS (ze_api.h:1171-1175): timerResolution is whole ns per tick
 * for ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES (52 for the 19.2 MHz timer, 0.16 %
 * short of 52.083) and ticks per second (19200000) for the 1.2 stype. A
 * driver older than 1.2 answers the 1.2 stype as the 1.0 one (the harsher
 * reading: the header says nothing of it), so a reader must ask
 * zeDriverGetApiVersion first. Timestamps have 32 valid bits (both
 * fields), so a reader that does not mask them sees the wrap. */
ze_result_t sim_zeDeviceGetProperties(ze_device_handle_t hDevice,
                                      ze_device_properties_t *pDeviceProperties)
{
    const char *name = getenv("ACCEL_SIM_ZE_NAME");
    ze_device_properties_t *p = pDeviceProperties;
    SIM_ENTER("zeDeviceGetProperties");
    if (!sim_ze_is_device(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (p->stype != ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES &&
        p->stype != ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    p->type = SIM_ZE_DEVICE_TYPE;
    p->vendorId = 0x8086;
    p->deviceId = 0x0bd5;
    p->flags = 0;
    p->subdeviceId = 0;
    p->coreClockRate = 1600;
    p->maxMemAllocSize = hDevice->capacity;
    p->maxHardwareContexts = 64;
    p->maxCommandQueuePriority = 2;
    p->numThreadsPerEU = 8;
    p->physicalEUSimdWidth = 16;
    p->numEUsPerSubslice = 8;
    p->numSubslicesPerSlice = 4;
    p->numSlices = 2;
    /* Test-only broken mode of rule ZE-TS-UNITS: a 1.2 driver answers the
     * 1.2 stype in ns per tick, as the 1.0 one. */
    p->timerResolution = p->stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 &&
                                 sim_api_version() >= ZE_API_VERSION_1_2 &&
                                 !sim_rule_broken("ZE-TS-UNITS")
                             ? SIM_ZE_TIMER_HZ
                             : 1000000000u / SIM_ZE_TIMER_HZ;
    p->timestampValidBits = SIM_ZE_TICK_BITS;
    /* Test-only broken mode of rule ZE-TS-WRAP: the driver says 64 valid
     * bits while its counter wraps far sooner (sim_ticks). */
    p->kernelTimestampValidBits = sim_rule_broken("ZE-TS-WRAP") ? 64 : SIM_ZE_TICK_BITS;
    memset(p->uuid.id, 0, sizeof p->uuid.id);
    p->uuid.id[0] = (uint8_t)hDevice->index;
    snprintf(p->name, sizeof p->name, "%s", name != NULL ? name : SIM_ZE_DEVICE_NAME);
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                            ze_device_memory_properties_t *pMemProperties)
{
    SIM_ENTER("zeDeviceGetMemoryProperties");
    if (!sim_ze_is_device(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || pMemProperties == NULL) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    *pCount = 1;
    pMemProperties[0].flags = 0;
    pMemProperties[0].maxClockRate = 1600;
    pMemProperties[0].maxBusWidth = 4096;
    pMemProperties[0].totalSize = hDevice->capacity;
    snprintf(pMemProperties[0].name, sizeof pMemProperties[0].name, "HBM");
    return ZE_RESULT_SUCCESS;
}

/* Two groups, as Intel GPUs list them: a copy engine first, then the
 * compute engine (which copies too). */
ze_result_t sim_zeDeviceGetCommandQueueGroupProperties(
    ze_device_handle_t hDevice, uint32_t *pCount,
    ze_command_queue_group_properties_t *pCommandQueueGroupProperties)
{
    static const ze_command_queue_group_property_flags_t flags[2] = {
        ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY,
        ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY,
    };
    SIM_ENTER("zeDeviceGetCommandQueueGroupProperties");
    if (!sim_ze_is_device(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*pCount == 0 || pCommandQueueGroupProperties == NULL) {
        *pCount = 2;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > 2)
        *pCount = 2;
    for (uint32_t i = 0; i < *pCount; i++) {
        pCommandQueueGroupProperties[i].flags = flags[i];
        pCommandQueueGroupProperties[i].maxMemoryFillPatternSize = i == 0 ? 4 : 128;
        pCommandQueueGroupProperties[i].numQueues = i == 0 ? 1 : 4;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                                ze_context_handle_t *phContext)
{
    SIM_ENTER("zeContextCreate");
    if (!sim_ze_initialised())
        return ZE_RESULT_ERROR_UNINITIALIZED;
    if (hDriver != &sim_driver)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phContext == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->stype != ZE_STRUCTURE_TYPE_CONTEXT_DESC)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    *phContext = calloc(1, sizeof **phContext);
    if (*phContext == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pthread_mutex_lock(&sim_lock);
    for (int i = 0; i < SIM_MAX_CONTEXTS; i++) {
        if (sim_contexts[i] == NULL) {
            sim_contexts[i] = *phContext;
            break;
        }
    }
    pthread_mutex_unlock(&sim_lock);
    return ZE_RESULT_SUCCESS;
}

/* The spec leaves destroying a context with live objects undefined; the sim
 * refuses, so a leak of lists shows up. Memory still allocated in it is
 * freed with it (as drivers do). */
ze_result_t sim_zeContextDestroy(ze_context_handle_t hContext)
{
    SIM_ENTER("zeContextDestroy");
    if (hContext == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&sim_lock);
    if (hContext->live_lists > 0) {
        pthread_mutex_unlock(&sim_lock);
        return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    }
    for (int i = 0; i < SIM_MAX_CONTEXTS; i++)
        if (sim_contexts[i] == hContext)
            sim_contexts[i] = NULL;
    pthread_mutex_unlock(&sim_lock);
    free(hContext);
    return ZE_RESULT_SUCCESS;
}

static bool sim_power_of_two(size_t value)
{
    return value != 0 && (value & (value - 1)) == 0;
}

static ze_result_t sim_alloc(ze_device_handle_t device, size_t size, size_t alignment, void **pptr)
{
    sim_alloc_t *entry;
    void *ptr = NULL;
    if (pptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (size == 0)
        return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (alignment != 0 && !sim_power_of_two(alignment))
        return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    if (sim_fault_alloc_refused(size))
        return device != NULL ? ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
                              : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pthread_mutex_lock(&sim_lock);
    if (device != NULL && size > device->capacity - device->used) {
        pthread_mutex_unlock(&sim_lock);
        return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    entry = malloc(sizeof *entry);
    if (entry == NULL ||
        posix_memalign(&ptr, alignment > sizeof(void *) ? alignment : sizeof(void *), size) != 0) {
        pthread_mutex_unlock(&sim_lock);
        free(entry);
        return device != NULL ? ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
                              : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *entry = (sim_alloc_t){.ptr = ptr, .size = size, .device = device, .next = sim_allocs};
    sim_allocs = entry;
    if (device != NULL)
        device->used += size;
    pthread_mutex_unlock(&sim_lock);
    *pptr = ptr;
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_zeMemAllocDevice(ze_context_handle_t hContext,
                                 const ze_device_mem_alloc_desc_t *device_desc, size_t size,
                                 size_t alignment, ze_device_handle_t hDevice, void **pptr)
{
    SIM_ENTER("zeMemAllocDevice");
    if (hContext == NULL || !sim_ze_is_device(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (device_desc == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (device_desc->stype != ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    return sim_alloc(hDevice, size, alignment, pptr);
}

ze_result_t sim_zeMemAllocHost(ze_context_handle_t hContext,
                               const ze_host_mem_alloc_desc_t *host_desc, size_t size,
                               size_t alignment, void **pptr)
{
    SIM_ENTER("zeMemAllocHost");
    if (hContext == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (host_desc == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (host_desc->stype != ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    return sim_alloc(NULL, size, alignment, pptr);
}

ze_result_t sim_zeMemFree(ze_context_handle_t hContext, void *ptr)
{
    sim_alloc_t **link, *entry = NULL;
    SIM_ENTER("zeMemFree");
    if (hContext == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    pthread_mutex_lock(&sim_lock);
    for (link = &sim_allocs; *link != NULL; link = &(*link)->next) {
        if ((*link)->ptr == ptr) {
            /* ZE-FREE-LIVE (ze_api.h:4293): the spec makes this the
             * caller's duty; a real driver would let the device write into
             * freed memory. The sim stops the test. */
            if (sim_ze_range_queued(ptr, (*link)->size)) {
                fprintf(stderr,
                        "ze sim: zeMemFree(%p) while a queued copy or fill still uses "
                        "it: aborting\n",
                        ptr);
                abort();
            }
            entry = *link;
            *link = entry->next;
            if (entry->device != NULL)
                entry->device->used -= entry->size;
            break;
        }
    }
    pthread_mutex_unlock(&sim_lock);
    if (entry == NULL)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    free(entry->ptr);
    free(entry);
    return ZE_RESULT_SUCCESS;
}

bool sim_ze_range_known(const void *ptr, size_t size, bool *inside_some)
{
    uintptr_t start = (uintptr_t)ptr;
    *inside_some = false;
    for (sim_alloc_t *a = sim_allocs; a != NULL; a = a->next) {
        uintptr_t base = (uintptr_t)a->ptr;
        if (start >= base && start < base + a->size) {
            *inside_some = true;
            return size <= a->size - (start - base);
        }
    }
    return false;
}
