/* registry.c: backends added at run time (accel_register_backend, and the
 * plugins that plugins.c finds on ACCEL_PLUGIN_PATH), lookup by name over them
 * and the builtin table, and the dlopen helper backends use to find their
 * vendor runtime.
 * Threads: the registered list and the supported-names strings are guarded by
 * registry_lock; plugins are scanned once per process before the first lookup.
 * Lifetime: registered tables and every supported-names string ever handed
 * out stay alive until the process exits. */
#include "registry.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend_contract.h"
#include "env.h"
#include "error.h"
#include "fork.h"
#include "plugins.h"

/* The longest name a backend may have: it must fit accel_candidate_t.name. */
#define REGISTRY_NAME_MAX 31

/* The info struct as ABI version 1 defined it. */
#define REGISTRY_INFO_MIN_SIZE                                                                     \
    (offsetof(accel_backend_info_t, vendor_stack) +                                                \
     sizeof(((accel_backend_info_t *)0)->vendor_stack))

/* One supported-names string; older ones stay reachable through `older`, so a
 * pointer from accel_supported_names() never dangles. */
typedef struct registry_names {
    struct registry_names *older;
    size_t registered_count; /* registry_count when it was built */
    char text[];
} registry_names_t;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static const accel_backend_ops_t **registry_entries; /* guarded by registry_lock */
static size_t registry_count;
static size_t registry_capacity;
static registry_names_t *registry_names_current;

/* ------------------------------------------------------------ validation */

static const accel_builtin_backend_t *registry_builtin(const char *name)
{
    for (size_t i = 0; i < accel_builtin_backend_count; i++) {
        if (strcmp(accel_builtin_backends[i].name, name) == 0)
            return &accel_builtin_backends[i];
    }
    return NULL;
}

const accel_known_backend_t *accel_registry_known(const char *name)
{
    for (size_t i = 0; i < accel_known_backend_count; i++) {
        if (strcmp(accel_known_backends[i].name, name) == 0)
            return &accel_known_backends[i];
    }
    return NULL;
}

static accel_status_t registry_check_table(const accel_backend_ops_t *ops, const char *origin);

/* A builtin table is checked like a plugin's before core uses it: a backend
 * folder that breaks the contract is refused (with an error logged), never
 * called. */
static const accel_backend_ops_t *registry_builtin_ops(const char *name)
{
    const accel_builtin_backend_t *builtin = registry_builtin(name);
    const accel_backend_ops_t *ops;
    char origin[64];
    if (builtin == NULL)
        return NULL;
    ops = builtin->ops();
    snprintf(origin, sizeof origin, "builtin backend %s", builtin->name);
    if (registry_check_table(ops, origin) != ACCEL_OK) {
        accel_log(ACCEL_LOG_ERROR, "%s", accel_last_error());
        return NULL;
    }
    return ops;
}

/* Caller holds registry_lock. */
static const accel_backend_ops_t *registry_find_registered_locked(const char *name)
{
    for (size_t i = 0; i < registry_count; i++) {
        if (strcmp(registry_entries[i]->name, name) == 0)
            return registry_entries[i];
    }
    return NULL;
}

static bool registry_name_is_valid(const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len > REGISTRY_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

/* Everything that can be checked without the list of names. `origin` starts
 * every sentence: "plugin /path/libaccel-backend-x.so" or the calling API. */
static accel_status_t registry_check_table(const accel_backend_ops_t *ops, const char *origin)
{
    if (ops == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: the backend table is NULL", origin);
    if (ops->abi_version != ACCEL_BACKEND_ABI_VERSION)
        return accel_error(ACCEL_ERROR_UNSUPPORTED,
                           "%s: backend ABI version %u, this library speaks %u; rebuild it "
                           "against this accel",
                           origin, (unsigned)ops->abi_version, (unsigned)ACCEL_BACKEND_ABI_VERSION);
    if (ops->struct_size < accel_backend_contract_min_size())
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: backend table is %zu bytes, but ABI version %u needs at least "
                           "%zu (up to rng_fill)",
                           origin, ops->struct_size, (unsigned)ACCEL_BACKEND_ABI_VERSION,
                           accel_backend_contract_min_size());
    if (ops->name == NULL || !registry_name_is_valid(ops->name))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: backend name must be 1 to %d characters of [A-Za-z0-9._-]", origin,
                           REGISTRY_NAME_MAX);
    if (ops->info == NULL || ops->info->struct_size < REGISTRY_INFO_MIN_SIZE)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: backend \"%s\" has no info struct, or one shorter than %zu bytes",
                           origin, ops->name, (size_t)REGISTRY_INFO_MIN_SIZE);
    return accel_backend_contract_check(ops, origin);
}

