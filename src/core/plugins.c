/* plugins.c: the plugin scan. Every file named libaccel-backend-*.so in the
 * folders on ACCEL_PLUGIN_PATH (and every file named there) is dlopen'ed and
 * its accel_backend_entry() table registered through accel_registry_add.
 * Threads: the scan runs once per process (pthread_once), on the first lookup;
 * plugin code calling back into accel during the scan (same thread) does not
 * wait for it, and accel_get is refused there (accel_plugins_refuse_reentry).
 * Lifetime: a plugin whose table is registered, or that registered any table
 * itself, stays loaded until exit; only a refused plugin that registered
 * nothing is closed again. */
#include "plugins.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "env.h"
#include "error.h"
#include "registry.h"

static pthread_once_t plugins_once = PTHREAD_ONCE_INIT;

/* The plugin this thread is loading (dlopen with its constructors, then its
 * entry function), or NULL. Only the scanning thread ever sets its own copy. */
static _Thread_local const char *plugins_loading;
/* Whether this thread is running the scan: a lookup made from plugin code
 * (an entry or constructor calling back into accel) must not wait for the
 * scan it is part of. */
static _Thread_local bool plugins_scanning;

/* ------------------------------------------------------------ unloading */

/* Whether `address` lies in the shared object whose link map is `map`. */
static bool plugins_address_in(const void *address, const void *map)
{
    Dl_info info;
    void *extra = NULL;
    if (address == NULL || dladdr1(address, &info, &extra, RTLD_DL_LINKMAP) == 0)
        return false;
    return extra == map;
}

/* Whether a table registered at index `from` or later is `ops` itself (when
 * `ops` is not NULL), or any registered table has its table, name, info or
 * code in the object `map` (when `map` is not NULL).
 * The list is copied first: dladdr takes the dynamic loader's lock, which a
 * plugin constructor registering a table holds while it waits for the registry's. */
static bool plugins_registered(const accel_backend_ops_t *ops, size_t from, const void *map)
{
    const accel_backend_ops_t **tables = NULL;
    size_t count = accel_registry_snapshot(NULL, 0), got;
    bool found = false;
    for (;;) {
        const accel_backend_ops_t **grown = realloc(tables, (count + 1) * sizeof *tables);
        if (grown == NULL) {
            free(tables);
            return true; /* cannot tell: assume the worst and keep the plugin */
        }
        tables = grown;
        got = accel_registry_snapshot(tables, count + 1);
        if (got <= count + 1)
            break;
        count = got; /* another thread registered meanwhile */
    }
    for (size_t i = 0; i < got && !found; i++) {
        const accel_backend_ops_t *t = tables[i];
        void *probe, *create;
        memcpy(&probe, &t->probe, sizeof probe);
        memcpy(&create, &t->create, sizeof create);
        found =
            (i >= from && t == ops) ||
            (map != NULL && (plugins_address_in(t, map) || plugins_address_in(t->name, map) ||
                             plugins_address_in(t->info, map) || plugins_address_in(probe, map) ||
                             plugins_address_in(create, map)));
    }
    free(tables);
    return found;
}

/* Close a refused plugin, unless a table it registered (from its entry or a
 * constructor) is in the registry: unloading it would leave that table, and
 * the code it points to, dangling. */
static void plugins_unload(void *handle, const char *path)
{
    void *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0) {
        accel_log(ACCEL_LOG_WARN, "plugin %s: stays loaded (%s)", path, dlerror());
        return;
    }
    if (plugins_registered(NULL, 0, map)) {
        accel_log(ACCEL_LOG_WARN,
                  "plugin %s: stays loaded, since a backend table in it is registered", path);
        return;
    }
    dlclose(handle);
}

/* ------------------------------------------------------------ loading */

