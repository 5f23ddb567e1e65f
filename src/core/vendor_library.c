/* vendor_library.c: loading a backend's or collectives engine's vendor
 * library once per process (accel_vendor_library_open,
 * accel/accel_backend_utils.h): where to look, the symbol table, the
 * sentence that says why not.
 * Threads: one lock for every library (loading is rare, and a library's
 * on_load may open another); a library's state is published with release
 * and read with acquire, so a loaded library costs one load per call. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"

enum { LIBRARY_UNTRIED = 0, LIBRARY_LOADED = 1, LIBRARY_FAILED = 2 };

#define LIBRARY_MAX_CANDIDATES 16

static pthread_mutex_t library_lock;
static pthread_once_t library_lock_once = PTHREAD_ONCE_INIT;

static void library_lock_init(void)
{
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&library_lock, &attributes);
    pthread_mutexattr_destroy(&attributes);
}

/* dlerror's long "No such file" text, shortened in place to "not found". */
static void library_shorten_tried(char *tried)
{
    static const char long_text[] = "cannot open shared object file: No such file or directory";
    char *at;
    while ((at = strstr(tried, long_text)) != NULL) {
        memcpy(at, "not found", 9);
        memmove(at + 9, at + sizeof long_text - 1, strlen(at + sizeof long_text - 1) + 1);
    }
}

/* <home>/<home_file> for each set home variable, then the candidates. The
 * paths live in `homes` for the length of the load. Returns whether some
 * home variable was set (unset or empty: not). */
static bool library_candidates(const accel_vendor_library_t *lib, const char **out,
                               char (*homes)[512])
{
    size_t n = 0, h = 0;
    bool any_home = false;
    for (size_t i = 0; lib->home_vars != NULL && lib->home_vars[i] != NULL; i++) {
        const char *root = getenv(lib->home_vars[i]);
        if (root != NULL)
            any_home = true;
        if (root == NULL || root[0] == '\0' || lib->home_file == NULL || h >= 4)
            continue;
        if (snprintf(homes[h], sizeof homes[h], "%s/%s", root, lib->home_file) <
            (int)sizeof homes[h])
            out[n++] = homes[h++];
    }
    for (size_t i = 0;
         lib->candidates != NULL && lib->candidates[i] != NULL && n < LIBRARY_MAX_CANDIDATES; i++)
        out[n++] = lib->candidates[i];
    out[n] = NULL;
    return any_home;
}

/* The path of the symbol named lib->path_from, into lib->path. */
static void library_path(accel_vendor_library_t *lib, const char *fallback)
{
    if (lib->path == NULL || lib->path_cap == 0 || lib->path_from == NULL)
        return;
    for (size_t i = 0; i < lib->symbol_count; i++) {
        void *address;
        if (strcmp(lib->symbols[i].name, lib->path_from) != 0)
            continue;
        memcpy(&address, lib->symbols[i].slot, sizeof address);
        accel_library_path(address, fallback, lib->path, lib->path_cap);
        return;
    }
    accel_reason_format(lib->path, lib->path_cap, "%s", fallback);
}

static bool library_load(accel_vendor_library_t *lib)
{
    const char *candidates[LIBRARY_MAX_CANDIDATES + 5];
    char homes[4][512], tried[1024] = "", missing[320];
    const char *backend = lib->backend != NULL ? lib->backend : lib->name;
    bool any_home = library_candidates(lib, candidates, homes);
    void *handle = accel_backend_load_library(lib->name, candidates, tried, sizeof tried);
    if (lib->brief_tried)
        library_shorten_tried(tried);
    if (handle == NULL) {
        accel_reason_format(lib->text, sizeof lib->text, "%s (tried %s%s)%s%s", lib->not_found,
                            tried, !any_home && lib->home_unset != NULL ? lib->home_unset : "",
                            lib->not_found_hint != NULL ? "; " : "",
                            lib->not_found_hint != NULL ? lib->not_found_hint : "");
        return false;
    }
    if (accel_symbol_table_resolve(handle, lib->symbols, lib->symbol_count, backend,
                                   lib->symbols_in, missing, sizeof missing) != ACCEL_OK) {
        accel_reason_format(
            lib->text, sizeof lib->text, "%s%s%s%s", missing, lib->too_old != NULL ? " (" : "",
            lib->too_old != NULL ? lib->too_old : "", lib->too_old != NULL ? ")" : "");
        dlclose(handle);
        return false;
    }
    library_path(lib, candidates[0] != NULL ? candidates[0] : lib->name);
    if (lib->handle_out != NULL)
        *lib->handle_out = handle;
    lib->text[0] = '\0';
    return lib->on_load == NULL || lib->on_load(lib, handle);
}

bool accel_vendor_library_open(accel_vendor_library_t *lib, char *reason, size_t cap)
{
    int state;
    if (lib == NULL) {
        accel_reason_format(reason, reason != NULL ? cap : 0, "no vendor library described");
        return false;
    }
    state = __atomic_load_n(&lib->state, __ATOMIC_ACQUIRE);
    if (state == LIBRARY_UNTRIED) {
        pthread_once(&library_lock_once, library_lock_init);
        pthread_mutex_lock(&library_lock);
        state = __atomic_load_n(&lib->state, __ATOMIC_ACQUIRE);
        if (state == LIBRARY_UNTRIED) {
            state = library_load(lib) ? LIBRARY_LOADED : LIBRARY_FAILED;
            __atomic_store_n(&lib->state, state, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&library_lock);
    }
    if (state == LIBRARY_LOADED)
        return true;
    if (reason != NULL)
        accel_reason_format(reason, cap, "%s", lib->text);
    return false;
}
