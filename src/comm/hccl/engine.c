/* engine.c: the hccl collectives engine (src/comm/engine.h) for the npu
 * backend: Huawei Ascend HCCL's C API (libhccl.so) opened with dlopen,
 * never linked.
 *
 * Library: ACCEL_HCCL_LIBRARY, then $ASCEND_HOME_PATH/lib64/libhccl.so,
 * $ASCEND_TOOLKIT_HOME/lib64/libhccl.so, then libhccl.so on the loader's
 * path; loaded once per process (accel_vendor_library_open) and never unloaded. It needs
 * libascendcl.so, which the npu backend has loaded by then.
 * Objects: the engine communicator is HCCL's HcclComm itself, owned by the
 * layer from init until destroy. Threads: the function table is written once
 * by the vendor-library loader and read-only afterwards; the layer serialises the calls
 * on one communicator (engine.h). HCCL works on the thread's ACL device, so
 * init first makes the communicator's device current (native_stream:
 * aclrtSetDevice), and every collective gets the aclrtStream it gave.
 * What HCCL lacks and the layer supplies: average (op_codes[AVG] is
 * ACCEL_COMM_NO_CODE), a broadcast from one buffer to another
 * (broadcast_in_place_only) and, on a libhccl without HcclReduce, reduce:
 * the engine's table is the one engine table that is not constant, because
 * load clears its `reduce` slot then (once, as it loads, before any
 * communicator can exist; read-only afterwards). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "comm/engine.h"
#include "comm/hccl/types.h"
#include "comm/vendor_engines.h"

typedef struct hccl_api {
#define ACCEL_HCCL_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "comm/hccl/symbols.h"
#undef ACCEL_HCCL_SYMBOL
} hccl_api_t;

static hccl_api_t hccl;

/* HcclGroupStart/End: current CANN exports them from libhcomm.so, next to
 * libhccl.so (torch_npu resolves them there: Ascend/pytorch
 * torch_npu/csrc/distributed/HcclCompile.h, TORCH_NPU_REGISTER_FUNCTION(
 * libhcomm, HcclGroupStart)); older releases had them in libhccl.so itself,
 * where the symbol table looked first. Both or neither; the libhcomm handle
 * is kept for the process, like libhccl's. Called once, from the loader's
 * on_load step (hccl_loaded). */
static void hccl_load_group_calls(const char *hccl_file)
{
    char path[512];
    const char *slash = strrchr(hccl_file, '/');
    void *hcomm, *start, *end;
    if (slash == NULL || snprintf(path, sizeof path, "%.*s/libhcomm.so", (int)(slash - hccl_file),
                                  hccl_file) >= (int)sizeof path)
        return;
    hcomm = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (hcomm == NULL)
        return;
    start = dlsym(hcomm, "HcclGroupStart");
    end = dlsym(hcomm, "HcclGroupEnd");
    if (start == NULL || end == NULL) {
        dlclose(hcomm);
        return;
    }
    *(void **)&hccl.HcclGroupStart = start;
    *(void **)&hccl.HcclGroupEnd = end;
}

static const accel_symbol_t hccl_symbols[] = {
#define ACCEL_HCCL_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(hccl, required, name, export),
#include "comm/hccl/symbols.h"
#undef ACCEL_HCCL_SYMBOL
};

/* After the symbols resolved: the detail line for the report. */
static bool hccl_loaded(accel_vendor_library_t *lib, void *library)
{
    (void)library;
    /* Without HcclReduce the layer's fallback (all_reduce into scratch, the
     * copy on the root) takes over: the slot must read NULL. */
    if (hccl.HcclReduce == NULL)
        accel_comm_engine_hccl.reduce = NULL;
    const char *file = accel_comm_vendor_file(*(void **)&hccl.HcclGetRootInfo, "libhccl.so");
    if (hccl.HcclGroupStart == NULL || hccl.HcclGroupEnd == NULL)
        hccl_load_group_calls(file);
    /* HCCL has no version call: CANN's version is the ACL runtime's. */
    snprintf(lib->text, sizeof lib->text, "%s (Ascend HCCL%s%s%s)", file,
             hccl.HcclGroupStart != NULL ? ", with group calls from " : ", without group calls",
             hccl.HcclGroupStart != NULL
                 ? accel_comm_vendor_file(*(void **)&hccl.HcclGroupStart, "?")
                 : "",
             hccl.HcclReduce != NULL ? "" : ", without HcclReduce: reduce emulated");
    return true;
}

