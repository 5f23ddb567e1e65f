/* comm_collectives.c: accel's collectives on cpu over the mpi engine, run
 * under `mpirun -n 4` (tests/comm/CMakeLists.txt). Every collective, every
 * dtype, every op, against the reference each rank computes on its own from
 * the deterministic inputs of comm_check.h; awkward sizes (0, 1, primes,
 * more than 1 MiB), in place, sub-communicators from split, send/recv rings
 * in groups, and bad input. Exits 1 when any check failed on this rank. */
#include <dlfcn.h>

#include "comm_check.h"

static accel_t *acc;

static const accel_dtype_t dtypes[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F16, ACCEL_DTYPE_BF16,
                                       ACCEL_DTYPE_F64, ACCEL_DTYPE_U8,  ACCEL_DTYPE_I32,
                                       ACCEL_DTYPE_I64};
#define DTYPE_COUNT (sizeof dtypes / sizeof dtypes[0])
static const size_t small_counts[] = {0, 1, 7, 13, 1021};

/* More than 1 MiB of `dtype`, a prime-ish odd count. */
static size_t big_count(accel_dtype_t dtype)
{
    return (1u << 20) / check_dtype_size(dtype) + 17;
}

static void *buffer(size_t count, accel_dtype_t dtype)
{
    void *p = malloc(count * check_dtype_size(dtype) + 1);
    if (p == NULL) {
        fprintf(stderr, "rank %d: out of memory\n", check_rank);
        exit(2);
    }
    return p;
}

/* ---------------------------------------------------------------- all_reduce */

static void test_all_reduce_one(accel_comm_t *comm, int size, const int *ranks, int my_rank,
                                accel_dtype_t dtype, accel_reduce_op_t op, size_t count,
                                bool in_place)
{
    void *send = buffer(count, dtype), *recv = in_place ? send : buffer(count, dtype);
    check_fill(send, my_rank, 0, count, dtype, op);
    CHECK_OK(accel_all_reduce(comm, send, recv, count, dtype, op, NULL));
    check_verify(in_place ? "all_reduce in place" : "all_reduce", recv, 0, count, dtype, op, size,
                 ranks);
    if (!in_place)
        free(recv);
    free(send);
}

static void test_all_reduce(accel_comm_t *comm, int size, const int *ranks, int my_rank)
{
    for (size_t d = 0; d < DTYPE_COUNT; d++) {
        for (int op = 0; op < ACCEL_REDUCE_COUNT_; op++) {
            for (size_t c = 0; c < sizeof small_counts / sizeof small_counts[0]; c++)
                for (int in_place = 0; in_place < 2; in_place++)
                    test_all_reduce_one(comm, size, ranks, my_rank, dtypes[d],
                                        (accel_reduce_op_t)op, small_counts[c], in_place);
        }
        test_all_reduce_one(comm, size, ranks, my_rank, dtypes[d], ACCEL_REDUCE_SUM,
                            big_count(dtypes[d]), false);
        test_all_reduce_one(comm, size, ranks, my_rank, dtypes[d], ACCEL_REDUCE_AVG,
                            big_count(dtypes[d]), true);
    }
}

/* ---------------------------------------------------------------- all_gather, reduce_scatter */

static void test_all_gather_one(accel_comm_t *comm, int size, int rank, accel_dtype_t dtype,
                                size_t count, bool in_place)
{
    size_t elem = check_dtype_size(dtype);
    void *recv = buffer(count * (size_t)size, dtype);
    void *send = in_place ? (char *)recv + (size_t)rank * count * elem : buffer(count, dtype);
    /* Rank r's block: its sum inputs at [r * count, (r + 1) * count). */
    check_fill(send, rank, (size_t)rank * count, count, dtype, ACCEL_REDUCE_SUM);
    CHECK_OK(accel_all_gather(comm, send, recv, count, dtype, NULL));
    for (int r = 0; r < size; r++) {
        for (size_t i = 0; i < count; i++) {
            double got = check_load(recv, (size_t)r * count + i, dtype);
            double want = check_input(r, (size_t)r * count + i, dtype, ACCEL_REDUCE_SUM);
            if (got != want) {
                CHECK(got == want, "all_gather %s count %zu%s: block %d element %zu is %g, not %g",
                      accel_dtype_name(dtype), count, in_place ? " in place" : "", r, i, got, want);
                r = size;
                break;
            }
        }
    }
    if (!in_place)
        free(send);
    free(recv);
}

