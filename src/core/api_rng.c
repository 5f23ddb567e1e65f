/* api_rng.c: per-device Philox generator state (seed, offset) and the fills.
 * A fill reserves its words by advancing the offset under the device's
 * rng_lock before queuing the work, so fills from several threads never
 * overlap; if the backend refuses the fill, the reservation is undone when no
 * other fill has moved the offset since. A fill that would move the offset
 * past 2^64 - 1 (wrapping to 0 and repeating numbers) is refused. The fill
 * itself is the backend's rng_fill, or core's host-generated fallback
 * (rng_fallback.c) where the backend has none. */
#include <string.h>
#include <sys/random.h>

#include "core.h"
#include "error.h"
#include "philox.h"
#include "rng_fallback.h"
#include "trace.h"

static accel_status_t rng_device(accel_t *acc, int device, accel_device_state_t **out)
{
    accel_status_t status = accel_check_handle(acc);
    if (status == ACCEL_OK)
        status = accel_resolve_device(acc, device, &device);
    if (status == ACCEL_OK)
        *out = &acc->devices[device];
    return status;
}

static void rng_seed_device(accel_device_state_t *dev, uint64_t seed)
{
    pthread_mutex_lock(&dev->rng_lock);
    dev->rng_seed = seed;
    dev->rng_offset = 0;
    pthread_mutex_unlock(&dev->rng_lock);
}

accel_status_t accel_manual_seed(accel_t *acc, uint64_t seed)
{
    accel_device_state_t *dev;
    accel_status_t status = rng_device(acc, ACCEL_CURRENT_DEVICE, &dev);
    if (status == ACCEL_OK)
        rng_seed_device(dev, seed);
    return status;
}

accel_status_t accel_manual_seed_all(accel_t *acc, uint64_t seed)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    for (int d = 0; d < acc->device_count; d++)
        rng_seed_device(&acc->devices[d], seed);
    return ACCEL_OK;
}

accel_status_t accel_seed(accel_t *acc, uint64_t *out)
{
    accel_device_state_t *dev;
    uint64_t seed;
    accel_status_t status = rng_device(acc, ACCEL_CURRENT_DEVICE, &dev);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        return accel_error(ACCEL_ERROR_INTERNAL, "the OS entropy source (getrandom) failed");
    rng_seed_device(dev, seed);
    *out = seed;
    return ACCEL_OK;
}

accel_status_t accel_initial_seed(accel_t *acc, uint64_t *out)
{
    accel_device_state_t *dev;
    accel_status_t status = rng_device(acc, ACCEL_CURRENT_DEVICE, &dev);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    pthread_mutex_lock(&dev->rng_lock);
    *out = dev->rng_seed;
    pthread_mutex_unlock(&dev->rng_lock);
    return ACCEL_OK;
}

static void rng_put_u64(uint8_t *out, uint64_t value)
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(value >> (8 * i));
}

static uint64_t rng_get_u64(const uint8_t *in)
{
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value |= (uint64_t)in[i] << (8 * i);
    return value;
}

accel_status_t accel_get_rng_state(accel_t *acc, int device, uint8_t *out, size_t cap)
{
    accel_device_state_t *dev;
    accel_status_t status = rng_device(acc, device, &dev);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL || cap < ACCEL_RNG_STATE_SIZE)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "rng state needs a buffer of %d bytes (got %s%zu)", ACCEL_RNG_STATE_SIZE,
                           out == NULL ? "NULL, " : "", cap);
    pthread_mutex_lock(&dev->rng_lock);
    rng_put_u64(out, dev->rng_seed);
    rng_put_u64(out + 8, dev->rng_offset);
    pthread_mutex_unlock(&dev->rng_lock);
    return ACCEL_OK;
}

