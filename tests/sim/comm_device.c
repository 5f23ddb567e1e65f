/* comm_device.c: accel_comm.h end to end on a device engine, through the
 * communicator layer, on the simulated runtimes and CCL libraries of
 * tests/sim (npu + hccl, mlu + cncl, hpu + habana-hccl, sdaa + tccl, cuda +
 * nccl), run under mpirun:
 *   run_mpi.sh 4 comm_device <engine>
 * Every buffer is device memory from accel_malloc; inputs go in with
 * accel_memcpy and results come out the same way, checked against the
 * references of tests/comm/comm_check.h. Covers the layer's device paths:
 * the unique-id bootstrap by MPI broadcast, avg emulated on the device
 * (sum, then a scale through pinned host memory), the in-place-only
 * broadcast, the barrier fallback, split by a new unique id per color,
 * send/recv rings in groups, and the device-buffer checks. A second
 * argument runs one part instead: `reduce`, accel_reduce alone (on a sim
 * without the vendor's reduce: the layer's fallback), or the name of the
 * unique-id function that fails on rank 0 (run_root_fails), or
 * `join_timeout`: HCCL's connect timeout (run_join_timeout), or
 * `env_bootstrap` / `env_mismatch`: ACCEL_COMM_BOOTSTRAP=env under mpirun
 * (run_env_bootstrap).
 * Exits 1 when any check failed on this rank.
 * The same source is tests/cuda's cuda_comm_nccl (cuda + nccl on a real GPU,
 * 1 rank without mpirun, or one rank per GPU under it), built with
 * COMM_DEVICE_SKIP_UNAVAILABLE: there a backend or engine that is not there
 * (no GPU, no libnccl) exits 77 (ctest's skip) saying why. */
#include <dlfcn.h>
#include <math.h>

#include "comm_check.h"

static accel_t *acc;
static const char *engine;

static const accel_dtype_t dtypes[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F16, ACCEL_DTYPE_BF16,
                                       ACCEL_DTYPE_F64, ACCEL_DTYPE_U8,  ACCEL_DTYPE_I32,
                                       ACCEL_DTYPE_I64};
#define DTYPE_COUNT (sizeof dtypes / sizeof dtypes[0])
static const size_t counts[] = {0, 1, 7, 1021};
#define COUNT_COUNT (sizeof counts / sizeof counts[0])

/* Whether the engine reduces `dtype` with `op` (CNCL has no float64;
 * Ascend HCCL reduces no unsigned type, fp64 on Ascend 950 only and no
 * bf16 prod: src/comm/hccl/README.md). */
static bool reduces(accel_dtype_t dtype, accel_reduce_op_t op)
{
    const char *soc = getenv("ACCEL_SIM_SOC");
    if (strcmp(engine, "cncl") == 0)
        return dtype != ACCEL_DTYPE_F64;
    if (strcmp(engine, "hccl") == 0)
        return dtype != ACCEL_DTYPE_U8 && !(dtype == ACCEL_DTYPE_BF16 && op == ACCEL_REDUCE_PROD) &&
               (dtype != ACCEL_DTYPE_F64 || (soc != NULL && strncmp(soc, "Ascend950", 9) == 0));
    return true;
}

static void die(const char *what)
{
    fprintf(stderr, "rank %d: %s: %s\n", check_rank, what, accel_last_error());
    exit(2);
}

/* A setup call that failed: UNAVAILABLE (no device, no library) is a skip
 * where this program was built to skip; anything else is fatal. */
static void unavailable_or_die(accel_status_t status, const char *what)
{
#ifdef COMM_DEVICE_SKIP_UNAVAILABLE
    if (status == ACCEL_ERROR_UNAVAILABLE) {
        printf("SKIP: %s: %s\n", what, accel_last_error());
        exit(77);
    }
#else
    (void)status;
#endif
    die(what);
}

static void *host_buffer(size_t bytes)
{
    void *p = calloc(1, bytes + 1);
    if (p == NULL)
        die("out of host memory");
    return p;
}

static void *device_buffer(size_t bytes)
{
    void *p = NULL;
    if (accel_malloc(acc, bytes + 1, &p) != ACCEL_OK)
        die("accel_malloc");
    return p;
}

static void to_device(void *dev, const void *host, size_t bytes)
{
    if (bytes > 0 && accel_memcpy(acc, dev, host, bytes, ACCEL_COPY_HOST_TO_DEVICE) != ACCEL_OK)
        die("accel_memcpy to the device");
}

/* After the collectives queued on the current stream have run. */
static void to_host(void *host, const void *dev, size_t bytes)
{
    if (accel_synchronize(acc, ACCEL_CURRENT_DEVICE) != ACCEL_OK)
        die("accel_synchronize");
    if (bytes > 0 && accel_memcpy(acc, host, dev, bytes, ACCEL_COPY_DEVICE_TO_HOST) != ACCEL_OK)
        die("accel_memcpy to the host");
}

/* A reduction of a dtype the engine lacks: UNSUPPORTED naming the engine
 * (count 0 stays a no-op that succeeds). */
static bool refused(accel_status_t status, accel_dtype_t dtype, accel_reduce_op_t op, size_t count)
{
    if (reduces(dtype, op) || count == 0)
        return false;
    CHECK(status == ACCEL_ERROR_UNSUPPORTED && strstr(accel_last_error(), engine) != NULL &&
              strstr(accel_last_error(), accel_dtype_name(dtype)) != NULL,
          "a %s reduction on %s returned %s", accel_dtype_name(dtype), engine,
          accel_status_name(status));
    return true;
}

