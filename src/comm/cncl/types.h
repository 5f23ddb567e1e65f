/* types.h: the cncl engine's own declarations of Cambricon CNCL's C types
 * and values (cncl.h 1.25 as vendor-apis.md records it), so that nothing
 * here needs Neuware to build. No public package ships cncl.h, so there is
 * no declarations test: every value here is from the spec's reading of the
 * real header, and the group calls are unconfirmed (README.md). */
#ifndef ACCEL_COMM_CNCL_TYPES_H
#define ACCEL_COMM_CNCL_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned int accel_cncl_result_t;      /* cnclResult_t */
typedef unsigned int accel_cncl_dtype_t;       /* cnclDataType_t */
typedef unsigned int accel_cncl_op_t;          /* cnclReduceOp_t */
typedef struct cnclComm *accel_cncl_comm_t;    /* cnclComm_t */
typedef struct CNqueue_st *accel_cncl_queue_t; /* cnrtQueue_t; NULL: the default queue */

#define ACCEL_CNCL_CLIQUE_ID_BYTES 128
/* struct cnclCliqueId; cnclCliqueId_t is a pointer to it. The caller owns
 * the storage: cnclGetCliqueId fills it, cnclInitComms reads it. */
typedef struct accel_cncl_clique_id {
    char data[ACCEL_CNCL_CLIQUE_ID_BYTES];
    uint64_t hash;
} accel_cncl_clique_id_t;

#define ACCEL_CNCL_SUCCESS 0

/* cnclDataType_t: grouped by kind, no float64 */
#define ACCEL_CNCL_FLOAT16  0x10
#define ACCEL_CNCL_BFLOAT16 0x11
#define ACCEL_CNCL_FLOAT32  0x12
#define ACCEL_CNCL_INT8     0x20
#define ACCEL_CNCL_INT32    0x22
#define ACCEL_CNCL_INT64    0x23
#define ACCEL_CNCL_UINT8    0x30

/* cnclReduceOp_t: no average */
#define ACCEL_CNCL_SUM  0
#define ACCEL_CNCL_PROD 1
#define ACCEL_CNCL_MAX  2
#define ACCEL_CNCL_MIN  3

#endif /* ACCEL_COMM_CNCL_TYPES_H */
