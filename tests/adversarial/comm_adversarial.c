/* comm_adversarial.c: hostile arguments to every collective and
 * point-to-point call, and ranks that disagree about a collective, on the
 * communicator of the backend ACCEL_ACCELERATOR names. Run under
 * `mpirun -n 4` (tests/comm/run_mpi.sh) with a finite ACCEL_COMM_TIMEOUT.
 *
 * Local cases (every rank makes the same bad call, refused before any
 * message): NULL buffers, a buffer that wraps past the end of the address
 * space, counts whose byte size overflows, an unknown dtype or op, a root or
 * peer outside the communicator, a send to itself outside a group. Each must
 * return INVALID_ARGUMENT with a sentence and leave the receive buffer as it
 * was.
 * Mismatches (one rank differs): each must give every rank DEVICE_ERROR
 * (docs/comm.md, "Ordering rules"), never end the job, and leave the
 * communicator usable: a correct all_reduce follows each one.
 * Frees: accel_comm_destroy twice, and of a pointer that never was one. */
#include <stdint.h>

#include "comm_check.h"

#define N 16

static accel_comm_t *comm;
static int rank, size;
static int cases;

/* recv[] holds `fill` after a refused call. */
static void check_unchanged(const char *name, const float *recv, size_t n, float fill)
{
    for (size_t i = 0; i < n; i++) {
        if (recv[i] != fill) {
            CHECK(false, "%s: recv[%zu] changed to %g", name, i, (double)recv[i]);
            return;
        }
    }
}

#define REFUSED(name, call)                                                                        \
    do {                                                                                           \
        for (size_t i_ = 0; i_ < sizeof recv / sizeof recv[0]; i_++)                               \
            recv[i_] = 7.0f;                                                                       \
        accel_status_t st_ = (call);                                                               \
        cases++;                                                                                   \
        CHECK(st_ == ACCEL_ERROR_INVALID_ARGUMENT, "%s: %s returned %s", name, #call,              \
              accel_status_name(st_));                                                             \
        CHECK(accel_last_error()[0] != '\0', "%s: no sentence", name);                             \
        check_unchanged(name, recv, sizeof recv / sizeof recv[0], 7.0f);                           \
    } while (0)

