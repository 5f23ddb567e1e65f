/* syn_sim_internal.h: state shared by the two halves of the simulated
 * libSynapse.so: syn_sim_device.c (initialisation, acquisition, memory,
 * host mapping, status text) and syn_sim_stream.c (streams as worker
 * threads, copies, fills, events).
 * Locking: sim_lock guards every table below and every stream queue and
 * event field; sim_changed is broadcast whenever a task finishes. */
#ifndef ACCEL_TESTS_SIM_SYN_SIM_INTERNAL_H
#define ACCEL_TESTS_SIM_SYN_SIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "sim_break.h"
#include "sim_core.h"
#include "syn_sim.h"

#define SIM_MAX_DEVICES 8

/* SIM_ENTER(name) opens every exported function (sim_core.h): the
 * injected code is returned as the synStatus. */
static inline synStatus sim_injected(const char *name, int code)
{
    (void)name;
    return (synStatus)code;
}
#define SIM_ENTER(name) SIM_FAULT_ENTER(name, sim_injected)

/* synInitialize has run. */
bool sim_initialised(void);
/* The module (0..count-1) an acquired device id stands for, or -1. Under
 * sim_lock. */
int sim_module_of(synDeviceId id);

/* Where a range lies, for the copies' checks (under sim_lock): inside one
 * device allocation of `module`, or inside one synHostMalloc'd or mapped
 * range of `module`. */
bool sim_is_device_range(int module, uint64_t addr, uint64_t size);
bool sim_is_host_range(int module, uint64_t addr, uint64_t size);

/* Streams of `module` still alive (synDeviceRelease refuses while any has
 * work). Under sim_lock. */
bool sim_module_busy(int module);
/* Wait until every stream of `module` is idle. Under sim_lock. */
void sim_module_drain(int module);

#endif /* ACCEL_TESTS_SIM_SYN_SIM_INTERNAL_H */
