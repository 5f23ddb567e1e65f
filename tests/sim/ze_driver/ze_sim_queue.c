/* ze_sim_queue.c: the simulated Level Zero driver's immediate command lists
 * (each a worker thread running its commands in order: copies, fills, event
 * signals, resets and waits), event pools and events with kernel
 * timestamps. ACCEL_SIM_STREAM_DELAY_US delays every command, to widen race
 * windows. An event a queued command names stays alive until the command
 * ran, even when destroyed first (freed after it).
 * Threads: any; sim_lock guards every list queue and event field. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ze_sim_internal.h"

#define SIM_MAX_PATTERN 128 /* the compute group's maxMemoryFillPatternSize */

struct _ze_event_pool_handle_t {
    ze_event_pool_flags_t flags;
    uint32_t count;
    int live_events;
    struct _ze_event_pool_handle_t *next; /* in sim_pools */
};

struct _ze_event_handle_t {
    ze_event_pool_handle_t pool;
    bool signalled;
    uint64_t start, end; /* device ticks of the command that signalled it */
    int refs;            /* queued commands naming it */
    bool destroyed;
    struct _ze_event_handle_t *next; /* in sim_events */
};

/* Every pool and event not yet freed, under sim_lock: one whose destroy
 * failed (an injected fault) stays reachable, as it would in a driver. */
static ze_event_pool_handle_t sim_pools;
static ze_event_handle_t sim_events;

/* Unlink and free an event. Under sim_lock. */
static void sim_event_free(ze_event_handle_t event)
{
    for (ze_event_handle_t *link = &sim_events; *link != NULL; link = &(*link)->next) {
        if (*link == event) {
            *link = event->next;
            break;
        }
    }
    free(event);
}

typedef enum { SIM_COPY, SIM_FILL, SIM_SIGNAL, SIM_RESET, SIM_WAIT } sim_kind_t;

typedef struct sim_cmd {
    sim_kind_t kind;
    void *dst;
    const void *src;
    size_t size;
    unsigned char pattern[SIM_MAX_PATTERN];
    size_t pattern_size;
    ze_event_handle_t signal; /* signalled (SIM_RESET: reset) when done */
    uint32_t wait_count;
    ze_event_handle_t *waits; /* waited for before it runs */
    struct sim_cmd *next;
} sim_cmd_t;

struct _ze_command_list_handle_t {
    ze_context_handle_t context;
    ze_device_handle_t device;
    pthread_t thread;
    sim_cmd_t *head, *tail;
    bool stop;
    struct _ze_command_list_handle_t *next; /* in sim_lists */
};

/* Every live command list (for zeMemFree's check), under sim_lock. */
static ze_command_list_handle_t sim_lists;

static bool sim_overlaps(const void *ptr, size_t size, uintptr_t base, size_t length)
{
    uintptr_t start = (uintptr_t)ptr;
    return ptr != NULL && size > 0 && start < base + length && base < start + size;
}

bool sim_ze_range_queued(const void *base, size_t size)
{
    for (ze_command_list_handle_t list = sim_lists; list != NULL; list = list->next)
        for (sim_cmd_t *cmd = list->head; cmd != NULL; cmd = cmd->next)
            if (sim_overlaps(cmd->dst, cmd->size, (uintptr_t)base, size) ||
                sim_overlaps(cmd->src, cmd->size, (uintptr_t)base, size))
                return true;
    return false;
}

/* Device ticks: 2 ns each (timerResolution), 32 valid bits. */
static uint64_t sim_ticks(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec) / 2u) & 0xffffffffu;
}

static long sim_delay;
static pthread_once_t sim_delay_once = PTHREAD_ONCE_INIT;

static void sim_delay_read(void)
{
    const char *text = getenv("ACCEL_SIM_STREAM_DELAY_US");
    sim_delay = text != NULL ? atol(text) : 0;
    if (sim_delay < 0)
        sim_delay = 0;
}

/* ACCEL_SIM_STREAM_DELAY_US, read once. */
static long sim_delay_us(void)
{
    pthread_once(&sim_delay_once, sim_delay_read);
    return sim_delay;
}

