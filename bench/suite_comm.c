/* suite_comm.c: accel_all_reduce (f32 sum, cpu, the mpi engine) against
 * calling MPI directly in the same processes, from 8 B to 256 MiB: latency
 * below 64 KiB, bus bandwidth (nccl-tests' busbw: bytes * 2(n-1)/n per
 * second) from there. Two figures per size: a communicator with the default
 * timeout (MPI_Iallreduce polled with MPI_Test) against those two MPI calls
 * made directly, and one without a timeout (blocking MPI_Allreduce) against
 * MPI_Allreduce. Needs 2 ranks: run by hand under mpirun
 * (`mpirun -n 2 accel bench --suite comm`), or plainly (`accel bench
 * --suite comm`), when the suite re-runs the same command through `accel
 * launch -n 2` and reads the figures rank 0 wrote into a temporary file.
 * Every rank runs the same iterations (fixed by the size, not calibrated per
 * process) and rank 0's times are reported; ranks other than 0 print
 * nothing. The MPI baseline uses the libmpi accel loaded (dlsym). On a
 * backend whose memory is not host memory (cuda...) the MPI figures are
 * measured on the cpu backend; the NCCL figures are suite_comm_nccl.c's. */
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <accel/accel_comm.h>

#include "suite_comm.h"

#define COMM_OUT_ENV "ACCEL_BENCH_COMM_OUT" /* the file rank 0 writes its figures to */
#define COMM_MAGIC   0x61636d62u

extern char **environ;

typedef struct comm_arg {
    accel_comm_t *comm;         /* default timeout: MPI_Iallreduce + MPI_Test */
    accel_comm_t *comm_forever; /* no timeout: MPI_Allreduce */
    accel_comm_t *comm_self;    /* MPI_COMM_SELF, no timeout: accel's cost per call */
    bench_comm_mpi_t mpi;
    float *send, *recv;
    size_t count;
    bool on_cpu; /* measured on the cpu backend (the suite's backend is not host memory) */
} comm_arg_t;

/* What one timed loop calls. */
typedef enum comm_side {
    COMM_ACCEL,
    COMM_ACCEL_FOREVER,
    COMM_MPI_NONBLOCKING,
    COMM_MPI_BLOCKING,
    COMM_ACCEL_SELF,
    COMM_MPI_SELF,
} comm_side_t;

bool bench_comm_bind_mpi(bench_comm_mpi_t *mpi)
{
    void *lib = dlopen("libmpi.so.40", RTLD_NOW | RTLD_NOLOAD);
    if (lib == NULL)
        return false;
    *(void **)&mpi->allreduce = dlsym(lib, "MPI_Allreduce");
    *(void **)&mpi->iallreduce = dlsym(lib, "MPI_Iallreduce");
    *(void **)&mpi->test = dlsym(lib, "MPI_Test");
    *(void **)&mpi->barrier = dlsym(lib, "MPI_Barrier");
    *(void **)&mpi->bcast = dlsym(lib, "MPI_Bcast");
    mpi->world = dlsym(lib, "ompi_mpi_comm_world");
    mpi->self = dlsym(lib, "ompi_mpi_comm_self");
    mpi->f32 = dlsym(lib, "ompi_mpi_float");
    mpi->i32 = dlsym(lib, "ompi_mpi_int");
    mpi->byte = dlsym(lib, "ompi_mpi_byte");
    mpi->sum = dlsym(lib, "ompi_mpi_op_sum");
    mpi->min = dlsym(lib, "ompi_mpi_op_min");
    return mpi->allreduce && mpi->iallreduce && mpi->test && mpi->barrier && mpi->bcast &&
           mpi->world && mpi->self && mpi->f32 && mpi->i32 && mpi->byte && mpi->sum && mpi->min;
}

void bench_comm_size_name(size_t bytes, char *out, size_t cap)
{
    if (bytes >= (1u << 20))
        snprintf(out, cap, "%zu MiB", bytes >> 20);
    else if (bytes >= 1024)
        snprintf(out, cap, "%zu KiB", bytes >> 10);
    else
        snprintf(out, cap, "%zu B", bytes);
}

