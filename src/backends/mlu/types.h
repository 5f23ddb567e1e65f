/* types.h: the few CNRT (Cambricon runtime) types and constants the mlu
 * backend uses, declared here so that the backend builds without Neuware.
 * declarations_check.c compares them with the real cnrt.h when the test
 * mlu.declarations finds one (tests/sim/mlu_declarations.sh).
 * Names are prefixed (accel_cnrt_*, ACCEL_CNRT_*) so this file and cnrt.h
 * can be included together. CNRT's handles are pointers to opaque structs,
 * its enums 32-bit ints and cnrtRet_t an enum. */
#ifndef ACCEL_BACKENDS_MLU_TYPES_H
#define ACCEL_BACKENDS_MLU_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Enums as the int-sized values cnrt.h gives them: gcc and clang give an
 * enum with no negative member the type unsigned int. */
typedef unsigned int accel_cnrt_ret_t;          /* cnrtRet_t */
typedef unsigned int accel_cnrt_mem_dir_t;      /* cnrtMemTransDir_t */
typedef unsigned int accel_cnrt_device_attr_t;  /* cnrtDeviceAttr_t */
typedef unsigned int accel_cnrt_capture_mode_t; /* enum cnrtQueueCaptureMode */

/* Handles. cnrt.h spells them as pointers to its own structs; any object
 * pointer has the same representation, and the declaration check maps these
 * names onto the real ones (ACCEL_MLU_REAL_CNRT) before comparing. */
#ifndef ACCEL_MLU_REAL_CNRT
typedef struct accel_cnrt_queue *accel_cnrt_queue_t;             /* cnrtQueue_t; NULL = default */
typedef struct accel_cnrt_notifier *accel_cnrt_notifier_t;       /* cnrtNotifier_t */
typedef struct accel_cnrt_task_topo *accel_cnrt_task_topo_t;     /* cnrtTaskTopo_t */
typedef struct accel_cnrt_topo_entity *accel_cnrt_topo_entity_t; /* cnrtTaskTopoEntity_t */
typedef struct accel_cnrt_topo_node *accel_cnrt_topo_node_t;     /* cnrtTaskTopoNode_t */
typedef struct accel_cnrt_device_prop accel_cnrt_device_prop_t;  /* cnrtDeviceProp_t (opaque) */
#endif
typedef void (*accel_cnrt_host_fn_t)(void *user_data); /* cnrtHostFn_t */

/* cnrtDeviceProp_t starts with `char name[256]` in CNRT 6.0.2; later
 * releases append fields, so the backend passes a zeroed buffer this large. */
#define ACCEL_CNRT_DEVICE_PROP_BUFFER 4096
#define ACCEL_CNRT_DEVICE_NAME_SIZE   256

/* cnrtRet_t values the backend tests for */
#define ACCEL_CNRT_SUCCESS                   0
#define ACCEL_CNRT_ERROR_NOT_READY           1
#define ACCEL_CNRT_ERROR_INIT                100002
#define ACCEL_CNRT_ERROR_NO_DEVICE           100004
#define ACCEL_CNRT_ERROR_DEVICE_INVALID      100005
#define ACCEL_CNRT_ERROR_ARGS_INVALID        100006
#define ACCEL_CNRT_ERROR_SYS_NO_MEM          100010
#define ACCEL_CNRT_ERROR_NOT_SUPPORT         100050
#define ACCEL_CNRT_ERROR_NO_MEM              100100
#define ACCEL_CNRT_ERROR_CAPTURE_UNSUPPORTED 100360
#define ACCEL_CNRT_ERROR_BUSY                632014 /* deprecated, still "not finished" */

/* cnrtMemTransDir_t */
#define ACCEL_CNRT_MEMCPY_HOST_TO_DEV  0
#define ACCEL_CNRT_MEMCPY_DEV_TO_DEV   1
#define ACCEL_CNRT_MEMCPY_DEV_TO_HOST  2
#define ACCEL_CNRT_MEMCPY_HOST_TO_HOST 3

/* cnrtDeviceAttr_t */
#define ACCEL_CNRT_ATTR_COMPUTE_MAJOR     0x01
#define ACCEL_CNRT_ATTR_COMPUTE_MINOR     0x02
#define ACCEL_CNRT_ATTR_BF16_SUPPORTED    0x07
#define ACCEL_CNRT_ATTR_CLUSTER_COUNT     0x205
#define ACCEL_CNRT_ATTR_MCORE_PER_CLUSTER 0x206
#define ACCEL_CNRT_ATTR_TOTAL_MEM_SIZE    0x405 /* MB */

/* cnrtNotifierCreateWithFlags flags (enum cnrtNotifierFlags) */
#define ACCEL_CNRT_NOTIFIER_DEFAULT            0x0u
#define ACCEL_CNRT_NOTIFIER_DISABLE_TIMING_ALL 0x4u

/* enum cnrtQueueCaptureMode */
#define ACCEL_CNRT_CAPTURE_MODE_RELAXED 2

#endif /* ACCEL_BACKENDS_MLU_TYPES_H */
