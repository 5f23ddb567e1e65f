/* nccl_sim.c: a simulated libnccl.so.2 (tests/sim/README.md), not NVIDIA's
 * NCCL: NCCL's exported names, signatures, result codes and dtype and op
 * numbering (nccl_sim.h, from NCCL's documentation) mapped onto the MPI
 * collectives core (ccl_sim.h), over the simulated CUDA driver
 * (tests/sim/cudadrv), whose libcuda.so it links.
 *
 * Devices and streams: a communicator belongs to the device of the thread's
 * current CUDA context at ncclCommInitRank (cuCtxGetCurrent, cuCtxGetDevice;
 * no current context is refused, where NCCL would fall back to device 0).
 * Every collective then needs that device's context current (stricter than
 * NCCL, which switches to the communicator's device itself: it catches a
 * binding that made the wrong device current), and first synchronizes its
 * CUstream (cuStreamSynchronize; NULL is the context's legacy default
 * stream) before the core runs it on the calling thread.
 * Buffers: device memory of the communicator's device, [buf, buf + bytes)
 * inside one allocation (cuPointerGetAttribute), else ncclInvalidArgument;
 * in place is send == recv (all-gather: send at recv + rank * count,
 * reduce-scatter: recv at send + rank * recvcount); any other overlap is
 * refused too (NCCL leaves it undefined).
 * Rendezvous: ncclGetUniqueId makes a fresh id naming this process (rank 0
 * of the communicator must be it); with NCCL_COMM_ID=<host>:<port> set it
 * gives the id of that address instead, every call, as NCCL does, and the
 * core joins such a communicator across the whole MPI job. The roots NCCL
 * listens with are simulated too (rule CCL-NCCL-COMMID, below), so that two
 * roots on one address collide as NCCL's do.
 * Version: ncclGetVersion answers ACCEL_SIM_NCCL_VERSION (default 21400,
 * NCCL 2.14.0: the first release with every function the sim exports).
 * Not simulated: non-blocking communicators, custom reduction operations,
 * the 8-bit float types, ncclCommAbort, ncclCommSplit's config (NULL only)
 * and the rest of the API.
 * Objects: a communicator (struct ncclComm) owns its core communicator,
 * from ncclCommInitRank to ncclCommDestroy. Faults: every exported call that
 * returns ncclResult_t goes through sim_fault. Threads: as ccl_sim.h; the
 * last error is per thread (ncclGetLastError ignores its argument). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccl_sim.h"
#include "cu_sim.h"
#include "nccl_sim.h"
#include "sim_break.h"
#include "sim_fault.h"

struct ncclComm {
    ccl_sim_comm_t *core;
    bool finalized; /* ncclCommFinalize ran: only ncclCommDestroy is left */
    char root[512]; /* the root's port file this rank holds (CCL-NCCL-COMMID), or "" */
};

/* ---------------------------------------------------------------- roots
 *
 * CCL-NCCL-COMMID, from NVIDIA/nccl:
 * - src/bootstrap.cc, bootstrapGetUniqueId: without NCCL_COMM_ID the call
 *   starts a bootstrap root listening at this process (bootstrapCreateRoot)
 *   and the id names it; with NCCL_COMM_ID set it only parses that address
 *   (no listener), so every caller gets the same id.
 * - src/init.cc, ncclCommInitRankDev: with NCCL_COMM_ID set, rank 0 starts
 *   a root at the id's address (bootstrapCreateRoot(&commId, true)).
 * So with NCCL_COMM_ID set, two communicators whose rank 0 starts a root on
 * one address collide (a split's colors, each leader holding the same id),
 * and so does a rank 0 whose id already has a root listening (a fresh id
 * made by ncclGetUniqueId). A root is a file made with O_EXCL in the
 * temporary folder, named by the MPI job (PMIX_NAMESPACE, else the parent
 * pid) and the id (ccl_sim_id_name), removed when it stops. Harsher than
 * NCCL (which stops a root once every rank has checked in): a root started
 * by rank 0's init is held until that communicator is destroyed, so a
 * collision never depends on timing; a fresh id's root stops once rank 0's
 * init has made its communicator. Error: ncclSystemError (NCCL's for a
 * failed bind). */

