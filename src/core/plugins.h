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

#endif
