/* comm_collectives.c: the collectives of include/accel/accel_comm.h on the
 * job's ranks, run when the selftest runs under `accel launch -n N` (or any
 * launcher that sets RANK/WORLD_SIZE). Each check makes a communicator over
 * the world on device LOCAL_RANK, runs one kind of collective on device
 * buffers and compares every element with what the ranks must agree on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel_comm.h>

#include "conformance.h"

#define COMM_COUNT 1000

typedef struct comm_world {
    accel_comm_t *comm;
    int rank, size;
} comm_world_t;

static comm_world_t comm_open(void)
{
    accel_comm_options_t options = ACCEL_STRUCT_INIT(accel_comm_options_t);
    comm_world_t world = {0};
    int device = 0;
    options.use_local_rank = true;
    assert_ok(accel_comm_init(conformance_acc, &options, &world.comm));
    assert_ok(accel_comm_rank(world.comm, &world.rank));
    assert_ok(accel_comm_size(world.comm, &world.size));
    assert_ok(accel_comm_device(world.comm, &device));
    assert_ok(accel_set_device(conformance_acc, device));
    return world;
}

static void comm_close(comm_world_t *world)
{
    assert_ok(accel_comm_destroy(world->comm));
}

static float *comm_upload(const float *host, size_t count)
{
    float *dev = conf_device_alloc(count * sizeof *host);
    conf_to_device(dev, host, count * sizeof *host);
    return dev;
}

static void comm_expect(const float *dev, size_t count, float (*want)(size_t i, int rank, int size),
                        const comm_world_t *world, const char *what)
{
    float *host = malloc(count * sizeof *host);
    assert_non_null(host);
    conf_to_host(host, dev, count * sizeof *host);
    for (size_t i = 0; i < count; i++) {
        float w = want(i, world->rank, world->size);
        if (host[i] != w)
            fail_msg("%s: element %zu on rank %d of %d is %g, expected %g", what, i, world->rank,
                     world->size, (double)host[i], (double)w);
    }
    free(host);
}

static float comm_value(size_t i, int rank)
{
    return (float)((int)(i % 97) + 1000 * (rank + 1));
}

static float comm_sum(size_t i, int rank, int size)
{
    (void)rank;
    float sum = 0;
    for (int r = 0; r < size; r++)
        sum += comm_value(i, r);
    return sum;
}

static float comm_max(size_t i, int rank, int size)
{
    (void)rank;
    return comm_value(i, size - 1);
}

static float comm_root_last(size_t i, int rank, int size)
{
    (void)rank;
    return comm_value(i, size - 1);
}

static float comm_gathered(size_t i, int rank, int size)
{
    (void)rank;
    (void)size;
    return comm_value(i % COMM_COUNT, (int)(i / COMM_COUNT));
}

static float comm_scattered(size_t i, int rank, int size)
{
    return comm_sum(i + (size_t)rank * COMM_COUNT, rank, size);
}

static float comm_from_left(size_t i, int rank, int size)
{
    return comm_value(i, (rank + size - 1) % size);
}

static float *comm_filled(const comm_world_t *world, size_t count)
{
    float *host = malloc(count * sizeof *host);
    assert_non_null(host);
    for (size_t i = 0; i < count; i++)
        host[i] = comm_value(i, world->rank);
    float *dev = comm_upload(host, count);
    free(host);
    return dev;
}

void check_comm_all_reduce(void **state)
{
    comm_world_t world = comm_open();
    float *a = comm_filled(&world, COMM_COUNT), *b = comm_filled(&world, COMM_COUNT);
    (void)state;
    assert_ok(
        accel_all_reduce(world.comm, a, a, COMM_COUNT, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL));
    comm_expect(a, COMM_COUNT, comm_sum, &world, "all_reduce sum in place");
    assert_ok(
        accel_all_reduce(world.comm, b, a, COMM_COUNT, ACCEL_DTYPE_F32, ACCEL_REDUCE_MAX, NULL));
    comm_expect(a, COMM_COUNT, comm_max, &world, "all_reduce max");
    conf_device_free(a);
    conf_device_free(b);
    comm_close(&world);
}

void check_comm_broadcast(void **state)
{
    comm_world_t world = comm_open();
    float *a = comm_filled(&world, COMM_COUNT);
    (void)state;
    assert_ok(accel_broadcast(world.comm, a, a, COMM_COUNT, ACCEL_DTYPE_F32, world.size - 1, NULL));
    comm_expect(a, COMM_COUNT, comm_root_last, &world, "broadcast from the last rank");
    conf_device_free(a);
    comm_close(&world);
}

void check_comm_all_gather(void **state)
{
    comm_world_t world = comm_open();
    float *a = comm_filled(&world, COMM_COUNT);
    float *all = conf_device_alloc((size_t)world.size * COMM_COUNT * sizeof(float));
    (void)state;
    assert_ok(accel_all_gather(world.comm, a, all, COMM_COUNT, ACCEL_DTYPE_F32, NULL));
    comm_expect(all, (size_t)world.size * COMM_COUNT, comm_gathered, &world, "all_gather");
    conf_device_free(a);
    conf_device_free(all);
    comm_close(&world);
}

void check_comm_reduce_scatter(void **state)
{
    comm_world_t world = comm_open();
    size_t total = (size_t)world.size * COMM_COUNT;
    float *all = comm_filled(&world, total);
    float *mine = conf_device_alloc(COMM_COUNT * sizeof(float));
    (void)state;
    assert_ok(accel_reduce_scatter(world.comm, all, mine, COMM_COUNT, ACCEL_DTYPE_F32,
                                   ACCEL_REDUCE_SUM, NULL));
    comm_expect(mine, COMM_COUNT, comm_scattered, &world, "reduce_scatter sum");
    conf_device_free(all);
    conf_device_free(mine);
    comm_close(&world);
}

void check_comm_send_recv_ring(void **state)
{
    comm_world_t world = comm_open();
    float *out = comm_filled(&world, COMM_COUNT);
    float *in = conf_device_alloc(COMM_COUNT * sizeof(float));
    (void)state;
    assert_ok(accel_comm_group_start());
    assert_ok(accel_send(world.comm, out, COMM_COUNT, ACCEL_DTYPE_F32,
                         (world.rank + 1) % world.size, NULL));
    assert_ok(accel_recv(world.comm, in, COMM_COUNT, ACCEL_DTYPE_F32,
                         (world.rank + world.size - 1) % world.size, NULL));
    assert_ok(accel_comm_group_end());
    comm_expect(in, COMM_COUNT, comm_from_left, &world, "send/recv around the ring");
    conf_device_free(out);
    conf_device_free(in);
    comm_close(&world);
}

void check_comm_barrier(void **state)
{
    comm_world_t world = comm_open();
    (void)state;
    assert_ok(accel_barrier(world.comm, NULL));
    conf_sync_current_stream();
    comm_close(&world);
}

/* Append `text` to `out`, cut at its end. */
static void comm_text_add(char *out, size_t cap, const char *text)
{
    size_t len = strlen(out);
    if (len + 1 < cap)
        snprintf(out + len, cap - len, "%s", text);
}

