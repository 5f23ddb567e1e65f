/* rng_fallback.h: core's random fill for backends without an rng_fill slot
 * (rng_fallback.c says how it works and who owns what). */
#ifndef ACCEL_CORE_RNG_FALLBACK_H
#define ACCEL_CORE_RNG_FALLBACK_H

#include "core.h"

typedef struct accel_rng_fallback accel_rng_fallback_t;

/* Whether `ops` leaves rng_fill to core. */
bool accel_rng_fallback_needed(const accel_backend_ops_t *ops);
/* Make acc->rng_fallback when the backend needs it (after create). */
accel_status_t accel_rng_fallback_open(accel_t *acc);
/* Wait for every copy out of a staging buffer and free them all: before
 * the backend is destroyed. No-op without the fallback. */
void accel_rng_fallback_close(accel_t *acc);
/* Take / give back its locks around fork() (instance.c). */
void accel_rng_fallback_fork_lock(accel_t *acc);
void accel_rng_fallback_fork_unlock(accel_t *acc);
/* The fill: core has checked the arguments, resolved `stream` (on `device`)
 * and reserved [offset, offset + advance) of the generator. */
accel_status_t accel_rng_fallback_fill(accel_t *acc, int device, accel_stream_t *stream,
                                       accel_rng_kind_t kind, void *ptr, size_t count,
                                       uint64_t seed, uint64_t offset);

#endif /* ACCEL_CORE_RNG_FALLBACK_H */
