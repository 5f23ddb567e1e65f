/* engine.c: the nccl collectives engine (src/comm/engine.h) for the cuda
 * backend: NCCL's C API (libnccl.so.2) opened with dlopen, never linked.
 *
 * Library: ACCEL_NCCL_LIBRARY, then libnccl.so.2 and libnccl.so on the
 * loader's path; loaded once per process (accel_vendor_library_open) and never unloaded.
 * Objects: the engine communicator is NCCL's ncclComm_t itself, owned by the
 * layer from init until destroy. Threads: the function table is written once
 * by the vendor-library loader and read-only afterwards; the layer serialises the calls
 * on one communicator (engine.h). NCCL works on the CUDA current context, so
 * init first makes the communicator's device current (native_stream), and
 * every collective gets the CUstream native_stream gave the layer.
 * Split: ncclCommSplit (NCCL 2.18+) where the library exports it, else the
 * layer's split by a new unique id per color. That fallback cannot work
 * while NCCL_COMM_ID is set (the env rendezvous): NCCL's
 * bootstrapGetUniqueId (src/bootstrap.cc) then hands every color's leader
 * the same id, that address, and each color's rank 0 starts a bootstrap
 * root on it in ncclCommInitRank (src/init.cc, ncclCommInitRankDev), which
 * collides; the layer refuses it (comm_split.c, unique_id_every_rank). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "comm/engine.h"
#include "comm/nccl/types.h"
#include "comm/vendor_engines.h"

typedef struct nccl_api {
#define ACCEL_NCCL_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "comm/nccl/symbols.h"
#undef ACCEL_NCCL_SYMBOL
} nccl_api_t;

static nccl_api_t nccl;

static const accel_symbol_t nccl_symbols[] = {
#define ACCEL_NCCL_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(nccl, required, name, export),
#include "comm/nccl/symbols.h"
#undef ACCEL_NCCL_SYMBOL
};

/* After the symbols resolved: the detail line for the report. */
static bool nccl_loaded(accel_vendor_library_t *lib, void *library)
{
    int version = 0;
    const char *file;
    (void)library;
    /* Before 2.18 the layer splits by unique id: the slot must read NULL. */
    if (nccl.ncclCommSplit == NULL)
        accel_comm_engine_nccl.split = NULL;
    if (nccl.ncclGetVersion(&version) != ACCEL_NCCL_SUCCESS)
        version = 0;
    file = accel_comm_vendor_file(*(void **)&nccl.ncclGetVersion, "libnccl.so.2");
    /* NCCL's code: X*10000 + Y*100 + Z since 2.9, X*1000 + Y*100 + Z before. */
    if (version >= 10000)
        snprintf(lib->text, sizeof lib->text, "%s (NCCL %d.%d.%d)", file, version / 10000,
                 version / 100 % 100, version % 100);
    else
        snprintf(lib->text, sizeof lib->text, "%s (NCCL %d.%d.%d)", file, version / 1000,
                 version / 100 % 10, version % 100);
    return true;
}

static const char *const nccl_names[] = {"libnccl.so.2", "libnccl.so", NULL};

static accel_vendor_library_t nccl_lib = {
    .name = "nccl",
    .candidates = nccl_names,
    .symbols = nccl_symbols,
    .symbol_count = sizeof nccl_symbols / sizeof nccl_symbols[0],
    .not_found = "NCCL (libnccl.so.2) could not be loaded",
    .not_found_hint = "set ACCEL_NCCL_LIBRARY to its path",
    .symbols_in = "the NCCL (libnccl.so.2) that loaded",
    .too_old = "NCCL too old?",
    .on_load = nccl_loaded,
};

static accel_status_t nccl_load(char *detail, size_t detail_cap)
{
    return accel_comm_vendor_loaded(&nccl_lib, "nccl", detail, detail_cap);
}

/* "nccl: <what> failed with ncclResult_t <code> (<NCCL's name>): <last
 * error>" as the thread's error, the code kept. */
