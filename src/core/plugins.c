/* plugins.c: the plugin scan. Every file named libaccel-backend-*.so in the
 * folders on ACCEL_PLUGIN_PATH (and every file named there) is dlopen'ed and
 * its accel_backend_entry() table registered through accel_registry_add.
 * Threads: the scan runs once per process (pthread_once), on the first lookup.
 * Lifetime: a plugin whose table is registered stays loaded until exit. */
#include "plugins.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "env.h"
#include "error.h"
#include "registry.h"

static pthread_once_t plugins_once = PTHREAD_ONCE_INIT;

static void plugins_load_file(const char *path)
{
    char origin[PATH_MAX + 16];
    accel_backend_entry_fn_t entry;
    const accel_backend_ops_t *ops;
    void *symbol;
    void *handle;
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
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        accel_log(ACCEL_LOG_WARN, "plugin %s: cannot be loaded (%s); skipped", path, dlerror());
        return;
    }
    symbol = dlsym(handle, ACCEL_BACKEND_ENTRY_SYMBOL);
    if (symbol == NULL) {
        accel_log(ACCEL_LOG_WARN, "plugin %s: does not export %s(); skipped", path,
                  ACCEL_BACKEND_ENTRY_SYMBOL);
        dlclose(handle);
        return;
    }
    /* POSIX guarantees a data pointer from dlsym converts to a function pointer. */
    memcpy(&entry, &symbol, sizeof entry);
    ops = entry();
    snprintf(origin, sizeof origin, "plugin %s", path);
    if (accel_registry_add(ops, origin) != ACCEL_OK) {
        accel_log(ACCEL_LOG_WARN, "%s; skipped", accel_last_error());
        dlclose(handle);
        return;
    }
    /* The handle stays open for the process lifetime: its table is in use. */
    accel_log(ACCEL_LOG_INFO, "plugin %s: registered backend \"%s\"", path, ops->name);
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

static void plugins_scan_path(void)
{
    char *saveptr = NULL;
    char *copy;
    const char *path = accel_env_get("ACCEL_PLUGIN_PATH");
    if (path == NULL)
        return;
    copy = strdup(path);
    if (copy == NULL) {
        accel_log(ACCEL_LOG_WARN, "ACCEL_PLUGIN_PATH: out of host memory; no plugins loaded");
        return;
    }
    /* Empty items ("a::b", a trailing ':') are skipped. */
    for (char *item = strtok_r(copy, ":", &saveptr); item != NULL;
         item = strtok_r(NULL, ":", &saveptr))
        plugins_load_path_entry(item);
    free(copy);
}

void accel_registry_load_plugins(void)
{
    pthread_once(&plugins_once, plugins_scan_path);
}
