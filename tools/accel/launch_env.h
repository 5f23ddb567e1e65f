/* launch_env.h: the variables `accel launch` gives every rank: each node's
 * (the backend's visible-devices variables set to its devices, CROSS_RANK,
 * LOCAL_SIZE), the job's (MASTER_ADDR, MASTER_PORT, WORLD_SIZE,
 * CROSS_SIZE: what DeepSpeed's launch.py sets) and the ones forwarded from
 * this environment (the backend's export prefixes and accel's own).
 * Ownership: a launch_vars_t owns its strings (launch_vars_free). */
#ifndef ACCEL_TOOLS_LAUNCH_ENV_H
#define ACCEL_TOOLS_LAUNCH_ENV_H

#include <accel/accel.h>

#include "launch_hosts.h"
#include "launch_plan.h"

void launch_vars_free(launch_vars_t *vars);

/* Append NAME=value (copies); an accel_env_setter_t, so that
 * accel_set_visible_devices_envs can fill a launch_vars_t. Returns 0, or
 * ACCEL_ERROR_OUT_OF_MEMORY. */
int launch_vars_add(void *vars, const char *name, const char *value);

/* node_vars[hosts->count] and job_vars, empty on entry, filled for `hosts`.
 * False with the reason printed. */
bool launch_build_vars(accel_t *acc, const launch_hosts_t *hosts, const char *master_addr,
                       int master_port, launch_vars_t *node_vars, launch_vars_t *job_vars);

/* Whether `name` (`length` bytes of it) is one a shell accepts in
 * `export NAME=...`. */
bool launch_is_shell_name(const char *name, size_t length);
/* Whether `entry` starts with one of `prefixes` (count of them; NULL ones
 * match nothing). */
bool launch_has_prefix(const char *entry, const char *const *prefixes, size_t count);

/* Whether launch_collect_env leaves out variable NAME (`length` bytes of
 * `name`, not NUL-terminated there); `ctx` is the caller's. */
typedef bool (*launch_env_skip_t)(const void *ctx, const char *name, size_t length);

/* Appends to `out` every variable of this process's environment whose name
 * a shell accepts in `export NAME=...` and starts with one of `prefixes`
 * (prefix_count of them; NULL ones match nothing), except those already in
 * `out` and those `skip` (when not NULL) leaves out; then sorts `out` by
 * name. The forwarding of `accel launch` and the lines of `accel env` both
 * come from here. False when out of host memory (the caller says so). */
bool launch_collect_env(const char *const *prefixes, size_t prefix_count, launch_env_skip_t skip,
                        const void *skip_ctx, launch_vars_t *out);

/* Every set variable under the backend's export prefixes or accel's own
 * (ACCEL_*, DS_ACCELERATOR, MASTER_ADDR, MASTER_PORT), except those named in
 * one of `set` (set_count of them), sorted by name, into `out`. False with
 * the reason printed. */
bool launch_collect_forwarded(accel_t *acc, const launch_vars_t *const *set, size_t set_count,
                              launch_vars_t *out);

#endif
