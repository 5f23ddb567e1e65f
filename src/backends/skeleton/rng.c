/* rng.c: the skeleton's random fills: the shared host Philox generator
 * (accel_backend_utils.h, split over the host thread pool) writes straight
 * into device memory (it is host memory). A backend whose
 * memory the host cannot write would generate into a pinned buffer and copy
 * it on the stream, or run a device kernel with the same arithmetic.
 * Thread-safe: each fill writes only its own range. */
#include "accel/accel_backend_utils.h"
#include "backends/skeleton/skeleton_backend.h"

accel_status_t accel_skeleton_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                       void *ptr, size_t count, uint64_t seed, uint64_t offset)
{
    (void)self;
    (void)device;
    (void)stream;
    if (accel_rng_words_per_element(kind) == 0)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "skeleton: unknown random fill kind %d", (int)kind);
    if (count > 0)
        return accel_philox_fill(kind, ptr, count, seed, offset);
    return ACCEL_OK;
}
