/* host_pages.c: huge-page-friendly host buffers for pinning and O_DIRECT
 * (accel_host_pages_alloc in accel/accel_backend_utils.h). The threshold is
 * the kernel's transparent huge page size, read once per process; a big
 * buffer is an anonymous mapping over-allocated by one huge page and
 * trimmed to an aligned start, so its huge-page advice covers only itself
 * and never a malloc arena. The free path tells the two kinds apart by the
 * byte count alone, which the same threshold decides. ACCEL_HOST_HUGE_PAGES=0
 * (read once) makes every buffer a plain posix_memalign one. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "accel/accel_backend_utils.h"

/* Larger huge pages (arm64 with 64 KiB base pages has 512 MiB ones) would
 * waste too much on alignment: such kernels get plain buffers. */
#define HOST_PAGES_MAX_HUGE ((size_t)32 << 20)

static pthread_once_t huge_once = PTHREAD_ONCE_INIT;
static size_t huge_size; /* 0: no transparent huge pages here */
static size_t page_size;

static void huge_read(void)
{
    unsigned long long size = 0;
    long page = sysconf(_SC_PAGESIZE);
    FILE *f = NULL;
    page_size = page > 0 ? (size_t)page : 4096;
    /* The opt-out: THP faults may compact memory (defrag "madvise"), a
     * stall some latency-bound programs refuse. */
    if (!accel_env_get_bool("ACCEL_HOST_HUGE_PAGES", true))
        return;
    f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");
    if (f != NULL) {
        if (fscanf(f, "%llu", &size) != 1)
            size = 0;
        fclose(f);
    }
    /* A power of two, above the base page and not too big; else none. */
    if (size > page_size && size <= HOST_PAGES_MAX_HUGE && (size & (size - 1)) == 0)
        huge_size = (size_t)size;
}

static bool host_pages_big(size_t bytes)
{
    pthread_once(&huge_once, huge_read);
    return huge_size != 0 && bytes >= huge_size;
}

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

int accel_host_pages_alloc(size_t bytes, size_t alignment, void **out)
{
    if (out == NULL || bytes == 0 || alignment < sizeof(void *) ||
        (alignment & (alignment - 1)) != 0)
        return EINVAL;
    if (!host_pages_big(bytes)) {
        if (alignment > page_size)
            return EINVAL;
        return posix_memalign(out, alignment, bytes);
    }
    if (bytes > SIZE_MAX - 2 * huge_size)
        return ENOMEM;
    size_t span = round_up(bytes, page_size);
    size_t mapped = span + huge_size;
    uint8_t *raw = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return errno;
    uint8_t *start = (uint8_t *)round_up((uintptr_t)raw, huge_size);
    size_t head = (size_t)(start - raw), tail = mapped - head - span;
    if (head > 0)
        munmap(raw, head);
    if (tail > 0)
        munmap(start + span, tail);
    /* Advice only: a kernel without THP (EINVAL) still gives a good buffer. */
    (void)madvise(start, span, MADV_HUGEPAGE);
    *out = start;
    return 0;
}

void accel_host_pages_free(void *ptr, size_t bytes)
{
    if (ptr == NULL)
        return;
    if (host_pages_big(bytes))
        munmap(ptr, round_up(bytes, page_size));
    else
        free(ptr);
}
