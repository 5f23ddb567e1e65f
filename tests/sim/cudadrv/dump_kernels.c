/* dump_kernels.c: a build step of the cuda sim. Writes the cuda backend's
 * CUDA C programs (the Philox fills, the fused optimizer ops), exactly the
 * source text the backend hands NVRTC, to <dir>/accel_philox.cu and
 * <dir>/accel_fused_optim.cu, for cu_sim_kernels.cc to compile on the host. */
#include <stdio.h>

#include "backends/cuda/fused_optim.h"
#include "backends/cuda/kernels.h"

static int write_program(const char *dir, const accel_cuda_program_t *program)
{
    char path[4096];
    FILE *file;
    snprintf(path, sizeof path, "%s/%s", dir, program->file_name);
    file = fopen(path, "w");
    if (file == NULL || fputs(program->source, file) < 0 || fclose(file) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
        return 2;
    }
    return write_program(argv[1], &accel_cuda_rng_program) |
           write_program(argv[1], &accel_cuda_optim_program);
}