/* ---------------------------------------------------------------- reductions */

static void test_all_reduce_one(accel_comm_t *comm, int size, const int *ranks, int rank,
                                accel_dtype_t dtype, accel_reduce_op_t op, size_t count,
                                bool in_place)
{
    size_t bytes = count * check_dtype_size(dtype);
    void *host = host_buffer(bytes), *send = device_buffer(bytes);
    void *recv = in_place ? send : device_buffer(bytes);
    accel_status_t status;
    check_fill(host, rank, 0, count, dtype, op);
    to_device(send, host, bytes);
    status = accel_all_reduce(comm, send, recv, count, dtype, op, NULL);
    if (!refused(status, dtype, op, count)) {
        CHECK(status == ACCEL_OK, "all_reduce %s %s count %zu returned %s", accel_dtype_name(dtype),
              accel_reduce_op_name(op), count, accel_status_name(status));
        memset(host, 0, bytes);
        to_host(host, recv, bytes);
        check_verify(in_place ? "all_reduce in place" : "all_reduce", host, 0, count, dtype, op,
                     size, ranks);
    }
    if (!in_place)
        accel_free(acc, recv);
    accel_free(acc, send);
    free(host);
}

static void test_reduce_scatter_one(accel_comm_t *comm, int size, int rank, accel_dtype_t dtype,
                                    accel_reduce_op_t op, size_t count)
{
    size_t bytes = count * check_dtype_size(dtype), all = bytes * (size_t)size;
    void *host = host_buffer(all), *send = device_buffer(all), *recv = device_buffer(bytes);
    accel_status_t status;
    check_fill(host, rank, 0, count * (size_t)size, dtype, op);
    to_device(send, host, all);
    status = accel_reduce_scatter(comm, send, recv, count, dtype, op, NULL);
    if (!refused(status, dtype, op, count)) {
        CHECK(status == ACCEL_OK, "reduce_scatter returned %s", accel_status_name(status));
        to_host(host, recv, bytes);
        check_verify("reduce_scatter", host, (size_t)rank * count, count, dtype, op, size, NULL);
    }
    accel_free(acc, recv);
    accel_free(acc, send);
    free(host);
}

static void test_reduce_one(accel_comm_t *comm, int size, int rank, accel_dtype_t dtype,
                            accel_reduce_op_t op, size_t count)
{
    size_t bytes = count * check_dtype_size(dtype);
    int root = (int)((count + 1) % (size_t)size);
    void *host = host_buffer(bytes), *send = device_buffer(bytes), *recv = device_buffer(bytes);
    accel_status_t status;
    check_fill(host, rank, 0, count, dtype, op);
    to_device(send, host, bytes);
    /* recv is written on the root only: the others pass NULL. */
    status = accel_reduce(comm, send, rank == root ? recv : NULL, count, dtype, op, root, NULL);
    if (!refused(status, dtype, op, count)) {
        CHECK(status == ACCEL_OK, "reduce %s %s returned %s", accel_dtype_name(dtype),
              accel_reduce_op_name(op), accel_status_name(status));
        to_host(host, recv, bytes);
        if (rank == root)
            check_verify("reduce", host, 0, count, dtype, op, size, NULL);
    }
    accel_free(acc, recv);
    accel_free(acc, send);
    free(host);
}

/* Every op of `dtype` as reduces in one group, each to its own root (op
 * modulo the size). Every rank passes a recv buffer holding a marker: only
 * the roots' may change. On an engine without reduce the layer's fallback
 * defers its copies out of scratch (and avg's scale after them) to the
 * group's end. */
static void test_reduce_grouped(accel_comm_t *comm, int size, int rank, accel_dtype_t dtype)
{
    size_t count = 129, bytes = count * check_dtype_size(dtype);
    unsigned char *host = host_buffer(bytes), *marker = host_buffer(bytes);
    void *send[ACCEL_REDUCE_COUNT_], *recv[ACCEL_REDUCE_COUNT_];
    memset(marker, 0xa5, bytes);
    for (int op = 0; op < ACCEL_REDUCE_COUNT_; op++) {
        send[op] = recv[op] = NULL;
        if (!reduces(dtype, (accel_reduce_op_t)op))
            continue; /* refused alone: test_reduce_one checks that */
        send[op] = device_buffer(bytes);
        recv[op] = device_buffer(bytes);
        check_fill(host, rank, 0, count, dtype, (accel_reduce_op_t)op);
        to_device(send[op], host, bytes);
        to_device(recv[op], marker, bytes);
    }
    CHECK_OK(accel_comm_group_start());
    for (int op = 0; op < ACCEL_REDUCE_COUNT_; op++)
        if (send[op] != NULL)
            CHECK_OK(accel_reduce(comm, send[op], recv[op], count, dtype, (accel_reduce_op_t)op,
                                  op % size, NULL));
    CHECK_OK(accel_comm_group_end());
    for (int op = 0; op < ACCEL_REDUCE_COUNT_; op++) {
        if (send[op] == NULL)
            continue;
        to_host(host, recv[op], bytes);
        if (rank == op % size)
            check_verify("reduce in a group", host, 0, count, dtype, (accel_reduce_op_t)op, size,
                         NULL);
        else
            CHECK(memcmp(host, marker, bytes) == 0,
                  "reduce %s %s in a group to root %d changed rank %d's recv",
                  accel_dtype_name(dtype), accel_reduce_op_name((accel_reduce_op_t)op), op % size,
                  rank);
        accel_free(acc, recv[op]);
        accel_free(acc, send[op]);
    }
    free(marker);
    free(host);
}

