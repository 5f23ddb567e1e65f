/* memory.h: the CPU backend's memory slots (memory.c). */
#ifndef ACCEL_BACKENDS_CPU_MEMORY_H
#define ACCEL_BACKENDS_CPU_MEMORY_H

#include <stddef.h>

#include "accel/accel_backend.h"
#include "accel/accel_backend_utils.h"

ACCEL_BACKEND_DECLARE_MEMORY_SLOTS(accel_cpu);
ACCEL_BACKEND_DECLARE_PINNED_SLOTS(accel_cpu);
ACCEL_BACKEND_DECLARE_REGISTER_SLOTS(accel_cpu);

#endif /* ACCEL_BACKENDS_CPU_MEMORY_H */
