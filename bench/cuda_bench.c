/* cuda_bench.c: the CUDA figures of docs/architecture.md, Performance figures, each next to its
 * baseline measured in the same run by calling the driver directly (libcuda dlopened here, on the
 * same primary context and default stream accel uses): cached alloc/free vs cuMemAlloc/cuMemFree,
 * pinned copies vs raw copies, and vs cuMemAllocAsync's pool, Philox fill vs cuMemsetD8 on the same
 * buffer, FusedAdam fp32 against the HBM roofline (28 bytes per parameter
 * at the device-to-device copy's rate), event-timed launches, graph replay
 * vs the same kernels one by one, and per-call dispatch overhead.
 * A standalone program (`cuda_bench [MiB]`); exits 77 when cuda does not
 * open. Single-threaded. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <accel/accel.h>
#include <accel/accel_ops.h>

#include "backends/cuda/types.h"

typedef struct raw_driver {
    accel_cu_result_t (*cuMemAlloc_v2)(accel_cu_deviceptr_t *, size_t);
    accel_cu_result_t (*cuMemFree_v2)(accel_cu_deviceptr_t);
    accel_cu_result_t (*cuMemcpyHtoDAsync_v2)(accel_cu_deviceptr_t, const void *, size_t,
                                              accel_cu_stream_t);
    accel_cu_result_t (*cuMemcpyDtoHAsync_v2)(void *, accel_cu_deviceptr_t, size_t,
                                              accel_cu_stream_t);
    accel_cu_result_t (*cuMemcpyDtoDAsync_v2)(accel_cu_deviceptr_t, accel_cu_deviceptr_t, size_t,
                                              accel_cu_stream_t);
    accel_cu_result_t (*cuMemsetD8Async)(accel_cu_deviceptr_t, unsigned char, size_t,
                                         accel_cu_stream_t);
    accel_cu_result_t (*cuStreamSynchronize)(accel_cu_stream_t);
    accel_cu_result_t (*cuStreamQuery)(accel_cu_stream_t);
    /* CUDA 11.2+ (NULL before): the stream-ordered pool */
    accel_cu_result_t (*cuMemAllocAsync)(accel_cu_deviceptr_t *, size_t, accel_cu_stream_t);
    accel_cu_result_t (*cuMemFreeAsync)(accel_cu_deviceptr_t, accel_cu_stream_t);
} raw_driver_t;

static raw_driver_t raw;
static accel_t *acc;
static double d2d_bytes_per_s; /* the raw device-to-device copy, for the roofline */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void check(accel_status_t status, const char *what)
{
    if (status != ACCEL_OK) {
        fprintf(stderr, "cuda_bench: %s: %s\n", what, accel_last_error());
        exit(1);
    }
}

static void check_cu(accel_cu_result_t result, const char *what)
{
    if (result != ACCEL_CUDA_SUCCESS) {
        fprintf(stderr, "cuda_bench: %s failed: CUresult %u\n", what, result);
        exit(1);
    }
}

static bool load_raw(void)
{
    /* The driver the backend loaded (ACCEL_CUDA_LIBRARY, else libcuda.so.1). */
    const char *driver = getenv("ACCEL_CUDA_LIBRARY");
    void *library = dlopen(driver != NULL && driver[0] != '\0' ? driver : "libcuda.so.1",
                           RTLD_NOW | RTLD_LOCAL);
    if (library == NULL)
        return false;
#define LOAD(name) (*(void **)&raw.name = dlsym(library, #name)) != NULL
    (void)(LOAD(cuMemAllocAsync) && LOAD(cuMemFreeAsync)); /* optional */
    return LOAD(cuMemAlloc_v2) && LOAD(cuMemFree_v2) && LOAD(cuMemcpyHtoDAsync_v2) &&
           LOAD(cuMemcpyDtoHAsync_v2) && LOAD(cuMemcpyDtoDAsync_v2) && LOAD(cuMemsetD8Async) &&
           LOAD(cuStreamSynchronize) && LOAD(cuStreamQuery);
#undef LOAD
}

static void row(const char *name, double ours, double base, const char *unit, bool higher_better)
{
    double ratio = higher_better ? ours / base : base / ours;
    printf("%-34s %12.3f %12.3f %-6s %6.2fx of baseline%s\n", name, ours, base, unit, ratio,
           higher_better ? "" : " speed");
}

static void sync_default(void)
{
    check(accel_synchronize(acc, ACCEL_CURRENT_DEVICE), "synchronize");
}

