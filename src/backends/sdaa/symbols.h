/* symbols.h: the SDAA runtime functions the sdaa backend calls, one line
 * each, in the shape accel_backend_utils.h describes:
 *   ACCEL_SDAA_SYMBOL(required, return type, name, (parameters), export)
 * `name` is both the table field and the exported name (libsdaart exports
 * unversioned names as far as is known, so `export` is NULL everywhere).
 * Every prototype is read from the public early copy of sdaa_runtime.h;
 * none could be checked against a current Teco SDK (README.md). A
 * `required` false entry may be missing; the backend then does without
 * (said at its use). No include guard: include after defining
 * ACCEL_SDAA_SYMBOL. */

/* devices and versions */
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaGetDeviceCount, (int *count), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaSetDevice, (int device), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaDeviceSynchronize, (void), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaGetDeviceProperties,
                  (accel_sdaa_device_prop_t * props, int device), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaRuntimeGetVersion, (int *version), NULL)
ACCEL_SDAA_SYMBOL(false, accel_sdaa_error_t, sdaaDriverGetVersion, (int *version), NULL)
ACCEL_SDAA_SYMBOL(true, const char *, sdaaGetErrorName, (accel_sdaa_error_t error), NULL)
ACCEL_SDAA_SYMBOL(true, const char *, sdaaGetErrorString, (accel_sdaa_error_t error), NULL)

/* memory */
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaMalloc, (void **ptr, size_t size), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaFree, (void *ptr), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaMallocHost, (void **ptr, size_t size), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaFreeHost, (void *ptr), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaMemGetInfo, (size_t * free_bytes, size_t *total),
                  NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaMemcpyAsync,
                  (void *dst, const void *src, size_t size, accel_sdaa_memcpy_kind_t kind,
                   accel_sdaa_stream_t stream),
                  NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaMemsetAsync,
                  (void *dst, int value, size_t size, accel_sdaa_stream_t stream), NULL)

/* streams */
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaStreamCreateWithFlags,
                  (accel_sdaa_stream_t * stream, unsigned int flags), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaStreamDestroy, (accel_sdaa_stream_t stream), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaStreamSynchronize, (accel_sdaa_stream_t stream),
                  NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaStreamQuery, (accel_sdaa_stream_t stream), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaStreamWaitEvent,
                  (accel_sdaa_stream_t stream, accel_sdaa_event_t event, unsigned int flags), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaStreamAddCallback,
                  (accel_sdaa_stream_t stream, accel_sdaa_callback_t callback, void *user_data,
                   unsigned int flags),
                  NULL)

/* events */
/* sdaaEventCreate, not ...WithFlags: Tecorigin's own event wrapper
 * (PaddleCustomDevice backends/sdaa/runtime/sdaaEvent.h) waits for flag
 * support ("TODO(teco)") and calls sdaaEventCreate. */
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaEventCreate, (accel_sdaa_event_t * event), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaEventDestroy, (accel_sdaa_event_t event), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaEventRecord,
                  (accel_sdaa_event_t event, accel_sdaa_stream_t stream), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaEventQuery, (accel_sdaa_event_t event), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaEventSynchronize, (accel_sdaa_event_t event), NULL)
ACCEL_SDAA_SYMBOL(true, accel_sdaa_error_t, sdaaEventElapsedTime,
                  (float *ms, accel_sdaa_event_t start, accel_sdaa_event_t end), NULL)
