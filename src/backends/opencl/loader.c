/* loader.c: loading the OpenCL ICD loader (libOpenCL.so.1) with dlopen,
 * the CL error names used in every message, and the flattened device list.
 * The loader is loaded once per process (the vendor-library loader,
 * accel_backend_utils.h) and never unloaded:
 * probe() and every create() share it. Also the fork rule: a child forked
 * after the loader was loaded makes no OpenCL call at all. Thread-safe. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "backends/opencl/opencl_backend.h"

#define OPENCL_VISIBLE_ENV "ACCEL_OPENCL_VISIBLE_DEVICES"
#define OPENCL_MAX_VISIBLE 256

static accel_cl_api_t opencl_api;

/* ---------------------------------------------------------------- fork rule */

/* Set in a child forked after the loader was loaded: the runtime's threads
 * (PoCL's workers, the ICD's notification thread) and its locks did not come
 * along, so any OpenCL call there may hang for ever. Never cleared. */
static accel_fork_rule_t opencl_fork_rule;

bool accel_opencl_forked(void)
{
    return accel_fork_rule_forked(&opencl_fork_rule);
}

accel_status_t accel_opencl_fork_refuse(void)
{
    return accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "%s", ACCEL_OPENCL_FORK_SENTENCE);
}

static const accel_symbol_t opencl_symbols[] = {
#define ACCEL_CL_SYMBOL(required, ret, name, params, export)                                       \
    ACCEL_SYMBOL_ENTRY(opencl_api, required, name, export),
#include "backends/opencl/symbols.h"
#undef ACCEL_CL_SYMBOL
};

/* From the first OpenCL call on, a forked child must not make any. */
static bool opencl_api_loaded(accel_vendor_library_t *lib, void *library)
{
    (void)lib;
    (void)library;
    accel_fork_rule_start(&opencl_fork_rule);
    return true;
}

static const char *const opencl_names[] = {"libOpenCL.so.1", "libOpenCL.so", NULL};

static accel_vendor_library_t opencl_library = {
    .name = "opencl",
    .candidates = opencl_names,
    .symbols = opencl_symbols,
    .symbol_count = sizeof opencl_symbols / sizeof opencl_symbols[0],
    .not_found = "the OpenCL ICD loader was not found",
    .symbols_in = "the OpenCL ICD loader",
    .too_old = "an OpenCL 1.2 loader is needed",
    .handle_out = &opencl_api.library,
    .on_load = opencl_api_loaded,
};

const accel_cl_api_t *accel_opencl_api(char *reason, size_t cap)
{
    if (accel_opencl_forked()) {
        if (reason != NULL && cap > 0)
            snprintf(reason, cap, "%s", ACCEL_OPENCL_FORK_SENTENCE);
        return NULL;
    }
    return accel_vendor_library_open(&opencl_library, reason, cap) ? &opencl_api : NULL;
}

/* ---------------------------------------------------------------- errors */

