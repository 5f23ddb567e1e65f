/* accel_comm.h: collectives between processes, on the engine that the
 * backend's communication backend name stands for (DeepSpeed's
 * communication_backend_name(): nccl on cuda, hccl on npu and hpu, cncl on
 * mlu, ccl on xpu, tccl on sdaa, gloo/ccl on cpu).
 *
 * accel never moves the bytes itself: every call goes to a real engine,
 * opened with dlopen like the backends' runtimes (NCCL, Ascend HCCL, Habana
 * HCCL, CNCL, oneCCL, TCCL), and to MPI (Open MPI) on cpu and wherever the
 * memory is host memory. accel_comm_engine_info() says which engine serves
 * the backend here and whether its library loads; `accel report` prints it.
 *
 * Conventions are accel.h's. In addition:
 * - Ordering: each collective is ordered on an accel stream (NULL: the
 *   calling thread's current stream of the communicator's device): it starts
 *   after the work queued there before it, and work queued after it starts
 *   after it has finished. Device engines (NCCL, HCCL, ...) enqueue and
 *   return; the MPI engine waits for the stream's earlier work, runs the
 *   collective on the calling thread and returns when it is done.
 * - Every rank must issue the same collectives in the same order, with
 *   matching counts, dtypes, ops and roots, as with any collectives library.
 *   A rank that leaves or fails makes the others' calls fail with an error
 *   within the communicator's timeout (MPI engine; device engines report
 *   their own asynchronous errors) instead of hanging for ever.
 * - Counts are elements, not bytes. A count of 0 is a valid no-op.
 * - Threads: a communicator may be used from one thread at a time (engines
 *   require it); different communicators from different threads. Two
 *   threads calling on one communicator at once are serialised (the second
 *   waits), but which goes first is then up to chance on each rank.
 */
#ifndef ACCEL_ACCEL_COMM_H
#define ACCEL_ACCEL_COMM_H

#include "accel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct accel_comm accel_comm_t;

typedef enum accel_reduce_op {
    ACCEL_REDUCE_SUM = 0,
    ACCEL_REDUCE_PROD = 1,
    ACCEL_REDUCE_MIN = 2,
    ACCEL_REDUCE_MAX = 3,
    ACCEL_REDUCE_AVG = 4, /* sum / ranks; emulated (sum, then a scale) where an engine lacks it */
    ACCEL_REDUCE_COUNT_ = 5
} accel_reduce_op_t;

/* "sum", "prod", "min", "max", "avg"; NULL for an unknown op. */
ACCEL_API const char *accel_reduce_op_name(accel_reduce_op_t op);

/* How a communicator is made. Zero-initialised fields take the defaults. */
typedef struct accel_comm_options {
    size_t struct_size;
    /* The engine: NULL or "" for the one the backend's communication backend
     * name maps to here (accel_comm_engine_info); "mpi" forces MPI (host
     * memory only). An engine that does not serve the backend is refused. */
    const char *engine;
    /* Device of the communicator's buffers and streams. With
     * `use_local_rank` it is LOCAL_RANK (mod the device count), as
     * DeepSpeed's launcher expects; else this index (ACCEL_CURRENT_DEVICE:
     * the calling thread's current device). */
    int device;
    bool use_local_rank;
    /* Seconds a collective may wait for the other ranks before failing
     * (MPI engine), and Ascend HCCL's connect timeout at init when
     * HCCL_CONNECT_TIMEOUT is unset (clamped into HCCL's 120..7200 s,
     * docs/comm.md); 0: ACCEL_COMM_TIMEOUT from the environment, else 300.
     * INFINITY (ACCEL_COMM_TIMEOUT=inf): no timeout; the MPI engine then
     * calls MPI's blocking collectives, faster for small messages, and a
     * rank that leaves makes the others hang (or mpirun end the job). */
    double timeout_s;
} accel_comm_options_t;

/* A communicator over every process of the job, from the launcher's
 * environment: RANK and WORLD_SIZE (and LOCAL_RANK) as torch.distributed
 * and DeepSpeed's launcher set them, or the ones mpirun sets
 * (OMPI_COMM_WORLD_RANK, PMI_RANK, ...). How the ranks meet is the engine's
 * own mechanism: MPI when the job was started by mpirun (or `accel launch`);
 * otherwise (or with ACCEL_COMM_BOOTSTRAP=env) the engine's unique-id
 * rendezvous at MASTER_ADDR:MASTER_PORT where the engine has one
 * (NCCL_COMM_ID, Habana HCCL's HCCL_COMM_ID; docs/comm.md). accel has no
 * transport of its own. Collective: every rank calls it. `options` may be
 * NULL (defaults). */
ACCEL_API accel_status_t accel_comm_init(accel_t *acc, const accel_comm_options_t *options,
                                         accel_comm_t **out);

