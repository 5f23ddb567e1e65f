/* symbols.h: the MPI functions the mpi engine calls, one line each, as the
 * X-macro of accel/accel_backend_utils.h:
 *   ACCEL_MPI_SYMBOL(required, return type, name, (parameters), export)
 * and the Open MPI handles it needs, which are exported globals:
 *   ACCEL_MPI_HANDLE(handle type, global, MPI name)
 * mpi_engine.c expands both into its tables; declarations_check.c expands
 * them against the real <mpi.h>.
 * No include guard: include it after defining the macros it uses. */
/* An X-macro list read as data, one MPI call per entry: not reformatted. */
/* clang-format off */

#ifdef ACCEL_MPI_SYMBOL
/* environment */
ACCEL_MPI_SYMBOL(true, int, MPI_Initialized, (int *flag), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Finalized, (int *flag), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Init_thread, (int *argc, char ***argv, int required, int *provided), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Query_thread, (int *provided), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Finalize, (void), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Get_library_version, (char *version, int *resultlen), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Error_string, (int errorcode, char *string, int *resultlen), NULL)

/* communicators */
ACCEL_MPI_SYMBOL(true, int, MPI_Comm_dup, (accel_mpi_comm_t comm, accel_mpi_comm_t *newcomm), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Comm_split, (accel_mpi_comm_t comm, int color, int key, accel_mpi_comm_t *newcomm), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Comm_free, (accel_mpi_comm_t *comm), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Comm_rank, (accel_mpi_comm_t comm, int *rank), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Comm_size, (accel_mpi_comm_t comm, int *size), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Comm_set_errhandler, (accel_mpi_comm_t comm, accel_mpi_errhandler_t errhandler), NULL)

/* non-blocking collectives and point to point */
ACCEL_MPI_SYMBOL(true, int, MPI_Iallreduce, (const void *sendbuf, void *recvbuf, int count, accel_mpi_datatype_t datatype, accel_mpi_op_t op, accel_mpi_comm_t comm, accel_mpi_request_t *request), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Iallgather, (const void *sendbuf, int sendcount, accel_mpi_datatype_t sendtype, void *recvbuf, int recvcount, accel_mpi_datatype_t recvtype, accel_mpi_comm_t comm, accel_mpi_request_t *request), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, accel_mpi_datatype_t datatype, accel_mpi_op_t op, accel_mpi_comm_t comm, accel_mpi_request_t *request), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Ibcast, (void *buffer, int count, accel_mpi_datatype_t datatype, int root, accel_mpi_comm_t comm, accel_mpi_request_t *request), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Ireduce, (const void *sendbuf, void *recvbuf, int count, accel_mpi_datatype_t datatype, accel_mpi_op_t op, int root, accel_mpi_comm_t comm, accel_mpi_request_t *request), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Ibarrier, (accel_mpi_comm_t comm, accel_mpi_request_t *request), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Isend, (const void *buf, int count, accel_mpi_datatype_t datatype, int dest, int tag, accel_mpi_comm_t comm, accel_mpi_request_t *request), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Irecv, (void *buf, int count, accel_mpi_datatype_t datatype, int source, int tag, accel_mpi_comm_t comm, accel_mpi_request_t *request), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Test, (accel_mpi_request_t *request, int *flag, accel_mpi_status_t *status), NULL)

/* blocking collectives: communicators without a timeout (timeout_s infinite) */
ACCEL_MPI_SYMBOL(true, int, MPI_Allreduce, (const void *sendbuf, void *recvbuf, int count, accel_mpi_datatype_t datatype, accel_mpi_op_t op, accel_mpi_comm_t comm), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Allgather, (const void *sendbuf, int sendcount, accel_mpi_datatype_t sendtype, void *recvbuf, int recvcount, accel_mpi_datatype_t recvtype, accel_mpi_comm_t comm), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, accel_mpi_datatype_t datatype, accel_mpi_op_t op, accel_mpi_comm_t comm), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Bcast, (void *buffer, int count, accel_mpi_datatype_t datatype, int root, accel_mpi_comm_t comm), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Reduce, (const void *sendbuf, void *recvbuf, int count, accel_mpi_datatype_t datatype, accel_mpi_op_t op, int root, accel_mpi_comm_t comm), NULL)
ACCEL_MPI_SYMBOL(true, int, MPI_Barrier, (accel_mpi_comm_t comm), NULL)
#endif

#ifdef ACCEL_MPI_HANDLE
ACCEL_MPI_HANDLE(accel_mpi_comm_t, ompi_mpi_comm_world, MPI_COMM_WORLD)
ACCEL_MPI_HANDLE(accel_mpi_comm_t, ompi_mpi_comm_null, MPI_COMM_NULL)
ACCEL_MPI_HANDLE(accel_mpi_errhandler_t, ompi_mpi_errors_return, MPI_ERRORS_RETURN)
ACCEL_MPI_HANDLE(accel_mpi_datatype_t, ompi_mpi_float, MPI_FLOAT)
ACCEL_MPI_HANDLE(accel_mpi_datatype_t, ompi_mpi_double, MPI_DOUBLE)
ACCEL_MPI_HANDLE(accel_mpi_datatype_t, ompi_mpi_uint8_t, MPI_UINT8_T)
ACCEL_MPI_HANDLE(accel_mpi_datatype_t, ompi_mpi_int32_t, MPI_INT32_T)
ACCEL_MPI_HANDLE(accel_mpi_datatype_t, ompi_mpi_int64_t, MPI_INT64_T)
ACCEL_MPI_HANDLE(accel_mpi_op_t, ompi_mpi_op_sum, MPI_SUM)
ACCEL_MPI_HANDLE(accel_mpi_op_t, ompi_mpi_op_prod, MPI_PROD)
ACCEL_MPI_HANDLE(accel_mpi_op_t, ompi_mpi_op_min, MPI_MIN)
ACCEL_MPI_HANDLE(accel_mpi_op_t, ompi_mpi_op_max, MPI_MAX)
#endif