#define NCCL_MAX_ROOTS 64
static char nccl_roots[NCCL_MAX_ROOTS][512]; /* held by this process; under nccl_roots_lock */
static pthread_mutex_t nccl_roots_lock = PTHREAD_MUTEX_INITIALIZER;

static void nccl_roots_release_all(void)
{
    for (int i = 0; i < NCCL_MAX_ROOTS; i++)
        if (nccl_roots[i][0] != '\0')
            unlink(nccl_roots[i]);
}

static void nccl_roots_atexit(void)
{
    atexit(nccl_roots_release_all);
}

static void nccl_root_file(const void *id, char *out, size_t cap)
{
    const char *job = getenv("PMIX_NAMESPACE"), *dir = getenv("TMPDIR");
    char parent[32], name[64];
    if (job == NULL || job[0] == '\0') {
        snprintf(parent, sizeof parent, "ppid%ld", (long)getppid());
        job = parent;
    }
    ccl_sim_id_name(id, name, sizeof name);
    snprintf(out, cap, "%s/accel-nccl-sim-%s-%s", dir != NULL && dir[0] != '\0' ? dir : "/tmp", job,
             name);
}

/* Start a root for `id` here: false (errno set) when one already listens. */
static bool nccl_root_start(const void *id, char *file, size_t cap)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    int fd, slot = -1;
    nccl_root_file(id, file, cap);
    fd = open(file, O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd < 0)
        return false;
    close(fd);
    pthread_once(&once, nccl_roots_atexit);
    pthread_mutex_lock(&nccl_roots_lock);
    for (int i = 0; i < NCCL_MAX_ROOTS && slot < 0; i++)
        if (nccl_roots[i][0] == '\0')
            snprintf(nccl_roots[slot = i], sizeof nccl_roots[i], "%s", file);
    pthread_mutex_unlock(&nccl_roots_lock);
    return true;
}

static void nccl_root_stop(const char *file)
{
    if (file[0] == '\0')
        return;
    pthread_mutex_lock(&nccl_roots_lock);
    for (int i = 0; i < NCCL_MAX_ROOTS; i++)
        if (strcmp(nccl_roots[i], file) == 0)
            nccl_roots[i][0] = '\0';
    pthread_mutex_unlock(&nccl_roots_lock);
    unlink(file);
}

/* What this file refuses before the core sees the call; the core's own
 * text otherwise (ncclGetLastError). */
static _Thread_local char nccl_last_error[256];

#define NCCL_ENTER(name)                                                                           \
    do {                                                                                           \
        nccl_last_error[0] = '\0';                                                                 \
        CCL_SIM_ENTER(name);                                                                       \
    } while (0)

