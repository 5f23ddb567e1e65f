/* engine.c: the mpi engine (engine.h) over Open MPI, for host memory: the
 * cpu backend, and any backend whose memory is host memory. Every collective
 * is MPI's non-blocking call (MPI_Iallreduce...) polled with MPI_Test against
 * the communicator's timeout, so a rank that leaves makes the others fail
 * instead of hang; after a timeout the communicator refuses further work
 * (the abandoned request may still write into the caller's buffers). A
 * communicator without a timeout (timeout_s infinite) uses MPI's blocking
 * calls instead: faster for small messages (Open MPI's non-blocking
 * collectives build a schedule per call), but a lost rank hangs it.
 * With a timeout every collective first checks, with one small all-reduce,
 * that all ranks make the same call (kind, count, dtype, op, root): MPI
 * leaves a mismatched collective undefined, and Open MPI 4's non-blocking
 * collectives then corrupt the heap or raise MPI_ERR_TRUNCATE on
 * MPI_COMM_WORLD, ending the job; a mismatch instead fails every rank with
 * DEVICE_ERROR and sends nothing (mpi_agree).
 * Point-to-point calls inside a group are deferred (per thread) and issued
 * together at group end. Each engine communicator is a duplicate of the
 * parent MPI communicator with MPI_ERRORS_RETURN, so MPI errors come back as
 * codes instead of aborting the job.
 * Threads: the layer holds the communicator's lock around every call; the
 * deferred group list is per thread. */
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm/engine.h"
#include "comm/mpi/loader.h"

/* dtype codes index these (and mpi_code_sizes); f16 and bf16 have no MPI
 * type in Open MPI 4 (the layer widens them to f32 for reductions). */
enum { MPI_CODE_F32, MPI_CODE_F64, MPI_CODE_U8, MPI_CODE_I32, MPI_CODE_I64, MPI_CODE_COUNT };
static const size_t mpi_code_sizes[MPI_CODE_COUNT] = {4, 8, 1, 4, 8};
enum { MPI_OP_SUM, MPI_OP_PROD, MPI_OP_MIN, MPI_OP_MAX };

typedef struct mpi_comm {
    accel_mpi_comm_t comm; /* our duplicate; freed by destroy */
    int rank;
    double timeout_s;
    bool blocking; /* no timeout: MPI's blocking calls (mpi_blocking) */
    bool broken;   /* a call timed out: refuse further work */
    char broken_reason[200];
} mpi_comm_t;

/* load() succeeded before any communicator exists (loader.h). */
static inline const accel_mpi_api_t *mpi_table(void)
{
    return &accel_mpi_table;
}

/* Switches rather than arrays of the table's handles: called on every
 * collective, they then cost a jump instead of building an array. */
static accel_mpi_datatype_t mpi_datatype(int code)
{
    const accel_mpi_api_t *api = mpi_table();
    switch (code) {
    case MPI_CODE_F32: return (accel_mpi_datatype_t)api->ompi_mpi_float;
    case MPI_CODE_F64: return (accel_mpi_datatype_t)api->ompi_mpi_double;
    case MPI_CODE_U8: return (accel_mpi_datatype_t)api->ompi_mpi_uint8_t;
    case MPI_CODE_I32: return (accel_mpi_datatype_t)api->ompi_mpi_int32_t;
    default: return (accel_mpi_datatype_t)api->ompi_mpi_int64_t;
    }
}

static accel_mpi_op_t mpi_op(int code)
{
    const accel_mpi_api_t *api = mpi_table();
    switch (code) {
    case MPI_OP_SUM: return (accel_mpi_op_t)api->ompi_mpi_op_sum;
    case MPI_OP_PROD: return (accel_mpi_op_t)api->ompi_mpi_op_prod;
    case MPI_OP_MIN: return (accel_mpi_op_t)api->ompi_mpi_op_min;
    default: return (accel_mpi_op_t)api->ompi_mpi_op_max;
    }
}

