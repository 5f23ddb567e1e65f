/* symbols.h: the oneCCL C API functions the oneccl engine resolves, one line
 * each, as an X-macro in accel_backend_utils.h's shape:
 *   ACCEL_ONECCL_SYMBOL(required, return type, name, (parameters), export)
 * engine.c expands it into its function table and the descriptors
 * accel_symbol_table_resolve fills; declarations_check.cpp expands it against
 * the real oneapi/ccl.h. The engine only checks that they are there (it
 * refuses communicators, README.md says why), so none is ever called.
 * Unlike NCCL, onecclCommInitRank's nranks is size_t and onecclAllReduce's
 * send buffer is not const.
 * No include guard: include it after defining ACCEL_ONECCL_SYMBOL. */
/* clang-format off */
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclGetVersion, (int *version), NULL)
ACCEL_ONECCL_SYMBOL(true, const char *, onecclGetErrorString, (accel_oneccl_result_t result), NULL)
ACCEL_ONECCL_SYMBOL(true, const char *, onecclGetLastError, (accel_oneccl_comm_t comm), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclSetDevice, (unsigned int index), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclGetUniqueId, (accel_oneccl_unique_id_t *unique_id), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclCommInitRank,
                    (accel_oneccl_comm_t *comm, size_t nranks, accel_oneccl_unique_id_t comm_id, int rank), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclCommFinalize, (accel_oneccl_comm_t comm), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclCommDestroy, (accel_oneccl_comm_t comm), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclAllReduce,
                    (void *sendbuff, void *recvbuff, size_t count, accel_oneccl_dtype_t datatype,
                     accel_oneccl_op_t op, accel_oneccl_comm_t comm, accel_oneccl_stream_t stream), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclAllGather,
                    (const void *sendbuff, void *recvbuff, size_t sendcount, accel_oneccl_dtype_t datatype,
                     accel_oneccl_comm_t comm, accel_oneccl_stream_t stream), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclReduceScatter,
                    (const void *sendbuff, void *recvbuff, size_t recvcount, accel_oneccl_dtype_t datatype,
                     accel_oneccl_op_t op, accel_oneccl_comm_t comm, accel_oneccl_stream_t stream), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclBroadcast,
                    (const void *sendbuff, void *recvbuff, size_t count, accel_oneccl_dtype_t datatype,
                     int root, accel_oneccl_comm_t comm, accel_oneccl_stream_t stream), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclReduce,
                    (const void *sendbuff, void *recvbuff, size_t count, accel_oneccl_dtype_t datatype,
                     accel_oneccl_op_t op, int root, accel_oneccl_comm_t comm, accel_oneccl_stream_t stream), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclSend,
                    (const void *sendbuff, size_t count, accel_oneccl_dtype_t datatype, int peer,
                     accel_oneccl_comm_t comm, accel_oneccl_stream_t stream), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclRecv,
                    (void *recvbuff, size_t count, accel_oneccl_dtype_t datatype, int peer,
                     accel_oneccl_comm_t comm, accel_oneccl_stream_t stream), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclGroupStart, (void), NULL)
ACCEL_ONECCL_SYMBOL(true, accel_oneccl_result_t, onecclGroupEnd, (void), NULL)
/* clang-format on */
