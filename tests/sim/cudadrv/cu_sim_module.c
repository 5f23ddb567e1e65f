/* cu_sim_module.c: the simulated CUDA driver's modules and kernel launches.
 * A module is loaded from what NVRTC gives the backend (a cubin, an ELF
 * file, or PTX text); its kernels are found by name in the image, and run
 * by the host build of the same CUDA C source (cu_sim_kernels.cc), one
 * thread after another on the stream's worker. The sim checks what a GPU
 * would take badly: an image for a newer architecture than the device's,
 * grid and block limits, and kernel pointer arguments that are neither
 * device nor pinned memory (CUDA_ERROR_ILLEGAL_ADDRESS, sticky, like a
 * real fault). Arguments are copied at launch, each with the size of the
 * kernel's parameter, as the driver does. Guarded by sim_lock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_sim_internal.h"

#define SIM_MAX_KERNELS_PER_MODULE 16
#define SIM_MAX_PARAMS             16 /* cu_sim_kernels.cc checks each kernel */

struct CUfunc_st {
    struct CUmod_st *module;
    const sim_kernel_t *kernel;
};

struct CUmod_st {
    int device;
    char *image; /* owned copy */
    size_t size;
    int function_count;
    struct CUfunc_st functions[SIM_MAX_KERNELS_PER_MODULE];
    struct CUmod_st *next; /* in sim_modules while loaded */
};

struct sim_launch {
    const sim_kernel_t *kernel;
    unsigned grid[3], block[3];
    unsigned char *blob;        /* the argument values, each aligned to 16 */
    void *args[SIM_MAX_PARAMS]; /* into blob */
};

static struct CUmod_st *sim_modules;

/* The size of an ELF image from its header (section headers come last in
 * what NVRTC writes), or 0 when it is not a 64-bit ELF file. */
static size_t sim_elf_size(const unsigned char *image)
{
    uint64_t shoff;
    uint16_t shentsize, shnum;
    if (memcmp(image,
               "\x7f"
               "ELF",
               4) != 0 ||
        image[4] != 2 /* ELFCLASS64 */)
        return 0;
    memcpy(&shoff, image + 0x28, sizeof shoff);
    memcpy(&shentsize, image + 0x3a, sizeof shentsize);
    memcpy(&shnum, image + 0x3c, sizeof shnum);
    if (shoff == 0 || shoff > ((uint64_t)1 << 30))
        return 0;
    return (size_t)shoff + (size_t)shentsize * shnum;
}

/* The architecture a PTX image targets (".target sm_90" gives 90), or -1. */
static int sim_ptx_target(const char *ptx)
{
    const char *target = strstr(ptx, ".target sm_");
    int arch;
    if (target == NULL || sscanf(target, ".target sm_%d", &arch) != 1)
        return -1;
    return arch;
}

SIM_API CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    CUresult code;
    CUcontext ctx;
    struct CUmod_st *loaded;
    size_t size;
    int arch;
    SIM_ENTER("cuModuleLoadData");
    if ((ctx = sim_need_context("cuModuleLoadData", &code)) == NULL)
        return code;
    if (module == NULL || image == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuModuleLoadData: NULL argument");
    arch = sim_device_arch();
    if ((size = sim_elf_size(image)) != 0) {
        /* A cubin's e_flags carry its SM number: in bits 8-15 for the ELF
         * OS ABI 0x41 that CUDA 12.8+ writes, in the low byte before. */
        const unsigned char *elf = image;
        uint32_t flags;
        unsigned sm;
        memcpy(&flags, elf + 0x30, sizeof flags);
        sm = elf[7] == 0x41 ? (flags >> 8) & 0xff : flags & 0xff;
        if ((int)sm != arch)
            return sim_error(CUDA_ERROR_INVALID_IMAGE,
                             "cuModuleLoadData: a cubin for sm_%u on a device of sm_%d", sm, arch);
    } else {
        int target = sim_ptx_target(image);
        if (strstr(image, ".version") == NULL || target < 0)
            return sim_error(CUDA_ERROR_INVALID_IMAGE,
                             "cuModuleLoadData: neither a 64-bit cubin nor PTX");
        if (target > arch)
            return sim_error(CUDA_ERROR_INVALID_IMAGE,
                             "cuModuleLoadData: PTX for sm_%d on a device of sm_%d", target, arch);
        size = strlen(image) + 1;
    }
    if ((loaded = calloc(1, sizeof *loaded)) == NULL || (loaded->image = malloc(size)) == NULL) {
        free(loaded);
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "cuModuleLoadData: out of host memory");
    }
    memcpy(loaded->image, image, size);
    loaded->size = size;
    loaded->device = ctx->device;
    pthread_mutex_lock(&sim_lock);
    loaded->next = sim_modules;
    sim_modules = loaded;
    pthread_mutex_unlock(&sim_lock);
    *module = loaded;
    return CUDA_SUCCESS;
}

