/* test_ccl_engines.c: the vendor collectives engines (src/comm/<engine>/)
 * driven through their function tables on the simulated CCL libraries of
 * tests/sim/ccl, before and without accel's communicator layer. Run under
 * mpirun (2 or more ranks), one backend and its engine per run:
 *   mpirun -n 2 test_ccl_engines npu hccl
 * Each rank opens the backend on its simulated runtime, gets the device
 * current and the vendor stream through native_stream, and checks every
 * collective against a reference it computes itself from every rank's
 * (deterministic) data: each dtype and op the engine's tables map, in place
 * and not, counts 1, 7 and 1000, a group of sends and receives, stream order
 * (the data arrives by an asynchronous copy queued just before the
 * collective), and every call site failing once by fault injection (the
 * sentence names the vendor function and code; the call works again after).
 * Without mpirun: `test_ccl_engines missing <engine>` checks the sentence of
 * a library that does not load (ACCEL_<ENGINE>_LIBRARY names a missing file),
 * `test_ccl_engines lacks <engine> <symbol>` one that lacks a symbol, and
 * `test_ccl_engines nogroups <engine>` a CNCL or TCCL without the optional
 * group calls, `test_ccl_engines noreduce hccl` an Ascend HCCL without
 * HcclReduce, `test_ccl_engines native <backend>` the backend's
 * native_stream slot, and `test_ccl_engines refuses oneccl` an engine that
 * loads its real library but refuses communicators (ACCEL_ONECCL_LIBRARY
 * names it).
 * Exit 0 when every check passed on every rank. */
#include <dlfcn.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "accel/accel.h"
#include "comm/vendor_engines.h"
#include "core/core.h"

static int failures;
static int world_rank, world_size;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", world_rank, __FILE__, __LINE__,  \
                    #cond);                                                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, " (last error: %s)\n", accel_last_error());                            \
        }                                                                                          \
    } while (0)

