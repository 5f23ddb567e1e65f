/* comm_version.c: accel_communication_backend_version, DeepSpeed's
 * communication_backend_version(): the version of the collectives library
 * behind the backend's communication backend name. accel never loads that
 * library (the framework does); it asks the copy already in the process
 * (dlopen with RTLD_NOLOAD), so the answer never changes what is loaded.
 * Stateless; thread-safe. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "error.h"

/* A collectives library whose version can be asked in C. */
typedef struct comm_library {
    const char *engine;         /* the communication backend name */
    const char *const *sonames; /* tried in order, NULL-terminated */
    const char *version_symbol; /* int fn(int *version_code) */
} comm_library_t;

static const char *const comm_nccl_sonames[] = {"libnccl.so.2", "libnccl.so", NULL};

static const comm_library_t comm_libraries[] = {
    {"nccl", comm_nccl_sonames, "ncclGetVersion"},
};

/* NCCL_VERSION_CODE: MAJOR*10000 + MINOR*100 + PATCH since 2.9, MAJOR*1000 +
 * MINOR*100 + PATCH before. */
static void comm_nccl_decode(int code, int *major, int *minor, int *patch)
{
    int unit = code >= 10000 ? 10000 : 1000;
    *major = code / unit;
    *minor = (code % unit) / 100;
    *patch = code % 100;
}

/* The loaded library's version as text; false when none is loaded or its
 * query fails. */
static bool comm_loaded_version(const comm_library_t *library, char *text, size_t cap)
{
    for (size_t i = 0; library->sonames[i] != NULL; i++) {
        int (*get_version)(int *);
        int code = 0, major, minor, patch;
        void *handle = dlopen(library->sonames[i], RTLD_LAZY | RTLD_NOLOAD);
        if (handle == NULL)
            continue;
        *(void **)&get_version = dlsym(handle, library->version_symbol);
        if (get_version != NULL && get_version(&code) == 0 && code > 0) {
            comm_nccl_decode(code, &major, &minor, &patch);
            snprintf(text, cap, "%d.%d.%d", major, minor, patch);
            dlclose(handle);
            return true;
        }
        dlclose(handle);
    }
    return false;
}

accel_status_t accel_communication_backend_version(const accel_t *acc, char *out, size_t cap)
{
    char text[48] = "unknown";
    const char *engine;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL || cap == 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output buffer is NULL or empty");
    engine = acc->ops->info->communication_backend;
    if (engine == NULL)
        return accel_error(ACCEL_ERROR_UNSUPPORTED, "%s has no communication backend",
                           acc->ops->name);
    for (size_t i = 0; i < sizeof comm_libraries / sizeof comm_libraries[0]; i++) {
        if (strcmp(comm_libraries[i].engine, engine) == 0 &&
            comm_loaded_version(&comm_libraries[i], text, sizeof text))
            break;
    }
    if (strlen(text) >= cap)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "output buffer of %zu bytes is too small for the version \"%s\"", cap,
                           text);
    memcpy(out, text, strlen(text) + 1);
    return ACCEL_OK;
}