/* accel_reduce alone: every dtype, op and count, roots and non-roots (the
 * root moves with the count), outside and inside groups. On the sim without
 * HcclReduce (hccl.sim_comm_no_reduce) this is the layer's fallback end to
 * end. */
static void test_reduce_only(accel_comm_t *comm, int size, int rank)
{
    for (size_t d = 0; d < DTYPE_COUNT; d++) {
        for (int op = 0; op < ACCEL_REDUCE_COUNT_; op++)
            for (size_t c = 0; c < COUNT_COUNT; c++)
                test_reduce_one(comm, size, rank, dtypes[d], (accel_reduce_op_t)op, counts[c]);
        test_reduce_grouped(comm, size, rank, dtypes[d]);
    }
}

static void test_reductions(accel_comm_t *comm, int size, int rank)
{
    for (size_t d = 0; d < DTYPE_COUNT; d++)
        for (int op = 0; op < ACCEL_REDUCE_COUNT_; op++)
            for (size_t c = 0; c < COUNT_COUNT; c++) {
                for (int in_place = 0; in_place < 2; in_place++)
                    test_all_reduce_one(comm, size, NULL, rank, dtypes[d], (accel_reduce_op_t)op,
                                        counts[c], in_place);
                test_reduce_scatter_one(comm, size, rank, dtypes[d], (accel_reduce_op_t)op,
                                        counts[c]);
                test_reduce_one(comm, size, rank, dtypes[d], (accel_reduce_op_t)op, counts[c]);
            }
    for (size_t d = 0; d < DTYPE_COUNT; d++)
        test_reduce_grouped(comm, size, rank, dtypes[d]);
}

/* ---------------------------------------------------------------- data movement */

static void test_all_gather(accel_comm_t *comm, int size, int rank, accel_dtype_t dtype,
                            size_t count)
{
    size_t bytes = count * check_dtype_size(dtype), all = bytes * (size_t)size;
    void *host = host_buffer(all), *send = device_buffer(bytes), *recv = device_buffer(all);
    check_fill(host, rank, (size_t)rank * count, count, dtype, ACCEL_REDUCE_SUM);
    to_device(send, host, bytes);
    CHECK_OK(accel_all_gather(comm, send, recv, count, dtype, NULL));
    to_host(host, recv, all);
    for (size_t i = 0; i < count * (size_t)size; i++) {
        int r = (int)(i / count);
        double want = check_input(r, i, dtype, ACCEL_REDUCE_SUM);
        if (check_load(host, i, dtype) != want) {
            CHECK(false, "all_gather %s count %zu: element %zu is %g, not %g",
                  accel_dtype_name(dtype), count, i, check_load(host, i, dtype), want);
            break;
        }
    }
    accel_free(acc, recv);
    accel_free(acc, send);
    free(host);
}

static void test_broadcast(accel_comm_t *comm, int size, int rank, accel_dtype_t dtype,
                           size_t count, bool in_place)
{
    size_t bytes = count * check_dtype_size(dtype);
    int root = (int)(count % (size_t)size);
    void *host = host_buffer(bytes), *recv = device_buffer(bytes);
    void *send = in_place ? recv : device_buffer(bytes);
    /* Every rank's send holds its own values; only the root's may arrive. */
    check_fill(host, rank, 0, count, dtype, ACCEL_REDUCE_MIN);
    to_device(send, host, bytes);
    CHECK_OK(accel_broadcast(comm, rank == root || in_place ? send : NULL, recv, count, dtype, root,
                             NULL));
    to_host(host, recv, bytes);
    for (size_t i = 0; i < count; i++) {
        double want = check_input(root, i, dtype, ACCEL_REDUCE_MIN);
        if (check_load(host, i, dtype) != want) {
            CHECK(false, "broadcast%s %s count %zu root %d: element %zu is %g, not %g",
                  in_place ? " in place" : "", accel_dtype_name(dtype), count, root, i,
                  check_load(host, i, dtype), want);
            break;
        }
    }
    if (!in_place) {
        /* The root's send is unchanged; nobody else's is read. */
        check_fill(host, rank, 0, count, dtype, ACCEL_REDUCE_MIN);
        void *back = host_buffer(bytes);
        to_host(back, send, bytes);
        CHECK(memcmp(back, host, bytes) == 0, "broadcast changed a send buffer");
        free(back);
        accel_free(acc, send);
    }
    accel_free(acc, recv);
    free(host);
}

static void test_movement(accel_comm_t *comm, int size, int rank)
{
    for (size_t d = 0; d < DTYPE_COUNT; d++)
        for (size_t c = 0; c < COUNT_COUNT; c++) {
            test_all_gather(comm, size, rank, dtypes[d], counts[c]);
            test_broadcast(comm, size, rank, dtypes[d], counts[c], false);
            test_broadcast(comm, size, rank, dtypes[d], counts[c], true);
        }
}

/* ---------------------------------------------------------------- point to point, barrier */