static accel_status_t mpi_fail(int rc, const char *what)
{
    char text[300];
    accel_mpi_error_text(mpi_table(), rc, text, sizeof text);
    return accel_backend_vendor_error(rc, "mpi: %s failed: %s", what, text);
}

static accel_status_t mpi_check_count(size_t count, const char *what)
{
    if (count > (size_t)INT_MAX)
        return accel_backend_error(ACCEL_ERROR_UNSUPPORTED,
                                   "mpi: %s of %zu elements exceeds MPI's int count (%d); split "
                                   "it into calls of at most %d elements",
                                   what, count, INT_MAX, INT_MAX);
    return ACCEL_OK;
}

static accel_status_t mpi_check_usable(const mpi_comm_t *c)
{
    if (c->broken)
        return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                                   "mpi: this communicator is unusable since %s; destroy it",
                                   c->broken_reason);
    return ACCEL_OK;
}

static double mpi_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* Poll `count` requests until all complete, an error, or the timeout.
 * The first millisecond spins on MPI_Test (as MPI's blocking calls do), then
 * the thread yields between tests, then sleeps 100 us: a collective that
 * waits for a slow rank does not burn a core for minutes. */
static accel_status_t mpi_wait_all(mpi_comm_t *const *comms, accel_mpi_request_t *requests,
                                   size_t count, double timeout_s, const char *what)
{
    const accel_mpi_api_t *api = mpi_table();
    double start = 0, now;
    size_t done = 0;
    accel_status_t status = ACCEL_OK;
    for (unsigned long spins = 1;; spins++) {
        for (size_t i = 0; i < count; i++) {
            int flag = 0, rc;
            if (requests[i] == NULL)
                continue;
            rc = api->MPI_Test(&requests[i], &flag, ACCEL_MPI_STATUS_IGNORE);
            if (rc != ACCEL_MPI_SUCCESS) {
                if (status == ACCEL_OK)
                    status = mpi_fail(rc, what);
                flag = 1;
            }
            if (flag) {
                requests[i] = NULL;
                done++;
            }
        }
        if (done == count)
            return status;
        if ((spins & 63) != 0)
            continue;
        if (spins == 64) /* the clock starts after the first 64 tests: fast calls never read it */
            start = mpi_now();
        now = mpi_now() - start;
        if (now > timeout_s)
            break;
        if (now > 0.1) {
            struct timespec pause = {0, 100000};
            nanosleep(&pause, NULL);
        } else if (now > 0.001) {
            sched_yield();
        }
    }
    /* Timed out: the requests cannot be cancelled (collectives never can), so
     * every communicator involved is marked unusable. */
    for (size_t i = 0; i < count; i++) {
        mpi_comm_t *c = comms[i];
        if (requests[i] == NULL || c->broken)
            continue;
        c->broken = true;
        snprintf(c->broken_reason, sizeof c->broken_reason,
                 "its %s timed out after %.3g s (ACCEL_COMM_TIMEOUT)", what, timeout_s);
    }
    return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                               "mpi: %s did not complete within %.3g s (ACCEL_COMM_TIMEOUT or the "
                               "communicator's timeout_s): a rank has left, failed or is not "
                               "calling it; this communicator now refuses further work",
                               what, timeout_s);
}

/* One request: its first tests in a loop of nothing else (a small message
 * completes within them, and the poll's own work is on its latency), then
 * mpi_wait_all's clock, pauses and timeout. */
static accel_status_t mpi_wait(mpi_comm_t *c, accel_mpi_request_t request, const char *what)
{
    const accel_mpi_api_t *api = mpi_table();
    for (int tests = 0; tests < 64; tests++) {
        int flag = 0, rc = api->MPI_Test(&request, &flag, ACCEL_MPI_STATUS_IGNORE);
        if (rc != ACCEL_MPI_SUCCESS)
            return mpi_fail(rc, what);
        if (flag)
            return ACCEL_OK;
    }
    return mpi_wait_all(&c, &request, 1, c->timeout_s, what);
}

/* No timeout: MPI's blocking collectives (cached in c->blocking). */
static bool mpi_blocking(const mpi_comm_t *c)
{
    return c->blocking;
}

