/* types.h: the nccl engine's own declarations of NCCL's C types and values
 * (nccl.h), so that nothing here needs NCCL's header to build. Checked
 * against the real nccl.h by declarations_check.c (ctest nccl.declarations).
 * Enums are 32-bit ints in NCCL's ABI: they are declared as unsigned int. */
#ifndef ACCEL_COMM_NCCL_TYPES_H
#define ACCEL_COMM_NCCL_TYPES_H

typedef unsigned int accel_nccl_result_t;        /* ncclResult_t */
typedef unsigned int accel_nccl_dtype_t;         /* ncclDataType_t */
typedef unsigned int accel_nccl_op_t;            /* ncclRedOp_t */
typedef struct ncclComm *accel_nccl_comm_t;      /* ncclComm_t */
typedef struct CUstream_st *accel_nccl_stream_t; /* cudaStream_t (= CUstream) */

#define ACCEL_NCCL_UNIQUE_ID_BYTES 128
/* ncclUniqueId: passed by value to ncclCommInitRank. */
typedef struct accel_nccl_unique_id {
    char internal[ACCEL_NCCL_UNIQUE_ID_BYTES];
} accel_nccl_unique_id_t;

/* ncclConfig_t: only ever passed as NULL (ncclCommSplit inherits the
 * parent's configuration then), so it stays incomplete here. */
typedef struct accel_nccl_config accel_nccl_config_t;
/* ncclCommSplit's color for a rank that joins no new communicator */
#define ACCEL_NCCL_SPLIT_NOCOLOR (-1)

#define ACCEL_NCCL_SUCCESS     0
#define ACCEL_NCCL_IN_PROGRESS 7 /* non-blocking communicators only */

/* ncclDataType_t */
#define ACCEL_NCCL_INT8     0
#define ACCEL_NCCL_UINT8    1
#define ACCEL_NCCL_INT32    2
#define ACCEL_NCCL_UINT32   3
#define ACCEL_NCCL_INT64    4
#define ACCEL_NCCL_UINT64   5
#define ACCEL_NCCL_FLOAT16  6
#define ACCEL_NCCL_FLOAT32  7
#define ACCEL_NCCL_FLOAT64  8
#define ACCEL_NCCL_BFLOAT16 9

/* ncclRedOp_t */
#define ACCEL_NCCL_SUM  0
#define ACCEL_NCCL_PROD 1
#define ACCEL_NCCL_MAX  2
#define ACCEL_NCCL_MIN  3
#define ACCEL_NCCL_AVG  4 /* NCCL 2.10 and later */

#endif /* ACCEL_COMM_NCCL_TYPES_H */
