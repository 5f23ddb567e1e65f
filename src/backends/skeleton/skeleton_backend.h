/* skeleton_backend.h: the skeleton backend's private state, shared by its files.
 * The skeleton is the template for a new backend (docs/backend-guide.md):
 * one device whose memory is host memory from its "vendor runtime" (the C
 * library, loaded with dlopen through the symbol table in symbols.h), the
 * required slots only, every copy and fill synchronous.
 * Ownership: create() makes the state and destroy() frees it; core calls
 * nothing else before create or after destroy. Threads: the state is
 * read-only after create, so every slot may run on any thread at once.
 * Fork: nothing is initialised at probe and no thread is started, so a
 * forked child keeps working. */
#ifndef ACCEL_BACKENDS_SKELETON_SKELETON_BACKEND_H
#define ACCEL_BACKENDS_SKELETON_SKELETON_BACKEND_H

#include <stddef.h>

#include "accel/accel_backend.h"

/* The vendor functions, resolved from the runtime library once per process
 * (backend.c) and read-only afterwards. */
typedef struct accel_skeleton_api {
#define ACCEL_SKELETON_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/skeleton/symbols.h"
#undef ACCEL_SKELETON_SYMBOL
} accel_skeleton_api_t;

typedef struct accel_skeleton_backend {
    const accel_skeleton_api_t *api; /* the process's table (backend.c) */
} accel_skeleton_backend_t;

/* The device's alignment for allocations (what a real device would promise). */
#define ACCEL_SKELETON_ALIGNMENT 256u

/* memory.c */
accel_status_t accel_skeleton_mem_alloc(void *self, int device, size_t size, void **out);
void accel_skeleton_mem_free(void *self, int device, void *ptr);
accel_status_t accel_skeleton_memcpy_async(void *self, int device, void *dst, const void *src,
                                           size_t size, accel_copy_kind_t kind, void *stream);
accel_status_t accel_skeleton_memset_async(void *self, int device, void *dst, int value,
                                           size_t size, void *stream);

/* rng.c */
accel_status_t accel_skeleton_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                       void *ptr, size_t count, uint64_t seed, uint64_t offset);

/* backend.c: the table core reads (listed in the generated builtin table). */
const accel_backend_ops_t *accel_skeleton_backend_ops(void);

#endif /* ACCEL_BACKENDS_SKELETON_SKELETON_BACKEND_H */