static accel_status_t nccl_fail(accel_nccl_result_t code, const char *what, accel_nccl_comm_t comm)
{
    const char *text = nccl.ncclGetErrorString(code);
    const char *last =
        comm != NULL && nccl.ncclGetLastError != NULL ? nccl.ncclGetLastError(comm) : NULL;
    return accel_backend_vendor_error(
        (int64_t)code, "nccl: %s failed with ncclResult_t %u (%s)%s%s", what, code,
        text != NULL ? text : "no text", last != NULL && last[0] != '\0' ? ": " : "",
        last != NULL ? last : "");
}

#define NCCL_CHECK(call, what, comm)                                                               \
    do {                                                                                           \
        accel_nccl_result_t nccl_code_ = (call);                                                   \
        if (nccl_code_ != ACCEL_NCCL_SUCCESS)                                                      \
            return nccl_fail(nccl_code_, what, comm);                                              \
    } while (0)

static accel_status_t nccl_unique_id(void *out)
{
    NCCL_CHECK(nccl.ncclGetUniqueId((accel_nccl_unique_id_t *)out), "ncclGetUniqueId", NULL);
    return ACCEL_OK;
}

static accel_status_t nccl_init(const accel_comm_engine_ctx_t *ctx, int nranks, int rank,
                                const void *unique_id, void **out_comm)
{
    accel_nccl_unique_id_t id;
    accel_nccl_comm_t comm = NULL;
    accel_status_t status = accel_comm_vendor_activate(ctx, "nccl");
    if (status != ACCEL_OK)
        return status;
    memcpy(&id, unique_id, sizeof id);
    NCCL_CHECK(nccl.ncclCommInitRank(&comm, nranks, id, rank), "ncclCommInitRank", NULL);
    *out_comm = comm;
    return ACCEL_OK;
}

/* ncclCommSplit is collective over the parent; the new communicator's
 * device is the parent's (the layer calls this on the parent's device). */
static accel_status_t nccl_split(void *comm, int color, int key, void **out_comm)
{
    accel_nccl_comm_t made = NULL;
    NCCL_CHECK(nccl.ncclCommSplit(comm,
                                  color == ACCEL_COMM_SPLIT_NONE ? ACCEL_NCCL_SPLIT_NOCOLOR : color,
                                  key, &made, NULL),
               "ncclCommSplit", comm);
    *out_comm = made;
    return ACCEL_OK;
}

static accel_status_t nccl_destroy(void *comm)
{
    /* ncclCommFinalize (2.14+) flushes what was issued; older releases do it
     * in ncclCommDestroy. */
    if (nccl.ncclCommFinalize != NULL) {
        accel_nccl_result_t code = nccl.ncclCommFinalize(comm);
        if (code != ACCEL_NCCL_SUCCESS) {
            accel_status_t status = nccl_fail(code, "ncclCommFinalize", comm);
            nccl.ncclCommDestroy(comm);
            return status;
        }
    }
    NCCL_CHECK(nccl.ncclCommDestroy(comm), "ncclCommDestroy", NULL);
    return ACCEL_OK;
}

static accel_status_t nccl_all_reduce(void *comm, const void *send, void *recv, size_t count,
                                      int dtype, int op, void *stream)
{
    NCCL_CHECK(nccl.ncclAllReduce(send, recv, count, (accel_nccl_dtype_t)dtype, (accel_nccl_op_t)op,
                                  comm, stream),
               "ncclAllReduce", comm);
    return ACCEL_OK;
}

static accel_status_t nccl_all_gather(void *comm, const void *send, void *recv, size_t send_count,
                                      int dtype, void *stream)
{
    NCCL_CHECK(nccl.ncclAllGather(send, recv, send_count, (accel_nccl_dtype_t)dtype, comm, stream),
               "ncclAllGather", comm);
    return ACCEL_OK;
}

static accel_status_t nccl_reduce_scatter(void *comm, const void *send, void *recv,
                                          size_t recv_count, int dtype, int op, void *stream)
{
    NCCL_CHECK(nccl.ncclReduceScatter(send, recv, recv_count, (accel_nccl_dtype_t)dtype,
                                      (accel_nccl_op_t)op, comm, stream),
               "ncclReduceScatter", comm);
    return ACCEL_OK;
}

static accel_status_t nccl_broadcast(void *comm, const void *send, void *recv, size_t count,
                                     int dtype, int root, void *stream)
{
    NCCL_CHECK(nccl.ncclBroadcast(send, recv, count, (accel_nccl_dtype_t)dtype, root, comm, stream),
               "ncclBroadcast", comm);
    return ACCEL_OK;
}

