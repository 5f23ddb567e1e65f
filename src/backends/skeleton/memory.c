/* memory.c: the skeleton device's memory and pinned host memory:
 * allocations from its runtime, copies and fills that finish before they
 * return (so `stream` needs no ordering: nothing on it is ever pending but
 * host callbacks, stream.c). Core has checked every range against its
 * allocator before a slot runs. Thread-safe. */
#include "backends/skeleton/skeleton_backend.h"

accel_status_t accel_skeleton_mem_alloc(void *self, int device, size_t size, void **out)
{
    accel_skeleton_backend_t *skeleton = self;
    size_t rounded =
        (size + ACCEL_SKELETON_ALIGNMENT - 1) / ACCEL_SKELETON_ALIGNMENT * ACCEL_SKELETON_ALIGNMENT;
    void *ptr;
    (void)device;
    if (rounded < size)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "skeleton: %zu bytes cannot be rounded to the device's %u-byte "
                                   "alignment",
                                   size, ACCEL_SKELETON_ALIGNMENT);
    ptr = skeleton->api->aligned_alloc(ACCEL_SKELETON_ALIGNMENT, rounded);
    if (ptr == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "skeleton: aligned_alloc of %zu bytes failed", size);
    *out = ptr;
    return ACCEL_OK;
}

void accel_skeleton_mem_free(void *self, int device, void *ptr)
{
    accel_skeleton_backend_t *skeleton = self;
    (void)device;
    skeleton->api->free(ptr);
}

/* Pinned host memory: page-aligned runtime memory (a vendor runtime pins
 * it for fast copies here). */
accel_status_t accel_skeleton_host_alloc(void *self, size_t size, void **out)
{
    accel_skeleton_backend_t *skeleton = self;
    size_t rounded = (size + ACCEL_SKELETON_PAGE - 1) / ACCEL_SKELETON_PAGE * ACCEL_SKELETON_PAGE;
    void *ptr = rounded >= size ? skeleton->api->aligned_alloc(ACCEL_SKELETON_PAGE, rounded) : NULL;
    if (ptr == NULL)
        return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                                   "skeleton: cannot allocate %zu bytes of pinned host memory",
                                   size);
    *out = ptr;
    return ACCEL_OK;
}

void accel_skeleton_host_free(void *self, void *ptr, size_t size)
{
    accel_skeleton_backend_t *skeleton = self;
    (void)size;
    skeleton->api->free(ptr);
}

/* Device memory is host memory, so every kind is one memcpy. */
accel_status_t accel_skeleton_memcpy_async(void *self, int device, void *dst, const void *src,
                                           size_t size, accel_copy_kind_t kind, void *stream)
{
    accel_skeleton_backend_t *skeleton = self;
    (void)device;
    (void)kind;
    (void)stream;
    if (size > 0)
        skeleton->api->memcpy(dst, src, size);
    return ACCEL_OK;
}

accel_status_t accel_skeleton_memset_async(void *self, int device, void *dst, int value,
                                           size_t size, void *stream)
{
    accel_skeleton_backend_t *skeleton = self;
    (void)device;
    (void)stream;
    if (size > 0)
        skeleton->api->memset(dst, value, size);
    return ACCEL_OK;
}
