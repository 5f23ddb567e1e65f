/* symbols.h: the Cambricon CNCL functions (libcncl.so) the cncl engine
 * calls, one line each, as an X-macro in accel_backend_utils.h's shape:
 *   ACCEL_CNCL_SYMBOL(required, return type, name, (parameters), export)
 * CNCL's own shapes: the clique id by pointer to cnclInitComms, which makes
 * num_comm communicators at once (the engine makes one); send buffers of
 * cnclSend not const. The group calls' prototypes were never read in a real
 * header: they are resolved as optional, assumed to be (void) like NCCL's.
 * No include guard: include it after defining ACCEL_CNCL_SYMBOL. */
/* clang-format off */
ACCEL_CNCL_SYMBOL(true, accel_cncl_result_t, cnclGetLibVersion, (int *major, int *minor, int *patch), NULL)
ACCEL_CNCL_SYMBOL(true, const char *, cnclGetErrorStr, (accel_cncl_result_t result), NULL)
ACCEL_CNCL_SYMBOL(true, accel_cncl_result_t, cnclGetCliqueId, (accel_cncl_clique_id_t *clique_id), NULL)
ACCEL_CNCL_SYMBOL(true, accel_cncl_result_t, cnclInitComms,
                  (accel_cncl_comm_t *comms, int num_comm, const int *dev_list, const int *rank_list,
                   int nrank, accel_cncl_clique_id_t *clique_id), NULL)
ACCEL_CNCL_SYMBOL(true, accel_cncl_result_t, cnclDestroyComms, (accel_cncl_comm_t *comms, int num_comm), NULL)
ACCEL_CNCL_SYMBOL(true, accel_cncl_result_t, cnclAllReduce,
                  (const void *send, void *recv, size_t count, accel_cncl_dtype_t datatype,
                   accel_cncl_op_t op, accel_cncl_comm_t comm, accel_cncl_queue_t queue), NULL)
ACCEL_CNCL_SYMBOL(true, accel_cncl_result_t, cnclAllGather,
                  (const void *send, void *recv, size_t count, accel_cncl_dtype_t datatype,
                   accel_cncl_comm_t comm, accel_cncl_queue_t queue), NULL)
ACCEL_CNCL_SYMBOL(true, accel_cncl_result_t, cnclReduceScatter,
                  (const void *send, void *recv, size_t count, accel_cncl_dtype_t datatype,
                   accel_cncl_op_t op, accel_cncl_comm_t comm, accel_cncl_queue_t queue), NULL)
ACCEL_CNCL_SYMBOL(true, accel_cncl_result_t, cnclBroadcast,
                  (const void *send, void *recv, size_t count, accel_cncl_dtype_t datatype, int root,
                   accel_cncl_comm_t comm, accel_cncl_queue_t queue), NULL)
ACCEL_CNCL_SYMBOL(true, accel_cncl_result_t, cnclReduce,
                  (const void *send, void *recv, size_t count, accel_cncl_dtype_t datatype,
                   accel_cncl_op_t op, int root, accel_cncl_comm_t comm, accel_cncl_queue_t queue), NULL)
ACCEL_CNCL_SYMBOL(true, accel_cncl_result_t, cnclSend,
                  (void *buf, size_t count, accel_cncl_dtype_t datatype, int peer,
                   accel_cncl_comm_t comm, accel_cncl_queue_t queue), NULL)
ACCEL_CNCL_SYMBOL(true, accel_cncl_result_t, cnclRecv,
                  (void *buf, size_t count, accel_cncl_dtype_t datatype, int peer,
                   accel_cncl_comm_t comm, accel_cncl_queue_t queue), NULL)
/* unconfirmed prototypes (cncl.h's "Group API" section was not read) */
ACCEL_CNCL_SYMBOL(false, accel_cncl_result_t, cnclGroupStart, (void), NULL)
ACCEL_CNCL_SYMBOL(false, accel_cncl_result_t, cnclGroupEnd, (void), NULL)
/* clang-format on */