static ncclResult_t nccl_refuse(ncclResult_t code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ncclResult_t nccl_refuse(ncclResult_t code, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(nccl_last_error, sizeof nccl_last_error, fmt, args);
    va_end(args);
    return code;
}

static int nccl_sync(void *stream)
{
    return cuStreamSynchronize((CUstream)stream);
}

static ncclResult_t nccl_result(ccl_sim_status_t status)
{
    switch (status) {
    case CCL_SIM_OK: return ncclSuccess;
    case CCL_SIM_INVALID: return ncclInvalidArgument;
    case CCL_SIM_USAGE: return ncclInvalidUsage;
    case CCL_SIM_STREAM: return ncclUnhandledCudaError;
    case CCL_SIM_TIMEOUT: return ncclRemoteError;
    default: return ncclInternalError;
    }
}

static int nccl_type(ncclDataType_t code, ccl_sim_type_t *out)
{
    static const ccl_sim_type_t map[] = {CCL_SIM_I8,  CCL_SIM_U8,  CCL_SIM_I32, CCL_SIM_U32,
                                         CCL_SIM_I64, CCL_SIM_U64, CCL_SIM_F16, CCL_SIM_F32,
                                         CCL_SIM_F64, CCL_SIM_BF16};
    if (code < 0 || (size_t)code >= sizeof map / sizeof map[0])
        return 0;
    *out = map[code];
    return 1;
}

static int nccl_op(ncclRedOp_t code, ccl_sim_op_t *out)
{
    static const ccl_sim_op_t map[] = {CCL_SIM_SUM, CCL_SIM_PROD, CCL_SIM_MAX, CCL_SIM_MIN,
                                       CCL_SIM_AVG};
    if (code < 0 || (size_t)code >= sizeof map / sizeof map[0])
        return 0;
    *out = map[code];
    return 1;
}

#define NCCL_TYPE(code, var)                                                                       \
    ccl_sim_type_t var;                                                                            \
    if (!nccl_type(code, &var))                                                                    \
    return nccl_refuse(ncclInvalidArgument, "nccl sim: ncclDataType_t %d is not simulated", code)
#define NCCL_OP(code, var)                                                                         \
    ccl_sim_op_t var;                                                                              \
    if (!nccl_op(code, &var))                                                                      \
    return nccl_refuse(ncclInvalidArgument, "nccl sim: ncclRedOp_t %d is not simulated", code)

/* ---------------------------------------------------------------- devices and buffers */

/* A collective's communicator: live, not finalized, and its device's
 * context current on the calling thread. */
static ncclResult_t nccl_check_comm(const char *what, ncclComm_t comm)
{
    CUcontext ctx = NULL;
    CUdevice current = -1;
    CUresult code;
    int device;
    if (comm == NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: %s: NULL communicator", what);
    if (comm->finalized)
        return nccl_refuse(ncclInvalidUsage,
                           "nccl sim: %s: the communicator was finalized (ncclCommFinalize)", what);
    device = ccl_sim_comm_device(comm->core);
    if ((code = cuCtxGetCurrent(&ctx)) != CUDA_SUCCESS || ctx == NULL ||
        (code = cuCtxGetDevice(&current)) != CUDA_SUCCESS)
        return nccl_refuse(ncclUnhandledCudaError,
                           "nccl sim: %s: no usable current CUDA context (CUresult %d); the "
                           "communicator belongs to device %d",
                           what, (int)code, device);
    if (current != device)
        return nccl_refuse(ncclInvalidUsage,
                           "nccl sim: %s: the communicator belongs to CUDA device %d but the "
                           "thread's current context is device %d's",
                           what, device, (int)current);
    return ncclSuccess;
}

#define NCCL_COMM(what, comm)                                                                      \
    do {                                                                                           \
        ncclResult_t comm_result_ = nccl_check_comm(what, comm);                                   \
        if (comm_result_ != ncclSuccess)                                                           \
            return comm_result_;                                                                   \
    } while (0)

/* Bytes of `count` elements times `factor`, or SIZE_MAX when that
 * overflows (no allocation holds it, so the buffer check refuses it). */
static size_t nccl_bytes(size_t count, ccl_sim_type_t type, size_t factor)
{
    size_t size = ccl_sim_type_size(type);
    if (factor == 0 || count > SIZE_MAX / size / factor)
        return SIZE_MAX;
    return count * size * factor;
}

/* `bytes` at `buf` (nothing to check for 0) are device memory of the
 * communicator's device, inside one allocation. */
static ncclResult_t nccl_check_buffer(const char *what, const char *name, const void *buf,
                                      size_t bytes, ncclComm_t comm)
{
    CUdeviceptr ptr = (CUdeviceptr)(uintptr_t)buf, start = 0;
    unsigned int type = 0;
    int ordinal = -1;
    size_t size = 0;
    if (bytes == 0)
        return ncclSuccess;
    if (buf == NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: %s: %s is NULL", what, name);
    if (cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr) != CUDA_SUCCESS ||
        type != CU_MEMORYTYPE_DEVICE)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: %s: %s %p is not CUDA device memory",
                           what, name, buf);
    if (cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr) != CUDA_SUCCESS ||
        cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptr) != CUDA_SUCCESS ||
        cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, ptr) != CUDA_SUCCESS)
        return nccl_refuse(ncclUnhandledCudaError,
                           "nccl sim: %s: cuPointerGetAttribute failed for %s %p", what, name, buf);
    if (ordinal != ccl_sim_comm_device(comm->core))
        return nccl_refuse(ncclInvalidArgument,
                           "nccl sim: %s: %s %p is on CUDA device %d, the communicator on %d", what,
                           name, buf, ordinal, ccl_sim_comm_device(comm->core));
    if (bytes > size - (size_t)(ptr - start))
        return nccl_refuse(ncclInvalidArgument,
                           "nccl sim: %s: %s %p: %zu bytes run past the end of its allocation "
                           "(%zu bytes at %#llx)",
                           what, name, buf, bytes, size, start);
    return ncclSuccess;
}

