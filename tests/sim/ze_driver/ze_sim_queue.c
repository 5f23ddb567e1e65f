/* ze_sim_queue.c: the simulated Level Zero driver's immediate command lists
 * (each a worker thread running copies, fills, barriers, event signals,
 * resets and waits), event pools and events with kernel timestamps.
 * ACCEL_SIM_STREAM_DELAY_US delays every command, to widen race windows.
 * The rules it enforces (tests/sim/README.md, "ze_driver rules"):
 * - ZE-ORDER (harsher): a list is not in order. Only a barrier with no wait
 *   events waits for every earlier command, and a barrier or a wait on
 *   events holds back every later one (ze_api.h:2439-2444; :3395, the
 *   wait's "before continuing"). Anything else may run before earlier commands: a
 *   bare zeCommandListAppendSignalEvent or event reset does run ahead of the
 *   copies and fills queued before it (ze_api.h:3337-3350 promise no order).
 * - ZE-TS-UNDEF: kernel timestamps of an event last signalled by
 *   zeCommandListAppendSignalEvent or zeEventHostSignal are garbage
 *   (ze_api.h:3341-3345, :3403-3407: "the duration ... is undefined").
 * - ZE-POOL-DEV (harsher): an event used on a list of a device its pool was
 *   not created for is refused with INVALID_ARGUMENT (ze_api.h:3103-3104).
 * - ZE-DESTROY-LIVE (harsher): zeEventDestroy or zeEventPoolDestroy while a
 *   queued command names the event (ze_api.h:3241, :3143) is a violation:
 *   said on stderr, counted (accel_sim_ze_violations) and every list naming
 *   it is lost (its later appends fail with DEVICE_LOST). The event's memory
 *   stays until the command ran, so the sim itself reads nothing freed.
 * Threads: any; sim_lock guards every list queue and event field. */
#include <stdint.h>
#include <stdio.h>
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
    bool all_devices;                     /* created with no device list */
    bool devices[SIM_MAX_DEVICES];        /* else: sim_ze_device(i) given */
    struct _ze_event_pool_handle_t *next; /* in sim_pools */
};

