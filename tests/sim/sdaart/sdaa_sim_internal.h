/* sdaa_sim_internal.h: state shared by the two halves of the simulated
 * libsdaart.so: sdaa_sim_device.c (devices, memory, copies' checks, error
 * text) and sdaa_sim_stream.c (streams as worker threads, copies and fills,
 * events, callbacks).
 * Locking: sim_lock (one mutex) guards every table below and every stream
 * queue and event field; sim_changed (its condition) is broadcast whenever a
 * task finishes or an event completes. */
#ifndef ACCEL_TESTS_SIM_SDAA_SIM_INTERNAL_H
#define ACCEL_TESTS_SIM_SDAA_SIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "sdaa_sim.h"
#include "sim_break.h"
#include "sim_core.h"

#define SIM_MAX_DEVICES 64

/* SIM_ENTER(name) opens every exported function (sim_core.h): an injected
 * code is returned through sim_injected, below. */
#define SIM_ENTER(name) SIM_FAULT_ENTER(name, sim_injected)

/* Keep `code` as the thread's last error (sdaaGetLastError) and, with
 * ACCEL_SIM_FAULT_LOG=1, say `fmt` on stderr; returns `code`. */
sdaaError_t sim_error(sdaaError_t code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline sdaaError_t sim_injected(const char *name, int code)
{
    return sim_error((sdaaError_t)code, "%s: injected fault", name);
}

/* A call the sim lets through but a vendor rule forbids (tests/sim/README.md,
 * sdaart rules): said on stderr and counted, for accel_sim_sdaa_violations.
 * Takes sim_lock: call it without. */
void sim_violation(const char *rule, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Exported for tests: the violations counted so far. */
SIM_API unsigned long accel_sim_sdaa_violations(void);

/* The device count (ACCEL_SIM_DEVICES, default 2, then
 * SDAA_VISIBLE_DEVICES), fixed at first use. */
int sim_device_count(void);
/* The calling thread's device: 0 until sdaaSetDevice, as on CUDA. */
int sim_current_device(void);
/* sdaaErrorNoDevice when there are no devices, else sdaaSuccess. */
sdaaError_t sim_need_device(const char *function);

/* Where a pointer range lies: inside one device allocation, or not. */
bool sim_is_device_range(const void *ptr, size_t size);
/* Whether [ptr, ptr + size) lies inside one sdaaMallocHost block. */
bool sim_is_pinned_range(const void *ptr, size_t size);

typedef struct sim_stream sim_stream_t;
/* `stream` as the sim's object (NULL: the current device's default stream),
 * or NULL with the code in *code when it is not a live stream. */
sim_stream_t *sim_stream_resolve(sdaaStream_t stream, sdaaError_t *code, const char *function);
/* Wait until every stream of `device` is idle. */
void sim_streams_drain(int device);

#endif /* ACCEL_TESTS_SIM_SDAA_SIM_INTERNAL_H */
