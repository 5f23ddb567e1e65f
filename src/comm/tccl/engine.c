/* engine.c: the tccl collectives engine (src/comm/engine.h) for the sdaa
 * backend: Tecorigin TCCL's C API (libtccl.so) opened with dlopen, never
 * linked. NCCL's function set under "tccl" names, with its own dtype
 * numbering and no average. Bound from an early public tccl.h copy and
 * never run on Teco hardware: what is unconfirmed is listed in README.md.
 *
 * Library: ACCEL_TCCL_LIBRARY, then the Teco SDK's
 * /opt/tecoai/lib64/libtccl.so, then libtccl.so on the loader's path (the
 * sdaa backend's order for libsdaart.so: "TCCL" is also another vendor's
 * name, so the SDK's own file goes first); loaded once per process
 * (accel_vendor_library_open) and never unloaded. A library that lacks a
 * required tccl* symbol (tcclGetUniqueId, tcclCommInitRank, tcclReduce...)
 * is refused, naming it.
 * Objects: the engine communicator is TCCL's tcclComm_t itself, owned by the
 * layer from init until destroy. Threads: the function table is written once
 * by the vendor-library loader and read-only afterwards; the layer serialises the calls
 * on one communicator (engine.h). init first makes the communicator's device
 * current (native_stream: sdaaSetDevice); every collective gets the
 * sdaaStream_t it gave. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "comm/engine.h"
#include "comm/tccl/types.h"
#include "comm/vendor_engines.h"

typedef struct tccl_api {
#define ACCEL_TCCL_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "comm/tccl/symbols.h"
#undef ACCEL_TCCL_SYMBOL
} tccl_api_t;

static tccl_api_t tccl;

static const accel_symbol_t tccl_symbols[] = {
#define ACCEL_TCCL_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(tccl, required, name, export),
#include "comm/tccl/symbols.h"
#undef ACCEL_TCCL_SYMBOL
};

/* After the symbols resolved: the detail line for the report. */
static bool tccl_loaded(accel_vendor_library_t *lib, void *library)
{
    int version = 0;
    (void)library;
    /* Both group calls or neither: a half pair would open groups it cannot close. */
    if ((tccl.tcclGroupStart == NULL) != (tccl.tcclGroupEnd == NULL))
        tccl.tcclGroupStart = tccl.tcclGroupEnd = NULL;
    if (tccl.tcclGetVersion(&version) != ACCEL_TCCL_SUCCESS)
        version = 0;
    /* The code's encoding is unconfirmed (tccl.h's own is 1200): printed as is. */
    snprintf(lib->text, sizeof lib->text, "%s (TCCL version code %d%s)",
             accel_comm_vendor_file(*(void **)&tccl.tcclGetVersion, "libtccl.so"), version,
             tccl.tcclGroupStart != NULL ? ", with group calls" : ", without group calls");
    return true;
}

static const char *const tccl_names[] = {"/opt/tecoai/lib64/libtccl.so", "libtccl.so", NULL};

static accel_vendor_library_t tccl_lib = {
    .name = "tccl",
    .candidates = tccl_names,
    .symbols = tccl_symbols,
    .symbol_count = sizeof tccl_symbols / sizeof tccl_symbols[0],
    .not_found = "Tecorigin TCCL (libtccl.so) could not be loaded",
    .not_found_hint = "set ACCEL_TCCL_LIBRARY to its path",
    .symbols_in = "the Tecorigin TCCL (libtccl.so) that loaded",
    .too_old = "Teco SDK too old?",
    .on_load = tccl_loaded,
};

static accel_status_t tccl_load(char *detail, size_t detail_cap)
{
    return accel_comm_vendor_loaded(&tccl_lib, "tccl", detail, detail_cap);
}

/* "tccl: <what> failed with tcclResult_t <code> (<TCCL's name>): <last
 * error>" as the thread's error, the code kept. */
