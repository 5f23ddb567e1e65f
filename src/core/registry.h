/* registry.h: every backend accel knows: those compiled in (the builtin table
 * in backends.c, one line per backend), those registered by the program, and
 * plugins found on ACCEL_PLUGIN_PATH; plus the auto-detect cascade order.
 * Threads: thread-safe; plugins are scanned once, on first use. Registered
 * tables must live for the process lifetime. */
#ifndef ACCEL_CORE_REGISTRY_H
#define ACCEL_CORE_REGISTRY_H

#include "accel/accel_backend.h"

/* A compiled-in backend: its name, and a function giving its table, or NULL
 * for a backend whose folder is not built in this library yet. */
typedef struct accel_builtin_backend {
    const char *name;
    const accel_backend_ops_t *(*ops)(void);
    /* What the backend drives, so "not built" messages can still say which
     * runtime and vendor stack the name stands for. */
    const char *runtime_library;
    const char *vendor_stack;
} accel_builtin_backend_t;

/* backends.c: the builtin table. */
extern const accel_builtin_backend_t accel_builtin_backends[];
extern const size_t accel_builtin_backend_count;

/* The auto-detect order (DESIGN.md §5), a NULL-terminated list of names. */
extern const char *const accel_cascade_order[];

/* Find a backend by exact name: registered/plugin first, then builtin.
 * NULL when unknown or not built. */
const accel_backend_ops_t *accel_registry_find(const char *name);

/* Check an ops table's ABI and required slots; INVALID_ARGUMENT/UNSUPPORTED
 * with a sentence when refused. */
accel_status_t accel_registry_validate(const accel_backend_ops_t *ops);

/* Load plugins from ACCEL_PLUGIN_PATH once per process. */
void accel_registry_load_plugins(void);

#endif
