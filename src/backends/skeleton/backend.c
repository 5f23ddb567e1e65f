/* backend.c: the skeleton backend's table, its static facts, detection,
 * lifecycle and device queries. Memory and random numbers live in
 * memory.c and rng.c. Copy this folder to start a backend: see
 * docs/backend-guide.md. Constant tables; every slot is thread-safe. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "backends/skeleton/skeleton_backend.h"

#define SKELETON_LIBRARY "libc.so.6"

/* ---------------------------------------------------------------- static facts */

static const char *const skeleton_compile_backends[] = {"inductor"};

static const accel_backend_info_t skeleton_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .communication_backend = NULL, /* DeepSpeed's None: no collectives engine */
    .default_compile_backend = "inductor",
    .compile_backends = skeleton_compile_backends,
    .compile_backend_count = 1,
    .visible_devices_envs = NULL,
    .visible_devices_env_count = 0,
    .export_envs = NULL,
    .export_env_count = 0,
    .dlpack_device_type = kDLCPU, /* its device memory is host memory */
    .device_name_ignores_index = false,
    .synchronized_device = true, /* every call completes before it returns */
    .use_host_timers = true,
    .resolves_data_dependency = false,
    .handles_memory_backpressure = false,
    .nvtx_domain_supported = false,
    .lazy_call_runs_immediately = false,
    .runtime_library = SKELETON_LIBRARY,
    .vendor_stack = "the C library, standing in for a vendor runtime (template backend)",
    .current_device_from_local_rank = false,
};

/* ---------------------------------------------------------------- lifecycle */

/* Load the runtime and resolve every symbol; NULL (with the reason in `why`)
 * when the library or a required symbol is missing. */
static void *skeleton_open(accel_skeleton_api_t *api, char *why, size_t why_cap)
{
    static const char *const candidates[] = {SKELETON_LIBRARY, NULL};
    char tried[512] = "";
    void *library = accel_backend_load_library("skeleton", candidates, tried, sizeof tried);
#define ACCEL_SKELETON_SYMBOL(required, ret, name, params, export)                                 \
    ACCEL_SYMBOL_ENTRY(*api, required, name, export),
    const accel_symbol_t symbols[] = {
#include "backends/skeleton/symbols.h"
    };
#undef ACCEL_SKELETON_SYMBOL
    if (library == NULL) {
        snprintf(why, why_cap, "%s not found (tried %s)", SKELETON_LIBRARY, tried);
        return NULL;
    }
    if (accel_symbol_table_resolve(library, symbols, sizeof symbols / sizeof symbols[0], "skeleton",
                                   SKELETON_LIBRARY, why, why_cap) != ACCEL_OK) {
        dlclose(library);
        return NULL;
    }
    return library;
}

/* Detection: the cheapest look that creates no context. The skeleton is
 * never picked by auto-detect (it is not in the cascade), only by name. */
static void skeleton_probe(accel_probe_result_t *out)
{
    accel_skeleton_api_t api;
    void *library = skeleton_open(&api, out->reason, sizeof out->reason);
    if (library == NULL)
        return;
    dlclose(library);
    out->available = true;
    out->device_count = 1;
    out->explicit_only = true;
    snprintf(out->reason, sizeof out->reason,
             "1 device: host memory through %s (template backend, never auto-detected)",
             SKELETON_LIBRARY);
}

static accel_status_t skeleton_create(void **out_self)
{
    char why[256];
    accel_skeleton_backend_t *skeleton = calloc(1, sizeof *skeleton);
    if (skeleton == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "skeleton: out of host memory");
    skeleton->library = skeleton_open(&skeleton->api, why, sizeof why);
    if (skeleton->library == NULL) {
        free(skeleton);
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "skeleton: %s", why);
    }
    *out_self = skeleton;
    return ACCEL_OK;
}

static void skeleton_destroy(void *self)
{
    accel_skeleton_backend_t *skeleton = self;
    dlclose(skeleton->library);
    free(skeleton);
}

/* A real backend creates contexts and queues here, once, lazily. */
static accel_status_t skeleton_init(void *self)
{
    (void)self;
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- devices */

static accel_status_t skeleton_device_count(void *self, int *out)
{
    (void)self;
    *out = 1;
    return ACCEL_OK;
}

/* Every copy and fill has finished when its call returns. */
static accel_status_t skeleton_synchronize(void *self, int device)
{
    (void)self;
    (void)device;
    return ACCEL_OK;
}

static accel_status_t skeleton_supported_dtypes(void *self, int device, accel_dtype_t *out,
                                                size_t cap, size_t *out_count)
{
    static const accel_dtype_t all[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F16, ACCEL_DTYPE_BF16};
    (void)self;
    (void)device;
    return accel_dtypes_copy_out("skeleton", all, sizeof all / sizeof all[0], out, cap, out_count);
}

/* ---------------------------------------------------------------- the table */

/* Only the required slots: core answers UNSUPPORTED (or DeepSpeed's default)
 * for every NULL one without calling it. */
static const accel_backend_ops_t skeleton_ops = {
    .abi_version = ACCEL_BACKEND_ABI_VERSION,
    .struct_size = sizeof(accel_backend_ops_t),
    .name = "skeleton",
    .info = &skeleton_info,

    .probe = skeleton_probe,
    .create = skeleton_create,
    .destroy = skeleton_destroy,
    .init = skeleton_init,

    .device_count = skeleton_device_count,
    .synchronize = skeleton_synchronize,
    .supported_dtypes = skeleton_supported_dtypes,

    .mem_alloc = accel_skeleton_mem_alloc,
    .mem_free = accel_skeleton_mem_free,
    .memcpy_async = accel_skeleton_memcpy_async,
    .memset_async = accel_skeleton_memset_async,

    .rng_fill = accel_skeleton_rng_fill,
};

const accel_backend_ops_t *accel_skeleton_backend_ops(void)
{
    return &skeleton_ops;
}
