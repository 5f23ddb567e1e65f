/* suite_comm_nccl.c: the comm suite's NCCL figures (issue 18). On the cuda
 * backend, accel_all_reduce (the nccl engine, through the communicator
 * layer) against ncclAllReduce called directly (libnccl dlopened here) on a
 * communicator of the same size made here, with the same device buffers
 * (accel_malloc, zeros) and the same CUstream: the one behind the accel
 * stream the figures use, from the backend's native_stream slot, as the
 * layer gets it. f32 sum. Latency from 8 B to 4 KiB, twice: each call
 * followed by a stream synchronize ("sync": accel_stream_synchronize against
 * cuStreamSynchronize), and N calls then one synchronize ("pipelined");
 * bandwidth from 64 KiB to 256 MiB, pipelined (busbw = bytes * 2(n-1)/n per
 * second; with 1 rank, whose busbw is 0 by that definition, algbw = bytes
 * per second). Sizes whose two buffers do not fit in half the free device
 * memory are skipped with a line saying so.
 * Ranks: this process alone (a 1-rank communicator, no MPI needed) and, with
 * 2 or more devices, one rank per device started through `accel launch`
 * (MPI hands out the direct communicator's unique id, the barriers before
 * each timed loop and the agreement on sizes and failures; a rank whose call
 * fails inside a timed loop leaves the others waiting in NCCL, so
 * scripts/gpu-check.sh bounds the run with a timeout).
 * The CUstream: the public API gives no vendor stream, so this file reads
 * accel's private handle layout (src/core/core.h) to call native_stream, as
 * tests/sim/test_ccl_engines.c does. Single-threaded: everything runs on the
 * suite's thread, on which native_stream made the device's primary context
 * current (NCCL's calls and cuStreamSynchronize need no more). The dlopened
 * libraries stay loaded for the process. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel_comm.h>

#include "backends/cuda/types.h"
#include "comm/nccl/types.h"
#include "core/core.h"
#include "suite_comm.h"

/* The direct calls: NCCL's and the one driver call of the baseline. */
typedef struct nccl_direct {
    accel_nccl_result_t (*get_unique_id)(accel_nccl_unique_id_t *);
    accel_nccl_result_t (*init_rank)(accel_nccl_comm_t *, int, accel_nccl_unique_id_t, int);
    accel_nccl_result_t (*destroy)(accel_nccl_comm_t);
    accel_nccl_result_t (*all_reduce)(const void *, void *, size_t, accel_nccl_dtype_t,
                                      accel_nccl_op_t, accel_nccl_comm_t, accel_nccl_stream_t);
    const char *(*error_string)(accel_nccl_result_t);
    accel_cu_result_t (*stream_synchronize)(accel_cu_stream_t);
} nccl_direct_t;

typedef struct nccl_bench {
    bench_ctx_t *ctx;
    nccl_direct_t nccl;
    bench_comm_mpi_t mpi;
    bool ranks; /* under a launcher: MPI is bound and agreement goes through it */
    int rank, size, device;
    accel_comm_t *comm;       /* accel's communicator */
    accel_nccl_comm_t direct; /* the direct one, same ranks */
    accel_stream_t *stream;   /* the figures' accel stream */
    accel_cu_stream_t cu;     /* the CUstream behind it (native_stream) */
    void *send, *recv;        /* device memory of max_bytes each */
    size_t max_bytes;         /* 0: none allocated */
    size_t count;             /* elements of the figure being measured */
    char label[24];           /* "" for 1 rank, " N ranks" otherwise */
    char why[200];            /* what failed */
} nccl_bench_t;

typedef enum nccl_side {
    NCCL_ACCEL,
    NCCL_DIRECT,
} nccl_side_t;

static const size_t nccl_latency_full[] = {8, 64, 512, 4u << 10};
static const size_t nccl_latency_quick[] = {8, 4u << 10};
static const size_t nccl_bandwidth_full[] = {64u << 10, 1u << 20, 16u << 20, 256u << 20};
static const size_t nccl_bandwidth_quick[] = {1u << 20, 16u << 20};

/* ---------------------------------------------------------------- setup */

/* Why no NCCL figures can be made with ctx's accelerator (false), or its
 * device count (true). */
