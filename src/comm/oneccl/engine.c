/* engine.c: the oneccl collectives engine (src/comm/engine.h) for the xpu
 * backend: it finds oneCCL's NCCL-like C API (libccl.so.2 since the C API
 * came; the legacy C++ library libccl.so.1 depends on it), checks that every
 * entry point the engine would call is there, and refuses to make
 * communicators, saying why.
 *
 * Why it refuses (oneapi/ccl.h, checked by oneccl.declarations): every
 * collective's last parameter is a void * that, for device buffers, must
 * point to a sycl::queue (a C++ SYCL object accel, C over Level Zero, cannot
 * make from the xpu backend's command lists); NULL is allowed for host
 * buffers only. Nothing in the C API takes a Level Zero queue, command list
 * or event, or returns anything to wait on (onecclCommFinalize waits, but
 * only to end the communicator), so a collective could not be ordered on an
 * accel stream. README.md says what would make it usable.
 *
 * No oneCCL function is ever called, not even onecclGetVersion: its first
 * call loads oneCCL's plugins (libccl_legacy.so with libccl.so.1 and the
 * SYCL runtime), and where they do not load it fails and prints an error
 * block to stderr.
 *
 * Library: ACCEL_ONECCL_LIBRARY, then $CCL_ROOT/lib/libccl.so.2, then
 * libccl.so.2 on the loader's path; loaded once per process (accel_vendor_library_open)
 * and never unloaded. Threads: the table is written once by the vendor-library loader and read-only
 * afterwards. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "accel/accel_backend_utils.h"
#include "comm/engine.h"
#include "comm/oneccl/types.h"
#include "comm/vendor_engines.h"

/* Resolved to say that the library is a complete C API; never called. */
typedef struct oneccl_api {
#define ACCEL_ONECCL_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "comm/oneccl/symbols.h"
#undef ACCEL_ONECCL_SYMBOL
} oneccl_api_t;

static oneccl_api_t oneccl;

#define ONECCL_REFUSAL                                                                             \
    "oneCCL's collectives take their stream as a void * that must point to a sycl::queue for "     \
    "device memory (NULL only for host memory), and its C API takes no Level Zero queue or "       \
    "event and gives nothing to wait on, so accel could not order them on xpu streams"

static const accel_symbol_t oneccl_symbols[] = {
#define ACCEL_ONECCL_SYMBOL(required, ret, name, params, export)                                   \
    ACCEL_SYMBOL_ENTRY(oneccl, required, name, export),
#include "comm/oneccl/symbols.h"
#undef ACCEL_ONECCL_SYMBOL
};

/* After the symbols resolved: the detail line for the report. */
static bool oneccl_loaded(accel_vendor_library_t *lib, void *library)
{
    (void)library;
    snprintf(lib->text, sizeof lib->text,
             "%s (version not asked: oneCCL's first call loads its plugins and SYCL); "
             "communicators refused: " ONECCL_REFUSAL,
             accel_comm_vendor_file(*(void **)&oneccl.onecclGetVersion, "libccl.so.2"));
    return true;
}

static const char *const oneccl_homes[] = {"CCL_ROOT", NULL};
static const char *const oneccl_names[] = {"libccl.so.2", NULL};

static accel_vendor_library_t oneccl_lib = {
    .name = "oneccl",
    .home_vars = oneccl_homes,
    .home_file = "lib/libccl.so.2",
    .candidates = oneccl_names,
    .symbols = oneccl_symbols,
    .symbol_count = sizeof oneccl_symbols / sizeof oneccl_symbols[0],
    .not_found = "oneCCL C API library (libccl.so.2) could not be loaded",
    .not_found_hint = "set ACCEL_ONECCL_LIBRARY to its path",
    .symbols_in = "the oneCCL C API library (libccl.so.2) that loaded",
    .too_old = "a oneCCL older than its C API?",
    .on_load = oneccl_loaded,
};

/* OK when the library is there (the report says so, and why it is not used). */
static accel_status_t oneccl_load(char *detail, size_t detail_cap)
{
    return accel_comm_vendor_loaded(&oneccl_lib, "oneccl", detail, detail_cap);
}

