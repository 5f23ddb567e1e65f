/* sdaa_sim_device.c: the simulated SDAA runtime's process state, devices,
 * memory and error text. Device memory is host memory with a per-device
 * capacity (ACCEL_SIM_DEVICE_MEMORY, default 1G), tracked allocation by
 * allocation so that copies and fills can be checked against where their
 * pointers really are. Written from vendor-apis.md §6 and the public early
 * sdaa_runtime.h, with CUDA's runtime rules where that header is silent
 * (tests/sim/README.md says which). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdaa_sim_internal.h"
#include "sim_alloc.h"
#include "sim_thread.h"
#include "sim_violation.h"

pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t sim_changed = PTHREAD_COND_INITIALIZER;

static int sim_devices = -1;
static size_t sim_capacity;
static size_t sim_used[SIM_MAX_DEVICES];
static sim_allocs_t sim_allocs; /* device and pinned memory */

sdaaError_t sim_error(sdaaError_t code, const char *fmt, ...)
{
    const char *log = getenv("ACCEL_SIM_FAULT_LOG");
    va_list args;
    va_start(args, fmt);
    sim_thread_verror(code, fmt, args);
    va_end(args);
    if (log != NULL && strcmp(log, "1") == 0)
        fprintf(stderr, "sdaart sim: error %d: %s\n", (int)code, sim_thread_last_message(0));
    return code;
}

void sim_violation(const char *rule, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    sim_violation_vreport("sdaart", rule, fmt, args);
    va_end(args);
}

/* For tests that load the sim in-process: how many rule violations it has
 * recorded (sim_violation). */
SIM_API unsigned long accel_sim_sdaa_violations(void)
{
    return sim_violation_count();
}

