/* cu_sim_kernel.h: the table of kernels the simulated CUDA driver can run,
 * shared by the C parts of the sim and its C++ half (cu_sim_kernels.cc),
 * which compiles the cuda backend's kernel sources for the host. Constant. */
#ifndef ACCEL_TESTS_SIM_CU_SIM_KERNEL_H
#define ACCEL_TESTS_SIM_CU_SIM_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel the sim can run. */
typedef struct sim_kernel {
    const char *name;
    int param_count;
    const size_t *param_sizes;
    const bool *param_is_pointer;
    /* Runs every thread of a grid, one after the other, with the arguments
     * `args` (a pointer to each value). The kernels stride over their work
     * and never talk between threads, so an order changes nothing. */
    void (*run)(void *const *args, const unsigned grid[3], const unsigned block[3]);
} sim_kernel_t;
/* The kernel of that extern "C" name, or NULL when the sim has none. */
const sim_kernel_t *sim_kernel_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* ACCEL_TESTS_SIM_CU_SIM_KERNEL_H */
