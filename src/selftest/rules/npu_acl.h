/* npu_acl.h: what the npu vendor-rule probes (npu.c) share: the ACL
 * functions they call directly, loaded from the same library the npu
 * backend loads (ACCEL_NPU_LIBRARY, ASCEND_HOME_PATH, libascendcl.so), and
 * small helpers over them: assertions on aclError codes, a report thread,
 * and a stream held by a host function or callback until the probe lets it
 * go. Each probe runs in a child process of its own (check.h), so the table
 * is loaded once per probe; every call is made from the probe's thread
 * unless said otherwise. */
#ifndef ACCEL_SELFTEST_RULES_NPU_ACL_H
#define ACCEL_SELFTEST_RULES_NPU_ACL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* ACL's types and values, as CANN's acl_base.h, acl_rt.h and
 * rt_error_codes.h give them (the torch-npu 2.14 wheel's copy; the npu
 * backend's src/backends/npu/types.h has the same, checked against those
 * headers by npu.declarations). Declared here again so that a probe does
 * not take the backend's word for what it checks. Every handle is a void *,
 * every enum a 32-bit int, aclError an int. */
typedef int probe_acl_error_t;
typedef void *probe_acl_stream_t;
typedef void *probe_acl_event_t;
typedef void (*probe_acl_callback_t)(void *user_data);

#define PROBE_ACL_SUCCESS                      0
#define PROBE_ACL_ERROR_INVALID_PARAM          100000
#define PROBE_ACL_ERROR_REPEAT_INITIALIZE      100002
#define PROBE_ACL_ERROR_RT_STREAM_SUBSCRIBE    107011
#define PROBE_ACL_ERROR_RT_THREAD_SUBSCRIBE    107012
#define PROBE_ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000
#define PROBE_ACL_ERROR_RT_REPORT_TIMEOUT      507012

#define PROBE_ACL_MEM_MALLOC_HUGE_FIRST   0u
#define PROBE_ACL_MEMCPY_HOST_TO_HOST     0u
#define PROBE_ACL_MEMCPY_HOST_TO_DEVICE   1u
#define PROBE_ACL_MEMCPY_DEVICE_TO_HOST   2u
#define PROBE_ACL_MEMCPY_DEVICE_TO_DEVICE 3u
#define PROBE_ACL_CALLBACK_NO_BLOCK       0u
#define PROBE_ACL_CALLBACK_BLOCK          1u
/* aclrtEventRecordedStatus, and aclrtEventWaitStatus, its opposite */
#define PROBE_ACL_EVENT_RECORDED_NOT_READY 0u
#define PROBE_ACL_EVENT_RECORDED_COMPLETE  1u
#define PROBE_ACL_EVENT_WAIT_COMPLETE      0u
#define PROBE_ACL_EVENT_WAIT_NOT_READY     1u
#define PROBE_ACL_EVENT_SYNC               0x1u
#define PROBE_ACL_HOST_REGISTER_MAPPED     0u          /* aclrtHostRegisterType */
#define PROBE_ACL_HOST_REG_PINNED          0x10000000u /* aclrtHostRegisterV2 flag */

/* The functions a probe may call: required ones every CANN the backend
 * supports exports; optional ones (false) may be NULL, and the probe that
 * needs one skips, saying so. X(required, return type, name, (parameters)). */
/* clang-format off */
#define PROBE_ACL_FUNCTIONS(X)                                                                     \
    X(true, probe_acl_error_t, aclInit, (const char *config_path))                                 \
    X(true, probe_acl_error_t, aclrtGetDeviceCount, (uint32_t *count))                             \
    X(true, probe_acl_error_t, aclrtSetDevice, (int32_t device))                                   \
    X(true, const char *, aclGetRecentErrMsg, (void))                                              \
    X(true, const char *, aclrtGetSocName, (void))                                                 \
    X(true, probe_acl_error_t, aclrtCreateStream, (probe_acl_stream_t *stream))                    \
    X(true, probe_acl_error_t, aclrtDestroyStream, (probe_acl_stream_t stream))                    \
    X(true, probe_acl_error_t, aclrtSynchronizeStream, (probe_acl_stream_t stream))                \
    X(true, probe_acl_error_t, aclrtSubscribeReport, (uint64_t thread_id, probe_acl_stream_t s))   \
    X(true, probe_acl_error_t, aclrtUnSubscribeReport, (uint64_t thread_id, probe_acl_stream_t s)) \
    X(true, probe_acl_error_t, aclrtLaunchCallback,                                                \
      (probe_acl_callback_t fn, void *user_data, unsigned int block,                 \
       probe_acl_stream_t stream))                                                                 \
    X(true, probe_acl_error_t, aclrtProcessReport, (int32_t timeout_ms))                           \
    X(false, probe_acl_error_t, aclrtLaunchHostFunc,                                               \
      (probe_acl_stream_t stream, probe_acl_callback_t fn, void *args))                           \
    X(true, probe_acl_error_t, aclrtCreateEventWithFlag, (probe_acl_event_t *event, uint32_t f))   \
    X(false, probe_acl_error_t, aclrtCreateEventExWithFlag, (probe_acl_event_t *event, uint32_t f))\
    X(true, probe_acl_error_t, aclrtDestroyEvent, (probe_acl_event_t event))                       \
    X(true, probe_acl_error_t, aclrtRecordEvent, (probe_acl_event_t event, probe_acl_stream_t s))  \
    X(true, probe_acl_error_t, aclrtStreamWaitEvent, (probe_acl_stream_t s, probe_acl_event_t e))  \
    X(true, probe_acl_error_t, aclrtQueryEventStatus,                                              \
      (probe_acl_event_t event, unsigned int *status))                                 \
    X(false, probe_acl_error_t, aclrtQueryEventWaitStatus,                                         \
      (probe_acl_event_t event, unsigned int *status))                            \
    X(true, probe_acl_error_t, aclrtMalloc,                                                        \
      (void **ptr, size_t size, unsigned int policy))                                 \
    X(true, probe_acl_error_t, aclrtFree, (void *ptr))                                             \
    X(true, probe_acl_error_t, aclrtMallocHost, (void **ptr, size_t size))                         \
    X(true, probe_acl_error_t, aclrtFreeHost, (void *ptr))                                         \
    X(true, probe_acl_error_t, aclrtMemcpy,                                                        \
      (void *dst, size_t dst_max, const void *src, size_t count, unsigned int kind))    \
    X(true, probe_acl_error_t, aclrtMemcpyAsync,                                                   \
      (void *dst, size_t dst_max, const void *src, size_t count, unsigned int kind,     \
       probe_acl_stream_t stream))                                                                 \
    X(true, probe_acl_error_t, aclrtMemsetAsync,                                                   \
      (void *dst, size_t max_count, int32_t value, size_t count, probe_acl_stream_t stream))       \
    X(false, probe_acl_error_t, aclrtHostRegister,                                                 \
      (void *ptr, uint64_t size, unsigned int type, void **dev_ptr))                               \
    X(false, probe_acl_error_t, aclrtHostRegisterV2, (void *ptr, uint64_t size, uint32_t flag))    \
    X(false, probe_acl_error_t, aclrtHostUnregister, (void *ptr))                                  \
    X(false, probe_acl_error_t, aclrtGetVersion, (int32_t *major, int32_t *minor, int32_t *patch))
