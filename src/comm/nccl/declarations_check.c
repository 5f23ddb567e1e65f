/* declarations_check.c: the nccl engine's own NCCL declarations (types.h,
 * symbols.h) compared with the real nccl.h (the CUDA toolkit's, or the
 * nvidia-nccl wheel's). Built only where nccl.h is found; building it is the
 * check (ctest nccl.declarations runs the trivial result). Every mismatch is
 * a compile error: a static assertion per type, size and value, and per
 * function a comparison of its type with ours. Nothing is called or linked. */
#include <stdio.h>

#include <nccl.h>

#include "comm/nccl/types.h"

#define SAME_TYPE(a, b)        __builtin_types_compatible_p(a, b)
#define SAME_VALUE(real, ours) _Static_assert((real) == (ours), #ours " != " #real)

_Static_assert(SAME_TYPE(ncclResult_t, accel_nccl_result_t), "ncclResult_t");
_Static_assert(SAME_TYPE(ncclDataType_t, accel_nccl_dtype_t), "ncclDataType_t");
_Static_assert(SAME_TYPE(ncclRedOp_t, accel_nccl_op_t), "ncclRedOp_t");
_Static_assert(SAME_TYPE(ncclComm_t, accel_nccl_comm_t), "ncclComm_t");
_Static_assert(SAME_TYPE(cudaStream_t, accel_nccl_stream_t), "cudaStream_t");
/* ncclUniqueId is an untagged struct: ours matches it in size and layout. */
_Static_assert(sizeof(ncclUniqueId) == sizeof(accel_nccl_unique_id_t), "sizeof ncclUniqueId");
_Static_assert(_Alignof(ncclUniqueId) == _Alignof(accel_nccl_unique_id_t), "alignof ncclUniqueId");
SAME_VALUE(NCCL_UNIQUE_ID_BYTES, ACCEL_NCCL_UNIQUE_ID_BYTES);

SAME_VALUE(NCCL_SPLIT_NOCOLOR, ACCEL_NCCL_SPLIT_NOCOLOR);
SAME_VALUE(ncclSuccess, ACCEL_NCCL_SUCCESS);
SAME_VALUE(ncclInProgress, ACCEL_NCCL_IN_PROGRESS);
SAME_VALUE(ncclInt8, ACCEL_NCCL_INT8);
SAME_VALUE(ncclUint8, ACCEL_NCCL_UINT8);
SAME_VALUE(ncclInt32, ACCEL_NCCL_INT32);
SAME_VALUE(ncclUint32, ACCEL_NCCL_UINT32);
SAME_VALUE(ncclInt64, ACCEL_NCCL_INT64);
SAME_VALUE(ncclUint64, ACCEL_NCCL_UINT64);
SAME_VALUE(ncclFloat16, ACCEL_NCCL_FLOAT16);
SAME_VALUE(ncclFloat32, ACCEL_NCCL_FLOAT32);
SAME_VALUE(ncclFloat64, ACCEL_NCCL_FLOAT64);
SAME_VALUE(ncclBfloat16, ACCEL_NCCL_BFLOAT16);
SAME_VALUE(ncclSum, ACCEL_NCCL_SUM);
SAME_VALUE(ncclProd, ACCEL_NCCL_PROD);
SAME_VALUE(ncclMax, ACCEL_NCCL_MAX);
SAME_VALUE(ncclMin, ACCEL_NCCL_MIN);
SAME_VALUE(ncclAvg, ACCEL_NCCL_AVG);

/* The by-value id is compared as the header spells it (sizes checked above). */
#define accel_nccl_unique_id_t ncclUniqueId
#define accel_nccl_config_t    ncclConfig_t
#define ACCEL_NCCL_SYMBOL(required, ret, name, params, export)                                     \
    _Static_assert(SAME_TYPE(__typeof__(&name), ret(*) params), #name " differs from nccl.h");
#include "comm/nccl/symbols.h"
#undef ACCEL_NCCL_SYMBOL
#undef accel_nccl_unique_id_t
#undef accel_nccl_config_t

int main(void)
{
    printf("nccl declarations match nccl.h %d.%d.%d\n", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
    return 0;
}