static accel_status_t nccl_reduce(void *comm, const void *send, void *recv, size_t count, int dtype,
                                  int op, int root, void *stream)
{
    NCCL_CHECK(nccl.ncclReduce(send, recv, count, (accel_nccl_dtype_t)dtype, (accel_nccl_op_t)op,
                               root, comm, stream),
               "ncclReduce", comm);
    return ACCEL_OK;
}

static accel_status_t nccl_send(void *comm, const void *buf, size_t count, int dtype, int peer,
                                void *stream)
{
    NCCL_CHECK(nccl.ncclSend(buf, count, (accel_nccl_dtype_t)dtype, peer, comm, stream), "ncclSend",
               comm);
    return ACCEL_OK;
}

static accel_status_t nccl_recv(void *comm, void *buf, size_t count, int dtype, int peer,
                                void *stream)
{
    NCCL_CHECK(nccl.ncclRecv(buf, count, (accel_nccl_dtype_t)dtype, peer, comm, stream), "ncclRecv",
               comm);
    return ACCEL_OK;
}

static accel_status_t nccl_group_start(void)
{
    NCCL_CHECK(nccl.ncclGroupStart(), "ncclGroupStart", NULL);
    return ACCEL_OK;
}

static accel_status_t nccl_group_end(void)
{
    NCCL_CHECK(nccl.ncclGroupEnd(), "ncclGroupEnd", NULL);
    return ACCEL_OK;
}

static const char *const nccl_backends[] = {"cuda", NULL};

/* Not const: nccl_loaded clears `split` for an NCCL without ncclCommSplit
 * (vendor_engines.h). */
accel_comm_engine_t accel_comm_engine_nccl = {
    .name = "nccl",
    .kind = ACCEL_COMM_ENGINE_DEVICE,
    .backends = nccl_backends,
    .load = nccl_load,
    .dtype_codes =
        {
            [ACCEL_DTYPE_F32] = ACCEL_NCCL_FLOAT32,
            [ACCEL_DTYPE_F16] = ACCEL_NCCL_FLOAT16,
            [ACCEL_DTYPE_BF16] = ACCEL_NCCL_BFLOAT16,
            [ACCEL_DTYPE_F64] = ACCEL_NCCL_FLOAT64,
            [ACCEL_DTYPE_U8] = ACCEL_NCCL_UINT8,
            [ACCEL_DTYPE_I32] = ACCEL_NCCL_INT32,
            [ACCEL_DTYPE_I64] = ACCEL_NCCL_INT64,
        },
    .op_codes =
        {
            [ACCEL_REDUCE_SUM] = ACCEL_NCCL_SUM,
            [ACCEL_REDUCE_PROD] = ACCEL_NCCL_PROD,
            [ACCEL_REDUCE_MIN] = ACCEL_NCCL_MIN,
            [ACCEL_REDUCE_MAX] = ACCEL_NCCL_MAX,
            /* ncclAvg since NCCL 2.10; older releases reject it with
             * ncclInvalidArgument (the call fails, saying so). */
            [ACCEL_REDUCE_AVG] = ACCEL_NCCL_AVG,
        },
    .unique_id_size = ACCEL_NCCL_UNIQUE_ID_BYTES,
    .rendezvous_env = "NCCL_COMM_ID",
    .unique_id_every_rank = true, /* the id is NCCL_COMM_ID's address (engine.h) */
    .unique_id = nccl_unique_id,
    .init = nccl_init,
    .split = nccl_split, /* NULL before NCCL 2.18 (nccl_loaded) */
    .destroy = nccl_destroy,
    .all_reduce = nccl_all_reduce,
    .all_gather = nccl_all_gather,
    .reduce_scatter = nccl_reduce_scatter,
    .broadcast = nccl_broadcast,
    .broadcast_in_place_only = false,
    .reduce = nccl_reduce,
    .send = nccl_send,
    .recv = nccl_recv,
    .barrier = NULL, /* NCCL has none: the layer all-reduces one element */
    .group_start = nccl_group_start,
    .group_end = nccl_group_end,
};
