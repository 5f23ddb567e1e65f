/* test_utils_host_pages.c: host buffers that are pinned or moved by O_DIRECT
 * come from huge-page-friendly memory: a buffer of at least one transparent
 * huge page (the kernel's hpage_pmd_size, read, never assumed) starts on a
 * huge-page boundary and its mapping is advised for transparent huge pages
 * (THPeligible in /proc/self/smaps). Checked for the cpu backend's pinned
 * allocator, the native pin_memory backend and async_io's pinned_alloc.
 * The THP checks skip where the kernel has THP off or does not say. Why it
 * matters: an O_DIRECT transfer pins every page of the buffer; docs/ops.md, Async I/O.
 * Run again with ACCEL_HOST_HUGE_PAGES=0: then no buffer is advised (checked
 * where THP is "madvise", since "always" backs every mapping anyway). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel.h"
#include "accel/accel_backend_utils.h"
#include "accel/accel_ops.h"

#define BIG ((size_t)8 << 20)

/* The kernel's transparent huge page size, or 0 where it has none. */
static size_t thp_size(void)
{
    unsigned long long size = 0;
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r");
    if (f == NULL)
        return 0;
    if (fscanf(f, "%llu", &size) != 1)
        size = 0;
    fclose(f);
    return (size_t)size;
}

/* Whether the kernel's THP mode (the bracketed word of
 * /sys/kernel/mm/transparent_hugepage/enabled) is `mode`. */
static bool thp_mode_is(const char *mode)
{
    char line[128] = "", bracketed[32];
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f == NULL)
        return false;
    if (fgets(line, sizeof line, f) == NULL)
        line[0] = '\0';
    fclose(f);
    snprintf(bracketed, sizeof bracketed, "[%s]", mode);
    return strstr(line, bracketed) != NULL;
}

/* True when THP may back a mapping that asks for it ("always" or "madvise"). */
static bool thp_on(void)
{
    return thp_mode_is("always") || thp_mode_is("madvise");
}

/* THPeligible of the mapping that holds `p` (1 or 0), or -1 where smaps has
 * no such field or no such mapping. */
static int thp_eligible(const void *p)
{
    char line[512];
    bool inside = false;
    int eligible = -1;
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL) {
        char first[64];
        unsigned long long lo, hi;
        if (sscanf(line, "%63s", first) != 1)
            continue;
        if (first[strlen(first) - 1] != ':') { /* a mapping's header line */
            inside = sscanf(first, "%llx-%llx", &lo, &hi) == 2 && (uintptr_t)p >= lo &&
                     (uintptr_t)p < hi;
            continue;
        }
        if (inside && strcmp(first, "THPeligible:") == 0 && sscanf(line, "%*s %d", &eligible) == 1)
            break;
    }
    fclose(f);
    return eligible;
}

/* True unless ACCEL_HOST_HUGE_PAGES turns the advice off for this run. */
static bool huge_pages_wanted(void)
{
    const char *value = getenv("ACCEL_HOST_HUGE_PAGES");
    return value == NULL || strcmp(value, "0") != 0;
}

/* A big buffer is huge-page aligned and advised, where the kernel has THP
 * (and not advised when ACCEL_HOST_HUGE_PAGES=0). */
static void assert_huge_page_friendly(const void *p)
{
    size_t huge = thp_size();
    if (!huge_pages_wanted()) {
        int eligible = thp_eligible(p);
        if (thp_mode_is("madvise") && eligible >= 0)
            assert_int_equal(eligible, 0);
        else
            printf("# THP not in madvise mode, or smaps silent: the opt-out is not checked\n");
        return;
    }
    if (huge == 0 || huge > ((size_t)32 << 20) || !thp_on()) {
        printf("# THP off or unknown here (hpage_pmd_size %zu): alignment and advice not checked\n",
               huge);
        return;
    }
    assert_int_equal((uintptr_t)p % huge, 0);
    int eligible = thp_eligible(p);
    if (eligible < 0)
        printf("# /proc/self/smaps has no THPeligible: advice not checked\n");
    else
        assert_int_equal(eligible, 1);
}

/* The helper itself: big buffers aligned and advised, small ones aligned
 * as asked, bad requests refused with nothing allocated. */