static void bench_alloc(void)
{
    const int n = 2000;
    const size_t size = 1 << 20;
    void *ptr;
    accel_cu_deviceptr_t dptr;
    double t0 = now_s();
    for (int i = 0; i < n; i++) {
        check(accel_malloc(acc, size, &ptr), "malloc");
        check(accel_free(acc, ptr), "free");
    }
    double ours = (now_s() - t0) / n * 1e6;
    t0 = now_s();
    for (int i = 0; i < n; i++) {
        check_cu(raw.cuMemAlloc_v2(&dptr, size), "cuMemAlloc_v2");
        check_cu(raw.cuMemFree_v2(dptr), "cuMemFree_v2");
    }
    double base = (now_s() - t0) / n * 1e6;
    row("alloc+free 1 MiB (cached vs raw)", ours, base, "us", false);
    if (raw.cuMemAllocAsync == NULL || raw.cuMemFreeAsync == NULL) {
        printf("%-34s (this driver has no cuMemAllocAsync)\n", "alloc+free 1 MiB (cached vs pool)");
        return;
    }
    t0 = now_s();
    for (int i = 0; i < n; i++) {
        check_cu(raw.cuMemAllocAsync(&dptr, size, NULL), "cuMemAllocAsync");
        check_cu(raw.cuMemFreeAsync(dptr, NULL), "cuMemFreeAsync");
    }
    check_cu(raw.cuStreamSynchronize(NULL), "cuStreamSynchronize");
    base = (now_s() - t0) / n * 1e6;
    row("alloc+free 1 MiB (cached vs pool)", ours, base, "us", false);
}

static void bench_copies(size_t bytes)
{
    const int reps = 20;
    void *host, *dev_a, *dev_b;
    accel_cu_deviceptr_t raw_a, raw_b;
    static const struct {
        const char *name;
        accel_copy_kind_t kind;
    } kinds[] = {{"pinned H2D", ACCEL_COPY_HOST_TO_DEVICE},
                 {"pinned D2H", ACCEL_COPY_DEVICE_TO_HOST},
                 {"D2D", ACCEL_COPY_DEVICE_TO_DEVICE}};
    check(accel_host_alloc(acc, bytes, &host), "host_alloc");
    check(accel_malloc(acc, bytes, &dev_a), "malloc");
    check(accel_malloc(acc, bytes, &dev_b), "malloc");
    raw_a = (accel_cu_deviceptr_t)(uintptr_t)dev_a;
    raw_b = (accel_cu_deviceptr_t)(uintptr_t)dev_b;
    for (size_t k = 0; k < 3; k++) {
        accel_copy_kind_t kind = kinds[k].kind;
        void *dst = kind == ACCEL_COPY_DEVICE_TO_HOST ? host : dev_a;
        void *src = kind == ACCEL_COPY_HOST_TO_DEVICE
                        ? host
                        : (kind == ACCEL_COPY_DEVICE_TO_DEVICE ? dev_b : dev_a);
        char name[64];
        double t0, ours, base;
        check(accel_memcpy(acc, dst, src, bytes, kind), "warm-up copy");
        t0 = now_s();
        for (int r = 0; r < reps; r++)
            check(accel_memcpy_async(acc, dst, src, bytes, kind, NULL), "memcpy_async");
        sync_default();
        ours = (double)bytes * reps / (now_s() - t0) / 1e9;
        t0 = now_s();
        for (int r = 0; r < reps; r++) {
            if (kind == ACCEL_COPY_HOST_TO_DEVICE)
                check_cu(raw.cuMemcpyHtoDAsync_v2(raw_a, host, bytes, NULL), "HtoD");
            else if (kind == ACCEL_COPY_DEVICE_TO_HOST)
                check_cu(raw.cuMemcpyDtoHAsync_v2(host, raw_a, bytes, NULL), "DtoH");
            else
                check_cu(raw.cuMemcpyDtoDAsync_v2(raw_a, raw_b, bytes, NULL), "DtoD");
        }
        check_cu(raw.cuStreamSynchronize(NULL), "cuStreamSynchronize");
        base = (double)bytes * reps / (now_s() - t0) / 1e9;
        if (kind == ACCEL_COPY_DEVICE_TO_DEVICE)
            d2d_bytes_per_s = base * 1e9;
        snprintf(name, sizeof name, "%s %zu MiB", kinds[k].name, bytes >> 20);
        row(name, ours, base, "GB/s", true);
    }
    check(accel_free(acc, dev_a), "free");
    check(accel_free(acc, dev_b), "free");
    check(accel_host_free(acc, host), "host_free");
}

