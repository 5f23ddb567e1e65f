/* engine.c: the cncl collectives engine (src/comm/engine.h) for the mlu
 * backend: Cambricon CNCL's C API (libcncl.so) opened with dlopen, never
 * linked.
 *
 * Library: ACCEL_CNCL_LIBRARY, then $NEUWARE_HOME/lib64/libcncl.so,
 * /usr/local/neuware/lib64/libcncl.so, then libcncl.so on the loader's path;
 * loaded once per process (accel_vendor_library_open) and never unloaded.
 * Objects: the engine communicator is CNCL's cnclComm_t itself (made one at
 * a time with cnclInitComms, num_comm 1), owned by the layer from init until
 * destroy. Threads: the function table is written once by the vendor-library loader and read-only
 * afterwards; the layer serialises the calls on one communicator (engine.h). init first makes the
 * communicator's device current (native_stream: cnrtSetDevice); every collective gets the
 * cnrtQueue_t it gave. What CNCL lacks: float64 (dtype_codes[F64] is
 * ACCEL_COMM_NO_CODE: refused) and average (emulated by the layer).
 * Unconfirmed: the group calls (README.md). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "comm/cncl/types.h"
#include "comm/engine.h"
#include "comm/vendor_engines.h"

typedef struct cncl_api {
#define ACCEL_CNCL_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "comm/cncl/symbols.h"
#undef ACCEL_CNCL_SYMBOL
} cncl_api_t;

static cncl_api_t cncl;

static const accel_symbol_t cncl_symbols[] = {
#define ACCEL_CNCL_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(cncl, required, name, export),
#include "comm/cncl/symbols.h"
#undef ACCEL_CNCL_SYMBOL
};

/* After the symbols resolved: the detail line for the report. */
static bool cncl_loaded(accel_vendor_library_t *lib, void *library)
{
    int major = 0, minor = 0, patch = 0;
    (void)library;
    /* Both group calls or neither: a half pair would open groups it cannot close. */
    if ((cncl.cnclGroupStart == NULL) != (cncl.cnclGroupEnd == NULL))
        cncl.cnclGroupStart = cncl.cnclGroupEnd = NULL;
    if (cncl.cnclGetLibVersion(&major, &minor, &patch) != ACCEL_CNCL_SUCCESS)
        major = minor = patch = 0;
    snprintf(lib->text, sizeof lib->text, "%s (CNCL %d.%d.%d%s)",
             accel_comm_vendor_file(*(void **)&cncl.cnclGetLibVersion, "libcncl.so"), major, minor,
             patch, cncl.cnclGroupStart != NULL ? ", with group calls" : ", without group calls");
    return true;
}

static const char *const cncl_homes[] = {"NEUWARE_HOME", NULL};
static const char *const cncl_names[] = {"/usr/local/neuware/lib64/libcncl.so", "libcncl.so", NULL};

static accel_vendor_library_t cncl_lib = {
    .name = "cncl",
    .home_vars = cncl_homes,
    .home_file = "lib64/libcncl.so",
    .candidates = cncl_names,
    .symbols = cncl_symbols,
    .symbol_count = sizeof cncl_symbols / sizeof cncl_symbols[0],
    .not_found = "Cambricon CNCL (libcncl.so) could not be loaded",
    .not_found_hint = "set ACCEL_CNCL_LIBRARY to its path",
    .symbols_in = "the Cambricon CNCL (libcncl.so) that loaded",
    .too_old = "Neuware too old?",
    .on_load = cncl_loaded,
};

static accel_status_t cncl_load(char *detail, size_t detail_cap)
{
    return accel_comm_vendor_loaded(&cncl_lib, "cncl", detail, detail_cap);
}

/* "cncl: <what> failed with cnclResult_t <code> (<CNCL's text>)". */
static accel_status_t cncl_fail(accel_cncl_result_t code, const char *what)
{
    const char *text = cncl.cnclGetErrorStr(code);
    return accel_backend_vendor_error((int64_t)code, "cncl: %s failed with cnclResult_t %u (%s)",
                                      what, code, text != NULL ? text : "no text");
}

