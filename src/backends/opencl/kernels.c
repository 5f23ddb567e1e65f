/* kernels.c: the OpenCL backend's device code (Philox fills, docs/architecture.md, Random numbers,
 * ported line by line from src/core/philox.c) and how every program of the
 * backend is built and launched (the fused optimizer kernels of fused_optim.c use the
 * same path): from a program binary in the kernel cache when one matches,
 * else from source, and then cached. Built lazily, once per device, on first
 * use. Threads: the device's kernel_lock guards its program and kernel
 * handles and the set-arguments + enqueue pair (clSetKernelArg is not
 * thread-safe). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "backends/opencl/opencl_backend.h"

#define RNG_ELEMENTS_PER_ITEM 4
#define BUILD_LOG_EXCERPT     600

/* Philox4x32-10 and the element transforms. u32 and uniform are integer or
 * exact float math, so they match the CPU bit for bit. normal follows
 * philox.c in double when the device has fp64 (then it lands on the same
 * float, or a neighbour at a rounding boundary); without fp64 it falls back
 * to float math, a few ulp off (README.md). */
static const char rng_source[] =
    "#ifdef ACCEL_HAVE_FP64\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#endif\n"
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "#define PHILOX_M0 0xD2511F53u\n"
    "#define PHILOX_M1 0xCD9E8D57u\n"
    "#define PHILOX_W0 0x9E3779B9u\n"
    "#define PHILOX_W1 0xBB67AE85u\n"
    "\n"
    "uint4 philox_block(ulong block, uint k0, uint k1)\n"
    "{\n"
    "    uint c0 = (uint)block, c1 = (uint)(block >> 32), c2 = 0u, c3 = 0u;\n"
    "    for (int round = 0; round < 10; round++) {\n"
    "        if (round > 0) {\n"
    "            k0 += PHILOX_W0;\n"
    "            k1 += PHILOX_W1;\n"
    "        }\n"
    "        uint hi0 = mul_hi(PHILOX_M0, c0), lo0 = PHILOX_M0 * c0;\n"
    "        uint hi1 = mul_hi(PHILOX_M1, c2), lo1 = PHILOX_M1 * c2;\n"
    "        uint n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;\n"
    "        c0 = n0;\n"
    "        c1 = lo1;\n"
    "        c2 = n2;\n"
    "        c3 = lo0;\n"
    "    }\n"
    "    return (uint4)(c0, c1, c2, c3);\n"
    "}\n"
    "\n"
    "/* Word `index` of the stream; *block/*words cache the last block. */\n"
    "uint philox_word(ulong index, uint k0, uint k1, ulong *block, uint4 *words)\n"
    "{\n"
    "    ulong b = index >> 2;\n"
    "    uint slot = (uint)(index & 3u);\n"
    "    if (b != *block) {\n"
    "        *block = b;\n"
    "        *words = philox_block(b, k0, k1);\n"
    "    }\n"
    "    return slot == 0u ? (*words).x : slot == 1u ? (*words).y\n"
    "         : slot == 2u ? (*words).z : (*words).w;\n"
    "}\n"
    "\n"
    "float rng_uniform(uint word)\n"
    "{\n"
    "    return (float)(word >> 8) * 0x1.0p-24f;\n"
    "}\n"
    "\n"
    "float rng_normal(uint a, uint b)\n"
    "{\n"
    "#ifdef ACCEL_HAVE_FP64\n"
    "    const double two_pi = 6.283185307179586476925286766559;\n"
    "    double u1 = (double)((a >> 8) + 1u) * 0x1.0p-24;\n"
    "    double u2 = (double)(b >> 8) * 0x1.0p-24;\n"
    "    return (float)(sqrt(-2.0 * log(u1)) * cos(two_pi * u2));\n"
    "#else\n"
    "    const float two_pi = 6.283185307179586f;\n"
    "    float u1 = (float)((a >> 8) + 1u) * 0x1.0p-24f;\n"
    "    float u2 = (float)(b >> 8) * 0x1.0p-24f;\n"
    "    return sqrt(-2.0f * log(u1)) * cos(two_pi * u2);\n"
    "#endif\n"
    "}\n"
    "\n"
    "/* kind 0 = u32, 1 = uniform, 2 = normal (accel_rng_kind_t). Item g writes\n"
    " * elements 4g .. 4g+3 at base + byte_offset; element i reads words\n"
    " * offset + w*i (and + 1 for normal). */\n"
    "__kernel void accel_philox_fill(__global uchar *base, ulong byte_offset, ulong count,\n"
    "                                ulong seed, ulong offset, uint kind)\n"
    "{\n"
    "    ulong first = (ulong)get_global_id(0) * 4u;\n"
    "    uint k0 = (uint)seed, k1 = (uint)(seed >> 32);\n"
    "    ulong w = kind == 2u ? 2u : 1u;\n"
    "    ulong block = (ulong)-1;\n"
    "    uint4 words = (uint4)(0u);\n"
    "    __global uchar *dst = base + byte_offset + first * 4u;\n"
    "    for (ulong i = 0; i < 4u && first + i < count; i++) {\n"
    "        ulong word = offset + w * (first + i);\n"
    "        uint a = philox_word(word, k0, k1, &block, &words), bits;\n"
    "        if (kind == 0u)\n"
    "            bits = a;\n"
    "        else if (kind == 1u)\n"
    "            bits = as_uint(rng_uniform(a));\n"
    "        else\n"
    "            bits = as_uint(rng_normal(a, philox_word(word + 1u, k0, k1, &block, &words)));\n"
    "        if ((byte_offset & 3u) == 0u) {\n"
    "            ((__global uint *)dst)[i] = bits;\n"
    "        } else {\n"
    "            for (uint b = 0; b < 4u; b++)\n"
    "                dst[4u * i + b] = (uchar)(bits >> (8u * b));\n"
    "        }\n"
    "    }\n"
    "}\n";