/* Caller holds registry_lock. */
static accel_status_t registry_check_name_free_locked(const accel_backend_ops_t *ops,
                                                      const char *origin)
{
    if (registry_find_registered_locked(ops->name) != NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: a backend named \"%s\" is already registered", origin, ops->name);
    if (registry_builtin(ops->name) != NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "%s: \"%s\" is the name of a backend built into this library", origin,
                           ops->name);
    return ACCEL_OK;
}

accel_status_t accel_registry_validate(const accel_backend_ops_t *ops)
{
    accel_status_t status = registry_check_table(ops, "backend table");
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&registry_lock);
    status = registry_check_name_free_locked(ops, "backend table");
    pthread_mutex_unlock(&registry_lock);
    return status;
}

/* ------------------------------------------------------------ registration */

/* Validate and append under one lock, so two threads registering the same
 * name cannot both succeed. */
accel_status_t accel_registry_add(const accel_backend_ops_t *ops, const char *origin)
{
    accel_status_t status = registry_check_table(ops, origin);
    if (status != ACCEL_OK)
        return status;
    pthread_mutex_lock(&registry_lock);
    status = registry_check_name_free_locked(ops, origin);
    if (status == ACCEL_OK && registry_count == registry_capacity) {
        size_t capacity = registry_capacity == 0 ? 8 : registry_capacity * 2;
        const accel_backend_ops_t **grown =
            realloc(registry_entries, capacity * sizeof *registry_entries);
        if (grown == NULL) {
            status = accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                 "%s: out of host memory registering \"%s\"", origin, ops->name);
        } else {
            registry_entries = grown;
            registry_capacity = capacity;
        }
    }
    if (status == ACCEL_OK)
        registry_entries[registry_count++] = ops;
    pthread_mutex_unlock(&registry_lock);
    return status;
}

size_t accel_registry_snapshot(const accel_backend_ops_t **out, size_t cap)
{
    size_t count;
    pthread_mutex_lock(&registry_lock);
    count = registry_count;
    for (size_t i = 0; i < count && i < cap; i++)
        out[i] = registry_entries[i];
    pthread_mutex_unlock(&registry_lock);
    return count;
}

/* A program's own registration does not wait for the plugin scan: a backend
 * the program registers first keeps its name, and a plugin of the same name
 * is then refused (with a warning) when the scan runs. */
accel_status_t accel_register_backend(const struct accel_backend_ops *ops)
{
    accel_status_t status = accel_registry_add(ops, "accel_register_backend");
    if (status == ACCEL_OK)
        accel_log(ACCEL_LOG_INFO, "registered backend \"%s\"", ops->name);
    return status;
}

/* ------------------------------------------------------------ lookup */

const accel_backend_ops_t *accel_registry_find(const char *name)
{
    const accel_backend_ops_t *ops;
    if (name == NULL)
        return NULL;
    accel_registry_load_plugins();
    pthread_mutex_lock(&registry_lock);
    ops = registry_find_registered_locked(name);
    pthread_mutex_unlock(&registry_lock);
    if (ops != NULL)
        return ops;
    return registry_builtin_ops(name);
}

/* Append "'name'" (with ", " before all but the first) at *pos. */
static void registry_names_append(char *text, size_t *pos, const char *name)
{
    *pos += (size_t)sprintf(text + *pos, "%s'%s'", *pos > 1 ? ", " : "", name);
}

/* Caller holds registry_lock. Known names in their order, then built
 * backends accel does not know by name, then registered names that are none
 * of those (a registered "npu" is listed once). */
static registry_names_t *registry_names_build_locked(void)
{
    size_t size = 3, pos = 1;
    registry_names_t *names;
    for (size_t i = 0; i < accel_known_backend_count; i++)
        size += strlen(accel_known_backends[i].name) + 4;
    for (size_t i = 0; i < accel_builtin_backend_count; i++)
        size += strlen(accel_builtin_backends[i].name) + 4;
    for (size_t i = 0; i < registry_count; i++)
        size += strlen(registry_entries[i]->name) + 4;
    names = malloc(sizeof *names + size);
    if (names == NULL)
        return NULL;
    names->text[0] = '[';
    for (size_t i = 0; i < accel_known_backend_count; i++)
        registry_names_append(names->text, &pos, accel_known_backends[i].name);
    for (size_t i = 0; i < accel_builtin_backend_count; i++) {
        if (accel_registry_known(accel_builtin_backends[i].name) == NULL)
            registry_names_append(names->text, &pos, accel_builtin_backends[i].name);
    }
    for (size_t i = 0; i < registry_count; i++) {
        const char *name = registry_entries[i]->name;
        if (accel_registry_known(name) == NULL && registry_builtin(name) == NULL)
            registry_names_append(names->text, &pos, name);
    }
    names->text[pos++] = ']';
    names->text[pos] = '\0';
    names->registered_count = registry_count;
    names->older = registry_names_current;
    return names;
}

