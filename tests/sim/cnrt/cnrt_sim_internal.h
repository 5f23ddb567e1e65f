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
#include "sim_fault.h"

#define SIM_MAX_DEVICES 64
#define SIM_API         SIM_EXPORT

extern pthread_mutex_t sim_lock;
extern pthread_cond_t sim_changed;

/* Every exported function starts with this: counts the call and returns
 * the injected fault, if any. */
#define SIM_ENTER(name)                                                                            \
    do {                                                                                           \
        int sim_injected_ = sim_fault_hit(name);                                                   \
        if (sim_injected_ != 0)                                                                    \
            return (cnrtRet_t)sim_injected_;                                                       \
    } while (0)

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

#endif /* ACCEL_TESTS_SIM_CNRT_SIM_INTERNAL_H */