#define CNCL_CHECK(call, what)                                                                     \
    do {                                                                                           \
        accel_cncl_result_t cncl_code_ = (call);                                                   \
        if (cncl_code_ != ACCEL_CNCL_SUCCESS)                                                      \
            return cncl_fail(cncl_code_, what);                                                    \
    } while (0)

static accel_status_t cncl_unique_id(void *out)
{
    accel_cncl_clique_id_t id;
    memset(&id, 0, sizeof id);
    CNCL_CHECK(cncl.cnclGetCliqueId(&id), "cnclGetCliqueId");
    memcpy(out, &id, sizeof id); /* `out` may be unaligned */
    return ACCEL_OK;
}

static accel_status_t cncl_init(const accel_comm_engine_ctx_t *ctx, int nranks, int rank,
                                const void *unique_id, void **out_comm)
{
    accel_cncl_clique_id_t id;
    accel_cncl_comm_t comm = NULL;
    int device = ctx != NULL ? ctx->device : 0;
    accel_status_t status = accel_comm_vendor_activate(ctx, "cncl");
    if (status != ACCEL_OK)
        return status;
    memcpy(&id, unique_id, sizeof id);
    /* One communicator for this process: its device and its rank. */
    CNCL_CHECK(cncl.cnclInitComms(&comm, 1, &device, &rank, nranks, &id), "cnclInitComms");
    *out_comm = comm;
    return ACCEL_OK;
}

static accel_status_t cncl_destroy(void *comm)
{
    accel_cncl_comm_t comms[1] = {comm};
    CNCL_CHECK(cncl.cnclDestroyComms(comms, 1), "cnclDestroyComms");
    return ACCEL_OK;
}

static accel_status_t cncl_all_reduce(void *comm, const void *send, void *recv, size_t count,
                                      int dtype, int op, void *stream)
{
    CNCL_CHECK(cncl.cnclAllReduce(send, recv, count, (accel_cncl_dtype_t)dtype, (accel_cncl_op_t)op,
                                  comm, stream),
               "cnclAllReduce");
    return ACCEL_OK;
}

static accel_status_t cncl_all_gather(void *comm, const void *send, void *recv, size_t send_count,
                                      int dtype, void *stream)
{
    CNCL_CHECK(cncl.cnclAllGather(send, recv, send_count, (accel_cncl_dtype_t)dtype, comm, stream),
               "cnclAllGather");
    return ACCEL_OK;
}

static accel_status_t cncl_reduce_scatter(void *comm, const void *send, void *recv,
                                          size_t recv_count, int dtype, int op, void *stream)
{
    CNCL_CHECK(cncl.cnclReduceScatter(send, recv, recv_count, (accel_cncl_dtype_t)dtype,
                                      (accel_cncl_op_t)op, comm, stream),
               "cnclReduceScatter");
    return ACCEL_OK;
}

static accel_status_t cncl_broadcast(void *comm, const void *send, void *recv, size_t count,
                                     int dtype, int root, void *stream)
{
    CNCL_CHECK(cncl.cnclBroadcast(send, recv, count, (accel_cncl_dtype_t)dtype, root, comm, stream),
               "cnclBroadcast");
    return ACCEL_OK;
}

static accel_status_t cncl_reduce(void *comm, const void *send, void *recv, size_t count, int dtype,
                                  int op, int root, void *stream)
{
    CNCL_CHECK(cncl.cnclReduce(send, recv, count, (accel_cncl_dtype_t)dtype, (accel_cncl_op_t)op,
                               root, comm, stream),
               "cnclReduce");
    return ACCEL_OK;
}

/* This thread is inside a group (group_start ran, group_end not yet). */
static _Thread_local bool cncl_grouped;