size_t bench_comm_iters(const bench_ctx_t *ctx, size_t bytes)
{
    size_t iters = (ctx->quick ? (16u << 20) : (64u << 20)) / bytes;
    return iters < 3 ? 3 : iters > 2000 ? 2000 : iters;
}

void bench_comm_skip(bench_ctx_t *ctx, const char *name, const char *why)
{
    bench_figure_t *f = bench_figure_add(ctx, "comm", name, BENCH_TIME, "us", 1e6, 0);
    if (f == NULL)
        return;
    f->failed = true; /* nothing measured: no value, no ratio */
    snprintf(f->note, sizeof f->note, "skipped: %s", why);
}

static bool comm_once(comm_arg_t *a, comm_side_t side)
{
    const bench_comm_mpi_t *m = &a->mpi;
    void *request = NULL;
    int done = 0;
    switch (side) {
    case COMM_ACCEL:
    case COMM_ACCEL_FOREVER:
        return accel_all_reduce(side == COMM_ACCEL ? a->comm : a->comm_forever, a->send, a->recv,
                                a->count, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL) == ACCEL_OK;
    case COMM_MPI_BLOCKING:
        return m->allreduce(a->send, a->recv, (int)a->count, m->f32, m->sum, m->world) == 0;
    case COMM_ACCEL_SELF:
        return accel_all_reduce(a->comm_self, a->send, a->recv, a->count, ACCEL_DTYPE_F32,
                                ACCEL_REDUCE_SUM, NULL) == ACCEL_OK;
    case COMM_MPI_SELF:
        return m->allreduce(a->send, a->recv, (int)a->count, m->f32, m->sum, m->self) == 0;
    case COMM_MPI_NONBLOCKING:
        if (m->iallreduce(a->send, a->recv, (int)a->count, m->f32, m->sum, m->world, &request) != 0)
            return false;
        while (!done)
            if (m->test(&request, &done, NULL) != 0)
                return false;
        return true;
    }
    return false;
}

/* Seconds for `iters` all_reduces on this rank (after a barrier), or < 0. */
static double comm_time(comm_arg_t *a, size_t iters, comm_side_t side)
{
    a->mpi.barrier(a->mpi.world);
    double start = bench_now();
    for (size_t i = 0; i < iters; i++)
        if (!comm_once(a, side))
            return -1;
    return bench_now() - start;
}

/* Times `measured` against `baseline`, `iters` calls per repetition after
 * one warm-up call each, into `f`. Each repetition interleaves the two sides
 * in slices, in ABBA order, so that the machine drifting during a
 * repetition (another process, the clock) weighs on both alike: an A/A run
 * of this loop (MPI against itself) stays within a few percent where
 * whole-repetition alternation did not. */
static void comm_measure(bench_ctx_t *ctx, bench_figure_t *f, comm_arg_t *a, size_t iters,
                         comm_side_t measured, comm_side_t baseline)
{
    if (comm_time(a, 1, measured) < 0 || comm_time(a, 1, baseline) < 0) { /* warm-up */
        bench_figure_fail(f, NULL);
        return;
    }
    size_t slices = iters >= 8 ? 8 : 1, per_slice = iters / slices;
    for (int r = 0; r < ctx->reps; r++) {
        double tm = 0, tb = 0;
        for (size_t i = 0; i < slices; i++) {
            bool measured_first = (i % 4 == 0 || i % 4 == 3);
            double first = comm_time(a, per_slice, measured_first ? measured : baseline);
            double second = comm_time(a, per_slice, measured_first ? baseline : measured);
            if (first < 0 || second < 0) {
                bench_figure_fail(f, NULL);
                return;
            }
            tm += measured_first ? first : second;
            tb += measured_first ? second : first;
        }
        f->measured.samples[r] = tm / (double)(per_slice * slices);
        f->baseline.samples[r] = tb / (double)(per_slice * slices);
    }
    bench_figure_finish(f, ctx->reps);
}