static void local_cases(void)
{
    static float send[N * 8], recv[N * 8];
    /* The last 8 bytes of the address space: any size past them wraps. */
    float *wrap = (float *)(UINTPTR_MAX - 7);
    size_t huge = SIZE_MAX / 2;
    const accel_dtype_t f32 = ACCEL_DTYPE_F32;
    const accel_reduce_op_t sum = ACCEL_REDUCE_SUM;
    /* all_reduce */
    REFUSED("all_reduce NULL send", accel_all_reduce(comm, NULL, recv, N, f32, sum, NULL));
    REFUSED("all_reduce NULL recv", accel_all_reduce(comm, send, NULL, N, f32, sum, NULL));
    REFUSED("all_reduce wrapping send", accel_all_reduce(comm, wrap, recv, N, f32, sum, NULL));
    REFUSED("all_reduce wrapping recv", accel_all_reduce(comm, send, wrap, N, f32, sum, NULL));
    REFUSED("all_reduce count overflow", accel_all_reduce(comm, send, recv, huge, f32, sum, NULL));
    REFUSED("all_reduce dtype 99",
            accel_all_reduce(comm, send, recv, N, (accel_dtype_t)99, sum, NULL));
    REFUSED("all_reduce op 99",
            accel_all_reduce(comm, send, recv, N, f32, (accel_reduce_op_t)99, NULL));
    /* all_gather: recv holds size blocks */
    REFUSED("all_gather NULL send", accel_all_gather(comm, NULL, recv, N, f32, NULL));
    REFUSED("all_gather wrapping recv", accel_all_gather(comm, send, wrap, N, f32, NULL));
    REFUSED("all_gather count x ranks overflow",
            accel_all_gather(comm, send, recv, SIZE_MAX / 4 / 2, f32, NULL));
    REFUSED("all_gather dtype -1", accel_all_gather(comm, send, recv, N, (accel_dtype_t)-1, NULL));
    /* reduce_scatter: send holds size blocks */
    REFUSED("reduce_scatter wrapping send",
            accel_reduce_scatter(comm, wrap, recv, N, f32, sum, NULL));
    REFUSED("reduce_scatter NULL recv", accel_reduce_scatter(comm, send, NULL, N, f32, sum, NULL));
    REFUSED("reduce_scatter count overflow",
            accel_reduce_scatter(comm, send, recv, huge, f32, sum, NULL));
    REFUSED("reduce_scatter op -1",
            accel_reduce_scatter(comm, send, recv, N, f32, (accel_reduce_op_t)-1, NULL));
    /* broadcast */
    REFUSED("broadcast root -1", accel_broadcast(comm, send, recv, N, f32, -1, NULL));
    REFUSED("broadcast root = size", accel_broadcast(comm, send, recv, N, f32, size, NULL));
    REFUSED("broadcast NULL recv", accel_broadcast(comm, send, NULL, N, f32, 0, NULL));
    REFUSED("broadcast wrapping recv", accel_broadcast(comm, send, wrap, N, f32, 0, NULL));
    REFUSED("broadcast count overflow", accel_broadcast(comm, send, recv, huge, f32, 0, NULL));
    /* reduce */
    REFUSED("reduce root = size", accel_reduce(comm, send, recv, N, f32, sum, size, NULL));
    REFUSED("reduce wrapping send", accel_reduce(comm, wrap, recv, N, f32, sum, 0, NULL));
    REFUSED("reduce op 99", accel_reduce(comm, send, recv, N, f32, (accel_reduce_op_t)99, 0, NULL));
    /* send / recv */
    REFUSED("send peer -1", accel_send(comm, send, N, f32, -1, NULL));
    REFUSED("send peer = size", accel_send(comm, send, N, f32, size, NULL));
    REFUSED("send to itself outside a group", accel_send(comm, send, N, f32, rank, NULL));
    REFUSED("send wrapping", accel_send(comm, wrap, N, f32, (rank + 1) % size, NULL));
    REFUSED("send count overflow", accel_send(comm, send, huge, f32, (rank + 1) % size, NULL));
    REFUSED("recv NULL", accel_recv(comm, NULL, N, f32, (rank + 1) % size, NULL));
    REFUSED("recv wrapping", accel_recv(comm, wrap, N, f32, (rank + 1) % size, NULL));
    REFUSED("recv peer = size", accel_recv(comm, recv, N, f32, size, NULL));
    REFUSED("recv dtype 99", accel_recv(comm, recv, N, (accel_dtype_t)99, 0, NULL));
}

/* A correct all_reduce of every rank's number: the communicator still works
 * after a refused or mismatched call. */
static void check_still_usable(const char *after)
{
    float value[N];
    for (size_t i = 0; i < N; i++)
        value[i] = (float)(rank + 1);
    CHECK_OK(accel_all_reduce(comm, value, value, N, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL));
    CHECK(value[N - 1] == (float)(size * (size + 1) / 2), "after %s: all_reduce gave %g", after,
          (double)value[N - 1]);
}

typedef enum mismatch {
    MISMATCH_COUNT,     /* all_reduce: 4096 elements against 16 */
    MISMATCH_DTYPE,     /* all_reduce: F64 against F32 */
    MISMATCH_OP,        /* all_reduce: max against sum */
    MISMATCH_ROOT,      /* broadcast: root 1 against root 0 */
    MISMATCH_GATHER,    /* all_gather: 64 against 16 per rank */
    MISMATCH_SCATTER,   /* reduce_scatter: 64 against 16 per rank */
    MISMATCH_KIND,      /* barrier against all_reduce */
    MISMATCH_REDUCE_OP, /* reduce to 0: prod against sum */
    MISMATCH_COUNT_
} mismatch_t;

static const char *const mismatch_names[MISMATCH_COUNT_] = {
    "all_reduce count 4096 against 16", "all_reduce F64 against F32",
    "all_reduce max against sum",       "broadcast root 1 against 0",
    "all_gather 64 against 16",         "reduce_scatter 64 against 16",
    "barrier against all_reduce",       "reduce prod against sum"};

