/* symbols.h: the CNRT functions the mlu backend calls, one line each, in
 * the shape accel_backend_utils.h describes:
 *   ACCEL_MLU_SYMBOL(required, return type, name, (parameters), export)
 * `export` is tried first when not NULL (cnrtMemcpyAsync_V2, which torch_mlu
 * calls and newer CNRT prefers, has the plain call's parameters). An entry
 * with `required` false may be missing from the libcnrt.so found; the
 * backend then falls back or answers UNSUPPORTED (said at each use).
 * backend.c expands this into its function table and symbol descriptors;
 * declarations_check.c expands it against the real cnrt.h.
 * No include guard: include it after defining ACCEL_MLU_SYMBOL. */

/* devices */
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtGetDeviceCount, (unsigned int *count), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtSetDevice, (int ordinal), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtSyncDevice, (void), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtGetDeviceProperties,
                 (accel_cnrt_device_prop_t * prop, int device), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtDeviceGetAttribute,
                 (int *value, accel_cnrt_device_attr_t attr, int device), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtGetLibVersion, (int *major, int *minor, int *patch),
                 NULL)
ACCEL_MLU_SYMBOL(false, accel_cnrt_ret_t, cnrtDriverGetVersion,
                 (int *major, int *minor, int *patch), NULL)
ACCEL_MLU_SYMBOL(true, const char *, cnrtGetErrorStr, (accel_cnrt_ret_t error), NULL)
ACCEL_MLU_SYMBOL(true, const char *, cnrtGetErrorName, (accel_cnrt_ret_t error), NULL)

/* memory */
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtMalloc, (void **ptr, size_t bytes), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtFree, (void *ptr), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtHostMalloc, (void **ptr, size_t bytes), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtFreeHost, (void *ptr), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtMemGetInfo, (size_t * free_bytes, size_t *total), NULL)
/* src is not const in CNRT; the queue comes before the direction */
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtMemcpyAsync,
                 (void *dst, void *src, size_t bytes, accel_cnrt_queue_t queue,
                  accel_cnrt_mem_dir_t dir),
                 "cnrtMemcpyAsync_V2")
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtMemsetAsync,
                 (void *ptr, int value, size_t bytes, accel_cnrt_queue_t queue), NULL)

/* queues */
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtQueueCreate, (accel_cnrt_queue_t * queue), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtQueueDestroy, (accel_cnrt_queue_t queue), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtQueueSync, (accel_cnrt_queue_t queue), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtQueueQuery, (accel_cnrt_queue_t queue), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtQueueWaitNotifier,
                 (accel_cnrt_notifier_t notifier, accel_cnrt_queue_t queue, unsigned int flag),
                 NULL)

/* notifiers */
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtNotifierCreateWithFlags,
                 (accel_cnrt_notifier_t * notifier, unsigned int flags), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtNotifierDestroy, (accel_cnrt_notifier_t notifier),
                 NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtPlaceNotifier,
                 (accel_cnrt_notifier_t notifier, accel_cnrt_queue_t queue), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtWaitNotifier, (accel_cnrt_notifier_t notifier), NULL)
ACCEL_MLU_SYMBOL(true, accel_cnrt_ret_t, cnrtQueryNotifier, (accel_cnrt_notifier_t notifier), NULL)
/* timing: software time in ms (CNRT 6); else the hardware time in us */
ACCEL_MLU_SYMBOL(false, accel_cnrt_ret_t, cnrtNotifierElapsedTime,
                 (accel_cnrt_notifier_t start, accel_cnrt_notifier_t end, float *ms), NULL)
ACCEL_MLU_SYMBOL(false, accel_cnrt_ret_t, cnrtNotifierDuration,
                 (accel_cnrt_notifier_t start, accel_cnrt_notifier_t end, float *us), NULL)

/* host functions on a queue; emulated with a notifier and a waiting thread
 * when missing (stream.c) */
ACCEL_MLU_SYMBOL(false, accel_cnrt_ret_t, cnrtInvokeHostFunc,
                 (accel_cnrt_queue_t queue, accel_cnrt_host_fn_t fn, void *user_data), NULL)

/* capture into a task topology (graphs): all six or no graphs */
ACCEL_MLU_SYMBOL(false, accel_cnrt_ret_t, cnrtQueueBeginCapture,
                 (accel_cnrt_queue_t queue, accel_cnrt_capture_mode_t mode), NULL)
ACCEL_MLU_SYMBOL(false, accel_cnrt_ret_t, cnrtQueueEndCapture,
                 (accel_cnrt_queue_t queue, accel_cnrt_task_topo_t *topo), NULL)
ACCEL_MLU_SYMBOL(false, accel_cnrt_ret_t, cnrtTaskTopoInstantiate,
                 (accel_cnrt_topo_entity_t * entity, accel_cnrt_task_topo_t topo,
                  accel_cnrt_topo_node_t *error_node, char *log, size_t log_size),
                 NULL)
ACCEL_MLU_SYMBOL(false, accel_cnrt_ret_t, cnrtTaskTopoDestroy, (accel_cnrt_task_topo_t topo), NULL)
ACCEL_MLU_SYMBOL(false, accel_cnrt_ret_t, cnrtTaskTopoEntityInvoke,
                 (accel_cnrt_topo_entity_t entity, accel_cnrt_queue_t queue), NULL)
ACCEL_MLU_SYMBOL(false, accel_cnrt_ret_t, cnrtTaskTopoEntityDestroy,
                 (accel_cnrt_topo_entity_t entity), NULL)
