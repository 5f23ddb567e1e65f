/* ze_sim_internal.h: the simulated Level Zero driver (a library the real
 * loader loads through ZE_ENABLE_ALT_DRIVERS), shared by its three files:
 * ze_sim_device.c (zeInit, the driver, devices, context, USM memory),
 * ze_sim_queue.c (immediate command lists as worker threads, event pools,
 * events, timestamps) and ze_sim_ddi.c (the DDI tables the loader asks for).
 * The functions are the spec's (ze_api.h, compiled against the real header
 * so every prototype is checked by assigning it to the DDI table); they are
 * not exported by name: the loader reaches them only through the tables.
 * Locking: sim_lock (one mutex) guards every object below; sim_changed (its
 * condition) is broadcast when a command finishes or an event changes. */
#ifndef ACCEL_TESTS_SIM_ZE_SIM_INTERNAL_H
#define ACCEL_TESTS_SIM_ZE_SIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <level_zero/ze_api.h>

#include "sim_break.h"
#include "sim_core.h"

#define SIM_MAX_DEVICES 16

/* ZE-TS-UNITS: the device timer ticks at 19.2 MHz (as Intel's Xe parts
 * do), 52.083 ns a tick; timestamps have SIM_ZE_TICK_BITS valid bits. */
#define SIM_ZE_TIMER_HZ  19200000u
#define SIM_ZE_TICK_BITS 32u
#define SIM_ZE_TICK_MASK ((UINT64_C(1) << SIM_ZE_TICK_BITS) - 1)

/* SIM_ENTER(name) opens every exported function (sim_core.h): the
 * injected code is returned as the ze_result_t. */
static inline ze_result_t sim_injected(const char *name, int code)
{
    (void)name;
    return (ze_result_t)code;
}
#define SIM_ENTER(name) SIM_FAULT_ENTER(name, sim_injected)

struct _ze_driver_handle_t {
    int unused;
};
struct _ze_device_handle_t {
    int index;       /* after ZE_AFFINITY_MASK */
    size_t capacity; /* ACCEL_SIM_DEVICE_MEMORY */
    size_t used;     /* under sim_lock */
};
struct _ze_context_handle_t {
    int live_lists; /* under sim_lock */
};

/* zeInit has run (a driver function before it fails with UNINITIALIZED). */
bool sim_ze_initialised(void);
/* The devices shown (ACCEL_SIM_DEVICES, then ZE_AFFINITY_MASK), fixed at zeInit. */
int sim_ze_device_count(void);
ze_device_handle_t sim_ze_device(int index);
/* True when `handle` is one of the sim's devices. */
bool sim_ze_is_device(ze_device_handle_t handle);
/* `ptr` lies in a live device or host allocation; with `size`, the whole
 * range must fit. Under sim_lock. */
bool sim_ze_range_known(const void *ptr, size_t size, bool *inside_some);

/* A queued (not yet finished) copy or fill touches [base, base + size).
 * Under sim_lock. */
bool sim_ze_range_queued(const void *base, size_t size);

/* ZE-DESTROY-LIVE violations so far (exported for tests, which find it
 * with dlsym). */
SIM_EXPORT unsigned long accel_sim_ze_violations(void);

/* ---- the functions the DDI tables point at */
ze_result_t sim_zeInit(ze_init_flags_t flags);
ze_result_t sim_zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers);
ze_result_t sim_zeDriverGetProperties(ze_driver_handle_t hDriver,
                                      ze_driver_properties_t *pDriverProperties);
ze_result_t sim_zeDriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t *version);
ze_result_t sim_zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount,
                            ze_device_handle_t *phDevices);
ze_result_t sim_zeDeviceGetProperties(ze_device_handle_t hDevice,
                                      ze_device_properties_t *pDeviceProperties);
ze_result_t sim_zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                            ze_device_memory_properties_t *pMemProperties);
ze_result_t sim_zeDeviceGetCommandQueueGroupProperties(
    ze_device_handle_t hDevice, uint32_t *pCount,
    ze_command_queue_group_properties_t *pCommandQueueGroupProperties);
ze_result_t sim_zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                                ze_context_handle_t *phContext);
ze_result_t sim_zeContextDestroy(ze_context_handle_t hContext);
ze_result_t sim_zeMemAllocDevice(ze_context_handle_t hContext,
                                 const ze_device_mem_alloc_desc_t *device_desc, size_t size,
                                 size_t alignment, ze_device_handle_t hDevice, void **pptr);
ze_result_t sim_zeMemAllocHost(ze_context_handle_t hContext,
                               const ze_host_mem_alloc_desc_t *host_desc, size_t size,
                               size_t alignment, void **pptr);
ze_result_t sim_zeMemFree(ze_context_handle_t hContext, void *ptr);

ze_result_t sim_zeCommandListCreateImmediate(ze_context_handle_t hContext,
                                             ze_device_handle_t hDevice,
                                             const ze_command_queue_desc_t *altdesc,
                                             ze_command_list_handle_t *phCommandList);
ze_result_t sim_zeCommandListDestroy(ze_command_list_handle_t hCommandList);
ze_result_t sim_zeCommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList, void *dstptr,
                                              const void *srcptr, size_t size,
                                              ze_event_handle_t hSignalEvent,
                                              uint32_t numWaitEvents,
                                              ze_event_handle_t *phWaitEvents);
ze_result_t sim_zeCommandListAppendMemoryFill(ze_command_list_handle_t hCommandList, void *ptr,
                                              const void *pattern, size_t pattern_size, size_t size,
                                              ze_event_handle_t hSignalEvent,
                                              uint32_t numWaitEvents,
                                              ze_event_handle_t *phWaitEvents);
ze_result_t sim_zeCommandListAppendBarrier(ze_command_list_handle_t hCommandList,
                                           ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                           ze_event_handle_t *phWaitEvents);
ze_result_t sim_zeCommandListAppendSignalEvent(ze_command_list_handle_t hCommandList,
                                               ze_event_handle_t hEvent);
ze_result_t sim_zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hCommandList,
                                                uint32_t numEvents, ze_event_handle_t *phEvents);
ze_result_t sim_zeCommandListAppendEventReset(ze_command_list_handle_t hCommandList,
                                              ze_event_handle_t hEvent);
ze_result_t sim_zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc,
                                  uint32_t numDevices, ze_device_handle_t *phDevices,
                                  ze_event_pool_handle_t *phEventPool);
ze_result_t sim_zeEventPoolDestroy(ze_event_pool_handle_t hEventPool);
ze_result_t sim_zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t *desc,
                              ze_event_handle_t *phEvent);
ze_result_t sim_zeEventDestroy(ze_event_handle_t hEvent);
ze_result_t sim_zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout);
ze_result_t sim_zeEventQueryStatus(ze_event_handle_t hEvent);
ze_result_t sim_zeEventHostSignal(ze_event_handle_t hEvent);
ze_result_t sim_zeEventHostReset(ze_event_handle_t hEvent);
ze_result_t sim_zeEventQueryKernelTimestamp(ze_event_handle_t hEvent,
                                            ze_kernel_timestamp_result_t *dstptr);

#endif /* ACCEL_TESTS_SIM_ZE_SIM_INTERNAL_H */
