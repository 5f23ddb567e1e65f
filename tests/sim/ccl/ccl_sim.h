/* ccl_sim.h: the collectives core shared by the simulated CCL libraries of
 * tests/sim/ccl/ (Ascend libhccl, Cambricon libcncl, Habana libhcl). Each
 * library exports its vendor's real function names and maps them onto this
 * core, which moves the bytes between processes for real with MPI (Open
 * MPI, linked by the sims): the test runs under mpirun and MPI is
 * initialised in the process before any communicator is made (by the test
 * or by accel's MPI bootstrap). Device memory in the sims is host memory.
 *
 * Ordering: every operation first synchronizes the vendor stream it is given
 * (through the `sync` function the library passes), then runs to completion
 * on the calling thread, so it comes after the stream's earlier work and
 * before its later work. A real CCL enqueues instead; the sim is stricter.
 * Groups: between group_start and group_end (nesting counted per thread)
 * operations are recorded; group_end posts every send and receive
 * non-blocking, runs the collectives in order, then waits: a send and its
 * matching receive in one group never deadlock, whatever their order.
 *
 * Communicators: the unique id names its creator (world rank) and a serial;
 * rank 0 must be the creator. The members meet on MPI_COMM_WORLD with
 * point-to-point messages (tags from CCL_SIM_TAG_BASE up) and then make their
 * own MPI communicator with MPI_Comm_create_group, ranks in the CCL order.
 * The meeting may have a deadline (ccl_sim_comm_init_within, as a library's
 * connect timeout): rank 0 waits that long for every member to say hello,
 * each member as long for rank 0's answer, then gives up with TIMEOUT (its
 * pending receive cancelled). A member that fails before joining therefore
 * fails the others after the timeout instead of hanging them. Not covered:
 * a member whose hello reaches rank 0 just before the deadline while rank
 * 0's answer reaches it just after (rank 0 then waits in
 * MPI_Comm_create_group for it).
 * Threads: a communicator is used by one thread at a time (as with the real
 * libraries); MPI is called only from the calling thread. */
#ifndef ACCEL_TESTS_SIM_CCL_SIM_H
#define ACCEL_TESTS_SIM_CCL_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Failure kinds; each library maps them onto its own result codes. */
typedef enum ccl_sim_status {
    CCL_SIM_OK = 0,
    CCL_SIM_INVALID,  /* a bad argument */
    CCL_SIM_USAGE,    /* MPI not initialised, wrong rank for the id, unmatched group end */
    CCL_SIM_STREAM,   /* the stream could not be synchronized */
    CCL_SIM_INTERNAL, /* MPI failed or memory ran out */
    CCL_SIM_TIMEOUT,  /* the other members did not all join in time */
} ccl_sim_status_t;

/* Element kinds the core reduces (each library maps its dtype codes). */
typedef enum ccl_sim_type {
    CCL_SIM_I8,
    CCL_SIM_U8,
    CCL_SIM_I32,
    CCL_SIM_U32,
    CCL_SIM_I64,
    CCL_SIM_U64,
    CCL_SIM_F16,
    CCL_SIM_BF16,
    CCL_SIM_F32,
    CCL_SIM_F64,
    CCL_SIM_TYPE_COUNT
} ccl_sim_type_t;

typedef enum ccl_sim_op {
    CCL_SIM_SUM,
    CCL_SIM_PROD,
    CCL_SIM_MIN,
    CCL_SIM_MAX,
    CCL_SIM_AVG,
} ccl_sim_op_t;

/* Synchronize the vendor stream `stream` (NULL: the default one); 0 on
 * success. */
typedef int (*ccl_sim_sync_fn)(void *stream);

typedef struct ccl_sim_comm ccl_sim_comm_t;

#define CCL_SIM_ID_BYTES 16 /* what the core writes at the start of an id */
#define CCL_SIM_TAG_BASE 0x5c00

/* The thread's last failure, as a sentence ("" when none); cleared by
 * ccl_sim_clear_error, which every exported call runs first. */
