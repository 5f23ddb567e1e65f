/* types.h: the few CUDA driver, NVRTC and NVML types and constants the cuda
 * backend uses, declared here so the backend builds without any NVIDIA
 * header. declarations_check.c compares every one of them with the real
 * <cuda.h> / <nvrtc.h> when those are present at build time.
 * Names are prefixed (accel_cu_*, ACCEL_CU_*) so this file and <cuda.h> can be
 * included together. Handles use the same struct tags as the vendor headers,
 * so both spell the very same pointer types. */
#ifndef ACCEL_BACKENDS_CUDA_TYPES_H
#define ACCEL_BACKENDS_CUDA_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- driver API */

/* CUresult is an enum with no negative members: gcc and clang give it the
 * type unsigned int, which the declaration check confirms. */
typedef unsigned int accel_cu_result_t;
typedef int accel_cu_device_t;
typedef unsigned long long accel_cu_deviceptr_t; /* 64-bit hosts only */
typedef struct CUctx_st *accel_cu_context_t;
typedef struct CUstream_st *accel_cu_stream_t;
typedef struct CUevent_st *accel_cu_event_t;
typedef struct CUmod_st *accel_cu_module_t;
typedef struct CUfunc_st *accel_cu_function_t;
typedef struct CUgraph_st *accel_cu_graph_t;
typedef struct CUgraphExec_st *accel_cu_graph_exec_t;
typedef void (*accel_cu_host_fn_t)(void *user_data);
typedef unsigned int accel_cu_device_attribute_t; /* enum CUdevice_attribute */
typedef unsigned int accel_cu_capture_mode_t;     /* enum CUstreamCaptureMode */

/* CUuuid: 16 bytes. The tag is cuda.h's, so the struct is only defined here
 * when cuda.h has not defined it already (the declaration check includes both). */
#ifndef __cuda_cuda_h__
struct CUuuid_st {
    char bytes[16];
};
#endif
typedef struct CUuuid_st accel_cu_uuid_t;

/* CUresult values the backend tests for. */
#define ACCEL_CUDA_SUCCESS                          0
#define ACCEL_CUDA_ERROR_OUT_OF_MEMORY              2
#define ACCEL_CUDA_ERROR_NOT_INITIALIZED            3
#define ACCEL_CUDA_ERROR_STUB_LIBRARY               34
#define ACCEL_CUDA_ERROR_NO_DEVICE                  100
#define ACCEL_CUDA_ERROR_NOT_READY                  600
#define ACCEL_CUDA_ERROR_NOT_SUPPORTED              801
#define ACCEL_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED 900

/* CUdevice_attribute values. */
#define ACCEL_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT     16
#define ACCEL_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING       41
#define ACCEL_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define ACCEL_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

/* Flags. */
#define ACCEL_CU_STREAM_NON_BLOCKING         1
#define ACCEL_CU_EVENT_DEFAULT               0
#define ACCEL_CU_EVENT_DISABLE_TIMING        2
#define ACCEL_CU_MEMHOSTALLOC_PORTABLE       1
#define ACCEL_CU_MEMHOSTREGISTER_PORTABLE    1
#define ACCEL_CU_STREAM_CAPTURE_MODE_RELAXED 2

/* ---------------------------------------------------------------- NVRTC */

typedef unsigned int accel_nvrtc_result_t; /* enum nvrtcResult */
typedef struct _nvrtcProgram *accel_nvrtc_program_t;
#define ACCEL_NVRTC_SUCCESS 0

/* ---------------------------------------------------------------- NVML */

/* These follow nvml.h (nvmlReturn_t is an enum with no negative members,
 * nvmlDevice_t a struct pointer, nvmlMemory_t the v1 struct of three
 * unsigned long long, defined here unless nvml.h came first). */
typedef unsigned int accel_nvml_return_t;
typedef struct nvmlDevice_st *accel_nvml_device_t;
#ifndef NVML_API_VERSION
struct nvmlMemory_st {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
#endif
typedef struct nvmlMemory_st accel_nvml_memory_t;
#define ACCEL_NVML_SUCCESS 0

#endif /* ACCEL_BACKENDS_CUDA_TYPES_H */