/* ---------------------------------------------------------------- building */

static void cache_key(const accel_opencl_device_t *dev, const accel_opencl_program_source_t *source,
                      const char *options, char key[ACCEL_KERNEL_KEY_SIZE])
{
    accel_kernel_hash_t hash;
    accel_kernel_hash_init(&hash);
    accel_kernel_hash_add_string(&hash, "opencl");
    accel_kernel_hash_add_string(&hash, source->text);
    accel_kernel_hash_add_string(&hash, options);
    accel_kernel_hash_add_string(&hash, dev->name);
    accel_kernel_hash_add_string(&hash, dev->driver_version);
    accel_kernel_hash_add_string(&hash, dev->device_version);
    accel_kernel_hash_add_string(&hash, dev->platform_version);
    accel_kernel_hash_key(&hash, key);
}

/* clBuildProgram, with the start of the build log in the error. */
static accel_status_t program_build(const accel_cl_api_t *api, accel_opencl_device_t *dev,
                                    const accel_opencl_program_source_t *source,
                                    accel_cl_program program, const char *options)
{
    char log[BUILD_LOG_EXCERPT] = "";
    accel_cl_int err = api->clBuildProgram(program, 1, &dev->id, options, NULL, NULL);
    if (err == ACCEL_CL_SUCCESS)
        return ACCEL_OK;
    api->clGetProgramBuildInfo(program, dev->id, ACCEL_CL_PROGRAM_BUILD_LOG, sizeof log - 1, log,
                               NULL);
    return accel_backend_vendor_error(err, "opencl: clBuildProgram of %s failed on %s: %s (%d): %s",
                                      source->what, dev->name, accel_opencl_error_name(err),
                                      (int)err, log);
}

/* The cached binary for `key`, built for this device; NULL on a miss or when
 * the driver refuses the binary (then the caller builds from source). */
