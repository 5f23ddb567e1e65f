/* kernels.c: the CUDA backend's device code: Philox fills (docs/architecture.md, Random numbers)
 * written in CUDA C below, and how every run-time compiled program of the
 * backend (the fused optimizer kernels of fused_optim.c too) is built: with NVRTC for
 * the device's exact architecture (a cubin; PTX when NVRTC cannot target
 * it), cached on disk through core/kernel_cache.h, and loaded once per
 * device into its primary context. The Philox arithmetic is
 * src/core/philox.c's, line for line, so u32 and uniform fills match the
 * CPU bit for bit; normal uses the same double Box-Muller rounded once to
 * float (within an ulp or two of the CPU, which uses glibc's log/cos).
 * This file sits below the backend: it sees a device only through an
 * accel_cuda_kernel_target_t (kernels.h) and calls nothing of backend.c;
 * the fill slot that launches the Philox kernels is rng.c.
 * Threads: any thread; a device's modules are built under its lock, and the
 * kernel handles are published atomically for the lock-free fast path. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "backends/cuda/kernels.h"

/* Each thread computes one Philox block (4 stream words) per step of a
 * grid-stride loop over the blocks the fill touches, and writes the elements
 * whose words it holds. `head` is offset % 4: the fill may start mid-block. */
static const char cuda_rng_source[] =
    "#define PHILOX_M0 0xD2511F53u\n"
    "#define PHILOX_M1 0xCD9E8D57u\n"
    "#define PHILOX_W0 0x9E3779B9u\n"
    "#define PHILOX_W1 0xBB67AE85u\n"
    "typedef unsigned int u32;\n"
    "typedef unsigned long long u64;\n"
    "typedef long long i64;\n"
    "/* Word indices wrap modulo 2^64, so block indices wrap modulo 2^62. */\n"
    "#define BLOCK_MASK 0x3FFFFFFFFFFFFFFFull\n"
    "\n"
    "__device__ __forceinline__ uint4 philox_block(u64 seed, u64 block)\n"
    "{\n"
    "    u32 c0 = (u32)block, c1 = (u32)(block >> 32), c2 = 0u, c3 = 0u;\n"
    "    u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);\n"
    "#pragma unroll\n"
    "    for (int round = 0; round < 10; round++) {\n"
    "        if (round > 0) {\n"
    "            k0 += PHILOX_W0;\n"
    "            k1 += PHILOX_W1;\n"
    "        }\n"
    "        u32 hi0 = __umulhi(PHILOX_M0, c0), lo0 = PHILOX_M0 * c0;\n"
    "        u32 hi1 = __umulhi(PHILOX_M1, c2), lo1 = PHILOX_M1 * c2;\n"
    "        u32 n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;\n"
    "        c0 = n0;\n"
    "        c1 = lo1;\n"
    "        c2 = n2;\n"
    "        c3 = lo0;\n"
    "    }\n"
    "    return make_uint4(c0, c1, c2, c3);\n"
    "}\n"
    "\n"
    "__device__ __forceinline__ float uniform_from_word(u32 word)\n"
    "{\n"
    "    return (float)(word >> 8) * 5.9604644775390625e-08f; /* 2^-24 */\n"
    "}\n"
    "\n"
    "/* philox.c's Box-Muller: double math, one rounding to float. */\n"
    "__device__ __forceinline__ float normal_from_words(u32 a, u32 b)\n"
    "{\n"
    "    const double two_pi = 6.283185307179586476925286766559;\n"
    "    double u1 = (double)((a >> 8) + 1u) * 5.9604644775390625e-08;\n"
    "    double u2 = (double)(b >> 8) * 5.9604644775390625e-08;\n"
    "    return (float)(sqrt(-2.0 * log(u1)) * cos(two_pi * u2));\n"
    "}\n"
    "\n"
    "/* One word per element: u32 (raw) or uniform. */\n"
    "template <bool UNIFORM>\n"
    "__device__ __forceinline__ void fill_words(u32 *dst, u64 count, u64 seed, u64 offset)\n"
    "{\n"
    "    const u64 head = offset & 3u, first = offset >> 2;\n"
    "    const u64 blocks = (head + count + 3u) >> 2;\n"
    "    const u64 stride = (u64)gridDim.x * blockDim.x;\n"
    "    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < blocks; t += stride) {\n"
    "        uint4 r = philox_block(seed, (first + t) & BLOCK_MASK);\n"
    "        u32 w[4] = {r.x, r.y, r.z, r.w};\n"
    "        i64 base = (i64)(4u * t) - (i64)head; /* element of word 0 */\n"
    "        if (UNIFORM) {\n"
    "            for (int j = 0; j < 4; j++)\n"
    "                w[j] = __float_as_uint(uniform_from_word(w[j]));\n"
    "        }\n"
    "        if (base >= 0 && (u64)base + 3u < count &&\n"
    "            (((unsigned long long)(dst + base)) & 15u) == 0) {\n"
    "            *(uint4 *)(dst + base) = make_uint4(w[0], w[1], w[2], w[3]);\n"
    "            continue;\n"
    "        }\n"
    "        for (int j = 0; j < 4; j++) {\n"
    "            i64 e = base + j;\n"
    "            if (e >= 0 && (u64)e < count)\n"
    "                dst[e] = w[j];\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void accel_philox_u32(u32 *dst, u64 count, u64 seed, u64 offset)\n"
    "{\n"
    "    fill_words<false>(dst, count, seed, offset);\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void accel_philox_uniform(float *dst, u64 count, u64 seed,\n"
    "                                                u64 offset)\n"
    "{\n"
    "    fill_words<true>((u32 *)dst, count, seed, offset);\n"
    "}\n"
    "\n"
    "/* Two words per element: element e reads words offset + 2e and the next\n"
    " * one, which lies in the following block when offset is odd and the first\n"
    " * word is a block's last. */\n"
    "extern \"C\" __global__ void accel_philox_normal(float *dst, u64 count, u64 seed, u64 "
    "offset)\n"
    "{\n"
    "    const u64 head = offset & 3u, first = offset >> 2;\n"
    "    const u64 blocks = (head + 2u * count + 3u) >> 2;\n"
    "    const u64 stride = (u64)gridDim.x * blockDim.x;\n"
    "    const int parity = (int)(offset & 1u);\n"
    "    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < blocks; t += stride) {\n"
    "        uint4 r = philox_block(seed, (first + t) & BLOCK_MASK);\n"
    "        u32 w[5] = {r.x, r.y, r.z, r.w, 0u};\n"
    "        i64 base = (i64)(4u * t) - (i64)head; /* word 0, relative to offset */\n"
    "        if (parity)\n"
    "            w[4] = philox_block(seed, (first + t + 1u) & BLOCK_MASK).x;\n"
    "        for (int j = parity; j < 4; j += 2) {\n"
    "            i64 rel = base + j;\n"
    "            if (rel < 0 || (u64)(rel / 2) >= count)\n"
    "                continue;\n"
    "            dst[rel / 2] = normal_from_words(w[j], w[j + 1]);\n"
    "        }\n"
    "    }\n"
    "}\n";

