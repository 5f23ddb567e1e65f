/* symbols.h: the NCCL functions the nccl engine calls, one line each, as an
 * X-macro in accel_backend_utils.h's shape:
 *   ACCEL_NCCL_SYMBOL(required, return type, name, (parameters), export)
 * engine.c expands it into its function table and the descriptors
 * accel_symbol_table_resolve fills; declarations_check.c expands it against
 * the real nccl.h. A `required` false entry is missing from older NCCL
 * releases (said where it is used).
 * No include guard: include it after defining ACCEL_NCCL_SYMBOL. */
/* clang-format off */
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclGetVersion, (int *version), NULL)
ACCEL_NCCL_SYMBOL(true, const char *, ncclGetErrorString, (accel_nccl_result_t result), NULL)
/* NCCL 2.13 and later: the text of the last failure */
ACCEL_NCCL_SYMBOL(false, const char *, ncclGetLastError, (accel_nccl_comm_t comm), NULL)
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclGetUniqueId, (accel_nccl_unique_id_t *unique_id), NULL)
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclCommInitRank,
                  (accel_nccl_comm_t *comm, int nranks, accel_nccl_unique_id_t comm_id, int rank), NULL)
/* NCCL 2.14 and later: flushes what the communicator has issued */
ACCEL_NCCL_SYMBOL(false, accel_nccl_result_t, ncclCommFinalize, (accel_nccl_comm_t comm), NULL)
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclCommDestroy, (accel_nccl_comm_t comm), NULL)
/* NCCL 2.18 and later: a split over the parent's own bootstrap (engine.c) */
ACCEL_NCCL_SYMBOL(false, accel_nccl_result_t, ncclCommSplit,
                  (accel_nccl_comm_t comm, int color, int key, accel_nccl_comm_t *newcomm,
                   accel_nccl_config_t *config), NULL)
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclAllReduce,
                  (const void *sendbuff, void *recvbuff, size_t count, accel_nccl_dtype_t datatype,
                   accel_nccl_op_t op, accel_nccl_comm_t comm, accel_nccl_stream_t stream), NULL)
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclAllGather,
                  (const void *sendbuff, void *recvbuff, size_t sendcount, accel_nccl_dtype_t datatype,
                   accel_nccl_comm_t comm, accel_nccl_stream_t stream), NULL)
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclReduceScatter,
                  (const void *sendbuff, void *recvbuff, size_t recvcount, accel_nccl_dtype_t datatype,
                   accel_nccl_op_t op, accel_nccl_comm_t comm, accel_nccl_stream_t stream), NULL)
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclBroadcast,
                  (const void *sendbuff, void *recvbuff, size_t count, accel_nccl_dtype_t datatype,
                   int root, accel_nccl_comm_t comm, accel_nccl_stream_t stream), NULL)
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclReduce,
                  (const void *sendbuff, void *recvbuff, size_t count, accel_nccl_dtype_t datatype,
                   accel_nccl_op_t op, int root, accel_nccl_comm_t comm, accel_nccl_stream_t stream), NULL)
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclSend,
                  (const void *sendbuff, size_t count, accel_nccl_dtype_t datatype, int peer,
                   accel_nccl_comm_t comm, accel_nccl_stream_t stream), NULL)
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclRecv,
                  (void *recvbuff, size_t count, accel_nccl_dtype_t datatype, int peer,
                   accel_nccl_comm_t comm, accel_nccl_stream_t stream), NULL)
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclGroupStart, (void), NULL)
ACCEL_NCCL_SYMBOL(true, accel_nccl_result_t, ncclGroupEnd, (void), NULL)
/* clang-format on */
