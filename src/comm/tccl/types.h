/* types.h: the tccl engine's own declarations of Tecorigin TCCL's C types
 * and values (tccl.h, TCCL_VERSION_CODE 1200, as vendor-apis.md records an
 * early public copy), so that nothing here needs the Teco SDK to build. The
 * SDK's headers are not published: there is no declarations test, and what
 * later releases changed is unknown (README.md). */
#ifndef ACCEL_COMM_TCCL_TYPES_H
#define ACCEL_COMM_TCCL_TYPES_H

typedef unsigned int accel_tccl_result_t;   /* tcclResult_t */
typedef unsigned int accel_tccl_dtype_t;    /* tcclDataType_t */
typedef unsigned int accel_tccl_op_t;       /* tcclRedOp_t */
typedef struct tcclComm *accel_tccl_comm_t; /* tcclComm_t */
typedef void *accel_tccl_stream_t;          /* sdaaStream_t; NULL: the default stream */

#define ACCEL_TCCL_UNIQUE_ID_BYTES 128
/* tcclUniqueId: passed by value to tcclCommInitRank. */
typedef struct accel_tccl_unique_id {
    char internal[ACCEL_TCCL_UNIQUE_ID_BYTES];
} accel_tccl_unique_id_t;

#define ACCEL_TCCL_SUCCESS 0

/* tcclDataType_t: NOT NCCL's order */
#define ACCEL_TCCL_INT8    0
#define ACCEL_TCCL_UINT8   1
#define ACCEL_TCCL_INT32   2
#define ACCEL_TCCL_UINT32  3
#define ACCEL_TCCL_FLOAT32 4
#define ACCEL_TCCL_FLOAT64 5
#define ACCEL_TCCL_INT64   6
#define ACCEL_TCCL_UINT64  7
#define ACCEL_TCCL_FLOAT16 8
#define ACCEL_TCCL_BF16    9

/* tcclRedOp_t: no average */
#define ACCEL_TCCL_SUM  0
#define ACCEL_TCCL_PROD 1
#define ACCEL_TCCL_MAX  2
#define ACCEL_TCCL_MIN  3

#endif /* ACCEL_COMM_TCCL_TYPES_H */
