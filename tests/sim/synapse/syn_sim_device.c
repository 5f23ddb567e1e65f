/* syn_sim_device.c: the simulated SynapseAI runtime's process state,
 * device acquisition, memory and host mapping, written from vendor-apis.md
 * §4 (see tests/sim/README.md for what it models and the variables it
 * reads).
 * - synInitialize first: every other call but synDriverGetVersion answers
 *   synUninitialized before it; a repeated synInitialize succeeds.
 * - Modules 0..n-1 (ACCEL_SIM_DEVICES, default 2) of one type
 *   (ACCEL_SIM_SYN_DEVICE_TYPE, default 4 = Gaudi2). A process acquires a
 *   module once (synDeviceAlreadyAcquired after); with
 *   ACCEL_SIM_SYN_LOCK_DIR each acquisition also holds an flock on
 *   <dir>/module<N>.lock, so a module held by another process (or by anyone
 *   holding that lock) answers synNoDeviceFound, as a busy Gaudi does.
 *   Device ids are handed out in acquisition order (not the module id), so
 *   a binding that confuses the two is caught.
 * - Device memory is host memory at uint64_t addresses with a capacity
 *   (ACCEL_SIM_DEVICE_MEMORY, default 1G); host memory for DMA is
 *   synHostMalloc'd or synHostMap'ped, per module, and the copies check it.
 * Everything is under sim_lock. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "syn_sim_internal.h"

pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t sim_changed = PTHREAD_COND_INITIALIZER;

typedef enum sim_range_kind { SIM_DEVICE, SIM_HOST_MALLOC, SIM_HOST_MAP } sim_range_kind_t;

typedef struct sim_range {
    uint64_t base, size;
    int module;
    sim_range_kind_t kind;
    struct sim_range *next;
} sim_range_t;

static bool sim_init_done;
static int sim_modules = -1;
static size_t sim_capacity;
static uint64_t sim_used[SIM_MAX_DEVICES];
static bool sim_acquired[SIM_MAX_DEVICES];
static synDeviceId sim_ids[SIM_MAX_DEVICES];
static int sim_lock_fds[SIM_MAX_DEVICES] = {-1, -1, -1, -1, -1, -1, -1, -1};
static synDeviceId sim_next_id;
static sim_range_t *sim_ranges;

/* Under sim_lock: the module count and capacity, fixed at first use. */
static int sim_count(void)
{
    if (sim_modules < 0) {
        sim_modules = sim_fault_device_count(2, SIM_MAX_DEVICES);
        sim_capacity = sim_fault_env_size("ACCEL_SIM_DEVICE_MEMORY", (size_t)1 << 30);
    }
    return sim_modules;
}

static uint64_t sim_device_type(void)
{
    const char *text = getenv("ACCEL_SIM_SYN_DEVICE_TYPE");
    return text != NULL && *text != '\0' ? strtoull(text, NULL, 10) : synDeviceGaudi2;
}

bool sim_initialised(void)
{
    bool done;
    pthread_mutex_lock(&sim_lock);
    done = sim_init_done;
    pthread_mutex_unlock(&sim_lock);
    return done;
}

int sim_module_of(synDeviceId id)
{
    for (int m = 0; m < SIM_MAX_DEVICES; m++)
        if (sim_acquired[m] && sim_ids[m] == id)
            return m;
    return -1;
}

SIM_API synStatus synDriverGetVersion(char *pDriverVersion, const int len)
{
    SIM_ENTER("synDriverGetVersion");
    if (pDriverVersion == NULL || len <= 0)
        return synInvalidArgument;
    snprintf(pDriverVersion, (size_t)len, "1.21.0-sim (simulated SynapseAI)");
    return synSuccess;
}

SIM_API synStatus synInitialize(void)
{
    SIM_ENTER("synInitialize");
    pthread_mutex_lock(&sim_lock);
    sim_init_done = true;
    sim_count();
    pthread_mutex_unlock(&sim_lock);
    return synSuccess;
}

