/* declarations_check.cpp: the oneccl engine's own oneCCL declarations
 * (types.h, symbols.h) compared with the real oneapi/ccl.h and
 * oneapi/ccl/v2/types.h of the oneccl-devel wheel. Those headers are C++
 * only (<cstddef>, anonymous structs), so this check is C++:
 * oneccl_declarations.sh compiles it with the system's C++ compiler;
 * compiling is the check, running prints what was checked.
 * Every mismatch is a compile error: the size and signedness of each enum we
 * declare as unsigned int, each value, the unique id's size, and each
 * function's exact type with our typedef names mapped onto oneCCL's. */
#include <cstdio>
#include <type_traits>

#include <oneapi/ccl.h>

extern "C" {
#include "comm/oneccl/types.h"
}

#define SAME_VALUE(real, ours) static_assert((real) == (ours), #ours " != " #real)

template <typename E> constexpr bool same_as_unsigned()
{
    return sizeof(E) == sizeof(unsigned int) &&
           std::is_same<typename std::underlying_type<E>::type, unsigned int>::value;
}
static_assert(same_as_unsigned<onecclResult_t>(), "onecclResult_t is not an unsigned 32-bit enum");
static_assert(same_as_unsigned<onecclDataType_t>(),
              "onecclDataType_t is not an unsigned 32-bit enum");
static_assert(same_as_unsigned<onecclRedOp_t>(), "onecclRedOp_t is not an unsigned 32-bit enum");
static_assert(std::is_same<onecclComm_t, accel_oneccl_comm_t>::value, "onecclComm_t");
static_assert(sizeof(onecclUniqueId) == sizeof(accel_oneccl_unique_id_t), "sizeof onecclUniqueId");
static_assert(alignof(onecclUniqueId) == alignof(accel_oneccl_unique_id_t),
              "alignof onecclUniqueId");
SAME_VALUE(ONECCL_UNIQUE_ID_BYTES, ACCEL_ONECCL_UNIQUE_ID_BYTES);

SAME_VALUE(onecclSuccess, ACCEL_ONECCL_SUCCESS);
SAME_VALUE(onecclError, ACCEL_ONECCL_ERROR);
SAME_VALUE(onecclInvalidArgument, ACCEL_ONECCL_INVALID_ARGUMENT);
SAME_VALUE(onecclInvalidUsage, ACCEL_ONECCL_INVALID_USAGE);
SAME_VALUE(onecclInProgress, ACCEL_ONECCL_IN_PROGRESS);
SAME_VALUE(onecclNotImplemented, ACCEL_ONECCL_NOT_IMPLEMENTED);
SAME_VALUE(onecclInt8, ACCEL_ONECCL_INT8);
SAME_VALUE(onecclUint8, ACCEL_ONECCL_UINT8);
SAME_VALUE(onecclInt32, ACCEL_ONECCL_INT32);
SAME_VALUE(onecclUint32, ACCEL_ONECCL_UINT32);
SAME_VALUE(onecclInt64, ACCEL_ONECCL_INT64);
SAME_VALUE(onecclUint64, ACCEL_ONECCL_UINT64);
SAME_VALUE(onecclFloat16, ACCEL_ONECCL_FLOAT16);
SAME_VALUE(onecclFloat32, ACCEL_ONECCL_FLOAT32);
SAME_VALUE(onecclFloat64, ACCEL_ONECCL_FLOAT64);
SAME_VALUE(onecclBfloat16, ACCEL_ONECCL_BFLOAT16);
SAME_VALUE(onecclSum, ACCEL_ONECCL_SUM);
SAME_VALUE(onecclProd, ACCEL_ONECCL_PROD);
SAME_VALUE(onecclMax, ACCEL_ONECCL_MAX);
SAME_VALUE(onecclMin, ACCEL_ONECCL_MIN);
SAME_VALUE(onecclAvg, ACCEL_ONECCL_AVG);

/* Our names mapped onto oneCCL's (sizes and signedness checked above), then
 * each function's type compared exactly. The stream stays void * on both
 * sides: the header declares it so. */
#define accel_oneccl_result_t    onecclResult_t
#define accel_oneccl_dtype_t     onecclDataType_t
#define accel_oneccl_op_t        onecclRedOp_t
#define accel_oneccl_comm_t      onecclComm_t
#define accel_oneccl_unique_id_t onecclUniqueId
#define ACCEL_ONECCL_SYMBOL(required, ret, name, params, export)                                   \
    static_assert(std::is_same<decltype(&name), ret(*) params>::value,                             \
                  #name " differs from oneapi/ccl.h");
#include "comm/oneccl/symbols.h"
#undef ACCEL_ONECCL_SYMBOL

int main()
{
    std::printf("oneccl declarations match oneapi/ccl.h %d.%d.%d\n", ONECCL_MAJOR, ONECCL_MINOR,
                ONECCL_PATCH);
    return 0;
}
