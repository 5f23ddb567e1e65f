/* launch_pool.h: where `accel launch` may start ranks, before any
 * selection: the hosts of the hostfile named, else of /job/hostfile when
 * it exists (DeepSpeed's default), else this machine ("localhost") with the
 * backend's devices, or only those its visible-devices variable lists when
 * no selection option is given (DeepSpeed's rule). */
#ifndef ACCEL_TOOLS_LAUNCH_POOL_H
#define ACCEL_TOOLS_LAUNCH_POOL_H

#include <accel/accel.h>

#include "launch_hosts.h"

/* Fill *pool (owned by the caller: launch_hosts_free); *from_file says
 * whether it came from a hostfile. False with the reason printed. */
bool launch_pool_open(accel_t *acc, const char *hostfile, const launch_selection_t *selection,
                      launch_hosts_t *pool, bool *from_file);

#endif