static void test_ring(accel_comm_t *comm, int size, int rank, size_t count)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    size_t bytes = count * sizeof(int32_t);
    int32_t *host = host_buffer(bytes);
    void *send = device_buffer(bytes), *recv = device_buffer(bytes);
    for (size_t i = 0; i < count; i++)
        host[i] = rank * 1000003 + (int32_t)i;
    to_device(send, host, bytes);
    CHECK_OK(accel_comm_group_start());
    CHECK_OK(accel_recv(comm, recv, count, ACCEL_DTYPE_I32, prev, NULL));
    CHECK_OK(accel_send(comm, send, count, ACCEL_DTYPE_I32, next, NULL));
    CHECK_OK(accel_comm_group_end());
    to_host(host, recv, bytes);
    for (size_t i = 0; i < count; i++)
        if (host[i] != prev * 1000003 + (int32_t)i) {
            CHECK(false, "ring count %zu: element %zu is %d", count, i, (int)host[i]);
            break;
        }
    accel_free(acc, recv);
    accel_free(acc, send);
    free(host);
}

/* Collectives inside a group, those the layer emulates included (avg, the
 * barrier on engines without one): their results are there after the end. */
static void test_grouped(accel_comm_t *comm, int size, int rank)
{
    /* i32: a scale applied before the sum instead of after truncates
     * differently, so the order shows. */
    size_t count = 333, bytes = count * sizeof(int32_t);
    int32_t *host = host_buffer(bytes);
    void *a = device_buffer(bytes), *b = device_buffer(bytes);
    check_fill(host, rank, 0, count, ACCEL_DTYPE_I32, ACCEL_REDUCE_AVG);
    to_device(a, host, bytes);
    check_fill(host, rank, 0, count, ACCEL_DTYPE_I32, ACCEL_REDUCE_MAX);
    to_device(b, host, bytes);
    CHECK_OK(accel_comm_group_start());
    CHECK_OK(accel_all_reduce(comm, a, a, count, ACCEL_DTYPE_I32, ACCEL_REDUCE_AVG, NULL));
    CHECK_OK(accel_barrier(comm, NULL));
    CHECK_OK(accel_all_reduce(comm, b, b, count, ACCEL_DTYPE_I32, ACCEL_REDUCE_MAX, NULL));
    CHECK_OK(accel_comm_group_end());
    to_host(host, a, bytes);
    check_verify("avg in a group", host, 0, count, ACCEL_DTYPE_I32, ACCEL_REDUCE_AVG, size, NULL);
    to_host(host, b, bytes);
    check_verify("max in a group", host, 0, count, ACCEL_DTYPE_I32, ACCEL_REDUCE_MAX, size, NULL);
    accel_free(acc, b);
    accel_free(acc, a);
    free(host);
}

static void test_point_to_point(accel_comm_t *comm, int size, int rank)
{
    test_grouped(comm, size, rank);
    test_ring(comm, size, rank, 1);
    test_ring(comm, size, rank, 4099);
    CHECK_OK(accel_barrier(comm, NULL));
    CHECK_OK(accel_synchronize(acc, ACCEL_CURRENT_DEVICE));
}

/* ---------------------------------------------------------------- streams */

/* On a stream of the caller's: the input arrives by a copy queued on it just
 * before the collective, the emulated avg's scale runs on it, the result is
 * read after that stream alone is synchronized. */
static void test_stream(accel_comm_t *comm, int size, int rank, int device)
{
    size_t count = 517, bytes = count * sizeof(float);
    accel_stream_t *stream = NULL;
    float *host = host_buffer(bytes), *pinned = NULL;
    void *data = device_buffer(bytes);
    CHECK_OK(accel_stream_create(acc, device, 0, &stream));
    CHECK_OK(accel_host_alloc(acc, bytes, (void **)&pinned));
    if (stream == NULL || pinned == NULL)
        die("accel_stream_create / accel_host_alloc");
    check_fill(pinned, rank, 0, count, ACCEL_DTYPE_F32, ACCEL_REDUCE_AVG);
    CHECK_OK(accel_memcpy_async(acc, data, pinned, bytes, ACCEL_COPY_HOST_TO_DEVICE, stream));
    CHECK_OK(accel_all_reduce(comm, data, data, count, ACCEL_DTYPE_F32, ACCEL_REDUCE_AVG, stream));
    CHECK_OK(accel_memcpy_async(acc, host, data, bytes, ACCEL_COPY_DEVICE_TO_HOST, stream));
    CHECK_OK(accel_stream_synchronize(stream));
    check_verify("avg on a created stream", host, 0, count, ACCEL_DTYPE_F32, ACCEL_REDUCE_AVG, size,
                 NULL);
    CHECK_OK(accel_stream_destroy(stream));
    CHECK_OK(accel_host_free(acc, pinned));
    accel_free(acc, data);
    free(host);
}

/* ---------------------------------------------------------------- split */

