/* rule_common.h: checks several backends' vendor-rule probes share, each
 * written against accel's public API only (the probes of one backend are in
 * rules/<backend>.c). They run inside a probe, on the probe's own thread,
 * on `conformance_acc`'s device 0; they end the probe on failure (check.h)
 * and free what they made when they pass. */
#ifndef ACCEL_SELFTEST_RULE_COMMON_H
#define ACCEL_SELFTEST_RULE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <accel/accel.h>
#include <accel/accel_comm.h>

/* CLOCK_MONOTONIC in milliseconds, and a sleep of `ms` milliseconds. */
double rule_now_ms(void);
void rule_sleep_ms(unsigned ms);

/* A wait orders work across streams: stream A queues eight copies of
 * `size` bytes into device memory (zeros, and last a pattern), then records
 * an event; stream B waits on it and copies the buffer back. B must read
 * the whole pattern (a sim delaying each task makes a dropped wait read
 * zeros every time). */
void rule_check_wait_orders(accel_t *acc, size_t size);

/* Timing events bracket a host sleep of `gap_ms`: accel_event_elapsed_ms
 * must lie between half the gap and the host's outer bracket, so a unit
 * off by 1000 (ns, us, ms) or a garbage timestamp is caught. Returns the
 * elapsed time it measured. */
float rule_check_elapsed_ms(accel_t *acc, unsigned gap_ms);

/* A graph replays onto the addresses its capture saw, and memory freed after
 * the capture is not handed out while the graph lives: capture a fill of a
 * buffer and of a block allocated in the capture, free that block, allocate
 * again, replay. Skips where the backend has no graphs. */
void rule_check_graph_addresses(accel_t *acc);

/* The job's accel communicator, when `engine` (accel_comm_engine_info's
 * name) serves this run: skips the probe when another engine does or it is
 * unavailable, else makes the communicator (owned by the caller, which
 * destroys it) and reads its rank, size and device. `detail`, when not
 * NULL, receives the engine's library line. The device is not made
 * current: probes that need it call accel_set_device. */
void rule_comm_join(accel_t *acc, const char *engine, accel_comm_t **comm, int *rank, int *size,
                    int *device, char *detail, size_t detail_size);

/* `count` int32 of `acc`'s device memory holding `values` (NULL: zeros);
 * the caller frees it with accel_free. */
int32_t *rule_device_ints(accel_t *acc, const int32_t *values, size_t count);

/* A grouped ring on `comm` (this process is `rank` of `size` >= 2): inside
 * accel_comm_group_start/end each rank sends 1000 + rank to the next and
 * receives from the previous, in device memory of `acc`'s current device.
 * Every step runs, so a group is never left open for the probes after this
 * one. Returns NULL when the ring ran and delivered the right value, or
 * when `groups_required` is false and a step answered UNSUPPORTED (an
 * engine without group calls); otherwise a sentence naming the first step
 * that failed, in a buffer of the calling thread valid until its next call.
 * The caller owns `comm` and destroys it; failing calls of the set-up end
 * the probe (check.h). */
const char *rule_grouped_ring(accel_t *acc, accel_comm_t *comm, int rank, int size,
                              bool groups_required);

/* The whole probe of an engine whose group calls are optional (cncl,
 * tccl): join the job's communicator through `engine` on its device, skip
 * below two ranks, then rule_grouped_ring, with groups required unless the
 * engine's library line says it runs "without group calls". Destroys the
 * communicator before reporting. */
void rule_optional_groups_probe(accel_t *acc, const char *engine);

#endif /* ACCEL_SELFTEST_RULE_COMMON_H */