SIM_API synStatus synDestroy(void)
{
    SIM_ENTER("synDestroy");
    pthread_mutex_lock(&sim_lock);
    sim_init_done = false;
    pthread_mutex_unlock(&sim_lock);
    return synSuccess;
}

SIM_API synStatus synDeviceGetCount(uint32_t *pCount)
{
    SIM_ENTER("synDeviceGetCount");
    if (!sim_initialised())
        return synUninitialized;
    if (pCount == NULL)
        return synInvalidArgument;
    pthread_mutex_lock(&sim_lock);
    *pCount = (uint32_t)sim_count();
    pthread_mutex_unlock(&sim_lock);
    return synSuccess;
}

/* Under sim_lock: hold <dir>/module<N>.lock, or say it is held elsewhere. */
static synStatus sim_lock_module(int module)
{
    const char *dir = getenv("ACCEL_SIM_SYN_LOCK_DIR");
    char path[512];
    int fd;
    if (dir == NULL || *dir == '\0')
        return synSuccess;
    snprintf(path, sizeof path, "%s/module%d.lock", dir, module);
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return synFail;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return errno == EWOULDBLOCK ? synNoDeviceFound : synFail;
    }
    sim_lock_fds[module] = fd;
    return synSuccess;
}

SIM_API synStatus synDeviceAcquireByModuleId(synDeviceId *pDeviceId, const synModuleId moduleId)
{
    synStatus status = synSuccess;
    SIM_ENTER("synDeviceAcquireByModuleId");
    if (!sim_initialised())
        return synUninitialized;
    if (pDeviceId == NULL)
        return synInvalidArgument;
    pthread_mutex_lock(&sim_lock);
    if ((int)moduleId >= sim_count())
        status = synNoDeviceFound;
    else if (sim_acquired[moduleId])
        status = synDeviceAlreadyAcquired;
    else if ((status = sim_lock_module((int)moduleId)) == synSuccess) {
        sim_acquired[moduleId] = true;
        sim_ids[moduleId] = sim_next_id++;
        *pDeviceId = sim_ids[moduleId];
    }
    pthread_mutex_unlock(&sim_lock);
    return status;
}

/* Releasing frees everything the device still has, as the driver does. */
SIM_API synStatus synDeviceRelease(const synDeviceId deviceId)
{
    int module;
    SIM_ENTER("synDeviceRelease");
    if (!sim_initialised())
        return synUninitialized;
    pthread_mutex_lock(&sim_lock);
    module = sim_module_of(deviceId);
    if (module < 0) {
        pthread_mutex_unlock(&sim_lock);
        return synInvalidArgument;
    }
    if (sim_module_busy(module)) {
        pthread_mutex_unlock(&sim_lock);
        return synBusy;
    }
    for (sim_range_t **link = &sim_ranges; *link != NULL;) {
        sim_range_t *range = *link;
        if (range->module == module) {
            *link = range->next;
            if (range->kind != SIM_HOST_MAP)
                free((void *)(uintptr_t)range->base);
            free(range);
        } else {
            link = &range->next;
        }
    }
    sim_used[module] = 0;
    sim_acquired[module] = false;
    if (sim_lock_fds[module] >= 0) {
        close(sim_lock_fds[module]);
        sim_lock_fds[module] = -1;
    }
    pthread_mutex_unlock(&sim_lock);
    return synSuccess;
}

/* Under sim_lock. */
static synStatus sim_attributes(int module, uint64_t *retVal, const synDeviceAttribute *attrs,
                                unsigned count)
{
    if (retVal == NULL || attrs == NULL || count == 0)
        return synInvalidArgument;
    for (unsigned i = 0; i < count; i++) {
        switch (attrs[i]) {
        case DEVICE_ATTRIBUTE_DRAM_SIZE: retVal[i] = sim_capacity; break;
        case DEVICE_ATTRIBUTE_DRAM_FREE_SIZE: retVal[i] = sim_capacity - sim_used[module]; break;
        case DEVICE_ATTRIBUTE_DEVICE_TYPE: retVal[i] = sim_device_type(); break;
        case DEVICE_ATTRIBUTE_CLK_RATE: retVal[i] = 1800; break;
        case DEVICE_ATTRIBUTE_DRAM_ENABLED: retVal[i] = 1; break;
        default: retVal[i] = 0; break;
        }
    }
    return synSuccess;
}

