/* selection.h: the choosing step behind accel_get, without its cache, so that
 * tests (and `accel report`) can run it as often as they like.
 * Thread-safe; it runs probes only, never creates or initialises a backend. */
#ifndef ACCEL_CORE_SELECTION_H
#define ACCEL_CORE_SELECTION_H

#include "accel/accel_backend.h"

/* Choose the backend accel_get would choose right now: the override from
 * ACCEL_ACCELERATOR / DS_ACCELERATOR, else the auto-detect cascade. On success
 * writes the backend's table and the method ("override" or "auto detect", a
 * static string); on failure writes nothing and sets the last error. */
accel_status_t accel_selection_choose(const accel_backend_ops_t **out_ops, const char **out_method);

/* Tests only: walk `order` (a NULL-terminated list of backend names that
 * outlives its use) as the auto-detect cascade instead of the real one
 * (accel_cascade_order, registry.h); NULL restores the real one. This lets
 * tests put fake backends in the cascade under names no real backend will
 * ever take. Set it before selections run on other threads. */
void accel_selection_set_cascade_order(const char *const *order);

#endif