static void test_helper(void **state)
{
    void *big = NULL, *odd = NULL, *small = NULL, *untouched = &state;
    (void)state;
    assert_int_equal(accel_host_pages_alloc(BIG, 4096, &big), 0);
    memset(big, 7, BIG);
    assert_huge_page_friendly(big);
    /* Not a multiple of any page: every byte is usable. */
    assert_int_equal(accel_host_pages_alloc(BIG + 1, 64, &odd), 0);
    ((volatile uint8_t *)odd)[BIG] = 1;
    assert_huge_page_friendly(odd);
    assert_int_equal(accel_host_pages_alloc(100, 4096, &small), 0);
    assert_int_equal((uintptr_t)small % 4096, 0);
    accel_host_pages_free(small, 100);
    accel_host_pages_free(odd, BIG + 1);
    accel_host_pages_free(big, BIG);
    accel_host_pages_free(NULL, BIG);
    assert_int_equal(accel_host_pages_alloc(0, 4096, &untouched), EINVAL);
    assert_int_equal(accel_host_pages_alloc(100, 3, &untouched), EINVAL);
    assert_int_equal(accel_host_pages_alloc(100, 0, &untouched), EINVAL);
    assert_int_equal(accel_host_pages_alloc(100, (size_t)1 << 30, &untouched), EINVAL);
    assert_int_equal(accel_host_pages_alloc(100, 4096, NULL), EINVAL);
    assert_int_equal(accel_host_pages_alloc(SIZE_MAX - 4096, 4096, &untouched), ENOMEM);
    assert_ptr_equal(untouched, &state);
}

static void test_cpu_host_alloc(void **state)
{
    accel_t *acc = NULL;
    void *p = NULL;
    (void)state;
    assert_int_equal(accel_open("cpu", &acc), ACCEL_OK);
    assert_int_equal(accel_host_alloc(acc, BIG, &p), ACCEL_OK);
    memset(p, 1, BIG);
    assert_huge_page_friendly(p);
    assert_int_equal(accel_host_free(acc, p), ACCEL_OK);
    accel_close(acc);
}

static void test_native_pin_memory(void **state)
{
    accel_t *acc = NULL;
    int64_t shape[1] = {(int64_t)BIG};
    uint8_t byte = 0;
    DLTensor in = {.data = &byte,
                   .device = {.device_type = kDLCPU},
                   .ndim = 1,
                   .dtype = {.code = kDLUInt, .bits = 8, .lanes = 1},
                   .shape = shape};
    DLTensor out = {0};
    bool freed = false;
    (void)state;
    assert_int_equal(accel_open("cpu", &acc), ACCEL_OK);
    assert_int_equal(accel_set_pin_memory_backend(acc, ACCEL_PIN_BACKEND_NATIVE), ACCEL_OK);
    assert_int_equal(accel_pin_memory(acc, &in, false, true, &out), ACCEL_OK);
    assert_huge_page_friendly(out.data);
    assert_int_equal(accel_unpin_memory(acc, &out, &freed), ACCEL_OK);
    assert_true(freed);
    accel_close(acc);
}

static void test_aio_pinned_alloc(void **state)
{
    accel_t *acc = NULL;
    accel_op_builder_t *builder = NULL;
    const void *table = NULL;
    accel_aio_config_t config = ACCEL_AIO_CONFIG_DEFAULT;
    accel_aio_handle_t *h = NULL;
    void *p = NULL, *small = NULL;
    (void)state;
    assert_int_equal(accel_open("cpu", &acc), ACCEL_OK);
    assert_int_equal(accel_get_op_builder(acc, "AsyncIOBuilder", &builder), ACCEL_OK);
    assert_int_equal(accel_op_builder_load(builder, &table), ACCEL_OK);
    const accel_aio_op_t *aio = table;
    assert_int_equal(aio->handle_create(acc, &config, &h), ACCEL_OK);
    assert_int_equal(aio->pinned_alloc(h, BIG + 100, &p), ACCEL_OK);
    assert_huge_page_friendly(p);
    /* A small one still gets O_DIRECT's alignment. */
    assert_int_equal(aio->pinned_alloc(h, 100, &small), ACCEL_OK);
    assert_int_equal((uintptr_t)small % aio->alignment, 0);
    assert_int_equal(aio->pinned_free(h, small), ACCEL_OK);
    assert_int_equal(aio->pinned_free(h, p), ACCEL_OK);
    aio->handle_destroy(h);
    accel_close(acc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_helper),
        cmocka_unit_test(test_cpu_host_alloc),
        cmocka_unit_test(test_native_pin_memory),
        cmocka_unit_test(test_aio_pinned_alloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