/* The end of a blocking call (`what` is the MPI function) or of a started
 * non-blocking one (its request is waited for). */
static accel_status_t mpi_finish(mpi_comm_t *c, int rc, bool blocking, const char *function,
                                 accel_mpi_request_t request, const char *what)
{
    if (rc != ACCEL_MPI_SUCCESS)
        return mpi_fail(rc, function);
    return blocking ? ACCEL_OK : mpi_wait(c, request, what);
}

/* What mpi_agree compares besides count, dtype, op and root. */
enum {
    MPI_CALL_ALL_REDUCE = 1,
    MPI_CALL_ALL_GATHER,
    MPI_CALL_REDUCE_SCATTER,
    MPI_CALL_BROADCAST,
    MPI_CALL_REDUCE,
    MPI_CALL_BARRIER
};

/* Before a non-blocking collective: do all ranks make this same call? One
 * all-reduce (MIN) of each signature word and of its negation gives every
 * rank the smallest and the largest of each word, so every rank reaches the
 * same answer; on a mismatch all of them return DEVICE_ERROR, nothing of
 * the call is sent, and the communicator stays usable. A missing rank still
 * times out here. `op` and `root` are -1 where the call has none. */
static accel_status_t mpi_agree(mpi_comm_t *c, const char *what, int call, size_t count, int dtype,
                                int op, int root)
{
    const accel_mpi_api_t *api = mpi_table();
    int64_t shape = (int64_t)call | (int64_t)(dtype + 1) << 8 | (int64_t)(op + 1) << 16 |
                    (int64_t)(root + 1) << 24; /* root < INT_MAX: below 2^56 */
    int64_t mine[4] = {(int64_t)count, shape, -(int64_t)count, -shape}, low[4] = {0};
    accel_mpi_request_t request = NULL;
    int rc = api->MPI_Iallreduce(mine, low, 4, (accel_mpi_datatype_t)api->ompi_mpi_int64_t,
                                 (accel_mpi_op_t)api->ompi_mpi_op_min, c->comm, &request);
    if (rc != ACCEL_MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Iallreduce (checking that the ranks agree)");
    accel_status_t status = mpi_wait(c, request, what);
    if (status != ACCEL_OK)
        return status;
    if (low[0] == -low[2] && low[1] == -low[3])
        return ACCEL_OK;
    return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR,
                               "mpi: %s: the ranks disagree about this call (here %zu elements of "
                               "%zu bytes; across the ranks the counts run from %lld to %lld%s): "
                               "every rank must make the same collective with the same count, "
                               "dtype, op and root; nothing was sent and the communicator stays "
                               "usable",
                               what, count, dtype >= 0 ? mpi_code_sizes[dtype] : (size_t)0,
                               (long long)low[0], (long long)-low[2],
                               low[1] == -low[3] ? "" : ", and the kind, dtype, op or root differ");
}

/* ---------------------------------------------------------------- load, init, destroy */

static accel_status_t mpi_engine_load(char *detail, size_t detail_cap)
{
    char reason[400];
    const accel_mpi_api_t *api = accel_mpi_api(reason, sizeof reason);
    if (api == NULL) {
        if (detail != NULL && detail_cap > 0)
            snprintf(detail, detail_cap, "%s", reason);
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "mpi: %s", reason);
    }
    if (detail != NULL && detail_cap > 0) {
        snprintf(detail, detail_cap, "libmpi loaded: %s", api->version);
    }
    return ACCEL_OK;
}

/* Our duplicate of `parent`, errors returned as codes, after a barrier with
 * the timeout so that a missing rank fails instead of hanging in the
 * (blocking) MPI_Comm_dup / MPI_Comm_split. */