#define NCCL_BUFFER(what, name, buf, bytes, comm)                                                  \
    do {                                                                                           \
        ncclResult_t buffer_result_ = nccl_check_buffer(what, name, buf, bytes, comm);             \
        if (buffer_result_ != ncclSuccess)                                                         \
            return buffer_result_;                                                                 \
    } while (0)

static bool nccl_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    const char *x = a, *y = b;
    return a_bytes > 0 && b_bytes > 0 && x < y + b_bytes && y < x + a_bytes;
}

/* send and recv of one size: the same buffer or apart. */
static ncclResult_t nccl_same_or_apart(const char *what, const void *send, const void *recv,
                                       size_t bytes)
{
    if (send != recv && nccl_overlap(send, bytes, recv, bytes))
        return nccl_refuse(ncclInvalidArgument,
                           "nccl sim: %s: send and recv overlap without being the same buffer",
                           what);
    return ncclSuccess;
}

#define NCCL_CHECKED(call)                                                                         \
    do {                                                                                           \
        ncclResult_t checked_result_ = (call);                                                     \
        if (checked_result_ != ncclSuccess)                                                        \
            return checked_result_;                                                                \
    } while (0)

/* ---------------------------------------------------------------- library and communicators */

SIM_EXPORT ncclResult_t ncclGetVersion(int *version)
{
    const char *text = getenv("ACCEL_SIM_NCCL_VERSION");
    NCCL_ENTER("ncclGetVersion");
    if (version == NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: NULL version");
    *version = text != NULL && text[0] != '\0' ? atoi(text) : 21400;
    return ncclSuccess;
}

SIM_EXPORT const char *ncclGetErrorString(ncclResult_t result)
{
    switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (simulated NCCL)";
    case ncclSystemError: return "unhandled system error (simulated NCCL)";
    case ncclInternalError: return "internal error (simulated NCCL)";
    case ncclInvalidArgument: return "invalid argument (simulated NCCL)";
    case ncclInvalidUsage: return "invalid usage (simulated NCCL)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}

/* The thread's last failure ("" when none). */
SIM_EXPORT const char *ncclGetLastError(ncclComm_t comm)
{
    (void)comm;
    return nccl_last_error[0] != '\0' ? nccl_last_error : ccl_sim_last_error();
}

SIM_EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    const char *address = getenv("NCCL_COMM_ID");
    char file[512];
    ncclResult_t result;
    NCCL_ENTER("ncclGetUniqueId");
    if (uniqueId == NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: NULL unique id");
    if (address != NULL && address[0] != '\0') {
        if (strchr(address, ':') == NULL)
            return nccl_refuse(ncclInvalidArgument,
                               "nccl sim: NCCL_COMM_ID=%s is not <host>:<port>", address);
        /* Test-only broken mode of rule CCL-NCCL-COMMID: a fresh id per
         * call, the address ignored (no root is started for it). */
        if (sim_rule_broken("CCL-NCCL-COMMID"))
            return nccl_result(ccl_sim_unique_id(uniqueId->internal, sizeof uniqueId->internal));
        return nccl_result(
            ccl_sim_unique_id_at(address, uniqueId->internal, sizeof uniqueId->internal));
    }
    result = nccl_result(ccl_sim_unique_id(uniqueId->internal, sizeof uniqueId->internal));
    if (result == ncclSuccess && !nccl_root_start(uniqueId->internal, file, sizeof file))
        return nccl_refuse(ncclSystemError, "nccl sim: ncclGetUniqueId: its root: %s",
                           strerror(errno));
    return result;
}

/* The id comes by value; the communicator is the current context's
 * device's. */
SIM_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId,
                                         int rank)
{
    CUcontext ctx = NULL;
    CUdevice device = -1;
    CUresult code;
    struct ncclComm *made;
    const char *address;
    ncclResult_t result;
    NCCL_ENTER("ncclCommInitRank");
    if (comm == NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: NULL communicator");
    if ((code = cuCtxGetCurrent(&ctx)) != CUDA_SUCCESS || ctx == NULL ||
        (code = cuCtxGetDevice(&device)) != CUDA_SUCCESS)
        return nccl_refuse(ncclUnhandledCudaError,
                           "nccl sim: ncclCommInitRank: no usable current CUDA context "
                           "(CUresult %d): no device to bind",
                           (int)code);
    made = calloc(1, sizeof *made);
    if (made == NULL)
        return nccl_refuse(ncclSystemError, "nccl sim: out of memory");
    address = getenv("NCCL_COMM_ID");
    if (address != NULL && address[0] != '\0' && rank == 0 &&
        !nccl_root_start(commId.internal, made->root, sizeof made->root)) {
        /* every other rank then waits for a root that never answers: NCCL's
         * own bootstrap timeout; the sim's core join fails them alike */
        int error = errno;
        free(made);
        return nccl_refuse(ncclSystemError,
                           "nccl sim: ncclCommInitRank at rank 0 with NCCL_COMM_ID=%s starts a "
                           "bootstrap root at the unique id's address (NCCL init.cc, "
                           "ncclCommInitRankDev), but %s (CCL-NCCL-COMMID)",
                           address,
                           error == EEXIST ? "a root already listens there" : strerror(error));
    }
    result = nccl_result(ccl_sim_comm_init(commId.internal, nranks, rank, device, &made->core));
    if (result != ncclSuccess) {
        nccl_root_stop(made->root);
        free(made);
        return result;
    }
    if (rank == 0 && made->root[0] == '\0') { /* a fresh id's root has done its work */
        char file[512];
        nccl_root_file(commId.internal, file, sizeof file);
        nccl_root_stop(file);
    }
    *comm = made;
    return ncclSuccess;
}

/* Collective over the parent (NCCL 2.18): the new communicator is on the
 * parent's device; NCCL_SPLIT_NOCOLOR gives NULL. No root: NCCL splits over
 * the parent's bootstrap (src/init.cc, ncclCommSplit), NCCL_COMM_ID or not. */
SIM_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                                      ncclConfig_t *config)
{
    struct ncclComm *made;
    ccl_sim_comm_t *core = NULL;
    ncclResult_t result;
    NCCL_ENTER("ncclCommSplit");
    if (comm == NULL || newcomm == NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: NULL communicator");
    if (config != NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: ncclCommSplit takes a NULL config only");
    if (color < 0 && color != NCCL_SPLIT_NOCOLOR)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: ncclCommSplit color %d", color);
    *newcomm = NULL;
    /* Test-only broken mode of rule NCCL-SPLIT: the colors are ignored, so
     * every rank that asked for one lands in one communicator. */
    if (color != NCCL_SPLIT_NOCOLOR && sim_rule_broken("NCCL-SPLIT"))
        color = 0;
    result = nccl_result(
        ccl_sim_comm_split(comm->core, color, key, ccl_sim_comm_device(comm->core), &core));
    if (result != ncclSuccess || core == NULL)
        return result;
    if ((made = calloc(1, sizeof *made)) == NULL) {
        ccl_sim_comm_free(core);
        return nccl_refuse(ncclSystemError, "nccl sim: out of memory");
    }
    made->core = core;
    *newcomm = made;
    return ncclSuccess;
}

/* Nothing is ever left queued (every call ran to completion): the flag
 * makes later collectives on the communicator invalid usage, and a second
 * finalize an invalid argument, as NCCL answers it. */
SIM_EXPORT ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    NCCL_ENTER("ncclCommFinalize");
    if (comm == NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: NULL communicator");
    if (comm->finalized)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: ncclCommFinalize: already finalized");
    comm->finalized = true;
    return ncclSuccess;
}

SIM_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    ncclResult_t result;
    NCCL_ENTER("ncclCommDestroy");
    if (comm == NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: NULL communicator");
    result = nccl_result(ccl_sim_comm_free(comm->core));
    nccl_root_stop(comm->root);
    free(comm);
    return result;
}

SIM_EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    NCCL_ENTER("ncclCommCount");
    if (comm == NULL || count == NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: NULL argument");
    *count = ccl_sim_comm_size(comm->core);
    return ncclSuccess;
}

SIM_EXPORT ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    NCCL_ENTER("ncclCommCuDevice");
    if (comm == NULL || device == NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: NULL argument");
    *device = ccl_sim_comm_device(comm->core);
    return ncclSuccess;
}

SIM_EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    NCCL_ENTER("ncclCommUserRank");
    if (comm == NULL || rank == NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: NULL argument");
    *rank = ccl_sim_comm_rank(comm->core);
    return ncclSuccess;
}

SIM_EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    NCCL_ENTER("ncclCommGetAsyncError");
    if (comm == NULL || asyncError == NULL)
        return nccl_refuse(ncclInvalidArgument, "nccl sim: NULL argument");
    *asyncError = ncclSuccess; /* every operation finished before its call returned */
    return ncclSuccess;
}

/* ---------------------------------------------------------------- collectives */

SIM_EXPORT ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                                      ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                      cudaStream_t stream)
{
    const char *what = "ncclAllReduce";
    NCCL_ENTER("ncclAllReduce");
    NCCL_COMM(what, comm);
    NCCL_TYPE(datatype, type);
    NCCL_OP(op, sim_op);
    size_t bytes = nccl_bytes(count, type, 1);
    NCCL_BUFFER(what, "sendbuff", sendbuff, bytes, comm);
    NCCL_BUFFER(what, "recvbuff", recvbuff, bytes, comm);
    NCCL_CHECKED(nccl_same_or_apart(what, sendbuff, recvbuff, bytes));
    /* Test-only broken mode of rule NCCL-VERSIONS: ncclAvg refused by a
     * library that says it is 2.10 or later. */
    if (op == ncclAvg && sim_rule_broken("NCCL-VERSIONS"))
        return nccl_refuse(ncclInvalidArgument, "nccl sim: ncclAvg refused (broken on purpose)");
    return nccl_result(
        ccl_sim_all_reduce(comm->core, sendbuff, recvbuff, count, type, sim_op, nccl_sync, stream));
}

/* sendbuff is read on the root only; sendbuff == recvbuff: in place. */
SIM_EXPORT ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                                      ncclDataType_t datatype, int root, ncclComm_t comm,
                                      cudaStream_t stream)
{
    const char *what = "ncclBroadcast";
    NCCL_ENTER("ncclBroadcast");
    NCCL_COMM(what, comm);
    NCCL_TYPE(datatype, type);
    size_t bytes = nccl_bytes(count, type, 1);
    if (ccl_sim_comm_rank(comm->core) == root) {
        NCCL_BUFFER(what, "sendbuff", sendbuff, bytes, comm);
        NCCL_CHECKED(nccl_same_or_apart(what, sendbuff, recvbuff, bytes));
    }
    NCCL_BUFFER(what, "recvbuff", recvbuff, bytes, comm);
    return nccl_result(
        ccl_sim_broadcast(comm->core, sendbuff, recvbuff, count, type, root, nccl_sync, stream));
}