/* A communicator over the processes of an existing MPI communicator:
 * `mpi_comm` points at the caller's MPI_Comm value (whatever type the MPI
 * library gives it). MPI must already be initialised by the caller (accel
 * then never finalises it). Collective over `mpi_comm`. */
ACCEL_API accel_status_t accel_comm_init_mpi(accel_t *acc, const accel_comm_options_t *options,
                                             const void *mpi_comm, accel_comm_t **out);

/* MPI_Comm_split's rule: ranks with the same `color` form a new
 * communicator, ordered by `key` then by their rank in `comm`. A rank
 * passing ACCEL_COMM_SPLIT_NONE takes part but gets *out = NULL.
 * Collective over `comm`. */
#define ACCEL_COMM_SPLIT_NONE (-1)
ACCEL_API accel_status_t accel_comm_split(accel_comm_t *comm, int color, int key,
                                          accel_comm_t **out);

/* Waits for the communicator's queued collectives, then frees it. */
ACCEL_API accel_status_t accel_comm_destroy(accel_comm_t *comm);

ACCEL_API accel_status_t accel_comm_rank(const accel_comm_t *comm, int *out);
ACCEL_API accel_status_t accel_comm_size(const accel_comm_t *comm, int *out);
ACCEL_API accel_status_t accel_comm_device(const accel_comm_t *comm, int *out);
/* The engine's name ("mpi", "nccl", ...); valid while `comm` lives. */
ACCEL_API accel_status_t accel_comm_engine_name(const accel_comm_t *comm, const char **out);

/* ---------------------------------------------------------------- collectives */

/* recv[i] = op over ranks of send[i], on every rank. send == recv: in place. */
ACCEL_API accel_status_t accel_all_reduce(accel_comm_t *comm, const void *send, void *recv,
                                          size_t count, accel_dtype_t dtype, accel_reduce_op_t op,
                                          accel_stream_t *stream);
/* recv (size * send_count elements) = every rank's send, in rank order. */
ACCEL_API accel_status_t accel_all_gather(accel_comm_t *comm, const void *send, void *recv,
                                          size_t send_count, accel_dtype_t dtype,
                                          accel_stream_t *stream);
/* send holds size * recv_count elements; rank r gets the reduction of
 * every rank's block r. */
ACCEL_API accel_status_t accel_reduce_scatter(accel_comm_t *comm, const void *send, void *recv,
                                              size_t recv_count, accel_dtype_t dtype,
                                              accel_reduce_op_t op, accel_stream_t *stream);
/* recv = root's send on every rank (send is read on the root only; send ==
 * recv: in place). */
ACCEL_API accel_status_t accel_broadcast(accel_comm_t *comm, const void *send, void *recv,
                                         size_t count, accel_dtype_t dtype, int root,
                                         accel_stream_t *stream);
/* The root's recv = op over ranks of send (recv is written on the root only). */
ACCEL_API accel_status_t accel_reduce(accel_comm_t *comm, const void *send, void *recv,
                                      size_t count, accel_dtype_t dtype, accel_reduce_op_t op,
                                      int root, accel_stream_t *stream);
/* Point to point: each send must meet a recv of the same count and dtype. */
ACCEL_API accel_status_t accel_send(accel_comm_t *comm, const void *buf, size_t count,
                                    accel_dtype_t dtype, int peer, accel_stream_t *stream);
ACCEL_API accel_status_t accel_recv(accel_comm_t *comm, void *buf, size_t count,
                                    accel_dtype_t dtype, int peer, accel_stream_t *stream);
/* Returns (stream-ordered) once every rank has reached it. */
ACCEL_API accel_status_t accel_barrier(accel_comm_t *comm, accel_stream_t *stream);

/* Calls between start and end are issued as one group (NCCL's semantics: a
 * send and its matching recv in one group cannot deadlock, whatever their
 * order). Per thread; groups nest; end issues the outermost group. The MPI
 * engine defers a group's calls and issues them non-blocking at the end. */
ACCEL_API accel_status_t accel_comm_group_start(void);
ACCEL_API accel_status_t accel_comm_group_end(void);

/* ---------------------------------------------------------------- discovery */

/* Which engine serves `acc` here, without making a communicator. */
typedef struct accel_comm_engine_info {
    size_t struct_size;
    /* DeepSpeed's communication backend name for this backend (NULL where
     * DeepSpeed says None). */
    const char *backend_name;
    /* accel's engine for it ("nccl", "mpi", ...), or NULL where none serves
     * this backend. */
    const char *engine;
    bool available;   /* the engine's library loaded */
    char detail[320]; /* the library file and version loaded, or why not */
} accel_comm_engine_info_t;

ACCEL_API accel_status_t accel_comm_engine_info(accel_t *acc, accel_comm_engine_info_t *out);

#ifdef __cplusplus
}
#endif

#endif /* ACCEL_ACCEL_COMM_H */
