/* aio_baselines.c: fio and DeepSpeed's AsyncIOBuilder as baselines of the
 * async_io suite (aio_baselines.h). */
#include "aio_baselines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python_baseline.h"

/* fio's terse output, version 3: ';'-separated, 1-based fields. Read: KiB
 * moved at 6, runtime in ms at 9; write: 47 and 50. */
#define FIO_READ_KB      6
#define FIO_READ_MS      9
#define FIO_WRITE_KB     47
#define FIO_WRITE_MS     50
#define FIO_MIN_TRANSFER ((size_t)256 << 20) /* small files loop to this many bytes */

/* Field `index` (1-based) of a terse line as a number; -1 when absent. */
static double fio_field(const char *line, int index)
{
    for (int i = 1; i < index; i++) {
        line = strchr(line, ';');
        if (line == NULL)
            return -1;
        line++;
    }
    char *end;
    double value = strtod(line, &end);
    return end == line ? -1 : value;
}

/* A "Name:   value" line of /proc/meminfo, or -1. */
static long long meminfo_value(const char *name)
{
    char line[256];
    long long value = -1;
    size_t len = strlen(name);
    FILE *f = fopen("/proc/meminfo", "re");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, name, len) == 0 && line[len] == ':') {
            value = strtoll(line + len + 1, NULL, 10);
            break;
        }
    fclose(f);
    return value;
}

/* fio's shmhuge buffer is hugetlb memory, which exists only where huge
 * pages were reserved (vm.nr_hugepages); transparent huge pages do not
 * count. The buffer is the block size times the queue depth, plus slack. */
static bool fio_huge_pages_free(const aio_baseline_job_t *job, char *why, size_t cap)
{
    long long free_pages = meminfo_value("HugePages_Free");
    long long page_kib = meminfo_value("Hugepagesize");
    size_t need = job->block_size * job->queue_depth + ((size_t)4 << 20);
    if (free_pages >= 0 && page_kib > 0 && (size_t)(free_pages * page_kib * 1024) >= need)
        return true;
    snprintf(why, cap, "skipped: %zu MiB of free reserved huge pages needed (vm.nr_hugepages)",
             need >> 20);
    return false;
}

bool aio_baseline_fio(const aio_baseline_job_t *job, bench_series_t *out, char *why, size_t cap)
{
    char filename[128], rw[16], bs[32], depth[32], size[48], loops_arg[32], text[8192];
    size_t loops = job->bytes >= FIO_MIN_TRANSFER ? 1 : FIO_MIN_TRANSFER / job->bytes;
    char *argv[] = {"fio", "--name=accel-bench", filename, rw, bs, depth, "--direct=1",
                    "--ioengine=libaio", size, loops_arg, "--numjobs=1",
                    /* Jobs as threads, not forked processes: stopping the
                     * fio process then stops its I/O too (suite_aio.c's
                     * cleanup on a signal). */
                    "--thread", "--output-format=terse", "--terse-version=3",
                    job->huge_buffer ? "--iomem=shmhuge" : NULL, NULL};
    snprintf(filename, sizeof filename, "--filename=%s", job->path);
    snprintf(rw, sizeof rw, "--rw=%s", job->write ? "write" : "read");
    snprintf(bs, sizeof bs, "--bs=%zu", job->block_size);
    snprintf(depth, sizeof depth, "--iodepth=%u", job->queue_depth);
    snprintf(size, sizeof size, "--size=%zu", job->bytes);
    snprintf(loops_arg, sizeof loops_arg, "--loops=%zu", loops);
    out->reps = 0;
    if (job->huge_buffer && !fio_huge_pages_free(job, why, cap))
        return false;
    for (int r = 0; r < job->reps; r++) {
        int status = bench_run_capture(argv, text, sizeof text);
        if (status == 127) {
            snprintf(why, cap, "skipped: fio is not installed (scripts/deps.sh)");
            return false;
        }
        double kib = fio_field(text, job->write ? FIO_WRITE_KB : FIO_READ_KB);
        double ms = fio_field(text, job->write ? FIO_WRITE_MS : FIO_READ_MS);
        if (status != 0 || kib * 1024 != (double)(job->bytes * loops) || ms <= 0) {
            snprintf(why, cap, "fio failed (exit %d) or moved %.0f KiB", status, kib);
            return false;
        }
        out->samples[out->reps++] = ms / 1e3 / (double)loops;
    }
    return true;
}