static accel_status_t mpi_comm_make(mpi_comm_t *parent_comm, int color, bool split, int key,
                                    mpi_comm_t **out)
{
    const accel_mpi_api_t *api = mpi_table();
    accel_mpi_comm_t parent = parent_comm->comm;
    double timeout_s = parent_comm->timeout_s;
    accel_mpi_request_t request = NULL;
    accel_mpi_comm_t made = NULL;
    int rc;
    *out = NULL;
    rc = api->MPI_Ibarrier(parent, &request);
    if (rc != ACCEL_MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Ibarrier");
    accel_status_t status =
        mpi_wait(parent_comm, request, split ? "split" : "communicator creation");
    if (status != ACCEL_OK)
        return status;
    rc = split ? api->MPI_Comm_split(parent, color, key, &made) : api->MPI_Comm_dup(parent, &made);
    if (rc != ACCEL_MPI_SUCCESS)
        return mpi_fail(rc, split ? "MPI_Comm_split" : "MPI_Comm_dup");
    if (made == (accel_mpi_comm_t)api->ompi_mpi_comm_null)
        return ACCEL_OK; /* split with MPI_UNDEFINED */
    mpi_comm_t *c = calloc(1, sizeof *c);
    if (c == NULL) {
        api->MPI_Comm_free(&made);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "mpi: out of memory");
    }
    c->comm = made;
    c->timeout_s = timeout_s;
    c->blocking = isinf(timeout_s);
    rc = api->MPI_Comm_set_errhandler(made, (accel_mpi_errhandler_t)api->ompi_mpi_errors_return);
    if (rc == ACCEL_MPI_SUCCESS)
        rc = api->MPI_Comm_rank(made, &c->rank);
    if (rc != ACCEL_MPI_SUCCESS) {
        api->MPI_Comm_free(&made);
        free(c);
        return mpi_fail(rc, "MPI_Comm_set_errhandler");
    }
    *out = c;
    return ACCEL_OK;
}

static accel_status_t mpi_engine_destroy(void *comm);

static accel_status_t mpi_engine_init_world(const accel_comm_engine_ctx_t *ctx,
                                            const void *mpi_comm, void **out_comm, int *out_rank,
                                            int *out_size)
{
    const accel_mpi_api_t *api = mpi_table();
    accel_mpi_comm_t parent = mpi_comm != NULL ? *(const accel_mpi_comm_t *)mpi_comm
                                               : (accel_mpi_comm_t)api->ompi_mpi_comm_world;
    mpi_comm_t *c, *parent_comm;
    accel_status_t status = accel_mpi_ensure_initialised(api, mpi_comm != NULL);
    if (status != ACCEL_OK)
        return status;
    if (parent == NULL || parent == (accel_mpi_comm_t)api->ompi_mpi_comm_null)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "mpi: the MPI_Comm given is MPI_COMM_NULL");
    /* The caller's communicator, wrapped only to wait on it with the timeout. */
    parent_comm = calloc(1, sizeof *parent_comm);
    if (parent_comm == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "mpi: out of memory");
    parent_comm->comm = parent;
    parent_comm->timeout_s = ctx->timeout_s;
    parent_comm->blocking = isinf(ctx->timeout_s);
    status = mpi_comm_make(parent_comm, 0, false, 0, &c);
    free(parent_comm);
    if (status != ACCEL_OK)
        return status;
    int rc = api->MPI_Comm_size(c->comm, out_size);
    if (rc != ACCEL_MPI_SUCCESS) {
        mpi_engine_destroy(c);
        return mpi_fail(rc, "MPI_Comm_size");
    }
    *out_rank = c->rank;
    *out_comm = c;
    return ACCEL_OK;
}

static accel_status_t mpi_engine_split(void *comm, int color, int key, void **out_comm)
{
    mpi_comm_t *c = comm, *made = NULL;
    accel_status_t status = mpi_check_usable(c);
    if (status != ACCEL_OK)
        return status;
    status = mpi_comm_make(c, color == ACCEL_COMM_SPLIT_NONE ? ACCEL_MPI_UNDEFINED : color, true,
                           key, &made);
    *out_comm = made;
    return status;
}

