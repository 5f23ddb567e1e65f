/* header_check.c: a compile-only check that cl_types.h and symbols.h agree
 * with Khronos' <CL/cl.h>. Built (never linked) when the real header is found;
 * any mismatched constant, scalar size or function signature fails the build
 * (-Werror=incompatible-pointer-types on the function table below). */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "backends/opencl/cl_types.h"

#define SAME_TYPE(ours, theirs)                                                                    \
    _Static_assert(sizeof(ours) == sizeof(theirs) && _Generic((theirs)0, ours : 1, default : 0),   \
                   #ours " differs from " #theirs)
#define SAME_VALUE(ours, theirs) _Static_assert((ours) == (theirs), #ours " != " #theirs)

SAME_TYPE(accel_cl_int, cl_int);
SAME_TYPE(accel_cl_uint, cl_uint);
SAME_TYPE(accel_cl_ulong, cl_ulong);
SAME_TYPE(accel_cl_bool, cl_bool);
SAME_TYPE(accel_cl_device_type, cl_device_type);
SAME_TYPE(accel_cl_mem_flags, cl_mem_flags);
SAME_TYPE(accel_cl_map_flags, cl_map_flags);
SAME_TYPE(accel_cl_command_queue_properties, cl_command_queue_properties);
SAME_TYPE(accel_cl_queue_properties, cl_queue_properties);
SAME_TYPE(accel_cl_context_properties, cl_context_properties);
SAME_TYPE(accel_cl_platform_info, cl_platform_info);
SAME_TYPE(accel_cl_device_info, cl_device_info);
SAME_TYPE(accel_cl_program_info, cl_program_info);
SAME_TYPE(accel_cl_program_build_info, cl_program_build_info);
SAME_TYPE(accel_cl_event_info, cl_event_info);
SAME_TYPE(accel_cl_profiling_info, cl_profiling_info);
SAME_TYPE(accel_cl_platform_id, cl_platform_id);
SAME_TYPE(accel_cl_device_id, cl_device_id);
SAME_TYPE(accel_cl_context, cl_context);
SAME_TYPE(accel_cl_command_queue, cl_command_queue);
SAME_TYPE(accel_cl_mem, cl_mem);
SAME_TYPE(accel_cl_program, cl_program);
SAME_TYPE(accel_cl_kernel, cl_kernel);
SAME_TYPE(accel_cl_event, cl_event);

SAME_VALUE(ACCEL_CL_SUCCESS, CL_SUCCESS);
SAME_VALUE(ACCEL_CL_DEVICE_NOT_FOUND, CL_DEVICE_NOT_FOUND);
SAME_VALUE(ACCEL_CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_MEM_OBJECT_ALLOCATION_FAILURE);
SAME_VALUE(ACCEL_CL_OUT_OF_RESOURCES, CL_OUT_OF_RESOURCES);
SAME_VALUE(ACCEL_CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_HOST_MEMORY);
SAME_VALUE(ACCEL_CL_PROFILING_INFO_NOT_AVAILABLE, CL_PROFILING_INFO_NOT_AVAILABLE);
SAME_VALUE(ACCEL_CL_BUILD_PROGRAM_FAILURE, CL_BUILD_PROGRAM_FAILURE);
SAME_VALUE(ACCEL_CL_MAP_FAILURE, CL_MAP_FAILURE);
SAME_VALUE(ACCEL_CL_INVALID_VALUE, CL_INVALID_VALUE);
SAME_VALUE(ACCEL_CL_INVALID_BINARY, CL_INVALID_BINARY);
SAME_VALUE(ACCEL_CL_INVALID_BUFFER_SIZE, CL_INVALID_BUFFER_SIZE);
SAME_VALUE(ACCEL_CL_PLATFORM_NOT_FOUND_KHR, CL_PLATFORM_NOT_FOUND_KHR);
SAME_VALUE(ACCEL_CL_FALSE, CL_FALSE);
SAME_VALUE(ACCEL_CL_TRUE, CL_TRUE);
SAME_VALUE(ACCEL_CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_CPU);
SAME_VALUE(ACCEL_CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_GPU);
SAME_VALUE(ACCEL_CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ACCELERATOR);
SAME_VALUE(ACCEL_CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_ALL);
SAME_VALUE(ACCEL_CL_PLATFORM_VERSION, CL_PLATFORM_VERSION);
SAME_VALUE(ACCEL_CL_PLATFORM_NAME, CL_PLATFORM_NAME);
SAME_VALUE(ACCEL_CL_DEVICE_TYPE, CL_DEVICE_TYPE);
SAME_VALUE(ACCEL_CL_DEVICE_MAX_COMPUTE_UNITS, CL_DEVICE_MAX_COMPUTE_UNITS);
SAME_VALUE(ACCEL_CL_DEVICE_MAX_MEM_ALLOC_SIZE, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
SAME_VALUE(ACCEL_CL_DEVICE_GLOBAL_MEM_SIZE, CL_DEVICE_GLOBAL_MEM_SIZE);
SAME_VALUE(ACCEL_CL_DEVICE_SINGLE_FP_CONFIG, CL_DEVICE_SINGLE_FP_CONFIG);
SAME_VALUE(ACCEL_CL_DEVICE_COMPILER_AVAILABLE, CL_DEVICE_COMPILER_AVAILABLE);
SAME_VALUE(ACCEL_CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT, CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT);
SAME_VALUE(ACCEL_CL_DEVICE_NAME, CL_DEVICE_NAME);
SAME_VALUE(ACCEL_CL_DEVICE_VENDOR, CL_DEVICE_VENDOR);
SAME_VALUE(ACCEL_CL_DRIVER_VERSION, CL_DRIVER_VERSION);
SAME_VALUE(ACCEL_CL_DEVICE_VERSION, CL_DEVICE_VERSION);
SAME_VALUE(ACCEL_CL_DEVICE_EXTENSIONS, CL_DEVICE_EXTENSIONS);
SAME_VALUE(ACCEL_CL_DEVICE_DOUBLE_FP_CONFIG, CL_DEVICE_DOUBLE_FP_CONFIG);
SAME_VALUE(ACCEL_CL_DEVICE_HALF_FP_CONFIG, CL_DEVICE_HALF_FP_CONFIG);
SAME_VALUE(ACCEL_CL_CONTEXT_PLATFORM, CL_CONTEXT_PLATFORM);
SAME_VALUE(ACCEL_CL_QUEUE_PROFILING_ENABLE, CL_QUEUE_PROFILING_ENABLE);
SAME_VALUE(ACCEL_CL_QUEUE_PROPERTIES, CL_QUEUE_PROPERTIES);
SAME_VALUE(ACCEL_CL_MEM_READ_WRITE, CL_MEM_READ_WRITE);
SAME_VALUE(ACCEL_CL_MEM_USE_HOST_PTR, CL_MEM_USE_HOST_PTR);
SAME_VALUE(ACCEL_CL_MEM_ALLOC_HOST_PTR, CL_MEM_ALLOC_HOST_PTR);
SAME_VALUE(ACCEL_CL_MAP_READ, CL_MAP_READ);
SAME_VALUE(ACCEL_CL_MAP_WRITE, CL_MAP_WRITE);
SAME_VALUE(ACCEL_CL_PROGRAM_BINARY_SIZES, CL_PROGRAM_BINARY_SIZES);
SAME_VALUE(ACCEL_CL_PROGRAM_BINARIES, CL_PROGRAM_BINARIES);
SAME_VALUE(ACCEL_CL_PROGRAM_BUILD_LOG, CL_PROGRAM_BUILD_LOG);
SAME_VALUE(ACCEL_CL_EVENT_COMMAND_EXECUTION_STATUS, CL_EVENT_COMMAND_EXECUTION_STATUS);
SAME_VALUE(ACCEL_CL_COMPLETE, CL_COMPLETE);
SAME_VALUE(ACCEL_CL_PROFILING_COMMAND_END, CL_PROFILING_COMMAND_END);

/* Every real function must convert to a pointer of our declared type without
 * a cast: a differing return or parameter type is an incompatible pointer. */
struct accel_cl_header_check {
#define ACCEL_CL_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/opencl/symbols.h"
#undef ACCEL_CL_SYMBOL
};

extern const struct accel_cl_header_check accel_cl_header_check_table;
const struct accel_cl_header_check accel_cl_header_check_table = {
#define ACCEL_CL_SYMBOL(required, ret, name, params, export) .name = name,
#include "backends/opencl/symbols.h"
#undef ACCEL_CL_SYMBOL
};