/* ---------------------------------------------------------------- loading NVRTC */

static pthread_once_t cuda_nvrtc_once = PTHREAD_ONCE_INIT;
static atomic_int cuda_nvrtc_major_wanted; /* the driver's CUDA major, 0: none known */
static accel_nvrtc_api_t cuda_nvrtc_api;
static bool cuda_nvrtc_ok;
static char cuda_nvrtc_reason[320];

static void cuda_nvrtc_load(void)
{
    char home_lib[256] = "", tried[240] = "", driver_match[32];
    const char *home = getenv("CUDA_HOME");
    const char *candidates[9];
    const char *const versions[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
                                    "libnvrtc.so"};
    int wanted = atomic_load(&cuda_nvrtc_major_wanted), n = 0;
    void *library;
    /* The driver's own major first (a newer NVRTC's kernels do not load),
     * then the newest, then the toolkit's unversioned name. */
    if (wanted > 0) {
        snprintf(driver_match, sizeof driver_match, "libnvrtc.so.%d", wanted);
        candidates[n++] = driver_match;
    }
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
        if (wanted <= 0 || strcmp(versions[i], driver_match) != 0)
            candidates[n++] = versions[i];
    if (home == NULL)
        home = getenv("CUDA_PATH");
    if (home != NULL) {
        snprintf(home_lib, sizeof home_lib, "%s/lib64/libnvrtc.so", home);
        candidates[n++] = home_lib;
    }
    candidates[n++] = "/usr/local/cuda/lib64/libnvrtc.so";
    candidates[n] = NULL;
    library = accel_backend_load_library("nvrtc", candidates, tried, sizeof tried);
    if (library == NULL) {
        snprintf(cuda_nvrtc_reason, sizeof cuda_nvrtc_reason, "NVRTC not found (tried %s)", tried);
        return;
    }
#define ACCEL_NVRTC_SYMBOL(required, ret, name, params, export)                                    \
    ACCEL_SYMBOL_ENTRY(cuda_nvrtc_api, required, name, export),
    const accel_symbol_t symbols[] = {
#include "backends/cuda/nvrtc_symbols.h"
    };
#undef ACCEL_NVRTC_SYMBOL
    if (accel_symbol_table_resolve(library, symbols, sizeof symbols / sizeof symbols[0], "cuda",
                                   "NVRTC (libnvrtc)", cuda_nvrtc_reason,
                                   sizeof cuda_nvrtc_reason) != ACCEL_OK) {
        dlclose(library);
        return;
    }
    cuda_nvrtc_api.library = library;
    cuda_nvrtc_ok = true;
}

