/* types.h: the few ACL (Ascend Computing Language) runtime types and
 * constants the npu backend uses, declared here so the backend builds
 * without any CANN header. declarations_check.c compares each of them with
 * the real acl_rt.h / acl_base.h / rt_error_codes.h (the torch-npu wheel's
 * copy) when the test npu.declarations can fetch them.
 * Names are prefixed (accel_acl_*, ACCEL_ACL_*) so this file and the CANN
 * headers can be included together. In ACL every handle is a plain void *,
 * every enum a 32-bit int and aclError an int. */
#ifndef ACCEL_BACKENDS_NPU_TYPES_H
#define ACCEL_BACKENDS_NPU_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef int accel_acl_error_t;    /* aclError */
typedef void *accel_acl_stream_t; /* aclrtStream; NULL = the device's default stream */
typedef void *accel_acl_event_t;  /* aclrtEvent */
typedef void (*accel_acl_callback_t)(void *user_data); /* aclrtCallback */
typedef void (*accel_acl_host_func_t)(void *args);     /* aclrtHostFunc */

/* Enums, as the int-sized values the headers give them. gcc and clang give
 * an enum with no negative members the type unsigned int; the check
 * confirms each one. */
typedef unsigned int accel_acl_malloc_policy_t;     /* aclrtMemMallocPolicy */
typedef unsigned int accel_acl_memcpy_kind_t;       /* aclrtMemcpyKind */
typedef unsigned int accel_acl_mem_attr_t;          /* aclrtMemAttr */
typedef unsigned int accel_acl_callback_block_t;    /* aclrtCallbackBlockType */
typedef unsigned int accel_acl_stream_status_t;     /* aclrtStreamStatus */
typedef unsigned int accel_acl_event_status_t;      /* aclrtEventRecordedStatus */
typedef unsigned int accel_acl_event_wait_status_t; /* aclrtEventWaitStatus */
typedef unsigned int accel_acl_dev_attr_t;          /* aclrtDevAttr */

/* aclError values the backend tests for (acl_base.h: static const int;
 * rt_error_codes.h: macros). */
#define ACCEL_ACL_SUCCESS                     0
#define ACCEL_ACL_ERROR_INVALID_PARAM         100000
#define ACCEL_ACL_ERROR_UNINITIALIZE          100001
#define ACCEL_ACL_ERROR_REPEAT_INITIALIZE     100002
#define ACCEL_ACL_ERROR_STREAM_NOT_SUBSCRIBE  100034
#define ACCEL_ACL_ERROR_THREAD_NOT_SUBSCRIBE  100035
#define ACCEL_ACL_ERROR_WAIT_CALLBACK_TIMEOUT 100036
#define ACCEL_ACL_ERROR_BAD_ALLOC             200000
#define ACCEL_ACL_ERROR_RT_THREAD_SUBSCRIBE   107012
#define ACCEL_ACL_ERROR_RT_MEMORY_ALLOCATION  207001
#define ACCEL_ACL_ERROR_RT_NO_DEVICE          207004
#define ACCEL_ACL_ERROR_RT_NO_EVENT_RESOURCE  207007
#define ACCEL_ACL_ERROR_RT_DEVICE_OOM         207018
#define ACCEL_ACL_ERROR_RT_REPORT_TIMEOUT     507012

/* aclrtMemMallocPolicy */
#define ACCEL_ACL_MEM_MALLOC_HUGE_FIRST 0
/* aclrtMemcpyKind */
#define ACCEL_ACL_MEMCPY_HOST_TO_HOST     0
#define ACCEL_ACL_MEMCPY_HOST_TO_DEVICE   1
#define ACCEL_ACL_MEMCPY_DEVICE_TO_HOST   2
#define ACCEL_ACL_MEMCPY_DEVICE_TO_DEVICE 3
/* aclrtMemAttr */
#define ACCEL_ACL_DDR_MEM 0
#define ACCEL_ACL_HBM_MEM 1
/* aclrtCallbackBlockType */
#define ACCEL_ACL_CALLBACK_BLOCK 1
/* aclrtStreamStatus */
#define ACCEL_ACL_STREAM_STATUS_COMPLETE  0
#define ACCEL_ACL_STREAM_STATUS_NOT_READY 1
/* aclrtEventRecordedStatus (the newer API: NOT_READY 0, COMPLETE 1) */
#define ACCEL_ACL_EVENT_RECORDED_STATUS_NOT_READY 0
#define ACCEL_ACL_EVENT_RECORDED_STATUS_COMPLETE  1
/* aclrtEventWaitStatus: the opposite polarity (COMPLETE 0, NOT_READY 1) */
#define ACCEL_ACL_EVENT_WAIT_STATUS_COMPLETE  0
#define ACCEL_ACL_EVENT_WAIT_STATUS_NOT_READY 1
/* aclrtDevAttr */
#define ACCEL_ACL_DEV_ATTR_AICORE_CORE_NUM       101
#define ACCEL_ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE 301
/* aclrtHostRegisterV2 flag: page-lock the range (acl_rt.h, next to
 * ACL_HOST_REG_MAPPED, which only maps it for device-side access) */
#define ACCEL_ACL_HOST_REG_PINNED 0x10000000u
/* aclrtCreateEvent[Ex]WithFlag flags */
#define ACCEL_ACL_EVENT_SYNC      0x1u
#define ACCEL_ACL_EVENT_TIME_LINE 0x8u

#endif /* ACCEL_BACKENDS_NPU_TYPES_H */
