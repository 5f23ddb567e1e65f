/* comm_linked_mpi.c: accel's collectives in a program built against Open
 * MPI's mpi.h and linked with libmpi, as MPI users build theirs. Such a
 * program names MPI_COMM_WORLD, MPI_FLOAT, MPI_SUM...: the linker copies
 * those objects into the executable (copy relocations), and libmpi then
 * uses the executable's copies, so the engine must too. Argument "accel":
 * accel_comm_init starts MPI; "user": the program calls MPI_Init_thread
 * first and hands accel MPI_COMM_WORLD as well. Each accel result is
 * compared with MPI's own, called directly with the program's handles. */
#include <mpi.h>

#include "comm_check.h"

static void check_against_mpi(accel_comm_t *comm, int size)
{
    float send[5], recv[5], direct[5];
    int32_t isend[3], irecv[3], idirect[3];
    double gathered[8], dsend[1];
    for (int i = 0; i < 5; i++)
        send[i] = (float)(check_rank * 10 + i);
    for (int i = 0; i < 3; i++)
        isend[i] = check_rank * (i % 2 == 0 ? 1 : -1) + i;
    CHECK_OK(accel_all_reduce(comm, send, recv, 5, ACCEL_DTYPE_F32, ACCEL_REDUCE_SUM, NULL));
    CHECK(MPI_Allreduce(send, direct, 5, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
          "MPI_Allreduce failed");
    CHECK(memcmp(recv, direct, sizeof recv) == 0, "f32 sum: accel %g, MPI %g", recv[4], direct[4]);
    CHECK_OK(accel_all_reduce(comm, isend, irecv, 3, ACCEL_DTYPE_I32, ACCEL_REDUCE_MAX, NULL));
    CHECK(MPI_Allreduce(isend, idirect, 3, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS,
          "MPI_Allreduce failed");
    CHECK(memcmp(irecv, idirect, sizeof irecv) == 0, "i32 max: accel %d, MPI %d", irecv[1],
          idirect[1]);
    dsend[0] = 0.5 + check_rank;
    CHECK_OK(accel_all_gather(comm, dsend, gathered, 1, ACCEL_DTYPE_F64, NULL));
    for (int r = 0; r < size && r < 8; r++)
        CHECK(gathered[r] == 0.5 + r, "all_gather: element %d is %g", r, gathered[r]);
}

int main(int argc, char **argv)
{
    bool user_inits = argc > 1 && strcmp(argv[1], "user") == 0;
    accel_t *acc = NULL;
    accel_comm_t *world = NULL, *given = NULL;
    int size = 0, provided = 0;
    if (user_inits &&
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init_thread failed\n");
        return 1;
    }
    if (accel_open("cpu", &acc) != ACCEL_OK) {
        fprintf(stderr, "cpu backend: %s\n", accel_last_error());
        return 1;
    }
    CHECK_OK(accel_comm_init(acc, NULL, &world));
    if (world != NULL) {
        CHECK_OK(accel_comm_rank(world, &check_rank));
        CHECK_OK(accel_comm_size(world, &size));
        check_against_mpi(world, size);
    }
    if (user_inits) {
        MPI_Comm handle = MPI_COMM_WORLD;
        CHECK_OK(accel_comm_init_mpi(acc, NULL, &handle, &given));
        if (given != NULL)
            check_against_mpi(given, size);
        accel_comm_destroy(given);
    }
    accel_comm_destroy(world);
    accel_close(acc);
    if (user_inits)
        MPI_Finalize(); /* else accel finalises MPI at exit */
    if (check_failures > 0)
        fprintf(stderr, "rank %d: %d checks failed\n", check_rank, check_failures);
    else if (check_rank == 0)
        printf("comm_linked_mpi (%s inits MPI): %d ranks agree with MPI\n",
               user_inits ? "the program" : "accel", size);
    return check_failures > 0 ? 1 : 0;
}
