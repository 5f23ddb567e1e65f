/* engine.c: the habana-hccl collectives engine (src/comm/engine.h) for the
 * hpu backend: Habana (Intel Gaudi) HCCL's C API, libhcl.so, opened with
 * dlopen, never linked. Its names are NCCL's with "hccl" for "nccl" (not
 * to be confused with Huawei Ascend's HCCL, the hccl engine); min and max
 * are swapped relative to NCCL, and hcclResult_t is signed.
 *
 * Library: ACCEL_HABANA_HCCL_LIBRARY, then libhcl.so on the loader's path,
 * then /usr/lib/habanalabs/libhcl.so; loaded once per process
 * (pthread_once) and never unloaded.
 * Objects: the engine communicator is HCCL's hcclComm_t (void*) itself,
 * owned by the layer from init until destroy. Threads: the function table is
 * written once under pthread_once and read-only afterwards; the layer
 * serialises the calls on one communicator (engine.h). The Gaudi must be
 * acquired before hcclCommInitRank, so init first makes the communicator's
 * device current (native_stream); every collective gets the synStreamHandle
 * native_stream gave the layer.
 * Rendezvous without MPI (HCCL_COMM_ID): only rank 0 calls hcclGetUniqueId,
 * the others pass a zeroed id (unique_id_every_rank false), as
 * HabanaAI/hccl_demo's hccl_demo.cpp and the Gaudi PyTorch bridge
 * (ProcessGroupHCCL::initializeCommForDevice) do. In HabanaAI/HCL the
 * process's first hcclGetUniqueId with HCCL_COMM_ID set starts the
 * coordinator server at that address, which must be on this host
 * (hccl_context::get_unique_id, IHcclCoordinator::create): a rank on another
 * node fails, a second one on this node collides on the port. The first
 * hcclCommInitRank of a process with HCCL_COMM_ID set ignores the id given
 * (hcclCommInitRank_Wrapper); later ones need a real id, so a split's
 * leader makes one (its coordinator then takes an ephemeral port) and the
 * layer hands it to the members. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "comm/engine.h"
#include "comm/habana_hccl/types.h"
#include "comm/vendor_engines.h"

typedef struct hcl_api {
#define ACCEL_HCL_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "comm/habana_hccl/symbols.h"
#undef ACCEL_HCL_SYMBOL
} hcl_api_t;

static pthread_once_t hcl_once = PTHREAD_ONCE_INIT;
static hcl_api_t hcl;
static accel_comm_vendor_lib_t hcl_lib;

static void hcl_load_once(void)
{
    static const char *const candidates[] = {"libhcl.so", "/usr/lib/habanalabs/libhcl.so", NULL};
    int version = 0;
#define ACCEL_HCL_SYMBOL(required, ret, name, params, export)                                      \
    ACCEL_SYMBOL_ENTRY(hcl, required, name, export),
    const accel_symbol_t symbols[] = {
#include "comm/habana_hccl/symbols.h"
    };
#undef ACCEL_HCL_SYMBOL
    if (accel_comm_vendor_open(&hcl_lib, "habana-hccl", "Habana HCCL (libhcl.so)",
                               "ACCEL_HABANA_HCCL_LIBRARY", candidates, symbols,
                               sizeof symbols / sizeof symbols[0],
                               "Gaudi software too old?") == NULL)
        return;
    if (hcl.hcclGetVersion(&version) != ACCEL_HCL_SUCCESS)
        version = 0;
    /* HCCL's code: X*1000 + Y*100 + Z (HCCL_VERSION in hccl.h). */
    snprintf(hcl_lib.detail, sizeof hcl_lib.detail, "%s (Habana HCCL %d.%d.%d)",
             accel_comm_vendor_file(*(void **)&hcl.hcclGetVersion, "libhcl.so"), version / 1000,
             version / 100 % 10, version % 100);
    hcl_lib.ok = true;
}

static accel_status_t hcl_load(char *detail, size_t detail_cap)
{
    pthread_once(&hcl_once, hcl_load_once);
    return accel_comm_vendor_loaded(&hcl_lib, "habana-hccl", detail, detail_cap);
}