static void test_reduce_scatter_one(accel_comm_t *comm, int size, const int *ranks, int rank,
                                    accel_dtype_t dtype, accel_reduce_op_t op, size_t count,
                                    bool in_place)
{
    size_t elem = check_dtype_size(dtype);
    void *send = buffer(count * (size_t)size, dtype);
    void *recv = in_place ? (char *)send + (size_t)rank * count * elem : buffer(count, dtype);
    check_fill(send, ranks != NULL ? ranks[rank] : rank, 0, count * (size_t)size, dtype, op);
    CHECK_OK(accel_reduce_scatter(comm, send, recv, count, dtype, op, NULL));
    check_verify(in_place ? "reduce_scatter in place" : "reduce_scatter", recv,
                 (size_t)rank * count, count, dtype, op, size, ranks);
    if (!in_place)
        free(recv);
    free(send);
}

static void test_gather_scatter(accel_comm_t *comm, int size, const int *ranks, int rank)
{
    for (size_t d = 0; d < DTYPE_COUNT; d++) {
        for (size_t c = 0; c < sizeof small_counts / sizeof small_counts[0]; c++) {
            for (int in_place = 0; in_place < 2; in_place++) {
                test_all_gather_one(comm, size, rank, dtypes[d], small_counts[c], in_place);
                for (int op = 0; op < ACCEL_REDUCE_COUNT_; op++)
                    test_reduce_scatter_one(comm, size, ranks, rank, dtypes[d],
                                            (accel_reduce_op_t)op, small_counts[c], in_place);
            }
        }
    }
    test_all_gather_one(comm, size, rank, ACCEL_DTYPE_F32, big_count(ACCEL_DTYPE_F32), false);
    test_reduce_scatter_one(comm, size, ranks, rank, ACCEL_DTYPE_BF16, ACCEL_REDUCE_SUM,
                            big_count(ACCEL_DTYPE_BF16) / 4, true);
}

/* ---------------------------------------------------------------- broadcast, reduce */

static void test_broadcast_reduce(accel_comm_t *comm, int size, const int *ranks, int rank)
{
    for (size_t d = 0; d < DTYPE_COUNT; d++) {
        accel_dtype_t dtype = dtypes[d];
        for (size_t c = 0; c < sizeof small_counts / sizeof small_counts[0] + 1; c++) {
            size_t count = c < sizeof small_counts / sizeof small_counts[0] ? small_counts[c]
                                                                            : big_count(dtype);
            int root = (int)(count % (size_t)size);
            for (int in_place = 0; in_place < 2; in_place++) {
                void *recv = buffer(count, dtype), *send = in_place ? recv : buffer(count, dtype);
                check_fill(send, rank, 0, count, dtype, ACCEL_REDUCE_MIN);
                CHECK_OK(accel_broadcast(comm, rank == root ? send : NULL, recv, count, dtype, root,
                                         NULL));
                for (size_t i = 0; i < count; i++) {
                    double want = check_input(root, i, dtype, ACCEL_REDUCE_MIN);
                    if (check_load(recv, i, dtype) != want) {
                        CHECK(false, "broadcast %s count %zu root %d: element %zu wrong",
                              accel_dtype_name(dtype), count, root, i);
                        break;
                    }
                }
                if (!in_place)
                    free(send);
                free(recv);
            }
            for (int op = 0; op < ACCEL_REDUCE_COUNT_ && count < 100000; op++) {
                int reduce_root = (int)((count + 1) % (size_t)size);
                void *send = buffer(count, dtype), *recv = buffer(count, dtype);
                check_fill(send, ranks != NULL ? ranks[rank] : rank, 0, count, dtype,
                           (accel_reduce_op_t)op);
                /* recv is written on the root only: others pass NULL. */
                CHECK_OK(accel_reduce(comm, send, rank == reduce_root ? recv : NULL, count, dtype,
                                      (accel_reduce_op_t)op, reduce_root, NULL));
                if (rank == reduce_root)
                    check_verify("reduce", recv, 0, count, dtype, (accel_reduce_op_t)op, size,
                                 ranks);
                free(send);
                free(recv);
            }
        }
    }
}

/* ---------------------------------------------------------------- repeated calls */

/* A loop repeating a call with the same arguments takes collectives.c's
 * repeat path from its second iteration: the same buffers with new contents
 * each time must give each time's result, for every collective. */
