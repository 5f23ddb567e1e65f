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

/* Every set variable under the backend's export prefixes or accel's own
 * (ACCEL_*, DS_ACCELERATOR, MASTER_ADDR, MASTER_PORT), except those named in
 * one of `set` (set_count of them), sorted by name, into `out`. False with
 * the reason printed. */
bool launch_collect_forwarded(accel_t *acc, const launch_vars_t *const *set, size_t set_count,
                              launch_vars_t *out);

#endif
