/* pool.h: accel's CPU worker pool, shared by the host ops. It splits a range
 * of elements into contiguous chunks, one per thread, the caller's thread
 * taking the first. Threads start on first use; their number is
 * ACCEL_CPU_THREADS, else the CPUs in the process's affinity mask.
 * Threads: one parallel run at a time; a caller that finds the pool busy runs
 * its work alone on its own thread (no deadlock, same result). After fork()
 * the child starts a fresh pool on first use. */
#ifndef ACCEL_OPS_CPU_POOL_H
#define ACCEL_OPS_CPU_POOL_H

#include <stddef.h>

typedef void (*accel_pool_fn_t)(void *ctx, size_t begin, size_t end);

/* Run fn over [0, count) in chunks that are multiples of `grain` elements
 * (except the last), using at most one thread per `min_per_thread` elements.
 * Returns when every chunk is done. */
void accel_pool_run(size_t count, size_t grain, size_t min_per_thread, accel_pool_fn_t fn,
                    void *ctx);

/* Threads the pool uses (>= 1), starting it if needed. */
size_t accel_pool_threads(void);

#endif /* ACCEL_OPS_CPU_POOL_H */