static void comm_figure(bench_ctx_t *ctx, comm_arg_t *a, size_t bytes, int size, bool forever)
{
    char name[64], shown[16];
    bool latency = bytes < (64u << 10);
    comm_side_t measured = forever ? COMM_ACCEL_FOREVER : COMM_ACCEL;
    comm_side_t baseline = forever ? COMM_MPI_BLOCKING : COMM_MPI_NONBLOCKING;
    bench_comm_size_name(bytes, shown, sizeof shown);
    snprintf(name, sizeof name, "all_reduce %s %s%s", shown, latency ? "latency" : "busbw",
             forever ? " no timeout" : "");
    bench_figure_t *f = latency ? bench_figure_add(ctx, "comm", name, BENCH_TIME, "us", 1e6, 0)
                                : bench_figure_add(ctx, "comm", name, BENCH_RATE, "GB/s", 1,
                                                   (double)bytes * 2.0 * (size - 1) / size);
    if (f == NULL)
        return;
    /* Same iterations on every rank: about 64 MiB of payload per repetition. */
    size_t iters = bench_comm_iters(ctx, bytes);
    a->count = bytes / sizeof(float);
    f->has_baseline = true;
    f->has_goal = true;
    f->goal = 0.95;
    snprintf(f->baseline_name, sizeof f->baseline_name, "%s",
             forever ? "MPI_Allreduce" : "MPI_Iallreduce+Test");
    snprintf(f->note, sizeof f->note, "%d ranks, f32 sum, %zu calls per repetition%s", size, iters,
             a->on_cpu ? ", cpu backend" : "");
    comm_measure(ctx, f, a, iters, measured, baseline);
}

/* accel's own cost per call: an 8-byte all_reduce on a one-rank
 * communicator (MPI_COMM_SELF, no timeout), where MPI has nothing to wait
 * for, against MPI_Allreduce on MPI_COMM_SELF: the difference is what the
 * layer adds (checks, stream order, lock, engine). No goal: a figure to
 * watch; the 2-rank lines are where it matters. */
static void comm_figure_self(bench_ctx_t *ctx, comm_arg_t *a)
{
    size_t iters = ctx->quick ? 20000 : 100000;
    bench_figure_t *f = bench_figure_add(ctx, "comm", "all_reduce 8 B, 1 rank (cost per call)",
                                         BENCH_TIME, "ns", 1e9, 0);
    if (f == NULL)
        return;
    a->count = 2;
    f->has_baseline = true;
    snprintf(f->baseline_name, sizeof f->baseline_name, "MPI_Allreduce on MPI_COMM_SELF");
    snprintf(f->note, sizeof f->note,
             "%sMPI_COMM_SELF; the difference is accel's per-call work, %zu calls per repetition",
             a->on_cpu ? "cpu backend; " : "", iters);
    comm_measure(ctx, f, a, iters, COMM_ACCEL_SELF, COMM_MPI_SELF);
}

/* The same 8-byte blocking MPI_Allreduce on both sides, measured exactly as
 * the accel figures are: how far this machine moves a ratio by itself, so
 * that a small-message ratio a few percent off 1 can be judged. No goal. */
static void comm_figure_noise(bench_ctx_t *ctx, comm_arg_t *a, int size)
{
    size_t iters = bench_comm_iters(ctx, 8);
    bench_figure_t *f = bench_figure_add(ctx, "comm", "all_reduce 8 B, MPI against itself",
                                         BENCH_TIME, "us", 1e6, 0);
    if (f == NULL)
        return;
    a->count = 2;
    f->has_baseline = true;
    snprintf(f->baseline_name, sizeof f->baseline_name, "MPI_Allreduce");
    snprintf(f->note, sizeof f->note,
             "%d ranks, f32 sum, %zu calls per repetition%s; MPI_Allreduce on both sides: the "
             "noise floor of the ratios above",
             size, iters, a->on_cpu ? ", cpu backend" : "");
    comm_measure(ctx, f, a, iters, COMM_MPI_BLOCKING, COMM_MPI_BLOCKING);
}

/* Rank 0's figures into the file the parent named (raw records: the parent
 * is this same program). */