/* "habana-hccl: <what> failed with hcclResult_t <code> (<HCCL's name>):
 * <last error>" as the thread's error, the code kept. */
static accel_status_t hcl_fail(accel_hcl_result_t code, const char *what, accel_hcl_comm_t comm)
{
    const char *text = hcl.hcclGetErrorString(code);
    const char *last = hcl.hcclGetLastErrorMessage != NULL ? hcl.hcclGetLastErrorMessage() : NULL;
    (void)comm;
    return accel_backend_vendor_error(
        (int64_t)code, "habana-hccl: %s failed with hcclResult_t %d (%s)%s%s", what, code,
        text != NULL ? text : "no text", last != NULL && last[0] != '\0' ? ": " : "",
        last != NULL ? last : "");
}

#define HCL_CHECK(call, what, comm)                                                                \
    do {                                                                                           \
        accel_hcl_result_t hcl_code_ = (call);                                                     \
        if (hcl_code_ != ACCEL_HCL_SUCCESS)                                                        \
            return hcl_fail(hcl_code_, what, comm);                                                \
    } while (0)

static accel_status_t hcl_unique_id(void *out)
{
    HCL_CHECK(hcl.hcclGetUniqueId((accel_hcl_unique_id_t *)out), "hcclGetUniqueId", NULL);
    return ACCEL_OK;
}

static accel_status_t hcl_init(const accel_comm_engine_ctx_t *ctx, int nranks, int rank,
                               const void *unique_id, void **out_comm)
{
    accel_hcl_unique_id_t id;
    accel_hcl_comm_t comm = NULL;
    accel_status_t status = accel_comm_vendor_activate(ctx, "habana-hccl");
    if (status != ACCEL_OK)
        return status;
    memcpy(&id, unique_id, sizeof id);
    HCL_CHECK(hcl.hcclCommInitRank(&comm, nranks, id, rank), "hcclCommInitRank", NULL);
    *out_comm = comm;
    return ACCEL_OK;
}

static accel_status_t hcl_destroy(void *comm)
{
    /* hcclCommFinalize waits for the submitted work; hcclCommDestroy does
     * too, by hccl.h's comment, where Finalize is absent. */
    if (hcl.hcclCommFinalize != NULL) {
        accel_hcl_result_t code = hcl.hcclCommFinalize(comm);
        if (code != ACCEL_HCL_SUCCESS) {
            accel_status_t status = hcl_fail(code, "hcclCommFinalize", comm);
            hcl.hcclCommDestroy(comm);
            return status;
        }
    }
    HCL_CHECK(hcl.hcclCommDestroy(comm), "hcclCommDestroy", NULL);
    return ACCEL_OK;
}

static accel_status_t hcl_all_reduce(void *comm, const void *send, void *recv, size_t count,
                                     int dtype, int op, void *stream)
{
    HCL_CHECK(hcl.hcclAllReduce(send, recv, count, (accel_hcl_dtype_t)dtype, (accel_hcl_op_t)op,
                                comm, stream),
              "hcclAllReduce", comm);
    return ACCEL_OK;
}

static accel_status_t hcl_all_gather(void *comm, const void *send, void *recv, size_t send_count,
                                     int dtype, void *stream)
{
    HCL_CHECK(hcl.hcclAllGather(send, recv, send_count, (accel_hcl_dtype_t)dtype, comm, stream),
              "hcclAllGather", comm);
    return ACCEL_OK;
}

static accel_status_t hcl_reduce_scatter(void *comm, const void *send, void *recv,
                                         size_t recv_count, int dtype, int op, void *stream)
{
    HCL_CHECK(hcl.hcclReduceScatter(send, recv, recv_count, (accel_hcl_dtype_t)dtype,
                                    (accel_hcl_op_t)op, comm, stream),
              "hcclReduceScatter", comm);
    return ACCEL_OK;
}