static accel_status_t mpi_engine_destroy(void *comm)
{
    mpi_comm_t *c = comm;
    /* A timed-out communicator still has a request in flight: freeing the
     * MPI communicator under it is not allowed, so it is left to MPI. */
    int rc = c->broken ? ACCEL_MPI_SUCCESS : mpi_table()->MPI_Comm_free(&c->comm);
    free(c);
    return rc == ACCEL_MPI_SUCCESS ? ACCEL_OK : mpi_fail(rc, "MPI_Comm_free");
}

/* ---------------------------------------------------------------- collectives */

static bool mpi_overlap(const void *a, size_t a_size, const void *b, size_t b_size)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return a_size > 0 && b_size > 0 && x < y + b_size && y < x + a_size;
}

/* Everything but a blocking call on a usable communicator. */
static __attribute__((noinline)) accel_status_t
mpi_all_reduce_checked(mpi_comm_t *c, const void *in, void *recv, size_t count, int dtype, int op)
{
    accel_mpi_request_t request = NULL;
    accel_status_t status = mpi_check_usable(c);
    if (status == ACCEL_OK)
        status = mpi_check_count(count, "all_reduce");
    if (status == ACCEL_OK && !c->blocking)
        status = mpi_agree(c, "all_reduce", MPI_CALL_ALL_REDUCE, count, dtype, op, -1);
    if (status != ACCEL_OK)
        return status;
    int rc = c->blocking ? mpi_table()->MPI_Allreduce(in, recv, (int)count, mpi_datatype(dtype),
                                                      mpi_op(op), c->comm)
                         : mpi_table()->MPI_Iallreduce(in, recv, (int)count, mpi_datatype(dtype),
                                                       mpi_op(op), c->comm, &request);
    return mpi_finish(c, rc, c->blocking, c->blocking ? "MPI_Allreduce" : "MPI_Iallreduce", request,
                      "all_reduce");
}

/* The collective most loops repeat: its blocking case (a communicator
 * without timeout) is a few instructions around MPI_Allreduce, most of what
 * accel adds to an 8-byte one (docs/comm.md, "Cost per call"). */
static accel_status_t mpi_engine_all_reduce(void *comm, const void *send, void *recv, size_t count,
                                            int dtype, int op, void *stream)
{
    mpi_comm_t *c = comm;
    const void *in = send == recv ? ACCEL_MPI_IN_PLACE : send;
    (void)stream;
    if (!c->blocking || c->broken || count > (size_t)INT_MAX)
        return mpi_all_reduce_checked(c, in, recv, count, dtype, op);
    int rc =
        mpi_table()->MPI_Allreduce(in, recv, (int)count, mpi_datatype(dtype), mpi_op(op), c->comm);
    return rc == ACCEL_MPI_SUCCESS ? ACCEL_OK : mpi_fail(rc, "MPI_Allreduce");
}

static accel_status_t mpi_engine_all_gather(void *comm, const void *send, void *recv,
                                            size_t send_count, int dtype, void *stream)
{
    mpi_comm_t *c = comm;
    accel_mpi_request_t request = NULL;
    size_t block = send_count * mpi_code_sizes[dtype];
    (void)stream;
    accel_status_t status = mpi_check_usable(c);
    if (status == ACCEL_OK)
        status = mpi_check_count(send_count, "all_gather");
    if (status == ACCEL_OK && !mpi_blocking(c))
        status = mpi_agree(c, "all_gather", MPI_CALL_ALL_GATHER, send_count, dtype, -1, -1);
    if (status != ACCEL_OK)
        return status;
    /* In place (NCCL's rule): send is this rank's block of recv. */
    if (send == (const char *)recv + (size_t)c->rank * block)
        send = ACCEL_MPI_IN_PLACE;
    bool blocking = mpi_blocking(c);
    accel_mpi_datatype_t type = mpi_datatype(dtype);
    int rc = blocking ? mpi_table()->MPI_Allgather(send, (int)send_count, type, recv,
                                                   (int)send_count, type, c->comm)
                      : mpi_table()->MPI_Iallgather(send, (int)send_count, type, recv,
                                                    (int)send_count, type, c->comm, &request);
    return mpi_finish(c, rc, blocking, blocking ? "MPI_Allgather" : "MPI_Iallgather", request,
                      "all_gather");
}