SIM_API synStatus synDeviceGetAttribute(uint64_t *retVal, const synDeviceAttribute *deviceAttr,
                                        const unsigned querySize, const synDeviceId deviceId)
{
    synStatus status;
    int module;
    SIM_ENTER("synDeviceGetAttribute");
    if (!sim_initialised())
        return synUninitialized;
    pthread_mutex_lock(&sim_lock);
    module = sim_module_of(deviceId);
    status =
        module < 0 ? synInvalidArgument : sim_attributes(module, retVal, deviceAttr, querySize);
    pthread_mutex_unlock(&sim_lock);
    return status;
}

SIM_API synStatus synDeviceGetAttributeByModuleId(uint64_t *retVal,
                                                  const synDeviceAttribute *deviceAttr,
                                                  const unsigned querySize,
                                                  const synModuleId moduleId)
{
    synStatus status;
    SIM_ENTER("synDeviceGetAttributeByModuleId");
    if (!sim_initialised())
        return synUninitialized;
    pthread_mutex_lock(&sim_lock);
    status = (int)moduleId >= sim_count()
                 ? synNoDeviceFound
                 : sim_attributes((int)moduleId, retVal, deviceAttr, querySize);
    pthread_mutex_unlock(&sim_lock);
    return status;
}

SIM_API synStatus synDeviceGetMemoryInfo(const synDeviceId deviceId, uint64_t *free,
                                         uint64_t *total)
{
    int module;
    SIM_ENTER("synDeviceGetMemoryInfo");
    if (!sim_initialised())
        return synUninitialized;
    if (free == NULL || total == NULL)
        return synInvalidArgument;
    pthread_mutex_lock(&sim_lock);
    module = sim_module_of(deviceId);
    if (module >= 0) {
        *total = sim_capacity;
        *free = sim_capacity - sim_used[module];
    }
    pthread_mutex_unlock(&sim_lock);
    return module >= 0 ? synSuccess : synInvalidArgument;
}

SIM_API synStatus synDeviceGetName(char *pName, const int len, const synDeviceId deviceId)
{
    int module;
    SIM_ENTER("synDeviceGetName");
    if (!sim_initialised())
        return synUninitialized;
    if (pName == NULL || len <= 0)
        return synInvalidArgument;
    pthread_mutex_lock(&sim_lock);
    module = sim_module_of(deviceId);
    pthread_mutex_unlock(&sim_lock);
    if (module < 0)
        return synInvalidArgument;
    snprintf(pName, (size_t)len, "GAUDI%s (simulated)",
             sim_device_type() == synDeviceGaudi    ? ""
             : sim_device_type() == synDeviceGaudi3 ? "3"
                                                    : "2");
    return synSuccess;
}

/* ---------------------------------------------------------------- ranges */

/* Under sim_lock. */
static sim_range_t *sim_find(uint64_t addr, uint64_t size)
{
    for (sim_range_t *r = sim_ranges; r != NULL; r = r->next)
        if (addr >= r->base && size <= r->size && addr - r->base <= r->size - size)
            return r;
    return NULL;
}

bool sim_is_device_range(int module, uint64_t addr, uint64_t size)
{
    const sim_range_t *r = sim_find(addr, size);
    return r != NULL && r->kind == SIM_DEVICE && r->module == module;
}