static accel_status_t mismatch_call(mismatch_t m, bool odd, void *buf)
{
    const accel_dtype_t f32 = ACCEL_DTYPE_F32;
    const accel_reduce_op_t sum = ACCEL_REDUCE_SUM;
    switch (m) {
    case MISMATCH_COUNT: return accel_all_reduce(comm, buf, buf, odd ? 4096 : N, f32, sum, NULL);
    case MISMATCH_DTYPE:
        return accel_all_reduce(comm, buf, buf, N, odd ? ACCEL_DTYPE_F64 : f32, sum, NULL);
    case MISMATCH_OP:
        return accel_all_reduce(comm, buf, buf, N, f32, odd ? ACCEL_REDUCE_MAX : sum, NULL);
    case MISMATCH_ROOT: return accel_broadcast(comm, buf, buf, N, f32, odd ? 1 : 0, NULL);
    case MISMATCH_GATHER:
        return accel_all_gather(comm, buf, (char *)buf + 64 * 4 * 8, odd ? 64 : N, f32, NULL);
    case MISMATCH_SCATTER:
        return accel_reduce_scatter(comm, buf, (char *)buf + 64 * 4 * 8, odd ? 64 : N, f32, sum,
                                    NULL);
    case MISMATCH_KIND:
        return odd ? accel_barrier(comm, NULL)
                   : accel_all_reduce(comm, buf, buf, N, f32, sum, NULL);
    default: return accel_reduce(comm, buf, buf, N, f32, odd ? ACCEL_REDUCE_PROD : sum, 0, NULL);
    }
}

static void mismatch_cases(void)
{
    static double buf[8192]; /* room for every case's largest layout */
    for (int m = 0; m < MISMATCH_COUNT_; m++) {
        bool odd = rank == size - 1;
        accel_status_t status = mismatch_call((mismatch_t)m, odd, buf);
        cases++;
        CHECK(status == ACCEL_ERROR_DEVICE_ERROR, "%s: returned %s, expected %s", mismatch_names[m],
              accel_status_name(status), accel_status_name(ACCEL_ERROR_DEVICE_ERROR));
        CHECK(strstr(accel_last_error(), "disagree") != NULL, "%s: sentence: %s", mismatch_names[m],
              accel_last_error());
        if (rank == 0)
            printf("%s: %s: %s\n", mismatch_names[m], accel_status_name(status),
                   accel_last_error());
        check_still_usable(mismatch_names[m]);
    }
}

int main(void)
{
    accel_t *acc;
    bool blocking;
    const char *timeout = getenv("ACCEL_COMM_TIMEOUT");
    if (accel_get(&acc) != ACCEL_OK || accel_comm_init(acc, NULL, &comm) != ACCEL_OK) {
        fprintf(stderr, "setup: %s\n", accel_last_error());
        return 1;
    }
    CHECK_OK(accel_comm_rank(comm, &rank));
    CHECK_OK(accel_comm_size(comm, &size));
    check_rank = rank;
    blocking = timeout != NULL && strcmp(timeout, "inf") == 0;
    local_cases();
    check_still_usable("the local cases");
    /* Without a timeout a mismatch is MPI's undefined behaviour
     * (docs/comm.md): only the local cases run. */
    if (!blocking && size >= 2)
        mismatch_cases();
    CHECK_OK(accel_comm_destroy(comm));
    /* The release side: a second destroy, and a pointer that never was a
     * communicator (a live registry answers; nothing is read through it). */
    int not_a_comm[32] = {0};
    cases += 2;
    CHECK_FAILS(accel_comm_destroy(comm), ACCEL_ERROR_INVALID_ARGUMENT, "not a live");
    CHECK_FAILS(accel_comm_destroy((accel_comm_t *)not_a_comm), ACCEL_ERROR_INVALID_ARGUMENT,
                "not a live");
    if (check_failures == 0)
        printf("rank %d: every check passed (%d cases)\n", rank, cases);
    return check_failures == 0 ? 0 : 1;
}