static void test_split(accel_comm_t *world, int size, int rank)
{
    accel_comm_t *half = NULL, *none = NULL;
    int members[16], count = 0, sub_rank = -1, sub_size = -1;
    /* Even and odd ranks, ordered by descending world rank (key = -rank). */
    CHECK_OK(accel_comm_split(world, rank % 2, -rank, &half));
    CHECK(half != NULL, "split gave no communicator");
    if (half == NULL)
        return;
    for (int r = size - 1; r >= 0; r--)
        if (r % 2 == rank % 2)
            members[count++] = r;
    CHECK_OK(accel_comm_rank(half, &sub_rank));
    CHECK_OK(accel_comm_size(half, &sub_size));
    CHECK(sub_size == count && sub_rank >= 0 && sub_rank < count && members[sub_rank] == rank,
          "split: rank %d of %d is not world rank %d's place", sub_rank, sub_size, rank);
    if (sub_size == count && sub_rank >= 0 && sub_rank < count) {
        /* The sub-communicator reduces over its members only. */
        test_all_reduce_one(half, count, members, rank, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, 257,
                            false);
        test_all_reduce_one(half, count, members, rank, ACCEL_DTYPE_I32, ACCEL_REDUCE_AVG, 31,
                            true);
        test_all_gather(half, count, sub_rank, ACCEL_DTYPE_BF16, 13);
        if (count > 1)
            test_ring(half, count, sub_rank, 77);
        CHECK_OK(accel_barrier(half, NULL));
    }
    /* Rank 0 takes part without a communicator. */
    CHECK_OK(accel_comm_split(world, rank == 0 ? ACCEL_COMM_SPLIT_NONE : 0, 0, &none));
    CHECK((none == NULL) == (rank == 0), "SPLIT_NONE gave %p", (void *)none);
    if (none != NULL) {
        int n = 0, others[16];
        for (int r = 1; r < size; r++)
            others[r - 1] = r;
        CHECK_OK(accel_comm_size(none, &n));
        CHECK(n == size - 1, "split without rank 0 has %d ranks", n);
        test_all_reduce_one(none, size - 1, others, rank, ACCEL_DTYPE_F32, ACCEL_REDUCE_MAX, 5,
                            false);
        CHECK_OK(accel_comm_destroy(none));
    }
    CHECK_OK(accel_comm_destroy(half));
}

/* ---------------------------------------------------------------- bad input */

