/* acl_sim_internal.h: state shared by the two halves of the simulated
 * libascendcl.so: acl_sim_device.c (init, devices, memory, copies' checks,
 * error text) and acl_sim_stream.c (streams as worker threads, events,
 * callbacks through the subscribe/report protocol).
 * Locking: sim_lock (one mutex) guards every table below and every stream
 * queue and event field; sim_changed (its condition) is broadcast whenever a
 * task finishes, an event completes or a report is taken or done. */
#ifndef ACCEL_TESTS_SIM_ACL_SIM_INTERNAL_H
#define ACCEL_TESTS_SIM_ACL_SIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "acl_sim.h"
#include "sim_break.h"
#include "sim_core.h"

#define SIM_MAX_DEVICES 64

/* SIM_ENTER(name) opens every exported function (sim_core.h): an injected
 * code is returned through sim_injected, below. */
#define SIM_ENTER(name) SIM_FAULT_ENTER(name, sim_injected)

/* Keep `fmt` as the thread's aclGetRecentErrMsg text; returns `code`. */
aclError sim_error(aclError code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline aclError sim_injected(const char *name, int code)
{
    return sim_error(code, "%s: injected fault", name);
}

/* aclInit has run (and aclFinalize has not). */
bool sim_initialised(void);
/* The device count (ACCEL_SIM_DEVICES, default 2), fixed at first use. */
int sim_device_count(void);
/* The calling thread's device (aclrtSetDevice), or -1. */
int sim_current_device(void);
/* A failure code unless aclInit ran and the thread has a device. */
aclError sim_need_device(const char *function);

/* Rule violations the sim records rather than refuses (tests/sim/README.md,
 * ascendcl rules): said on stderr as "acl sim: rule <id> violated: ...",
 * and counted for accel_sim_acl_violations(). */
void sim_violation(const char *rule, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
SIM_API unsigned long accel_sim_acl_violations(void);

/* Rule C8: whether the calling thread is running a callback or host
 * function for the sim (set around the call). */
bool sim_in_callback(void);
void sim_set_in_callback(bool inside);
/* Rule C8's refusal, for the sync calls: 107000 from inside a callback. */
aclError sim_refuse_in_callback(const char *function);

/* Where a pointer range lies: inside one device allocation, or not. */
bool sim_is_device_range(const void *ptr, size_t size);
/* Inside one aclrtMallocHost block or one registered range. */
bool sim_is_acl_host_range(const void *ptr, size_t size);
/* An address aclrtHostRegister(MAPPED) handed out: a device-side view of
 * host memory, never valid for copies. */
bool sim_is_mapped_address(const void *ptr);

/* The host page size register calls align to, and the bit that marks a
 * MAPPED device address (it makes the address non-canonical on x86-64 and
 * arm64, so any access through it faults). */
#define SIM_HOST_PAGE  ((uintptr_t)4096)
#define SIM_MAPPED_TAG ((uintptr_t)1 << 62)

typedef struct sim_stream sim_stream_t;
/* The default stream of `device`, made on first use. Under no lock. */
sim_stream_t *sim_default_stream(int device);
/* `stream` as the sim's object (NULL: the current device's default stream),
 * or NULL with the code in *code when it is not a live stream. */
sim_stream_t *sim_stream_resolve(aclrtStream stream, aclError *code, const char *function);
/* Wait until every stream of `device` is idle; true when one of them has
 * failed (rule E3). */
bool sim_streams_drain(int device);

#endif /* ACCEL_TESTS_SIM_ACL_SIM_INTERNAL_H */