static const char *const hccl_homes[] = {"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", NULL};
static const char *const hccl_names[] = {"libhccl.so", NULL};

static accel_vendor_library_t hccl_lib = {
    .name = "hccl",
    .home_vars = hccl_homes,
    .home_file = "lib64/libhccl.so",
    .candidates = hccl_names,
    .symbols = hccl_symbols,
    .symbol_count = sizeof hccl_symbols / sizeof hccl_symbols[0],
    .not_found = "Huawei Ascend HCCL (libhccl.so) could not be loaded",
    .not_found_hint = "set ACCEL_HCCL_LIBRARY to its path",
    .symbols_in = "the Huawei Ascend HCCL (libhccl.so) that loaded",
    .too_old = "CANN too old?",
    .on_load = hccl_loaded,
};

static accel_status_t hccl_load(char *detail, size_t detail_cap)
{
    return accel_comm_vendor_loaded(&hccl_lib, "hccl", detail, detail_cap);
}

/* HcclResult's names (hccl_types.h), for releases without HcclGetErrorString. */
static const char *hccl_result_name(accel_hccl_result_t code)
{
    static const char *const names[] = {
        "HCCL_SUCCESS",
        "HCCL_E_PARA",
        "HCCL_E_PTR",
        "HCCL_E_MEMORY",
        "HCCL_E_INTERNAL",
        "HCCL_E_NOT_SUPPORT",
        "HCCL_E_NOT_FOUND",
        "HCCL_E_UNAVAIL",
        "HCCL_E_SYSCALL",
        "HCCL_E_TIMEOUT",
        "HCCL_E_OPEN_FILE_FAILURE",
        "HCCL_E_TCP_CONNECT",
        "HCCL_E_ROCE_CONNECT",
        "HCCL_E_TCP_TRANSFER",
        "HCCL_E_ROCE_TRANSFER",
        "HCCL_E_RUNTIME",
        "HCCL_E_DRV",
        "HCCL_E_PROFILING",
        "HCCL_E_CCE",
        "HCCL_E_NETWORK",
        "HCCL_E_AGAIN",
        "HCCL_E_REMOTE",
        "HCCL_E_SUSPENDING",
        "HCCL_E_OPRETRY_FAIL",
        "HCCL_E_OOM",
    };
    return code < sizeof names / sizeof names[0] ? names[code] : "an unlisted HcclResult";
}

/* "hccl: <what> failed with HcclResult <code> (<name>[: <HCCL's text>])". */
static accel_status_t hccl_fail(accel_hccl_result_t code, const char *what)
{
    const char *text = hccl.HcclGetErrorString != NULL ? hccl.HcclGetErrorString(code) : NULL;
    return accel_backend_vendor_error((int64_t)code, "hccl: %s failed with HcclResult %u (%s%s%s)",
                                      what, code, hccl_result_name(code),
                                      text != NULL && text[0] != '\0' ? ": " : "",
                                      text != NULL ? text : "");
}

#define HCCL_CHECK(call, what)                                                                     \
    do {                                                                                           \
        accel_hccl_result_t hccl_code_ = (call);                                                   \
        if (hccl_code_ != ACCEL_HCCL_SUCCESS)                                                      \
            return hccl_fail(hccl_code_, what);                                                    \
    } while (0)

static accel_status_t hccl_unique_id(void *out)
{
    HCCL_CHECK(hccl.HcclGetRootInfo((accel_hccl_root_info_t *)out), "HcclGetRootInfo");
    return ACCEL_OK;
}