const char *accel_supported_names(void)
{
    const char *text;
    accel_registry_load_plugins();
    pthread_mutex_lock(&registry_lock);
    if (registry_names_current == NULL ||
        registry_names_current->registered_count != registry_count) {
        registry_names_t *fresh = registry_names_build_locked();
        if (fresh != NULL)
            registry_names_current = fresh;
    }
    /* Out of memory on the very first build leaves nothing better to say. */
    text = registry_names_current != NULL ? registry_names_current->text : "[]";
    pthread_mutex_unlock(&registry_lock);
    return text;
}

/* ------------------------------------------------------------ vendor libraries */

/* Append "<path>: <why>; " to `tried` without overflowing it. dlerror() often
 * starts with the path itself; that copy is dropped. */
static void registry_note_tried(char *tried, size_t tried_cap, const char *path, const char *why)
{
    size_t used, path_len = strlen(path);
    if (tried == NULL || tried_cap == 0)
        return;
    if (why == NULL)
        why = "unknown error";
    if (strncmp(why, path, path_len) == 0 && strncmp(why + path_len, ": ", 2) == 0)
        why += path_len + 2;
    used = strlen(tried);
    if (used + 1 >= tried_cap)
        return;
    snprintf(tried + used, tried_cap - used, "%s%s: %s", used > 0 ? "; " : "", path, why);
}

/* "ACCEL_<NAME>_LIBRARY" with the name upper-cased and '.'/'-' made '_'. */
static bool registry_library_variable(const char *backend_name, char *out, size_t cap)
{
    int len = snprintf(out, cap, "ACCEL_%s_LIBRARY", backend_name);
    if (len < 0 || (size_t)len >= cap)
        return false;
    for (char *c = out + 6; *c != '\0'; c++) {
        if (*c == '.' || *c == '-')
            *c = '_';
        else if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    }
    return true;
}

static void *registry_try_open(const char *path, char *tried, size_t tried_cap)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL)
        registry_note_tried(tried, tried_cap, path, dlerror());
    return handle;
}

/* The library the user named in ACCEL_<NAME>_LIBRARY, if any. A named file
 * that fails to load is reported (warn) and noted in `tried`; the usual
 * candidates are still tried after it. */
static void *registry_open_named(const char *backend_name, char *tried, size_t tried_cap)
{
    char variable[96];
    char why[512] = "";
    const char *chosen;
    struct stat info;
    void *handle;
    if (backend_name == NULL || !registry_library_variable(backend_name, variable, sizeof variable))
        return NULL;
    chosen = accel_env_get(variable);
    if (chosen == NULL)
        return NULL;
    /* dlopen would block for ever on a FIFO: only regular files (a bare
     * soname, which stat does not find, is left to dlopen's search). */
    if (stat(chosen, &info) == 0 && !S_ISREG(info.st_mode)) {
        registry_note_tried(why, sizeof why, chosen, "not a regular file");
        handle = NULL;
    } else {
        handle = registry_try_open(chosen, why, sizeof why);
    }
    if (handle != NULL)
        return handle;
    registry_note_tried(tried, tried_cap, variable, why);
    accel_log(ACCEL_LOG_WARN, "%s: %s; trying the default library names", variable, why);
    return NULL;
}

void *accel_backend_load_library(const char *backend_name, const char *const *candidates,
                                 char *tried, size_t tried_cap)
{
    void *handle;
    if (tried != NULL && tried_cap > 0)
        tried[0] = '\0';
    handle = registry_open_named(backend_name, tried, tried_cap);
    if (handle != NULL)
        return handle;
    for (size_t i = 0; candidates != NULL && candidates[i] != NULL; i++) {
        handle = registry_try_open(candidates[i], tried, tried_cap);
        if (handle != NULL)
            return handle;
    }
    return NULL;
}

/* fork.c holds registry_lock across fork() so a child never inherits it held. */
void accel_registry_fork_lock(void)
{
    pthread_mutex_lock(&registry_lock);
}

void accel_registry_fork_unlock(void)
{
    pthread_mutex_unlock(&registry_lock);
}