void accel_cuda_nvrtc_prefer(int driver_version)
{
    atomic_store(&cuda_nvrtc_major_wanted, driver_version / 1000);
}

const accel_nvrtc_api_t *accel_cuda_nvrtc(char *reason, size_t cap)
{
    pthread_once(&cuda_nvrtc_once, cuda_nvrtc_load);
    if (cuda_nvrtc_ok)
        return &cuda_nvrtc_api;
    if (reason != NULL && cap > 0)
        snprintf(reason, cap, "%s", cuda_nvrtc_reason);
    return NULL;
}

/* Kernel names, indexed by accel_rng_kind_t. */
static const char *const cuda_rng_kernel_names[] = {
    "accel_philox_u32",
    "accel_philox_uniform",
    "accel_philox_normal",
};

const accel_cuda_program_t accel_cuda_rng_program = {
    .id = ACCEL_CUDA_PROGRAM_RNG,
    .file_name = "accel_philox.cu",
    .what = "the Philox kernels",
    .source = cuda_rng_source,
    .kernel_names = cuda_rng_kernel_names,
    .kernel_count = 3,
};

/* ---------------------------------------------------------------- compiling */

/* Contraction off: only the fused multiply-adds the source spells out fuse,
 * as in the host code the kernels reproduce. */
#define CUDA_NVRTC_FMAD_OPTION "--fmad=false"

accel_status_t accel_cuda_program_compile(const accel_nvrtc_api_t *nvrtc,
                                          const accel_cuda_program_t *program, const char *arch,
                                          bool cubin, void **out, size_t *out_size,
                                          accel_nvrtc_result_t *out_result)
{
    char arch_option[64];
    const char *options[] = {arch_option, CUDA_NVRTC_FMAD_OPTION};
    accel_nvrtc_program_t handle = NULL;
    accel_nvrtc_result_t result;
    size_t size = 0, log_size = 0;
    char *image = NULL, *log = NULL;

    snprintf(arch_option, sizeof arch_option, "--gpu-architecture=%s", arch);
    result = nvrtc->nvrtcCreateProgram(&handle, program->source, program->file_name, 0, NULL, NULL);
    *out_result = result;
    if (result != ACCEL_NVRTC_SUCCESS)
        return accel_backend_vendor_error(result, "cuda: nvrtcCreateProgram failed: %s",
                                          nvrtc->nvrtcGetErrorString(result));
    result = nvrtc->nvrtcCompileProgram(handle, 2, options);
    *out_result = result;
    if (result != ACCEL_NVRTC_SUCCESS) {
        if (nvrtc->nvrtcGetProgramLogSize(handle, &log_size) == ACCEL_NVRTC_SUCCESS &&
            log_size > 1 && (log = malloc(log_size)) != NULL &&
            nvrtc->nvrtcGetProgramLog(handle, log) != ACCEL_NVRTC_SUCCESS)
            log[0] = '\0';
        accel_backend_vendor_error(result, "cuda: NVRTC could not compile %s for %s: %s%s%s",
                                   program->what, arch, nvrtc->nvrtcGetErrorString(result),
                                   log ? ": " : "", log ? log : "");
        free(log);
        nvrtc->nvrtcDestroyProgram(&handle);
        return ACCEL_ERROR_DEVICE_ERROR;
    }
    result =
        cubin ? nvrtc->nvrtcGetCUBINSize(handle, &size) : nvrtc->nvrtcGetPTXSize(handle, &size);
    if (result == ACCEL_NVRTC_SUCCESS && (image = malloc(size > 0 ? size : 1)) != NULL)
        result = cubin ? nvrtc->nvrtcGetCUBIN(handle, image) : nvrtc->nvrtcGetPTX(handle, image);
    nvrtc->nvrtcDestroyProgram(&handle);
    *out_result = result;
    if (result != ACCEL_NVRTC_SUCCESS) { /* the size query or the copy */
        free(image);
        return accel_backend_vendor_error(result, "cuda: NVRTC could not return the %s: %s",
                                          cubin ? "cubin" : "PTX",
                                          nvrtc->nvrtcGetErrorString(result));
    }
    if (image == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "cuda: out of host memory for a kernel image");
    *out = image;
    *out_size = size;
    return ACCEL_OK;
}