/* How long HcclCommInitRootInfo waits for the other ranks is
 * HCCL_CONNECT_TIMEOUT, in whole seconds: CANN's environment-variable
 * reference gives [120, 7200], default 120 (recent releases wait 20 s more
 * than the value); HcclCommConfig has no such field (the torch-npu 2.14
 * wheel's hccl_types.h). Unless the user set the variable, accel puts the
 * communicator's own timeout there (options.timeout_s, ACCEL_COMM_TIMEOUT,
 * else 300), rounded up and clamped into that range (no timeout: 7200).
 * Unconfirmed: what HCCL does with a value outside the range, and whether it
 * reads the variable again for each communicator or once per process.
 * The variable is the user's when it was set and is not the value accel
 * set last (`hccl_timeout_ours`). setenv is not safe against getenv in
 * other threads; the lock only orders the inits. */
#define HCCL_CONNECT_TIMEOUT_MIN 120
#define HCCL_CONNECT_TIMEOUT_MAX 7200
static pthread_mutex_t hccl_timeout_lock = PTHREAD_MUTEX_INITIALIZER;
static char hccl_timeout_ours[24];

static accel_status_t hccl_connect_timeout(double timeout_s)
{
    long seconds = HCCL_CONNECT_TIMEOUT_MAX;
    char value[24];
    accel_status_t status = ACCEL_OK;
    if (timeout_s < HCCL_CONNECT_TIMEOUT_MAX) {
        seconds = (long)timeout_s;
        seconds += (double)seconds < timeout_s;
        if (seconds < HCCL_CONNECT_TIMEOUT_MIN)
            seconds = HCCL_CONNECT_TIMEOUT_MIN;
    }
    snprintf(value, sizeof value, "%ld", seconds);
    pthread_mutex_lock(&hccl_timeout_lock);
    const char *now = getenv("HCCL_CONNECT_TIMEOUT");
    bool ours =
        now == NULL || (hccl_timeout_ours[0] != '\0' && strcmp(now, hccl_timeout_ours) == 0);
    if (ours && (now == NULL || strcmp(now, value) != 0) &&
        setenv("HCCL_CONNECT_TIMEOUT", value, 1) != 0)
        status = accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                     "hccl: cannot set HCCL_CONNECT_TIMEOUT=%s", value);
    else if (ours)
        snprintf(hccl_timeout_ours, sizeof hccl_timeout_ours, "%s", value);
    pthread_mutex_unlock(&hccl_timeout_lock);
    return status;
}

static accel_status_t hccl_init(const accel_comm_engine_ctx_t *ctx, int nranks, int rank,
                                const void *unique_id, void **out_comm)
{
    accel_hccl_comm_t comm = NULL;
    accel_status_t status = accel_comm_vendor_activate(ctx, "hccl");
    if (status == ACCEL_OK)
        status = hccl_connect_timeout(ctx->timeout_s);
    if (status != ACCEL_OK)
        return status;
    /* The root info is read in place (HCCL takes it by pointer). */
    HCCL_CHECK(hccl.HcclCommInitRootInfo((uint32_t)nranks,
                                         (const accel_hccl_root_info_t *)unique_id, (uint32_t)rank,
                                         &comm),
               "HcclCommInitRootInfo");
    *out_comm = comm;
    return ACCEL_OK;
}

static accel_status_t hccl_destroy(void *comm)
{
    HCCL_CHECK(hccl.HcclCommDestroy(comm), "HcclCommDestroy");
    return ACCEL_OK;
}

/* HCCL's send buffers are not const in its prototypes; it only reads them. */
static accel_status_t hccl_all_reduce(void *comm, const void *send, void *recv, size_t count,
                                      int dtype, int op, void *stream)
{
    HCCL_CHECK(hccl.HcclAllReduce((void *)send, recv, count, (accel_hccl_dtype_t)dtype,
                                  (accel_hccl_op_t)op, comm, stream),
               "HcclAllReduce");
    return ACCEL_OK;
}

static accel_status_t hccl_all_gather(void *comm, const void *send, void *recv, size_t send_count,
                                      int dtype, void *stream)
{
    HCCL_CHECK(
        hccl.HcclAllGather((void *)send, recv, send_count, (accel_hccl_dtype_t)dtype, comm, stream),
        "HcclAllGather");
    return ACCEL_OK;
}

