/* rng.c: the CUDA backend's rng_fill slot: launches the Philox fill kernels
 * (their CUDA C source and program live in kernels.c) on the caller's stream.
 * Any thread: the device's context is made current first. */
#include "backends/cuda/cuda_backend.h"

#define CUDA_RNG_THREADS  256u
#define CUDA_RNG_MAX_GRID 65535u

/* ---------------------------------------------------------------- fills */

accel_status_t accel_cuda_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                   void *ptr, size_t count, uint64_t seed, uint64_t offset)
{
    accel_cuda_backend_t *cuda = self;
    accel_cu_function_t function;
    unsigned long long n = count, s = seed, o = offset;
    unsigned long long words = (unsigned long long)(kind == ACCEL_RNG_NORMAL ? 2 : 1) * n;
    unsigned long long blocks = ((offset & 3u) + words + 3u) / 4u;
    unsigned long long grid = (blocks + CUDA_RNG_THREADS - 1) / CUDA_RNG_THREADS;
    void *params[] = {&ptr, &n, &s, &o};
    accel_status_t status;

    if ((unsigned)kind >= (unsigned)accel_cuda_rng_program.kernel_count)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT, "cuda: unknown fill kind %d",
                                   (int)kind);
    if (count == 0)
        return ACCEL_OK;
    status = accel_cuda_activate(cuda, device);
    if (status == ACCEL_OK)
        status = accel_cuda_kernel(cuda, device, &accel_cuda_rng_program, (int)kind, &function);
    if (status != ACCEL_OK)
        return status;
    if (grid > CUDA_RNG_MAX_GRID)
        grid = CUDA_RNG_MAX_GRID; /* the kernels loop over the rest */
    return accel_cuda_check(cuda->cu,
                            cuda->cu->cuLaunchKernel(function, (unsigned)grid, 1, 1,
                                                     CUDA_RNG_THREADS, 1, 1, 0, stream, params,
                                                     NULL),
                            "cuLaunchKernel (Philox fill)");
}