static void test_bad_input(accel_comm_t *comm, int size, int rank)
{
    float host[4] = {1, 2, 3, 4};
    void *small = device_buffer(63); /* 64 bytes */
    CHECK_FAILS(accel_all_reduce(comm, host, small, 4, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "needs device memory");
    CHECK_FAILS(accel_broadcast(comm, small, host, 4, ACCEL_DTYPE_F32, 0, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "recv buffer");
    CHECK_FAILS(accel_all_reduce(comm, small, small, 100, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "which holds only 64 bytes");
    /* One rank: 16 gathered elements fit, and the only peer is this rank. */
    if (size > 1) {
        CHECK_FAILS(accel_all_gather(comm, small, small, 16, ACCEL_DTYPE_F32, NULL),
                    ACCEL_ERROR_INVALID_ARGUMENT, "recv buffer needs");
        CHECK_FAILS(
            accel_send(comm, (char *)small + 60, 2, ACCEL_DTYPE_F32, (rank + 1) % size, NULL),
            ACCEL_ERROR_INVALID_ARGUMENT, "at offset 60");
    }
    /* Memory and streams of the other device. */
    int devices = 0, device = -1;
    CHECK_OK(accel_device_count(acc, &devices));
    CHECK_OK(accel_comm_device(comm, &device));
    if (devices > 1) {
        int other = (device + 1) % devices;
        void *elsewhere = NULL;
        accel_stream_t *stream = NULL;
        CHECK_OK(accel_set_device(acc, other));
        CHECK_OK(accel_malloc(acc, 64, &elsewhere));
        CHECK_OK(accel_stream_create(acc, other, 0, &stream));
        CHECK_OK(accel_set_device(acc, device));
        CHECK_FAILS(accel_all_gather(comm, elsewhere, small, 1, ACCEL_DTYPE_F32, NULL),
                    ACCEL_ERROR_INVALID_ARGUMENT, "lives on device");
        CHECK_FAILS(
            accel_all_reduce(comm, small, small, 1, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, stream),
            ACCEL_ERROR_INVALID_ARGUMENT, "the stream is on device");
        CHECK_OK(accel_stream_destroy(stream));
        CHECK_OK(accel_free(acc, elsewhere));
    }
    if (!reduces(ACCEL_DTYPE_F64, ACCEL_REDUCE_MAX))
        CHECK_FAILS(
            accel_all_reduce(comm, small, small, 2, ACCEL_DTYPE_F64, ACCEL_REDUCE_MAX, NULL),
            ACCEL_ERROR_UNSUPPORTED, engine);
    accel_free(acc, small);
}

/* ---------------------------------------------------------------- a failed bootstrap */

/* Run with the sim failing the first and third unique-id calls of each
 * process (ACCEL_SIM_FAIL): rank 0 cannot make the id, and every rank's
 * accel_comm_init must fail saying so, the others promptly instead of
 * waiting out the timeout for an id that never comes. Then it works, and a
 * split fails the same way, then works. */
static int run_root_fails(const char *function)
{
    accel_comm_options_t options = {.struct_size = sizeof options, .use_local_rank = true};
    accel_comm_t *comm = NULL;
    accel_status_t status;
    const char *rank_text = getenv("OMPI_COMM_WORLD_RANK");
    check_rank = rank_text != NULL ? atoi(rank_text) : -1;
    if (accel_get(&acc) != ACCEL_OK)
        die("accel_get");
    /* The calling thread's current device stays 0 while ranks 1 and 3 are
     * on device 1: the layer's own scratch must follow the communicator. */
    status = accel_comm_init(acc, &options, &comm);
    CHECK(status != ACCEL_OK && comm == NULL, "accel_comm_init returned %s",
          accel_status_name(status));
    if (check_rank == 0)
        CHECK(strstr(accel_last_error(), function) != NULL, "rank 0's sentence: %s",
              accel_last_error());
    else
        CHECK(strstr(accel_last_error(), "rank 0 could not make") != NULL, "the sentence: %s",
              accel_last_error());
    /* The next attempt finds the library working again. */
    CHECK_OK(accel_comm_init(acc, &options, &comm));
    if (comm == NULL)
        return 1;
    /* A split whose leaders (world ranks 0 and 1) cannot make their ids
     * (the rule for their third and first calls): they fail with their own
     * error, their members saying why; the next split works. */
    accel_comm_t *half = NULL;
    status = accel_comm_split(comm, check_rank % 2, check_rank, &half);
    CHECK(status != ACCEL_OK && half == NULL, "split returned %s", accel_status_name(status));
    CHECK(strstr(accel_last_error(), check_rank < 2 ? function : "could not make") != NULL,
          "the split's sentence: %s", accel_last_error());
    CHECK_OK(accel_comm_split(comm, check_rank % 2, check_rank, &half));
    if (half != NULL) {
        CHECK_OK(accel_barrier(half, NULL));
        CHECK_OK(accel_comm_destroy(half));
    }
    CHECK_OK(accel_barrier(comm, NULL));
    CHECK_OK(accel_comm_destroy(comm));
    if (check_failures == 0)
        printf("rank %d: a failed %s failed every rank's init\n", check_rank, function);
    return check_failures == 0 ? 0 : 1;
}

/* ---------------------------------------------------------------- a rank that never joins */

/* A communicator made and freed with `timeout_s` in the options; the
 * HCCL_CONNECT_TIMEOUT the init left behind is compared with `want`. */
static void join_and_check(double timeout_s, const char *want)
{
    accel_comm_options_t options = {
        .struct_size = sizeof options, .use_local_rank = true, .timeout_s = timeout_s};
    accel_comm_t *comm = NULL;
    const char *now;
    CHECK_OK(accel_comm_init(acc, &options, &comm));
    now = getenv("HCCL_CONNECT_TIMEOUT");
    CHECK(now != NULL && strcmp(now, want) == 0,
          "timeout_s %g left HCCL_CONNECT_TIMEOUT=%s, expected %s", timeout_s,
          now != NULL ? now : "(unset)", want);
    if (comm != NULL) {
        CHECK_OK(accel_barrier(comm, NULL));
        CHECK_OK(accel_comm_destroy(comm));
    }
}

/* `failing` rank's next HcclCommInitRootInfo fails (sim_fault, through the
 * loaded sim's accel_sim_fault_set); every rank's accel_comm_init must fail:
 * that rank with the injected code, the others with HCCL_E_TIMEOUT once
 * HCCL_CONNECT_TIMEOUT has passed, instead of waiting for ever. */
static void join_without(int failing)
{
    accel_comm_options_t options = {.struct_size = sizeof options, .use_local_rank = true};
    accel_comm_t *comm = NULL;
    accel_status_t status;
    if (check_rank == failing) {
        /* The sim accel loaded (the first init loaded it): its next
         * HcclCommInitRootInfo returns HCCL_E_INTERNAL. */
        void *sim = dlopen(getenv("ACCEL_HCCL_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
        int (*fault_set)(const char *) = NULL;
        if (sim != NULL)
            *(void **)&fault_set = dlsym(sim, "accel_sim_fault_set");
        if (fault_set == NULL || fault_set("HcclCommInitRootInfo:1:4") != 0)
            die("the loaded sim's accel_sim_fault_set");
        dlclose(sim);
    }
    status = accel_comm_init(acc, &options, &comm);
    CHECK(status != ACCEL_OK && comm == NULL, "rank %d of a job whose rank %d never joins: %s",
          check_rank, failing, accel_status_name(status));
    if (check_rank == failing)
        CHECK(strstr(accel_last_error(), "HcclCommInitRootInfo failed with HcclResult 4") != NULL,
              "the failing rank's sentence: %s", accel_last_error());
    else
        CHECK(strstr(accel_last_error(), "HCCL_E_TIMEOUT") != NULL &&
                  strstr(accel_last_error(), "HCCL_CONNECT_TIMEOUT") != NULL,
              "the sentence of a rank that waited: %s", accel_last_error());
}

/* Run with HCCL_CONNECT_TIMEOUT unset: accel puts the communicator's
 * timeout there (rounded up, clamped into CANN's [120, 7200]); once the
 * user has set it, accel leaves it alone. Then, with it set to 3 s, a rank
 * whose init fails (a member, then rank 0) makes the others fail after it
 * instead of hanging them; then a communicator is made again. */
static int run_join_timeout(void)
{
    const char *rank_text = getenv("OMPI_COMM_WORLD_RANK");
    accel_comm_options_t options = {.struct_size = sizeof options, .use_local_rank = true};
    accel_comm_t *comm = NULL;
    check_rank = rank_text != NULL ? atoi(rank_text) : -1;
    if (accel_get(&acc) != ACCEL_OK)
        die("accel_get");
    CHECK(getenv("HCCL_CONNECT_TIMEOUT") == NULL, "run this with HCCL_CONNECT_TIMEOUT unset");
    /* Ascend HCCL has no rendezvous variable: ACCEL_COMM_BOOTSTRAP=env is
     * refused, saying so, before any rank waits. */
    setenv("ACCEL_COMM_BOOTSTRAP", "env", 1);
    CHECK_FAILS(accel_comm_init(acc, &options, &comm), ACCEL_ERROR_UNSUPPORTED,
                "hccl engine has no rendezvous of its own: unset it");
    unsetenv("ACCEL_COMM_BOOTSTRAP");
    join_and_check(300.5, "301");
    join_and_check(2, "120");
    join_and_check(INFINITY, "7200");
    join_and_check(0, "120"); /* ACCEL_COMM_TIMEOUT=120 in the test's environment */
    /* The user's value stays. */
    setenv("HCCL_CONNECT_TIMEOUT", "3", 1);
    join_and_check(500, "3");
    join_without(2);
    join_without(0);
    CHECK_OK(accel_comm_init(acc, &options, &comm));
    if (comm != NULL) {
        CHECK_OK(accel_barrier(comm, NULL));
        CHECK_OK(accel_comm_destroy(comm));
    }
    if (check_failures == 0)
        printf("rank %d: a rank that never joined failed the others after HCCL_CONNECT_TIMEOUT\n",
               check_rank);
    return check_failures == 0 ? 0 : 1;
}

/* ---------------------------------------------------------------- the engine's own rendezvous */

/* How many times the loaded sim of the engine's library has had `function`
 * called (sim_fault's accel_sim_calls). */
static unsigned long sim_calls(const char *variable, const char *function)
{
    void *sim = dlopen(getenv(variable), RTLD_NOW | RTLD_NOLOAD);
    unsigned long (*calls)(const char *) = NULL, n;
    if (sim != NULL)
        *(void **)&calls = dlsym(sim, "accel_sim_calls");
    if (calls == NULL)
        die("the loaded sim's accel_sim_calls");
    n = calls(function);
    dlclose(sim);
    return n;
}

/* ACCEL_COMM_BOOTSTRAP=env under mpirun, on the habana-hccl sim, run with
 * MASTER_ADDR and MASTER_PORT set and HCCL_COMM_ID unset: accel takes rank
 * and size from mpirun's variables, sets HCCL_COMM_ID to
 * MASTER_ADDR:MASTER_PORT; only rank 0 calls hcclGetUniqueId (which starts
 * HCL's coordinator there: a second caller would collide on its port) and
 * the others pass a zeroed id, as HabanaAI/hccl_demo's hccl_demo.cpp does
 * without MPI (tests/sim/README.md, the hcl rules). The sim then joins only
 * ranks that derived the same id from HCCL_COMM_ID. `mismatch`: rank 3 has
 * another MASTER_PORT, so every rank's init must fail, saying the ids
 * differ.
 * On the nccl sim (NCCL_COMM_ID, every rank's ncclGetUniqueId echoing the
 * address): the world communicator, then test_split, which goes through
 * ncclCommSplit where the sim exports it; on the old sim (no ncclCommSplit,
 * NCCL before 2.18) every rank's split is refused alike, saying why: each
 * color's rank 0 would start its bootstrap root on that one address
 * (tests/sim/README.md, CCL-NCCL-COMMID). */
static bool nccl_env_split_refused(accel_comm_t *comm, int rank)
{
    void *sim = dlopen(getenv("ACCEL_NCCL_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
    accel_comm_t *half = NULL;
    bool has_split = sim != NULL && dlsym(sim, "ncclCommSplit") != NULL;
    if (sim != NULL)
        dlclose(sim);
    if (has_split)
        return false;
    CHECK_FAILS(accel_comm_split(comm, rank % 2, 0, &half), ACCEL_ERROR_UNSUPPORTED,
                "ncclCommSplit");
    CHECK(half == NULL, "a refused split gave a communicator");
    return true;
}

static int run_env_bootstrap(bool mismatch)
{
    accel_comm_options_t options = {.struct_size = sizeof options, .use_local_rank = true};
    accel_t *cpu = NULL;
    accel_comm_t *world = NULL, *comm = NULL;
    const char *rank_text = getenv("OMPI_COMM_WORLD_RANK"), *now;
    bool nccl = strcmp(engine, "nccl") == 0;
    const char *variable = nccl ? "NCCL_COMM_ID" : "HCCL_COMM_ID";
    char want[300];
    int rank = -1, size = -1;
    accel_status_t status;
    check_rank = rank_text != NULL ? atoi(rank_text) : -1;
    /* The sim moves its bytes with MPI, which this bootstrap does not
     * start: a cpu communicator (accel's MPI engine) does. */
    if (accel_open("cpu", &cpu) != ACCEL_OK || accel_comm_init(cpu, NULL, &world) != ACCEL_OK)
        die("an MPI communicator on cpu");
    if (accel_get(&acc) != ACCEL_OK)
        die("accel_get");
    setenv("ACCEL_COMM_BOOTSTRAP", "envy", 1);
    CHECK_FAILS(accel_comm_init(acc, &options, &comm), ACCEL_ERROR_INVALID_ARGUMENT,
                "ACCEL_COMM_BOOTSTRAP=envy is not a bootstrap");
    setenv("ACCEL_COMM_BOOTSTRAP", "env", 1);
    if (mismatch && check_rank == 3)
        setenv("MASTER_PORT", "29599", 1);
    snprintf(want, sizeof want, "%s:%s", getenv("MASTER_ADDR"), getenv("MASTER_PORT"));
    status = accel_comm_init(acc, &options, &comm);
    now = getenv(variable);
    CHECK(now != NULL && strcmp(now, want) == 0, "%s is %s, not %s", variable,
          now != NULL ? now : "unset", want);
    if (nccl)
        CHECK(sim_calls("ACCEL_NCCL_LIBRARY", "ncclGetUniqueId") == 1,
              "rank %d called ncclGetUniqueId %lu times (every rank once)", check_rank,
              sim_calls("ACCEL_NCCL_LIBRARY", "ncclGetUniqueId"));
    else
        CHECK(sim_calls("ACCEL_HABANA_HCCL_LIBRARY", "hcclGetUniqueId") ==
                  (check_rank == 0 ? 1 : 0),
              "rank %d called hcclGetUniqueId %lu times (the root once, the others never)",
              check_rank, sim_calls("ACCEL_HABANA_HCCL_LIBRARY", "hcclGetUniqueId"));
    if (mismatch) {
        CHECK(status != ACCEL_OK && comm == NULL, "init with another MASTER_PORT on rank 3: %s",
              accel_status_name(status));
        CHECK(strstr(accel_last_error(), "derived different unique ids") != NULL,
              "the sentence: %s", accel_last_error());
    } else {
        CHECK(status == ACCEL_OK, "init: %s", accel_last_error());
    }
    if (comm != NULL) {
        int device = -1;
        CHECK_OK(accel_comm_rank(comm, &rank));
        CHECK_OK(accel_comm_size(comm, &size));
        CHECK_OK(accel_comm_device(comm, &device));
        CHECK(rank == check_rank && size == 4, "rank %d of %d", rank, size);
        if (accel_set_device(acc, device) != ACCEL_OK)
            die("accel_set_device");
        test_all_reduce_one(comm, size, NULL, rank, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, 1021, false);
        if (!nccl || !nccl_env_split_refused(comm, rank))
            test_split(comm, size, rank);
        CHECK_OK(accel_barrier(comm, NULL));
        CHECK_OK(accel_comm_destroy(comm));
    }
    if (comm != NULL && !nccl) {
        /* HCL takes HCCL_COMM_ID for a process's first communicator only: a
         * second is refused on every rank, none left waiting. */
        comm = NULL;
        CHECK_FAILS(accel_comm_init(acc, &options, &comm), ACCEL_ERROR_UNSUPPORTED,
                    "first communicator only");
        CHECK(comm == NULL, "a second communicator through HCCL_COMM_ID was made");
    }
    CHECK_OK(accel_comm_destroy(world));
    accel_close(cpu);
    if (check_failures == 0)
        printf("rank %d: ACCEL_COMM_BOOTSTRAP=env: %s\n", check_rank,
               mismatch ? "ranks with different addresses failed alike"
               : nccl   ? "every rank derived the same id from NCCL_COMM_ID; splits "
                          "made or refused alike"
                        : "every rank derived the same id from HCCL_COMM_ID");
    return check_failures == 0 ? 0 : 1;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    accel_comm_t *comm = NULL;
    accel_comm_options_t options = {.struct_size = sizeof options, .use_local_rank = true};
    const char *name = NULL, *mode = argc == 3 ? argv[2] : NULL;
    int rank = -1, size = -1, device = -1;
    if (argc != 2 && argc != 3) {
        fprintf(stderr,
                "usage: %s <engine> [reduce | join_timeout | env_bootstrap | env_mismatch | "
                "<unique-id function failing on rank 0>]\n"
                "  reduce: accel_reduce only (every dtype, op, count, root; in groups)\n",
                argv[0]);
        return 2;
    }
    if (mode != NULL && strcmp(mode, "join_timeout") == 0)
        return run_join_timeout();
    if (mode != NULL && strncmp(mode, "env_", 4) == 0) {
        engine = argv[1];
        return run_env_bootstrap(strcmp(mode, "env_mismatch") == 0);
    }
    if (mode != NULL && strcmp(mode, "reduce") != 0)
        return run_root_fails(mode);
    engine = argv[1];
    accel_status_t status = accel_get(&acc);
    if (status != ACCEL_OK)
        unavailable_or_die(status, "accel_get");
    status = accel_comm_init(acc, &options, &comm);
    if (status != ACCEL_OK)
        unavailable_or_die(status, "accel_comm_init");
    CHECK_OK(accel_comm_rank(comm, &rank));
    CHECK_OK(accel_comm_size(comm, &size));
    CHECK_OK(accel_comm_device(comm, &device));
    CHECK_OK(accel_comm_engine_name(comm, &name));
    check_rank = rank;
    CHECK(name != NULL && strcmp(name, engine) == 0, "engine %s, expected %s", name, engine);
    accel_comm_engine_info_t info = {.struct_size = sizeof info};
    CHECK_OK(accel_comm_engine_info(acc, &info));
    CHECK(info.engine != NULL && strcmp(info.engine, engine) == 0 && info.available,
          "engine info: %s, %s", info.engine != NULL ? info.engine : "NULL", info.detail);
    if (accel_set_device(acc, device) != ACCEL_OK)
        die("accel_set_device");
    if (mode != NULL) {
        test_reduce_only(comm, size, rank);
    } else {
        test_reductions(comm, size, rank);
        test_movement(comm, size, rank);
        test_point_to_point(comm, size, rank);
        test_stream(comm, size, rank, device);
        test_split(comm, size, rank);
        test_bad_input(comm, size, rank);
    }
    CHECK_OK(accel_barrier(comm, NULL));
    CHECK_OK(accel_comm_destroy(comm));
    if (check_failures == 0)
        printf("rank %d of %d on device %d: %s: every check passed\n", rank, size, device, engine);
    return check_failures == 0 ? 0 : 1;
}