/* Under sim_lock: is `module` loaded? */
static bool sim_module_live_locked(const struct CUmod_st *module)
{
    for (struct CUmod_st *m = sim_modules; m != NULL; m = m->next)
        if (m == module)
            return true;
    return false;
}

/* Does the image define a kernel `name`? PTX: an .entry; a cubin: the name
 * in its string table (NUL-terminated, after a NUL or a '.'). */
static bool sim_image_defines(const struct CUmod_st *module, const char *name)
{
    size_t length = strlen(name);
    if (memcmp(module->image,
               "\x7f"
               "ELF",
               4) != 0) {
        char entry[160];
        snprintf(entry, sizeof entry, ".entry %s(", name);
        return strstr(module->image, entry) != NULL;
    }
    for (const char *p = module->image; p + length < module->image + module->size; p++) {
        p = memmem(p, (size_t)(module->image + module->size - p), name, length + 1);
        if (p == NULL)
            return false;
        if (p > module->image && (p[-1] == '\0' || p[-1] == '.'))
            return true;
    }
    return false;
}

SIM_API CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    CUresult code;
    const sim_kernel_t *kernel;
    struct CUfunc_st *function = NULL;
    SIM_ENTER("cuModuleGetFunction");
    if (sim_need_context("cuModuleGetFunction", &code) == NULL)
        return code;
    if (hfunc == NULL || name == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuModuleGetFunction: NULL argument");
    pthread_mutex_lock(&sim_lock);
    if (!sim_module_live_locked(hmod)) {
        pthread_mutex_unlock(&sim_lock);
        return sim_error(CUDA_ERROR_INVALID_HANDLE, "cuModuleGetFunction: %p is not a module",
                         (void *)hmod);
    }
    kernel = sim_image_defines(hmod, name) ? sim_kernel_find(name) : NULL;
    for (int i = 0; kernel != NULL && i < hmod->function_count; i++)
        if (hmod->functions[i].kernel == kernel)
            function = &hmod->functions[i];
    if (kernel != NULL && function == NULL && hmod->function_count < SIM_MAX_KERNELS_PER_MODULE) {
        function = &hmod->functions[hmod->function_count++];
        function->module = hmod;
        function->kernel = kernel;
    }
    pthread_mutex_unlock(&sim_lock);
    if (function == NULL)
        return sim_error(CUDA_ERROR_NOT_FOUND,
                         "cuModuleGetFunction: the module defines no kernel %s the sim can run",
                         name);
    *hfunc = function;
    return CUDA_SUCCESS;
}