static accel_status_t oneccl_refuse(void)
{
    return accel_backend_error(ACCEL_ERROR_UNSUPPORTED,
                               "oneccl: cannot make a communicator: " ONECCL_REFUSAL
                               "; xpu has no collectives engine in accel yet");
}

static accel_status_t oneccl_unique_id(void *out)
{
    (void)out;
    return oneccl_refuse();
}

static accel_status_t oneccl_init(const accel_comm_engine_ctx_t *ctx, int nranks, int rank,
                                  const void *unique_id, void **out_comm)
{
    (void)ctx, (void)nranks, (void)rank, (void)unique_id;
    *out_comm = NULL;
    return oneccl_refuse();
}

/* No communicator is ever made, so the slots below are never reached with
 * one; they refuse the same way should the layer call them anyway. */
static accel_status_t oneccl_destroy(void *comm)
{
    return comm == NULL ? ACCEL_OK : oneccl_refuse();
}

static accel_status_t oneccl_all_reduce(void *comm, const void *send, void *recv, size_t count,
                                        int dtype, int op, void *stream)
{
    return oneccl_refuse();
}

static accel_status_t oneccl_all_gather(void *comm, const void *send, void *recv, size_t send_count,
                                        int dtype, void *stream)
{
    return oneccl_refuse();
}

static accel_status_t oneccl_reduce_scatter(void *comm, const void *send, void *recv,
                                            size_t recv_count, int dtype, int op, void *stream)
{
    return oneccl_refuse();
}

static accel_status_t oneccl_broadcast(void *comm, const void *send, void *recv, size_t count,
                                       int dtype, int root, void *stream)
{
    return oneccl_refuse();
}

static accel_status_t oneccl_send(void *comm, const void *buf, size_t count, int dtype, int peer,
                                  void *stream)
{
    return oneccl_refuse();
}

static accel_status_t oneccl_recv(void *comm, void *buf, size_t count, int dtype, int peer,
                                  void *stream)
{
    return oneccl_refuse();
}

static const char *const oneccl_backends[] = {"xpu", NULL};

/* The codes are oneCCL's (types.h, checked against its header), kept so
 * that the tables are right the day the stream question is solved. */
const accel_comm_engine_t accel_comm_engine_oneccl = {
    .name = "oneccl",
    .kind = ACCEL_COMM_ENGINE_DEVICE,
    .backends = oneccl_backends,
    .load = oneccl_load,
    .dtype_codes =
        {
            [ACCEL_DTYPE_F32] = ACCEL_ONECCL_FLOAT32,
            [ACCEL_DTYPE_F16] = ACCEL_ONECCL_FLOAT16,
            [ACCEL_DTYPE_BF16] = ACCEL_ONECCL_BFLOAT16,
            [ACCEL_DTYPE_F64] = ACCEL_ONECCL_FLOAT64,
            [ACCEL_DTYPE_U8] = ACCEL_ONECCL_UINT8,
            [ACCEL_DTYPE_I32] = ACCEL_ONECCL_INT32,
            [ACCEL_DTYPE_I64] = ACCEL_ONECCL_INT64,
        },
    .op_codes =
        {
            [ACCEL_REDUCE_SUM] = ACCEL_ONECCL_SUM,
            [ACCEL_REDUCE_PROD] = ACCEL_ONECCL_PROD,
            [ACCEL_REDUCE_MIN] = ACCEL_ONECCL_MIN,
            [ACCEL_REDUCE_MAX] = ACCEL_ONECCL_MAX,
            [ACCEL_REDUCE_AVG] = ACCEL_ONECCL_AVG,
        },
    /* onecclUniqueId (4096 bytes, by value): the layer takes the unique-id
     * path and meets the refusal in unique_id / init. */
    .unique_id_size = ACCEL_ONECCL_UNIQUE_ID_BYTES,
    .rendezvous_env = NULL,
    .unique_id = oneccl_unique_id,
    .init = oneccl_init,
    .destroy = oneccl_destroy,
    .all_reduce = oneccl_all_reduce,
    .all_gather = oneccl_all_gather,
    .reduce_scatter = oneccl_reduce_scatter,
    .broadcast = oneccl_broadcast,
    .broadcast_in_place_only = false,
    .reduce = NULL,
    .send = oneccl_send,
    .recv = oneccl_recv,
    .barrier = NULL,
    .group_start = NULL,
    .group_end = NULL,
};