static accel_cl_program program_from_cache(const accel_cl_api_t *api, accel_opencl_device_t *dev,
                                           const accel_opencl_program_source_t *source,
                                           const char *key, const char *options)
{
    char path[4200] = "";
    void *binary = NULL;
    const unsigned char *bytes;
    size_t size = 0;
    accel_cl_int err = ACCEL_CL_SUCCESS, binary_status = ACCEL_CL_SUCCESS;
    accel_cl_program program;

    if (accel_kernel_cache_path(key, path, sizeof path) != ACCEL_OK) {
        accel_log(ACCEL_LOG_DEBUG, "opencl: kernel cache unavailable: %s", accel_last_error());
        return NULL;
    }
    if (accel_kernel_cache_get(key, &binary, &size) != ACCEL_OK) {
        accel_log(ACCEL_LOG_DEBUG, "opencl: kernel cache miss %s", path);
        return NULL;
    }
    bytes = binary;
    program = api->clCreateProgramWithBinary(dev->context, 1, &dev->id, &size, &bytes,
                                             &binary_status, &err);
    free(binary);
    if (err == ACCEL_CL_SUCCESS && binary_status == ACCEL_CL_SUCCESS &&
        program_build(api, dev, source, program, options) == ACCEL_OK) {
        accel_log(ACCEL_LOG_DEBUG, "opencl: kernel cache hit %s", path);
        return program;
    }
    if (program != NULL)
        api->clReleaseProgram(program);
    accel_log(ACCEL_LOG_DEBUG,
              "opencl: kernel cache entry %s refused by the driver (%s); "
              "building from source",
              path, accel_opencl_error_name(err != ACCEL_CL_SUCCESS ? err : binary_status));
    return NULL;
}

/* Store the program's binary for the next process; failures only log. */
static void program_to_cache(const accel_cl_api_t *api, accel_cl_program program, const char *key)
{
    size_t size = 0;
    unsigned char *binary;
    accel_cl_int err =
        api->clGetProgramInfo(program, ACCEL_CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
    if (err != ACCEL_CL_SUCCESS || size == 0)
        return;
    binary = malloc(size);
    if (binary == NULL)
        return;
    err = api->clGetProgramInfo(program, ACCEL_CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL);
    if (err == ACCEL_CL_SUCCESS && accel_kernel_cache_put(key, binary, size) != ACCEL_OK)
        accel_log(ACCEL_LOG_DEBUG, "opencl: %s", accel_last_error());
    free(binary);
}

static accel_status_t program_from_source(const accel_cl_api_t *api, accel_opencl_device_t *dev,
                                          const accel_opencl_program_source_t *source,
                                          const char *options, accel_cl_program *out)
{
    const char *texts[] = {source->text};
    accel_cl_int err = ACCEL_CL_SUCCESS;
    accel_status_t status;
    accel_cl_program program = api->clCreateProgramWithSource(dev->context, 1, texts, NULL, &err);
    if (err != ACCEL_CL_SUCCESS)
        return accel_opencl_fail("clCreateProgramWithSource", err);
    status = program_build(api, dev, source, program, options);
    if (status != ACCEL_OK) {
        api->clReleaseProgram(program);
        return status;
    }
    *out = program;
    return ACCEL_OK;
}

/* Release a built (or half-built) program slot. */
static void program_release(const accel_cl_api_t *api, accel_opencl_program_t *slot)
{
    for (size_t k = 0; k < ACCEL_OPENCL_PROGRAM_MAX_KERNELS; k++) {
        if (slot->kernels[k] != NULL)
            api->clReleaseKernel(slot->kernels[k]);
        slot->kernels[k] = NULL;
    }
    if (slot->handle != NULL)
        api->clReleaseProgram(slot->handle);
    slot->handle = NULL;
}

accel_status_t accel_opencl_program_ensure(accel_opencl_backend_t *cl, accel_opencl_device_t *dev,
                                           const accel_opencl_program_source_t *source)
{
    ACCEL_OPENCL_FORK_GUARD();
    const accel_cl_api_t *api = cl->api;
    accel_opencl_program_t *slot = &dev->programs[source->id];
    accel_opencl_program_t built = {0};
    char options[256] = "", key[ACCEL_KERNEL_KEY_SIZE];
    accel_cl_int err = ACCEL_CL_SUCCESS;
    accel_status_t status;

    if (slot->handle != NULL)
        return ACCEL_OK;
    if (source->options != NULL)
        source->options(dev, options, sizeof options);
    cache_key(dev, source, options, key);
    built.handle = program_from_cache(api, dev, source, key, options);
    if (built.handle == NULL) {
        status = program_from_source(api, dev, source, options, &built.handle);
        if (status != ACCEL_OK)
            return status;
        program_to_cache(api, built.handle, key);
    }
    for (size_t k = 0; k < source->kernel_count && err == ACCEL_CL_SUCCESS; k++)
        built.kernels[k] = api->clCreateKernel(built.handle, source->kernel_names[k], &err);
    if (err != ACCEL_CL_SUCCESS) {
        program_release(api, &built);
        return accel_opencl_fail("clCreateKernel", err);
    }
    *slot = built;
    return ACCEL_OK;
}

void accel_opencl_kernels_release(accel_opencl_backend_t *cl, accel_opencl_device_t *dev)
{
    ACCEL_OPENCL_FORK_GUARD_VOID();
    for (int p = 0; p < ACCEL_OPENCL_PROGRAM_COUNT_; p++)
        program_release(cl->api, &dev->programs[p]);
}

/* ---------------------------------------------------------------- launching */

accel_status_t accel_opencl_launch(accel_opencl_backend_t *cl, int device, void *stream,
                                   const accel_opencl_program_source_t *source, size_t kernel,
                                   const accel_opencl_arg_t *args, size_t arg_count, size_t items)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_device_t *dev = &cl->devices[device];
    accel_opencl_queue_t *queue = accel_opencl_queue_of(cl, device, stream);
    accel_cl_event done = NULL;
    const char *call = "clSetKernelArg";
    accel_cl_kernel handle;
    accel_cl_int err = ACCEL_CL_SUCCESS;
    accel_status_t status;

    pthread_mutex_lock(&dev->kernel_lock);
    status = accel_opencl_program_ensure(cl, dev, source);
    if (status != ACCEL_OK) {
        pthread_mutex_unlock(&dev->kernel_lock);
        return status;
    }
    handle = dev->programs[source->id].kernels[kernel];
    for (size_t i = 0; i < arg_count && err == ACCEL_CL_SUCCESS; i++)
        err = cl->api->clSetKernelArg(handle, (accel_cl_uint)i, args[i].size, args[i].value);
    pthread_mutex_lock(&queue->lock);
    if (err == ACCEL_CL_SUCCESS) {
        call = "clEnqueueNDRangeKernel";
        err = cl->api->clEnqueueNDRangeKernel(queue->handle, handle, 1, NULL, &items, NULL, 0, NULL,
                                              &done);
    }
    pthread_mutex_unlock(&dev->kernel_lock);
    return accel_opencl_queue_commit(cl, queue, err, done, false, call);
}

