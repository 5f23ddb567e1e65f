/* pinned.h: registry of pinned host ranges, so accel_is_pinned can answer for
 * any pointer inside a range, and host_free/unregister find the size.
 * Threads: all functions are thread-safe (a mutex inside the registry).
 * Ownership: the registry only records ranges; it never frees memory. */
#ifndef ACCEL_CORE_PINNED_H
#define ACCEL_CORE_PINNED_H

#include <pthread.h>

#include "accel/accel.h"
#include "accel/accel_backend_utils.h"

typedef enum accel_pinned_kind {
    ACCEL_PINNED_ALLOCATED = 0,  /* from accel_host_alloc */
    ACCEL_PINNED_REGISTERED = 1, /* from accel_host_register */
    ACCEL_PINNED_TENSOR = 2,     /* accel_pin_memory through the backend's host_alloc */
    ACCEL_PINNED_NATIVE = 3,     /* accel_pin_memory's native buffers (mlock'ed) */
} accel_pinned_kind_t;

typedef struct accel_pinned_range {
    uintptr_t base;
    size_t size;
    accel_pinned_kind_t kind;
} accel_pinned_range_t;

typedef struct accel_pinned_registry {
    pthread_mutex_t lock;       /* guards `ranges` and the byte counts */
    accel_range_map_t ranges;   /* payload: the accel_pinned_kind_t */
    uint64_t bytes, bytes_peak; /* recorded now, and the most ever at once */
} accel_pinned_registry_t;

void accel_pinned_init(accel_pinned_registry_t *registry);
void accel_pinned_fini(accel_pinned_registry_t *registry);
/* INVALID_ARGUMENT if it overlaps a recorded range; OUT_OF_MEMORY. */
accel_status_t accel_pinned_add(accel_pinned_registry_t *registry, const void *base, size_t size,
                                accel_pinned_kind_t kind);
/* Remove the range starting exactly at `base` of `kind`; writes its size.
 * NOT_FOUND (no error text) when there is none. */
accel_status_t accel_pinned_remove(accel_pinned_registry_t *registry, const void *base,
                                   accel_pinned_kind_t kind, size_t *out_size);
bool accel_pinned_contains(accel_pinned_registry_t *registry, const void *ptr);
/* Bytes recorded now and the peak. */
void accel_pinned_bytes(accel_pinned_registry_t *registry, uint64_t *out_bytes, uint64_t *out_peak);
/* Find the range holding [ptr, ptr+size); true and its copy when found. */
bool accel_pinned_find(accel_pinned_registry_t *registry, const void *ptr, size_t size,
                       accel_pinned_range_t *out);

#endif
