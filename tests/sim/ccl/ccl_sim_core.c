/* ccl_sim_core.c: communicators, collectives and groups of the simulated
 * CCL libraries over MPI (ccl_sim.h says the model). Ownership: a
 * communicator is malloc'ed by ccl_sim_comm_init and freed by
 * ccl_sim_comm_free, with the MPI communicator it holds; a group's recorded
 * operations are owned by the calling thread until group_end runs them.
 * Threads: the id serial is atomic; groups and the last error are per
 * thread; a communicator is used by one thread at a time. */
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ccl_sim.h"

struct ccl_sim_comm {
    MPI_Comm mpi;
    int rank, size, device;
};

static _Thread_local char sim_last_error[256];

const char *ccl_sim_last_error(void)
{
    return sim_last_error;
}

void ccl_sim_clear_error(void)
{
    sim_last_error[0] = '\0';
}

static ccl_sim_status_t sim_fail(ccl_sim_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ccl_sim_status_t sim_fail(ccl_sim_status_t status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(sim_last_error, sizeof sim_last_error, fmt, args);
    va_end(args);
    return status;
}

ccl_sim_status_t ccl_sim_refuse(ccl_sim_status_t status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(sim_last_error, sizeof sim_last_error, fmt, args);
    va_end(args);
    return status;
}

static ccl_sim_status_t sim_mpi(int code, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (code == MPI_SUCCESS)
        return CCL_SIM_OK;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", code);
    return sim_fail(CCL_SIM_INTERNAL, "sim: %s failed: %s", what, text);
}

static ccl_sim_status_t sim_need_mpi(void)
{
    int initialised = 0, finalised = 0;
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    if (!initialised || finalised)
        return sim_fail(CCL_SIM_USAGE, "sim: MPI is not initialised: the simulated CCL libraries "
                                       "move data with MPI (run under mpirun, MPI_Init first)");
    return CCL_SIM_OK;
}

/* Bytes of `count` elements as an MPI count, or INVALID. */
static ccl_sim_status_t sim_bytes(size_t count, ccl_sim_type_t type, size_t factor, int *out)
{
    size_t size = ccl_sim_type_size(type);
    if (size == 0)
        return sim_fail(CCL_SIM_INVALID, "sim: unknown element type %d", (int)type);
    if (count > (size_t)INT_MAX / size / (factor > 0 ? factor : 1))
        return sim_fail(CCL_SIM_INVALID, "sim: %zu elements exceed what the sim moves at once",
                        count);
    *out = (int)(count * size * factor);
    return CCL_SIM_OK;
}

/* ---------------------------------------------------------------- ids and communicators */

typedef struct sim_id {
    uint32_t magic;
    int32_t creator; /* world rank */
    uint32_t serial;
    uint32_t reserved;
} sim_id_t;

#define SIM_ID_MAGIC    0x4c43434dU /* "MCCL" */
#define SIM_ID_AT_MAGIC 0x41434d43U /* "CMCA": derived from an address, no creator */
_Static_assert(sizeof(sim_id_t) == CCL_SIM_ID_BYTES, "id layout");

static atomic_uint sim_serial;

ccl_sim_status_t ccl_sim_unique_id(void *id, size_t size)
{
    sim_id_t head = {SIM_ID_MAGIC, 0, 0, 0};
    ccl_sim_status_t status = sim_need_mpi();
    if (status != CCL_SIM_OK)
        return status;
    if (id == NULL || size < sizeof head)
        return sim_fail(CCL_SIM_INVALID, "sim: no room for a unique id");
    MPI_Comm_rank(MPI_COMM_WORLD, &head.creator);
    head.serial = atomic_fetch_add(&sim_serial, 1) + 1;
    memset(id, 0, size);
    memcpy(id, &head, sizeof head);
    return CCL_SIM_OK;
}

ccl_sim_status_t ccl_sim_unique_id_at(const char *address, void *id, size_t size)
{
    sim_id_t head = {SIM_ID_AT_MAGIC, -1, 2166136261U, 0};
    if (address == NULL || id == NULL || size < sizeof head)
        return sim_fail(CCL_SIM_INVALID, "sim: no address or no room for a unique id");
    for (const char *c = address; *c != '\0'; c++) /* FNV-1a of the address */
        head.serial = (head.serial ^ (unsigned char)*c) * 16777619U;
    memset(id, 0, size);
    memcpy(id, &head, sizeof head);
    return CCL_SIM_OK;
}

/* Join the communicator of an address-derived id (ccl_sim_unique_id_at):
 * every process of the job says its CCL rank and the id it holds. */
static ccl_sim_status_t sim_comm_init_at(const sim_id_t *id, int nranks, int rank,
                                         ccl_sim_comm_t *comm)
{
    int world_size, mine[2] = {rank, (int)id->serial}, *all, *seen;
    ccl_sim_status_t status;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (nranks != world_size)
        return sim_fail(CCL_SIM_INVALID,
                        "sim: an id derived from a rendezvous address spans the whole MPI job "
                        "(%d processes), not %d ranks",
                        world_size, nranks);
    all = malloc(sizeof *all * 2 * (size_t)nranks);
    seen = calloc((size_t)nranks, sizeof *seen);
    if (all == NULL || seen == NULL) {
        free(all);
        free(seen);
        return sim_fail(CCL_SIM_INTERNAL, "sim: out of memory");
    }
    status = sim_mpi(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD),
                     "MPI_Allgather (joining at an address)");
    for (int w = 0; w < world_size && status == CCL_SIM_OK; w++) {
        if (all[2 * w + 1] != all[1])
            status = sim_fail(CCL_SIM_INVALID,
                              "sim: processes 0 and %d derived different unique ids (%08x, %08x) "
                              "from their rendezvous addresses: they would never meet",
                              w, (unsigned)all[1], (unsigned)all[2 * w + 1]);
        else if (seen[all[2 * w]]++ > 0)
            status = sim_fail(CCL_SIM_INVALID, "sim: two processes joined as rank %d", all[2 * w]);
    }
    if (status == CCL_SIM_OK)
        status = sim_mpi(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &comm->mpi), "MPI_Comm_split");
    free(seen);
    free(all);
    return status;
}

