/* deferred_release.h: core's side of the deferred-release list
 * (accel_backend_utils.h declares the list; deferred_release.c implements
 * it): the fork hooks core's instance fork handler calls, so that a child
 * never inherits the list's lock held. */
#ifndef ACCEL_CORE_DEFERRED_RELEASE_H
#define ACCEL_CORE_DEFERRED_RELEASE_H

#include "accel/accel_backend_utils.h"

/* Take / give back the list's lock around fork() (NULL: no-op). */
void accel_deferred_release_fork_lock(accel_deferred_release_t *list);
void accel_deferred_release_fork_unlock(accel_deferred_release_t *list);

#endif /* ACCEL_CORE_DEFERRED_RELEASE_H */
