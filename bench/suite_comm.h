/* suite_comm.h: what the comm suite's files share: suite_comm.c (the MPI
 * figures, the ranks and the relaunch through `accel launch`) and
 * suite_comm_nccl.c (the NCCL figures on cuda). Private to bench/.
 * Threads: as bench.h (the suite's thread only). */
#ifndef ACCEL_BENCH_SUITE_COMM_H
#define ACCEL_BENCH_SUITE_COMM_H

#include "bench.h"

/* What relaunched ranks measure: "mpi" or "nccl". Unset (ranks a user
 * started with mpirun): both. */
#define BENCH_COMM_PART_ENV "ACCEL_BENCH_COMM_PART"

/* Open MPI's calls and handles, from the libmpi accel loaded (dlsym; Open
 * MPI's ABI: handles are addresses of exported globals). */
typedef struct bench_comm_mpi {
    int (*allreduce)(const void *, void *, int, void *, void *, void *);
    int (*iallreduce)(const void *, void *, int, void *, void *, void *, void **);
    int (*test)(void **, int *, void *);
    int (*barrier)(void *);
    int (*bcast)(void *, int, void *, int, void *);
    void *world, *self, *f32, *i32, *byte, *sum, *min;
} bench_comm_mpi_t;

/* Binds `mpi` once libmpi is loaded (by an accel communicator); false when
 * it is not, or lacks a symbol. */
bool bench_comm_bind_mpi(bench_comm_mpi_t *mpi);

/* "8 B", "4 KiB", "256 MiB". */
void bench_comm_size_name(size_t bytes, char *out, size_t cap);

/* Calls per repetition for messages of `bytes`: fixed by the size (every
 * rank must make the same calls), about 64 MiB of payload (16 MiB with
 * --quick), at least 3 and at most 2000. */
size_t bench_comm_iters(const bench_ctx_t *ctx, size_t bytes);

/* A line for a figure that was not measured, saying why (no value, no
 * ratio; counted like a failed figure in --json and --svg). */
void bench_comm_skip(bench_ctx_t *ctx, const char *name, const char *why);

/* Not under a launcher: run `accel launch -n RANKS accel bench --suite comm
 * [--quick] [--backend BACKEND]` with BENCH_COMM_PART_ENV=part and add rank
 * 0's figures to ctx; one failed line saying why when that does not work.
 * `backend` may be NULL (the ranks pick theirs as this process did). */
void bench_comm_relaunch(bench_ctx_t *ctx, const char *part, int ranks, const char *backend);

/* suite_comm_nccl.c. Not under a launcher: the NCCL figures of a 1-rank
 * communicator in this process and, with 2 or more CUDA devices, of one
 * rank per device (relaunched); or one line saying why there are none. */
void bench_comm_nccl(bench_ctx_t *ctx);

/* Under a launcher: this rank's share of the NCCL figures (one rank per
 * device); rank 0's land in ctx. */
void bench_comm_nccl_ranks(bench_ctx_t *ctx);

#endif /* ACCEL_BENCH_SUITE_COMM_H */