static accel_status_t mpi_engine_reduce_scatter(void *comm, const void *send, void *recv,
                                                size_t recv_count, int dtype, int op, void *stream)
{
    mpi_comm_t *c = comm;
    accel_mpi_request_t request = NULL;
    size_t bytes = recv_count * mpi_code_sizes[dtype];
    int size = 0;
    void *target = recv;
    (void)stream;
    accel_status_t status = mpi_check_usable(c);
    if (status == ACCEL_OK)
        status = mpi_check_count(recv_count, "reduce_scatter");
    if (status == ACCEL_OK && !mpi_blocking(c))
        status = mpi_agree(c, "reduce_scatter", MPI_CALL_REDUCE_SCATTER, recv_count, dtype, op, -1);
    if (status != ACCEL_OK)
        return status;
    int rc = mpi_table()->MPI_Comm_size(c->comm, &size);
    if (rc != ACCEL_MPI_SUCCESS)
        return mpi_fail(rc, "MPI_Comm_size");
    /* MPI forbids aliased buffers (its in-place layout differs from NCCL's):
     * an overlapping recv gets the result through a scratch copy. */
    if (mpi_overlap(send, bytes * (size_t)size, recv, bytes)) {
        target = malloc(bytes);
        if (target == NULL)
            return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                       "mpi: out of memory for reduce_scatter's %zu-byte scratch",
                                       bytes);
    }
    bool blocking = mpi_blocking(c);
    rc = blocking ? mpi_table()->MPI_Reduce_scatter_block(send, target, (int)recv_count,
                                                          mpi_datatype(dtype), mpi_op(op), c->comm)
                  : mpi_table()->MPI_Ireduce_scatter_block(send, target, (int)recv_count,
                                                           mpi_datatype(dtype), mpi_op(op), c->comm,
                                                           &request);
    status = mpi_finish(c, rc, blocking,
                        blocking ? "MPI_Reduce_scatter_block" : "MPI_Ireduce_scatter_block",
                        request, "reduce_scatter");
    if (target != recv) {
        if (status == ACCEL_OK)
            memcpy(recv, target, bytes);
        if (!c->broken) /* MPI may still write into it after a timeout */
            free(target);
    }
    return status;
}

static accel_status_t mpi_engine_broadcast(void *comm, const void *send, void *recv, size_t count,
                                           int dtype, int root, void *stream)
{
    mpi_comm_t *c = comm;
    accel_mpi_request_t request = NULL;
    (void)stream;
    accel_status_t status = mpi_check_usable(c);
    if (status == ACCEL_OK)
        status = mpi_check_count(count, "broadcast");
    if (status == ACCEL_OK && !mpi_blocking(c))
        status = mpi_agree(c, "broadcast", MPI_CALL_BROADCAST, count, dtype, -1, root);
    if (status != ACCEL_OK)
        return status;
    if (c->rank == root && send != recv)
        memmove(recv, send, count * mpi_code_sizes[dtype]);
    bool blocking = mpi_blocking(c);
    int rc = blocking ? mpi_table()->MPI_Bcast(recv, (int)count, mpi_datatype(dtype), root, c->comm)
                      : mpi_table()->MPI_Ibcast(recv, (int)count, mpi_datatype(dtype), root,
                                                c->comm, &request);
    return mpi_finish(c, rc, blocking, blocking ? "MPI_Bcast" : "MPI_Ibcast", request, "broadcast");
}