struct _ze_event_handle_t {
    ze_event_pool_handle_t pool;
    bool signalled;
    uint64_t start, end;   /* device ticks of the command that signalled it */
    bool stamps_undefined; /* last signalled bare or from the host (ZE-TS-UNDEF) */
    int refs;              /* queued commands naming it */
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

typedef enum { SIM_COPY, SIM_FILL, SIM_BARRIER, SIM_SIGNAL, SIM_RESET, SIM_WAIT } sim_kind_t;

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
    bool lost; /* a violation named its commands: appends fail (DEVICE_LOST) */
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

static unsigned long sim_violations; /* under sim_lock */

SIM_EXPORT unsigned long accel_sim_ze_violations(void)
{
    unsigned long count;
    pthread_mutex_lock(&sim_lock);
    count = sim_violations;
    pthread_mutex_unlock(&sim_lock);
    return count;
}

static uint64_t sim_tick_offset;
static pthread_once_t sim_tick_once = PTHREAD_ONCE_INIT;

/* ZE-TS-WRAP (ze_api.h:1177, :3546: kernel timestamps have
 * kernelTimestampValidBits valid bits): ACCEL_SIM_ZE_WRAP_MS=n makes the
 * 32-bit counter wrap n ms after its first reading. */
static void sim_tick_start(void)
{
    const char *wrap = getenv("ACCEL_SIM_ZE_WRAP_MS");
    if (wrap != NULL && wrap[0] != '\0') {
        uint64_t now = sim_now_ns() * 12u / 625u;
        uint64_t left = (uint64_t)atol(wrap) * (SIM_ZE_TIMER_HZ / 1000u);
        sim_tick_offset =
            (SIM_ZE_TICK_MASK + 1 - left - (now & SIM_ZE_TICK_MASK)) & SIM_ZE_TICK_MASK;
    }
}

/* Device ticks at SIM_ZE_TIMER_HZ (19.2 MHz: 52.083 ns each, which the 1.0
 * stype's whole ns cannot say), SIM_ZE_TICK_BITS valid bits. */
static uint64_t sim_ticks(void)
{
    uint64_t ticks;
    pthread_once(&sim_tick_once, sim_tick_start);
    ticks = (sim_now_ns() * 12u / 625u + sim_tick_offset) & SIM_ZE_TICK_MASK;
    /* Test-only broken mode of rule ZE-TS-WRAP: the counter wraps at 18
     * bits (every 13.7 ms) while the device says 64 valid bits. */
    return sim_rule_broken("ZE-TS-WRAP") ? ticks & ((UINT64_C(1) << 18) - 1) : ticks;
}

/* ZE-TS-UNDEF: what an undefined timestamp reads as (xorshift, so a failure
 * repeats). Under sim_lock. */
static uint64_t sim_garbage(void)
{
    static uint64_t state = 0x9e3779b97f4a7c15u;
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state & SIM_ZE_TICK_MASK;
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

/* How long the commands a bare signal or reset overtook wait after it
 * (ZE-ORDER): long enough that whoever waited for the signal looks at
 * their results before they land, every time. */
#define SIM_ZE_OVERTAKEN_US 20000

/* ZE-ORDER: the command the list runs next, or NULL when none may run yet.
 * A barrier with no wait events runs only first in the list (everything
 * before it complete); a barrier or a wait holds back what follows it; a
 * bare signal or reset runs as soon as it may, ahead of earlier copies and
 * fills (the harsher reading); otherwise the oldest command that may run.
 * Under sim_lock. */
static sim_cmd_t *sim_next(ze_command_list_handle_t list)
{
    sim_cmd_t *pick = NULL;
    for (sim_cmd_t *cmd = list->head; cmd != NULL; cmd = cmd->next) {
        bool holds = cmd->kind == SIM_BARRIER || cmd->kind == SIM_WAIT;
        if (cmd->kind == SIM_BARRIER && cmd->wait_count == 0 && cmd != list->head)
            break;
        if (sim_waits_done(cmd)) {
            if (cmd->kind == SIM_SIGNAL || cmd->kind == SIM_RESET)
                return cmd;
            if (pick == NULL)
                pick = cmd;
        }
        if (holds)
            break;
    }
    return pick;
}

/* Unlink a command that ran. Under sim_lock. */
static void sim_unlink(ze_command_list_handle_t list, sim_cmd_t *cmd)
{
    sim_cmd_t *prev = NULL;
    for (sim_cmd_t *at = list->head; at != cmd; at = at->next)
        prev = at;
    if (prev == NULL)
        list->head = cmd->next;
    else
        prev->next = cmd->next;
    if (list->tail == cmd)
        list->tail = prev;
}

static void *sim_list_worker(void *arg)
{
    ze_command_list_handle_t list = arg;
    long delay = sim_delay_us();
    pthread_mutex_lock(&sim_lock);
    for (;;) {
        sim_cmd_t *cmd;
        uint64_t start;
        bool overtook;
        while ((cmd = sim_next(list)) == NULL && !(list->head == NULL && list->stop))
            pthread_cond_wait(&sim_changed, &sim_lock);
        if (cmd == NULL)
            break;
        overtook = cmd != list->head;
        /* it stays listed while it runs (zeMemFree looks for it) */
        pthread_mutex_unlock(&sim_lock);
        if (delay > 0)
            usleep((useconds_t)delay);
        start = sim_ticks();
        sim_run(cmd);
        pthread_mutex_lock(&sim_lock);
        sim_unlink(list, cmd);
        if (cmd->signal != NULL) {
            cmd->signal->signalled = cmd->kind != SIM_RESET;
            cmd->signal->start = start;
            cmd->signal->end = sim_ticks();
            /* Test-only broken mode of rule ZE-TS-UNDEF: a barrier's
             * timestamps are undefined too. */
            cmd->signal->stamps_undefined =
                cmd->kind == SIM_SIGNAL || sim_rule_broken("ZE-TS-UNDEF");
        }
        sim_event_unref(cmd->signal);
        for (uint32_t i = 0; i < cmd->wait_count; i++)
            sim_event_unref(cmd->waits[i]);
        free(cmd->waits);
        free(cmd);
        pthread_cond_broadcast(&sim_changed);
        if (overtook) {
            pthread_mutex_unlock(&sim_lock);
            usleep(SIM_ZE_OVERTAKEN_US);
            pthread_mutex_lock(&sim_lock);
        }
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

/* ZE-POOL-DEV: the event's pool was created for the list's device. Under
 * sim_lock. */
static bool sim_event_usable_on(ze_event_handle_t event, ze_command_list_handle_t list)
{
    ze_event_pool_handle_t pool = event->pool;
    /* Test-only broken mode of rule ZE-POOL-DEV: a pool serves only the
     * first device it was created for (device 0 when created for all). */
    if (sim_rule_broken("ZE-POOL-DEV")) {
        for (int i = 0; i < SIM_MAX_DEVICES; i++)
            if (pool->all_devices || pool->devices[i])
                return sim_ze_device(i) == list->device;
        return false;
    }
    if (pool->all_devices)
        return true;
    for (int i = 0; i < SIM_MAX_DEVICES; i++)
        if (pool->devices[i] && sim_ze_device(i) == list->device)
            return true;
    return false;
}

/* Queue `cmd` (its events referenced), or free it and return why not. */
static ze_result_t sim_append(ze_command_list_handle_t list, sim_cmd_t *cmd, uint32_t wait_count,
                              ze_event_handle_t *waits)
{
    ze_result_t result;
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
    result = list->lost ? ZE_RESULT_ERROR_DEVICE_LOST : ZE_RESULT_SUCCESS;
    if (cmd->signal != NULL && !sim_event_usable_on(cmd->signal, list))
        result = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < cmd->wait_count; i++)
        if (!sim_event_usable_on(cmd->waits[i], list))
            result = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (result != ZE_RESULT_SUCCESS) {
        pthread_mutex_unlock(&sim_lock);
        free(cmd->waits);
        free(cmd);
        return result;
    }
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

/* ZE-ORDER: with no wait events, runs after every earlier command; holds
 * back every later one (sim_next). */
ze_result_t sim_zeCommandListAppendBarrier(ze_command_list_handle_t hCommandList,
                                           ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                           ze_event_handle_t *phWaitEvents)
{
    sim_cmd_t *cmd;
    SIM_ENTER("zeCommandListAppendBarrier");
    cmd = calloc(1, sizeof *cmd);
    if (cmd == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    *cmd = (sim_cmd_t){.kind = SIM_BARRIER, .signal = hSignalEvent};
    /* Test-only broken mode of rule ZE-ORDER: a barrier with no wait events
     * that signals runs as a bare signal, ahead of earlier commands. */
    if (numWaitEvents == 0 && hSignalEvent != NULL && sim_rule_broken("ZE-ORDER"))
        cmd->kind = SIM_SIGNAL;
    return sim_append(hCommandList, cmd, numWaitEvents, phWaitEvents);
}

/* ZE-ORDER, ZE-TS-UNDEF: may run before earlier commands; its timestamps
 * are garbage. */
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

/* ZE-DESTROY-LIVE: `event` is destroyed (or its pool) while queued
 * commands name it: say so, count it, lose every list naming it. Under
 * sim_lock. */
static void sim_violation(ze_event_handle_t event, const char *call, const char *source)
{
    sim_violations++;
    fprintf(stderr,
            "ze sim: %s while a queued command still names the event (%s: \"must ensure the "
            "device is not currently referencing the event\"); its list is lost\n",
            call, source);
    for (ze_command_list_handle_t list = sim_lists; list != NULL; list = list->next)
        for (sim_cmd_t *cmd = list->head; cmd != NULL; cmd = cmd->next) {
            bool names = cmd->signal == event;
            for (uint32_t i = 0; i < cmd->wait_count; i++)
                names = names || cmd->waits[i] == event;
            if (names)
                list->lost = true;
        }
}

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
    pool->all_devices = numDevices == 0;
    for (uint32_t i = 0; i < numDevices; i++)
        for (int d = 0; d < sim_ze_device_count(); d++)
            if (phDevices[i] == sim_ze_device(d))
                pool->devices[d] = true;
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
    for (ze_event_handle_t event = sim_events; event != NULL; event = event->next)
        if (event->pool == hEventPool && event->refs > 0)
            sim_violation(event, "zeEventPoolDestroy", "ze_api.h:3143");
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
    if (hEvent->refs > 0)
        sim_violation(hEvent, "zeEventDestroy", "ze_api.h:3241");
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
    /* Test-only broken mode of rule ZE-DESTROY-LIVE: every event says
     * signalled, so whoever defers a destroy until the device has passed
     * the event's commands destroys it while they are still queued. */
    if (sim_rule_broken("ZE-DESTROY-LIVE"))
        signalled = true;
    return signalled ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

static ze_result_t sim_event_set(ze_event_handle_t event, bool signalled)
{
    if (event == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&sim_lock);
    event->signalled = signalled;
    event->stamps_undefined = true; /* ZE-TS-UNDEF: a host signal has no duration */
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
        result = ZE_RESULT_NOT_READY; /* ZE-TS-NOTREADY (ze_api.h:3570-3571), dstptr untouched */
    } else if (hEvent->stamps_undefined) {
        dstptr->global.kernelStart = sim_garbage();
        dstptr->global.kernelEnd = sim_garbage();
        dstptr->context.kernelStart = sim_garbage();
        dstptr->context.kernelEnd = sim_garbage();
    } else {
        dstptr->global.kernelStart = dstptr->context.kernelStart = hEvent->start;
        dstptr->global.kernelEnd = dstptr->context.kernelEnd = hEvent->end;
    }
    pthread_mutex_unlock(&sim_lock);
    return result;
}
