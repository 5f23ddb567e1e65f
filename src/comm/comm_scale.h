/* comm_scale.h: host-side element work of the communicator layer: dtype
 * sizes, avg's scale (sum / ranks) and 16-bit float widening. Pure
 * functions; any thread. */
#ifndef ACCEL_COMM_COMM_SCALE_H
#define ACCEL_COMM_COMM_SCALE_H

#include <stddef.h>

#include "accel/accel.h"

/* Bytes per element; 0 for an unknown dtype. */
size_t accel_comm_dtype_size(accel_dtype_t dtype);
/* data[i] /= divisor for `count` elements (integers truncate toward zero;
 * 16-bit floats are divided in f32 and rounded once). */
void accel_comm_scale(void *data, size_t count, accel_dtype_t dtype, int divisor);
/* f16 / bf16 <-> f32 (round to nearest even). */
void accel_comm_widen(const void *half, float *out, size_t count, accel_dtype_t dtype);
void accel_comm_narrow(const float *in, void *half, size_t count, accel_dtype_t dtype);

#endif /* ACCEL_COMM_COMM_SCALE_H */
