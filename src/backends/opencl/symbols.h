/* symbols.h: the OpenCL functions the opencl backend calls, one line each,
 * as an X-macro in the shape of accel/accel_backend_utils.h:
 *   ACCEL_CL_SYMBOL(required, return type, name, (parameters), export)
 * (`export`: a versioned name to try first, or NULL).
 * loader.c expands it into the function table it fills with dlsym;
 * header_check.c expands it against <CL/cl.h>. `required` false marks a call
 * a 1.2 loader may lack (used only after a version check). No include guard:
 * include it after defining ACCEL_CL_SYMBOL. */
/* An X-macro list read as data, one vendor call per entry: not reformatted. */
/* clang-format off */

/* platforms and devices */
ACCEL_CL_SYMBOL(true, accel_cl_int, clGetPlatformIDs,
                (accel_cl_uint num_entries, accel_cl_platform_id *platforms,
                 accel_cl_uint *num_platforms), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clGetPlatformInfo,
                (accel_cl_platform_id platform, accel_cl_platform_info param, size_t size,
                 void *value, size_t *size_ret), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clGetDeviceIDs,
                (accel_cl_platform_id platform, accel_cl_device_type type,
                 accel_cl_uint num_entries, accel_cl_device_id *devices,
                 accel_cl_uint *num_devices), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clGetDeviceInfo,
                (accel_cl_device_id device, accel_cl_device_info param, size_t size, void *value,
                 size_t *size_ret), NULL)

/* contexts and queues */
ACCEL_CL_SYMBOL(true, accel_cl_context, clCreateContext,
                (const accel_cl_context_properties *properties, accel_cl_uint num_devices,
                 const accel_cl_device_id *devices, accel_cl_context_notify_fn notify,
                 void *user_data, accel_cl_int *errcode_ret), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clReleaseContext, (accel_cl_context context), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_command_queue, clCreateCommandQueue,
                (accel_cl_context context, accel_cl_device_id device,
                 accel_cl_command_queue_properties properties, accel_cl_int *errcode_ret), NULL)
ACCEL_CL_SYMBOL(false, accel_cl_command_queue, clCreateCommandQueueWithProperties,
                (accel_cl_context context, accel_cl_device_id device,
                 const accel_cl_queue_properties *properties, accel_cl_int *errcode_ret), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clRetainCommandQueue, (accel_cl_command_queue queue), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clReleaseCommandQueue, (accel_cl_command_queue queue), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clFlush, (accel_cl_command_queue queue), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clFinish, (accel_cl_command_queue queue), NULL)

/* buffers */
ACCEL_CL_SYMBOL(true, accel_cl_mem, clCreateBuffer,
                (accel_cl_context context, accel_cl_mem_flags flags, size_t size, void *host_ptr,
                 accel_cl_int *errcode_ret), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clReleaseMemObject, (accel_cl_mem mem), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clEnqueueReadBuffer,
                (accel_cl_command_queue queue, accel_cl_mem buffer, accel_cl_bool blocking,
                 size_t offset, size_t size, void *ptr, accel_cl_uint num_events,
                 const accel_cl_event *wait_list, accel_cl_event *event), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clEnqueueWriteBuffer,
                (accel_cl_command_queue queue, accel_cl_mem buffer, accel_cl_bool blocking,
                 size_t offset, size_t size, const void *ptr, accel_cl_uint num_events,
                 const accel_cl_event *wait_list, accel_cl_event *event), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clEnqueueCopyBuffer,
                (accel_cl_command_queue queue, accel_cl_mem src, accel_cl_mem dst,
                 size_t src_offset, size_t dst_offset, size_t size, accel_cl_uint num_events,
                 const accel_cl_event *wait_list, accel_cl_event *event), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clEnqueueFillBuffer,
                (accel_cl_command_queue queue, accel_cl_mem buffer, const void *pattern,
                 size_t pattern_size, size_t offset, size_t size, accel_cl_uint num_events,
                 const accel_cl_event *wait_list, accel_cl_event *event), NULL)
