/* plugins.h: what the plugin scan (plugins.c) and the registry (registry.c)
 * give each other. accel_registry_load_plugins, the scan itself, is declared
 * in registry.h. Threads: thread-safe. */
#ifndef ACCEL_CORE_PLUGINS_H
#define ACCEL_CORE_PLUGINS_H

#include "accel/accel_backend.h"

/* registry.c: validate `ops` and append it to the registered list under one
 * lock. `origin` starts every error sentence ("plugin /path/x.so"). The table
 * must stay valid until the process exits. */
accel_status_t accel_registry_add(const accel_backend_ops_t *ops, const char *origin);

/* registry.c: copy up to `cap` registered tables into `out` (NULL when cap is
 * 0); returns how many are registered. Tables are never removed. */
size_t accel_registry_snapshot(const accel_backend_ops_t **out, size_t cap);

/* plugins.c: ACCEL_OK, or INVALID_ARGUMENT with a sentence naming `api` when
 * this thread is loading plugins: code run by a plugin's entry function or
 * constructor must not choose the process-wide accelerator (the choice
 * depends on the plugins still loading, and would deadlock on the lock of
 * the accel_get that started the scan). */
accel_status_t accel_plugins_refuse_reentry(const char *api);

/* plugins.c: load the plugins of one ACCEL_PLUGIN_PATH-style list now.
 * accel_registry_load_plugins runs it once on the variable; the fuzzer
 * (tests/fuzz) calls it directly. */
void accel_plugins_scan_list(const char *list);

#endif
