/* backend.c: the skeleton backend's table, its static facts, detection,
 * lifecycle and device queries. Memory and random numbers live in
 * memory.c and rng.c. Copy this folder to start a backend: see
 * docs/backend-guide.md. Constant tables; every slot is thread-safe. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The runtime's table: loaded once per process by the vendor-library
 * loader (accel_backend_utils.h), read-only afterwards; the handle stays
 * open for the process, as a real backend's. On failure the reason says
 * whether the library or a required symbol is missing. */
static accel_skeleton_api_t skeleton_api;

static const accel_symbol_t skeleton_symbols[] = {
#define ACCEL_SKELETON_SYMBOL(required, ret, name, params, export)                                 \
    ACCEL_SYMBOL_ENTRY(skeleton_api, required, name, export),
#include "backends/skeleton/symbols.h"
#undef ACCEL_SKELETON_SYMBOL
};

static const char *const skeleton_candidates[] = {SKELETON_LIBRARY, NULL};

static accel_vendor_library_t skeleton_library = {
    .name = "skeleton",
    .candidates = skeleton_candidates,
    .symbols = skeleton_symbols,
    .symbol_count = sizeof skeleton_symbols / sizeof skeleton_symbols[0],
    .not_found = SKELETON_LIBRARY " not found",
    .symbols_in = SKELETON_LIBRARY,
};

static const void *skeleton_detect_load(char *reason, size_t cap)
{
    return accel_vendor_library_open(&skeleton_library, reason, cap) ? &skeleton_api : NULL;
}

/* The cheapest count that creates no context; here the one host device. */
static bool skeleton_detect_count(const void *runtime, int *count, char *how, size_t cap)
{
    (void)runtime;
    *count = 1;
    snprintf(how, cap, "1 device: host memory through %s (template backend, never auto-detected)",
             SKELETON_LIBRARY);
    return true;
}

/* What probe and create share. The C library works in a forked child, so
 * there is no fork rule (forked NULL); a runtime that cannot be used after
 * fork() names its check and sentences here (see the npu backend). */
static const accel_backend_detect_t skeleton_detect = {
    .backend = "skeleton",
    .load = skeleton_detect_load,
    .count = skeleton_detect_count,
};

/* Detection: the cheapest look that creates no context. The skeleton is
 * never picked by auto-detect (it is not in the cascade), only by name. */
static void skeleton_probe(accel_probe_result_t *out)
{
    accel_backend_detect_probe(&skeleton_detect, out);
    if (out->available)
        out->explicit_only = true;
}

static accel_status_t skeleton_create(void **out_self)
{
    const void *runtime;
    accel_skeleton_backend_t *skeleton;
    accel_status_t status = accel_backend_detect_open(&skeleton_detect, &runtime, NULL);
    if (status != ACCEL_OK)
        return status;
    skeleton = calloc(1, sizeof *skeleton);
    if (skeleton == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "skeleton: out of host memory");
    skeleton->api = runtime;
    skeleton->pid = getpid();
    accel_skeleton_callbacks_init(skeleton);
    *out_self = skeleton;
    return ACCEL_OK;
}

/* Core releases streams and events first. A forked child has no copy of
 * the callback thread. */
static void skeleton_destroy(void *self)
{
    accel_skeleton_backend_t *skeleton = self;
    accel_callback_emulator_fini(&skeleton->callbacks, getpid() != skeleton->pid);
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

static accel_status_t skeleton_supported_dtypes(void *self, int device, accel_dtype_t *out,
                                                size_t cap, size_t *out_count)
{
    static const accel_dtype_t all[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F16, ACCEL_DTYPE_BF16};
    (void)self;
    (void)device;
    return accel_dtypes_copy_out("skeleton", all, sizeof all / sizeof all[0], out, cap, out_count);
}

/* ---------------------------------------------------------------- the table */

/* The required slots, streams, events and host callbacks: core answers
 * UNSUPPORTED (or DeepSpeed's default) for every NULL one without calling
 * it. */
static const accel_backend_ops_t skeleton_ops = {
    ACCEL_BACKEND_OPS_HEAD(skeleton),

    .device_count = skeleton_device_count,
    .synchronize = accel_skeleton_synchronize,
    .supported_dtypes = skeleton_supported_dtypes,

    ACCEL_BACKEND_MEMORY_SLOTS(accel_skeleton),
    ACCEL_BACKEND_PINNED_SLOTS(accel_skeleton),
    ACCEL_BACKEND_STREAM_SLOTS(accel_skeleton),
    ACCEL_BACKEND_EVENT_SLOTS(accel_skeleton),

    .rng_fill = accel_skeleton_rng_fill,
};

const accel_backend_ops_t *accel_skeleton_backend_ops(void)
{
    return &skeleton_ops;
}