/* The cache key: program, source, options, target, driver and NVRTC versions. */
static void cuda_kernel_key(const accel_cuda_kernel_target_t *target,
                            const accel_cuda_program_t *program, const char *arch, int nvrtc_major,
                            int nvrtc_minor, char key[ACCEL_KERNEL_KEY_SIZE])
{
    accel_kernel_hash_t hash;
    char versions[64];
    accel_kernel_hash_init(&hash);
    accel_kernel_hash_add_string(&hash, "accel-cuda-v1");
    accel_kernel_hash_add_string(&hash, program->file_name);
    accel_kernel_hash_add_string(&hash, program->source);
    accel_kernel_hash_add_string(&hash, CUDA_NVRTC_FMAD_OPTION);
    accel_kernel_hash_add_string(&hash, arch);
    snprintf(versions, sizeof versions, "driver %d nvrtc %d.%d", target->driver_version,
             nvrtc_major, nvrtc_minor);
    accel_kernel_hash_add_string(&hash, versions);
    accel_kernel_hash_key(&hash, key);
}

/* From the cache under `arch`, else compiled and cached. */
static accel_status_t cuda_image_for_arch(const accel_cuda_kernel_target_t *target,
                                          const accel_nvrtc_api_t *nvrtc,
                                          const accel_cuda_program_t *program, const char *arch,
                                          bool cubin, void **out, size_t *out_size,
                                          accel_nvrtc_result_t *out_result)
{
    char key[ACCEL_KERNEL_KEY_SIZE];
    int major = 0, minor = 0;
    accel_status_t status;
    nvrtc->nvrtcVersion(&major, &minor);
    cuda_kernel_key(target, program, arch, major, minor, key);
    *out_result = ACCEL_NVRTC_SUCCESS;
    if (accel_kernel_cache_get(key, out, out_size) == ACCEL_OK)
        return ACCEL_OK;
    status = accel_cuda_program_compile(nvrtc, program, arch, cubin, out, out_size, out_result);
    if (status == ACCEL_OK && accel_kernel_cache_put(key, *out, *out_size) != ACCEL_OK)
        accel_log(ACCEL_LOG_DEBUG, "cuda: kernel not cached (key %s)", key);
    return status;
}

/* The newest architecture NVRTC can target that is older than `arch`
 * (90 for sm_90), or 0 when it cannot say (before NVRTC 11.2) or knows none. */
static int cuda_nvrtc_newest_arch_below(const accel_nvrtc_api_t *nvrtc, int arch)
{
    int count = 0, best = 0, *archs;
    if (nvrtc->nvrtcGetNumSupportedArchs == NULL || nvrtc->nvrtcGetSupportedArchs == NULL ||
        nvrtc->nvrtcGetNumSupportedArchs(&count) != ACCEL_NVRTC_SUCCESS || count <= 0 ||
        (archs = calloc((size_t)count, sizeof *archs)) == NULL)
        return 0;
    if (nvrtc->nvrtcGetSupportedArchs(archs) == ACCEL_NVRTC_SUCCESS)
        for (int i = 0; i < count; i++)
            if (archs[i] < arch && archs[i] > best)
                best = archs[i];
    free(archs);
    return best;
}