/* Drop one reference; frees a destroyed event with none left. Under sim_lock. */
static void sim_event_unref(ze_event_handle_t event)
{
    if (event != NULL && --event->refs == 0 && event->destroyed)
        sim_event_free(event);
}

static void sim_run(sim_cmd_t *cmd)
{
    switch (cmd->kind) {
    case SIM_COPY: memmove(cmd->dst, cmd->src, cmd->size); break;
    case SIM_FILL:
        for (size_t at = 0; at < cmd->size; at += cmd->pattern_size)
            memcpy((unsigned char *)cmd->dst + at, cmd->pattern, cmd->pattern_size);
        break;
    default: break;
    }
}

static bool sim_waits_done(const sim_cmd_t *cmd)
{
    for (uint32_t i = 0; i < cmd->wait_count; i++)
        if (!cmd->waits[i]->signalled)
            return false;
    return true;
}

static void *sim_list_worker(void *arg)
{
    ze_command_list_handle_t list = arg;
    long delay = sim_delay_us();
    pthread_mutex_lock(&sim_lock);
    for (;;) {
        sim_cmd_t *cmd;
        uint64_t start;
        while (list->head == NULL && !list->stop)
            pthread_cond_wait(&sim_changed, &sim_lock);
        if (list->head == NULL)
            break;
        cmd = list->head;
        while (!sim_waits_done(cmd))
            pthread_cond_wait(&sim_changed, &sim_lock);
        pthread_mutex_unlock(&sim_lock);
        if (delay > 0)
            usleep((useconds_t)delay);
        start = sim_ticks();
        sim_run(cmd);
        pthread_mutex_lock(&sim_lock);
        list->head = cmd->next;
        if (list->head == NULL)
            list->tail = NULL;
        if (cmd->signal != NULL) {
            cmd->signal->signalled = cmd->kind != SIM_RESET;
            cmd->signal->start = start;
            cmd->signal->end = sim_ticks();
        }
        sim_event_unref(cmd->signal);
        for (uint32_t i = 0; i < cmd->wait_count; i++)
            sim_event_unref(cmd->waits[i]);
        free(cmd->waits);
        free(cmd);
        pthread_cond_broadcast(&sim_changed);
    }
    pthread_mutex_unlock(&sim_lock);
    return NULL;
}