/* cnclSend's buffer is not const in its prototype; it only reads it. */
static accel_status_t cncl_send(void *comm, const void *buf, size_t count, int dtype, int peer,
                                void *stream)
{
    accel_status_t allowed = accel_comm_vendor_p2p_check(cncl_grouped, cncl.cnclGroupStart != NULL,
                                                         "cncl", "cnclSend", "cnclGroupStart/End");
    if (allowed != ACCEL_OK)
        return allowed;
    CNCL_CHECK(cncl.cnclSend((void *)buf, count, (accel_cncl_dtype_t)dtype, peer, comm, stream),
               "cnclSend");
    return ACCEL_OK;
}

static accel_status_t cncl_recv(void *comm, void *buf, size_t count, int dtype, int peer,
                                void *stream)
{
    accel_status_t allowed = accel_comm_vendor_p2p_check(cncl_grouped, cncl.cnclGroupStart != NULL,
                                                         "cncl", "cnclRecv", "cnclGroupStart/End");
    if (allowed != ACCEL_OK)
        return allowed;
    CNCL_CHECK(cncl.cnclRecv(buf, count, (accel_cncl_dtype_t)dtype, peer, comm, stream),
               "cnclRecv");
    return ACCEL_OK;
}

/* Without the (unconfirmed) group calls a group's collectives run as they
 * come, and its sends and receives are refused (accel_comm_vendor_p2p_check). */
static accel_status_t cncl_group_start(void)
{
    cncl_grouped = true;
    if (cncl.cnclGroupStart != NULL)
        CNCL_CHECK(cncl.cnclGroupStart(), "cnclGroupStart");
    return ACCEL_OK;
}

static accel_status_t cncl_group_end(void)
{
    cncl_grouped = false;
    if (cncl.cnclGroupEnd != NULL)
        CNCL_CHECK(cncl.cnclGroupEnd(), "cnclGroupEnd");
    return ACCEL_OK;
}

static const char *const cncl_backends[] = {"mlu", NULL};

const accel_comm_engine_t accel_comm_engine_cncl = {
    .name = "cncl",
    .kind = ACCEL_COMM_ENGINE_DEVICE,
    .backends = cncl_backends,
    .load = cncl_load,
    .dtype_codes =
        {
            [ACCEL_DTYPE_F32] = ACCEL_CNCL_FLOAT32,
            [ACCEL_DTYPE_F16] = ACCEL_CNCL_FLOAT16,
            [ACCEL_DTYPE_BF16] = ACCEL_CNCL_BFLOAT16,
            [ACCEL_DTYPE_F64] = ACCEL_COMM_NO_CODE, /* CNCL has no float64 */
            [ACCEL_DTYPE_U8] = ACCEL_CNCL_UINT8,
            [ACCEL_DTYPE_I32] = ACCEL_CNCL_INT32,
            [ACCEL_DTYPE_I64] = ACCEL_CNCL_INT64,
        },
    .op_codes =
        {
            [ACCEL_REDUCE_SUM] = ACCEL_CNCL_SUM,
            [ACCEL_REDUCE_PROD] = ACCEL_CNCL_PROD,
            [ACCEL_REDUCE_MIN] = ACCEL_CNCL_MIN,
            [ACCEL_REDUCE_MAX] = ACCEL_CNCL_MAX,
            [ACCEL_REDUCE_AVG] = ACCEL_COMM_NO_CODE, /* CNCL has no average */
        },
    .unique_id_size = sizeof(accel_cncl_clique_id_t),
    .rendezvous_env = NULL, /* the clique id is exchanged by the layer (MPI) */
    .unique_id = cncl_unique_id,
    .init = cncl_init,
    .destroy = cncl_destroy,
    .all_reduce = cncl_all_reduce,
    .all_gather = cncl_all_gather,
    .reduce_scatter = cncl_reduce_scatter,
    .broadcast = cncl_broadcast,
    .broadcast_in_place_only = false,
    .reduce = cncl_reduce,
    .send = cncl_send,
    .recv = cncl_recv,
    .barrier = NULL, /* CNCL has none: the layer all-reduces one element */
    .group_start = cncl_group_start,
    .group_end = cncl_group_end,
};
