/* sim_handle.h: the live objects of one kind in a simulated runtime (its
 * streams, its events...), so that a handle a caller passes is looked up
 * before it is used: a destroyed or foreign handle is refused with the
 * runtime's error instead of dereferenced. An object starts with a
 * sim_handle_t; its address is its handle.
 * Thread rules: no lock of its own; the sim calls every function here with
 * its one mutex (sim_lock) held. The objects are the sim's: the set only
 * links them. */
#ifndef ACCEL_TESTS_SIM_HANDLE_H
#define ACCEL_TESTS_SIM_HANDLE_H

#include <stdbool.h>

/* The first member of a sim's object. */
typedef struct sim_handle {
    struct sim_handle *next;
} sim_handle_t;

/* A set of live objects; zeroed is empty. */
typedef struct sim_handles {
    sim_handle_t *head;
} sim_handles_t;

/* Adds `object` (its first member a sim_handle_t). */
void sim_handles_add(sim_handles_t *handles, void *object);
/* Removes `object`; false when it was not in the set. */
bool sim_handles_remove(sim_handles_t *handles, const void *object);
/* Whether `handle` names a live object of the set. */
bool sim_handles_contains(const sim_handles_t *handles, const void *handle);

/* Each object of `type` in `handles`, as `var` (the loop body must not
 * remove it). */
#define SIM_HANDLES_EACH(type, var, handles)                                                       \
    for (type *var = (type *)(void *)(handles)->head; var != NULL;                                 \
         var = (type *)(void *)((sim_handle_t *)(void *)var)->next)

#endif /* ACCEL_TESTS_SIM_HANDLE_H */