static void bench_fill(size_t bytes)
{
    const int reps = 20;
    void *dev;
    size_t count = bytes / 4;
    double t0, ours, base;
    check(accel_malloc(acc, bytes, &dev), "malloc");
    check(accel_rng_uniform_f32(acc, dev, count, NULL), "warm-up fill (compiles the kernel)");
    sync_default();
    t0 = now_s();
    for (int r = 0; r < reps; r++)
        check(accel_rng_uniform_f32(acc, dev, count, NULL), "rng_uniform_f32");
    sync_default();
    ours = (double)bytes * reps / (now_s() - t0) / 1e9;
    t0 = now_s();
    for (int r = 0; r < reps; r++)
        check_cu(raw.cuMemsetD8Async((accel_cu_deviceptr_t)(uintptr_t)dev, 0, bytes, NULL),
                 "cuMemsetD8Async");
    check_cu(raw.cuStreamSynchronize(NULL), "cuStreamSynchronize");
    base = (double)bytes * reps / (now_s() - t0) / 1e9;
    row("Philox uniform fill vs memset", ours, base, "GB/s", true);
    t0 = now_s();
    for (int r = 0; r < reps; r++)
        check(accel_rng_normal_f32(acc, dev, count, NULL), "rng_normal_f32");
    sync_default();
    ours = (double)bytes * reps / (now_s() - t0) / 1e9;
    row("Philox normal fill vs memset", ours, base, "GB/s", true);
    check(accel_free(acc, dev), "free");
}

/* Tiny fills: launch cost by events, and graph replay vs one by one. */
static void bench_launches(void)
{
    const int per_graph = 100, reps = 50;
    accel_stream_t *stream;
    accel_event_t *start, *end;
    accel_graph_t *graph;
    void *dev;
    float ms;
    double t0, one_by_one, replay;
    check(accel_stream_create(acc, ACCEL_CURRENT_DEVICE, 0, &stream), "stream_create");
    check(accel_event_create(acc, ACCEL_CURRENT_DEVICE, ACCEL_EVENT_TIMING, &start), "event");
    check(accel_event_create(acc, ACCEL_CURRENT_DEVICE, ACCEL_EVENT_TIMING, &end), "event");
    check(accel_malloc(acc, 4096, &dev), "malloc");
    check(accel_rng_u32(acc, dev, 1, stream), "warm-up");
    check(accel_event_record(start, stream), "record");
    for (int i = 0; i < per_graph * reps; i++)
        check(accel_rng_u32(acc, dev, 1, stream), "rng_u32");
    check(accel_event_record(end, stream), "record");
    check(accel_event_synchronize(end), "event_synchronize");
    check(accel_event_elapsed_ms(start, end, &ms), "elapsed");
    printf("%-34s %12.3f %12s %-6s (device time per tiny kernel, events)\n", "event-timed launch",
           ms * 1e3 / (per_graph * reps), "-", "us");

    t0 = now_s();
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < per_graph; i++)
            check(accel_rng_u32(acc, dev, 1, stream), "rng_u32");
    check(accel_stream_synchronize(stream), "sync");
    one_by_one = (now_s() - t0) / (reps * per_graph) * 1e6;

    check(accel_graph_create(acc, &graph), "graph_create");
    check(accel_graph_capture_begin(graph, stream), "capture_begin");
    for (int i = 0; i < per_graph; i++)
        check(accel_rng_u32(acc, dev, 1, stream), "rng_u32 (captured)");
    check(accel_graph_capture_end(graph, stream), "capture_end");
    check(accel_graph_replay(graph, stream), "replay warm-up");
    check(accel_stream_synchronize(stream), "sync");
    t0 = now_s();
    for (int r = 0; r < reps; r++)
        check(accel_graph_replay(graph, stream), "replay");
    check(accel_stream_synchronize(stream), "sync");
    replay = (now_s() - t0) / (reps * per_graph) * 1e6;
    row("graph replay vs one by one /kernel", replay, one_by_one, "us", false);

    check(accel_graph_destroy(graph), "graph_destroy");
    check(accel_free(acc, dev), "free");
    check(accel_event_destroy(start), "event_destroy");
    check(accel_event_destroy(end), "event_destroy");
    check(accel_stream_destroy(stream), "stream_destroy");
}

/* FusedAdam, fp32 parameters and moments, `bytes` per tensor: parameters
 * per second against the roofline of the memory traffic a step needs (read
 * p, g, m, v and write p, m, v: 28 bytes per parameter) at the rate of the
 * raw device-to-device copy, which moves 2 bytes (read and write) per byte
 * copied. */