static accel_status_t hccl_reduce_scatter(void *comm, const void *send, void *recv,
                                          size_t recv_count, int dtype, int op, void *stream)
{
    HCCL_CHECK(hccl.HcclReduceScatter((void *)send, recv, recv_count, (accel_hccl_dtype_t)dtype,
                                      (accel_hccl_op_t)op, comm, stream),
               "HcclReduceScatter");
    return ACCEL_OK;
}

/* In place only (broadcast_in_place_only): the layer passes send == recv
 * (having copied the root's send into recv first). */
static accel_status_t hccl_broadcast(void *comm, const void *send, void *recv, size_t count,
                                     int dtype, int root, void *stream)
{
    if (send != recv && send != NULL)
        return accel_backend_error(ACCEL_ERROR_INTERNAL,
                                   "hccl: HcclBroadcast works in place only, yet it was given two "
                                   "buffers (the layer must copy first)");
    HCCL_CHECK(
        hccl.HcclBroadcast(recv, count, (accel_hccl_dtype_t)dtype, (uint32_t)root, comm, stream),
        "HcclBroadcast");
    return ACCEL_OK;
}

static accel_status_t hccl_reduce(void *comm, const void *send, void *recv, size_t count, int dtype,
                                  int op, int root, void *stream)
{
    HCCL_CHECK(hccl.HcclReduce((void *)send, recv, count, (accel_hccl_dtype_t)dtype,
                               (accel_hccl_op_t)op, (uint32_t)root, comm, stream),
               "HcclReduce");
    return ACCEL_OK;
}

static accel_status_t hccl_send(void *comm, const void *buf, size_t count, int dtype, int peer,
                                void *stream)
{
    HCCL_CHECK(
        hccl.HcclSend((void *)buf, count, (accel_hccl_dtype_t)dtype, (uint32_t)peer, comm, stream),
        "HcclSend");
    return ACCEL_OK;
}

static accel_status_t hccl_recv(void *comm, void *buf, size_t count, int dtype, int peer,
                                void *stream)
{
    HCCL_CHECK(hccl.HcclRecv(buf, count, (accel_hccl_dtype_t)dtype, (uint32_t)peer, comm, stream),
               "HcclRecv");
    return ACCEL_OK;
}

static accel_status_t hccl_barrier(void *comm, void *stream)
{
    HCCL_CHECK(hccl.HcclBarrier(comm, stream), "HcclBarrier");
    return ACCEL_OK;
}

/* CANN releases without HcclGroupStart/End run a group's calls as they come,
 * exactly what the layer does for an engine without group slots. */
static accel_status_t hccl_group_start(void)
{
    if (hccl.HcclGroupStart != NULL)
        HCCL_CHECK(hccl.HcclGroupStart(), "HcclGroupStart");
    return ACCEL_OK;
}

static accel_status_t hccl_group_end(void)
{
    if (hccl.HcclGroupEnd != NULL)
        HCCL_CHECK(hccl.HcclGroupEnd(), "HcclGroupEnd");
    return ACCEL_OK;
}

/* Which reductions HCCL accepts (engine.h reduce_supported), by the
 * library's own checks, so that none of them reaches it:
 * - no unsigned types: UINT8, UINT16, UINT32 reductions return
 *   HCCL_E_NOT_SUPPORT (hicann/hccl src/ops/op_common/op_common.cc,
 *   CheckDataType with needReduce). Of accel's dtypes that is u8 (torch_npu
 *   casts uint8 to int32 first instead, ProcessGroupHCCL.cpp).
 * - FP64 (and UINT64, which accel does not map) reductions only on Ascend 950
 *   (hicann/hccl docs/zh/api_ref/comm_op_interface/HcclAllReduce.md, the
 *   dataType list; torch_npu ProcessGroupHCCL.cpp checkSupportedDataType).
 *   The SoC is the device's name as the npu backend reports it
 *   (aclrtGetSocName).
 * - PROD only on INT8, INT32, INT64, UINT64, FP16, FP32, FP64: not on BFP16
 *   (op_common.cc CheckReduceOp). */
