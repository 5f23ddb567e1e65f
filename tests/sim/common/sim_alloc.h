/* sim_alloc.h: the allocation registry of a simulated runtime: every block
 * of device memory (host memory standing in for it), of pinned host memory
 * and every registered host range, each recorded with its base, size,
 * device and kind, and found again by a pointer range that lies inside it.
 * Thread rules: the registry has no lock of its own. A sim guards its
 * registry with its one mutex (sim_lock) and calls every function here with
 * that mutex held, so that a lookup and what the sim does with the answer
 * (its capacity accounting, a copy's check) are one step.
 * Ownership: the registry owns its records; the memory a record describes
 * stays the sim's (it frees a block after taking its record). */
#ifndef ACCEL_TESTS_SIM_ALLOC_H
#define ACCEL_TESTS_SIM_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

typedef enum sim_alloc_kind {
    SIM_ALLOC_ANY,        /* lookups only: a record of any kind */
    SIM_ALLOC_DEVICE,     /* device memory */
    SIM_ALLOC_PINNED,     /* pinned host memory the sim allocated */
    SIM_ALLOC_REGISTERED, /* a caller's host range registered with the runtime */
} sim_alloc_kind_t;

typedef struct sim_alloc {
    char *base;
    size_t size;
    int device; /* whose memory it is; -1 for host memory */
    sim_alloc_kind_t kind;
    struct sim_alloc *next;
} sim_alloc_t;

/* A registry; zeroed is empty. */
typedef struct sim_allocs {
    sim_alloc_t *head;
} sim_allocs_t;

/* Records [base, base + size) as memory of `kind` on `device`. False when
 * the record cannot be allocated (nothing recorded). */
bool sim_allocs_add(sim_allocs_t *allocs, void *base, size_t size, int device,
                    sim_alloc_kind_t kind);

/* The record of `kind` whose range holds all of [ptr, ptr + size), or NULL. */
sim_alloc_t *sim_allocs_find(const sim_allocs_t *allocs, const void *ptr, size_t size,
                             sim_alloc_kind_t kind);

/* Whether any record overlaps [ptr, ptr + size). */
bool sim_allocs_overlap(const sim_allocs_t *allocs, const void *ptr, size_t size);

/* Removes the record of `kind` that starts exactly at `base` and returns a
 * copy of it in *taken (the record itself is freed). False when there is
 * none. */
bool sim_allocs_take(sim_allocs_t *allocs, const void *base, sim_alloc_kind_t kind,
                     sim_alloc_t *taken);

/* Removes the first record of `kind` on `device` (every one, called until
 * it returns false: a device reset), as sim_allocs_take. */
bool sim_allocs_take_device(sim_allocs_t *allocs, int device, sim_alloc_kind_t kind,
                            sim_alloc_t *taken);

#endif /* ACCEL_TESTS_SIM_ALLOC_H */
