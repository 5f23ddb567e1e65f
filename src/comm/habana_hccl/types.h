/* types.h: the habana-hccl engine's own declarations of Habana HCCL's C
 * types and values (HabanaAI/HCL hcl/include/hccl.h, hccl_types.h), so that
 * nothing here needs the Gaudi software to build. Checked against the real
 * headers by declarations_check.cpp (ctest habana_hccl.declarations, where
 * they can be fetched). Enums are 32-bit; hcclResult_t has a negative
 * member (hcclUninitialized -1), so it is signed. */
#ifndef ACCEL_COMM_HABANA_HCCL_TYPES_H
#define ACCEL_COMM_HABANA_HCCL_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef int accel_hcl_result_t;         /* hcclResult_t */
typedef unsigned int accel_hcl_dtype_t; /* hcclDataType_t */
typedef unsigned int accel_hcl_op_t;    /* hcclRedOp_t */
typedef void *accel_hcl_comm_t;         /* hcclComm_t (a #define for void*) */
typedef void *accel_hcl_stream_t;       /* synStreamHandle, passed as void* */

#define ACCEL_HCL_UNIQUE_ID_BYTES 1024
/* hcclUniqueId: passed by value to hcclCommInitRank (1032 bytes on LP64). */
typedef struct accel_hcl_unique_id {
    uint8_t internal[ACCEL_HCL_UNIQUE_ID_BYTES];
    size_t length;
} accel_hcl_unique_id_t;

#define ACCEL_HCL_SUCCESS 0

/* hcclDataType_t: NCCL's numbering */
#define ACCEL_HCL_INT8     0
#define ACCEL_HCL_UINT8    1
#define ACCEL_HCL_INT32    2
#define ACCEL_HCL_INT64    4
#define ACCEL_HCL_FLOAT16  6
#define ACCEL_HCL_FLOAT32  7
#define ACCEL_HCL_FLOAT64  8
#define ACCEL_HCL_BFLOAT16 9

/* hcclRedOp_t: min and max are SWAPPED relative to NCCL */
#define ACCEL_HCL_SUM  0
#define ACCEL_HCL_PROD 1
#define ACCEL_HCL_MIN  2
#define ACCEL_HCL_MAX  3
#define ACCEL_HCL_AVG  4

#endif /* ACCEL_COMM_HABANA_HCCL_TYPES_H */
