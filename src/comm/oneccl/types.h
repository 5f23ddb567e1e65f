/* types.h: the oneccl engine's own declarations of oneCCL's C types and
 * values (oneapi/ccl.h and oneapi/ccl/v2/types.h, the NCCL-like C API), so
 * that nothing here needs oneCCL to build. Checked against the real headers
 * of the oneccl-devel wheel by declarations_check.cpp (ctest
 * oneccl.declarations). Enums are 32-bit and unsigned in oneCCL's ABI. */
#ifndef ACCEL_COMM_ONECCL_TYPES_H
#define ACCEL_COMM_ONECCL_TYPES_H

typedef unsigned int accel_oneccl_result_t;     /* onecclResult_t */
typedef unsigned int accel_oneccl_dtype_t;      /* onecclDataType_t */
typedef unsigned int accel_oneccl_op_t;         /* onecclRedOp_t */
typedef struct onecclComm *accel_oneccl_comm_t; /* onecclComm_t */
/* The collectives' last parameter is a plain void *: for device buffers it
 * must point to a sycl::queue (C++); NULL is allowed for host buffers only,
 * which then run at once, blocking the caller. */
typedef void *accel_oneccl_stream_t;

#define ACCEL_ONECCL_UNIQUE_ID_BYTES 4096
/* onecclUniqueId: passed by value to onecclCommInitRank. */
typedef struct accel_oneccl_unique_id {
    char internal[ACCEL_ONECCL_UNIQUE_ID_BYTES];
} accel_oneccl_unique_id_t;

/* onecclResult_t (not NCCL's numbering past 5: InProgress is 6 here, 7 in NCCL) */
#define ACCEL_ONECCL_SUCCESS          0
#define ACCEL_ONECCL_ERROR            1
#define ACCEL_ONECCL_INVALID_ARGUMENT 4
#define ACCEL_ONECCL_INVALID_USAGE    5
#define ACCEL_ONECCL_IN_PROGRESS      6
#define ACCEL_ONECCL_NOT_IMPLEMENTED  12

/* onecclDataType_t (NCCL's numbering) */
#define ACCEL_ONECCL_INT8     0
#define ACCEL_ONECCL_UINT8    1
#define ACCEL_ONECCL_INT32    2
#define ACCEL_ONECCL_UINT32   3
#define ACCEL_ONECCL_INT64    4
#define ACCEL_ONECCL_UINT64   5
#define ACCEL_ONECCL_FLOAT16  6
#define ACCEL_ONECCL_FLOAT32  7
#define ACCEL_ONECCL_FLOAT64  8
#define ACCEL_ONECCL_BFLOAT16 9

/* onecclRedOp_t (NCCL's numbering) */
#define ACCEL_ONECCL_SUM  0
#define ACCEL_ONECCL_PROD 1
#define ACCEL_ONECCL_MAX  2
#define ACCEL_ONECCL_MIN  3
#define ACCEL_ONECCL_AVG  4

#endif /* ACCEL_COMM_ONECCL_TYPES_H */