/* recvbuff is written on the root only. */
SIM_EXPORT ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                                   ncclDataType_t datatype, ncclRedOp_t op, int root,
                                   ncclComm_t comm, cudaStream_t stream)
{
    const char *what = "ncclReduce";
    NCCL_ENTER("ncclReduce");
    NCCL_COMM(what, comm);
    NCCL_TYPE(datatype, type);
    NCCL_OP(op, sim_op);
    size_t bytes = nccl_bytes(count, type, 1);
    NCCL_BUFFER(what, "sendbuff", sendbuff, bytes, comm);
    if (ccl_sim_comm_rank(comm->core) == root) {
        NCCL_BUFFER(what, "recvbuff", recvbuff, bytes, comm);
        NCCL_CHECKED(nccl_same_or_apart(what, sendbuff, recvbuff, bytes));
    }
    return nccl_result(ccl_sim_reduce(comm->core, sendbuff, recvbuff, count, type, sim_op, root,
                                      nccl_sync, stream));
}

/* In place: recvbuff == sendbuff + rank * recvcount (the core refuses any
 * other overlap). */
SIM_EXPORT ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                          ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                          cudaStream_t stream)
{
    const char *what = "ncclReduceScatter";
    NCCL_ENTER("ncclReduceScatter");
    NCCL_COMM(what, comm);
    NCCL_TYPE(datatype, type);
    NCCL_OP(op, sim_op);
    NCCL_BUFFER(what, "sendbuff", sendbuff,
                nccl_bytes(recvcount, type, (size_t)ccl_sim_comm_size(comm->core)), comm);
    NCCL_BUFFER(what, "recvbuff", recvbuff, nccl_bytes(recvcount, type, 1), comm);
    return nccl_result(ccl_sim_reduce_scatter(comm->core, sendbuff, recvbuff, recvcount, type,
                                              sim_op, nccl_sync, stream));
}