bool sim_is_host_range(int module, uint64_t addr, uint64_t size)
{
    const sim_range_t *r = sim_find(addr, size);
    /* Test-only broken mode of rule SYN-DMA-HOST: a synHostMap'ped range is
     * not reached by DMA (only synHostMalloc memory is). */
    if (r != NULL && r->kind == SIM_HOST_MAP && sim_rule_broken("SYN-DMA-HOST"))
        return false;
    return r != NULL && r->kind != SIM_DEVICE && r->module == module;
}

/* Under sim_lock. */
static synStatus sim_add(uint64_t base, uint64_t size, int module, sim_range_kind_t kind)
{
    sim_range_t *r = calloc(1, sizeof *r);
    if (r == NULL)
        return synOutOfHostMemory;
    r->base = base;
    r->size = size;
    r->module = module;
    r->kind = kind;
    r->next = sim_ranges;
    sim_ranges = r;
    return synSuccess;
}

/* Under sim_lock: remove the range starting exactly at `base` of that kind
 * and module; false when there is none. */
static bool sim_remove(uint64_t base, int module, sim_range_kind_t kind, uint64_t *size)
{
    for (sim_range_t **link = &sim_ranges; *link != NULL; link = &(*link)->next) {
        sim_range_t *r = *link;
        if (r->base == base && r->kind == kind && r->module == module) {
            *link = r->next;
            *size = r->size;
            free(r);
            return true;
        }
    }
    return false;
}

/* Under sim_lock: the module of an acquired device, or -1. */
static int sim_need_module(synDeviceId id)
{
    return sim_init_done ? sim_module_of(id) : -1;
}

SIM_API synStatus synDeviceMalloc(const synDeviceId deviceId, const uint64_t size, uint64_t reqAddr,
                                  const uint32_t flags, uint64_t *buffer)
{
    synStatus status = synSuccess;
    int module;
    void *memory;
    SIM_ENTER("synDeviceMalloc");
    if (buffer == NULL || size == 0 || reqAddr != 0 || flags != 0)
        return synInvalidArgument;
    pthread_mutex_lock(&sim_lock);
    module = sim_need_module(deviceId);
    if (module < 0)
        status = sim_init_done ? synInvalidArgument : synUninitialized;
    else if (sim_fault_alloc_refused(size) || size > sim_capacity - sim_used[module])
        status = synOutOfDeviceMemory;
    else if ((memory = calloc(1, size)) == NULL)
        status = synOutOfDeviceMemory;
    else if ((status = sim_add((uint64_t)(uintptr_t)memory, size, module, SIM_DEVICE)) !=
             synSuccess)
        free(memory);
    else {
        sim_used[module] += size;
        *buffer = (uint64_t)(uintptr_t)memory;
    }
    pthread_mutex_unlock(&sim_lock);
    return status;
}

SIM_API synStatus synDeviceFree(const synDeviceId deviceId, const uint64_t buffer,
                                const uint32_t flags)
{
    synStatus status = synSuccess;
    uint64_t size = 0;
    int module;
    SIM_ENTER("synDeviceFree");
    pthread_mutex_lock(&sim_lock);
    module = sim_need_module(deviceId);
    if (module < 0)
        status = sim_init_done ? synInvalidArgument : synUninitialized;
    else if (flags != 0 || !sim_remove(buffer, module, SIM_DEVICE, &size))
        status = synInvalidArgument;
    else {
        sim_used[module] -= size;
        free((void *)(uintptr_t)buffer);
    }
    pthread_mutex_unlock(&sim_lock);
    return status;
}

SIM_API synStatus synHostMalloc(const synDeviceId deviceId, const uint64_t size,
                                const uint32_t flags, void **buffer)
{
    synStatus status = synSuccess;
    int module;
    void *memory;
    SIM_ENTER("synHostMalloc");
    if (buffer == NULL || size == 0 || flags != 0)
        return synInvalidArgument;
    pthread_mutex_lock(&sim_lock);
    module = sim_need_module(deviceId);
    if (module < 0)
        status = sim_init_done ? synInvalidArgument : synUninitialized;
    else if (sim_fault_alloc_refused(size) || (memory = calloc(1, size)) == NULL)
        status = synOutOfHostMemory;
    else if ((status = sim_add((uint64_t)(uintptr_t)memory, size, module, SIM_HOST_MALLOC)) !=
             synSuccess)
        free(memory);
    else
        *buffer = memory;
    pthread_mutex_unlock(&sim_lock);
    return status;
}

