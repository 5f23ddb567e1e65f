/* skeleton_backend.h: the skeleton backend's private state, shared by its files.
 * The skeleton is the template for a new backend (docs/backend-guide.md):
 * one device whose memory is host memory from its "vendor runtime" (the C
 * library, loaded with dlopen through the symbol table in symbols.h), the
 * required slots, the stream and event groups and host callbacks (on the
 * kit's host-callback emulator, stream.c), every copy and fill synchronous.
 * Ownership: create() makes the state and destroy() frees it; core calls
 * nothing else before create or after destroy. Threads: the state is
 * read-only after create (the emulator keeps its own lock), so every slot
 * may run on any thread at once. Fork: nothing is initialised at probe; the
 * emulator's thread starts with the first host callback and a forked child
 * only frees what it queued. */
#ifndef ACCEL_BACKENDS_SKELETON_SKELETON_BACKEND_H
#define ACCEL_BACKENDS_SKELETON_SKELETON_BACKEND_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "accel/accel_backend.h"
#include "accel/accel_backend_utils.h"

/* The vendor functions, resolved from the runtime library once per process
 * (backend.c) and read-only afterwards. */
typedef struct accel_skeleton_api {
#define ACCEL_SKELETON_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/skeleton/symbols.h"
#undef ACCEL_SKELETON_SYMBOL
} accel_skeleton_api_t;

typedef struct accel_skeleton_backend {
    const accel_skeleton_api_t *api;     /* the process's table (backend.c) */
    accel_callback_emulator_t callbacks; /* host callbacks of every stream (stream.c) */
    pid_t pid;                           /* the process that created it (fork check) */
} accel_skeleton_backend_t;

/* A backend stream (NULL: the device's default stream). */
typedef struct accel_skeleton_stream {
    int device;
} accel_skeleton_stream_t;

/* A backend event: the emulator's ticket of the last callback ahead of its
 * record (0: none), and its host time once known (0: not yet). */
typedef struct accel_skeleton_event {
    _Atomic uint64_t ticket;
    _Atomic uint64_t time_ns;
    atomic_bool recorded;
} accel_skeleton_event_t;

/* The device's alignment for allocations (what a real device would promise). */
#define ACCEL_SKELETON_ALIGNMENT 256u
/* Pinned host allocations are whole pages. */
#define ACCEL_SKELETON_PAGE 4096u

/* memory.c */
ACCEL_BACKEND_DECLARE_MEMORY_SLOTS(accel_skeleton);
ACCEL_BACKEND_DECLARE_PINNED_SLOTS(accel_skeleton);

/* stream.c */
void accel_skeleton_callbacks_init(accel_skeleton_backend_t *skeleton);
accel_status_t accel_skeleton_synchronize(void *self, int device);
ACCEL_BACKEND_DECLARE_STREAM_SLOTS(accel_skeleton);
ACCEL_BACKEND_DECLARE_EVENT_SLOTS(accel_skeleton);

/* rng.c */
accel_status_t accel_skeleton_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                       void *ptr, size_t count, uint64_t seed, uint64_t offset);

/* backend.c: the table core reads (listed in the generated builtin table). */
const accel_backend_ops_t *accel_skeleton_backend_ops(void);

#endif /* ACCEL_BACKENDS_SKELETON_SKELETON_BACKEND_H */