ACCEL_CL_SYMBOL(true, void *, clEnqueueMapBuffer,
                (accel_cl_command_queue queue, accel_cl_mem buffer, accel_cl_bool blocking,
                 accel_cl_map_flags flags, size_t offset, size_t size, accel_cl_uint num_events,
                 const accel_cl_event *wait_list, accel_cl_event *event,
                 accel_cl_int *errcode_ret), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clEnqueueUnmapMemObject,
                (accel_cl_command_queue queue, accel_cl_mem mem, void *mapped,
                 accel_cl_uint num_events, const accel_cl_event *wait_list,
                 accel_cl_event *event), NULL)

/* programs and kernels */
ACCEL_CL_SYMBOL(true, accel_cl_program, clCreateProgramWithSource,
                (accel_cl_context context, accel_cl_uint count, const char **strings,
                 const size_t *lengths, accel_cl_int *errcode_ret), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_program, clCreateProgramWithBinary,
                (accel_cl_context context, accel_cl_uint num_devices,
                 const accel_cl_device_id *devices, const size_t *lengths,
                 const unsigned char **binaries, accel_cl_int *binary_status,
                 accel_cl_int *errcode_ret), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clBuildProgram,
                (accel_cl_program program, accel_cl_uint num_devices,
                 const accel_cl_device_id *devices, const char *options,
                 accel_cl_build_notify_fn notify, void *user_data), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clGetProgramInfo,
                (accel_cl_program program, accel_cl_program_info param, size_t size, void *value,
                 size_t *size_ret), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clGetProgramBuildInfo,
                (accel_cl_program program, accel_cl_device_id device,
                 accel_cl_program_build_info param, size_t size, void *value, size_t *size_ret),
                NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clReleaseProgram, (accel_cl_program program), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_kernel, clCreateKernel,
                (accel_cl_program program, const char *name, accel_cl_int *errcode_ret), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clReleaseKernel, (accel_cl_kernel kernel), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clSetKernelArg,
                (accel_cl_kernel kernel, accel_cl_uint index, size_t size, const void *value), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clEnqueueNDRangeKernel,
                (accel_cl_command_queue queue, accel_cl_kernel kernel, accel_cl_uint work_dim,
                 const size_t *global_offset, const size_t *global_size,
                 const size_t *local_size, accel_cl_uint num_events,
                 const accel_cl_event *wait_list, accel_cl_event *event), NULL)

/* markers, barriers and events */
ACCEL_CL_SYMBOL(true, accel_cl_int, clEnqueueMarkerWithWaitList,
                (accel_cl_command_queue queue, accel_cl_uint num_events,
                 const accel_cl_event *wait_list, accel_cl_event *event), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clEnqueueBarrierWithWaitList,
                (accel_cl_command_queue queue, accel_cl_uint num_events,
                 const accel_cl_event *wait_list, accel_cl_event *event), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clWaitForEvents,
                (accel_cl_uint num_events, const accel_cl_event *events), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clGetEventInfo,
                (accel_cl_event event, accel_cl_event_info param, size_t size, void *value,
                 size_t *size_ret), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clGetEventProfilingInfo,
                (accel_cl_event event, accel_cl_profiling_info param, size_t size, void *value,
                 size_t *size_ret), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clRetainEvent, (accel_cl_event event), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clReleaseEvent, (accel_cl_event event), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clSetEventCallback,
                (accel_cl_event event, accel_cl_int callback_type,
                 accel_cl_event_notify_fn notify, void *user_data), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_event, clCreateUserEvent,
                (accel_cl_context context, accel_cl_int *errcode_ret), NULL)
ACCEL_CL_SYMBOL(true, accel_cl_int, clSetUserEventStatus,
                (accel_cl_event event, accel_cl_int status), NULL)
/* clang-format on */