ze_result_t sim_zeCommandListCreateImmediate(ze_context_handle_t hContext,
                                             ze_device_handle_t hDevice,
                                             const ze_command_queue_desc_t *altdesc,
                                             ze_command_list_handle_t *phCommandList)
{
    ze_command_list_handle_t list;
    SIM_ENTER("zeCommandListCreateImmediate");
    if (hContext == NULL || !sim_ze_is_device(hDevice))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (altdesc == NULL || phCommandList == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (altdesc->stype != ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC || altdesc->ordinal >= 2 ||
        altdesc->priority > ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH ||
        altdesc->mode > ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    list = calloc(1, sizeof *list);
    if (list == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    list->context = hContext;
    list->device = hDevice;
    if (pthread_create(&list->thread, NULL, sim_list_worker, list) != 0) {
        free(list);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    pthread_mutex_lock(&sim_lock);
    hContext->live_lists++;
    list->next = sim_lists;
    sim_lists = list;
    pthread_mutex_unlock(&sim_lock);
    *phCommandList = list;
    return ZE_RESULT_SUCCESS;
}

/* Runs what is still queued, then stops the worker. */
ze_result_t sim_zeCommandListDestroy(ze_command_list_handle_t hCommandList)
{
    SIM_ENTER("zeCommandListDestroy");
    if (hCommandList == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&sim_lock);
    hCommandList->stop = true;
    pthread_cond_broadcast(&sim_changed);
    pthread_mutex_unlock(&sim_lock);
    pthread_join(hCommandList->thread, NULL);
    pthread_mutex_lock(&sim_lock);
    hCommandList->context->live_lists--;
    for (ze_command_list_handle_t *link = &sim_lists; *link != NULL; link = &(*link)->next) {
        if (*link == hCommandList) {
            *link = hCommandList->next;
            break;
        }
    }
    pthread_mutex_unlock(&sim_lock);
    free(hCommandList);
    return ZE_RESULT_SUCCESS;
}

/* Queue `cmd` (its events referenced), or free it and return why not. */
static ze_result_t sim_append(ze_command_list_handle_t list, sim_cmd_t *cmd, uint32_t wait_count,
                              ze_event_handle_t *waits)
{
    if (list == NULL) {
        free(cmd);
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (wait_count > 0 && waits == NULL) {
        free(cmd);
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    if (wait_count > 0) {
        cmd->waits = malloc(wait_count * sizeof *cmd->waits);
        if (cmd->waits == NULL) {
            free(cmd);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        for (uint32_t i = 0; i < wait_count; i++) {
            if (waits[i] == NULL) {
                free(cmd->waits);
                free(cmd);
                return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
            }
            cmd->waits[i] = waits[i];
        }
        cmd->wait_count = wait_count;
    }
    pthread_mutex_lock(&sim_lock);
    if (cmd->signal != NULL)
        cmd->signal->refs++;
    for (uint32_t i = 0; i < cmd->wait_count; i++)
        cmd->waits[i]->refs++;
    if (list->tail != NULL)
        list->tail->next = cmd;
    else
        list->head = cmd;
    list->tail = cmd;
    pthread_cond_broadcast(&sim_changed);
    pthread_mutex_unlock(&sim_lock);
    return ZE_RESULT_SUCCESS;
}

/* A pointer range the device may touch: inside one allocation when it
 * starts inside one (host pointers outside every allocation are system
 * memory, which the sim accepts). Under no lock. */
static bool sim_range_ok(const void *ptr, size_t size)
{
    bool inside, fits;
    pthread_mutex_lock(&sim_lock);
    fits = sim_ze_range_known(ptr, size, &inside);
    pthread_mutex_unlock(&sim_lock);
    return fits || !inside;
}

ze_result_t sim_zeCommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList, void *dstptr,
                                              const void *srcptr, size_t size,
                                              ze_event_handle_t hSignalEvent,
                                              uint32_t numWaitEvents,
                                              ze_event_handle_t *phWaitEvents)
{
    sim_cmd_t *cmd;
    SIM_ENTER("zeCommandListAppendMemoryCopy");
    if (dstptr == NULL || srcptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!sim_range_ok(dstptr, size) || !sim_range_ok(srcptr, size))
        return ZE_RESULT_ERROR_INVALID_SIZE;
    cmd = calloc(1, sizeof *cmd);
    if (cmd == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    *cmd = (sim_cmd_t){
        .kind = SIM_COPY, .dst = dstptr, .src = srcptr, .size = size, .signal = hSignalEvent};
    return sim_append(hCommandList, cmd, numWaitEvents, phWaitEvents);
}

ze_result_t sim_zeCommandListAppendMemoryFill(ze_command_list_handle_t hCommandList, void *ptr,
                                              const void *pattern, size_t pattern_size, size_t size,
                                              ze_event_handle_t hSignalEvent,
                                              uint32_t numWaitEvents,
                                              ze_event_handle_t *phWaitEvents)
{
    sim_cmd_t *cmd;
    SIM_ENTER("zeCommandListAppendMemoryFill");
    if (ptr == NULL || pattern == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (pattern_size == 0 || pattern_size > SIM_MAX_PATTERN ||
        (pattern_size & (pattern_size - 1)) != 0 || size % pattern_size != 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    if (!sim_range_ok(ptr, size))
        return ZE_RESULT_ERROR_INVALID_SIZE;
    cmd = calloc(1, sizeof *cmd);
    if (cmd == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    *cmd = (sim_cmd_t){.kind = SIM_FILL,
                       .dst = ptr,
                       .size = size,
                       .pattern_size = pattern_size,
                       .signal = hSignalEvent};
    memcpy(cmd->pattern, pattern, pattern_size);
    return sim_append(hCommandList, cmd, numWaitEvents, phWaitEvents);
}

/* The sim runs every list in order, so a barrier only orders what the
 * spec says it orders: its own signal after everything before it. */
ze_result_t sim_zeCommandListAppendBarrier(ze_command_list_handle_t hCommandList,
                                           ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                           ze_event_handle_t *phWaitEvents)
{
    sim_cmd_t *cmd;
    SIM_ENTER("zeCommandListAppendBarrier");
    cmd = calloc(1, sizeof *cmd);
    if (cmd == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    *cmd = (sim_cmd_t){.kind = SIM_SIGNAL, .signal = hSignalEvent};
    return sim_append(hCommandList, cmd, numWaitEvents, phWaitEvents);
}

ze_result_t sim_zeCommandListAppendSignalEvent(ze_command_list_handle_t hCommandList,
                                               ze_event_handle_t hEvent)
{
    sim_cmd_t *cmd;
    SIM_ENTER("zeCommandListAppendSignalEvent");
    if (hEvent == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    cmd = calloc(1, sizeof *cmd);
    if (cmd == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    *cmd = (sim_cmd_t){.kind = SIM_SIGNAL, .signal = hEvent};
    return sim_append(hCommandList, cmd, 0, NULL);
}

ze_result_t sim_zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hCommandList,
                                                uint32_t numEvents, ze_event_handle_t *phEvents)
{
    sim_cmd_t *cmd;
    SIM_ENTER("zeCommandListAppendWaitOnEvents");
    cmd = calloc(1, sizeof *cmd);
    if (cmd == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    cmd->kind = SIM_WAIT;
    return sim_append(hCommandList, cmd, numEvents, phEvents);
}

ze_result_t sim_zeCommandListAppendEventReset(ze_command_list_handle_t hCommandList,
                                              ze_event_handle_t hEvent)
{
    sim_cmd_t *cmd;
    SIM_ENTER("zeCommandListAppendEventReset");
    if (hEvent == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    cmd = calloc(1, sizeof *cmd);
    if (cmd == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    *cmd = (sim_cmd_t){.kind = SIM_RESET, .signal = hEvent};
    return sim_append(hCommandList, cmd, 0, NULL);
}

/* ---------------------------------------------------------------- events */

ze_result_t sim_zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc,
                                  uint32_t numDevices, ze_device_handle_t *phDevices,
                                  ze_event_pool_handle_t *phEventPool)
{
    ze_event_pool_handle_t pool;
    SIM_ENTER("zeEventPoolCreate");
    if (hContext == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phEventPool == NULL || (numDevices > 0 && phDevices == NULL))
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->stype != ZE_STRUCTURE_TYPE_EVENT_POOL_DESC || desc->count == 0)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < numDevices; i++)
        if (!sim_ze_is_device(phDevices[i]))
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pool = calloc(1, sizeof *pool);
    if (pool == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pool->flags = desc->flags;
    pool->count = desc->count;
    pthread_mutex_lock(&sim_lock);
    pool->next = sim_pools;
    sim_pools = pool;
    pthread_mutex_unlock(&sim_lock);
    *phEventPool = pool;
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_zeEventPoolDestroy(ze_event_pool_handle_t hEventPool)
{
    SIM_ENTER("zeEventPoolDestroy");
    if (hEventPool == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&sim_lock);
    if (hEventPool->live_events > 0) {
        pthread_mutex_unlock(&sim_lock);
        return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    }
    for (ze_event_pool_handle_t *link = &sim_pools; *link != NULL; link = &(*link)->next) {
        if (*link == hEventPool) {
            *link = hEventPool->next;
            break;
        }
    }
    pthread_mutex_unlock(&sim_lock);
    free(hEventPool);
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t *desc,
                              ze_event_handle_t *phEvent)
{
    ze_event_handle_t event;
    SIM_ENTER("zeEventCreate");
    if (hEventPool == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phEvent == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->stype != ZE_STRUCTURE_TYPE_EVENT_DESC || desc->index >= hEventPool->count)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    event = calloc(1, sizeof *event);
    if (event == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    event->pool = hEventPool;
    pthread_mutex_lock(&sim_lock);
    hEventPool->live_events++;
    event->next = sim_events;
    sim_events = event;
    pthread_mutex_unlock(&sim_lock);
    *phEvent = event;
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_zeEventDestroy(ze_event_handle_t hEvent)
{
    SIM_ENTER("zeEventDestroy");
    if (hEvent == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&sim_lock);
    if (hEvent->destroyed) {
        pthread_mutex_unlock(&sim_lock);
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    hEvent->destroyed = true;
    hEvent->pool->live_events--;
    if (hEvent->refs == 0)
        sim_event_free(hEvent);
    pthread_mutex_unlock(&sim_lock);
    return ZE_RESULT_SUCCESS;
}

/* timeout: ns; UINT64_MAX waits for ever, 0 only looks. */
ze_result_t sim_zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout)
{
    struct timespec deadline;
    ze_result_t result = ZE_RESULT_SUCCESS;
    SIM_ENTER("zeEventHostSynchronize");
    if (hEvent == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    clock_gettime(CLOCK_REALTIME, &deadline);
    if (timeout != UINT64_MAX) {
        uint64_t ns = (uint64_t)deadline.tv_nsec + timeout % 1000000000u;
        deadline.tv_sec += (time_t)(timeout / 1000000000u + ns / 1000000000u);
        deadline.tv_nsec = (long)(ns % 1000000000u);
    }
    pthread_mutex_lock(&sim_lock);
    while (!hEvent->signalled && result == ZE_RESULT_SUCCESS) {
        if (timeout == UINT64_MAX)
            pthread_cond_wait(&sim_changed, &sim_lock);
        else if (pthread_cond_timedwait(&sim_changed, &sim_lock, &deadline) != 0)
            result = hEvent->signalled ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
    }
    pthread_mutex_unlock(&sim_lock);
    return result;
}

ze_result_t sim_zeEventQueryStatus(ze_event_handle_t hEvent)
{
    bool signalled;
    SIM_ENTER("zeEventQueryStatus");
    if (hEvent == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&sim_lock);
    signalled = hEvent->signalled;
    pthread_mutex_unlock(&sim_lock);
    return signalled ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

static ze_result_t sim_event_set(ze_event_handle_t event, bool signalled)
{
    if (event == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&sim_lock);
    event->signalled = signalled;
    if (signalled)
        event->start = event->end = sim_ticks();
    pthread_cond_broadcast(&sim_changed);
    pthread_mutex_unlock(&sim_lock);
    return ZE_RESULT_SUCCESS;
}

ze_result_t sim_zeEventHostSignal(ze_event_handle_t hEvent)
{
    SIM_ENTER("zeEventHostSignal");
    return sim_event_set(hEvent, true);
}

ze_result_t sim_zeEventHostReset(ze_event_handle_t hEvent)
{
    SIM_ENTER("zeEventHostReset");
    return sim_event_set(hEvent, false);
}

/* Needs a pool with ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP and a signalled event. */
ze_result_t sim_zeEventQueryKernelTimestamp(ze_event_handle_t hEvent,
                                            ze_kernel_timestamp_result_t *dstptr)
{
    ze_result_t result = ZE_RESULT_SUCCESS;
    SIM_ENTER("zeEventQueryKernelTimestamp");
    if (hEvent == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (dstptr == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!(hEvent->pool->flags & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    pthread_mutex_lock(&sim_lock);
    if (!hEvent->signalled) {
        result = ZE_RESULT_NOT_READY;
    } else {
        dstptr->global.kernelStart = dstptr->context.kernelStart = hEvent->start;
        dstptr->global.kernelEnd = dstptr->context.kernelEnd = hEvent->end;
    }
    pthread_mutex_unlock(&sim_lock);
    return result;
}
