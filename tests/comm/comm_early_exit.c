/* comm_early_exit.c: the last rank leaves without taking part in a
 * collective; the others' all_reduce must fail within the communicator's
 * timeout (ACCEL_COMM_TIMEOUT, set short by the test) instead of hanging,
 * and the communicator must refuse further work. The leaving rank returns
 * from main normally: accel finalises MPI at exit, and Open MPI's
 * MPI_Finalize waits there for the others, so mpirun sees every rank end
 * cleanly. (A rank killed outright makes mpirun kill the whole job
 * instead: that is Open MPI's own fault policy, not something a library in
 * the ranks can change.) Run under `mpirun -n 4`. */
#include <time.h>

#include "comm_check.h"

int main(void)
{
    accel_t *acc;
    accel_comm_t *comm = NULL;
    int rank = -1, size = -1;
    float data[16] = {0};
    if (accel_get(&acc) != ACCEL_OK || accel_comm_init(acc, NULL, &comm) != ACCEL_OK) {
        fprintf(stderr, "setup: %s\n", accel_last_error());
        return 1;
    }
    CHECK_OK(accel_comm_rank(comm, &rank));
    CHECK_OK(accel_comm_size(comm, &size));
    check_rank = rank;
    CHECK_OK(accel_all_reduce(comm, data, data, 16, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL));
    if (rank == size - 1) {
        CHECK_OK(accel_comm_destroy(comm));
        printf("rank %d leaves early\n", rank);
        return check_failures == 0 ? 0 : 1;
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    CHECK_FAILS(accel_all_reduce(comm, data, data, 16, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL),
                ACCEL_ERROR_DEVICE_ERROR, "did not complete within");
    clock_gettime(CLOCK_MONOTONIC, &end);
    /* Not a timing assertion: a hang would never get here at all. */
    printf("rank %d: all_reduce failed after %.1f s: %s\n", rank,
           (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) * 1e-9,
           accel_last_error());
    CHECK_FAILS(accel_barrier(comm, NULL), ACCEL_ERROR_DEVICE_ERROR, "unusable");
    CHECK_OK(accel_comm_destroy(comm));
    if (check_failures == 0)
        printf("rank %d: every check passed\n", rank);
    return check_failures == 0 ? 0 : 1;
}