static void bench_fused_adam(size_t bytes)
{
    const int reps = 20;
    const accel_adam_op_t *adam = NULL;
    const void *table = NULL;
    accel_op_builder_t *builder = NULL;
    accel_adam_config_t config = ACCEL_ADAM_CONFIG_DEFAULT;
    bool compatible = false;
    char reason[256] = "";
    int64_t shape[1] = {(int64_t)(bytes / 4)};
    DLTensor t[4];
    double t0, params_per_s, roofline;
    check(accel_get_op_builder(acc, "FusedAdamBuilder", &builder), "get_op_builder");
    check(accel_op_builder_is_compatible(builder, &compatible, reason, sizeof reason),
          "is_compatible");
    if (!compatible) {
        printf("%-34s (FusedAdamBuilder: %s)\n", "FusedAdam fp32", reason);
        return;
    }
    check(accel_op_builder_load(builder, &table), "op_builder_load");
    adam = table;
    for (int k = 0; k < 4; k++) {
        check(accel_tensor_zeros(acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_F32, 1, shape, &t[k]),
              "tensor_zeros");
    }
    check(adam->step(acc, NULL, &config, 1, &t[0], &t[1], &t[2], &t[3]),
          "warm-up step (compiles the kernel)");
    sync_default();
    t0 = now_s();
    for (int r = 0; r < reps; r++)
        check(adam->step(acc, NULL, &config, (uint64_t)r + 2, &t[0], &t[1], &t[2], &t[3]),
              "fused_adam step");
    sync_default();
    params_per_s = (double)shape[0] * reps / (now_s() - t0);
    roofline = 2.0 * d2d_bytes_per_s / 28.0;
    char name[64];
    snprintf(name, sizeof name, "FusedAdam fp32 %zu MiB/tensor", bytes >> 20);
    printf("%-34s %12.3f %12.3f %-6s %6.2f of the roofline (28 B/param at 2 x D2D rate)\n", name,
           params_per_s / 1e9, roofline / 1e9, "Gpar/s", params_per_s / roofline);
    printf("FUSED_ADAM_GPARAMS_PER_S %.6f\n", params_per_s / 1e9);
    for (int k = 0; k < 4; k++)
        check(accel_tensor_free(acc, &t[k]), "tensor_free");
}

/* What a call costs on top of the driver call it makes. */
static void bench_dispatch(void)
{
    const int n = 200000;
    accel_stream_t *stream;
    void *dev;
    double t0, ours, base;
    check(accel_default_stream(acc, ACCEL_CURRENT_DEVICE, &stream), "default_stream");
    sync_default();
    t0 = now_s();
    for (int i = 0; i < n; i++)
        (void)accel_stream_query(stream);
    ours = (now_s() - t0) / n * 1e9;
    t0 = now_s();
    for (int i = 0; i < n; i++)
        (void)raw.cuStreamQuery(NULL);
    base = (now_s() - t0) / n * 1e9;
    row("stream_query vs cuStreamQuery", ours, base, "ns", false);

    check(accel_malloc(acc, 4096, &dev), "malloc");
    t0 = now_s();
    for (int i = 0; i < n / 10; i++)
        check(accel_memset_async(acc, dev, 0, 4096, NULL), "memset_async");
    sync_default();
    ours = (now_s() - t0) / (n / 10) * 1e9;
    t0 = now_s();
    for (int i = 0; i < n / 10; i++)
        check_cu(raw.cuMemsetD8Async((accel_cu_deviceptr_t)(uintptr_t)dev, 0, 4096, NULL),
                 "cuMemsetD8Async");
    check_cu(raw.cuStreamSynchronize(NULL), "cuStreamSynchronize");
    base = (now_s() - t0) / (n / 10) * 1e9;
    row("memset_async vs cuMemsetD8Async", ours, base, "ns", false);
    check(accel_free(acc, dev), "free");
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 256;
    accel_device_properties_t props = ACCEL_STRUCT_INIT(accel_device_properties_t);
    if (mib == 0)
        mib = 256;
    if (accel_open("cuda", &acc) != ACCEL_OK) {
        printf("SKIP: cuda does not open: %s\n", accel_last_error());
        return 77;
    }
    check(accel_device_properties(acc, ACCEL_CURRENT_DEVICE, &props), "device_properties");
    sync_default(); /* initialises the runtime and makes the context current */
    if (!load_raw()) {
        fprintf(stderr,
                "cuda_bench: cannot load the driver (ACCEL_CUDA_LIBRARY or libcuda.so.1) for "
                "the baselines: %s\n",
                dlerror());
        return 1;
    }
    printf("device: %s (sm_%d%d), driver %s\n", props.name, props.compute_major,
           props.compute_minor, props.driver_version);
    printf("%-34s %12s %12s %-6s\n", "figure", "accel", "baseline", "unit");
    bench_alloc();
    bench_copies(mib << 20);
    bench_fill(mib << 20);
    bench_fused_adam(mib << 20);
    bench_launches();
    bench_dispatch();
    accel_close(acc);
    return 0;
}
