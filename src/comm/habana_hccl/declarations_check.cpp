/* declarations_check.cpp: the habana-hccl engine's own declarations
 * (types.h, symbols.h) compared with Habana's real hccl.h / hccl_types.h
 * (HabanaAI/HCL). Those headers are C++ (<cstddef>), so this check is C++:
 * habana_hccl_declarations.sh compiles it with the system's C++ compiler;
 * compiling is the check, running prints what was checked. Every mismatch
 * is a compile error: each enum's size and signedness against the integer
 * type we declare, each value, the unique id's layout, and each function's
 * exact type with our typedef names mapped onto HCCL's. */
#include <cstddef>
#include <cstdio>
#include <type_traits>

#include <hccl.h>

extern "C" {
#include "comm/habana_hccl/types.h"
}

#define SAME_VALUE(real, ours) static_assert((real) == (ours), #ours " != " #real)

template <typename E, typename I> constexpr bool enum_is()
{
    return sizeof(E) == sizeof(I) &&
           std::is_same<typename std::underlying_type<E>::type, I>::value;
}
static_assert(enum_is<hcclResult_t, int>(), "hcclResult_t is not a signed 32-bit enum");
static_assert(enum_is<hcclDataType_t, unsigned int>(), "hcclDataType_t is not unsigned 32-bit");
static_assert(enum_is<hcclRedOp_t, unsigned int>(), "hcclRedOp_t is not unsigned 32-bit");
static_assert(std::is_same<hcclComm_t, accel_hcl_comm_t>::value, "hcclComm_t");
static_assert(sizeof(hcclUniqueId) == sizeof(accel_hcl_unique_id_t), "sizeof hcclUniqueId");
static_assert(offsetof(hcclUniqueId, length) == offsetof(accel_hcl_unique_id_t, length),
              "hcclUniqueId.length");
SAME_VALUE(HCCL_UNIQUE_ID_MAX_BYTES, ACCEL_HCL_UNIQUE_ID_BYTES);

SAME_VALUE(hcclSuccess, ACCEL_HCL_SUCCESS);
SAME_VALUE(hcclInt8, ACCEL_HCL_INT8);
SAME_VALUE(hcclUint8, ACCEL_HCL_UINT8);
SAME_VALUE(hcclInt32, ACCEL_HCL_INT32);
SAME_VALUE(hcclInt64, ACCEL_HCL_INT64);
SAME_VALUE(hcclFloat16, ACCEL_HCL_FLOAT16);
SAME_VALUE(hcclFloat32, ACCEL_HCL_FLOAT32);
SAME_VALUE(hcclFloat64, ACCEL_HCL_FLOAT64);
SAME_VALUE(hcclBfloat16, ACCEL_HCL_BFLOAT16);
SAME_VALUE(hcclSum, ACCEL_HCL_SUM);
SAME_VALUE(hcclProd, ACCEL_HCL_PROD);
SAME_VALUE(hcclMin, ACCEL_HCL_MIN);
SAME_VALUE(hcclMax, ACCEL_HCL_MAX);
SAME_VALUE(hcclAvg, ACCEL_HCL_AVG);

/* Our names mapped onto HCCL's (sizes and signedness checked above; the
 * communicator is void* in both), then each function's type compared. */
#define accel_hcl_result_t hcclResult_t
#define accel_hcl_dtype_t hcclDataType_t
#define accel_hcl_op_t hcclRedOp_t
#define accel_hcl_unique_id_t hcclUniqueId
#define ACCEL_HCL_SYMBOL(required, ret, name, params, export)                                      \
    static_assert(std::is_same<decltype(&name), ret(*) params>::value, #name " differs from hccl.h");
#include "comm/habana_hccl/symbols.h"
#undef ACCEL_HCL_SYMBOL

int main()
{
    std::printf("habana-hccl declarations match hccl.h %d.%d.%d\n", HCCL_MAJOR, HCCL_MINOR,
                HCCL_PATCH);
    return 0;
}