enum { REPEAT_N = 5, REPEAT_MAX_RANKS = 8, REPEATS = 3 };

static void repeat_fill(float *in, float *blocks, int size, int rank, int iter)
{
    for (int i = 0; i < REPEAT_N; i++)
        in[i] = (float)(iter * 100 + rank * 10 + i);
    for (int b = 0; b < size; b++)
        for (int i = 0; i < REPEAT_N; i++)
            blocks[b * REPEAT_N + i] = (float)(iter * 100 + rank * 10 + b + i);
}

static void test_repeated_calls(accel_comm_t *comm, int size, int rank)
{
    float in[REPEAT_N], out[REPEAT_N], value[REPEAT_N];
    float gathered[REPEAT_N * REPEAT_MAX_RANKS], blocks[REPEAT_N * REPEAT_MAX_RANKS];
    float tens = (float)(10 * size * (size - 1) / 2); /* sum over ranks of rank * 10 */
    if (size > REPEAT_MAX_RANKS)
        return;
    for (int iter = 0; iter < REPEATS; iter++) {
        repeat_fill(in, blocks, size, rank, iter);
        CHECK_OK(
            accel_all_reduce(comm, in, out, REPEAT_N, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL));
        for (int i = 0; i < REPEAT_N; i++)
            CHECK(out[i] == (float)(size * (iter * 100 + i)) + tens,
                  "repeated all_reduce %d: element %d is %g", iter, i, out[i]);
    }
    for (int iter = 0; iter < REPEATS; iter++) {
        repeat_fill(in, blocks, size, rank, iter);
        CHECK_OK(accel_all_gather(comm, in, gathered, REPEAT_N, ACCEL_DTYPE_F32, NULL));
        for (int r = 0; r < size; r++)
            CHECK(gathered[r * REPEAT_N + 1] == (float)(iter * 100 + r * 10 + 1),
                  "repeated all_gather %d: rank %d's block holds %g", iter, r,
                  gathered[r * REPEAT_N + 1]);
    }
    for (int iter = 0; iter < REPEATS; iter++) {
        repeat_fill(in, blocks, size, rank, iter);
        CHECK_OK(accel_reduce_scatter(comm, blocks, out, REPEAT_N, ACCEL_DTYPE_F32,
                                      ACCEL_REDUCE_SUM, NULL));
        for (int i = 0; i < REPEAT_N; i++)
            CHECK(out[i] == (float)(size * (iter * 100 + rank + i)) + tens,
                  "repeated reduce_scatter %d: element %d is %g", iter, i, out[i]);
    }
    for (int iter = 0; iter < REPEATS; iter++) {
        for (int i = 0; i < REPEAT_N; i++)
            value[i] = rank == 0 ? (float)(iter * 100 + i) : -1;
        CHECK_OK(accel_broadcast(comm, value, value, REPEAT_N, ACCEL_DTYPE_F32, 0, NULL));
        CHECK(value[REPEAT_N - 1] == (float)(iter * 100 + REPEAT_N - 1),
              "repeated broadcast %d: %g", iter, value[REPEAT_N - 1]);
    }
    for (int iter = 0; iter < REPEATS; iter++) {
        repeat_fill(in, blocks, size, rank, iter);
        CHECK_OK(accel_reduce(comm, in, out, REPEAT_N, ACCEL_DTYPE_F32, ACCEL_REDUCE_MAX, size - 1,
                              NULL));
        if (rank == size - 1)
            CHECK(out[0] == (float)(iter * 100 + (size - 1) * 10), "repeated reduce %d: %g", iter,
                  out[0]);
    }
}

/* ---------------------------------------------------------------- point to point */

static void test_ring(accel_comm_t *comm, int size, int rank, size_t count, bool recv_first)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int32_t *send = buffer(count, ACCEL_DTYPE_I32), *recv = buffer(count, ACCEL_DTYPE_I32);
    for (size_t i = 0; i < count; i++)
        send[i] = rank * 1000003 + (int32_t)i;
    CHECK_OK(accel_comm_group_start());
    CHECK_OK(accel_comm_group_start()); /* nested: only the outer end issues */
    if (recv_first)
        CHECK_OK(accel_recv(comm, recv, count, ACCEL_DTYPE_I32, prev, NULL));
    CHECK_OK(accel_send(comm, send, count, ACCEL_DTYPE_I32, next, NULL));
    CHECK_OK(accel_comm_group_end());
    if (!recv_first)
        CHECK_OK(accel_recv(comm, recv, count, ACCEL_DTYPE_I32, prev, NULL));
    CHECK_OK(accel_comm_group_end());
    for (size_t i = 0; i < count; i++) {
        if (recv[i] != prev * 1000003 + (int32_t)i) {
            CHECK(false, "ring count %zu: element %zu is %d", count, i, (int)recv[i]);
            break;
        }
    }
    free(send);
    free(recv);
}