accel_status_t accel_set_rng_state(accel_t *acc, int device, const uint8_t *state, size_t size)
{
    accel_device_state_t *dev;
    accel_status_t status = rng_device(acc, device, &dev);
    if (status != ACCEL_OK)
        return status;
    if (state == NULL || size != ACCEL_RNG_STATE_SIZE)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "rng state must be %d bytes (seed, offset), got %s%zu",
                           ACCEL_RNG_STATE_SIZE, state == NULL ? "NULL, " : "", size);
    if (rng_get_u64(state + 8) % 4 != 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "rng state offset %llu is not a multiple of 4 words: not a state "
                           "accel produced",
                           (unsigned long long)rng_get_u64(state + 8));
    pthread_mutex_lock(&dev->rng_lock);
    dev->rng_seed = rng_get_u64(state);
    dev->rng_offset = rng_get_u64(state + 8);
    pthread_mutex_unlock(&dev->rng_lock);
    return ACCEL_OK;
}

/* Trace event names by accel_rng_kind_t. */
static const char *const rng_trace_names[] = {"rng_u32", "rng_uniform_f32", "rng_normal_f32"};

static accel_status_t rng_fill(accel_t *acc, accel_rng_kind_t kind, void *ptr, size_t count,
                               accel_stream_t *stream)
{
    accel_device_state_t *dev;
    uint64_t seed, offset, advance;
    int device;
    uint64_t trace_begin = accel_trace_begin();
    accel_status_t status = accel_check_handle(acc);
    if (status == ACCEL_OK)
        status = accel_resolve_stream(acc, stream, &stream);
    if (status != ACCEL_OK)
        return status;
    if (count == 0)
        return ACCEL_OK;
    if (count > SIZE_MAX / 4)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "rng fill of %zu elements is too large",
                           count);
    if ((uintptr_t)ptr % 4 != 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "rng fill destination %p is not aligned to 4 bytes (fills write "
                           "32-bit words)",
                           ptr);
    status = accel_check_device_range(acc, ptr, count * 4, "rng fill destination", &device);
    if (status == ACCEL_OK && device != stream->device)
        status = accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                             "rng fill destination is on device %d but the stream is on device %d",
                             device, stream->device);
    if (status == ACCEL_OK)
        status = accel_ensure_init(acc);
    if (status != ACCEL_OK)
        return status;
    dev = &acc->devices[device];
    advance = accel_rng_offset_advance(kind, count);
    pthread_mutex_lock(&dev->rng_lock);
    seed = dev->rng_seed;
    offset = dev->rng_offset;
    if (advance > UINT64_MAX - offset) {
        pthread_mutex_unlock(&dev->rng_lock);
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "rng fill of %zu elements needs %llu words but the generator offset "
                           "%llu has only %llu left before it would wrap past 2^64 and repeat "
                           "earlier numbers; reseed or set a smaller offset",
                           count, (unsigned long long)advance, (unsigned long long)offset,
                           (unsigned long long)(UINT64_MAX - offset));
    }
    dev->rng_offset += advance;
    pthread_mutex_unlock(&dev->rng_lock);

    if (acc->rng_fallback != NULL)
        status = accel_rng_fallback_fill(acc, device, stream, kind, ptr, count, seed, offset);
    else
        status =
            acc->ops->rng_fill(acc->self, device, stream->impl, kind, ptr, count, seed, offset);
    if (status != ACCEL_OK) {
        pthread_mutex_lock(&dev->rng_lock);
        if (dev->rng_seed == seed && dev->rng_offset == offset + advance)
            dev->rng_offset = offset;
        pthread_mutex_unlock(&dev->rng_lock);
    }
    if (trace_begin != 0 && status == ACCEL_OK)
        accel_trace_op(trace_begin, rng_trace_names[kind], count * 4, device);
    return status;
}

accel_status_t accel_rng_uniform_f32(accel_t *acc, float *ptr, size_t count, accel_stream_t *stream)
{
    return rng_fill(acc, ACCEL_RNG_UNIFORM, ptr, count, stream);
}

accel_status_t accel_rng_normal_f32(accel_t *acc, float *ptr, size_t count, accel_stream_t *stream)
{
    return rng_fill(acc, ACCEL_RNG_NORMAL, ptr, count, stream);
}

accel_status_t accel_rng_u32(accel_t *acc, uint32_t *ptr, size_t count, accel_stream_t *stream)
{
    return rng_fill(acc, ACCEL_RNG_U32, ptr, count, stream);
}
