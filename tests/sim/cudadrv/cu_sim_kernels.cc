// cu_sim_kernels.cc: the kernels the simulated CUDA driver can run: the
// cuda backend's own CUDA C sources (written out at build time by
// dump_kernels.c, the very text the backend gives NVRTC), compiled here as
// host C++ over cuda_emulation.h. Each kernel's entry records its
// parameters' sizes and which are pointers, taken from its C++ signature,
// so the launcher copies exactly what the kernel declares.
// Constant after load; the grid indices are per thread.
#include <cstddef>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda_emulation.h"

#include "cu_sim_kernel.h"

thread_local sim_dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace rng {
#include "accel_philox.cu"
}
namespace optim {
#include "accel_fused_optim.cu"
}

namespace {

constexpr int max_params = 16; // SIM_MAX_PARAMS of cu_sim_module.c

template <typename F> struct signature;
template <typename... A> struct signature<void (*)(A...)> {
    static constexpr int count = sizeof...(A);
    static constexpr std::size_t sizes[count > 0 ? count : 1] = {sizeof(A)...};
    static constexpr bool pointers[count > 0 ? count : 1] = {std::is_pointer<A>::value...};
    static_assert(count <= max_params, "a kernel with more parameters than the sim copies");

    template <std::size_t... I>
    static void call(void (*kernel)(A...), void *const *args, std::index_sequence<I...>)
    {
        kernel(*static_cast<typename std::remove_reference<A>::type *>(args[I])...);
    }
};

template <auto Kernel> void run_grid(void *const *args, const unsigned grid[3],
                                     const unsigned block[3])
{
    using sig = signature<decltype(Kernel)>;
    gridDim = {grid[0], grid[1], grid[2]};
    blockDim = {block[0], block[1], block[2]};
    for (unsigned bz = 0; bz < grid[2]; bz++)
        for (unsigned by = 0; by < grid[1]; by++)
            for (unsigned bx = 0; bx < grid[0]; bx++) {
                blockIdx = {bx, by, bz};
                for (unsigned tz = 0; tz < block[2]; tz++)
                    for (unsigned ty = 0; ty < block[1]; ty++)
                        for (unsigned tx = 0; tx < block[0]; tx++) {
                            threadIdx = {tx, ty, tz};
                            sig::call(Kernel, args, std::make_index_sequence<sig::count>());
                        }
            }
}

template <auto Kernel> constexpr sim_kernel_t entry(const char *name)
{
    using sig = signature<decltype(Kernel)>;
    return sim_kernel_t{name, sig::count, sig::sizes, sig::pointers, run_grid<Kernel>};
}

const sim_kernel_t kernels[] = {
    entry<rng::accel_philox_u32>("accel_philox_u32"),
    entry<rng::accel_philox_uniform>("accel_philox_uniform"),
    entry<rng::accel_philox_normal>("accel_philox_normal"),
    entry<optim::accel_fused_adam>("accel_fused_adam"),
    entry<optim::accel_fused_lion>("accel_fused_lion"),
    entry<optim::accel_fused_lamb_moments>("accel_fused_lamb_moments"),
    entry<optim::accel_fused_lamb_reduce>("accel_fused_lamb_reduce"),
    entry<optim::accel_fused_lamb_apply>("accel_fused_lamb_apply"),
};

} // namespace

extern "C" const sim_kernel_t *sim_kernel_find(const char *name)
{
    for (const sim_kernel_t &kernel : kernels)
        if (std::strcmp(kernel.name, name) == 0)
            return &kernel;
    return nullptr;
}