static void comm_write_figures(const bench_ctx_t *ctx, int first, const char *path)
{
    FILE *out = fopen(path, "wb");
    unsigned magic = COMM_MAGIC;
    int count = ctx->figure_count - first;
    if (out == NULL)
        return;
    fwrite(&magic, sizeof magic, 1, out);
    fwrite(&count, sizeof count, 1, out);
    fwrite(&ctx->figures[first], sizeof ctx->figures[0], (size_t)count, out);
    fclose(out);
}

/* Whether the communicators of `acc` are MPI's (its memory is host memory). */
static bool comm_is_mpi(accel_t *acc)
{
    accel_comm_engine_info_t info = {.struct_size = sizeof info};
    return accel_comm_engine_info(acc, &info) == ACCEL_OK && info.engine != NULL &&
           strcmp(info.engine, "mpi") == 0;
}

/* This rank's MPI figures (2 or more ranks under a launcher). */
static void comm_run_mpi(bench_ctx_t *ctx)
{
    accel_t *acc = ctx->acc, *cpu = NULL;
    accel_comm_t *comm = NULL;
    comm_arg_t a = {0};
    int size = 0;
    static const size_t full[] = {8,          64,       512,       4u << 10,  32u << 10,
                                  256u << 10, 2u << 20, 16u << 20, 256u << 20};
    static const size_t quick[] = {8, 4u << 10, 1u << 20};
    const size_t *sizes = ctx->quick ? quick : full;
    size_t size_count = ctx->quick ? sizeof quick / sizeof quick[0] : sizeof full / sizeof full[0];
    accel_comm_options_t forever = {.struct_size = sizeof forever, .timeout_s = INFINITY};
    /* MPI works on host memory: a device backend's figures come from cpu. */
    a.on_cpu = !comm_is_mpi(ctx->acc);
    if (a.on_cpu && accel_open("cpu", &cpu) == ACCEL_OK)
        acc = cpu;
    if ((a.on_cpu && cpu == NULL) || accel_comm_init(acc, NULL, &comm) != ACCEL_OK ||
        accel_comm_init(acc, &forever, &a.comm_forever) != ACCEL_OK ||
        !bench_comm_bind_mpi(&a.mpi)) {
        bench_figure_t *f = bench_figure_add(ctx, "comm", "all_reduce", BENCH_TIME, "us", 1e6, 0);
        if (f != NULL)
            bench_figure_fail(f, a.comm_forever == NULL ? NULL : "libmpi's symbols not found");
        if (comm != NULL)
            accel_comm_destroy(comm);
        if (a.comm_forever != NULL)
            accel_comm_destroy(a.comm_forever);
        if (cpu != NULL)
            accel_close(cpu);
        return;
    }
    accel_comm_size(comm, &size);
    a.comm = comm;
    a.send = malloc(sizes[size_count - 1]);
    a.recv = malloc(sizes[size_count - 1]);
    if (a.send != NULL && a.recv != NULL) {
        memset(a.send, 0, sizes[size_count - 1]); /* zeros: sums stay finite */
        memset(a.recv, 0, sizes[size_count - 1]);
        if (accel_comm_init_mpi(acc, &forever, &a.mpi.self, &a.comm_self) == ACCEL_OK) {
            comm_figure_self(ctx, &a);
            accel_comm_destroy(a.comm_self);
        } else {
            bench_figure_t *f = bench_figure_add(
                ctx, "comm", "all_reduce 8 B, 1 rank (cost per call)", BENCH_TIME, "ns", 1e9, 0);
            if (f != NULL)
                bench_figure_fail(f, NULL);
        }
        for (size_t i = 0; i < size_count; i++) {
            comm_figure(ctx, &a, sizes[i], size, false);
            comm_figure(ctx, &a, sizes[i], size, true);
        }
        comm_figure_noise(ctx, &a, size);
    }
    free(a.send);
    free(a.recv);
    accel_comm_destroy(comm);
    accel_comm_destroy(a.comm_forever);
    if (cpu != NULL)
        accel_close(cpu);
}

/* Under a launcher: the part BENCH_COMM_PART_ENV names (both when unset);
 * rank 0 prints, or writes its figures where COMM_OUT_ENV says. */