static bool hccl_reduce_supported(const accel_comm_engine_ctx_t *ctx, accel_dtype_t dtype,
                                  accel_reduce_op_t op, char *why, size_t why_cap)
{
    accel_device_properties_t props = {.struct_size = sizeof props};
    if (dtype == ACCEL_DTYPE_U8) {
        snprintf(why, why_cap,
                 "HCCL reduces no unsigned type (HCCL_E_NOT_SUPPORT; hicann/hccl "
                 "op_common.cc CheckDataType); reduce as i32 instead");
        return false;
    }
    if (op == ACCEL_REDUCE_PROD && dtype == ACCEL_DTYPE_BF16) {
        snprintf(why, why_cap,
                 "HCCL's prod takes int8/int32/int64/uint64/fp16/fp32/fp64 only "
                 "(hicann/hccl op_common.cc CheckReduceOp)");
        return false;
    }
    if (dtype != ACCEL_DTYPE_F64)
        return true;
    if (ctx != NULL && ctx->ops != NULL && ACCEL_BACKEND_HAS(ctx->ops, device_properties) &&
        ctx->ops->device_properties(ctx->self, ctx->device, &props) == ACCEL_OK &&
        strncmp(props.name, "Ascend950", 9) == 0)
        return true;
    snprintf(why, why_cap,
             "HCCL reduces fp64 on Ascend 950 only, and this device is %s "
             "(hicann/hccl HcclAllReduce.md; torch_npu checkSupportedDataType)",
             props.name[0] != '\0' ? props.name : "of unknown SoC");
    return false;
}

static const char *const hccl_backends[] = {"npu", NULL};

/* Not const: hccl_load_once clears `reduce` for a libhccl without HcclReduce
 * (vendor_engines.h). */
accel_comm_engine_t accel_comm_engine_hccl = {
    .name = "hccl",
    .kind = ACCEL_COMM_ENGINE_DEVICE,
    .backends = hccl_backends,
    .load = hccl_load,
    .dtype_codes =
        {
            [ACCEL_DTYPE_F32] = ACCEL_HCCL_FP32,
            [ACCEL_DTYPE_F16] = ACCEL_HCCL_FP16,
            [ACCEL_DTYPE_BF16] = ACCEL_HCCL_BFP16,
            [ACCEL_DTYPE_F64] = ACCEL_HCCL_FP64,
            [ACCEL_DTYPE_U8] = ACCEL_HCCL_UINT8,
            [ACCEL_DTYPE_I32] = ACCEL_HCCL_INT32,
            [ACCEL_DTYPE_I64] = ACCEL_HCCL_INT64,
        },
    .op_codes =
        {
            [ACCEL_REDUCE_SUM] = ACCEL_HCCL_SUM,
            [ACCEL_REDUCE_PROD] = ACCEL_HCCL_PROD,
            [ACCEL_REDUCE_MIN] = ACCEL_HCCL_MIN,
            [ACCEL_REDUCE_MAX] = ACCEL_HCCL_MAX,
            [ACCEL_REDUCE_AVG] = ACCEL_COMM_NO_CODE, /* HCCL has no average */
        },
    .unique_id_size = ACCEL_HCCL_ROOT_INFO_BYTES,
    /* HCCL's root info is exchanged by the layer (MPI); no variable makes
     * every rank derive it. */
    .rendezvous_env = NULL,
    .unique_id = hccl_unique_id,
    .init = hccl_init,
    .destroy = hccl_destroy,
    .all_reduce = hccl_all_reduce,
    .all_gather = hccl_all_gather,
    .reduce_scatter = hccl_reduce_scatter,
    .broadcast = hccl_broadcast,
    .broadcast_in_place_only = true,
    .reduce = hccl_reduce, /* NULL after load when libhccl lacks HcclReduce */
    .send = hccl_send,
    .recv = hccl_recv,
    .barrier = hccl_barrier,
    .group_start = hccl_group_start,
    .group_end = hccl_group_end,
    .reduce_supported = hccl_reduce_supported,
};