static int sim_tag(const sim_id_t *id, int which)
{
    return CCL_SIM_TAG_BASE + (int)(id->serial % 1024) * 2 + which;
}

static double sim_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* Receive into `buffer` (`count` ints from `source`, `tag`) until
 * `deadline` (sim_now's clock; 0: no deadline). At the deadline the receive
 * is cancelled: TIMEOUT, unless it completed meanwhile. */
static ccl_sim_status_t sim_recv_by(int *buffer, int count, int source, int tag, double deadline)
{
    MPI_Request request;
    MPI_Status status;
    int done = 0, cancelled = 0;
    ccl_sim_status_t result = sim_mpi(
        MPI_Irecv(buffer, count, MPI_INT, source, tag, MPI_COMM_WORLD, &request), "MPI_Irecv");
    while (result == CCL_SIM_OK && !done) {
        result = sim_mpi(MPI_Test(&request, &done, &status), "MPI_Test");
        if (result != CCL_SIM_OK || done)
            break;
        if (deadline > 0 && sim_now() >= deadline) {
            MPI_Cancel(&request);
            MPI_Wait(&request, &status);
            MPI_Test_cancelled(&status, &cancelled);
            if (cancelled)
                return CCL_SIM_TIMEOUT;
            break; /* it arrived as it was being cancelled */
        }
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    return result;
}

ccl_sim_status_t ccl_sim_comm_init(const void *id_bytes, int nranks, int rank, int device,
                                   ccl_sim_comm_t **out)
{
    return ccl_sim_comm_init_within(id_bytes, nranks, rank, device, 0, NULL, out);
}

ccl_sim_status_t ccl_sim_comm_init_within(const void *id_bytes, int nranks, int rank, int device,
                                          double timeout_s, const char *source,
                                          ccl_sim_comm_t **out)
{
    double deadline = timeout_s > 0 && isfinite(timeout_s) ? sim_now() + timeout_s : 0;
    int joined = 1;
    sim_id_t id;
    int world_rank, world_size, *table = NULL;
    MPI_Group world_group, group;
    ccl_sim_comm_t *comm;
    ccl_sim_status_t status = sim_need_mpi();
    if (status != CCL_SIM_OK)
        return status;
    if (id_bytes == NULL || out == NULL)
        return sim_fail(CCL_SIM_INVALID, "sim: NULL id or communicator");
    memcpy(&id, id_bytes, sizeof id);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (nranks < 1 || nranks > world_size || rank < 0 || rank >= nranks)
        return sim_fail(CCL_SIM_INVALID, "sim: rank %d of %d ranks (the MPI job has %d)", rank,
                        nranks, world_size);
    if (id.magic == SIM_ID_AT_MAGIC) {
        comm = calloc(1, sizeof *comm);
        if (comm == NULL)
            return sim_fail(CCL_SIM_INTERNAL, "sim: out of memory");
        status = sim_comm_init_at(&id, nranks, rank, comm);
        if (status != CCL_SIM_OK) {
            free(comm);
            return status;
        }
        *comm = (ccl_sim_comm_t){comm->mpi, rank, nranks, device};
        *out = comm;
        return CCL_SIM_OK;
    }
    if (id.magic != SIM_ID_MAGIC || id.creator < 0 || id.creator >= world_size)
        return sim_fail(CCL_SIM_INVALID, "sim: the unique id was not made by this sim");
    if ((rank == 0) != (world_rank == id.creator))
        return sim_fail(CCL_SIM_USAGE, "sim: rank 0 must be the process that made the unique id");
    table = malloc(sizeof *table * (size_t)nranks);
    comm = calloc(1, sizeof *comm);
    if (table == NULL || comm == NULL) {
        free(table);
        free(comm);
        return sim_fail(CCL_SIM_INTERNAL, "sim: out of memory");
    }
    /* Every member tells the creator its world rank; the creator answers
     * with the whole table. (The sends are a few ints: MPI sends them
     * eagerly, so they never wait for the receiver.) */
    if (rank == 0) {
        table[0] = world_rank;
        for (int i = 1; i < nranks && status == CCL_SIM_OK; i++) {
            int hello[2];
            status = sim_recv_by(hello, 2, MPI_ANY_SOURCE, sim_tag(&id, 0), deadline);
            if (status == CCL_SIM_OK && (hello[0] <= 0 || hello[0] >= nranks))
                status = sim_fail(CCL_SIM_INVALID, "sim: a member joined as rank %d of %d",
                                  hello[0], nranks);
            if (status == CCL_SIM_OK) {
                table[hello[0]] = hello[1];
                joined++;
            }
        }
        if (status == CCL_SIM_TIMEOUT)
            sim_fail(status,
                     "sim: rank 0: only %d of %d ranks joined the communicator within %g s (%s); "
                     "the others never came",
                     joined, nranks, timeout_s, source != NULL ? source : "the connect timeout");
        for (int i = 1; i < nranks && status == CCL_SIM_OK; i++)
            status =
                sim_mpi(MPI_Send(table, nranks, MPI_INT, table[i], sim_tag(&id, 1), MPI_COMM_WORLD),
                        "MPI_Send (joining)");
    } else {
        int hello[2] = {rank, world_rank};
        status = sim_mpi(MPI_Send(hello, 2, MPI_INT, id.creator, sim_tag(&id, 0), MPI_COMM_WORLD),
                         "MPI_Send (joining)");
        if (status == CCL_SIM_OK)
            status = sim_recv_by(table, nranks, id.creator, sim_tag(&id, 1), deadline);
        if (status == CCL_SIM_TIMEOUT)
            sim_fail(status,
                     "sim: rank %d: rank 0 did not complete the communicator of %d ranks within "
                     "%g s (%s): a rank never joined",
                     rank, nranks, timeout_s, source != NULL ? source : "the connect timeout");
    }
    if (status == CCL_SIM_OK) {
        MPI_Comm_group(MPI_COMM_WORLD, &world_group);
        MPI_Group_incl(world_group, nranks, table, &group);
        status = sim_mpi(MPI_Comm_create_group(MPI_COMM_WORLD, group, sim_tag(&id, 0), &comm->mpi),
                         "MPI_Comm_create_group");
        MPI_Group_free(&group);
        MPI_Group_free(&world_group);
    }
    free(table);
    if (status != CCL_SIM_OK) {
        free(comm);
        return status;
    }
    comm->rank = rank;
    comm->size = nranks;
    comm->device = device;
    *out = comm;
    return CCL_SIM_OK;
}

ccl_sim_status_t ccl_sim_comm_split(ccl_sim_comm_t *parent, int color, int key, int device,
                                    ccl_sim_comm_t **out)
{
    MPI_Comm made = MPI_COMM_NULL;
    ccl_sim_comm_t *comm;
    ccl_sim_status_t status;
    if (parent == NULL || out == NULL)
        return sim_fail(CCL_SIM_INVALID, "sim: NULL communicator");
    *out = NULL;
    status = sim_mpi(MPI_Comm_split(parent->mpi, color < 0 ? MPI_UNDEFINED : color, key, &made),
                     "MPI_Comm_split (split)");
    if (status != CCL_SIM_OK || made == MPI_COMM_NULL)
        return status;
    if ((comm = calloc(1, sizeof *comm)) == NULL) {
        MPI_Comm_free(&made);
        return sim_fail(CCL_SIM_INTERNAL, "sim: out of memory");
    }
    comm->mpi = made;
    comm->device = device;
    MPI_Comm_rank(made, &comm->rank);
    MPI_Comm_size(made, &comm->size);
    *out = comm;
    return CCL_SIM_OK;
}

void ccl_sim_id_name(const void *id_bytes, char *out, size_t cap)
{
    sim_id_t id;
    memcpy(&id, id_bytes, sizeof id);
    if (id.magic == SIM_ID_AT_MAGIC)
        snprintf(out, cap, "at-%08x", (unsigned)id.serial);
    else
        snprintf(out, cap, "id-%d-%u", (int)id.creator, (unsigned)id.serial);
}

ccl_sim_status_t ccl_sim_comm_free(ccl_sim_comm_t *comm)
{
    if (comm == NULL)
        return sim_fail(CCL_SIM_INVALID, "sim: NULL communicator");
    MPI_Comm_free(&comm->mpi);
    free(comm);
    return CCL_SIM_OK;
}

int ccl_sim_comm_rank(const ccl_sim_comm_t *comm)
{
    return comm->rank;
}

int ccl_sim_comm_size(const ccl_sim_comm_t *comm)
{
    return comm->size;
}

int ccl_sim_comm_device(const ccl_sim_comm_t *comm)
{
    return comm->device;
}

/* ---------------------------------------------------------------- operations */

typedef enum sim_kind {
    SIM_ALL_REDUCE,
    SIM_ALL_GATHER,
    SIM_REDUCE_SCATTER,
    SIM_BROADCAST,
    SIM_REDUCE,
    SIM_SEND,
    SIM_RECV,
    SIM_BARRIER,
} sim_kind_t;

typedef struct sim_op {
    sim_kind_t kind;
    ccl_sim_comm_t *comm;
    const void *send;
    void *recv;
    size_t count;
    ccl_sim_type_t type;
    ccl_sim_op_t op;
    int root; /* root or peer */
    ccl_sim_sync_fn sync;
    void *stream;
    struct sim_op *next;
} sim_op_t;

static bool sim_overlap(const void *a, size_t a_size, const void *b, size_t b_size)
{
    const char *x = a, *y = b;
    return a != NULL && b != NULL && x < y + b_size && y < x + a_size;
}

/* Every rank's `bytes` bytes of `send`, in rank order, into a new buffer. */
static ccl_sim_status_t sim_gather_all(ccl_sim_comm_t *comm, const void *send, int bytes,
                                       char **out)
{
    char *all = malloc((size_t)bytes * (size_t)comm->size + 1);
    ccl_sim_status_t status;
    if (all == NULL)
        return sim_fail(CCL_SIM_INTERNAL, "sim: out of memory");
    status = sim_mpi(MPI_Allgather(send, bytes, MPI_BYTE, all, bytes, MPI_BYTE, comm->mpi),
                     "MPI_Allgather");
    if (status != CCL_SIM_OK) {
        free(all);
        return status;
    }
    *out = all;
    return CCL_SIM_OK;
}

/* dst = op over ranks of the rank-ordered blocks in `all`. */
static void sim_combine(void *dst, const char *all, size_t count, int bytes, int ranks,
                        ccl_sim_type_t type, ccl_sim_op_t op)
{
    memcpy(dst, all, (size_t)bytes);
    for (int r = 1; r < ranks; r++)
        ccl_sim_accumulate(dst, all + (size_t)r * (size_t)bytes, count, type, op);
    if (op == CCL_SIM_AVG)
        ccl_sim_scale(dst, count, type, ranks);
}

/* A collective (not send/recv), on the calling thread. */
static ccl_sim_status_t sim_run(const sim_op_t *o)
{
    ccl_sim_comm_t *comm = o->comm;
    char *all = NULL;
    int bytes = 0;
    ccl_sim_status_t status = CCL_SIM_OK;
    if (o->kind != SIM_BARRIER) {
        status = sim_bytes(o->count, o->type, 1, &bytes);
        if (status == CCL_SIM_OK)
            status = sim_bytes(o->count, o->type, (size_t)comm->size, &(int){0});
        if (status != CCL_SIM_OK)
            return status;
    }
    switch (o->kind) {
    case SIM_ALL_REDUCE:
        status = sim_gather_all(comm, o->send, bytes, &all);
        if (status == CCL_SIM_OK)
            sim_combine(o->recv, all, o->count, bytes, comm->size, o->type, o->op);
        break;
    case SIM_REDUCE:
        status = sim_gather_all(comm, o->send, bytes, &all);
        if (status == CCL_SIM_OK && comm->rank == o->root)
            sim_combine(o->recv, all, o->count, bytes, comm->size, o->type, o->op);
        break;
    case SIM_ALL_GATHER:
        /* An in-place gather (send inside recv) reads send before it lands. */
        status = sim_gather_all(comm, o->send, bytes, &all);
        if (status == CCL_SIM_OK)
            memcpy(o->recv, all, (size_t)bytes * (size_t)comm->size);
        break;
    case SIM_REDUCE_SCATTER:
        /* Block r of every rank's send goes to rank r. */
        all = malloc((size_t)bytes * (size_t)comm->size + 1);
        if (all == NULL)
            return sim_fail(CCL_SIM_INTERNAL, "sim: out of memory");
        status = sim_mpi(MPI_Alltoall(o->send, bytes, MPI_BYTE, all, bytes, MPI_BYTE, comm->mpi),
                         "MPI_Alltoall");
        if (status == CCL_SIM_OK)
            sim_combine(o->recv, all, o->count, bytes, comm->size, o->type, o->op);
        break;
    case SIM_BROADCAST:
        if (comm->rank == o->root && o->send != o->recv)
            memmove(o->recv, o->send, (size_t)bytes);
        status = sim_mpi(MPI_Bcast(o->recv, bytes, MPI_BYTE, o->root, comm->mpi), "MPI_Bcast");
        break;
    case SIM_BARRIER: status = sim_mpi(MPI_Barrier(comm->mpi), "MPI_Barrier"); break;
    default: status = sim_fail(CCL_SIM_INTERNAL, "sim: not a collective"); break;
    }
    free(all);
    return status;
}

static ccl_sim_status_t sim_sync(const sim_op_t *o)
{
    int code = o->sync != NULL ? o->sync(o->stream) : 0;
    return code == 0
               ? CCL_SIM_OK
               : sim_fail(CCL_SIM_STREAM, "sim: synchronizing the stream failed with %d", code);
}

/* ---------------------------------------------------------------- groups */

static _Thread_local int sim_group_depth;
static _Thread_local sim_op_t *sim_group_head, *sim_group_tail;

static void sim_group_clear(void)
{
    while (sim_group_head != NULL) {
        sim_op_t *next = sim_group_head->next;
        free(sim_group_head);
        sim_group_head = next;
    }
    sim_group_tail = NULL;
}

void ccl_sim_group_abort(void)
{
    sim_group_depth = 0;
    sim_group_clear();
}

ccl_sim_status_t ccl_sim_group_start(void)
{
    sim_group_depth++;
    return CCL_SIM_OK;
}

ccl_sim_status_t ccl_sim_group_end(void)
{
    size_t n = 0, posted = 0;
    MPI_Request *requests;
    ccl_sim_status_t status = CCL_SIM_OK;
    if (sim_group_depth == 0)
        return sim_fail(CCL_SIM_USAGE, "sim: group end without a group start");
    if (--sim_group_depth > 0)
        return CCL_SIM_OK;
    for (sim_op_t *o = sim_group_head; o != NULL; o = o->next)
        n++;
    requests = malloc(sizeof *requests * (n + 1));
    if (requests == NULL) {
        sim_group_clear();
        return sim_fail(CCL_SIM_INTERNAL, "sim: out of memory");
    }
    /* Streams first (every operation comes after its stream's earlier
     * work), then the point-to-point transfers posted, then the
     * collectives in order, then the wait. */
    for (sim_op_t *o = sim_group_head; o != NULL && status == CCL_SIM_OK; o = o->next)
        status = sim_sync(o);
    for (sim_op_t *o = sim_group_head; o != NULL && status == CCL_SIM_OK; o = o->next) {
        int bytes = 0;
        if (o->kind != SIM_SEND && o->kind != SIM_RECV)
            continue;
        status = sim_bytes(o->count, o->type, 1, &bytes);
        if (status == CCL_SIM_OK && o->kind == SIM_SEND)
            status = sim_mpi(MPI_Isend(o->send, bytes, MPI_BYTE, o->root, CCL_SIM_TAG_BASE - 1,
                                       o->comm->mpi, &requests[posted]),
                             "MPI_Isend");
        else if (status == CCL_SIM_OK)
            status = sim_mpi(MPI_Irecv(o->recv, bytes, MPI_BYTE, o->root, CCL_SIM_TAG_BASE - 1,
                                       o->comm->mpi, &requests[posted]),
                             "MPI_Irecv");
        if (status == CCL_SIM_OK)
            posted++;
    }
    for (sim_op_t *o = sim_group_head; o != NULL && status == CCL_SIM_OK; o = o->next)
        if (o->kind != SIM_SEND && o->kind != SIM_RECV)
            status = sim_run(o);
    if (posted > 0) {
        ccl_sim_status_t waited =
            sim_mpi(MPI_Waitall((int)posted, requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
        if (status == CCL_SIM_OK)
            status = waited;
    }
    free(requests);
    sim_group_clear();
    return status;
}

/* Run `o` now, or record it in the thread's open group. */
static ccl_sim_status_t sim_submit(const sim_op_t *o)
{
    ccl_sim_status_t status;
    int bytes = 0;
    if (o->comm == NULL)
        return sim_fail(CCL_SIM_INVALID, "sim: NULL communicator");
    if (o->kind != SIM_BARRIER && (status = sim_bytes(o->count, o->type, 1, &bytes)) != CCL_SIM_OK)
        return status;
    if ((o->kind == SIM_BROADCAST || o->kind == SIM_REDUCE || o->kind == SIM_SEND ||
         o->kind == SIM_RECV) &&
        (o->root < 0 || o->root >= o->comm->size))
        return sim_fail(CCL_SIM_INVALID, "sim: rank %d outside the communicator's %d", o->root,
                        o->comm->size);
    /* To itself: only in a group, where both halves are posted before
     * either waits (NCCL's rule; alone, the send would wait for ever). */
    if ((o->kind == SIM_SEND || o->kind == SIM_RECV) && o->root == o->comm->rank &&
        sim_group_depth == 0)
        return sim_fail(CCL_SIM_INVALID,
                        "sim: a rank's send to or receive from itself must be in a group");
    if (o->kind == SIM_REDUCE_SCATTER &&
        sim_overlap(o->send, (size_t)bytes * (size_t)o->comm->size, o->recv, (size_t)bytes) &&
        o->recv != (const char *)o->send + (size_t)bytes * (size_t)o->comm->rank)
        return sim_fail(CCL_SIM_INVALID, "sim: overlapping reduce-scatter buffers");
    if (sim_group_depth > 0) {
        sim_op_t *copy = malloc(sizeof *copy);
        if (copy == NULL)
            return sim_fail(CCL_SIM_INTERNAL, "sim: out of memory");
        *copy = *o;
        copy->next = NULL;
        if (sim_group_tail != NULL)
            sim_group_tail->next = copy;
        else
            sim_group_head = copy;
        sim_group_tail = copy;
        return CCL_SIM_OK;
    }
    status = sim_sync(o);
    if (status != CCL_SIM_OK || (o->count == 0 && o->kind != SIM_BARRIER))
        return status;
    if (o->kind == SIM_SEND)
        return sim_mpi(
            MPI_Send(o->send, bytes, MPI_BYTE, o->root, CCL_SIM_TAG_BASE - 1, o->comm->mpi),
            "MPI_Send");
    if (o->kind == SIM_RECV)
        return sim_mpi(MPI_Recv(o->recv, bytes, MPI_BYTE, o->root, CCL_SIM_TAG_BASE - 1,
                                o->comm->mpi, MPI_STATUS_IGNORE),
                       "MPI_Recv");
    return sim_run(o);
}

ccl_sim_status_t ccl_sim_all_reduce(ccl_sim_comm_t *comm, const void *send, void *recv,
                                    size_t count, ccl_sim_type_t type, ccl_sim_op_t op,
                                    ccl_sim_sync_fn sync, void *stream)
{
    sim_op_t o = {SIM_ALL_REDUCE, comm, send, recv, count, type, op, 0, sync, stream, NULL};
    return sim_submit(&o);
}

ccl_sim_status_t ccl_sim_all_gather(ccl_sim_comm_t *comm, const void *send, void *recv,
                                    size_t send_count, ccl_sim_type_t type, ccl_sim_sync_fn sync,
                                    void *stream)
{
    sim_op_t o = {SIM_ALL_GATHER, comm, send, recv,   send_count, type,
                  CCL_SIM_SUM,    0,    sync, stream, NULL};
    return sim_submit(&o);
}

ccl_sim_status_t ccl_sim_reduce_scatter(ccl_sim_comm_t *comm, const void *send, void *recv,
                                        size_t recv_count, ccl_sim_type_t type, ccl_sim_op_t op,
                                        ccl_sim_sync_fn sync, void *stream)
{
    sim_op_t o = {
        SIM_REDUCE_SCATTER, comm, send, recv, recv_count, type, op, 0, sync, stream, NULL};
    return sim_submit(&o);
}

ccl_sim_status_t ccl_sim_broadcast(ccl_sim_comm_t *comm, const void *send, void *recv, size_t count,
                                   ccl_sim_type_t type, int root, ccl_sim_sync_fn sync,
                                   void *stream)
{
    sim_op_t o = {SIM_BROADCAST, comm, send, recv,   count, type,
                  CCL_SIM_SUM,   root, sync, stream, NULL};
    return sim_submit(&o);
}

ccl_sim_status_t ccl_sim_reduce(ccl_sim_comm_t *comm, const void *send, void *recv, size_t count,
                                ccl_sim_type_t type, ccl_sim_op_t op, int root,
                                ccl_sim_sync_fn sync, void *stream)
{
    sim_op_t o = {SIM_REDUCE, comm, send, recv, count, type, op, root, sync, stream, NULL};
    return sim_submit(&o);
}

ccl_sim_status_t ccl_sim_send(ccl_sim_comm_t *comm, const void *buf, size_t count,
                              ccl_sim_type_t type, int peer, ccl_sim_sync_fn sync, void *stream)
{
    sim_op_t o = {SIM_SEND, comm, buf, NULL, count, type, CCL_SIM_SUM, peer, sync, stream, NULL};
    return sim_submit(&o);
}

ccl_sim_status_t ccl_sim_recv(ccl_sim_comm_t *comm, void *buf, size_t count, ccl_sim_type_t type,
                              int peer, ccl_sim_sync_fn sync, void *stream)
{
    sim_op_t o = {SIM_RECV, comm, NULL, buf, count, type, CCL_SIM_SUM, peer, sync, stream, NULL};
    return sim_submit(&o);
}

ccl_sim_status_t ccl_sim_barrier(ccl_sim_comm_t *comm, ccl_sim_sync_fn sync, void *stream)
{
    sim_op_t o = {SIM_BARRIER, comm, NULL, NULL, 0, CCL_SIM_U8, CCL_SIM_SUM, 0, sync, stream, NULL};
    return sim_submit(&o);
}