static void plugins_load_file_now(const char *path)
{
    char origin[PATH_MAX + 16];
    accel_backend_entry_fn_t entry;
    const accel_backend_ops_t *ops;
    void *symbol;
    void *handle;
    size_t registered_before;
    struct stat info;
    /* Only regular files: dlopen would block forever opening a FIFO, and
     * reading a device or socket is no better. (A file swapped for a FIFO
     * between this stat and the dlopen is not guarded against.) */
    if (stat(path, &info) != 0) {
        accel_log(ACCEL_LOG_WARN, "plugin %s: %s; skipped", path, strerror(errno));
        return;
    }
    if (!S_ISREG(info.st_mode)) {
        accel_log(ACCEL_LOG_WARN, "plugin %s: not a regular file; skipped", path);
        return;
    }
    plugins_loading = path;
    registered_before = accel_registry_snapshot(NULL, 0);
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        accel_log(ACCEL_LOG_WARN, "plugin %s: cannot be loaded (%s); skipped", path, dlerror());
        return;
    }
    symbol = dlsym(handle, ACCEL_BACKEND_ENTRY_SYMBOL);
    if (symbol == NULL) {
        accel_log(ACCEL_LOG_WARN, "plugin %s: does not export %s(); skipped", path,
                  ACCEL_BACKEND_ENTRY_SYMBOL);
        plugins_unload(handle, path);
        return;
    }
    /* POSIX guarantees a data pointer from dlsym converts to a function pointer. */
    memcpy(&entry, &symbol, sizeof entry);
    ops = entry();
    if (ops != NULL && plugins_registered(ops, registered_before, NULL)) {
        /* Registered during this load: the entry (or a constructor) registered
         * this very table itself with accel_register_backend. */
        accel_log(ACCEL_LOG_INFO, "plugin %s: backend \"%s\" registered by its entry", path,
                  ops->name);
        return;
    }
    snprintf(origin, sizeof origin, "plugin %s", path);
    if (accel_registry_add(ops, origin) != ACCEL_OK) {
        accel_log(ACCEL_LOG_WARN, "%s; skipped", accel_last_error());
        plugins_unload(handle, path);
        return;
    }
    /* The handle stays open for the process lifetime: its table is in use. */
    accel_log(ACCEL_LOG_INFO, "plugin %s: registered backend \"%s\"", path, ops->name);
}

static void plugins_load_file(const char *path)
{
    plugins_load_file_now(path);
    plugins_loading = NULL;
}

static int plugins_filter(const struct dirent *entry)
{
    return fnmatch("libaccel-backend-*.so", entry->d_name, 0) == 0;
}

/* Byte order, not the locale's collation: the load order must not depend on LANG. */
static int plugins_compare(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void plugins_load_folder(const char *folder)
{
    struct dirent **entries = NULL;
    int count = scandir(folder, &entries, plugins_filter, plugins_compare);
    if (count < 0) {
        accel_log(ACCEL_LOG_WARN, "ACCEL_PLUGIN_PATH: cannot list %s (%s); skipped", folder,
                  strerror(errno));
        return;
    }
    for (int i = 0; i < count; i++) {
        char path[PATH_MAX];
        int len = snprintf(path, sizeof path, "%s/%s", folder, entries[i]->d_name);
        if (len > 0 && (size_t)len < sizeof path)
            plugins_load_file(path);
        else
            accel_log(ACCEL_LOG_WARN, "ACCEL_PLUGIN_PATH: path too long in %s; skipped", folder);
        free(entries[i]);
    }
    free(entries);
}

static void plugins_load_path_entry(const char *entry)
{
    struct stat info;
    if (stat(entry, &info) != 0) {
        accel_log(ACCEL_LOG_WARN, "ACCEL_PLUGIN_PATH: %s: %s; skipped", entry, strerror(errno));
        return;
    }
    if (S_ISDIR(info.st_mode))
        plugins_load_folder(entry);
    else
        plugins_load_file(entry);
}

void accel_plugins_scan_list(const char *path)
{
    char *saveptr = NULL;
    char *copy;
    bool outer = plugins_scanning;
    if (path == NULL)
        return;
    plugins_scanning = true;
    copy = strdup(path);
    if (copy == NULL) {
        accel_log(ACCEL_LOG_WARN, "ACCEL_PLUGIN_PATH: out of host memory; no plugins loaded");
        plugins_scanning = outer;
        return;
    }
    /* Empty items ("a::b", a trailing ':') are skipped. */
    for (char *item = strtok_r(copy, ":", &saveptr); item != NULL;
         item = strtok_r(NULL, ":", &saveptr))
        plugins_load_path_entry(item);
    free(copy);
    plugins_scanning = outer;
}

static void plugins_scan(void)
{
    accel_plugins_scan_list(accel_env_get("ACCEL_PLUGIN_PATH"));
}

void accel_registry_load_plugins(void)
{
    /* Called back from plugin code during the scan: waiting would deadlock;
     * lookups see the backends registered so far. */
    if (plugins_scanning)
        return;
    pthread_once(&plugins_once, plugins_scan);
}

accel_status_t accel_plugins_refuse_reentry(const char *api)
{
    if (!plugins_scanning)
        return ACCEL_OK;
    return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                       "%s: called while plugin %s is loading (from its %s() or a constructor); "
                       "a plugin may register backends there, but the process-wide accelerator "
                       "can only be chosen once every plugin is loaded",
                       api, plugins_loading != NULL ? plugins_loading : "(unknown)",
                       ACCEL_BACKEND_ENTRY_SYMBOL);
}