/* Last of the collectives: each rank tells the others which of the checks
 * before this one failed there (one flag per check, all_gather'ed), and
 * rank 0 fails this check naming them. A rank other than 0 prints its own
 * failures and exits 0 (so that the launcher does not kill rank 0 before it
 * writes its report); without this check rank 0's report and exit status
 * would never show them. */
void check_comm_ranks_agree(void **state)
{
    const char *const *names = NULL;
    const bool *failed = NULL;
    size_t ran = selftest_child_history(&names, &failed);
    size_t slots = ran > 0 ? ran : 1;
    comm_world_t world = comm_open();
    float *mine = calloc(slots, sizeof *mine);
    float *all = calloc(slots * (size_t)world.size, sizeof *all);
    char heard[512] = "";
    (void)state;
    assert_non_null(mine);
    assert_non_null(all);
    for (size_t i = 0; i < ran; i++)
        mine[i] = failed[i] ? 1.0f : 0.0f;
    float *dev_mine = comm_upload(mine, slots);
    float *dev_all = conf_device_alloc(slots * (size_t)world.size * sizeof(float));
    assert_ok(accel_all_gather(world.comm, dev_mine, dev_all, slots, ACCEL_DTYPE_F32, NULL));
    conf_to_host(all, dev_all, slots * (size_t)world.size * sizeof(float));
    for (int r = 1; r < world.size && world.rank == 0; r++) {
        bool named = false;
        for (size_t i = 0; i < ran; i++) {
            if (all[(size_t)r * slots + i] == 0.0f)
                continue;
            char head[32];
            snprintf(head, sizeof head, "%srank %d: ", heard[0] != '\0' ? "; " : "", r);
            comm_text_add(heard, sizeof heard, named ? ", " : head);
            comm_text_add(heard, sizeof heard, names[i]);
            named = true;
        }
    }
    conf_device_free(dev_mine);
    conf_device_free(dev_all);
    free(mine);
    free(all);
    comm_close(&world);
    if (heard[0] != '\0')
        fail_msg("failed on another rank (its own output says why): %s", heard);
}
