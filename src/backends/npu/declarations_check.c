/* declarations_check.c: the npu backend's own ACL declarations (types.h,
 * symbols.h) compared with CANN's real headers, as the torch-npu wheel ships
 * them (scripts/fetch-vendor-headers.sh npu). Not part of the library: the
 * test npu.declarations (tests/sim/npu_declarations.sh) compiles this file
 * against the fetched headers and runs it.
 * Compiling is most of the check: a static assertion per type, enum value
 * and flag, and per symbol both a type comparison and an assignment of the
 * real function to our pointer type under -Werror=incompatible-pointer-types.
 * acl_base.h spells its error codes as `static const int`, which C does not
 * accept in a static assertion, so main() compares those and exits 1 on a
 * mismatch. Nothing here calls ACL or links against it.
 * hccl.h is not included: the wheel's copy is C++ only (nullptr, typedef'd
 * unions), and the backend calls no HCCL function (it only names hccl). */
#include <stdio.h>

#include <acl/acl_rt.h>

#include "backends/npu/types.h"
#include "backends/declarations_check.h"

/* ---------------------------------------------------------------- types */

_Static_assert(SAME_TYPE(aclError, accel_acl_error_t), "aclError");
_Static_assert(SAME_TYPE(aclrtStream, accel_acl_stream_t), "aclrtStream");
_Static_assert(SAME_TYPE(aclrtEvent, accel_acl_event_t), "aclrtEvent");
_Static_assert(SAME_TYPE(aclrtCallback, accel_acl_callback_t), "aclrtCallback");
_Static_assert(SAME_TYPE(aclrtHostFunc, accel_acl_host_func_t), "aclrtHostFunc");
_Static_assert(SAME_TYPE(aclrtEventWaitStatus, accel_acl_event_wait_status_t),
               "aclrtEventWaitStatus");
_Static_assert(SAME_TYPE(aclrtMemMallocPolicy, accel_acl_malloc_policy_t), "aclrtMemMallocPolicy");
_Static_assert(SAME_TYPE(aclrtMemcpyKind, accel_acl_memcpy_kind_t), "aclrtMemcpyKind");
_Static_assert(SAME_TYPE(aclrtMemAttr, accel_acl_mem_attr_t), "aclrtMemAttr");
_Static_assert(SAME_TYPE(aclrtCallbackBlockType, accel_acl_callback_block_t),
               "aclrtCallbackBlockType");
_Static_assert(SAME_TYPE(aclrtStreamStatus, accel_acl_stream_status_t), "aclrtStreamStatus");
_Static_assert(SAME_TYPE(aclrtEventRecordedStatus, accel_acl_event_status_t),
               "aclrtEventRecordedStatus");
_Static_assert(SAME_TYPE(aclrtDevAttr, accel_acl_dev_attr_t), "aclrtDevAttr");
_Static_assert(sizeof(aclrtMemcpyKind) == 4 && sizeof(aclrtDevAttr) == 4, "enums are 32-bit");

/* ---------------------------------------------------------------- enum values and flags */