SIM_API synStatus synHostFree(const synDeviceId deviceId, const void *buffer, const uint32_t flags)
{
    synStatus status = synSuccess;
    uint64_t size;
    int module;
    SIM_ENTER("synHostFree");
    pthread_mutex_lock(&sim_lock);
    module = sim_need_module(deviceId);
    if (module < 0)
        status = sim_init_done ? synInvalidArgument : synUninitialized;
    else if (flags != 0 || !sim_remove((uint64_t)(uintptr_t)buffer, module, SIM_HOST_MALLOC, &size))
        status = synInvalidArgument;
    else
        free((void *)buffer);
    pthread_mutex_unlock(&sim_lock);
    return status;
}

SIM_API synStatus synHostMap(const synDeviceId deviceId, const uint64_t size, const void *buffer)
{
    synStatus status;
    int module;
    SIM_ENTER("synHostMap");
    if (buffer == NULL || size == 0)
        return synInvalidArgument;
    pthread_mutex_lock(&sim_lock);
    module = sim_need_module(deviceId);
    if (module < 0)
        status = sim_init_done ? synInvalidArgument : synUninitialized;
    else if (sim_find((uint64_t)(uintptr_t)buffer, 1) != NULL)
        status = synInvalidArgument; /* already mapped or allocated */
    else
        status = sim_add((uint64_t)(uintptr_t)buffer, size, module, SIM_HOST_MAP);
    pthread_mutex_unlock(&sim_lock);
    return status;
}

SIM_API synStatus synHostUnmap(const synDeviceId deviceId, const void *buffer)
{
    synStatus status = synSuccess;
    uint64_t size;
    int module;
    SIM_ENTER("synHostUnmap");
    pthread_mutex_lock(&sim_lock);
    module = sim_need_module(deviceId);
    if (module < 0)
        status = sim_init_done ? synInvalidArgument : synUninitialized;
    else if (!sim_remove((uint64_t)(uintptr_t)buffer, module, SIM_HOST_MAP, &size))
        status = synMappingNotFound;
    pthread_mutex_unlock(&sim_lock);
    return status;
}

SIM_API synStatus synDeviceSynchronize(const synDeviceId deviceId)
{
    int module;
    SIM_ENTER("synDeviceSynchronize");
    pthread_mutex_lock(&sim_lock);
    module = sim_need_module(deviceId);
    if (module >= 0)
        sim_module_drain(module);
    pthread_mutex_unlock(&sim_lock);
    return module >= 0 ? synSuccess : synInvalidArgument;
}

SIM_API synStatus synStatusGetBriefDescription(synStatus status, char *statusDescription,
                                               size_t len)
{
    static const struct {
        synStatus code;
        const char *text;
    } texts[] = {
        {synSuccess, "The operation succeeded"},
        {synInvalidArgument, "An argument was invalid"},
        {synOutOfHostMemory, "Out of host memory"},
        {synOutOfDeviceMemory, "Out of device memory"},
        {synNoDeviceFound, "No device found"},
        {synDeviceAlreadyAcquired, "Device was already acquired"},
        {synBusy, "The resource is busy"},
        {synUnavailable, "The resource is unavailable"},
        {synFail, "The operation failed"},
        {synUninitialized, "Synapse is not initialized"},
        {synMappingNotFound, "No mapping found for the buffer"},
    };
    const char *text = "Unknown status (simulated SynapseAI)";
    SIM_ENTER("synStatusGetBriefDescription");
    if (statusDescription == NULL || len == 0)
        return synInvalidArgument;
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i].code == status)
            text = texts[i].text;
    snprintf(statusDescription, len, "%s", text);
    return synSuccess;
}
