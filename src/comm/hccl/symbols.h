/* symbols.h: the Ascend HCCL functions the hccl engine calls, one line each,
 * as an X-macro in accel_backend_utils.h's shape:
 *   ACCEL_HCCL_SYMBOL(required, return type, name, (parameters), export)
 * engine.c expands it into its function table; declarations_check.c against
 * the real hccl.h. Note HCCL's own argument orders: the root info by pointer
 * and the communicator last in HcclCommInitRootInfo, a one-buffer (in place)
 * HcclBroadcast, non-const send buffers. A `required` false entry is missing
 * from older CANN releases (said where it is used).
 * No include guard: include it after defining ACCEL_HCCL_SYMBOL. */
/* clang-format off */
ACCEL_HCCL_SYMBOL(true, accel_hccl_result_t, HcclGetRootInfo, (accel_hccl_root_info_t *root_info), NULL)
ACCEL_HCCL_SYMBOL(true, accel_hccl_result_t, HcclCommInitRootInfo,
                  (uint32_t n_ranks, const accel_hccl_root_info_t *root_info, uint32_t rank,
                   accel_hccl_comm_t *comm), NULL)
ACCEL_HCCL_SYMBOL(true, accel_hccl_result_t, HcclCommDestroy, (accel_hccl_comm_t comm), NULL)
ACCEL_HCCL_SYMBOL(true, accel_hccl_result_t, HcclGetRankSize, (accel_hccl_comm_t comm, uint32_t *rank_size), NULL)
ACCEL_HCCL_SYMBOL(true, accel_hccl_result_t, HcclGetRankId, (accel_hccl_comm_t comm, uint32_t *rank), NULL)
ACCEL_HCCL_SYMBOL(true, accel_hccl_result_t, HcclAllReduce,
                  (void *send_buf, void *recv_buf, uint64_t count, accel_hccl_dtype_t data_type,
                   accel_hccl_op_t op, accel_hccl_comm_t comm, accel_hccl_stream_t stream), NULL)
ACCEL_HCCL_SYMBOL(true, accel_hccl_result_t, HcclAllGather,
                  (void *send_buf, void *recv_buf, uint64_t send_count, accel_hccl_dtype_t data_type,
                   accel_hccl_comm_t comm, accel_hccl_stream_t stream), NULL)
ACCEL_HCCL_SYMBOL(true, accel_hccl_result_t, HcclReduceScatter,
                  (void *send_buf, void *recv_buf, uint64_t recv_count, accel_hccl_dtype_t data_type,
                   accel_hccl_op_t op, accel_hccl_comm_t comm, accel_hccl_stream_t stream), NULL)
ACCEL_HCCL_SYMBOL(true, accel_hccl_result_t, HcclBroadcast,
                  (void *buf, uint64_t count, accel_hccl_dtype_t data_type, uint32_t root,
                   accel_hccl_comm_t comm, accel_hccl_stream_t stream), NULL)
/* Optional: missing from older CANN releases (which: unconfirmed); without
 * it the engine has no reduce slot and the layer reduces with all_reduce. */
ACCEL_HCCL_SYMBOL(false, accel_hccl_result_t, HcclReduce,
                  (void *send_buf, void *recv_buf, uint64_t count, accel_hccl_dtype_t data_type,
                   accel_hccl_op_t op, uint32_t root, accel_hccl_comm_t comm,
                   accel_hccl_stream_t stream), NULL)
ACCEL_HCCL_SYMBOL(true, accel_hccl_result_t, HcclSend,
                  (void *send_buf, uint64_t count, accel_hccl_dtype_t data_type, uint32_t dest_rank,
                   accel_hccl_comm_t comm, accel_hccl_stream_t stream), NULL)
ACCEL_HCCL_SYMBOL(true, accel_hccl_result_t, HcclRecv,
                  (void *recv_buf, uint64_t count, accel_hccl_dtype_t data_type, uint32_t src_rank,
                   accel_hccl_comm_t comm, accel_hccl_stream_t stream), NULL)
ACCEL_HCCL_SYMBOL(true, accel_hccl_result_t, HcclBarrier, (accel_hccl_comm_t comm, accel_hccl_stream_t stream), NULL)
/* recent CANN only */
ACCEL_HCCL_SYMBOL(false, accel_hccl_result_t, HcclGroupStart, (void), NULL)
ACCEL_HCCL_SYMBOL(false, accel_hccl_result_t, HcclGroupEnd, (void), NULL)
ACCEL_HCCL_SYMBOL(false, const char *, HcclGetErrorString, (accel_hccl_result_t code), NULL)
/* clang-format on */
