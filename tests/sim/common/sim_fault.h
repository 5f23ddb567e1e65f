/* sim_fault.h: fault injection shared by the simulated vendor runtimes of
 * tests/sim/ (ascendcl today; mlu, hpu, xpu, sdaa next). A sim links the
 * static library sim_fault and asks it, at the top of every exported
 * function, whether this call should fail. What fails is set by environment
 * variables (read on first use) or, from a test in the same process, by the
 * exported accel_sim_fault_set() (tests/sim/README.md documents both):
 *   ACCEL_SIM_FAIL=name:N:code[,...]  the Nth call of `name` returns `code`
 *                                     (N: a number, N+ for every call from N
 *                                     on, * for every call)
 *   ACCEL_SIM_FAIL_ALLOC_ABOVE=bytes  allocations larger than this fail
 *   ACCEL_SIM_DEVICES=n               how many devices the sim shows (0 too)
 *   ACCEL_SIM_FAULT_LOG=1             say each injected fault on stderr
 * Leaving a symbol out is a build-time variant: tests/sim/common/sim.cmake.
 * Thread-safe: every function may be called from any thread. */
#ifndef ACCEL_TESTS_SIM_FAULT_H
#define ACCEL_TESTS_SIM_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_EXPORT __attribute__((visibility("default")))

/* Count a call of `function` (a string literal: the pointer is kept) and
 * return the code it must fail with, or 0 to go on. */
int sim_fault_hit(const char *function);

/* True when an allocation of `size` bytes must fail (ACCEL_SIM_FAIL_ALLOC_ABOVE). */
bool sim_fault_alloc_refused(size_t size);

/* ACCEL_SIM_DEVICES when set to a number in [0, max], else `fallback`. */
int sim_fault_device_count(int fallback, int max);

/* A size from the environment variable `name` ("1073741824", "512M", "2G"),
 * or `fallback` when unset or malformed. */
size_t sim_fault_env_size(const char *name, size_t fallback);

/* ---- shared by the sims' devices and streams */

/* A *_VISIBLE_DEVICES variable read as CUDA reads CUDA_VISIBLE_DEVICES:
 * comma-separated ids, up to the first entry that is not a valid id (below
 * `physical`, unseen; with `ascending`, also above the one before, as CANN
 * reads ASCEND_RT_VISIBLE_DEVICES). The sims' devices are alike, so only the
 * count changes: returns how many are shown (`physical` when unset). */
int sim_visible_devices(const char *variable, int physical, bool ascending);

/* Sleep ACCEL_SIM_STREAM_DELAY_US (read once; 0 to 1 s) before a stream
 * task, to widen the windows a missing wait or misordered stream leaves. */
void sim_task_delay(void);

/* CLOCK_MONOTONIC in nanoseconds (event times). */
uint64_t sim_now_ns(void);

/* ---- exported by every sim, for tests that load it in-process (dlsym) */

/* Replace the failure rules with `spec` (ACCEL_SIM_FAIL's syntax; NULL or ""
 * clears them). Call counts restart at 0 for the rules' Nth. Returns 0, or
 * -1 when `spec` is malformed (then no rule is set). */
SIM_EXPORT int accel_sim_fault_set(const char *spec);
/* How many times `function` has been called since the library loaded. */
SIM_EXPORT unsigned long accel_sim_calls(const char *function);

#endif /* ACCEL_TESTS_SIM_FAULT_H */