/* clang-format on */

typedef struct probe_acl {
#define PROBE_ACL_FIELD(required, ret, name, params) ret(*name) params;
    PROBE_ACL_FUNCTIONS(PROBE_ACL_FIELD)
#undef PROBE_ACL_FIELD
} probe_acl_t;

/* The table, loaded and aclInit'ed (a repeat initialisation counts as
 * done), with `device` made the calling thread's. Fails the probe when the
 * library does not load or the device cannot be set. */
const probe_acl_t *probe_acl_open(int device);
/* How many devices ACL shows. */
int probe_acl_device_count(const probe_acl_t *acl);
/* Fail the probe unless `got` is `want`; `what` names the call. The
 * failure points at the caller's line. */
void probe_acl_expect_at(const char *file, int line, const probe_acl_t *acl, const char *what,
                         probe_acl_error_t got, probe_acl_error_t want);
#define probe_acl_expect(acl, what, got, want)                                                     \
    probe_acl_expect_at(__FILE__, __LINE__, (acl), (what), (got), (want))
#define probe_acl_ok(acl, call) probe_acl_expect((acl), #call, (call), PROBE_ACL_SUCCESS)
/* A created stream on the calling thread's device. */
probe_acl_stream_t probe_acl_stream(const probe_acl_t *acl);

/* ---------------------------------------------------------------- report threads */

/* A thread that sets `device` (unless `set_device` is false) and then
 * runs aclrtProcessReport(timeout_ms) until stopped. Owned by the probe:
 * start, then stop before it goes out of scope. */
typedef struct probe_reporter {
    const probe_acl_t *acl;
    int device;
    bool set_device;
    int32_t timeout_ms;
    pthread_t thread;
    atomic_bool stop;
    atomic_uint_least64_t id; /* its ACL thread id, set before start returns */
    atomic_int last_code;     /* its last aclrtProcessReport result */
    atomic_int reports_run;   /* aclrtProcessReport calls that returned success */
} probe_reporter_t;

void probe_reporter_start(probe_reporter_t *reporter, const probe_acl_t *acl, int device);
void probe_reporter_stop(probe_reporter_t *reporter);

/* ---------------------------------------------------------------- held streams */

/* Work queued on a stream behind a host task that waits until the probe
 * releases it: aclrtLaunchHostFunc where the runtime exports it, else a
 * blocking aclrtLaunchCallback served by a report thread. */
typedef struct probe_hold {
    const probe_acl_t *acl;
    probe_acl_stream_t stream;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool released, entered;
    bool via_callback;
    probe_reporter_t reporter;
} probe_hold_t;

/* Queue the holding task on `stream` (a created stream of the calling
 * thread's device, used with no other callback mechanism). */
void probe_hold_start(probe_hold_t *hold, const probe_acl_t *acl, probe_acl_stream_t stream,
                      int device);
/* Let the stream go on (the holding task returns). */
void probe_hold_release(probe_hold_t *hold);
/* After release: synchronize the stream (its result is the probe's to
 * check before, not here), unsubscribe and end the report thread. */
void probe_hold_finish(probe_hold_t *hold);

/* Wait up to `ms` milliseconds for `*flag` to become true. */
bool probe_wait_flag(atomic_bool *flag, int ms);

#endif /* ACCEL_SELFTEST_RULES_NPU_ACL_H */
