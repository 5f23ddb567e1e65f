/* aio_baselines.h: the async_io suite's outside baselines, each moving the
 * same bytes of the same file with the same block size, queue depth and
 * O_DIRECT as accel: fio (its own runtime figure, not the process's) and
 * DeepSpeed's AsyncIOBuilder op, JIT-built in a Python child. Each fills a
 * series of seconds per transfer, one sample per repetition.
 * Threads: the calling thread waits for the child processes. */
#ifndef ACCEL_BENCH_AIO_BASELINES_H
#define ACCEL_BENCH_AIO_BASELINES_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"

typedef struct aio_baseline_job {
    const char *path; /* the file, in the current directory */
    size_t bytes;     /* whole file, from offset 0 */
    size_t block_size;
    unsigned queue_depth;
    bool overlap_events; /* DeepSpeed's handle: refill the queue per completion */
    bool write;
    bool huge_buffer; /* fio: --iomem=shmhuge (a hugetlb buffer) instead of malloc */
    int reps;
    double target_s; /* a sample runs at least this long (DeepSpeed: whole transfers) */
} aio_baseline_job_t;

/* fio --ioengine=libaio --direct=1, one job. False, with `why` set (a skip
 * when fio is not installed, or for huge_buffer when the system has too few
 * free reserved huge pages: vm.nr_hugepages), when no samples came. */
bool aio_baseline_fio(const aio_baseline_job_t *job, bench_series_t *out, char *why, size_t cap);

/* DeepSpeed's aio_handle (sync_pwrite / sync_pread on a buffer from its
 * new_cpu_locked_tensor), with the Python that has torch and deepspeed
 * (python_baseline.h) and TORCH_EXTENSIONS_DIR defaulting to
 * ~/.cache/accel/torch-extensions so the JIT build is kept. Skipped when
 * ACCEL_BENCH_DEEPSPEED=0 (the CLI tests: a first JIT build takes minutes). */
bool aio_baseline_deepspeed(const aio_baseline_job_t *job, bench_series_t *out, char *why,
                            size_t cap);

#endif /* ACCEL_BENCH_AIO_BASELINES_H */