static accel_status_t hcl_broadcast(void *comm, const void *send, void *recv, size_t count,
                                    int dtype, int root, void *stream)
{
    HCL_CHECK(hcl.hcclBroadcast(send, recv, count, (accel_hcl_dtype_t)dtype, root, comm, stream),
              "hcclBroadcast", comm);
    return ACCEL_OK;
}

static accel_status_t hcl_reduce(void *comm, const void *send, void *recv, size_t count, int dtype,
                                 int op, int root, void *stream)
{
    HCL_CHECK(hcl.hcclReduce(send, recv, count, (accel_hcl_dtype_t)dtype, (accel_hcl_op_t)op, root,
                             comm, stream),
              "hcclReduce", comm);
    return ACCEL_OK;
}

static accel_status_t hcl_send(void *comm, const void *buf, size_t count, int dtype, int peer,
                               void *stream)
{
    HCL_CHECK(hcl.hcclSend(buf, count, (accel_hcl_dtype_t)dtype, peer, comm, stream), "hcclSend",
              comm);
    return ACCEL_OK;
}

static accel_status_t hcl_recv(void *comm, void *buf, size_t count, int dtype, int peer,
                               void *stream)
{
    HCL_CHECK(hcl.hcclRecv(buf, count, (accel_hcl_dtype_t)dtype, peer, comm, stream), "hcclRecv",
              comm);
    return ACCEL_OK;
}

static accel_status_t hcl_barrier(void *comm, void *stream)
{
    HCL_CHECK(hcl.hcclBarrier(comm, stream), "hcclBarrier", comm);
    return ACCEL_OK;
}

static accel_status_t hcl_group_start(void)
{
    HCL_CHECK(hcl.hcclGroupStart(), "hcclGroupStart", NULL);
    return ACCEL_OK;
}

static accel_status_t hcl_group_end(void)
{
    HCL_CHECK(hcl.hcclGroupEnd(), "hcclGroupEnd", NULL);
    return ACCEL_OK;
}

static const char *const hcl_backends[] = {"hpu", NULL};

const accel_comm_engine_t accel_comm_engine_habana_hccl = {
    .name = "habana-hccl",
    .kind = ACCEL_COMM_ENGINE_DEVICE,
    .backends = hcl_backends,
    .load = hcl_load,
    .dtype_codes =
        {
            [ACCEL_DTYPE_F32] = ACCEL_HCL_FLOAT32,
            [ACCEL_DTYPE_F16] = ACCEL_HCL_FLOAT16,
            [ACCEL_DTYPE_BF16] = ACCEL_HCL_BFLOAT16,
            [ACCEL_DTYPE_F64] = ACCEL_HCL_FLOAT64,
            [ACCEL_DTYPE_U8] = ACCEL_HCL_UINT8,
            [ACCEL_DTYPE_I32] = ACCEL_HCL_INT32,
            [ACCEL_DTYPE_I64] = ACCEL_HCL_INT64,
        },
    .op_codes =
        {
            [ACCEL_REDUCE_SUM] = ACCEL_HCL_SUM,
            [ACCEL_REDUCE_PROD] = ACCEL_HCL_PROD,
            [ACCEL_REDUCE_MIN] = ACCEL_HCL_MIN,
            [ACCEL_REDUCE_MAX] = ACCEL_HCL_MAX,
            [ACCEL_REDUCE_AVG] = ACCEL_HCL_AVG,
        },
    .unique_id_size = sizeof(accel_hcl_unique_id_t), /* 1032 on LP64 */
    .rendezvous_env = "HCCL_COMM_ID",
    .unique_id_every_rank = false, /* the call starts HCL's coordinator (above) */
    .unique_id = hcl_unique_id,
    .init = hcl_init,
    .destroy = hcl_destroy,
    .all_reduce = hcl_all_reduce,
    .all_gather = hcl_all_gather,
    .reduce_scatter = hcl_reduce_scatter,
    .broadcast = hcl_broadcast,
    .broadcast_in_place_only = false,
    .reduce = hcl_reduce,
    .send = hcl_send,
    .recv = hcl_recv,
    .barrier = hcl_barrier,
    .group_start = hcl_group_start,
    .group_end = hcl_group_end,
};