static accel_status_t tccl_fail(accel_tccl_result_t code, const char *what, accel_tccl_comm_t comm)
{
    const char *text = tccl.tcclGetErrorString(code);
    const char *last =
        comm != NULL && tccl.tcclGetLastError != NULL ? tccl.tcclGetLastError(comm) : NULL;
    return accel_backend_vendor_error(
        (int64_t)code, "tccl: %s failed with tcclResult_t %u (%s)%s%s", what, code,
        text != NULL ? text : "no text", last != NULL && last[0] != '\0' ? ": " : "",
        last != NULL ? last : "");
}

#define TCCL_CHECK(call, what, comm)                                                               \
    do {                                                                                           \
        accel_tccl_result_t tccl_code_ = (call);                                                   \
        if (tccl_code_ != ACCEL_TCCL_SUCCESS)                                                      \
            return tccl_fail(tccl_code_, what, comm);                                              \
    } while (0)

static accel_status_t tccl_unique_id(void *out)
{
    TCCL_CHECK(tccl.tcclGetUniqueId((accel_tccl_unique_id_t *)out), "tcclGetUniqueId", NULL);
    return ACCEL_OK;
}

static accel_status_t tccl_init(const accel_comm_engine_ctx_t *ctx, int nranks, int rank,
                                const void *unique_id, void **out_comm)
{
    accel_tccl_unique_id_t id;
    accel_tccl_comm_t comm = NULL;
    accel_status_t status = accel_comm_vendor_activate(ctx, "tccl");
    if (status != ACCEL_OK)
        return status;
    memcpy(&id, unique_id, sizeof id);
    TCCL_CHECK(tccl.tcclCommInitRank(&comm, nranks, id, rank), "tcclCommInitRank", NULL);
    *out_comm = comm;
    return ACCEL_OK;
}

static accel_status_t tccl_destroy(void *comm)
{
    TCCL_CHECK(tccl.tcclCommDestroy(comm), "tcclCommDestroy", NULL);
    return ACCEL_OK;
}

static accel_status_t tccl_all_reduce(void *comm, const void *send, void *recv, size_t count,
                                      int dtype, int op, void *stream)
{
    TCCL_CHECK(tccl.tcclAllReduce(send, recv, count, (accel_tccl_dtype_t)dtype, (accel_tccl_op_t)op,
                                  comm, stream),
               "tcclAllReduce", comm);
    return ACCEL_OK;
}

static accel_status_t tccl_all_gather(void *comm, const void *send, void *recv, size_t send_count,
                                      int dtype, void *stream)
{
    TCCL_CHECK(tccl.tcclAllGather(send, recv, send_count, (accel_tccl_dtype_t)dtype, comm, stream),
               "tcclAllGather", comm);
    return ACCEL_OK;
}

static accel_status_t tccl_reduce_scatter(void *comm, const void *send, void *recv,
                                          size_t recv_count, int dtype, int op, void *stream)
{
    TCCL_CHECK(tccl.tcclReduceScatter(send, recv, recv_count, (accel_tccl_dtype_t)dtype,
                                      (accel_tccl_op_t)op, comm, stream),
               "tcclReduceScatter", comm);
    return ACCEL_OK;
}

static accel_status_t tccl_broadcast(void *comm, const void *send, void *recv, size_t count,
                                     int dtype, int root, void *stream)
{
    TCCL_CHECK(tccl.tcclBroadcast(send, recv, count, (accel_tccl_dtype_t)dtype, root, comm, stream),
               "tcclBroadcast", comm);
    return ACCEL_OK;
}

static accel_status_t tccl_reduce(void *comm, const void *send, void *recv, size_t count, int dtype,
                                  int op, int root, void *stream)
{
    TCCL_CHECK(tccl.tcclReduce(send, recv, count, (accel_tccl_dtype_t)dtype, (accel_tccl_op_t)op,
                               root, comm, stream),
               "tcclReduce", comm);
    return ACCEL_OK;
}

/* This thread is inside a group (group_start ran, group_end not yet). */
static _Thread_local bool tccl_grouped;