static const accel_comm_engine_t *engine_named(const char *name)
{
    const accel_comm_engine_t *all[] = {&accel_comm_engine_nccl,        &accel_comm_engine_hccl,
                                        &accel_comm_engine_habana_hccl, &accel_comm_engine_cncl,
                                        &accel_comm_engine_tccl,        &accel_comm_engine_oneccl};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

/* ---------------------------------------------------------------- values */

static const size_t dtype_size[ACCEL_DTYPE_COUNT_] = {4, 2, 2, 8, 1, 4, 8};
static const char *const dtype_name[ACCEL_DTYPE_COUNT_] = {"f32", "f16", "bf16", "f64",
                                                           "u8",  "i32", "i64"};
static const char *const op_name[ACCEL_REDUCE_COUNT_] = {"sum", "prod", "min", "max", "avg"};

/* Small integers (exact in every dtype, products of 4 ranks included). */
static double value_of(int rank, size_t i, int salt)
{
    return (double)((i * 7 + (size_t)rank * 5 + (size_t)salt) % 3 + 1);
}

static uint16_t half_of(double v) /* exact for the small integers and halves used here */
{
    int e;
    double m = frexp(v, &e); /* v = m * 2^e, m in [0.5, 1) */
    if (v == 0)
        return 0;
    return (uint16_t)(((e - 1 + 15) << 10) | ((uint32_t)((m * 2 - 1) * 1024) & 0x3ff));
}

static double from_half(uint16_t h)
{
    int e = (h >> 10) & 0x1f;
    if (e == 0)
        return ldexp(h & 0x3ff, -24);
    return ldexp((double)((h & 0x3ff) | 0x400), e - 25);
}

static void store(void *buf, accel_dtype_t dtype, size_t i, double v)
{
    float f = (float)v;
    uint32_t bits;
    switch (dtype) {
    case ACCEL_DTYPE_F32: ((float *)buf)[i] = f; break;
    case ACCEL_DTYPE_F16: ((uint16_t *)buf)[i] = half_of(v); break;
    case ACCEL_DTYPE_BF16:
        memcpy(&bits, &f, sizeof bits);
        ((uint16_t *)buf)[i] = (uint16_t)(bits >> 16);
        break;
    case ACCEL_DTYPE_F64: ((double *)buf)[i] = v; break;
    case ACCEL_DTYPE_U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case ACCEL_DTYPE_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case ACCEL_DTYPE_I64: ((int64_t *)buf)[i] = (int64_t)v; break;
    default: break;
    }
}

static double load_value(const void *buf, accel_dtype_t dtype, size_t i)
{
    uint32_t bits;
    float f;
    switch (dtype) {
    case ACCEL_DTYPE_F32: return ((const float *)buf)[i];
    case ACCEL_DTYPE_F16: return from_half(((const uint16_t *)buf)[i]);
    case ACCEL_DTYPE_BF16:
        bits = (uint32_t)((const uint16_t *)buf)[i] << 16;
        memcpy(&f, &bits, sizeof f);
        return f;
    case ACCEL_DTYPE_F64: return ((const double *)buf)[i];
    case ACCEL_DTYPE_U8: return ((const uint8_t *)buf)[i];
    case ACCEL_DTYPE_I32: return ((const int32_t *)buf)[i];
    case ACCEL_DTYPE_I64: return (double)((const int64_t *)buf)[i];
    default: return NAN;
    }
}

static bool is_integer(accel_dtype_t dtype)
{
    return dtype == ACCEL_DTYPE_U8 || dtype == ACCEL_DTYPE_I32 || dtype == ACCEL_DTYPE_I64;
}

/* op over ranks of value_of(r, i, salt). */
static double reference(accel_reduce_op_t op, accel_dtype_t dtype, size_t i, int salt, int ranks)
{
    double acc = value_of(0, i, salt);
    for (int r = 1; r < ranks; r++) {
        double v = value_of(r, i, salt);
        switch (op) {
        case ACCEL_REDUCE_PROD: acc *= v; break;
        case ACCEL_REDUCE_MIN: acc = v < acc ? v : acc; break;
        case ACCEL_REDUCE_MAX: acc = v > acc ? v : acc; break;
        default: acc += v; break;
        }
    }
    if (op == ACCEL_REDUCE_AVG)
        acc = is_integer(dtype) ? floor(acc / ranks) : acc / ranks;
    if (dtype == ACCEL_DTYPE_U8)
        acc = fmod(acc, 256);
    return acc;
}

/* ---------------------------------------------------------------- the device side */

typedef struct env {
    accel_t *acc;
    const accel_comm_engine_t *engine;
    accel_comm_engine_ctx_t ctx;
    accel_stream_t *stream;
    void *native; /* the vendor stream behind `stream` */
    void *comm;
} env_t;

static void *device_buffer(env_t *env, size_t bytes)
{
    void *ptr = NULL;
    accel_status_t status = accel_malloc(env->acc, bytes > 0 ? bytes : 1, &ptr);
    CHECK(status == ACCEL_OK, "accel_malloc(%zu)", bytes);
    return ptr;
}

static void upload(env_t *env, void *dst, const void *src, size_t bytes)
{
    if (bytes > 0)
        CHECK(accel_memcpy(env->acc, dst, src, bytes, ACCEL_COPY_HOST_TO_DEVICE) == ACCEL_OK,
              "upload");
}

static void download(env_t *env, void *dst, const void *src, size_t bytes)
{
    CHECK(accel_stream_synchronize(env->stream) == ACCEL_OK, "stream synchronize");
    if (bytes > 0)
        CHECK(accel_memcpy(env->acc, dst, src, bytes, ACCEL_COPY_DEVICE_TO_HOST) == ACCEL_OK,
              "download");
}

/* ---------------------------------------------------------------- collectives */

static void check_all_reduce(env_t *env, accel_dtype_t dtype, accel_reduce_op_t op, size_t count,
                             bool in_place)
{
    size_t bytes = count * dtype_size[dtype];
    char *host = malloc(bytes + 1);
    void *send = device_buffer(env, bytes), *recv = in_place ? send : device_buffer(env, bytes);
    int salt = (int)op + (int)dtype;
    for (size_t i = 0; i < count; i++)
        store(host, dtype, i, value_of(world_rank, i, salt));
    upload(env, send, host, bytes);
    memset(host, 0, bytes + 1);
    accel_status_t status =
        env->engine->all_reduce(env->comm, send, recv, count, env->engine->dtype_codes[dtype],
                                env->engine->op_codes[op], env->native);
    CHECK(status == ACCEL_OK, "all_reduce %s %s count %zu", dtype_name[dtype], op_name[op], count);
    download(env, host, recv, bytes);
    for (size_t i = 0; i < count; i++) {
        double got = load_value(host, dtype, i), want = reference(op, dtype, i, salt, world_size);
        if (got != want) {
            CHECK(got == want, "all_reduce %s %s%s count %zu: element %zu is %g, not %g",
                  dtype_name[dtype], op_name[op], in_place ? " in place" : "", count, i, got, want);
            break;
        }
    }
    accel_free(env->acc, send);
    if (!in_place)
        accel_free(env->acc, recv);
    free(host);
}

static void check_all_gather(env_t *env, accel_dtype_t dtype, size_t count)
{
    size_t bytes = count * dtype_size[dtype], all = bytes * (size_t)world_size;
    char *host = malloc(all + 1);
    void *send = device_buffer(env, bytes), *recv = device_buffer(env, all);
    for (size_t i = 0; i < count; i++)
        store(host, dtype, i, value_of(world_rank, i, 1));
    upload(env, send, host, bytes);
    CHECK(env->engine->all_gather(env->comm, send, recv, count, env->engine->dtype_codes[dtype],
                                  env->native) == ACCEL_OK,
          "all_gather %s count %zu", dtype_name[dtype], count);
    download(env, host, recv, all);
    for (int r = 0; r < world_size; r++)
        for (size_t i = 0; i < count; i++)
            if (load_value(host, dtype, (size_t)r * count + i) != value_of(r, i, 1)) {
                CHECK(false, "all_gather %s: rank %d's element %zu is wrong", dtype_name[dtype], r,
                      i);
                r = world_size;
                break;
            }
    accel_free(env->acc, send);
    accel_free(env->acc, recv);
    free(host);
}

/* Rank r's send block b holds value_of(r, b * count + i): rank b gets the
 * sum over r of that. */
static void check_reduce_scatter(env_t *env, accel_dtype_t dtype, size_t count)
{
    size_t bytes = count * dtype_size[dtype], all = bytes * (size_t)world_size;
    char *host = malloc(all + 1);
    void *send = device_buffer(env, all), *recv = device_buffer(env, bytes);
    for (size_t i = 0; i < count * (size_t)world_size; i++)
        store(host, dtype, i, value_of(world_rank, i, 2));
    upload(env, send, host, all);
    CHECK(env->engine->reduce_scatter(env->comm, send, recv, count, env->engine->dtype_codes[dtype],
                                      env->engine->op_codes[ACCEL_REDUCE_SUM],
                                      env->native) == ACCEL_OK,
          "reduce_scatter %s count %zu", dtype_name[dtype], count);
    download(env, host, recv, bytes);
    for (size_t i = 0; i < count; i++) {
        double want =
            reference(ACCEL_REDUCE_SUM, dtype, (size_t)world_rank * count + i, 2, world_size);
        if (load_value(host, dtype, i) != want) {
            CHECK(false, "reduce_scatter %s: element %zu is %g, not %g", dtype_name[dtype], i,
                  load_value(host, dtype, i), want);
            break;
        }
    }
    accel_free(env->acc, send);
    accel_free(env->acc, recv);
    free(host);
}

static void check_broadcast(env_t *env, accel_dtype_t dtype, size_t count, int root)
{
    size_t bytes = count * dtype_size[dtype];
    char *host = malloc(bytes + 1);
    bool in_place = env->engine->broadcast_in_place_only;
    void *send = device_buffer(env, bytes), *recv = in_place ? send : device_buffer(env, bytes);
    for (size_t i = 0; i < count; i++)
        store(host, dtype, i, value_of(world_rank, i, 3));
    upload(env, send, host, bytes);
    CHECK(env->engine->broadcast(env->comm, send, recv, count, env->engine->dtype_codes[dtype],
                                 root, env->native) == ACCEL_OK,
          "broadcast %s count %zu root %d", dtype_name[dtype], count, root);
    download(env, host, recv, bytes);
    for (size_t i = 0; i < count; i++)
        if (load_value(host, dtype, i) != value_of(root, i, 3)) {
            CHECK(false, "broadcast %s: element %zu is not the root's", dtype_name[dtype], i);
            break;
        }
    accel_free(env->acc, send);
    if (!in_place)
        accel_free(env->acc, recv);
    free(host);
}

static void check_reduce(env_t *env, accel_dtype_t dtype, accel_reduce_op_t op, size_t count,
                         int root)
{
    size_t bytes = count * dtype_size[dtype];
    char *host = malloc(bytes + 1);
    void *send = device_buffer(env, bytes), *recv = device_buffer(env, bytes);
    for (size_t i = 0; i < count; i++)
        store(host, dtype, i, value_of(world_rank, i, 4));
    upload(env, send, host, bytes);
    CHECK(env->engine->reduce(env->comm, send, recv, count, env->engine->dtype_codes[dtype],
                              env->engine->op_codes[op], root, env->native) == ACCEL_OK,
          "reduce %s %s", dtype_name[dtype], op_name[op]);
    download(env, host, recv, bytes);
    if (world_rank == root)
        for (size_t i = 0; i < count; i++)
            if (load_value(host, dtype, i) != reference(op, dtype, i, 4, world_size)) {
                CHECK(false, "reduce %s %s: element %zu is wrong", dtype_name[dtype], op_name[op],
                      i);
                break;
            }
    accel_free(env->acc, send);
    accel_free(env->acc, recv);
    free(host);
}

static void expect_fault(const char *function, int code, accel_status_t status);

/* NCCL's buffer rules, for a library that follows them: an all-gather in
 * place (send is this rank's block of recv) works, and one whose send
 * overlaps recv anywhere else is refused by the library with `code`, the
 * sentence naming the function. */
static void check_all_gather_buffers(env_t *env, const char *function, int code)
{
    enum { count = 5 };
    size_t bytes = count * sizeof(float), all = bytes * (size_t)world_size;
    float *host = malloc(all);
    char *recv = device_buffer(env, all + bytes);
    int f32 = env->engine->dtype_codes[ACCEL_DTYPE_F32];
    char *own = recv + bytes * (size_t)world_rank;
    for (size_t i = 0; i < count; i++)
        host[i] = (float)value_of(world_rank, i, 6);
    upload(env, own, host, bytes);
    CHECK(env->engine->all_gather(env->comm, own, recv, count, f32, env->native) == ACCEL_OK,
          "all_gather in place");
    download(env, host, recv, all);
    for (int r = 0; r < world_size; r++)
        for (size_t i = 0; i < count; i++)
            if (host[(size_t)r * count + i] != (float)value_of(r, i, 6)) {
                CHECK(false, "all_gather in place: rank %d's element %zu is wrong", r, i);
                r = world_size;
                break;
            }
    /* Half a block past this rank's own: overlapping, not in place. */
    accel_status_t status =
        env->engine->all_gather(env->comm, own + bytes / 2, recv, count, f32, env->native);
    expect_fault(function, code, status);
    accel_free(env->acc, recv);
    free(host);
}

/* Whether the library `variable` names (loaded) exports `symbol`. */
static bool library_has(const char *variable, const char *symbol)
{
    const char *path = getenv(variable);
    void *library = path != NULL ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    bool has = library != NULL && dlsym(library, symbol) != NULL;
    if (library != NULL)
        dlclose(library);
    return has;
}

/* The nccl sim's buffer rules: pageable host memory, and device memory of
 * another device than the communicator's (device 1; the run's is device
 * 0), are refused with ncclInvalidArgument (4), the sentence saying why
 * where the library has ncclGetLastError. */
static void check_nccl_buffers(env_t *env)
{
    float host[8] = {0};
    void *other = NULL;
    bool why = library_has("ACCEL_NCCL_LIBRARY", "ncclGetLastError");
    int f32 = env->engine->dtype_codes[ACCEL_DTYPE_F32],
        sum = env->engine->op_codes[ACCEL_REDUCE_SUM];
    expect_fault("ncclAllReduce", 4,
                 env->engine->all_reduce(env->comm, host, host, 8, f32, sum, env->native));
    CHECK(!why || strstr(accel_last_error(), "is not CUDA device memory") != NULL, "sentence: %s",
          accel_last_error());
    CHECK(accel_set_device(env->acc, 1) == ACCEL_OK, "set_device(1)");
    other = device_buffer(env, sizeof host);
    CHECK(accel_set_device(env->acc, 0) == ACCEL_OK, "set_device(0)");
    CHECK(env->acc->ops->native_stream(env->acc->self, 0, env->stream->impl, &env->native) ==
              ACCEL_OK,
          "native_stream");
    expect_fault("ncclAllReduce", 4,
                 env->engine->all_reduce(env->comm, other, other, 8, f32, sum, env->native));
    CHECK(!why || strstr(accel_last_error(), "is on CUDA device 1") != NULL, "sentence: %s",
          accel_last_error());
    CHECK(accel_set_device(env->acc, 1) == ACCEL_OK, "set_device(1)");
    accel_free(env->acc, other);
    CHECK(accel_set_device(env->acc, 0) == ACCEL_OK, "set_device(0)");
    CHECK(env->acc->ops->native_stream(env->acc->self, 0, env->stream->impl, &env->native) ==
              ACCEL_OK,
          "native_stream");
}

/* A ring in one group: each rank sends to the next and receives from the
 * previous; the sends come first, which deadlocks without group semantics
 * once the messages are large. */
static void check_send_recv_ring(env_t *env, size_t count)
{
    size_t bytes = count * sizeof(float);
    int next = (world_rank + 1) % world_size, prev = (world_rank + world_size - 1) % world_size;
    float *host = malloc(bytes);
    void *send = device_buffer(env, bytes), *recv = device_buffer(env, bytes);
    int f32 = env->engine->dtype_codes[ACCEL_DTYPE_F32];
    for (size_t i = 0; i < count; i++)
        host[i] = (float)value_of(world_rank, i, 5);
    upload(env, send, host, bytes);
    CHECK(env->engine->group_start() == ACCEL_OK, "group_start");
    CHECK(env->engine->send(env->comm, send, count, f32, next, env->native) == ACCEL_OK, "send");
    CHECK(env->engine->recv(env->comm, recv, count, f32, prev, env->native) == ACCEL_OK, "recv");
    CHECK(env->engine->group_end() == ACCEL_OK, "group_end");
    download(env, host, recv, bytes);
    for (size_t i = 0; i < count; i++)
        if (host[i] != (float)value_of(prev, i, 5)) {
            CHECK(false, "recv: element %zu is not rank %d's", i, prev);
            break;
        }
    accel_free(env->acc, send);
    accel_free(env->acc, recv);
    free(host);
}

/* A rank's send to itself and receive from itself in one group, as a
 * one-rank ring does (NCCL allows it; the layer's send/recv pass it on). */
static void check_send_recv_self(env_t *env, size_t count)
{
    size_t bytes = count * sizeof(float);
    float *host = malloc(bytes);
    void *send = device_buffer(env, bytes), *recv = device_buffer(env, bytes);
    int f32 = env->engine->dtype_codes[ACCEL_DTYPE_F32];
    for (size_t i = 0; i < count; i++)
        host[i] = (float)value_of(world_rank, i, 7);
    upload(env, send, host, bytes);
    CHECK(env->engine->group_start() == ACCEL_OK, "group_start");
    CHECK(env->engine->send(env->comm, send, count, f32, world_rank, env->native) == ACCEL_OK,
          "send to self");
    CHECK(env->engine->recv(env->comm, recv, count, f32, world_rank, env->native) == ACCEL_OK,
          "recv from self");
    CHECK(env->engine->group_end() == ACCEL_OK, "group_end");
    download(env, host, recv, bytes);
    for (size_t i = 0; i < count; i++)
        if (host[i] != (float)value_of(world_rank, i, 7)) {
            CHECK(false, "recv from self: element %zu differs", i);
            break;
        }
    accel_free(env->acc, send);
    accel_free(env->acc, recv);
    free(host);
}

/* The collective must see what an asynchronous copy queued just before it
 * on the same stream wrote (run with ACCEL_SIM_STREAM_DELAY_US). */
static void check_stream_order(env_t *env)
{
    enum { count = 4096 };
    float *host = NULL;
    void *buf = device_buffer(env, count * sizeof(float));
    int f32 = env->engine->dtype_codes[ACCEL_DTYPE_F32];
    CHECK(accel_host_alloc(env->acc, count * sizeof(float), (void **)&host) == ACCEL_OK,
          "host_alloc");
    if (host == NULL)
        return;
    for (size_t i = 0; i < count; i++)
        host[i] = (float)(world_rank + 1);
    CHECK(accel_memcpy_async(env->acc, buf, host, count * sizeof(float), ACCEL_COPY_HOST_TO_DEVICE,
                             env->stream) == ACCEL_OK,
          "memcpy_async");
    CHECK(env->engine->all_reduce(env->comm, buf, buf, count, f32,
                                  env->engine->op_codes[ACCEL_REDUCE_SUM], env->native) == ACCEL_OK,
          "all_reduce after an async copy");
    download(env, host, buf, count * sizeof(float));
    float want = (float)(world_size * (world_size + 1) / 2);
    for (size_t i = 0; i < count; i++)
        if (host[i] != want) {
            CHECK(false, "stream order: element %zu is %g, not %g", i, host[i], want);
            break;
        }
    accel_host_free(env->acc, host);
    accel_free(env->acc, buf);
}

/* ---------------------------------------------------------------- faults */

static int (*fault_set)(const char *spec);

static void bind_faults(const char *variable)
{
    const char *path = getenv(variable);
    void *library = path != NULL ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (library != NULL)
        *(void **)&fault_set = dlsym(library, "accel_sim_fault_set");
    CHECK(fault_set != NULL, "the sim named by %s exports accel_sim_fault_set", variable);
}

/* Every rank fails the same call (so nobody waits for a peer), with `code`:
 * the status, a sentence naming the function and the code; then it works. */
static void expect_fault(const char *function, int code, accel_status_t status)
{
    char text[64];
    const char *error = accel_last_error();
    snprintf(text, sizeof text, " %d", code);
    CHECK(status == ACCEL_ERROR_DEVICE_ERROR, "%s failed with status %d", function, (int)status);
    CHECK(strstr(error, function) != NULL && strstr(error, text) != NULL,
          "the sentence names %s and code %d: %s", function, code, error);
}

/* A destroy that fails, on a communicator made for it: the engine's own
 * state after it is its library's (the nccl engine has finalized it, after
 * which NCCL allows nothing but ncclCommDestroy), so the run's communicator
 * is kept out of it. Destroying it again frees it: that works, except on
 * an NCCL with ncclCommFinalize, which refuses the second finalize
 * (ncclInvalidArgument, 4); the engine then still calls ncclCommDestroy. */
static void check_destroy_fault(env_t *env, const char *function, int code)
{
    char spec[128];
    void *spare = NULL;
    unsigned char *id = calloc(1, env->engine->unique_id_size);
    if (world_rank == 0)
        CHECK(env->engine->unique_id(id) == ACCEL_OK, "unique_id");
    MPI_Bcast(id, (int)env->engine->unique_id_size, MPI_BYTE, 0, MPI_COMM_WORLD);
    CHECK(env->engine->init(&env->ctx, world_size, world_rank, id, &spare) == ACCEL_OK, "init");
    free(id);
    if (spare == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    snprintf(spec, sizeof spec, "%s:1:%d", function, code);
    CHECK(fault_set(spec) == 0, "fault spec %s", spec);
    expect_fault(function, code, env->engine->destroy(spare));
    CHECK(fault_set(NULL) == 0, "clearing the faults");
    accel_status_t status = env->engine->destroy(spare);
    if (strcmp(env->engine->name, "nccl") == 0 &&
        library_has("ACCEL_NCCL_LIBRARY", "ncclCommFinalize"))
        expect_fault("ncclCommFinalize", 4, status);
    else
        CHECK(status == ACCEL_OK, "destroying again after a failed destroy");
}

static void check_faults(env_t *env, const char *const *sites, int code)
{
    char spec[128];
    size_t bytes = 64 * sizeof(float);
    void *a = device_buffer(env, bytes), *b = device_buffer(env, bytes * (size_t)world_size);
    int f32 = env->engine->dtype_codes[ACCEL_DTYPE_F32],
        sum = env->engine->op_codes[ACCEL_REDUCE_SUM];
    int peer = (world_rank + 1) % world_size, prev = (world_rank + world_size - 1) % world_size;
    /* sites: unique_id, init, all_reduce, all_gather, reduce_scatter,
     * broadcast, reduce, send, recv, barrier, group_start, group_end, destroy
     * (NULL where the engine has no such call). */
    for (int site = 0; site < 12; site++) {
        accel_status_t status = ACCEL_OK;
        void *extra = NULL;
        unsigned char id[8192] = {0};
        if (sites[site] == NULL)
            continue;
        snprintf(spec, sizeof spec, "%s:1:%d", sites[site], code);
        CHECK(fault_set(spec) == 0, "fault spec %s", spec);
        switch (site) {
        case 0: status = env->engine->unique_id(id); break;
        case 1: status = env->engine->init(&env->ctx, world_size, world_rank, id, &extra); break;
        case 2: status = env->engine->all_reduce(env->comm, a, a, 64, f32, sum, env->native); break;
        case 3: status = env->engine->all_gather(env->comm, a, b, 64, f32, env->native); break;
        case 4:
            status = env->engine->reduce_scatter(env->comm, b, a, 64, f32, sum, env->native);
            break;
        case 5: status = env->engine->broadcast(env->comm, a, a, 64, f32, 0, env->native); break;
        case 6: status = env->engine->reduce(env->comm, a, b, 64, f32, sum, 0, env->native); break;
        case 7: status = env->engine->send(env->comm, a, 64, f32, peer, env->native); break;
        case 8: status = env->engine->recv(env->comm, a, 64, f32, prev, env->native); break;
        case 9: status = env->engine->barrier(env->comm, env->native); break;
        case 10: status = env->engine->group_start(); break;
        case 11:
            /* an empty group, whose end fails */
            CHECK(env->engine->group_start() == ACCEL_OK, "group_start");
            status = env->engine->group_end();
            break;
        }
        expect_fault(sites[site], code, status);
        CHECK(fault_set(NULL) == 0, "clearing the faults");
        /* (A failed group end closed the group.) */
    }
    /* And everything works again. */
    check_all_reduce(env, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, 7, false);
    if (sites[12] != NULL)
        check_destroy_fault(env, sites[12], code);
    accel_free(env->acc, a);
    accel_free(env->acc, b);
}

/* Whether the engine takes reductions of `dtype` with `op` (engine.h
 * reduce_supported; NULL: all that have codes). */
static bool engine_reduces(const env_t *env, accel_dtype_t dtype, accel_reduce_op_t op)
{
    char why[256] = "";
    return env->engine->reduce_supported == NULL ||
           env->engine->reduce_supported(&env->ctx, dtype, op, why, sizeof why);
}

/* A reduction the engine's reduce_supported refuses (so the layer never
 * makes it): its library refuses it too, with `code` (HCCL_E_NOT_SUPPORT
 * for Ascend HCCL), so the capability and the library agree. */
static void check_refused_reduction(env_t *env, const char *function, int code, accel_dtype_t dtype,
                                    accel_reduce_op_t op)
{
    char why[256] = "";
    void *buffer = device_buffer(env, 64 * 8);
    CHECK(!env->engine->reduce_supported(&env->ctx, dtype, op, why, sizeof why) && why[0] != '\0',
          "%s %s refused with a reason", dtype_name[dtype], op_name[op]);
    expect_fault(function, code,
                 env->engine->all_reduce(env->comm, buffer, buffer, 7,
                                         env->engine->dtype_codes[dtype], env->engine->op_codes[op],
                                         env->native));
    accel_free(env->acc, buffer);
}

/* ---------------------------------------------------------------- the run */

typedef struct engine_case {
    const char *engine;
    const char *library_variable; /* the engine's override, naming the sim */
    const char *sites[13];
    int fault_code;
} engine_case_t;

/* The code with which a library that follows NCCL's in-place rules refuses
 * other overlapping buffers (0: not checked for this engine). */
static int overlap_code_of(const char *engine)
{
    if (strcmp(engine, "nccl") == 0)
        return 4; /* ncclInvalidArgument */
    return strcmp(engine, "tccl") == 0 ? 4 /* tcclInvalidArgument */ : 0;
}

static const engine_case_t cases[] = {
    {"nccl",
     "ACCEL_NCCL_LIBRARY",
     {"ncclGetUniqueId", "ncclCommInitRank", "ncclAllReduce", "ncclAllGather", "ncclReduceScatter",
      "ncclBroadcast", "ncclReduce", "ncclSend", "ncclRecv", NULL, "ncclGroupStart", "ncclGroupEnd",
      "ncclCommDestroy"},
     2},
    {"hccl",
     "ACCEL_HCCL_LIBRARY",
     {"HcclGetRootInfo", "HcclCommInitRootInfo", "HcclAllReduce", "HcclAllGather",
      "HcclReduceScatter", "HcclBroadcast", "HcclReduce", "HcclSend", "HcclRecv", "HcclBarrier",
      "HcclGroupStart", "HcclGroupEnd", "HcclCommDestroy"},
     4},
    {"cncl",
     "ACCEL_CNCL_LIBRARY",
     {"cnclGetCliqueId", "cnclInitComms", "cnclAllReduce", "cnclAllGather", "cnclReduceScatter",
      "cnclBroadcast", "cnclReduce", "cnclSend", "cnclRecv", NULL, "cnclGroupStart", "cnclGroupEnd",
      "cnclDestroyComms"},
     7},
    {"habana-hccl",
     "ACCEL_HABANA_HCCL_LIBRARY",
     {"hcclGetUniqueId", "hcclCommInitRank", "hcclAllReduce", "hcclAllGather", "hcclReduceScatter",
      "hcclBroadcast", "hcclReduce", "hcclSend", "hcclRecv", "hcclBarrier", "hcclGroupStart",
      "hcclGroupEnd", "hcclCommDestroy"},
     6},
    {"tccl",
     "ACCEL_TCCL_LIBRARY",
     {"tcclGetUniqueId", "tcclCommInitRank", "tcclAllReduce", "tcclAllGather", "tcclReduceScatter",
      "tcclBroadcast", "tcclReduce", "tcclSend", "tcclRecv", NULL, "tcclGroupStart", "tcclGroupEnd",
      "tcclCommDestroy"},
     3},
};

static int run_collectives(const char *backend, const char *engine_name)
{
    env_t env = {0};
    const engine_case_t *c = NULL;
    char detail[320];
    unsigned char *id;
    void *probe = NULL;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(cases[i].engine, engine_name) == 0)
            c = &cases[i];
    env.engine = engine_named(engine_name);
    if (c == NULL || env.engine == NULL) {
        fprintf(stderr, "no simulated case for engine %s\n", engine_name);
        return 2;
    }
    CHECK(accel_open(backend, &env.acc) == ACCEL_OK, "accel_open(%s)", backend);
    if (env.acc == NULL)
        return 1;
    probe = device_buffer(&env, 16); /* initialises the backend */
    accel_free(env.acc, probe);
    env.ctx = (accel_comm_engine_ctx_t){env.acc->ops, env.acc->self, 0, 60.0};
    CHECK(env.engine->load(detail, sizeof detail) == ACCEL_OK, "load");
    if (world_rank == 0)
        printf("%s on %s: %s\n", engine_name, backend, detail);
    /* Current CANN's group calls are in libhcomm.so, next to libhccl.so
     * (the sim's layout too: README rule H6). */
    if (strcmp(engine_name, "hccl") == 0)
        CHECK(strstr(detail, "with group calls from") != NULL &&
                  strstr(detail, "libhcomm.so") != NULL,
              "hccl found HcclGroupStart/End in libhcomm.so: %s", detail);
    CHECK(accel_stream_create(env.acc, 0, 0, &env.stream) == ACCEL_OK, "stream_create");
    CHECK(env.acc->ops->native_stream(env.acc->self, 0, env.stream->impl, &env.native) == ACCEL_OK,
          "native_stream");

    id = calloc(1, env.engine->unique_id_size);
    if (world_rank == 0)
        CHECK(env.engine->unique_id(id) == ACCEL_OK, "unique_id");
    MPI_Bcast(id, (int)env.engine->unique_id_size, MPI_BYTE, 0, MPI_COMM_WORLD);
    CHECK(env.engine->init(&env.ctx, world_size, world_rank, id, &env.comm) == ACCEL_OK, "init");
    free(id);
    if (env.comm == NULL) /* the other ranks may be waiting in init: end the job */
        MPI_Abort(MPI_COMM_WORLD, 1);

    for (int d = 0; d < ACCEL_DTYPE_COUNT_; d++) {
        if (env.engine->dtype_codes[d] == ACCEL_COMM_NO_CODE)
            continue;
        for (int op = 0; op < ACCEL_REDUCE_COUNT_; op++) {
            if (env.engine->op_codes[op] == ACCEL_COMM_NO_CODE)
                continue;
            if (!engine_reduces(&env, (accel_dtype_t)d, (accel_reduce_op_t)op)) {
                if (strcmp(engine_name, "hccl") == 0)
                    check_refused_reduction(&env, "HcclAllReduce", 5 /* HCCL_E_NOT_SUPPORT */,
                                            (accel_dtype_t)d, (accel_reduce_op_t)op);
                continue;
            }
            check_all_reduce(&env, (accel_dtype_t)d, (accel_reduce_op_t)op, 7, false);
            check_all_reduce(&env, (accel_dtype_t)d, (accel_reduce_op_t)op, 1000, true);
            if (env.engine->reduce != NULL)
                check_reduce(&env, (accel_dtype_t)d, (accel_reduce_op_t)op, 7, world_size - 1);
        }
        if (engine_reduces(&env, (accel_dtype_t)d, ACCEL_REDUCE_SUM)) {
            check_all_reduce(&env, (accel_dtype_t)d, ACCEL_REDUCE_SUM, 1, false);
            check_reduce_scatter(&env, (accel_dtype_t)d, 7);
        }
        check_all_gather(&env, (accel_dtype_t)d, 7);
        check_broadcast(&env, (accel_dtype_t)d, 1000, world_size - 1);
    }
    check_all_reduce(&env, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, 0, false); /* a no-op */
    if (overlap_code_of(engine_name) != 0)
        check_all_gather_buffers(&env, c->sites[3], overlap_code_of(engine_name));
    if (strcmp(engine_name, "nccl") == 0)
        check_nccl_buffers(&env);
    check_send_recv_ring(&env, 1 << 20);
    check_send_recv_self(&env, 4099);
    check_stream_order(&env);
    if (env.engine->barrier != NULL)
        CHECK(env.engine->barrier(env.comm, env.native) == ACCEL_OK, "barrier");

    bind_faults(c->library_variable);
    if (fault_set != NULL)
        check_faults(&env, c->sites, c->fault_code);

    CHECK(env.engine->destroy(env.comm) == ACCEL_OK, "destroy");
    CHECK(accel_stream_destroy(env.stream) == ACCEL_OK, "stream_destroy");
    accel_close(env.acc);
    return 0;
}

/* A library that does not load: the sentence names it, its variable and
 * every place tried (the named file first). */
static int run_missing(const char *engine_name, const char *variable, const char *library)
{
    const accel_comm_engine_t *engine = engine_named(engine_name);
    char detail[320];
    accel_status_t status;
    if (engine == NULL)
        return 2;
    setenv(variable, "/nonexistent/libccl-missing.so", 1);
    status = engine->load(detail, sizeof detail);
    if (status == ACCEL_OK) { /* the real library is installed here (NCCL with CUDA) */
        printf("%s: SKIPPED: a real library loads here, so it cannot be missing: %s\n", engine_name,
               detail);
        return 77;
    }
    CHECK(status == ACCEL_ERROR_UNAVAILABLE, "%s loads", engine_name);
    CHECK(strstr(accel_last_error(), variable) != NULL &&
              strstr(accel_last_error(), "/nonexistent/libccl-missing.so") != NULL &&
              strstr(accel_last_error(), library) != NULL,
          "the sentence names %s, the file it named and %s", variable, library);
    CHECK(strstr(detail, library) != NULL, "the detail names %s: %s", library, detail);
    if (strcmp(engine_name, "tccl") == 0) {
        /* The Teco SDK's folder first, as the sdaa backend's runtime: a
         * libtccl.so on the loader's path may be another vendor's "TCCL". */
        const char *sdk = strstr(accel_last_error(), "/opt/tecoai/lib64/libtccl.so:"),
                   *bare = strstr(accel_last_error(), "; libtccl.so:");
        CHECK(sdk != NULL && bare != NULL && sdk < bare,
              "the Teco SDK's libtccl.so is tried before the loader's path");
    }
    printf("%s: %s\n", engine_name, accel_last_error());
    return 0;
}

/* An engine that loads its library and refuses every communicator (oneccl):
 * load is OK with a detail naming the file and the refusal; unique_id and
 * init fail with UNSUPPORTED and the reason, and make nothing. */
static int run_refuses(const char *engine_name, const char *reason)
{
    const accel_comm_engine_t *engine = engine_named(engine_name);
    char detail[640] = "", id[8192];
    void *comm = (void *)1;
    if (engine == NULL || engine->unique_id_size > sizeof id)
        return 2;
    CHECK(engine->load(detail, sizeof detail) == ACCEL_OK, "%s loads", engine_name);
    CHECK(strstr(detail, "communicators refused") != NULL && strstr(detail, reason) != NULL,
          "the detail says why communicators are refused: %s", detail);
    CHECK(engine->unique_id(id) == ACCEL_ERROR_UNSUPPORTED, "unique_id refused");
    CHECK(strstr(accel_last_error(), reason) != NULL, "the sentence says why");
    memset(id, 0, engine->unique_id_size);
    CHECK(engine->init(NULL, 2, 0, id, &comm) == ACCEL_ERROR_UNSUPPORTED, "init refused");
    CHECK(comm == NULL && strstr(accel_last_error(), reason) != NULL, "nothing made, and why");
    CHECK(engine->destroy(NULL) == ACCEL_OK, "destroy(NULL)");
    printf("%s: %s\n%s: %s\n", engine_name, detail, engine_name, accel_last_error());
    return 0;
}

/* The backend's native_stream on its simulated runtime: the default stream
 * (NULL in, the runtime's default out: NULL where the runtime has one,
 * `default_is_null`) and a created stream (a handle of its own). */
static int run_native(const char *backend, bool default_is_null)
{
    accel_t *acc = NULL;
    accel_stream_t *stream = NULL;
    void *probe = NULL, *native = (void *)1, *made = NULL;
    CHECK(accel_open(backend, &acc) == ACCEL_OK, "accel_open(%s)", backend);
    if (acc == NULL)
        return 1;
    CHECK(accel_malloc(acc, 16, &probe) == ACCEL_OK, "accel_malloc");
    CHECK(ACCEL_BACKEND_HAS(acc->ops, native_stream), "%s has native_stream", backend);
    CHECK(acc->ops->native_stream(acc->self, 0, NULL, &native) == ACCEL_OK, "default stream");
    CHECK((native == NULL) == default_is_null, "default stream handle %p", native);
    CHECK(accel_stream_create(acc, 0, 0, &stream) == ACCEL_OK, "stream_create");
    CHECK(acc->ops->native_stream(acc->self, 0, stream->impl, &made) == ACCEL_OK, "stream");
    CHECK(made != NULL && made != native, "a created stream has its own handle (%p)", made);
    accel_stream_destroy(stream);
    accel_free(acc, probe);
    accel_close(acc);
    printf("%s: native_stream gives %p for the default stream, %p for a created one\n", backend,
           native, made);
    return 0;
}

/* The habana-hccl engine's unique_id on the hcl sim, without MPI (its rules
 * R1 and R2, tests/sim/README.md): with HCCL_COMM_ID on an address that is
 * not this host's it fails saying so; on 127.0.0.1 it starts the
 * coordinator, and then a second process of the same job (PMIX_NAMESPACE)
 * calling it collides on the port. `second`: that second process. */
static int run_hcl_coordinator(const char *self, bool second)
{
    const accel_comm_engine_t *engine = engine_named("habana-hccl");
    char id[2048], address[64];
    if (engine == NULL || engine->unique_id_size > sizeof id)
        return 2;
    CHECK(engine->load(NULL, 0) == ACCEL_OK, "habana-hccl loads: %s", accel_last_error());
    if (second) {
        CHECK(engine->unique_id(id) != ACCEL_OK &&
                  strstr(accel_last_error(), "its port is in use") != NULL,
              "a second caller in the job collides: %s", accel_last_error());
        return failures == 0 ? 0 : 1;
    }
    setenv("HCCL_COMM_ID", "192.0.2.1:29500", 1); /* TEST-NET-1: no host's address */
    CHECK(engine->unique_id(id) != ACCEL_OK &&
              strstr(accel_last_error(), "not an address of this host") != NULL,
          "a coordinator on another host's address: %s", accel_last_error());
    snprintf(address, sizeof address, "127.0.0.1:%d", 20000 + (int)(getpid() % 20000));
    setenv("HCCL_COMM_ID", address, 1);
    snprintf(id, sizeof id, "accel-test-%ld", (long)getpid());
    setenv("PMIX_NAMESPACE", id, 1);
    CHECK(engine->unique_id(id) == ACCEL_OK, "the root starts the coordinator at %s: %s", address,
          accel_last_error());
    pid_t child = fork();
    if (child == 0) {
        execl(self, self, "hcl_coordinator_second", (char *)NULL);
        _exit(127);
    }
    int status = -1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0,
          "the second process (status %d)", status);
    printf("habana-hccl: one coordinator per HCCL_COMM_ID and job, on this host only\n");
    return failures == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    int code;
    if (argc >= 3 && strcmp(argv[1], "missing") == 0) {
        static const char *const rows[][3] = {
            {"nccl", "ACCEL_NCCL_LIBRARY", "libnccl.so.2"},
            {"hccl", "ACCEL_HCCL_LIBRARY", "libhccl.so"},
            {"habana-hccl", "ACCEL_HABANA_HCCL_LIBRARY", "libhcl.so"},
            {"cncl", "ACCEL_CNCL_LIBRARY", "libcncl.so"},
            {"tccl", "ACCEL_TCCL_LIBRARY", "libtccl.so"},
            {"oneccl", "ACCEL_ONECCL_LIBRARY", "libccl.so.2"},
        };
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            if (strcmp(rows[i][0], argv[2]) == 0) {
                code = run_missing(rows[i][0], rows[i][1], rows[i][2]);
                return failures > 0 ? 1 : code;
            }
        return 2;
    }
    if (argc >= 4 && strcmp(argv[1], "lacks") == 0) {
        const accel_comm_engine_t *engine = engine_named(argv[2]);
        if (engine == NULL)
            return 2;
        CHECK(engine->load(NULL, 0) == ACCEL_ERROR_UNAVAILABLE, "%s loads", argv[2]);
        CHECK(strstr(accel_last_error(), argv[3]) != NULL, "the sentence names %s", argv[3]);
        printf("%s: %s\n", argv[2], accel_last_error());
        return failures == 0 ? 0 : 1;
    }
    if (argc >= 2 && strncmp(argv[1], "hcl_coordinator", 15) == 0)
        return run_hcl_coordinator(argv[0], strcmp(argv[1], "hcl_coordinator_second") == 0);
    if (argc >= 3 && strcmp(argv[1], "refuses") == 0) {
        code = run_refuses(argv[2], "sycl::queue");
        return failures > 0 ? 1 : code;
    }
    if (argc >= 3 && strcmp(argv[1], "native") == 0) {
        code = run_native(argv[2], strcmp(argv[2], "hpu") != 0);
        return failures > 0 ? 1 : code;
    }
    if (argc >= 3 && strcmp(argv[1], "nogroups") == 0) {
        const accel_comm_engine_t *engine = engine_named(argv[2]);
        char detail[320] = "";
        if (engine == NULL)
            return 2;
        CHECK(engine->load(detail, sizeof detail) == ACCEL_OK, "%s loads", argv[2]);
        CHECK(strstr(detail, "without group calls") != NULL, "detail: %s", detail);
        /* Groups then run their collectives as they come: start and end
         * succeed. Sends and receives inside one are refused (they could wait
         * for each other forever), before the library is called. */
        float word = 0;
        CHECK(engine->group_start() == ACCEL_OK, "group start");
        CHECK(engine->send(NULL, &word, 1, engine->dtype_codes[ACCEL_DTYPE_F32], 0, NULL) ==
                      ACCEL_ERROR_UNSUPPORTED &&
                  strstr(accel_last_error(), "inside a group") != NULL,
              "a grouped send: %s", accel_last_error());
        CHECK(engine->recv(NULL, &word, 1, engine->dtype_codes[ACCEL_DTYPE_F32], 0, NULL) ==
                      ACCEL_ERROR_UNSUPPORTED &&
                  strstr(accel_last_error(), "inside a group") != NULL,
              "a grouped recv: %s", accel_last_error());
        CHECK(engine->group_end() == ACCEL_OK, "group end");
        printf("%s: %s\n", argv[2], detail);
        return failures == 0 ? 0 : 1;
    }
    if (argc >= 3 && strcmp(argv[1], "noreduce") == 0) {
        const accel_comm_engine_t *engine = engine_named(argv[2]);
        char detail[320] = "";
        if (engine == NULL)
            return 2;
        /* It loads, and its reduce slot is empty so that the layer emulates
         * reduce (comm_device's reduce mode checks the emulation). */
        CHECK(engine->load(detail, sizeof detail) == ACCEL_OK, "%s loads", argv[2]);
        CHECK(strstr(detail, "without HcclReduce") != NULL, "detail: %s", detail);
        CHECK(engine->reduce == NULL, "%s still has a reduce slot", argv[2]);
        CHECK(engine->all_reduce != NULL, "%s has no all_reduce", argv[2]);
        printf("%s: %s\n", argv[2], detail);
        return failures == 0 ? 0 : 1;
    }
    if (argc < 3) {
        fprintf(stderr,
                "usage: %s <backend> <engine> | missing <engine> | lacks <engine> "
                "<symbol> | nogroups <engine> | noreduce <engine> | native <backend> | "
                "refuses <engine>\n",
                argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    code = run_collectives(argv[1], argv[2]);
    if (code == 0 && failures > 0)
        code = 1;
    MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("%s on %s over %d ranks: %s\n", argv[2], argv[1], world_size,
               code == 0 ? "every check passed" : "FAILED");
    MPI_Finalize();
    return code;
}
