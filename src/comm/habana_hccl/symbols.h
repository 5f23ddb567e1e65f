/* symbols.h: the Habana HCCL functions (libhcl.so) the habana-hccl engine
 * calls, one line each, as an X-macro in accel_backend_utils.h's shape:
 *   ACCEL_HCL_SYMBOL(required, return type, name, (parameters), export)
 * engine.c expands it into its function table; declarations_check.cpp
 * against the real hccl.h. Streams are synStreamHandle values passed as
 * void*; buffers are Gaudi device addresses cast to pointers. A `required`
 * false entry is missing from older releases (said where it is used).
 * No include guard: include it after defining ACCEL_HCL_SYMBOL. */
/* clang-format off */
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclGetVersion, (int *version), NULL)
ACCEL_HCL_SYMBOL(true, const char *, hcclGetErrorString, (accel_hcl_result_t result), NULL)
ACCEL_HCL_SYMBOL(false, const char *, hcclGetLastErrorMessage, (void), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclGetUniqueId, (accel_hcl_unique_id_t *unique_id), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclCommInitRank,
                 (accel_hcl_comm_t *comm, int nranks, accel_hcl_unique_id_t comm_id, int rank), NULL)
/* waits for the communicator's submitted work; not in every release */
ACCEL_HCL_SYMBOL(false, accel_hcl_result_t, hcclCommFinalize, (accel_hcl_comm_t comm), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclCommDestroy, (accel_hcl_comm_t comm), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclAllReduce,
                 (const void *sendbuff, void *recvbuff, size_t count, accel_hcl_dtype_t datatype,
                  accel_hcl_op_t reduce_op, accel_hcl_comm_t comm, void *stream_handle), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclAllGather,
                 (const void *sendbuff, void *recvbuff, size_t sendcount, accel_hcl_dtype_t datatype,
                  accel_hcl_comm_t comm, void *stream_handle), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclReduceScatter,
                 (const void *sendbuff, void *recvbuff, size_t recvcount, accel_hcl_dtype_t datatype,
                  accel_hcl_op_t reduce_op, accel_hcl_comm_t comm, void *stream_handle), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclBroadcast,
                 (const void *sendbuff, void *recvbuff, size_t count, accel_hcl_dtype_t datatype,
                  int root, accel_hcl_comm_t comm, void *stream_handle), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclReduce,
                 (const void *sendbuff, void *recvbuff, size_t count, accel_hcl_dtype_t datatype,
                  accel_hcl_op_t reduce_op, int root, accel_hcl_comm_t comm, void *stream_handle), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclSend,
                 (const void *sendbuff, size_t count, accel_hcl_dtype_t datatype, int peer,
                  accel_hcl_comm_t comm, void *stream), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclRecv,
                 (void *recvbuff, size_t count, accel_hcl_dtype_t datatype, int peer,
                  accel_hcl_comm_t comm, void *stream), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclBarrier, (accel_hcl_comm_t comm, void *stream_handle), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclGroupStart, (void), NULL)
ACCEL_HCL_SYMBOL(true, accel_hcl_result_t, hcclGroupEnd, (void), NULL)
/* clang-format on */
