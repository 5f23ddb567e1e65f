/* memory.c: the CPU backend's memory: raw device blocks (page-aligned host
 * memory under core's caching allocator), stream-ordered copies and fills,
 * and pinned (mlock'ed) host memory.
 * Every slot is thread-safe: they only call the C library and the kernel.
 * Device memory and host memory are the same address space here, so every
 * copy kind is a plain memmove run in stream order. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/memory.h"
#include "backends/cpu/work.h"

/* Pages of mincore() results looked at per call when checking a range. */
#define MINCORE_CHUNK_PAGES 4096

static accel_status_t memory_out_of(size_t size, const char *what, int err)
{
    return accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY,
                               "cpu: could not allocate %zu bytes of %s: %s", size, what,
                               strerror(err));
}

/* Page-aligned so blocks behave like device allocations (and can be pinned
 * without touching a neighbour's pages). */
accel_status_t accel_cpu_mem_alloc(void *self, int device, size_t size, void **out)
{
    accel_cpu_backend_t *cpu = self;
    void *ptr = NULL;
    int err = posix_memalign(&ptr, (size_t)cpu->page_size, size);
    if (err != 0)
        return memory_out_of(size, "device memory", err);
    *out = ptr;
    return ACCEL_OK;
}

void accel_cpu_mem_free(void *self, int device, void *ptr)
{
    free(ptr);
}

accel_status_t accel_cpu_memcpy_async(void *self, int device, void *dst, const void *src,
                                      size_t size, accel_copy_kind_t kind, void *stream)
{
    accel_cpu_work_t work = {.kind = ACCEL_CPU_WORK_COPY};
    if (size == 0)
        return ACCEL_OK;
    work.u.copy.dst = dst;
    work.u.copy.src = src;
    work.u.copy.size = size;
    return accel_cpu_stream_submit(stream, &work, 1);
}

accel_status_t accel_cpu_memset_async(void *self, int device, void *dst, int value, size_t size,
                                      void *stream)
{
    accel_cpu_work_t work = {.kind = ACCEL_CPU_WORK_SET};
    if (size == 0)
        return ACCEL_OK;
    work.u.set.dst = dst;
    work.u.set.value = value;
    work.u.set.size = size;
    return accel_cpu_stream_submit(stream, &work, 1);
}

/* ---------------------------------------------------------------- pinned host memory */

/* The whole pages covering [ptr, ptr + size). */
static void page_range(const accel_cpu_backend_t *cpu, const void *ptr, size_t size,
                       void **out_base, size_t *out_len)
{
    uintptr_t page = (uintptr_t)cpu->page_size;
    uintptr_t start = (uintptr_t)ptr & ~(page - 1);
    uintptr_t end = ((uintptr_t)ptr + size + page - 1) & ~(page - 1);
    *out_base = (void *)start;
    *out_len = (size_t)(end - start);
}

/* True when every page of the range is mapped (mincore fails with ENOMEM
 * on a hole). Used to tell "not mapped" from "over RLIMIT_MEMLOCK", since
 * mlock reports both as ENOMEM. */
static bool pages_mapped(const accel_cpu_backend_t *cpu, void *base, size_t len)
{
    unsigned char vec[MINCORE_CHUNK_PAGES];
    size_t chunk = (size_t)MINCORE_CHUNK_PAGES * (size_t)cpu->page_size;
    for (size_t done = 0; done < len; done += chunk) {
        size_t n = len - done < chunk ? len - done : chunk;
        if (mincore((char *)base + done, n, vec) != 0 && errno == ENOMEM)
            return false;
    }
    return true;
}

/* mlock, treating "not allowed" (EPERM, or ENOMEM/EAGAIN from the memlock
 * limit) as success: the memory is still pinned in accel's registry terms,
 * only the kernel will not guarantee residency. Returns the errno that the
 * caller must report, or 0. */
static int lock_pages(const accel_cpu_backend_t *cpu, void *base, size_t len)
{
    int err;
    if (mlock(base, len) == 0)
        return 0;
    err = errno;
    if (err == ENOMEM && !pages_mapped(cpu, base, len))
        return EFAULT;
    if (err == EPERM || err == ENOMEM || err == EAGAIN) {
        accel_log(ACCEL_LOG_DEBUG,
                  "cpu: mlock of %zu bytes refused (%s); the range stays pageable but is "
                  "treated as pinned",
                  len, strerror(err));
        return 0;
    }
    return err;
}

accel_status_t accel_cpu_host_alloc(void *self, size_t size, void **out)
{
    accel_cpu_backend_t *cpu = self;
    void *ptr = NULL, *base;
    size_t len;
    int err;

    if (size == 0)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: pinned host allocation of 0 bytes");
    /* Huge pages where the kernel allows (fewer pages to lock and to pin per
     * O_DIRECT transfer): accel_backend_utils.h, host pages. */
    err = accel_host_pages_alloc(size, (size_t)cpu->page_size, &ptr);
    if (err != 0)
        return memory_out_of(size, "pinned host memory", err);
    page_range(cpu, ptr, size, &base, &len);
    err = lock_pages(cpu, base, len);
    if (err != 0) {
        accel_host_pages_free(ptr, size);
        return accel_backend_vendor_error(
            err, "cpu: mlock of %zu bytes of new host memory failed: %s", len, strerror(err));
    }
    *out = ptr;
    return ACCEL_OK;
}

void accel_cpu_host_free(void *self, void *ptr, size_t size)
{
    void *base;
    size_t len;
    if (ptr == NULL)
        return;
    page_range(self, ptr, size, &base, &len);
    munlock(base, len);
    accel_host_pages_free(ptr, size);
}

/* Locks never nest in the kernel: unregistering a range unlocks its whole
 * pages, including any page it shares with another pinned range. */
accel_status_t accel_cpu_host_register(void *self, void *ptr, size_t size)
{
    void *base;
    size_t len;
    int err;
    if (ptr == NULL || size == 0)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: cannot pin an empty host range (ptr %p, %zu bytes)", ptr,
                                   size);
    if (size > UINTPTR_MAX - (uintptr_t)ptr - (uintptr_t)((accel_cpu_backend_t *)self)->page_size)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: host range %p + %zu bytes wraps around the address space",
                                   ptr, size);
    page_range(self, ptr, size, &base, &len);
    err = lock_pages(self, base, len);
    if (err == EFAULT)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "cpu: cannot pin host range %p + %zu bytes: part of it is not "
                                   "mapped memory",
                                   ptr, size);
    if (err != 0)
        return accel_backend_vendor_error(err, "cpu: mlock of host range %p + %zu bytes failed: %s",
                                          ptr, size, strerror(err));
    return ACCEL_OK;
}

void accel_cpu_host_unregister(void *self, void *ptr, size_t size)
{
    void *base;
    size_t len;
    if (ptr == NULL || size == 0)
        return;
    page_range(self, ptr, size, &base, &len);
    munlock(base, len);
}
