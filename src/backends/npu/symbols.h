/* symbols.h: the ACL runtime functions the npu backend calls, one line
 * each, as an X-macro:
 *   ACCEL_NPU_SYMBOL(required, return type, name, (parameters), export)
 * `name` is both the table field and the exported name (libascendcl exports
 * unversioned names, so `export` is always NULL; the shape is
 * accel_backend_utils.h's ACCEL_SYMBOL_ENTRY). A `required` false entry is missing from older CANN
 * releases; the backend then falls back (said at each use).
 * backend.c expands this into the function table and the descriptors
 * accel_symbol_table_resolve fills it from;
 * declarations_check.c expands it against the real acl_rt.h.
 * No include guard: include it after defining ACCEL_NPU_SYMBOL. */
/* An X-macro list read as data, one vendor call per entry: not reformatted. */
/* clang-format off */

/* initialisation and devices */
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclInit, (const char *config_path), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtGetDeviceCount, (uint32_t *count), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtSetDevice, (int32_t device), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtSynchronizeDevice, (void), NULL)
ACCEL_NPU_SYMBOL(true, const char *, aclrtGetSocName, (void), NULL)
/* deprecated in current CANN (README: "vendor rules we rely on"): may go */
ACCEL_NPU_SYMBOL(false, accel_acl_error_t, aclrtGetVersion,
                 (int32_t *major, int32_t *minor, int32_t *patch), NULL)
ACCEL_NPU_SYMBOL(false, accel_acl_error_t, aclrtGetDeviceInfo,
                 (uint32_t device, accel_acl_dev_attr_t attr, int64_t *value), NULL)
ACCEL_NPU_SYMBOL(true, const char *, aclGetRecentErrMsg, (void), NULL)

/* memory */
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtMalloc,
                 (void **ptr, size_t size, accel_acl_malloc_policy_t policy), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtFree, (void *ptr), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtGetMemInfo,
                 (accel_acl_mem_attr_t attr, size_t *free_bytes, size_t *total), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtMallocHost, (void **ptr, size_t size), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtFreeHost, (void *ptr), NULL)
/* Pinning an existing range (host_register): V2 with ACL_HOST_REG_PINNED,
 * CANN 8.5 on. aclrtHostRegister (V1) is not bound: it only maps memory for
 * device-side access, and that address is not valid for copies. */
ACCEL_NPU_SYMBOL(false, accel_acl_error_t, aclrtHostRegisterV2,
                 (void *ptr, uint64_t size, uint32_t flag), NULL)
ACCEL_NPU_SYMBOL(false, accel_acl_error_t, aclrtHostUnregister, (void *ptr), NULL)
/* synchronous: copies from host memory ACL has not page-locked (copy.c) */
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtMemcpy,
                 (void *dst, size_t dst_max, const void *src, size_t count,
                  accel_acl_memcpy_kind_t kind), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtMemcpyAsync,
                 (void *dst, size_t dst_max, const void *src, size_t count,
                  accel_acl_memcpy_kind_t kind, accel_acl_stream_t stream), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtMemsetAsync,
                 (void *dst, size_t max_count, int32_t value, size_t count,
                  accel_acl_stream_t stream), NULL)

/* streams */
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtCreateStream, (accel_acl_stream_t *stream), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtDestroyStream, (accel_acl_stream_t stream), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtSynchronizeStream, (accel_acl_stream_t stream), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtStreamQuery,
                 (accel_acl_stream_t stream, accel_acl_stream_status_t *status), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtStreamWaitEvent,
                 (accel_acl_stream_t stream, accel_acl_event_t event), NULL)

/* events */
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtCreateEventWithFlag,
                 (accel_acl_event_t *event, uint32_t flag), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtDestroyEvent, (accel_acl_event_t event), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtRecordEvent,
                 (accel_acl_event_t event, accel_acl_stream_t stream), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtSynchronizeEvent, (accel_acl_event_t event), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtQueryEventStatus,
                 (accel_acl_event_t event, accel_acl_event_status_t *status), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtEventElapsedTime,
                 (float *ms, accel_acl_event_t start, accel_acl_event_t end), NULL)
/* CANN 8.0.0+: new-mode events (no id pool, asynchronous destroy); without
 * it WithFlag events are destroyed only once record and waits completed */
ACCEL_NPU_SYMBOL(false, accel_acl_error_t, aclrtCreateEventExWithFlag,
                 (accel_acl_event_t *event, uint32_t flag), NULL)
/* whether the waits on a WithFlag event have run; absent: record only */
ACCEL_NPU_SYMBOL(false, accel_acl_error_t, aclrtQueryEventWaitStatus,
                 (accel_acl_event_t event, accel_acl_event_wait_status_t *status), NULL)

/* host callbacks: a report thread subscribed to the stream runs them */
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtSubscribeReport,
                 (uint64_t thread_id, accel_acl_stream_t stream), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtUnSubscribeReport,
                 (uint64_t thread_id, accel_acl_stream_t stream), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtLaunchCallback,
                 (accel_acl_callback_t fn, void *user_data, accel_acl_callback_block_t block,
                  accel_acl_stream_t stream), NULL)
ACCEL_NPU_SYMBOL(true, accel_acl_error_t, aclrtProcessReport, (int32_t timeout_ms), NULL)
/* CANN 8.3.RC1+: host functions run by the runtime itself; when present the
 * backend uses it for every callback and never aclrtLaunchCallback */
ACCEL_NPU_SYMBOL(false, accel_acl_error_t, aclrtLaunchHostFunc,
                 (accel_acl_stream_t stream, accel_acl_host_func_t fn, void *args), NULL)
/* clang-format on */