static void comm_run_ranks(bench_ctx_t *ctx)
{
    const char *part = getenv(BENCH_COMM_PART_ENV), *path = getenv(COMM_OUT_ENV);
    const char *rank_text = getenv("OMPI_COMM_WORLD_RANK");
    int first = ctx->figure_count;
    bool rank0;
    if (rank_text == NULL)
        rank_text = getenv("PMI_RANK");
    rank0 = rank_text == NULL || atoi(rank_text) == 0;
    if (!rank0 && freopen("/dev/null", "w", stdout) == NULL)
        return;
    if (part == NULL || strcmp(part, "nccl") != 0)
        comm_run_mpi(ctx);
    if (part == NULL || strcmp(part, "mpi") != 0)
        bench_comm_nccl_ranks(ctx);
    if (rank0 && path != NULL)
        comm_write_figures(ctx, first, path);
}

void bench_comm_relaunch(bench_ctx_t *ctx, const char *part, int ranks, const char *backend)
{
    char path[] = "/tmp/accel-bench-comm-XXXXXX", why[200] = "", ranks_text[16];
    int fd = mkstemp(path), status = 0, argc = 0;
    pid_t pid;
    char *argv[16];
    posix_spawn_file_actions_t actions;
    snprintf(ranks_text, sizeof ranks_text, "%d", ranks);
    argv[argc++] = ctx->self_exe;
    argv[argc++] = "launch";
    argv[argc++] = "-n";
    argv[argc++] = ranks_text;
    argv[argc++] = ctx->self_exe;
    argv[argc++] = "bench";
    argv[argc++] = "--suite";
    argv[argc++] = "comm";
    if (ctx->quick)
        argv[argc++] = "--quick";
    if (backend != NULL) {
        argv[argc++] = "--backend";
        argv[argc++] = (char *)backend;
    }
    argv[argc] = NULL;
    if (fd < 0) {
        snprintf(why, sizeof why, "cannot make a temporary file in /tmp");
    } else {
        close(fd);
        setenv(COMM_OUT_ENV, path, 1);
        setenv(BENCH_COMM_PART_ENV, part, 1);
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        if (posix_spawn(&pid, ctx->self_exe, &actions, NULL, argv, environ) != 0 ||
            waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            snprintf(why, sizeof why,
                     "`accel launch -n %d accel bench --suite comm` (%s part) failed (exit %d; "
                     "is mpirun installed?)",
                     ranks, part, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        posix_spawn_file_actions_destroy(&actions);
        unsetenv(COMM_OUT_ENV);
        unsetenv(BENCH_COMM_PART_ENV);
    }
    FILE *in = why[0] ? NULL : fopen(path, "rb");
    unsigned magic = 0;
    int count = 0;
    if (in != NULL && fread(&magic, sizeof magic, 1, in) == 1 && magic == COMM_MAGIC &&
        fread(&count, sizeof count, 1, in) == 1 && count > 0 &&
        count <= BENCH_MAX_FIGURES - ctx->figure_count &&
        fread(&ctx->figures[ctx->figure_count], sizeof ctx->figures[0], (size_t)count, in) ==
            (size_t)count)
        ctx->figure_count += count;
    else if (!why[0])
        snprintf(why, sizeof why, "the ranks wrote no figures");
    if (in != NULL)
        fclose(in);
    if (fd >= 0)
        unlink(path);
    if (why[0]) {
        char name[64] = "all_reduce";
        if (strcmp(part, "nccl") == 0)
            snprintf(name, sizeof name, "nccl %d ranks all_reduce", ranks);
        bench_figure_t *f = bench_figure_add(ctx, "comm", name, BENCH_TIME, "us", 1e6, 0);
        if (f != NULL)
            bench_figure_fail(f, why);
    }
}

void bench_suite_comm(bench_ctx_t *ctx)
{
    if (getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL) {
        comm_run_ranks(ctx);
        return;
    }
    bench_comm_relaunch(ctx, "mpi", 2, NULL);
    bench_comm_nccl(ctx);
}