static void test_point_to_point(accel_comm_t *comm, int size, int rank)
{
    test_ring(comm, size, rank, 1, true);
    test_ring(comm, size, rank, 4099, false);
    test_ring(comm, size, rank, big_count(ACCEL_DTYPE_I32), true); /* past the eager limit */
    /* A send to itself inside a group, and f16 moved as bytes. */
    uint16_t out[5] = {1, 2, 3, 4, 0x7c00}, in[5] = {0};
    CHECK_OK(accel_comm_group_start());
    CHECK_OK(accel_send(comm, out, 5, ACCEL_DTYPE_F16, rank, NULL));
    CHECK_OK(accel_recv(comm, in, 5, ACCEL_DTYPE_F16, rank, NULL));
    CHECK_OK(accel_comm_group_end());
    CHECK(memcmp(in, out, sizeof in) == 0, "self send in a group");
    /* Blocking pairs outside a group: even ranks send first. */
    if (size % 2 == 0) {
        int peer = rank ^ 1;
        double value = rank, got = -1;
        if (rank % 2 == 0) {
            CHECK_OK(accel_send(comm, &value, 1, ACCEL_DTYPE_F64, peer, NULL));
            CHECK_OK(accel_recv(comm, &got, 1, ACCEL_DTYPE_F64, peer, NULL));
        } else {
            CHECK_OK(accel_recv(comm, &got, 1, ACCEL_DTYPE_F64, peer, NULL));
            CHECK_OK(accel_send(comm, &value, 1, ACCEL_DTYPE_F64, peer, NULL));
        }
        CHECK(got == peer, "pair exchange got %g from %d", got, peer);
    }
    CHECK_OK(accel_barrier(comm, NULL));
}

/* ---------------------------------------------------------------- split */

static void test_split(accel_comm_t *world, int size, int rank)
{
    accel_comm_t *half = NULL, *none = NULL;
    int sub_rank = -1, sub_size = -1;
    int members[8], count = 0;
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
    CHECK(sub_size == count, "split size %d, expected %d", sub_size, count);
    CHECK(sub_rank >= 0 && sub_rank < count && members[sub_rank] == rank,
          "split rank %d is not world rank %d's place", sub_rank, rank);
    if (sub_size == count && sub_rank >= 0 && sub_rank < count) {
        /* The sub-communicator's collectives reduce over its members only. */
        for (size_t d = 0; d < DTYPE_COUNT; d++)
            for (int op = 0; op < ACCEL_REDUCE_COUNT_; op++)
                test_all_reduce_one(half, count, members, rank, dtypes[d], (accel_reduce_op_t)op,
                                    257, false);
        test_reduce_scatter_one(half, count, members, sub_rank, ACCEL_DTYPE_F32, ACCEL_REDUCE_AVG,
                                31, false);
        test_point_to_point(half, count, sub_rank);
    }
    /* Rank 0 takes part without a communicator. */
    CHECK_OK(accel_comm_split(world, rank == 0 ? ACCEL_COMM_SPLIT_NONE : 0, 0, &none));
    CHECK((none == NULL) == (rank == 0), "SPLIT_NONE gave %p", (void *)none);
    if (none != NULL) {
        int n = 0;
        CHECK_OK(accel_comm_size(none, &n));
        CHECK(n == size - 1, "split without rank 0 has %d ranks", n);
        CHECK_OK(accel_barrier(none, NULL));
        CHECK_OK(accel_comm_destroy(none));
    }
    CHECK_OK(accel_comm_destroy(half));
}

/* ---------------------------------------------------------------- bad input */

