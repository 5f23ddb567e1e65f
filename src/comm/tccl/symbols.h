/* symbols.h: the Tecorigin TCCL functions (libtccl.so) the tccl engine
 * calls, one line each, as an X-macro in accel_backend_utils.h's shape:
 *   ACCEL_TCCL_SYMBOL(required, return type, name, (parameters), export)
 * TCCL's function set is NCCL's with "tccl" for "nccl" and sdaaStream_t as
 * the stream. The public tccl.h copy names tcclReduce, tcclSend and
 * tcclRecv without the parameters being recorded: they are taken to be
 * NCCL's (unconfirmed). That copy has no group calls: tcclGroupStart/End are
 * resolved as optional, assumed (void) like NCCL's (unconfirmed).
 * No include guard: include it after defining ACCEL_TCCL_SYMBOL. */
/* clang-format off */
ACCEL_TCCL_SYMBOL(true, accel_tccl_result_t, tcclGetVersion, (int *version), NULL)
ACCEL_TCCL_SYMBOL(true, const char *, tcclGetErrorString, (accel_tccl_result_t result), NULL)
ACCEL_TCCL_SYMBOL(false, const char *, tcclGetLastError, (accel_tccl_comm_t comm), NULL)
ACCEL_TCCL_SYMBOL(true, accel_tccl_result_t, tcclGetUniqueId, (accel_tccl_unique_id_t *unique_id), NULL)
ACCEL_TCCL_SYMBOL(true, accel_tccl_result_t, tcclCommInitRank,
                  (accel_tccl_comm_t *comm, int nranks, accel_tccl_unique_id_t comm_id, int rank), NULL)
ACCEL_TCCL_SYMBOL(true, accel_tccl_result_t, tcclCommDestroy, (accel_tccl_comm_t comm), NULL)
ACCEL_TCCL_SYMBOL(true, accel_tccl_result_t, tcclAllReduce,
                  (const void *sendbuff, void *recvbuff, size_t count, accel_tccl_dtype_t datatype,
                   accel_tccl_op_t op, accel_tccl_comm_t comm, accel_tccl_stream_t stream), NULL)
ACCEL_TCCL_SYMBOL(true, accel_tccl_result_t, tcclAllGather,
                  (const void *sendbuff, void *recvbuff, size_t sendcount, accel_tccl_dtype_t datatype,
                   accel_tccl_comm_t comm, accel_tccl_stream_t stream), NULL)
ACCEL_TCCL_SYMBOL(true, accel_tccl_result_t, tcclReduceScatter,
                  (const void *sendbuff, void *recvbuff, size_t recvcount, accel_tccl_dtype_t datatype,
                   accel_tccl_op_t op, accel_tccl_comm_t comm, accel_tccl_stream_t stream), NULL)
ACCEL_TCCL_SYMBOL(true, accel_tccl_result_t, tcclBroadcast,
                  (const void *sendbuff, void *recvbuff, size_t count, accel_tccl_dtype_t datatype,
                   int root, accel_tccl_comm_t comm, accel_tccl_stream_t stream), NULL)
ACCEL_TCCL_SYMBOL(true, accel_tccl_result_t, tcclReduce,
                  (const void *sendbuff, void *recvbuff, size_t count, accel_tccl_dtype_t datatype,
                   accel_tccl_op_t op, int root, accel_tccl_comm_t comm, accel_tccl_stream_t stream), NULL)
ACCEL_TCCL_SYMBOL(true, accel_tccl_result_t, tcclSend,
                  (const void *sendbuff, size_t count, accel_tccl_dtype_t datatype, int peer,
                   accel_tccl_comm_t comm, accel_tccl_stream_t stream), NULL)
ACCEL_TCCL_SYMBOL(true, accel_tccl_result_t, tcclRecv,
                  (void *recvbuff, size_t count, accel_tccl_dtype_t datatype, int peer,
                   accel_tccl_comm_t comm, accel_tccl_stream_t stream), NULL)
/* unconfirmed: not in the public tccl.h copy */
ACCEL_TCCL_SYMBOL(false, accel_tccl_result_t, tcclGroupStart, (void), NULL)
ACCEL_TCCL_SYMBOL(false, accel_tccl_result_t, tcclGroupEnd, (void), NULL)
/* clang-format on */
