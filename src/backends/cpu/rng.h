/* rng.h: random fills on the CPU device (rng.c). */
#ifndef ACCEL_BACKENDS_CPU_RNG_H
#define ACCEL_BACKENDS_CPU_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "accel/accel_backend.h"

accel_status_t accel_cpu_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                  void *ptr, size_t count, uint64_t seed, uint64_t offset);
/* Run one fill now on the calling thread, helped by short-lived threads for
 * large fills; the bits do not depend on how it was split. */
void accel_cpu_rng_run(accel_rng_kind_t kind, void *ptr, size_t count, uint64_t seed,
                       uint64_t offset);

#endif /* ACCEL_BACKENDS_CPU_RNG_H */
