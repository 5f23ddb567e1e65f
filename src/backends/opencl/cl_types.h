/* cl_types.h: the few OpenCL types and constants the opencl backend uses,
 * declared here so accel builds without OpenCL headers and loads the ICD
 * loader at run time. header_check.c compares every item with <CL/cl.h>.
 * Handle types use Khronos' own struct tags so function pointer types match. */
#ifndef ACCEL_BACKENDS_OPENCL_CL_TYPES_H
#define ACCEL_BACKENDS_OPENCL_CL_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* ---- scalar types (cl_platform.h on Linux) */
typedef int32_t accel_cl_int;
typedef uint32_t accel_cl_uint;
typedef uint64_t accel_cl_ulong;
typedef accel_cl_uint accel_cl_bool;
typedef accel_cl_ulong accel_cl_bitfield;
typedef accel_cl_bitfield accel_cl_device_type;
typedef accel_cl_bitfield accel_cl_mem_flags;
typedef accel_cl_bitfield accel_cl_map_flags;
typedef accel_cl_bitfield accel_cl_command_queue_properties;
typedef accel_cl_ulong accel_cl_queue_properties;
typedef intptr_t accel_cl_context_properties;
typedef accel_cl_uint accel_cl_platform_info;
typedef accel_cl_uint accel_cl_device_info;
typedef accel_cl_uint accel_cl_program_info;
typedef accel_cl_uint accel_cl_program_build_info;
typedef accel_cl_uint accel_cl_event_info;
typedef accel_cl_uint accel_cl_profiling_info;

/* ---- opaque handles (same tags as Khronos' cl.h) */
typedef struct _cl_platform_id *accel_cl_platform_id;
typedef struct _cl_device_id *accel_cl_device_id;
typedef struct _cl_context *accel_cl_context;
typedef struct _cl_command_queue *accel_cl_command_queue;
typedef struct _cl_mem *accel_cl_mem;
typedef struct _cl_program *accel_cl_program;
typedef struct _cl_kernel *accel_cl_kernel;
typedef struct _cl_event *accel_cl_event;

/* ---- callbacks (CL_CALLBACK is empty on Linux) */
typedef void (*accel_cl_context_notify_fn)(const char *errinfo, const void *private_info, size_t cb,
                                           void *user_data);
typedef void (*accel_cl_build_notify_fn)(accel_cl_program program, void *user_data);
typedef void (*accel_cl_event_notify_fn)(accel_cl_event event, accel_cl_int status,
                                         void *user_data);

/* ---- status codes */
#define ACCEL_CL_SUCCESS                       0
#define ACCEL_CL_DEVICE_NOT_FOUND              (-1)
#define ACCEL_CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)
#define ACCEL_CL_OUT_OF_RESOURCES              (-5)
#define ACCEL_CL_OUT_OF_HOST_MEMORY            (-6)
#define ACCEL_CL_PROFILING_INFO_NOT_AVAILABLE  (-7)
#define ACCEL_CL_BUILD_PROGRAM_FAILURE         (-11)
#define ACCEL_CL_MAP_FAILURE                   (-12)
#define ACCEL_CL_INVALID_VALUE                 (-30)
#define ACCEL_CL_INVALID_BINARY                (-42)
#define ACCEL_CL_INVALID_BUFFER_SIZE           (-61)
#define ACCEL_CL_PLATFORM_NOT_FOUND_KHR        (-1001)

/* ---- booleans and device types */
#define ACCEL_CL_FALSE                   0u
#define ACCEL_CL_TRUE                    1u
#define ACCEL_CL_DEVICE_TYPE_CPU         ((accel_cl_device_type)1 << 1)
#define ACCEL_CL_DEVICE_TYPE_GPU         ((accel_cl_device_type)1 << 2)
#define ACCEL_CL_DEVICE_TYPE_ACCELERATOR ((accel_cl_device_type)1 << 3)
#define ACCEL_CL_DEVICE_TYPE_ALL         ((accel_cl_device_type)0xFFFFFFFF)

/* ---- platform and device info */
#define ACCEL_CL_PLATFORM_VERSION                 0x0901
#define ACCEL_CL_PLATFORM_NAME                    0x0902
#define ACCEL_CL_DEVICE_TYPE                      0x1000
#define ACCEL_CL_DEVICE_MAX_COMPUTE_UNITS         0x1002
#define ACCEL_CL_DEVICE_MAX_MEM_ALLOC_SIZE        0x1010
#define ACCEL_CL_DEVICE_SINGLE_FP_CONFIG          0x101B
#define ACCEL_CL_DEVICE_GLOBAL_MEM_SIZE           0x101F
#define ACCEL_CL_DEVICE_COMPILER_AVAILABLE        0x1028
#define ACCEL_CL_DEVICE_NAME                      0x102B
#define ACCEL_CL_DEVICE_VENDOR                    0x102C
#define ACCEL_CL_DRIVER_VERSION                   0x102D
#define ACCEL_CL_DEVICE_VERSION                   0x102F
#define ACCEL_CL_DEVICE_EXTENSIONS                0x1030
#define ACCEL_CL_DEVICE_DOUBLE_FP_CONFIG          0x1032
#define ACCEL_CL_DEVICE_HALF_FP_CONFIG            0x1033 /* cl_ext.h, cl_khr_fp16 */
#define ACCEL_CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT ((accel_cl_bitfield)1 << 7)

/* ---- contexts, queues, memory, programs, events */
#define ACCEL_CL_CONTEXT_PLATFORM               0x1084
#define ACCEL_CL_QUEUE_PROFILING_ENABLE         ((accel_cl_command_queue_properties)1 << 1)
#define ACCEL_CL_QUEUE_PROPERTIES               0x1093
#define ACCEL_CL_MEM_READ_WRITE                 ((accel_cl_mem_flags)1 << 0)
#define ACCEL_CL_MEM_USE_HOST_PTR               ((accel_cl_mem_flags)1 << 3)
#define ACCEL_CL_MEM_ALLOC_HOST_PTR             ((accel_cl_mem_flags)1 << 4)
#define ACCEL_CL_MAP_READ                       ((accel_cl_map_flags)1 << 0)
#define ACCEL_CL_MAP_WRITE                      ((accel_cl_map_flags)1 << 1)
#define ACCEL_CL_PROGRAM_BINARY_SIZES           0x1165
#define ACCEL_CL_PROGRAM_BINARIES               0x1166
#define ACCEL_CL_PROGRAM_BUILD_LOG              0x1183
#define ACCEL_CL_EVENT_COMMAND_EXECUTION_STATUS 0x11D3
#define ACCEL_CL_COMPLETE                       0x0
#define ACCEL_CL_PROFILING_COMMAND_END          0x1283

#endif /* ACCEL_BACKENDS_OPENCL_CL_TYPES_H */
