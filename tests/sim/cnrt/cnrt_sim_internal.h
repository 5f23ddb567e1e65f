/* cnrt_sim_internal.h: state shared by the two halves of the simulated
 * libcnrt.so: cnrt_sim_device.c (devices, memory, error text) and
 * cnrt_sim_queue.c (queues as worker threads, copies, notifiers, host
 * functions, capture into task topologies).
 * Locking: sim_lock (one mutex) guards every table and every queue,
 * notifier and topology field; sim_changed (its condition) is broadcast
 * whenever a task finishes or a notifier completes. */
#ifndef ACCEL_TESTS_SIM_CNRT_SIM_INTERNAL_H
#define ACCEL_TESTS_SIM_CNRT_SIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "cnrt_sim.h"
#include "sim_break.h"
#include "sim_core.h"

#define SIM_MAX_DEVICES 64

/* SIM_ENTER(name) opens every exported function (sim_core.h): the
 * injected code is returned as the cnrtRet_t. */
static inline cnrtRet_t sim_injected(const char *name, int code)
{
    (void)name;
    return (cnrtRet_t)code;
}
#define SIM_ENTER(name) SIM_FAULT_ENTER(name, sim_injected)

/* The device count (ACCEL_SIM_DEVICES, default 2, then MLU_VISIBLE_DEVICES),
 * fixed at first use. */
int sim_device_count(void);
/* The calling thread's device (cnrtSetDevice), or -1. */
int sim_current_device(void);
/* cnrtErrorNoCnrtContext unless the thread has set a device. */
cnrtRet_t sim_need_device(void);
/* Whether [ptr, ptr + size) lies inside one device allocation. */
bool sim_is_device_range(const void *ptr, size_t size);
/* Wait until every queue of `device` is idle (cnrtSyncDevice). */
void sim_queues_drain(int device);
/* cnrtErrorQueueCaptureUnsupported when a queue of `device` captures (or
 * joined a capture), invalidating those captures; cnrtSuccess otherwise
 * (the harsher reading of torch_mlu's rules: tests/sim/README.md). */
cnrtRet_t sim_device_capture_conflict(int device);

#endif /* ACCEL_TESTS_SIM_CNRT_SIM_INTERNAL_H */
