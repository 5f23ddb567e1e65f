/* ze_sim_ddi.c: what makes the sim a Level Zero driver: the zeGet*ProcAddrTable
 * functions the loader calls (each fills one table of function pointers).
 * The loader 1.8 asks for every table of ze_ddi.h, zet_ddi.h and zes_ddi.h
 * (ze_sim_tables.h lists them) and refuses a driver lacking one, so all are
 * exported; the ones the sim does not implement are left zeroed, which the
 * loader answers with ZE_RESULT_ERROR_UNSUPPORTED_FEATURE. Assigning each
 * sim function to its table slot checks it against ze_api.h's prototype.
 * Threads: the loader calls these once, at its initialisation. */
#include <string.h>

#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>

#include "ze_sim_internal.h"

static void sim_fill_global(ze_global_dditable_t *t)
{
    t->pfnInit = sim_zeInit;
}

static void sim_fill_driver(ze_driver_dditable_t *t)
{
    t->pfnGet = sim_zeDriverGet;
    t->pfnGetApiVersion = sim_zeDriverGetApiVersion;
    t->pfnGetProperties = sim_zeDriverGetProperties;
}

static void sim_fill_device(ze_device_dditable_t *t)
{
    t->pfnGet = sim_zeDeviceGet;
    t->pfnGetProperties = sim_zeDeviceGetProperties;
    t->pfnGetMemoryProperties = sim_zeDeviceGetMemoryProperties;
    t->pfnGetCommandQueueGroupProperties = sim_zeDeviceGetCommandQueueGroupProperties;
}

static void sim_fill_context(ze_context_dditable_t *t)
{
    t->pfnCreate = sim_zeContextCreate;
    t->pfnDestroy = sim_zeContextDestroy;
}

static void sim_fill_mem(ze_mem_dditable_t *t)
{
    t->pfnAllocDevice = sim_zeMemAllocDevice;
    t->pfnAllocHost = sim_zeMemAllocHost;
    t->pfnFree = sim_zeMemFree;
}

static void sim_fill_command_list(ze_command_list_dditable_t *t)
{
    t->pfnCreateImmediate = sim_zeCommandListCreateImmediate;
    t->pfnDestroy = sim_zeCommandListDestroy;
    t->pfnAppendMemoryCopy = sim_zeCommandListAppendMemoryCopy;
    t->pfnAppendMemoryFill = sim_zeCommandListAppendMemoryFill;
    t->pfnAppendBarrier = sim_zeCommandListAppendBarrier;
    t->pfnAppendSignalEvent = sim_zeCommandListAppendSignalEvent;
    t->pfnAppendWaitOnEvents = sim_zeCommandListAppendWaitOnEvents;
    t->pfnAppendEventReset = sim_zeCommandListAppendEventReset;
}

static void sim_fill_event_pool(ze_event_pool_dditable_t *t)
{
    t->pfnCreate = sim_zeEventPoolCreate;
    t->pfnDestroy = sim_zeEventPoolDestroy;
}

static void sim_fill_event(ze_event_dditable_t *t)
{
    t->pfnCreate = sim_zeEventCreate;
    t->pfnDestroy = sim_zeEventDestroy;
    t->pfnHostSynchronize = sim_zeEventHostSynchronize;
    t->pfnQueryStatus = sim_zeEventQueryStatus;
    t->pfnHostSignal = sim_zeEventHostSignal;
    t->pfnHostReset = sim_zeEventHostReset;
    t->pfnQueryKernelTimestamp = sim_zeEventQueryKernelTimestamp;
}

static void sim_fill_none(void *t)
{
    (void)t;
}

#define SIM_FILL(table)                                                                            \
    _Generic((table), ze_global_dditable_t *                                                       \
             : sim_fill_global, ze_driver_dditable_t *                                             \
             : sim_fill_driver, ze_device_dditable_t *                                             \
             : sim_fill_device, ze_context_dditable_t *                                            \
             : sim_fill_context, ze_mem_dditable_t *                                               \
             : sim_fill_mem, ze_command_list_dditable_t *                                          \
             : sim_fill_command_list, ze_event_pool_dditable_t *                                   \
             : sim_fill_event_pool, ze_event_dditable_t *                                          \
             : sim_fill_event, default                                                             \
             : sim_fill_none)(table)

/* The major version must match; any 1.x minor is served (the sim's
 * functions are all 1.0). */
#define SIM_TABLE(getter, type)                                                                    \
    SIM_EXPORT ze_result_t getter(ze_api_version_t version, type *table);                          \
    SIM_EXPORT ze_result_t getter(ze_api_version_t version, type *table)                           \
    {                                                                                              \
        if (table == NULL)                                                                         \
            return ZE_RESULT_ERROR_INVALID_NULL_POINTER;                                           \
        if (ZE_MAJOR_VERSION(version) != 1)                                                        \
            return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;                                            \
        memset(table, 0, sizeof *table);                                                           \
        SIM_FILL(table);                                                                           \
        return ZE_RESULT_SUCCESS;                                                                  \
    }
#include "ze_sim_tables.h"
#undef SIM_TABLE
