/* types.h: the few SDAA runtime (sdaa_runtime.h) types and constants the
 * sdaa backend uses, declared here so the backend builds without the Teco
 * SDK. Source: the only public copy of sdaa_runtime.h (an early SDK, kept
 * in a third-party TVM fork); the SDK itself is not published, so no test
 * can compile these against a vendor-distributed header (README.md).
 * Names are prefixed (accel_sdaa_*, ACCEL_SDAA_*) so this file and the real
 * header can be included together. The runtime is a close clone of the
 * HIP/CUDA runtime API: handles are opaque pointers, enums are int-sized. */
#ifndef ACCEL_BACKENDS_SDAA_TYPES_H
#define ACCEL_BACKENDS_SDAA_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef int accel_sdaa_error_t;    /* sdaaError_t (an enum, sdaaSuccess = 0) */
typedef void *accel_sdaa_stream_t; /* sdaaStream_t (struct isdaaStream_t *); NULL = default */
typedef void *accel_sdaa_event_t;  /* sdaaEvent_t (struct isdaaEvent_t *) */
typedef unsigned int accel_sdaa_memcpy_kind_t; /* sdaaMemcpyKind */
/* sdaaStreamCallback_t: runs on a runtime thread once the stream reaches it. */
typedef void (*accel_sdaa_callback_t)(accel_sdaa_stream_t stream, accel_sdaa_error_t status,
                                      void *user_data);

/* sdaaDeviceProp_t as the early header lays it out. Newer SDKs may have
 * grown it [unconfirmed], so the backend passes sdaaGetDeviceProperties an
 * oversized buffer (accel_sdaa_device_prop_buffer_t) and reads only these
 * leading fields. */
typedef struct accel_sdaa_device_prop {
    char name[256];
    size_t total_global_mem;
    int chipset_id;
    int pci_device_id;
    int pci_vendor;
    int pci_bus_id;
    int clock_rate; /* kHz */
} accel_sdaa_device_prop_t;

typedef union accel_sdaa_device_prop_buffer {
    accel_sdaa_device_prop_t prop;
    unsigned char room[4096];
    max_align_t align;
} accel_sdaa_device_prop_buffer_t;

/* sdaaError_t values the backend tests for (the numbering mirrors HIP's). */
#define ACCEL_SDAA_SUCCESS               0
#define ACCEL_SDAA_ERROR_INVALID_VALUE   1
#define ACCEL_SDAA_ERROR_OUT_OF_MEMORY   2
#define ACCEL_SDAA_ERROR_NOT_INITIALIZED 3
#define ACCEL_SDAA_ERROR_NO_DEVICE       100
#define ACCEL_SDAA_ERROR_INVALID_DEVICE  101
#define ACCEL_SDAA_ERROR_INVALID_HANDLE  400
#define ACCEL_SDAA_ERROR_NOT_READY       600
#define ACCEL_SDAA_ERROR_NOT_SUPPORTED   801
#define ACCEL_SDAA_ERROR_UNKNOWN         999

/* sdaaMemcpyKind */
#define ACCEL_SDAA_MEMCPY_HOST_TO_HOST     0u
#define ACCEL_SDAA_MEMCPY_HOST_TO_DEVICE   1u
#define ACCEL_SDAA_MEMCPY_DEVICE_TO_HOST   2u
#define ACCEL_SDAA_MEMCPY_DEVICE_TO_DEVICE 3u
/* sdaaStreamCreateWithFlags */
#define ACCEL_SDAA_STREAM_NON_BLOCKING 0x1u

#endif /* ACCEL_BACKENDS_SDAA_TYPES_H */