accel_status_t accel_cuda_target_image(const accel_cuda_kernel_target_t *target,
                                       const accel_cuda_program_t *program, void **out,
                                       size_t *out_size)
{
    char reason[320], arch[32];
    const accel_nvrtc_api_t *nvrtc = accel_cuda_nvrtc(reason, sizeof reason);
    accel_nvrtc_result_t result;
    accel_status_t status;
    int major = 0, minor = 0;
    bool cubin;

    if (nvrtc == NULL)
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE,
                                   "cuda: %s are compiled at run time with NVRTC: %s; install "
                                   "the CUDA toolkit's NVRTC or set ACCEL_NVRTC_LIBRARY",
                                   program->what, reason);
    nvrtc->nvrtcVersion(&major, &minor);
    if (target->driver_version > 0 && major > target->driver_version / 1000)
        return accel_backend_error(ACCEL_ERROR_UNAVAILABLE,
                                   "cuda: %s need NVRTC, and the NVRTC found (%d.%d) is newer "
                                   "than the driver (CUDA %d.%d), which cannot load what it "
                                   "builds; install NVRTC %d (libnvrtc.so.%d) or set "
                                   "ACCEL_NVRTC_LIBRARY",
                                   program->what, major, minor, target->driver_version / 1000,
                                   target->driver_version % 1000 / 10,
                                   target->driver_version / 1000, target->driver_version / 1000);
    cubin = nvrtc->nvrtcGetCUBIN != NULL && nvrtc->nvrtcGetCUBINSize != NULL;
    snprintf(arch, sizeof arch, "%s_%d%d", cubin ? "sm" : "compute", target->cc_major,
             target->cc_minor);
    status = cuda_image_for_arch(target, nvrtc, program, arch, cubin, out, out_size, &result);
    if (status != ACCEL_OK && result == 5 /* NVRTC_ERROR_INVALID_OPTION */) {
        /* A device newer than this NVRTC: PTX for the newest architecture it
         * knows below the device's, which the driver compiles for the device. */
        int fallback =
            cuda_nvrtc_newest_arch_below(nvrtc, target->cc_major * 10 + target->cc_minor);
        if (fallback <= 0)
            return status;
        accel_log(ACCEL_LOG_INFO,
                  "cuda: NVRTC %d.%d cannot target %s; compiling PTX for compute_%d", major, minor,
                  arch, fallback);
        snprintf(arch, sizeof arch, "compute_%d", fallback);
        status = cuda_image_for_arch(target, nvrtc, program, arch, false, out, out_size, &result);
    }
    return status;
}

/* Load `program` into the target's module slot once; its context is current. */
static accel_status_t cuda_module_load(const accel_cuda_kernel_target_t *target,
                                       const accel_cuda_program_t *program)
{
    accel_cuda_module_t *module = &target->modules[program->id];
    const accel_cuda_api_t *cu = target->cu;
    accel_cu_function_t functions[ACCEL_CUDA_PROGRAM_MAX_KERNELS];
    accel_status_t status;
    void *image = NULL;
    size_t size = 0;

    pthread_mutex_lock(target->lock);
    if (module->tried) {
        status = module->status;
        if (status != ACCEL_OK)
            accel_backend_error(status, "%s", module->error);
        pthread_mutex_unlock(target->lock);
        return status;
    }
    status = accel_cuda_target_image(target, program, &image, &size);
    if (status == ACCEL_OK)
        status =
            accel_cuda_check(cu, cu->cuModuleLoadData(&module->handle, image), "cuModuleLoadData");
    for (int k = 0; status == ACCEL_OK && k < program->kernel_count; k++)
        status = accel_cuda_check(
            cu, cu->cuModuleGetFunction(&functions[k], module->handle, program->kernel_names[k]),
            "cuModuleGetFunction");
    free(image);
    if (status == ACCEL_OK) {
        for (int k = 0; k < program->kernel_count; k++)
            atomic_store_explicit(&module->functions[k], functions[k], memory_order_release);
    } else {
        snprintf(module->error, sizeof module->error, "%s", accel_last_error());
    }
    module->tried = true;
    module->status = status;
    pthread_mutex_unlock(target->lock);
    return status;
}

accel_status_t accel_cuda_target_kernel(const accel_cuda_kernel_target_t *target,
                                        const accel_cuda_program_t *program, int index,
                                        accel_cu_function_t *out)
{
    accel_cuda_module_t *module = &target->modules[program->id];
    accel_cu_function_t function =
        atomic_load_explicit(&module->functions[index], memory_order_acquire);
    if (function == NULL) {
        accel_status_t status = cuda_module_load(target, program);
        if (status != ACCEL_OK)
            return status;
        function = atomic_load_explicit(&module->functions[index], memory_order_acquire);
    }
    *out = function;
    return ACCEL_OK;
}

void accel_cuda_target_unload(const accel_cuda_kernel_target_t *target)
{
    for (int p = 0; p < ACCEL_CUDA_PROGRAM_COUNT_; p++) {
        if (target->modules[p].handle != NULL)
            target->cu->cuModuleUnload(target->modules[p].handle);
        target->modules[p].handle = NULL;
    }
}
