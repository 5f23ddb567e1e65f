/* suite_aio.c: async_io (AsyncIOBuilder) read and write throughput of one
 * file, next to `dd` with O_DIRECT on the same file, in the same run: dd
 * moves the same bytes in 1 MiB blocks (oflag=direct / iflag=direct), one
 * I/O at a time, which is what a plain program gets. The file lives in the
 * current directory (so: the file system the bench is run from); 1 GiB, or
 * 16 MiB with --quick (CI). Threads: runs on the calling thread; dd is a child
 * process per repetition. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <accel/accel_ops.h>

#include "bench.h"

#define AIO_MIB ((size_t)1 << 20)

typedef struct aio_arg {
    const accel_aio_op_t *op;
    accel_aio_handle_t *handle;
    DLTensor tensor;
    int64_t shape[1];
    char path[64];
    size_t mib;
    bool dd_missing;
} aio_arg_t;

static bool aio_write(void *p, size_t iters)
{
    aio_arg_t *a = p;
    for (size_t i = 0; i < iters; i++)
        if (a->op->pwrite(a->handle, &a->tensor, a->path, 0, false) != ACCEL_OK)
            return false;
    return true;
}

static bool aio_read(void *p, size_t iters)
{
    aio_arg_t *a = p;
    for (size_t i = 0; i < iters; i++)
        if (a->op->pread(a->handle, &a->tensor, a->path, 0, false) != ACCEL_OK)
            return false;
    return true;
}

/* Run dd quietly; false if it cannot run or fails. */
static bool aio_dd(aio_arg_t *a, bool write)
{
    char in[96], out[96], count[32];
    snprintf(count, sizeof count, "count=%zu", a->mib);
    snprintf(in, sizeof in, "if=%s", write ? "/dev/zero" : a->path);
    snprintf(out, sizeof out, "of=%s", write ? a->path : "/dev/null");
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execlp("dd", "dd", in, out, "bs=1M", count, write ? "oflag=direct" : "iflag=direct",
               write ? "conv=notrunc" : "status=none", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return false;
    if (WEXITSTATUS(status) == 127)
        a->dd_missing = true;
    return WEXITSTATUS(status) == 0;
}

static bool dd_write(void *p, size_t iters)
{
    for (size_t i = 0; i < iters; i++)
        if (!aio_dd(p, true))
            return false;
    return true;
}

static bool dd_read(void *p, size_t iters)
{
    for (size_t i = 0; i < iters; i++)
        if (!aio_dd(p, false))
            return false;
    return true;
}

static bool dd_available(void)
{
    pid_t pid = fork();
    int status = 0;
    if (pid < 0)
        return false;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execlp("dd", "dd", "if=/dev/zero", "of=/dev/null", "count=1", (char *)NULL);
        _exit(127);
    }
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void bench_suite_aio(bench_ctx_t *ctx)
{
    aio_arg_t a = {.mib = ctx->quick ? 16 : 1024};
    accel_op_builder_t *builder = NULL;
    accel_aio_config_t config = ACCEL_AIO_CONFIG_DEFAULT;
    const void *table = NULL;
    void *buffer = NULL;
    char name_w[64], name_r[64], note[128];
    snprintf(name_w, sizeof name_w, "write %zu MiB O_DIRECT", a.mib);
    snprintf(name_r, sizeof name_r, "read %zu MiB O_DIRECT", a.mib);
    bench_figure_t *fw =
        bench_figure_add(ctx, "aio", name_w, BENCH_RATE, "GB/s", 0, (double)(a.mib * AIO_MIB));
    bench_figure_t *fr =
        bench_figure_add(ctx, "aio", name_r, BENCH_RATE, "GB/s", 0, (double)(a.mib * AIO_MIB));
    if (fw == NULL || fr == NULL)
        return;
    fw->has_goal = fr->has_goal = true;
    fw->goal = fr->goal = 0.95;
    if (accel_get_op_builder(ctx->acc, "AsyncIOBuilder", &builder) != ACCEL_OK ||
        accel_op_builder_load(builder, &table) != ACCEL_OK) {
        bench_figure_fail(fw, NULL);
        bench_figure_fail(fr, NULL);
        return;
    }
    a.op = table;
    /* DeepSpeed's recommended NVMe settings: 1 MiB blocks, a deep queue. */
    config.block_size = AIO_MIB;
    config.queue_depth = 32;
    config.intra_op_parallelism = 1;
    if (a.op->handle_create(ctx->acc, &config, &a.handle) != ACCEL_OK ||
        posix_memalign(&buffer, 4096, a.mib * AIO_MIB) != 0) {
        bench_figure_fail(fw, NULL);
        bench_figure_fail(fr, buffer == NULL ? "cannot allocate the buffer" : NULL);
        if (a.handle != NULL)
            a.op->handle_destroy(a.handle);
        free(buffer);
        return;
    }
    memset(buffer, 0x5a, a.mib * AIO_MIB);
    a.shape[0] = (int64_t)(a.mib * AIO_MIB);
    a.tensor = (DLTensor){.data = buffer,
                          .device = {.device_type = kDLCPU, .device_id = 0},
                          .ndim = 1,
                          .dtype = {.code = kDLUInt, .bits = 8, .lanes = 1},
                          .shape = a.shape};
    snprintf(a.path, sizeof a.path, "accel-bench-aio-%d.tmp", (int)getpid());
    bool dd = dd_available();
    bench_measure(ctx, fw, aio_write, dd ? dd_write : NULL, &a, "dd bs=1M oflag=direct",
                  "none (dd not found)");
    bench_measure(ctx, fr, aio_read, dd ? dd_read : NULL, &a, "dd bs=1M iflag=direct",
                  "none (dd not found)");
    snprintf(note, sizeof note, "%s, block 1 MiB, queue depth %u, file in ./", a.op->implementation,
             config.queue_depth);
    if (!fw->failed)
        snprintf(fw->note, sizeof fw->note, "%s", note);
    if (!fr->failed)
        snprintf(fr->note, sizeof fr->note, "%s", note);
    a.op->handle_destroy(a.handle);
    unlink(a.path);
    free(buffer);
}