SAME_VALUE(ACL_ERROR_RT_MEMORY_ALLOCATION, ACCEL_ACL_ERROR_RT_MEMORY_ALLOCATION);
SAME_VALUE(ACL_ERROR_RT_NO_DEVICE, ACCEL_ACL_ERROR_RT_NO_DEVICE);
SAME_VALUE(ACL_ERROR_RT_DEVICE_OOM, ACCEL_ACL_ERROR_RT_DEVICE_OOM);
SAME_VALUE(ACL_ERROR_RT_THREAD_SUBSCRIBE, ACCEL_ACL_ERROR_RT_THREAD_SUBSCRIBE);
SAME_VALUE(ACL_ERROR_RT_NO_EVENT_RESOURCE, ACCEL_ACL_ERROR_RT_NO_EVENT_RESOURCE);
SAME_VALUE(ACL_ERROR_RT_REPORT_TIMEOUT, ACCEL_ACL_ERROR_RT_REPORT_TIMEOUT);
SAME_VALUE(ACL_EVENT_WAIT_STATUS_COMPLETE, ACCEL_ACL_EVENT_WAIT_STATUS_COMPLETE);
SAME_VALUE(ACL_EVENT_WAIT_STATUS_NOT_READY, ACCEL_ACL_EVENT_WAIT_STATUS_NOT_READY);
SAME_VALUE(ACL_MEM_MALLOC_HUGE_FIRST, ACCEL_ACL_MEM_MALLOC_HUGE_FIRST);
SAME_VALUE(ACL_MEMCPY_HOST_TO_HOST, ACCEL_ACL_MEMCPY_HOST_TO_HOST);
SAME_VALUE(ACL_MEMCPY_HOST_TO_DEVICE, ACCEL_ACL_MEMCPY_HOST_TO_DEVICE);
SAME_VALUE(ACL_MEMCPY_DEVICE_TO_HOST, ACCEL_ACL_MEMCPY_DEVICE_TO_HOST);
SAME_VALUE(ACL_MEMCPY_DEVICE_TO_DEVICE, ACCEL_ACL_MEMCPY_DEVICE_TO_DEVICE);
SAME_VALUE(ACL_DDR_MEM, ACCEL_ACL_DDR_MEM);
SAME_VALUE(ACL_HBM_MEM, ACCEL_ACL_HBM_MEM);
SAME_VALUE(ACL_CALLBACK_BLOCK, ACCEL_ACL_CALLBACK_BLOCK);
SAME_VALUE(ACL_STREAM_STATUS_COMPLETE, ACCEL_ACL_STREAM_STATUS_COMPLETE);
SAME_VALUE(ACL_STREAM_STATUS_NOT_READY, ACCEL_ACL_STREAM_STATUS_NOT_READY);
SAME_VALUE(ACL_EVENT_RECORDED_STATUS_NOT_READY, ACCEL_ACL_EVENT_RECORDED_STATUS_NOT_READY);
SAME_VALUE(ACL_EVENT_RECORDED_STATUS_COMPLETE, ACCEL_ACL_EVENT_RECORDED_STATUS_COMPLETE);
SAME_VALUE(ACL_DEV_ATTR_AICORE_CORE_NUM, ACCEL_ACL_DEV_ATTR_AICORE_CORE_NUM);
SAME_VALUE(ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, ACCEL_ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE);
SAME_VALUE(ACL_HOST_REG_PINNED, ACCEL_ACL_HOST_REG_PINNED);
SAME_VALUE(ACL_EVENT_SYNC, ACCEL_ACL_EVENT_SYNC);
SAME_VALUE(ACL_EVENT_TIME_LINE, ACCEL_ACL_EVENT_TIME_LINE);

/* ---------------------------------------------------------------- functions */

/* aclFinalize, aclrtGetSocName and aclGetRecentErrMsg are declared with ()
 * in the headers, which C treats as compatible with our (void). */
#define ACCEL_NPU_SYMBOL(required, ret, name, params, export)                                      \
    ACCEL_DECLARATION_SYMBOL(ret, name, params)
#define ACCEL_DECLARATIONS_LIST   "backends/npu/symbols.h"
#define ACCEL_DECLARATIONS_HEADER "acl_rt.h"
#include "backends/declarations_check_symbols.h"
#undef ACCEL_NPU_SYMBOL

/* ---------------------------------------------------------------- static const int codes */

static int check_code(const char *name, int real, int ours)
{
    if (real == ours)
        return 0;
    fprintf(stderr, "npu declarations: %s is %d in acl_base.h but types.h says %d\n", name, real,
            ours);
    return 1;
}

int main(void)
{
    int bad = 0;
    bad += check_code("ACL_SUCCESS", ACL_SUCCESS, ACCEL_ACL_SUCCESS);
    bad += check_code("ACL_ERROR_INVALID_PARAM", ACL_ERROR_INVALID_PARAM,
                      ACCEL_ACL_ERROR_INVALID_PARAM);
    bad +=
        check_code("ACL_ERROR_UNINITIALIZE", ACL_ERROR_UNINITIALIZE, ACCEL_ACL_ERROR_UNINITIALIZE);
    bad += check_code("ACL_ERROR_REPEAT_INITIALIZE", ACL_ERROR_REPEAT_INITIALIZE,
                      ACCEL_ACL_ERROR_REPEAT_INITIALIZE);
    bad += check_code("ACL_ERROR_STREAM_NOT_SUBSCRIBE", ACL_ERROR_STREAM_NOT_SUBSCRIBE,
                      ACCEL_ACL_ERROR_STREAM_NOT_SUBSCRIBE);
    bad += check_code("ACL_ERROR_THREAD_NOT_SUBSCRIBE", ACL_ERROR_THREAD_NOT_SUBSCRIBE,
                      ACCEL_ACL_ERROR_THREAD_NOT_SUBSCRIBE);
    bad += check_code("ACL_ERROR_WAIT_CALLBACK_TIMEOUT", ACL_ERROR_WAIT_CALLBACK_TIMEOUT,
                      ACCEL_ACL_ERROR_WAIT_CALLBACK_TIMEOUT);
    bad += check_code("ACL_ERROR_BAD_ALLOC", ACL_ERROR_BAD_ALLOC, ACCEL_ACL_ERROR_BAD_ALLOC);
    if (bad != 0)
        return 1;
    printf("npu declarations match acl_rt.h (the torch-npu wheel's CANN headers)\n");
    return 0;
}