/* ---------------------------------------------------------------- fills */

static void rng_options(const accel_opencl_device_t *dev, char *out, size_t cap)
{
    snprintf(out, cap, "%s", dev->fp64 ? "-DACCEL_HAVE_FP64=1" : "");
}

static const char *const rng_kernel_names[] = {"accel_philox_fill"};

static const accel_opencl_program_source_t rng_program = {
    .id = ACCEL_OPENCL_PROGRAM_RNG,
    .what = "the Philox kernels",
    .text = rng_source,
    .kernel_names = rng_kernel_names,
    .kernel_count = 1,
    .options = rng_options,
};

accel_status_t accel_opencl_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                     void *ptr, size_t count, uint64_t seed, uint64_t offset)
{
    ACCEL_OPENCL_FORK_GUARD();
    accel_opencl_backend_t *cl = self;
    size_t items = (count + RNG_ELEMENTS_PER_ITEM - 1) / RNG_ELEMENTS_PER_ITEM;
    accel_cl_mem mem = NULL;
    size_t byte_offset = 0;
    accel_cl_ulong byte_offset_arg, count_arg = count, seed_arg = seed, offset_arg = offset;
    accel_cl_uint kind_arg = (accel_cl_uint)kind;
    accel_status_t status;

    if (count == 0)
        return ACCEL_OK;
    if (kind != ACCEL_RNG_U32 && kind != ACCEL_RNG_UNIFORM && kind != ACCEL_RNG_NORMAL)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT, "opencl: unknown rng kind %d",
                                   (int)kind);
    status = accel_opencl_resolve(cl, device, ptr, count * 4, &mem, &byte_offset);
    if (status != ACCEL_OK)
        return status;
    byte_offset_arg = byte_offset;
    const accel_opencl_arg_t args[] = {
        {sizeof mem, &mem},
        {sizeof byte_offset_arg, &byte_offset_arg},
        {sizeof count_arg, &count_arg},
        {sizeof seed_arg, &seed_arg},
        {sizeof offset_arg, &offset_arg},
        {sizeof kind_arg, &kind_arg},
    };
    return accel_opencl_launch(cl, device, stream, &rng_program, 0, args,
                               sizeof args / sizeof args[0], items);
}
