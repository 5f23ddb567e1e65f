/* test_backend.c: an out-of-tree backend built as a plugin, for the loader
 * tests. One source, several plugins (PLUGIN_KIND picks):
 *   0 libaccel-backend-testxpu.so   a working host-memory backend registered
 *                                   as "xpu.external" (1 device, all work done
 *                                   inline, Philox RNG as docs/architecture.md, Random numbers
 * says) 1 libaccel-backend-badabi.so    the same table claiming ABI version 999 2
 * libaccel-backend-nosymbol.so  the same code without the entry symbol 3
 * libaccel-backend-reentrant.so an entry that calls accel_get, accel_open, accel_detect and
 *                                   accel_supported_names before returning
 *                                   its table "reentrant" (prints what they
 *                                   returned on stderr for ctest to match)
 *   4 libaccel-backend-selfreg.so   an entry that registers its own table
 *                                   "selfreg" and also returns it
 *   5 libaccel-backend-selfnull.so  an entry that registers its own table
 *                                   "selfnull" and returns NULL
 *   6 libaccel-backend-nodev.so     the working backend as "nodev", whose
 *                                   runtime is present but has 0 devices
 *                                   (for `accel report` / `accel env` run
 *                                   on a backend named without a device)
 * It sees only the public headers and links libaccel for accel_backend_error.
 * Threads: every slot is thread-safe (no shared mutable state besides the
 * per-instance `initialized` flag, written once by core under its init lock). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel_backend.h>

#ifndef PLUGIN_KIND
#define PLUGIN_KIND 0
#endif

#if PLUGIN_KIND == 0
#define PLUGIN_NAME "xpu.external"
#define PLUGIN_ABI  ACCEL_BACKEND_ABI_VERSION
#elif PLUGIN_KIND == 1
#define PLUGIN_NAME "badabi"
#define PLUGIN_ABI  999u
#elif PLUGIN_KIND == 2
#define PLUGIN_NAME "nosymbol"
#define PLUGIN_ABI  ACCEL_BACKEND_ABI_VERSION
#elif PLUGIN_KIND == 3
#define PLUGIN_NAME "reentrant"
#define PLUGIN_ABI  ACCEL_BACKEND_ABI_VERSION
#elif PLUGIN_KIND == 4
#define PLUGIN_NAME "selfreg"
#define PLUGIN_ABI  ACCEL_BACKEND_ABI_VERSION
#elif PLUGIN_KIND == 6
#define PLUGIN_NAME    "nodev"
#define PLUGIN_ABI     ACCEL_BACKEND_ABI_VERSION
#define PLUGIN_DEVICES 0
#else
#define PLUGIN_NAME "selfnull"
#define PLUGIN_ABI  ACCEL_BACKEND_ABI_VERSION
#endif

#ifndef PLUGIN_DEVICES
#define PLUGIN_DEVICES 1
#endif

typedef struct plugin_state {
    bool initialized;
} plugin_state_t;

/* ------------------------------------------------------------ Philox4x32-10 */

typedef struct philox_block {
    uint32_t w[4];
} philox_block_t;

static void philox_round(uint32_t ctr[4], const uint32_t key[2])
{
    uint64_t p0 = (uint64_t)0xD2511F53u * ctr[0];
    uint64_t p1 = (uint64_t)0xCD9E8D57u * ctr[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t next[4] = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
    memcpy(ctr, next, sizeof next);
}

/* The four words of block `index` (a 64-bit counter is plenty for a test). */
static philox_block_t philox_block(uint64_t seed, uint64_t index)
{
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    philox_block_t block = {{(uint32_t)index, (uint32_t)(index >> 32), 0, 0}};
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            key[0] += 0x9E3779B9u;
            key[1] += 0xBB67AE85u;
        }
        philox_round(block.w, key);
    }
    return block;
}

static uint32_t philox_word(uint64_t seed, uint64_t j)
{
    return philox_block(seed, j / 4).w[j % 4];
}

static float philox_uniform(uint32_t word)
{
    return (float)(word >> 8) * (1.0f / 16777216.0f);
}

static float philox_normal(uint32_t a, uint32_t b)
{
    double u1 = ((double)(a >> 8) + 1.0) / 16777216.0;
    double u2 = (double)(b >> 8) / 16777216.0;
    return (float)(sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2));
}

/* ------------------------------------------------------------ slots */

static void plugin_probe(accel_probe_result_t *out)
{
    out->available = true;
    out->device_count = PLUGIN_DEVICES;
    snprintf(out->reason, sizeof out->reason, "test plugin: host memory, %d device(s)",
             PLUGIN_DEVICES);
}

static accel_status_t plugin_create(void **out_self)
{
    plugin_state_t *state = calloc(1, sizeof *state);
    if (state == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "%s: out of host memory",
                                   PLUGIN_NAME);
    *out_self = state;
    return ACCEL_OK;
}

static void plugin_destroy(void *self)
{
    free(self);
}

static accel_status_t plugin_init(void *self)
{
    ((plugin_state_t *)self)->initialized = true;
    return ACCEL_OK;
}

static accel_status_t plugin_device_count(void *self, int *out)
{
    (void)self;
    *out = PLUGIN_DEVICES;
    return ACCEL_OK;
}

/* Every slot finishes its work before returning, so there is nothing to wait for. */
static accel_status_t plugin_synchronize(void *self, int device)
{
    (void)self;
    (void)device;
    return ACCEL_OK;
}

