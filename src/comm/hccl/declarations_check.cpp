/* declarations_check.cpp: the hccl engine's own HCCL declarations (types.h,
 * symbols.h) compared with the real hccl.h / hccl_types.h of the torch-npu
 * wheel. Those headers are C++ only (a const array bound, nullptr), so this
 * check is C++: hccl_declarations.sh compiles it with the system's C++
 * compiler; compiling is the check, running prints what was checked.
 * Every mismatch is a compile error: the size and signedness of each enum we
 * declare as unsigned int, each value, the root info's size, and each
 * function's exact type with our typedef names mapped onto HCCL's. */
#include <cstdio>
#include <type_traits>

#include <hccl/hccl.h>

extern "C" {
#include "comm/hccl/types.h"
}

#define SAME_VALUE(real, ours) static_assert((real) == (ours), #ours " != " #real)

template <typename E> constexpr bool same_as_unsigned()
{
    return sizeof(E) == sizeof(unsigned int) &&
           std::is_same<typename std::underlying_type<E>::type, unsigned int>::value;
}
static_assert(same_as_unsigned<HcclResult>(), "HcclResult is not an unsigned 32-bit enum");
static_assert(same_as_unsigned<HcclDataType>(), "HcclDataType is not an unsigned 32-bit enum");
static_assert(same_as_unsigned<HcclReduceOp>(), "HcclReduceOp is not an unsigned 32-bit enum");
static_assert(std::is_same<HcclComm, accel_hccl_comm_t>::value, "HcclComm");
static_assert(std::is_same<aclrtStream, accel_hccl_stream_t>::value, "aclrtStream");
static_assert(sizeof(HcclRootInfo) == sizeof(accel_hccl_root_info_t), "sizeof HcclRootInfo");
static_assert(alignof(HcclRootInfo) == alignof(accel_hccl_root_info_t), "alignof HcclRootInfo");
SAME_VALUE(HCCL_ROOT_INFO_BYTES, ACCEL_HCCL_ROOT_INFO_BYTES);

SAME_VALUE(HCCL_SUCCESS, ACCEL_HCCL_SUCCESS);
SAME_VALUE(HCCL_DATA_TYPE_INT8, ACCEL_HCCL_INT8);
SAME_VALUE(HCCL_DATA_TYPE_INT32, ACCEL_HCCL_INT32);
SAME_VALUE(HCCL_DATA_TYPE_FP16, ACCEL_HCCL_FP16);
SAME_VALUE(HCCL_DATA_TYPE_FP32, ACCEL_HCCL_FP32);
SAME_VALUE(HCCL_DATA_TYPE_INT64, ACCEL_HCCL_INT64);
SAME_VALUE(HCCL_DATA_TYPE_UINT8, ACCEL_HCCL_UINT8);
SAME_VALUE(HCCL_DATA_TYPE_FP64, ACCEL_HCCL_FP64);
SAME_VALUE(HCCL_DATA_TYPE_BFP16, ACCEL_HCCL_BFP16);
SAME_VALUE(HCCL_REDUCE_SUM, ACCEL_HCCL_SUM);
SAME_VALUE(HCCL_REDUCE_PROD, ACCEL_HCCL_PROD);
SAME_VALUE(HCCL_REDUCE_MAX, ACCEL_HCCL_MAX);
SAME_VALUE(HCCL_REDUCE_MIN, ACCEL_HCCL_MIN);

/* Our names mapped onto HCCL's (sizes and signedness checked above), then
 * each function's type compared exactly. */
#define accel_hccl_result_t    HcclResult
#define accel_hccl_dtype_t     HcclDataType
#define accel_hccl_op_t        HcclReduceOp
#define accel_hccl_comm_t      HcclComm
#define accel_hccl_stream_t    aclrtStream
#define accel_hccl_root_info_t HcclRootInfo
#define ACCEL_HCCL_SYMBOL(required, ret, name, params, export)                                     \
    static_assert(std::is_same<decltype(&name), ret(*) params>::value,                             \
                  #name " differs from hccl.h");
#include "comm/hccl/symbols.h"
#undef ACCEL_HCCL_SYMBOL

int main()
{
    std::printf("hccl declarations match hccl.h and hccl_types.h\n");
    return 0;
}