static accel_status_t mpi_engine_reduce(void *comm, const void *send, void *recv, size_t count,
                                        int dtype, int op, int root, void *stream)
{
    mpi_comm_t *c = comm;
    accel_mpi_request_t request = NULL;
    (void)stream;
    accel_status_t status = mpi_check_usable(c);
    if (status == ACCEL_OK)
        status = mpi_check_count(count, "reduce");
    if (status == ACCEL_OK && !mpi_blocking(c))
        status = mpi_agree(c, "reduce", MPI_CALL_REDUCE, count, dtype, op, root);
    if (status != ACCEL_OK)
        return status;
    if (c->rank == root && send == recv)
        send = ACCEL_MPI_IN_PLACE;
    bool blocking = mpi_blocking(c);
    int rc = blocking ? mpi_table()->MPI_Reduce(send, recv, (int)count, mpi_datatype(dtype),
                                                mpi_op(op), root, c->comm)
                      : mpi_table()->MPI_Ireduce(send, recv, (int)count, mpi_datatype(dtype),
                                                 mpi_op(op), root, c->comm, &request);
    return mpi_finish(c, rc, blocking, blocking ? "MPI_Reduce" : "MPI_Ireduce", request, "reduce");
}

static accel_status_t mpi_engine_barrier(void *comm, void *stream)
{
    mpi_comm_t *c = comm;
    accel_mpi_request_t request = NULL;
    (void)stream;
    accel_status_t status = mpi_check_usable(c);
    if (status == ACCEL_OK && !mpi_blocking(c))
        status = mpi_agree(c, "barrier", MPI_CALL_BARRIER, 0, -1, -1, -1);
    if (status != ACCEL_OK)
        return status;
    bool blocking = mpi_blocking(c);
    int rc =
        blocking ? mpi_table()->MPI_Barrier(c->comm) : mpi_table()->MPI_Ibarrier(c->comm, &request);
    return mpi_finish(c, rc, blocking, blocking ? "MPI_Barrier" : "MPI_Ibarrier", request,
                      "barrier");
}

/* ---------------------------------------------------------------- point to point and groups */

typedef struct mpi_p2p {
    mpi_comm_t *comm;
    bool is_send;
    void *buf;
    int count;
    int dtype;
    int peer;
} mpi_p2p_t;

/* The calling thread's deferred sends and receives while a group is open. */
static _Thread_local struct {
    bool open;
    mpi_p2p_t *items;
    size_t count, capacity;
} mpi_group;

static accel_status_t mpi_p2p_issue(const mpi_p2p_t *items, size_t count)
{
    const accel_mpi_api_t *api = mpi_table();
    accel_mpi_request_t *requests = calloc(count ? count : 1, sizeof *requests);
    mpi_comm_t **comms = calloc(count ? count : 1, sizeof *comms);
    accel_status_t status = ACCEL_OK;
    double timeout_s = 0;
    size_t issued = 0;
    if (requests == NULL || comms == NULL) {
        free(requests);
        free(comms);
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "mpi: out of memory for a group");
    }
    for (; issued < count; issued++) {
        const mpi_p2p_t *p = &items[issued];
        int rc;
        status = mpi_check_usable(p->comm);
        if (status != ACCEL_OK)
            break;
        rc = p->is_send ? api->MPI_Isend(p->buf, p->count, mpi_datatype(p->dtype), p->peer, 0,
                                         p->comm->comm, &requests[issued])
                        : api->MPI_Irecv(p->buf, p->count, mpi_datatype(p->dtype), p->peer, 0,
                                         p->comm->comm, &requests[issued]);
        if (rc != ACCEL_MPI_SUCCESS) {
            status = mpi_fail(rc, p->is_send ? "MPI_Isend" : "MPI_Irecv");
            break;
        }
        comms[issued] = p->comm;
        if (p->comm->timeout_s > timeout_s)
            timeout_s = p->comm->timeout_s;
    }
    /* What was issued is waited for even after a failure to issue the rest,
     * so no request outlives the call unless it timed out. */
    accel_status_t waited = issued > 0
                                ? mpi_wait_all(comms, requests, issued, timeout_s,
                                               count == 1 ? (items[0].is_send ? "send" : "recv")
                                                          : "group of sends and receives")
                                : ACCEL_OK;
    free(requests);
    free(comms);
    return status != ACCEL_OK ? status : waited;
}