/* Under sim_lock. */
static void sim_read_config(void)
{
    if (sim_devices >= 0)
        return;
    sim_devices = sim_visible_devices("SDAA_VISIBLE_DEVICES",
                                      sim_fault_device_count(2, SIM_MAX_DEVICES), false);
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

int sim_current_device(void)
{
    return sim_thread_device(0);
}

sdaaError_t sim_need_device(const char *function)
{
    if (sim_device_count() == 0)
        return sim_error(sdaaErrorNoDevice, "%s: no SDAA device", function);
    return sdaaSuccess;
}

/* ---------------------------------------------------------------- errors */

static const struct {
    sdaaError_t code;
    const char *name, *text;
} sim_errors[] = {
    {sdaaSuccess, "sdaaSuccess", "no error"},
    {sdaaErrorInvalidValue, "sdaaErrorInvalidValue", "invalid argument"},
    {sdaaErrorOutOfMemory, "sdaaErrorOutOfMemory", "out of memory"},
    {sdaaErrorNotInitialized, "sdaaErrorNotInitialized", "initialization error"},
    {sdaaErrorInvalidDevicePointer, "sdaaErrorInvalidDevicePointer", "invalid device pointer"},
    {sdaaErrorInvalidMemcpyDirection, "sdaaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {sdaaErrorNoDevice, "sdaaErrorNoDevice", "no SDAA-capable device is detected"},
    {sdaaErrorInvalidDevice, "sdaaErrorInvalidDevice", "invalid device ordinal"},
    {sdaaErrorInvalidHandle, "sdaaErrorInvalidHandle", "invalid resource handle"},
    {sdaaErrorNotReady, "sdaaErrorNotReady", "device not ready"},
    {sdaaErrorNotSupported, "sdaaErrorNotSupported", "operation not supported"},
    {sdaaErrorUnknown, "sdaaErrorUnknown", "unknown error"},
};

/* Never NULL, as CUDA's and HIP's are not: unknown codes get a fixed text. */
SIM_API const char *sdaaGetErrorName(sdaaError_t error)
{
    for (size_t i = 0; i < sizeof sim_errors / sizeof sim_errors[0]; i++)
        if (sim_errors[i].code == error)
            return sim_errors[i].name;
    return "sdaaErrorUnknown";
}

SIM_API const char *sdaaGetErrorString(sdaaError_t error)
{
    for (size_t i = 0; i < sizeof sim_errors / sizeof sim_errors[0]; i++)
        if (sim_errors[i].code == error)
            return sim_errors[i].text;
    return "unknown error";
}

/* Returns the thread's last error and resets it, as CUDA's does. */
SIM_API sdaaError_t sdaaGetLastError(void)
{
    return (sdaaError_t)sim_thread_last_code(1);
}

SIM_API sdaaError_t sdaaPeekAtLastError(void)
{
    return (sdaaError_t)sim_thread_last_code(0);
}

/* ---------------------------------------------------------------- devices */

/* Zero devices: *count = 0 and sdaaErrorNoDevice, as CUDA answers. */
SIM_API sdaaError_t sdaaGetDeviceCount(int *count)
{
    SIM_ENTER("sdaaGetDeviceCount");
    if (count == NULL)
        return sim_error(sdaaErrorInvalidValue, "sdaaGetDeviceCount: count is NULL");
    *count = sim_device_count();
    if (*count == 0)
        return sim_error(sdaaErrorNoDevice, "sdaaGetDeviceCount: no SDAA device");
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaSetDevice(int device)
{
    SIM_ENTER("sdaaSetDevice");
    if (device < 0 || device >= sim_device_count())
        return sim_error(sdaaErrorInvalidDevice, "sdaaSetDevice: no device %d (%d present)", device,
                         sim_device_count());
    sim_thread_set_device(device);
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaGetDevice(int *device)
{
    SIM_ENTER("sdaaGetDevice");
    if (device == NULL)
        return sim_error(sdaaErrorInvalidValue, "sdaaGetDevice: device is NULL");
    *device = sim_current_device();
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaDeviceSynchronize(void)
{
    sdaaError_t code;
    SIM_ENTER("sdaaDeviceSynchronize");
    if ((code = sim_need_device("sdaaDeviceSynchronize")) != sdaaSuccess)
        return code;
    sim_streams_drain(sim_current_device());
    return sdaaSuccess;
}

/* ACCEL_SIM_SDAA_NAME names the devices (default "Teco T1 (simulated)"). */
SIM_API sdaaError_t sdaaGetDeviceProperties(sdaaDeviceProp_t *props, int device)
{
    const char *name = getenv("ACCEL_SIM_SDAA_NAME");
    SIM_ENTER("sdaaGetDeviceProperties");
    if (props == NULL)
        return sim_error(sdaaErrorInvalidValue, "sdaaGetDeviceProperties: props is NULL");
    if (device < 0 || device >= sim_device_count())
        return sim_error(sdaaErrorInvalidDevice, "sdaaGetDeviceProperties: no device %d", device);
    memset(props, 0, sizeof *props);
    snprintf(props->name, sizeof props->name, "%s",
             name != NULL && *name != '\0' ? name : "Teco T1 (simulated)");
    pthread_mutex_lock(&sim_lock);
    sim_read_config();
    props->totalGlobalMem = sim_capacity;
    pthread_mutex_unlock(&sim_lock);
    props->chipsetID = 1;
    props->pciDeviceID = 0x1000 + device;
    props->pciVendor = 0x1e27;
    props->pciBusID = 0x40 + device;
    props->clockRate = 1000000;
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaRuntimeGetVersion(int *runtimeVersion)
{
    SIM_ENTER("sdaaRuntimeGetVersion");
    if (runtimeVersion == NULL)
        return sim_error(sdaaErrorInvalidValue, "sdaaRuntimeGetVersion: pointer is NULL");
    *runtimeVersion = 1200;
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaDriverGetVersion(int *driverVersion)
{
    SIM_ENTER("sdaaDriverGetVersion");
    if (driverVersion == NULL)
        return sim_error(sdaaErrorInvalidValue, "sdaaDriverGetVersion: pointer is NULL");
    *driverVersion = 1210;
    return sdaaSuccess;
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

bool sim_is_pinned_range(const void *ptr, size_t size)
{
    bool inside;
    pthread_mutex_lock(&sim_lock);
    inside = sim_allocs_find(&sim_allocs, ptr, size, SIM_ALLOC_PINNED) != NULL;
    pthread_mutex_unlock(&sim_lock);
    return inside;
}

static sdaaError_t sim_record(char *base, size_t size, int device, sim_alloc_kind_t kind)
{
    bool recorded;
    pthread_mutex_lock(&sim_lock);
    recorded = sim_allocs_add(&sim_allocs, base, size, device, kind);
    pthread_mutex_unlock(&sim_lock);
    return recorded ? sdaaSuccess : sdaaErrorOutOfMemory;
}

/* ---------------------------------------------------------------- device memory */

/* On the calling thread's device; size 0 gives NULL and success (CUDA). */
SIM_API sdaaError_t sdaaMalloc(void **ptr, size_t size)
{
    sdaaError_t code;
    int device = sim_current_device();
    void *base = NULL;
    SIM_ENTER("sdaaMalloc");
    if ((code = sim_need_device("sdaaMalloc")) != sdaaSuccess)
        return code;
    if (ptr == NULL)
        return sim_error(sdaaErrorInvalidValue, "sdaaMalloc: ptr is NULL");
    if (size == 0) {
        *ptr = NULL;
        return sdaaSuccess;
    }
    if (sim_fault_alloc_refused(size))
        return sim_error(sdaaErrorOutOfMemory,
                         "sdaaMalloc: %zu bytes refused (ACCEL_SIM_FAIL_ALLOC_ABOVE)", size);
    pthread_mutex_lock(&sim_lock);
    sim_read_config();
    if (size > sim_capacity - sim_used[device]) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(sdaaErrorOutOfMemory, "sdaaMalloc: %zu bytes do not fit in device %d",
                         size, device);
    }
    sim_used[device] += size;
    pthread_mutex_unlock(&sim_lock);
    if (posix_memalign(&base, 512, size) != 0 ||
        sim_record(base, size, device, SIM_ALLOC_DEVICE) != sdaaSuccess) {
        free(base);
        pthread_mutex_lock(&sim_lock);
        sim_used[device] -= size;
        pthread_mutex_unlock(&sim_lock);
        return sim_error(sdaaErrorOutOfMemory, "sdaaMalloc: host memory exhausted");
    }
    *ptr = base;
    return sdaaSuccess;
}

/* NULL is no error (CUDA). Frees at once: the real runtime synchronizes
 * first; the sim lets a stream still reading the memory show up under ASan
 * instead. */
SIM_API sdaaError_t sdaaFree(void *ptr)
{
    sim_alloc_t record;
    bool found;
    SIM_ENTER("sdaaFree");
    if (ptr == NULL)
        return sdaaSuccess;
    pthread_mutex_lock(&sim_lock);
    found = sim_allocs_take(&sim_allocs, ptr, SIM_ALLOC_DEVICE, &record);
    if (found)
        sim_used[record.device] -= record.size;
    pthread_mutex_unlock(&sim_lock);
    if (!found)
        return sim_error(sdaaErrorInvalidDevicePointer, "sdaaFree: %p is not device memory", ptr);
    free(record.base);
    return sdaaSuccess;
}

/* For the calling thread's device. */
SIM_API sdaaError_t sdaaMemGetInfo(size_t *free_bytes, size_t *total)
{
    sdaaError_t code;
    SIM_ENTER("sdaaMemGetInfo");
    if ((code = sim_need_device("sdaaMemGetInfo")) != sdaaSuccess)
        return code;
    if (free_bytes == NULL || total == NULL)
        return sim_error(sdaaErrorInvalidValue, "sdaaMemGetInfo: a pointer is NULL");
    pthread_mutex_lock(&sim_lock);
    sim_read_config();
    *total = sim_capacity;
    *free_bytes = sim_capacity - sim_used[sim_current_device()];
    pthread_mutex_unlock(&sim_lock);
    return sdaaSuccess;
}

/* ---------------------------------------------------------------- pinned host memory */

SIM_API sdaaError_t sdaaMallocHost(void **ptr, size_t size)
{
    sdaaError_t code;
    void *base;
    SIM_ENTER("sdaaMallocHost");
    if ((code = sim_need_device("sdaaMallocHost")) != sdaaSuccess)
        return code;
    if (ptr == NULL || size == 0)
        return sim_error(sdaaErrorInvalidValue, "sdaaMallocHost: ptr NULL or size 0");
    if (sim_fault_alloc_refused(size) || (base = malloc(size)) == NULL)
        return sim_error(sdaaErrorOutOfMemory, "sdaaMallocHost: %zu bytes refused", size);
    if (sim_record(base, size, -1, SIM_ALLOC_PINNED) != sdaaSuccess) {
        free(base);
        return sim_error(sdaaErrorOutOfMemory, "sdaaMallocHost: out of host memory");
    }
    *ptr = base;
    return sdaaSuccess;
}

SIM_API sdaaError_t sdaaFreeHost(void *ptr)
{
    sim_alloc_t record;
    SIM_ENTER("sdaaFreeHost");
    if (ptr == NULL)
        return sdaaSuccess;
    pthread_mutex_lock(&sim_lock);
    if (!sim_allocs_take(&sim_allocs, ptr, SIM_ALLOC_PINNED, &record)) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(sdaaErrorInvalidValue, "sdaaFreeHost: %p did not come from sdaaMallocHost",
                         ptr);
    }
    pthread_mutex_unlock(&sim_lock);
    free(record.base);
    return sdaaSuccess;
}