/* Waits for the device's queued work first: its launches may use the module. */
SIM_API CUresult cuModuleUnload(CUmodule hmod)
{
    CUresult code;
    CUcontext ctx;
    bool found = false;
    SIM_ENTER("cuModuleUnload");
    if ((ctx = sim_need_context("cuModuleUnload", &code)) == NULL)
        return code;
    sim_streams_drain(ctx->device, false);
    pthread_mutex_lock(&sim_lock);
    for (struct CUmod_st **link = &sim_modules; *link != NULL; link = &(*link)->next)
        if (*link == hmod) {
            *link = hmod->next;
            found = true;
            break;
        }
    pthread_mutex_unlock(&sim_lock);
    if (!found)
        return sim_error(CUDA_ERROR_INVALID_HANDLE, "cuModuleUnload: %p is not a module",
                         (void *)hmod);
    free(hmod->image);
    free(hmod);
    return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- launches */

static size_t sim_round16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

SIM_API CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX,
                                unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream, void **kernelParams,
                                void **extra)
{
    CUresult code;
    CUcontext ctx;
    const sim_kernel_t *kernel = NULL;
    int device = -1;
    sim_launch_t *launch;
    size_t total = 0;
    SIM_ENTER("cuLaunchKernel");
    if ((ctx = sim_need_context("cuLaunchKernel", &code)) == NULL)
        return code;
    pthread_mutex_lock(&sim_lock);
    if (f != NULL && sim_module_live_locked(f->module)) {
        kernel = f->kernel;
        device = f->module->device;
    }
    pthread_mutex_unlock(&sim_lock);
    if (kernel == NULL)
        return sim_error(CUDA_ERROR_INVALID_HANDLE,
                         "cuLaunchKernel: %p is not a function of a loaded module", (void *)f);
    if (device != ctx->device)
        return sim_error(CUDA_ERROR_INVALID_HANDLE,
                         "cuLaunchKernel: the function is device %d's, the context device %d's",
                         device, ctx->device);
    if (gridDimX == 0 || gridDimY == 0 || gridDimZ == 0 || gridDimX > 2147483647u ||
        gridDimY > 65535 || gridDimZ > 65535 || blockDimX == 0 || blockDimY == 0 ||
        blockDimZ == 0 || blockDimX > 1024 || blockDimY > 1024 || blockDimZ > 64 ||
        (unsigned long long)blockDimX * blockDimY * blockDimZ > 1024)
        return sim_error(CUDA_ERROR_INVALID_VALUE,
                         "cuLaunchKernel: grid %ux%ux%u / block %ux%ux%u out of the limits",
                         gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ);
    if (sharedMemBytes > 49152)
        return sim_error(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel: %u bytes of shared memory",
                         sharedMemBytes);
    if (extra != NULL)
        return sim_error(CUDA_ERROR_NOT_SUPPORTED,
                         "cuLaunchKernel: `extra` is not simulated; pass kernelParams");
    if (kernel->param_count > 0 && kernelParams == NULL)
        return sim_error(CUDA_ERROR_INVALID_VALUE,
                         "cuLaunchKernel: %s takes %d parameters but "
                         "kernelParams is NULL",
                         kernel->name, kernel->param_count);
    for (int i = 0; i < kernel->param_count; i++) {
        if (kernelParams[i] == NULL)
            return sim_error(CUDA_ERROR_INVALID_VALUE,
                             "cuLaunchKernel: %s: kernelParams[%d] is NULL", kernel->name, i);
        total += sim_round16(kernel->param_sizes[i]);
    }
    if ((launch = calloc(1, sizeof *launch)) == NULL ||
        (launch->blob = aligned_alloc(16, total > 0 ? total : 16)) == NULL) {
        free(launch);
        return sim_error(CUDA_ERROR_OUT_OF_MEMORY, "cuLaunchKernel: out of host memory");
    }
    launch->kernel = kernel;
    launch->grid[0] = gridDimX, launch->grid[1] = gridDimY, launch->grid[2] = gridDimZ;
    launch->block[0] = blockDimX, launch->block[1] = blockDimY, launch->block[2] = blockDimZ;
    total = 0;
    for (int i = 0; i < kernel->param_count; i++) {
        launch->args[i] = launch->blob + total;
        memcpy(launch->args[i], kernelParams[i], kernel->param_sizes[i]);
        total += sim_round16(kernel->param_sizes[i]);
    }
    return sim_stream_launch(hStream, launch, "cuLaunchKernel");
}

sim_launch_t *sim_launch_copy(const sim_launch_t *launch)
{
    size_t total = 0;
    sim_launch_t *copy = malloc(sizeof *copy);
    for (int i = 0; i < launch->kernel->param_count; i++)
        total += sim_round16(launch->kernel->param_sizes[i]);
    if (copy == NULL || (copy->blob = aligned_alloc(16, total > 0 ? total : 16)) == NULL) {
        free(copy);
        return NULL;
    }
    copy->kernel = launch->kernel;
    memcpy(copy->grid, launch->grid, sizeof copy->grid);
    memcpy(copy->block, launch->block, sizeof copy->block);
    memcpy(copy->blob, launch->blob, total);
    for (int i = 0; i < launch->kernel->param_count; i++)
        copy->args[i] = copy->blob + ((unsigned char *)launch->args[i] - launch->blob);
    return copy;
}

void sim_launch_free(sim_launch_t *launch)
{
    if (launch == NULL)
        return;
    free(launch->blob);
    free(launch);
}

CUresult sim_launch_run(const sim_launch_t *launch)
{
    const sim_kernel_t *kernel = launch->kernel;
    for (int i = 0; i < kernel->param_count; i++) {
        void *pointer;
        if (!kernel->param_is_pointer[i])
            continue;
        memcpy(&pointer, launch->args[i], sizeof pointer);
        if (pointer != NULL && sim_memory_kind(pointer, 1, NULL) == SIM_MEM_HOST)
            return sim_error(CUDA_ERROR_ILLEGAL_ADDRESS,
                             "kernel %s: argument %d (%p) is neither device nor pinned memory",
                             kernel->name, i, pointer);
    }
    kernel->run(launch->args, launch->grid, launch->block);
    return CUDA_SUCCESS;
}