static bool nccl_usable(bench_ctx_t *ctx, int *devices, char *why, size_t cap)
{
    accel_comm_engine_info_t info = {.struct_size = sizeof info};
    if (strcmp(ctx->backend, "cuda") != 0) {
        snprintf(why, cap,
                 "the backend is %s, not cuda (NCCL figures need an NVIDIA GPU; "
                 "--backend cuda)",
                 ctx->backend);
        return false;
    }
    if (accel_comm_engine_info(ctx->acc, &info) != ACCEL_OK) {
        snprintf(why, cap, "%s", accel_last_error());
        return false;
    }
    if (info.engine == NULL || strcmp(info.engine, "nccl") != 0 || !info.available) {
        snprintf(why, cap, "the nccl engine does not load: %s", info.detail);
        return false;
    }
    if (accel_device_count(ctx->acc, devices) != ACCEL_OK || *devices < 1) {
        snprintf(why, cap, "no CUDA device: %s", accel_last_error());
        return false;
    }
    return true;
}

static bool nccl_direct_load(nccl_direct_t *d, char *why, size_t cap)
{
    /* The library the engine loaded, found the way it finds it
     * (ACCEL_NCCL_LIBRARY, then the default names): dlopen of an object
     * that is loaded already returns that object. */
    const char *names[] = {getenv("ACCEL_NCCL_LIBRARY"), "libnccl.so.2", "libnccl.so"};
    const char *error = "no library name";
    void *nccl = NULL, *cuda;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && nccl == NULL; i++) {
        if (names[i] == NULL || names[i][0] == '\0')
            continue;
        nccl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (nccl == NULL)
            error = dlerror();
    }
    if (nccl == NULL) {
        snprintf(why, cap, "cannot dlopen libnccl for the direct calls: %s", error);
        return false;
    }
    /* The driver the backend loaded (ACCEL_CUDA_LIBRARY, else libcuda.so.1). */
    const char *driver = getenv("ACCEL_CUDA_LIBRARY");
    if (driver == NULL || driver[0] == '\0')
        driver = "libcuda.so.1";
    cuda = dlopen(driver, RTLD_NOW | RTLD_LOCAL);
    if (cuda == NULL) {
        snprintf(why, cap, "cannot dlopen %s for the direct calls: %s", driver, dlerror());
        return false;
    }
#define NCCL_LOAD(lib, field, name)                                                                \
    if ((*(void **)&d->field = dlsym(lib, name)) == NULL) {                                        \
        snprintf(why, cap, "%s not found for the direct calls", name);                             \
        return false;                                                                              \
    }
    NCCL_LOAD(nccl, get_unique_id, "ncclGetUniqueId")
    NCCL_LOAD(nccl, init_rank, "ncclCommInitRank")
    NCCL_LOAD(nccl, destroy, "ncclCommDestroy")
    NCCL_LOAD(nccl, all_reduce, "ncclAllReduce")
    NCCL_LOAD(nccl, error_string, "ncclGetErrorString")
    NCCL_LOAD(cuda, stream_synchronize, "cuStreamSynchronize")
#undef NCCL_LOAD
    return true;
}

/* Whether every rank has `ok` (so that no rank goes on into a collective
 * that another one will not make); `ok` itself in one process. */
static bool nccl_all_ok(nccl_bench_t *b, bool ok)
{
    int mine = ok, all = 0;
    if (!b->ranks)
        return ok;
    if (b->mpi.allreduce(&mine, &all, 1, b->mpi.i32, b->mpi.min, b->mpi.world) != 0) {
        snprintf(b->why, sizeof b->why, "MPI_Allreduce of the ranks' status failed");
        return false;
    }
    if (ok && all != 1)
        snprintf(b->why, sizeof b->why, "another rank failed (its own line says why)");
    return all == 1;
}

static bool nccl_fail_accel(nccl_bench_t *b, const char *what)
{
    snprintf(b->why, sizeof b->why, "%s: %s", what, accel_last_error());
    return false;
}

static bool nccl_fail_direct(nccl_bench_t *b, const char *what, accel_nccl_result_t code)
{
    const char *text = b->nccl.error_string(code);
    snprintf(b->why, sizeof b->why, "%s failed: ncclResult_t %u (%s)", what, code,
             text != NULL ? text : "no text");
    return false;
}

/* accel's communicator, the stream and its CUstream (the primary context
 * current on this thread from here on). */
