/* memory.h: the CPU backend's memory slots (memory.c). */
#ifndef ACCEL_BACKENDS_CPU_MEMORY_H
#define ACCEL_BACKENDS_CPU_MEMORY_H

#include <stddef.h>

#include "accel/accel_backend.h"

accel_status_t accel_cpu_mem_alloc(void *self, int device, size_t size, void **out);
void accel_cpu_mem_free(void *self, int device, void *ptr);
accel_status_t accel_cpu_memcpy_async(void *self, int device, void *dst, const void *src,
                                      size_t size, accel_copy_kind_t kind, void *stream);
accel_status_t accel_cpu_memset_async(void *self, int device, void *dst, int value, size_t size,
                                      void *stream);
accel_status_t accel_cpu_host_alloc(void *self, size_t size, void **out);
void accel_cpu_host_free(void *self, void *ptr, size_t size);
accel_status_t accel_cpu_host_register(void *self, void *ptr, size_t size);
void accel_cpu_host_unregister(void *self, void *ptr, size_t size);

#endif /* ACCEL_BACKENDS_CPU_MEMORY_H */