const char *ccl_sim_last_error(void);
void ccl_sim_clear_error(void);
/* A library's own refusal as the thread's last error; returns `status`. */
ccl_sim_status_t ccl_sim_refuse(ccl_sim_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The first statement of every exported call: the injected fault for
 * `name` (sim_fault.h's sim_fault_hit, returned as the library's code) and
 * the cleared error sentence. */
#define CCL_SIM_ENTER(name)                                                                        \
    do {                                                                                           \
        int injected_ = sim_fault_hit(name);                                                       \
        ccl_sim_clear_error();                                                                     \
        if (injected_ != 0)                                                                        \
            return injected_;                                                                      \
    } while (0)

size_t ccl_sim_type_size(ccl_sim_type_t type);

/* Write a fresh id into `id` (`size` bytes, the rest zeroed). */
ccl_sim_status_t ccl_sim_unique_id(void *id, size_t size);
/* The id every process derives alike from a rendezvous `address` (Habana's
 * HCCL_COMM_ID): it names no creator, so joining its communicator takes
 * every process of the MPI job (the sim has no address to meet at; an
 * MPI_Allgather stands in), checks that they all derived the same id (the
 * same address) and holds each CCL rank once, and fails every member alike
 * with INVALID, saying which ranks differ, when not. No deadline. */
ccl_sim_status_t ccl_sim_unique_id_at(const char *address, void *id, size_t size);
/* Join the communicator the id names as `rank` of `nranks` (collective over
 * its members), waiting for the others as long as it takes. */
ccl_sim_status_t ccl_sim_comm_init(const void *id, int nranks, int rank, int device,
                                   ccl_sim_comm_t **out);
/* The same, giving up with TIMEOUT after `timeout_s` seconds (0 or less, or
 * infinite: no deadline); `source` names what set the timeout, for the
 * error sentence ("HCCL_CONNECT_TIMEOUT"). */
ccl_sim_status_t ccl_sim_comm_init_within(const void *id, int nranks, int rank, int device,
                                          double timeout_s, const char *source,
                                          ccl_sim_comm_t **out);
/* MPI_Comm_split's rule over `parent` (collective over it): ranks of one
 * color (>= 0) form a communicator on `device`, ordered by key, then parent
 * rank; a negative color gives *out NULL. */
ccl_sim_status_t ccl_sim_comm_split(ccl_sim_comm_t *parent, int color, int key, int device,
                                    ccl_sim_comm_t **out);
/* A name for the rendezvous an id stands for, the same in every process:
 * "at-<hash>" for an address-derived id, "id-<creator>-<serial>" for a
 * fresh one (a library's root listening at its creator). */
void ccl_sim_id_name(const void *id, char *out, size_t cap);
/* Free the communicator (not collective). */
ccl_sim_status_t ccl_sim_comm_free(ccl_sim_comm_t *comm);
int ccl_sim_comm_rank(const ccl_sim_comm_t *comm);
int ccl_sim_comm_size(const ccl_sim_comm_t *comm);
int ccl_sim_comm_device(const ccl_sim_comm_t *comm);

ccl_sim_status_t ccl_sim_all_reduce(ccl_sim_comm_t *comm, const void *send, void *recv,
                                    size_t count, ccl_sim_type_t type, ccl_sim_op_t op,
                                    ccl_sim_sync_fn sync, void *stream);
ccl_sim_status_t ccl_sim_all_gather(ccl_sim_comm_t *comm, const void *send, void *recv,
                                    size_t send_count, ccl_sim_type_t type, ccl_sim_sync_fn sync,
                                    void *stream);
ccl_sim_status_t ccl_sim_reduce_scatter(ccl_sim_comm_t *comm, const void *send, void *recv,
                                        size_t recv_count, ccl_sim_type_t type, ccl_sim_op_t op,
                                        ccl_sim_sync_fn sync, void *stream);
/* `send` is read on the root only (send == recv: in place). */
ccl_sim_status_t ccl_sim_broadcast(ccl_sim_comm_t *comm, const void *send, void *recv, size_t count,
                                   ccl_sim_type_t type, int root, ccl_sim_sync_fn sync,
                                   void *stream);
ccl_sim_status_t ccl_sim_reduce(ccl_sim_comm_t *comm, const void *send, void *recv, size_t count,
                                ccl_sim_type_t type, ccl_sim_op_t op, int root,
                                ccl_sim_sync_fn sync, void *stream);
ccl_sim_status_t ccl_sim_send(ccl_sim_comm_t *comm, const void *buf, size_t count,
                              ccl_sim_type_t type, int peer, ccl_sim_sync_fn sync, void *stream);
ccl_sim_status_t ccl_sim_recv(ccl_sim_comm_t *comm, void *buf, size_t count, ccl_sim_type_t type,
                              int peer, ccl_sim_sync_fn sync, void *stream);
ccl_sim_status_t ccl_sim_barrier(ccl_sim_comm_t *comm, ccl_sim_sync_fn sync, void *stream);

ccl_sim_status_t ccl_sim_group_start(void);
ccl_sim_status_t ccl_sim_group_end(void);
/* Drop the thread's open group and what it recorded (a failed group end:
 * the group is over, as with the real libraries). */
void ccl_sim_group_abort(void);

/* ccl_sim_reduce.c: dst[i] = dst[i] op src[i] for `count` elements (avg
 * sums; ccl_sim_scale divides by n afterwards). */
void ccl_sim_accumulate(void *dst, const void *src, size_t count, ccl_sim_type_t type,
                        ccl_sim_op_t op);
void ccl_sim_scale(void *dst, size_t count, ccl_sim_type_t type, int n);

#endif /* ACCEL_TESTS_SIM_CCL_SIM_H */