static void test_bad_input(accel_comm_t *comm, int size, int rank)
{
    float data[4] = {1, 2, 3, 4}, keep[4];
    void *small = NULL;
    accel_comm_t *other = NULL;
    memcpy(keep, data, sizeof keep);
    CHECK_FAILS(accel_all_reduce(NULL, data, data, 4, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "NULL");
    CHECK_FAILS(accel_all_reduce((accel_comm_t *)data, data, data, 4, ACCEL_DTYPE_F32,
                                 ACCEL_REDUCE_SUM, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "not a live communicator");
    CHECK_FAILS(accel_all_reduce(comm, data, data, 4, (accel_dtype_t)99, ACCEL_REDUCE_SUM, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "unknown dtype 99");
    CHECK_FAILS(accel_all_reduce(comm, data, data, 4, ACCEL_DTYPE_F32, (accel_reduce_op_t)9, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "unknown reduce op 9");
    CHECK_FAILS(accel_all_reduce(comm, NULL, data, 4, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "send buffer is NULL");
    CHECK_FAILS(
        accel_all_reduce(comm, data, data, SIZE_MAX / 2, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL),
        ACCEL_ERROR_INVALID_ARGUMENT, "overflows a byte size");
    CHECK_FAILS(
        accel_all_gather(comm, data, data, SIZE_MAX / 4 / (size_t)size + 1, ACCEL_DTYPE_F32, NULL),
        ACCEL_ERROR_INVALID_ARGUMENT, "ranks overflows a byte size");
    CHECK_FAILS(accel_broadcast(comm, data, data, 4, ACCEL_DTYPE_F32, size, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "is not a rank of this communicator");
    CHECK_FAILS(accel_reduce(comm, data, data, 4, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, -1, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "root -1");
    CHECK_FAILS(accel_send(comm, data, 4, ACCEL_DTYPE_F32, -1, NULL), ACCEL_ERROR_INVALID_ARGUMENT,
                "peer -1");
    CHECK_FAILS(accel_recv(comm, data, 4, ACCEL_DTYPE_F32, size, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "is not a rank");
    CHECK_FAILS(accel_send(comm, data, 4, ACCEL_DTYPE_F32, rank, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "needs its recv in the same group");
    CHECK_FAILS(accel_comm_group_end(), ACCEL_ERROR_INVALID_ARGUMENT, "without a matching");
    CHECK_OK(accel_comm_group_start());
    CHECK_FAILS(accel_comm_destroy(comm), ACCEL_ERROR_INVALID_ARGUMENT, "inside a group");
    CHECK_FAILS(accel_comm_split(comm, 0, 0, &other), ACCEL_ERROR_INVALID_ARGUMENT,
                "inside a group");
    CHECK_OK(accel_comm_group_end());
    CHECK_FAILS(accel_comm_split(comm, -5, 0, &other), ACCEL_ERROR_INVALID_ARGUMENT,
                "color -5 is negative");
    /* A buffer accel allocated is checked against its size. */
    CHECK_OK(accel_malloc(acc, 64, &small));
    CHECK_FAILS(accel_all_reduce(comm, small, small, 100, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "which holds only 64 bytes");
    float gathered[17 * 8];
    CHECK_FAILS(accel_all_gather(comm, small, gathered, 17, ACCEL_DTYPE_F32, NULL),
                ACCEL_ERROR_INVALID_ARGUMENT, "needs 68 bytes");
    CHECK_OK(accel_free(acc, small));
    CHECK(memcmp(data, keep, sizeof data) == 0, "a refused call changed the buffer");
    /* Options and engine choice. */
    accel_comm_options_t options = {0};
    CHECK_FAILS(accel_comm_init(acc, &options, &other), ACCEL_ERROR_INVALID_ARGUMENT,
                "struct_size");
    options.struct_size = sizeof options;
    options.timeout_s = -1;
    CHECK_FAILS(accel_comm_init(acc, &options, &other), ACCEL_ERROR_INVALID_ARGUMENT,
                "timeout_s -1");
    options.timeout_s = 0;
    options.engine = "nccl"; /* built in since the vendor engines joined the table */
    CHECK_FAILS(accel_comm_init(acc, &options, &other), ACCEL_ERROR_INVALID_ARGUMENT,
                "the nccl engine does not serve the cpu backend");
    options.engine = "gloo";
    CHECK_FAILS(accel_comm_init(acc, &options, &other), ACCEL_ERROR_UNAVAILABLE,
                "no engine for gloo");
    CHECK_FAILS(accel_comm_init_mpi(acc, NULL, NULL, &other), ACCEL_ERROR_INVALID_ARGUMENT,
                "mpi_comm is NULL");
    CHECK(other == NULL, "a failed init left a communicator");
    /* Mismatched counts that MPI detects: rank 1 receives fewer elements
     * than rank 0 sends (MPI_ERR_TRUNCATE on rank 1 only). */
    if (size >= 2 && rank < 2) {
        float many[8] = {0};
        accel_status_t status;
        CHECK_OK(accel_comm_group_start());
        if (rank == 0)
            CHECK_OK(accel_send(comm, many, 8, ACCEL_DTYPE_F32, 1, NULL));
        else
            CHECK_OK(accel_recv(comm, many, 4, ACCEL_DTYPE_F32, 0, NULL));
        status = accel_comm_group_end();
        if (rank == 0)
            CHECK(status == ACCEL_OK, "the sender of a truncated message got %s",
                  accel_status_name(status));
        else
            CHECK(status == ACCEL_ERROR_DEVICE_ERROR && strstr(accel_last_error(), "MPI") != NULL,
                  "a truncated receive returned %s", accel_status_name(status));
    }
    CHECK_OK(accel_barrier(comm, NULL));
}

/* ---------------------------------------------------------------- the rest */

static void test_info_and_mpi_comm(accel_comm_t *comm, int size, int rank)
{
    accel_comm_engine_info_t info = {.struct_size = sizeof info};
    const char *name = NULL;
    int device = -1;
    CHECK_OK(accel_comm_engine_info(acc, &info));
    CHECK(info.engine != NULL && strcmp(info.engine, "mpi") == 0, "cpu engine is %s",
          info.engine != NULL ? info.engine : "NULL");
    CHECK(info.available, "mpi engine unavailable: %s", info.detail);
    CHECK(strstr(info.detail, "Open MPI") != NULL, "detail '%s' names no library", info.detail);
    CHECK_OK(accel_comm_engine_name(comm, &name));
    CHECK(name != NULL && strcmp(name, "mpi") == 0, "engine name %s", name);
    CHECK_OK(accel_comm_device(comm, &device));
    CHECK(device == 0, "device %d", device);
    /* A communicator over the caller's own MPI_Comm (MPI_COMM_WORLD here,
     * found in the libmpi accel loaded). */
    void *mpi = dlopen("libmpi.so.40", RTLD_NOW | RTLD_NOLOAD);
    CHECK(mpi != NULL, "libmpi is not loaded");
    if (mpi != NULL) {
        void *world = dlsym(mpi, "ompi_mpi_comm_world");
        accel_comm_t *again = NULL;
        int again_rank = -1;
        CHECK_OK(accel_comm_init_mpi(acc, NULL, &world, &again));
        if (again != NULL) {
            CHECK_OK(accel_comm_rank(again, &again_rank));
            CHECK(again_rank == rank, "init_mpi rank %d", again_rank);
            test_all_reduce_one(again, size, NULL, rank, ACCEL_DTYPE_I64, ACCEL_REDUCE_MAX, 5,
                                false);
            CHECK_OK(accel_comm_destroy(again));
        }
        dlclose(mpi);
    }
}

int main(void)
{
    accel_comm_t *comm = NULL;
    int rank = -1, size = -1;
    if (accel_get(&acc) != ACCEL_OK) {
        fprintf(stderr, "accel_get: %s\n", accel_last_error());
        return 1;
    }
    if (accel_comm_init(acc, NULL, &comm) != ACCEL_OK) {
        fprintf(stderr, "accel_comm_init: %s\n", accel_last_error());
        return 1;
    }
    CHECK_OK(accel_comm_rank(comm, &rank));
    CHECK_OK(accel_comm_size(comm, &size));
    check_rank = rank;
    test_info_and_mpi_comm(comm, size, rank);
    test_all_reduce(comm, size, NULL, rank);
    test_gather_scatter(comm, size, NULL, rank);
    test_broadcast_reduce(comm, size, NULL, rank);
    test_repeated_calls(comm, size, rank);
    test_point_to_point(comm, size, rank);
    test_split(comm, size, rank);
    test_bad_input(comm, size, rank);
    CHECK_OK(accel_comm_destroy(comm));
    CHECK_FAILS(accel_comm_destroy(comm), ACCEL_ERROR_INVALID_ARGUMENT, "not a live communicator");
    if (check_failures == 0)
        printf("rank %d of %d: every check passed\n", rank, size);
    return check_failures == 0 ? 0 : 1;
}