static bool nccl_setup_accel(nccl_bench_t *b, const accel_comm_options_t *options)
{
    accel_t *acc = b->ctx->acc;
    void *native = NULL;
    if (accel_comm_init(acc, options, &b->comm) != ACCEL_OK)
        return nccl_fail_accel(b, "accel_comm_init");
    if (accel_comm_rank(b->comm, &b->rank) != ACCEL_OK ||
        accel_comm_size(b->comm, &b->size) != ACCEL_OK ||
        accel_comm_device(b->comm, &b->device) != ACCEL_OK)
        return nccl_fail_accel(b, "the communicator's rank, size and device");
    /* accel_malloc allocates on the current device. */
    if (accel_set_device(acc, b->device) != ACCEL_OK)
        return nccl_fail_accel(b, "accel_set_device");
    if (accel_stream_create(acc, b->device, 0, &b->stream) != ACCEL_OK)
        return nccl_fail_accel(b, "accel_stream_create");
    if (!ACCEL_BACKEND_HAS(acc->ops, native_stream)) {
        snprintf(b->why, sizeof b->why, "the cuda backend has no native_stream slot");
        return false;
    }
    if (acc->ops->native_stream(acc->self, b->device, b->stream->impl, &native) != ACCEL_OK)
        return nccl_fail_accel(b, "native_stream");
    b->cu = native;
    return true;
}

/* The direct communicator: rank 0's unique id (with one byte saying
 * whether it could make it) broadcast over MPI, or this process's own. */
static bool nccl_setup_direct(nccl_bench_t *b)
{
    struct {
        accel_nccl_unique_id_t id;
        unsigned char made;
    } message;
    accel_nccl_result_t code = ACCEL_NCCL_SUCCESS;
    memset(&message, 0, sizeof message);
    if (b->rank == 0 || !b->ranks) {
        code = b->nccl.get_unique_id(&message.id);
        message.made = code == ACCEL_NCCL_SUCCESS;
    }
    if (b->ranks &&
        b->mpi.bcast(&message, (int)sizeof message, b->mpi.byte, 0, b->mpi.world) != 0) {
        snprintf(b->why, sizeof b->why, "MPI_Bcast of the direct communicator's unique id failed");
        return false;
    }
    if (code != ACCEL_NCCL_SUCCESS)
        return nccl_fail_direct(b, "ncclGetUniqueId", code);
    if (!message.made) {
        snprintf(b->why, sizeof b->why, "rank 0 could not make the direct unique id");
        return false;
    }
    code = b->nccl.init_rank(&b->direct, b->size, message.id, b->rank);
    if (code != ACCEL_NCCL_SUCCESS) {
        b->direct = NULL;
        return nccl_fail_direct(b, "ncclCommInitRank", code);
    }
    return true;
}

/* The largest size of `sizes` whose send and recv buffers fit in half the
 * device's free memory (the rest left to NCCL and the allocator), the same
 * on every rank; 0 when none does. */
static size_t nccl_fitting(nccl_bench_t *b, const size_t *sizes, size_t count, uint64_t *free_out)
{
    uint64_t free_bytes = 0;
    int fit = -1, all = -1;
    if (accel_available_memory(b->ctx->acc, b->device, &free_bytes) != ACCEL_OK)
        free_bytes = 0;
    for (size_t i = 0; i < count; i++)
        if ((uint64_t)sizes[i] * 2 <= free_bytes / 2)
            fit = (int)i;
    *free_out = free_bytes;
    if (b->ranks && b->mpi.allreduce(&fit, &all, 1, b->mpi.i32, b->mpi.min, b->mpi.world) == 0)
        fit = all;
    return fit < 0 ? 0 : sizes[fit];
}

static bool nccl_setup_buffers(nccl_bench_t *b, size_t bytes)
{
    accel_t *acc = b->ctx->acc;
    if (accel_malloc(acc, bytes, &b->send) != ACCEL_OK ||
        accel_malloc(acc, bytes, &b->recv) != ACCEL_OK)
        return nccl_fail_accel(b, "accel_malloc of the buffers");
    /* Zeros: the sums stay zero however often they run. */
    if (accel_memset(acc, b->send, 0, bytes) != ACCEL_OK ||
        accel_memset(acc, b->recv, 0, bytes) != ACCEL_OK ||
        accel_synchronize(acc, b->device) != ACCEL_OK)
        return nccl_fail_accel(b, "clearing the buffers");
    b->max_bytes = bytes;
    return true;
}

/* Frees what setup made, in reverse order, after the stream's work. */
static void nccl_teardown(nccl_bench_t *b)
{
    accel_t *acc = b->ctx->acc;
    if (b->stream != NULL)
        accel_stream_synchronize(b->stream);
    if (b->direct != NULL)
        b->nccl.destroy(b->direct);
    if (b->comm != NULL)
        accel_comm_destroy(b->comm);
    if (b->send != NULL)
        accel_free(acc, b->send);
    if (b->recv != NULL)
        accel_free(acc, b->recv);
    if (b->stream != NULL)
        accel_stream_destroy(b->stream);
}