static accel_status_t mpi_p2p(void *comm, const void *buf, size_t count, int dtype, int peer,
                              bool is_send)
{
    mpi_comm_t *c = comm;
    mpi_p2p_t item = {c, is_send, (void *)buf, (int)count, dtype, peer};
    accel_status_t status = mpi_check_usable(c);
    if (status == ACCEL_OK)
        status = mpi_check_count(count, is_send ? "send" : "recv");
    if (status != ACCEL_OK)
        return status;
    if (!mpi_group.open)
        return mpi_p2p_issue(&item, 1);
    if (mpi_group.count == mpi_group.capacity) {
        size_t capacity = mpi_group.capacity ? mpi_group.capacity * 2 : 16;
        mpi_p2p_t *grown = realloc(mpi_group.items, capacity * sizeof *grown);
        if (grown == NULL)
            return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                       "mpi: out of memory deferring a group's call");
        mpi_group.items = grown;
        mpi_group.capacity = capacity;
    }
    mpi_group.items[mpi_group.count++] = item;
    return ACCEL_OK;
}

static accel_status_t mpi_engine_send(void *comm, const void *buf, size_t count, int dtype,
                                      int peer, void *stream)
{
    (void)stream;
    return mpi_p2p(comm, buf, count, dtype, peer, true);
}

static accel_status_t mpi_engine_recv(void *comm, void *buf, size_t count, int dtype, int peer,
                                      void *stream)
{
    (void)stream;
    return mpi_p2p(comm, buf, count, dtype, peer, false);
}

static accel_status_t mpi_engine_group_start(void)
{
    mpi_group.open = true;
    mpi_group.count = 0;
    return ACCEL_OK;
}

static accel_status_t mpi_engine_group_end(void)
{
    accel_status_t status =
        mpi_group.count > 0 ? mpi_p2p_issue(mpi_group.items, mpi_group.count) : ACCEL_OK;
    free(mpi_group.items);
    mpi_group.items = NULL;
    mpi_group.count = mpi_group.capacity = 0;
    mpi_group.open = false;
    return status;
}

static const char *const mpi_backends[] = {"*", NULL};

const accel_comm_engine_t accel_comm_engine_mpi = {
    .name = "mpi",
    .kind = ACCEL_COMM_ENGINE_HOST,
    .backends = mpi_backends,
    .load = mpi_engine_load,
    .dtype_codes =
        {
            [ACCEL_DTYPE_F32] = MPI_CODE_F32,
            [ACCEL_DTYPE_F16] = ACCEL_COMM_NO_CODE,
            [ACCEL_DTYPE_BF16] = ACCEL_COMM_NO_CODE,
            [ACCEL_DTYPE_F64] = MPI_CODE_F64,
            [ACCEL_DTYPE_U8] = MPI_CODE_U8,
            [ACCEL_DTYPE_I32] = MPI_CODE_I32,
            [ACCEL_DTYPE_I64] = MPI_CODE_I64,
        },
    .op_codes =
        {
            [ACCEL_REDUCE_SUM] = MPI_OP_SUM,
            [ACCEL_REDUCE_PROD] = MPI_OP_PROD,
            [ACCEL_REDUCE_MIN] = MPI_OP_MIN,
            [ACCEL_REDUCE_MAX] = MPI_OP_MAX,
            [ACCEL_REDUCE_AVG] = ACCEL_COMM_NO_CODE,
        },
    .unique_id_size = 0,
    .rendezvous_env = NULL,
    .unique_id = NULL,
    .init = NULL,
    .init_world = mpi_engine_init_world,
    .split = mpi_engine_split,
    .destroy = mpi_engine_destroy,
    .all_reduce = mpi_engine_all_reduce,
    .all_gather = mpi_engine_all_gather,
    .reduce_scatter = mpi_engine_reduce_scatter,
    .broadcast = mpi_engine_broadcast,
    .broadcast_in_place_only = false,
    .reduce = mpi_engine_reduce,
    .send = mpi_engine_send,
    .recv = mpi_engine_recv,
    .barrier = mpi_engine_barrier,
    .group_start = mpi_engine_group_start,
    .group_end = mpi_engine_group_end,
};