static accel_status_t plugin_supported_dtypes(void *self, int device, accel_dtype_t *out,
                                              size_t cap, size_t *out_count)
{
    static const accel_dtype_t dtypes[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F16, ACCEL_DTYPE_BF16};
    size_t n = sizeof dtypes / sizeof dtypes[0];
    (void)self;
    (void)device;
    memcpy(out, dtypes, (cap < n ? cap : n) * sizeof dtypes[0]);
    *out_count = n;
    return ACCEL_OK;
}

static accel_status_t plugin_mem_alloc(void *self, int device, size_t size, void **out)
{
    void *ptr = malloc(size);
    (void)self;
    (void)device;
    if (ptr == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes",
                                   PLUGIN_NAME, size);
    *out = ptr;
    return ACCEL_OK;
}

static void plugin_mem_free(void *self, int device, void *ptr)
{
    (void)self;
    (void)device;
    free(ptr);
}

static accel_status_t plugin_memcpy_async(void *self, int device, void *dst, const void *src,
                                          size_t size, accel_copy_kind_t kind, void *stream)
{
    (void)self;
    (void)device;
    (void)kind; /* host memory on both sides whatever the direction */
    (void)stream;
    memmove(dst, src, size);
    return ACCEL_OK;
}

static accel_status_t plugin_memset_async(void *self, int device, void *dst, int value, size_t size,
                                          void *stream)
{
    (void)self;
    (void)device;
    (void)stream;
    memset(dst, value, size);
    return ACCEL_OK;
}

static accel_status_t plugin_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                      void *ptr, size_t count, uint64_t seed, uint64_t offset)
{
    (void)self;
    (void)device;
    (void)stream;
    for (size_t i = 0; i < count; i++) {
        switch (kind) {
        case ACCEL_RNG_U32: ((uint32_t *)ptr)[i] = philox_word(seed, offset + i); break;
        case ACCEL_RNG_UNIFORM:
            ((float *)ptr)[i] = philox_uniform(philox_word(seed, offset + i));
            break;
        case ACCEL_RNG_NORMAL:
            ((float *)ptr)[i] = philox_normal(philox_word(seed, offset + 2 * i),
                                              philox_word(seed, offset + 2 * i + 1));
            break;
        default:
            return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s: unknown rng kind %d",
                                       PLUGIN_NAME, (int)kind);
        }
    }
    return ACCEL_OK;
}

/* ------------------------------------------------------------ the table */

static const char *const plugin_compile_backends[] = {"inductor"};
static const char *const plugin_visible_envs[] = {"ZE_AFFINITY_MASK"};

static const accel_backend_info_t plugin_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .communication_backend = "ccl",
    .default_compile_backend = "inductor",
    .compile_backends = plugin_compile_backends,
    .compile_backend_count = 1,
    .visible_devices_envs = plugin_visible_envs,
    .visible_devices_env_count = 1,
    .dlpack_device_type = kDLCPU, /* its "device" memory is host memory */
    .synchronized_device = true,
    .use_host_timers = true,
    .runtime_library = "libc (host memory)",
    .vendor_stack = "accel test plugin",
};

static const accel_backend_ops_t plugin_ops = {
    .abi_version = PLUGIN_ABI,
    .struct_size = sizeof(accel_backend_ops_t),
    .name = PLUGIN_NAME,
    .info = &plugin_info,
    .probe = plugin_probe,
    .create = plugin_create,
    .destroy = plugin_destroy,
    .init = plugin_init,
    .device_count = plugin_device_count,
    .synchronize = plugin_synchronize,
    .supported_dtypes = plugin_supported_dtypes,
    .mem_alloc = plugin_mem_alloc,
    .mem_free = plugin_mem_free,
    .memcpy_async = plugin_memcpy_async,
    .memset_async = plugin_memset_async,
    .rng_fill = plugin_rng_fill,
};

#if PLUGIN_KIND == 3
#include <accel/accel.h>

/* Calls the loader is in the middle of; each must return (not deadlock). */
static void plugin_call_back_into_accel(void)
{
    accel_t *acc = NULL;
    size_t count = 0;
    accel_status_t status = accel_get(&acc);
    fprintf(stderr, "reentrant plugin: accel_get -> %s: %s\n", accel_status_name(status),
            status == ACCEL_OK ? "ok" : accel_last_error());
    status = accel_open("cpu", &acc);
    fprintf(stderr, "reentrant plugin: accel_open -> %s\n", accel_status_name(status));
    if (status == ACCEL_OK)
        accel_close(acc);
    status = accel_detect(NULL, 0, &count);
    fprintf(stderr, "reentrant plugin: accel_detect -> %s\n", accel_status_name(status));
    fprintf(stderr, "reentrant plugin: accel_supported_names -> %s\n", accel_supported_names());
}
#endif

#if PLUGIN_KIND != 2
__attribute__((visibility("default"))) const accel_backend_ops_t *accel_backend_entry(void);

const accel_backend_ops_t *accel_backend_entry(void)
{
#if PLUGIN_KIND == 3
    plugin_call_back_into_accel();
#elif PLUGIN_KIND == 4
    if (accel_register_backend(&plugin_ops) != ACCEL_OK)
        return NULL;
#elif PLUGIN_KIND == 5
    (void)accel_register_backend(&plugin_ops);
    return NULL; /* refused by the loader, but the table is registered */
#endif
    return &plugin_ops;
}
#else
/* No entry symbol: the loader must refuse this file. The table is reachable
 * through a differently named function so the code is still compiled. */
__attribute__((visibility("default"))) const accel_backend_ops_t *not_the_entry(void);

const accel_backend_ops_t *not_the_entry(void)
{
    return &plugin_ops;
}
#endif
