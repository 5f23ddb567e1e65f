/* engine.c: the oneccl collectives engine (src/comm/engine.h) for the xpu
 * backend: it finds and identifies oneCCL's NCCL-like C API (libccl.so.1),
 * and refuses to make communicators, saying why.
 *
 * Why it refuses: every oneCCL collective takes its stream as a
 * sycl::queue*, a C++ SYCL object that accel (C over Level Zero) cannot
 * make or wrap from the xpu backend's command lists; passing NULL instead
 * (oneCCL's own queue) would leave the collective unordered with accel's
 * streams and with no way to wait for it. The unique id's size also
 * differs between releases (1032 or 4096 bytes), so it cannot be passed
 * by value safely. README.md says what would make it usable.
 *
 * Library: ACCEL_ONECCL_LIBRARY, then $CCL_ROOT/lib/libccl.so.1, then
 * libccl.so.1 and libccl.so on the loader's path; loaded once per process
 * (pthread_once) and never unloaded. Threads: the table is written once
 * under pthread_once and read-only afterwards. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "accel/accel_backend_utils.h"
#include "comm/engine.h"
#include "comm/vendor_engines.h"

typedef int accel_oneccl_result_t; /* onecclResult_t: Success 0 (unconfirmed: [I] in the spec) */

/* What identifies the NCCL-like C API; the entries the engine would call
 * are resolved only to say whether they are there. Prototypes as oneCCL's
 * implementation and its Python wrappers use them (no header read). */
typedef struct oneccl_api {
    accel_oneccl_result_t (*onecclGetVersion)(int *version);
    void (*onecclGetUniqueId)(void);
    void (*onecclCommInitRank)(void);
    void (*onecclAllReduce)(void);
    void (*onecclAllGather)(void);
} oneccl_api_t;

static pthread_once_t oneccl_once = PTHREAD_ONCE_INIT;
static oneccl_api_t oneccl;
static accel_comm_vendor_lib_t oneccl_lib;

#define ONECCL_REFUSAL                                                                             \
    "oneCCL's C API takes its stream as a sycl::queue*, which accel (C over Level Zero) cannot "   \
    "make, so its collectives could not be ordered on accel streams"

static void oneccl_load_once(void)
{
    static char home[200];
    const char *root = getenv("CCL_ROOT");
    const char *candidates[4];
    int version = 0;
    size_t n = 0;
    const accel_symbol_t symbols[] = {
        ACCEL_SYMBOL_ENTRY(oneccl, true, onecclGetVersion, NULL),
        ACCEL_SYMBOL_ENTRY(oneccl, true, onecclGetUniqueId, NULL),
        ACCEL_SYMBOL_ENTRY(oneccl, true, onecclCommInitRank, NULL),
        ACCEL_SYMBOL_ENTRY(oneccl, true, onecclAllReduce, NULL),
        ACCEL_SYMBOL_ENTRY(oneccl, true, onecclAllGather, NULL),
    };
    if (root != NULL && root[0] != '\0' &&
        snprintf(home, sizeof home, "%s/lib/libccl.so.1", root) < (int)sizeof home)
        candidates[n++] = home;
    candidates[n++] = "libccl.so.1";
    candidates[n++] = "libccl.so";
    candidates[n] = NULL;
    if (accel_comm_vendor_open(&oneccl_lib, "oneccl", "Intel oneCCL (libccl.so.1)",
                               "ACCEL_ONECCL_LIBRARY", candidates, symbols,
                               sizeof symbols / sizeof symbols[0],
                               "a oneCCL without the NCCL-like C API?") == NULL)
        return;
    if (oneccl.onecclGetVersion(&version) != 0)
        version = 0;
    snprintf(oneccl_lib.detail, sizeof oneccl_lib.detail,
             "%s (oneCCL version code %d); communicators refused: " ONECCL_REFUSAL,
             accel_comm_vendor_file(*(void **)&oneccl.onecclGetVersion, "libccl.so.1"), version);
    oneccl_lib.ok = true;
}

/* OK when the library is there (the report says so, and why it is not used). */
static accel_status_t oneccl_load(char *detail, size_t detail_cap)
{
    pthread_once(&oneccl_once, oneccl_load_once);
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

/* The codes are oneCCL's (NCCL's numbering, [I] in the spec), kept so that
 * the tables are right the day the stream question is solved. */
const accel_comm_engine_t accel_comm_engine_oneccl = {
    .name = "oneccl",
    .kind = ACCEL_COMM_ENGINE_DEVICE,
    .backends = oneccl_backends,
    .load = oneccl_load,
    .dtype_codes =
        {
            [ACCEL_DTYPE_F32] = 7,
            [ACCEL_DTYPE_F16] = 6,
            [ACCEL_DTYPE_BF16] = 9,
            [ACCEL_DTYPE_F64] = 8,
            [ACCEL_DTYPE_U8] = 1,
            [ACCEL_DTYPE_I32] = 2,
            [ACCEL_DTYPE_I64] = 4,
        },
    .op_codes =
        {
            [ACCEL_REDUCE_SUM] = 0,
            [ACCEL_REDUCE_PROD] = 1,
            [ACCEL_REDUCE_MIN] = 3,
            [ACCEL_REDUCE_MAX] = 2,
            [ACCEL_REDUCE_AVG] = 4,
        },
    /* 1032 or 4096 bytes by release; the larger, so that the layer takes
     * the unique-id path (and meets the refusal) rather than init_world. */
    .unique_id_size = 4096,
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