/* ---------------------------------------------------------------- timing */

static bool nccl_call(nccl_bench_t *b, nccl_side_t side)
{
    accel_nccl_result_t code;
    if (side == NCCL_ACCEL)
        return accel_all_reduce(b->comm, b->send, b->recv, b->count, ACCEL_DTYPE_F32,
                                ACCEL_REDUCE_SUM, b->stream) == ACCEL_OK ||
               nccl_fail_accel(b, "accel_all_reduce");
    code = b->nccl.all_reduce(b->send, b->recv, b->count, ACCEL_NCCL_FLOAT32, ACCEL_NCCL_SUM,
                              b->direct, b->cu);
    return code == ACCEL_NCCL_SUCCESS || nccl_fail_direct(b, "ncclAllReduce", code);
}

static bool nccl_sync(nccl_bench_t *b, nccl_side_t side)
{
    accel_cu_result_t code;
    if (side == NCCL_ACCEL)
        return accel_stream_synchronize(b->stream) == ACCEL_OK ||
               nccl_fail_accel(b, "accel_stream_synchronize");
    code = b->nccl.stream_synchronize(b->cu);
    if (code == ACCEL_CUDA_SUCCESS)
        return true;
    snprintf(b->why, sizeof b->why, "cuStreamSynchronize failed: CUresult %u", code);
    return false;
}

/* Seconds for `iters` calls on every rank (after a barrier; the stream is
 * idle then), synchronized after each or once at the end; < 0 on failure. */
static double nccl_time(nccl_bench_t *b, size_t iters, nccl_side_t side, bool sync_each)
{
    if (b->ranks)
        b->mpi.barrier(b->mpi.world);
    double start = bench_now();
    for (size_t i = 0; i < iters; i++)
        if (!nccl_call(b, side) || (sync_each && !nccl_sync(b, side)))
            return -1;
    if (!sync_each && !nccl_sync(b, side))
        return -1;
    return bench_now() - start;
}

static void nccl_figure(nccl_bench_t *b, size_t bytes, bool latency, bool sync_each,
                        uint64_t free_bytes)
{
    bench_ctx_t *ctx = b->ctx;
    char name[96], shown[16], why[160];
    size_t iters = bench_comm_iters(ctx, bytes);
    double factor = b->size > 1 ? 2.0 * (b->size - 1) / b->size : 1.0;
    bench_comm_size_name(bytes, shown, sizeof shown);
    snprintf(name, sizeof name, "nccl%s all_reduce %s %s", b->label, shown,
             latency ? (sync_each ? "latency sync" : "latency pipelined")
                     : (b->size > 1 ? "busbw" : "algbw"));
    if (bytes > b->max_bytes) {
        snprintf(why, sizeof why,
                 "2 buffers of %s do not fit in half the free device memory (%llu MiB free%s)",
                 shown, (unsigned long long)(free_bytes >> 20),
                 b->ranks ? " here, the least of the ranks decides" : "");
        bench_comm_skip(ctx, name, why);
        return;
    }
    bench_figure_t *f = latency ? bench_figure_add(ctx, "comm", name, BENCH_TIME, "us", 1e6, 0)
                                : bench_figure_add(ctx, "comm", name, BENCH_RATE, "GB/s", 1,
                                                   (double)bytes * factor);
    if (f == NULL)
        return;
    b->count = bytes / sizeof(float);
    f->has_baseline = true;
    f->has_goal = true;
    f->goal = 0.95;
    snprintf(f->baseline_name, sizeof f->baseline_name, "%s",
             sync_each ? "ncclAllReduce+cuStreamSynchronize" : "ncclAllReduce");
    snprintf(f->note, sizeof f->note, "%d rank%s, f32 sum, %zu calls per repetition%s", b->size,
             b->size > 1 ? "s (a GPU each)" : "", iters,
             sync_each ? ", each synchronized" : ", one synchronize");
    /* Warm-up (NCCL sets up a size's algorithm on first use), then the
     * two sides alternately. */
    bool ok = nccl_time(b, iters, NCCL_ACCEL, sync_each) >= 0 &&
              nccl_time(b, iters, NCCL_DIRECT, sync_each) >= 0;
    for (int r = 0; r < ctx->reps && nccl_all_ok(b, ok); r++) {
        double tm = nccl_time(b, iters, NCCL_ACCEL, sync_each);
        double tb = tm < 0 ? -1 : nccl_time(b, iters, NCCL_DIRECT, sync_each);
        ok = tm >= 0 && tb >= 0;
        f->measured.samples[r] = tm / (double)iters;
        f->baseline.samples[r] = tb / (double)iters;
    }
    if (!nccl_all_ok(b, ok)) {
        bench_figure_fail(f, b->why);
        return;
    }
    bench_figure_finish(f, ctx->reps);
}

