/* types.h: the hccl engine's own declarations of Ascend HCCL's C types and
 * values (hccl.h, hccl_types.h), so that nothing here needs CANN to build.
 * Checked against the real headers of the torch-npu wheel by
 * declarations_check.c (ctest hccl.declarations). Enums are 32-bit. */
#ifndef ACCEL_COMM_HCCL_TYPES_H
#define ACCEL_COMM_HCCL_TYPES_H

#include <stdint.h>

typedef unsigned int accel_hccl_result_t; /* HcclResult */
typedef unsigned int accel_hccl_dtype_t;  /* HcclDataType */
typedef unsigned int accel_hccl_op_t;     /* HcclReduceOp */
typedef void *accel_hccl_comm_t;          /* HcclComm */
typedef void *accel_hccl_stream_t;        /* aclrtStream; NULL: the device's default stream */

#define ACCEL_HCCL_ROOT_INFO_BYTES 4108
/* HcclRootInfo: passed by pointer to HcclCommInitRootInfo. */
typedef struct accel_hccl_root_info {
    char internal[ACCEL_HCCL_ROOT_INFO_BYTES];
} accel_hccl_root_info_t;

#define ACCEL_HCCL_SUCCESS 0

/* HcclDataType: NOT NCCL's numbering */
#define ACCEL_HCCL_INT8  0
#define ACCEL_HCCL_INT32 2
#define ACCEL_HCCL_FP16  3
#define ACCEL_HCCL_FP32  4
#define ACCEL_HCCL_INT64 5
#define ACCEL_HCCL_UINT8 7
#define ACCEL_HCCL_FP64  10
#define ACCEL_HCCL_BFP16 11

/* HcclReduceOp: no average */
#define ACCEL_HCCL_SUM  0
#define ACCEL_HCCL_PROD 1
#define ACCEL_HCCL_MAX  2
#define ACCEL_HCCL_MIN  3

#endif /* ACCEL_COMM_HCCL_TYPES_H */