static accel_status_t tccl_send(void *comm, const void *buf, size_t count, int dtype, int peer,
                                void *stream)
{
    accel_status_t allowed = accel_comm_vendor_p2p_check(tccl_grouped, tccl.tcclGroupStart != NULL,
                                                         "tccl", "tcclSend", "tcclGroupStart/End");
    if (allowed != ACCEL_OK)
        return allowed;
    TCCL_CHECK(tccl.tcclSend(buf, count, (accel_tccl_dtype_t)dtype, peer, comm, stream), "tcclSend",
               comm);
    return ACCEL_OK;
}

static accel_status_t tccl_recv(void *comm, void *buf, size_t count, int dtype, int peer,
                                void *stream)
{
    accel_status_t allowed = accel_comm_vendor_p2p_check(tccl_grouped, tccl.tcclGroupStart != NULL,
                                                         "tccl", "tcclRecv", "tcclGroupStart/End");
    if (allowed != ACCEL_OK)
        return allowed;
    TCCL_CHECK(tccl.tcclRecv(buf, count, (accel_tccl_dtype_t)dtype, peer, comm, stream), "tcclRecv",
               comm);
    return ACCEL_OK;
}

/* Without the (unconfirmed) group calls a group's collectives run as they
 * come, and its sends and receives are refused (accel_comm_vendor_p2p_check). */
static accel_status_t tccl_group_start(void)
{
    tccl_grouped = true;
    if (tccl.tcclGroupStart != NULL)
        TCCL_CHECK(tccl.tcclGroupStart(), "tcclGroupStart", NULL);
    return ACCEL_OK;
}

static accel_status_t tccl_group_end(void)
{
    tccl_grouped = false;
    if (tccl.tcclGroupEnd != NULL)
        TCCL_CHECK(tccl.tcclGroupEnd(), "tcclGroupEnd", NULL);
    return ACCEL_OK;
}

static const char *const tccl_backends[] = {"sdaa", NULL};

const accel_comm_engine_t accel_comm_engine_tccl = {
    .name = "tccl",
    .kind = ACCEL_COMM_ENGINE_DEVICE,
    .backends = tccl_backends,
    .load = tccl_load,
    .dtype_codes =
        {
            [ACCEL_DTYPE_F32] = ACCEL_TCCL_FLOAT32,
            [ACCEL_DTYPE_F16] = ACCEL_TCCL_FLOAT16,
            [ACCEL_DTYPE_BF16] = ACCEL_TCCL_BF16,
            [ACCEL_DTYPE_F64] = ACCEL_TCCL_FLOAT64,
            [ACCEL_DTYPE_U8] = ACCEL_TCCL_UINT8,
            [ACCEL_DTYPE_I32] = ACCEL_TCCL_INT32,
            [ACCEL_DTYPE_I64] = ACCEL_TCCL_INT64,
        },
    .op_codes =
        {
            [ACCEL_REDUCE_SUM] = ACCEL_TCCL_SUM,
            [ACCEL_REDUCE_PROD] = ACCEL_TCCL_PROD,
            [ACCEL_REDUCE_MIN] = ACCEL_TCCL_MIN,
            [ACCEL_REDUCE_MAX] = ACCEL_TCCL_MAX,
            [ACCEL_REDUCE_AVG] = ACCEL_COMM_NO_CODE, /* TCCL has no average */
        },
    .unique_id_size = ACCEL_TCCL_UNIQUE_ID_BYTES,
    .rendezvous_env = NULL, /* no documented variable: the layer exchanges the id */
    .unique_id = tccl_unique_id,
    .init = tccl_init,
    .destroy = tccl_destroy,
    .all_reduce = tccl_all_reduce,
    .all_gather = tccl_all_gather,
    .reduce_scatter = tccl_reduce_scatter,
    .broadcast = tccl_broadcast,
    .broadcast_in_place_only = false,
    .reduce = tccl_reduce,
    .send = tccl_send,
    .recv = tccl_recv,
    .barrier = NULL, /* TCCL has none: the layer all-reduces one element */
    .group_start = tccl_group_start,
    .group_end = tccl_group_end,
};
