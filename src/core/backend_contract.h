/* backend_contract.h: what core checks in a backend table before it calls
 * any slot (backend_contract.c). Stateless; safe from any thread. */
#ifndef ACCEL_CORE_BACKEND_CONTRACT_H
#define ACCEL_CORE_BACKEND_CONTRACT_H

#include <stddef.h>

#include "accel/accel_backend.h"

/* The shortest table core accepts: through rng_fill (which may be NULL
 * when core's fallback fill can serve; see accel_backend_contract_check). */
size_t accel_backend_contract_min_size(void);

/* Required slots present, optional groups all-or-nothing, slots that need a
 * group only with it, rng_fill or the pinned-allocation, streams and events
 * groups core's fallback fill needs, and a complete fused_optim table. `ops` has passed the
 * header checks (ABI version, struct_size >= the minimum, name). On failure
 * sets the last error, starting with `origin`, and returns INVALID_ARGUMENT. */
accel_status_t accel_backend_contract_check(const accel_backend_ops_t *ops, const char *origin);

#endif /* ACCEL_CORE_BACKEND_CONTRACT_H */