/* DeepSpeed's op on one thread of I/O submission (intra_op_parallelism 1),
 * with accel's overlap_events,
 * DeepSpeed's buffer for O_DIRECT (page-locked, aligned: no bounce copy),
 * transfers repeated to the target time, then one line per repetition. The
 * JIT build is kept between runs in TORCH_EXTENSIONS_DIR. The script leaves
 * with os._exit once its lines are out: DeepSpeed 0.19.8's aio handle
 * sometimes aborts in its destructor at interpreter exit ("terminate called
 * without an active exception", 2 runs of 11 here), which made
 * a good sample read as a failed baseline. */
static const char aio_deepspeed_code[] =
    "import os, sys, time\n"
    "os.environ.setdefault('TORCH_EXTENSIONS_DIR',\n"
    "    os.path.expanduser('~/.cache/accel/torch-extensions'))\n"
    "path, nbytes, write = sys.argv[1], int(sys.argv[2]), sys.argv[3] == 'write'\n"
    "reps, block, depth, target = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), "
    "float(sys.argv[7])\n"
    "overlap = sys.argv[8] == 'overlap'\n"
    "try:\n"
    "    import torch\n"
    "    from deepspeed.ops.op_builder import AsyncIOBuilder\n"
    "except Exception as e:\n"
    "    print('reason no deepspeed: %s' % type(e).__name__); sys.exit(3)\n"
    "builder = AsyncIOBuilder()\n"
    "if not builder.is_compatible(False):\n"
    "    print('reason AsyncIOBuilder cannot build (libaio-dev?)'); sys.exit(3)\n"
    "try:\n"
    "    aio = builder.load(verbose=False)\n"
    "except Exception as e:\n"
    "    print('reason AsyncIOBuilder build failed: %s' % type(e).__name__); sys.exit(3)\n"
    "handle = aio.aio_handle(block, depth, False, overlap, 1)\n"
    "buf = handle.new_cpu_locked_tensor(nbytes, torch.empty(0, dtype=torch.uint8))\n"
    "buf.fill_(0x5a)\n"
    "op = handle.sync_pwrite if write else handle.sync_pread\n"
    "def run(k):\n"
    "    t = time.perf_counter()\n"
    "    for _ in range(k):\n"
    "        if op(buf, path) < 0: print('reason the transfer failed'); sys.exit(1)\n"
    "    return time.perf_counter() - t\n"
    "iters = 1\n"
    "while run(iters) < target: iters *= 2\n"
    "for _ in range(reps): print('sample', run(iters) / iters)\n"
    "handle.free_cpu_locked_tensor(buf)\n"
    "sys.stdout.flush()\n"
    "os._exit(0)\n";

bool aio_baseline_deepspeed(const aio_baseline_job_t *job, bench_series_t *out, char *why,
                            size_t cap)
{
    char python[1024], line[64], bytes[32], reps[16], block[32], depth[16], target[32];
    char *args[] = {(char *)job->path,
                    bytes,
                    job->write ? "write" : "read",
                    reps,
                    block,
                    depth,
                    target,
                    job->overlap_events ? "overlap" : "drain",
                    NULL};
    const char *wanted = getenv("ACCEL_BENCH_DEEPSPEED");
    if (wanted != NULL && strcmp(wanted, "0") == 0) {
        snprintf(why, cap, "skipped: ACCEL_BENCH_DEEPSPEED=0");
        return false;
    }
    if (!bench_python_find("torch deepspeed", python, sizeof python, why, cap))
        return false;
    snprintf(bytes, sizeof bytes, "%zu", job->bytes);
    snprintf(reps, sizeof reps, "%d", job->reps);
    snprintf(block, sizeof block, "%zu", job->block_size);
    snprintf(depth, sizeof depth, "%u", job->queue_depth);
    snprintf(target, sizeof target, "%g", job->target_s);
    int status = bench_python_samples(python, aio_deepspeed_code, args, out, line, sizeof line);
    if (status != 0 || out->reps != job->reps) {
        snprintf(why, cap, "skipped: DeepSpeed aio %s (%s)",
                 status == BENCH_PYTHON_SKIP ? "unavailable" : "failed", line);
        return false;
    }
    return true;
}