/* sendcount is what each rank sends; in place: sendbuff == recvbuff + rank
 * * sendcount. */
SIM_EXPORT ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                                      ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    const char *what = "ncclAllGather";
    NCCL_ENTER("ncclAllGather");
    NCCL_COMM(what, comm);
    NCCL_TYPE(datatype, type);
    size_t bytes = nccl_bytes(sendcount, type, 1);
    size_t all = nccl_bytes(sendcount, type, (size_t)ccl_sim_comm_size(comm->core));
    NCCL_BUFFER(what, "sendbuff", sendbuff, bytes, comm);
    NCCL_BUFFER(what, "recvbuff", recvbuff, all, comm);
    const char *own = (const char *)recvbuff + bytes * (size_t)ccl_sim_comm_rank(comm->core);
    if (bytes > 0 && sendbuff != own && nccl_overlap(sendbuff, bytes, recvbuff, all))
        return nccl_refuse(ncclInvalidArgument,
                           "nccl sim: ncclAllGather: sendbuff overlaps recvbuff without being "
                           "this rank's block of it");
    return nccl_result(
        ccl_sim_all_gather(comm->core, sendbuff, recvbuff, sendcount, type, nccl_sync, stream));
}

SIM_EXPORT ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype,
                                 int peer, ncclComm_t comm, cudaStream_t stream)
{
    NCCL_ENTER("ncclSend");
    NCCL_COMM("ncclSend", comm);
    NCCL_TYPE(datatype, type);
    NCCL_BUFFER("ncclSend", "sendbuff", sendbuff, nccl_bytes(count, type, 1), comm);
    return nccl_result(ccl_sim_send(comm->core, sendbuff, count, type, peer, nccl_sync, stream));
}

SIM_EXPORT ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
                                 ncclComm_t comm, cudaStream_t stream)
{
    NCCL_ENTER("ncclRecv");
    NCCL_COMM("ncclRecv", comm);
    NCCL_TYPE(datatype, type);
    NCCL_BUFFER("ncclRecv", "recvbuff", recvbuff, nccl_bytes(count, type, 1), comm);
    return nccl_result(ccl_sim_recv(comm->core, recvbuff, count, type, peer, nccl_sync, stream));
}

SIM_EXPORT ncclResult_t ncclGroupStart(void)
{
    NCCL_ENTER("ncclGroupStart");
    return nccl_result(ccl_sim_group_start());
}

SIM_EXPORT ncclResult_t ncclGroupEnd(void)
{
    /* An injected failure ends the group too (its calls are dropped). */
    int injected = sim_fault_hit("ncclGroupEnd");
    ccl_sim_clear_error();
    nccl_last_error[0] = '\0';
    if (injected != 0) {
        ccl_sim_group_abort();
        return injected;
    }
    return nccl_result(ccl_sim_group_end());
}