/* ---------------------------------------------------------------- runs */

/* Every figure on one communicator (options NULL: this process alone). */
static void nccl_run(bench_ctx_t *ctx, bool ranks, const accel_comm_options_t *options)
{
    nccl_bench_t b = {.ctx = ctx, .ranks = ranks};
    const size_t *latency = ctx->quick ? nccl_latency_quick : nccl_latency_full;
    const size_t *bandwidth = ctx->quick ? nccl_bandwidth_quick : nccl_bandwidth_full;
    size_t latency_count = ctx->quick ? 2 : 4, bandwidth_count = ctx->quick ? 2 : 4;
    uint64_t free_bytes = 0;
    bool ok = nccl_direct_load(&b.nccl, b.why, sizeof b.why) && nccl_setup_accel(&b, options);
    /* libmpi is loaded once accel's communicator exists (its bootstrap). */
    if (ranks && !bench_comm_bind_mpi(&b.mpi)) {
        if (ok)
            snprintf(b.why, sizeof b.why, "libmpi's symbols not found");
        b.ranks = ok = false; /* no agreement possible: this rank stops here */
    }
    ok = nccl_all_ok(&b, ok);
    ok = nccl_all_ok(&b, ok && nccl_setup_direct(&b));
    if (ok) {
        size_t largest = nccl_fitting(&b, bandwidth, bandwidth_count, &free_bytes);
        if (largest == 0)
            largest = nccl_fitting(&b, latency, latency_count, &free_bytes);
        ok = nccl_all_ok(&b, largest > 0 ? nccl_setup_buffers(&b, largest) : true);
    }
    if (b.size > 1)
        snprintf(b.label, sizeof b.label, " %d ranks", b.size);
    if (!ok) {
        char name[64];
        snprintf(name, sizeof name, "nccl%s all_reduce", b.label);
        bench_figure_t *f = bench_figure_add(ctx, "comm", name, BENCH_TIME, "us", 1e6, 0);
        if (f != NULL)
            bench_figure_fail(f, b.why);
        nccl_teardown(&b);
        return;
    }
    for (size_t i = 0; i < latency_count; i++) {
        nccl_figure(&b, latency[i], true, true, free_bytes);
        nccl_figure(&b, latency[i], true, false, free_bytes);
    }
    for (size_t i = 0; i < bandwidth_count; i++)
        nccl_figure(&b, bandwidth[i], false, false, free_bytes);
    nccl_teardown(&b);
}

void bench_comm_nccl(bench_ctx_t *ctx)
{
    char why[400];
    int devices = 0;
    if (!nccl_usable(ctx, &devices, why, sizeof why)) {
        bench_comm_skip(ctx, "nccl all_reduce", why);
        return;
    }
    nccl_run(ctx, false, NULL);
    if (devices > 1)
        bench_comm_relaunch(ctx, "nccl", devices, "cuda");
    else
        bench_comm_skip(ctx, "nccl 2+ ranks all_reduce",
                        "1 CUDA device: NCCL takes one device per rank, so only 1 rank here");
}

void bench_comm_nccl_ranks(bench_ctx_t *ctx)
{
    accel_comm_options_t options = {.struct_size = sizeof options, .use_local_rank = true};
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    char why[400];
    int devices = 0, local_size;
    if (local == NULL)
        local = getenv("MPI_LOCALNRANKS");
    if (local == NULL)
        local = getenv("OMPI_COMM_WORLD_SIZE");
    if (local == NULL)
        local = getenv("PMI_SIZE");
    local_size = local != NULL ? atoi(local) : 1;
    if (!nccl_usable(ctx, &devices, why, sizeof why)) {
        bench_comm_skip(ctx, "nccl all_reduce", why);
        return;
    }
    if (local_size > devices) {
        snprintf(why, sizeof why,
                 "%d ranks on this host but %d CUDA device%s: NCCL takes one device per rank",
                 local_size, devices, devices > 1 ? "s" : "");
        bench_comm_skip(ctx, "nccl all_reduce", why);
        return;
    }
    nccl_run(ctx, true, &options);
}