const char *accel_opencl_error_name(accel_cl_int code)
{
    static const struct {
        accel_cl_int code;
        const char *name;
    } names[] = {
        {0, "CL_SUCCESS"},
        {-1, "CL_DEVICE_NOT_FOUND"},
        {-2, "CL_DEVICE_NOT_AVAILABLE"},
        {-3, "CL_COMPILER_NOT_AVAILABLE"},
        {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
        {-5, "CL_OUT_OF_RESOURCES"},
        {-6, "CL_OUT_OF_HOST_MEMORY"},
        {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
        {-8, "CL_MEM_COPY_OVERLAP"},
        {-11, "CL_BUILD_PROGRAM_FAILURE"},
        {-12, "CL_MAP_FAILURE"},
        {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
        {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
        {-30, "CL_INVALID_VALUE"},
        {-31, "CL_INVALID_DEVICE_TYPE"},
        {-32, "CL_INVALID_PLATFORM"},
        {-33, "CL_INVALID_DEVICE"},
        {-34, "CL_INVALID_CONTEXT"},
        {-35, "CL_INVALID_QUEUE_PROPERTIES"},
        {-36, "CL_INVALID_COMMAND_QUEUE"},
        {-37, "CL_INVALID_HOST_PTR"},
        {-38, "CL_INVALID_MEM_OBJECT"},
        {-42, "CL_INVALID_BINARY"},
        {-43, "CL_INVALID_BUILD_OPTIONS"},
        {-44, "CL_INVALID_PROGRAM"},
        {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
        {-46, "CL_INVALID_KERNEL_NAME"},
        {-48, "CL_INVALID_KERNEL"},
        {-49, "CL_INVALID_ARG_INDEX"},
        {-50, "CL_INVALID_ARG_VALUE"},
        {-51, "CL_INVALID_ARG_SIZE"},
        {-52, "CL_INVALID_KERNEL_ARGS"},
        {-53, "CL_INVALID_WORK_DIMENSION"},
        {-54, "CL_INVALID_WORK_GROUP_SIZE"},
        {-55, "CL_INVALID_WORK_ITEM_SIZE"},
        {-56, "CL_INVALID_GLOBAL_OFFSET"},
        {-57, "CL_INVALID_EVENT_WAIT_LIST"},
        {-58, "CL_INVALID_EVENT"},
        {-59, "CL_INVALID_OPERATION"},
        {-61, "CL_INVALID_BUFFER_SIZE"},
        {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
        {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i].code == code)
            return names[i].name;
    }
    return "CL_UNKNOWN_ERROR";
}

accel_status_t accel_opencl_fail(const char *call, accel_cl_int code)
{
    if (code == ACCEL_CL_MEM_OBJECT_ALLOCATION_FAILURE || code == ACCEL_CL_OUT_OF_HOST_MEMORY ||
        code == ACCEL_CL_INVALID_BUFFER_SIZE)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "opencl: %s failed: %s (%d)", call,
                                   accel_opencl_error_name(code), (int)code);
    return accel_backend_vendor_error(code, "opencl: %s failed: %s (%d)", call,
                                      accel_opencl_error_name(code), (int)code);
}

/* ---------------------------------------------------------------- enumeration */

static accel_status_t opencl_platform_devices(const accel_cl_api_t *api,
                                              accel_cl_platform_id platform,
                                              accel_opencl_found_t **list, int *count)
{
    accel_cl_uint n = 0;
    accel_cl_device_id *ids;
    accel_opencl_found_t *grown;
    accel_cl_int err = api->clGetDeviceIDs(platform, ACCEL_CL_DEVICE_TYPE_ALL, 0, NULL, &n);
    if (err == ACCEL_CL_DEVICE_NOT_FOUND || (err == ACCEL_CL_SUCCESS && n == 0))
        return ACCEL_OK;
    if (err != ACCEL_CL_SUCCESS)
        return accel_opencl_fail("clGetDeviceIDs", err);
    ids = calloc(n, sizeof *ids);
    grown = realloc(*list, ((size_t)*count + n) * sizeof **list);
    if (grown != NULL)
        *list = grown;
    if (ids == NULL || grown == NULL) {
        free(ids);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "opencl: out of host memory");
    }
    err = api->clGetDeviceIDs(platform, ACCEL_CL_DEVICE_TYPE_ALL, n, ids, NULL);
    for (accel_cl_uint i = 0; err == ACCEL_CL_SUCCESS && i < n; i++) {
        accel_opencl_found_t *found = &(*list)[(*count)++];
        *found = (accel_opencl_found_t){.platform = platform, .id = ids[i]};
        api->clGetDeviceInfo(ids[i], ACCEL_CL_DEVICE_TYPE, sizeof found->type, &found->type, NULL);
        api->clGetDeviceInfo(ids[i], ACCEL_CL_DEVICE_NAME, sizeof found->name - 1, found->name,
                             NULL);
    }
    free(ids);
    return err == ACCEL_CL_SUCCESS ? ACCEL_OK : accel_opencl_fail("clGetDeviceIDs", err);
}

/* Keep only the devices ACCEL_OPENCL_VISIBLE_DEVICES names, in its order. */
static accel_status_t opencl_filter_visible(accel_opencl_found_t *list, int *count, char *reason,
                                            size_t cap)
{
    const char *text = accel_env_get(OPENCL_VISIBLE_ENV);
    int ids[OPENCL_MAX_VISIBLE];
    size_t n = 0;
    accel_opencl_found_t *kept;
    if (text == NULL)
        return ACCEL_OK;
    if (!accel_env_parse_int_list(text, ids, OPENCL_MAX_VISIBLE, &n))
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "opencl: %s=\"%s\" is not a list of device indices like 0,2",
                                   OPENCL_VISIBLE_ENV, text);
    kept = calloc(n > 0 ? n : 1, sizeof *kept);
    if (kept == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "opencl: out of host memory");
    for (size_t i = 0; i < n; i++) {
        if (ids[i] >= *count) {
            free(kept);
            return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                       "opencl: %s names device %d but only %d exist",
                                       OPENCL_VISIBLE_ENV, ids[i], *count);
        }
        kept[i] = list[ids[i]];
    }
    snprintf(reason, cap, "%s=%s shows %zu of %d devices", OPENCL_VISIBLE_ENV, text, n, *count);
    memcpy(list, kept, n * sizeof *kept);
    free(kept);
    *count = (int)n;
    return ACCEL_OK;
}

accel_status_t accel_opencl_enumerate(const accel_cl_api_t *api, accel_opencl_found_t **out,
                                      int *out_count, char *reason, size_t cap)
{
    accel_cl_uint platforms = 0;
    accel_cl_platform_id *ids = NULL;
    accel_opencl_found_t *list = NULL;
    int count = 0;
    accel_status_t status = ACCEL_OK;
    accel_cl_int err = api->clGetPlatformIDs(0, NULL, &platforms);

    reason[0] = '\0';
    if (err == ACCEL_CL_PLATFORM_NOT_FOUND_KHR || (err == ACCEL_CL_SUCCESS && platforms == 0)) {
        snprintf(reason, cap,
                 "no OpenCL platform (no ICD registered in /etc/OpenCL/vendors "
                 "or OCL_ICD_VENDORS)");
        *out = NULL;
        *out_count = 0;
        return ACCEL_OK;
    }
    if (err != ACCEL_CL_SUCCESS)
        return accel_opencl_fail("clGetPlatformIDs", err);
    ids = calloc(platforms, sizeof *ids);
    if (ids == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "opencl: out of host memory");
    err = api->clGetPlatformIDs(platforms, ids, NULL);
    if (err != ACCEL_CL_SUCCESS)
        status = accel_opencl_fail("clGetPlatformIDs", err);
    for (accel_cl_uint p = 0; status == ACCEL_OK && p < platforms; p++)
        status = opencl_platform_devices(api, ids[p], &list, &count);
    free(ids);
    if (status == ACCEL_OK)
        status = opencl_filter_visible(list, &count, reason, cap);
    if (status != ACCEL_OK) {
        free(list);
        return status;
    }
    *out = list;
    *out_count = count;
    return ACCEL_OK;
}
