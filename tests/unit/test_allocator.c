/* test_allocator.c: unit tests of the caching device allocator over a fake
 * device (host memory with a settable budget) and fake events whose
 * completion each test controls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>

#include "core/allocator.h"

#define KIB        ((size_t)1 << 10)
#define MIB        ((size_t)1 << 20)
#define RAW_HEADER ((size_t)256)

/* ---------------------------------------------------------------- fake device */

/* Host memory behind a budget; counters are atomic because the stress test
 * shares one device between threads (the allocator serialises calls anyway). */
typedef struct fake_device {
    size_t budget;
    atomic_size_t used;
    atomic_int raw_allocs, raw_frees;
    atomic_int events_live, events_created;
    bool events_auto_complete; /* record gives an already-completed event */
    int complete_after;        /* > 0: an event completes at that many queries */
} fake_device_t;

typedef struct fake_event {
    fake_device_t *device;
    void *stream;
    bool done;
    int queries;
} fake_event_t;

static accel_status_t fake_raw_alloc(void *ctx, size_t size, void **out)
{
    fake_device_t *device = ctx;
    if (device->used + size > device->budget)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    void *raw = NULL;
    if (posix_memalign(&raw, 256, RAW_HEADER + size) != 0)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    memcpy(raw, &size, sizeof size);
    device->used += size;
    device->raw_allocs++;
    *out = (char *)raw + RAW_HEADER;
    return ACCEL_OK;
}

static void fake_raw_free(void *ctx, void *ptr)
{
    fake_device_t *device = ctx;
    char *raw = (char *)ptr - RAW_HEADER;
    size_t size;
    memcpy(&size, raw, sizeof size);
    device->used -= size;
    device->raw_frees++;
    free(raw);
}

static fake_event_t *last_event;

static accel_status_t fake_event_record_new(void *ctx, void *stream, void **out)
{
    fake_device_t *device = ctx;
    fake_event_t *event = calloc(1, sizeof *event);
    if (!event)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    event->device = device;
    event->stream = stream;
    event->done = device->events_auto_complete;
    device->events_live++;
    device->events_created++;
    last_event = event;
    *out = event;
    return ACCEL_OK;
}

static accel_status_t fake_event_query(void *ctx, void *event)
{
    fake_device_t *device = ctx;
    fake_event_t *fake = event;
    fake->queries++;
    if (device->complete_after > 0 && fake->queries >= device->complete_after)
        fake->done = true;
    return fake->done ? ACCEL_OK : ACCEL_ERROR_NOT_READY;
}

static void fake_event_destroy(void *ctx, void *event)
{
    fake_device_t *device = ctx;
    device->events_live--;
    if (last_event == event)
        last_event = NULL;
    free(event);
}

static accel_allocator_device_t fake_interface(fake_device_t *device, bool with_events)
{
    accel_allocator_device_t iface = {
        .ctx = device,
        .raw_alloc = fake_raw_alloc,
        .raw_free = fake_raw_free,
    };
    if (with_events) {
        iface.event_record_new = fake_event_record_new;
        iface.event_query = fake_event_query;
        iface.event_destroy = fake_event_destroy;
    }
    return iface;
}

static accel_allocator_t *make_allocator(fake_device_t *device, bool with_events, bool caching)
{
    accel_allocator_device_t iface = fake_interface(device, with_events);
    accel_allocator_t *allocator = NULL;
    assert_int_equal(accel_allocator_create(&iface, caching, &allocator), ACCEL_OK);
    assert_non_null(allocator);
    return allocator;
}

static accel_memory_stats_t stats_of(accel_allocator_t *allocator)
{
    accel_memory_stats_t stats = {.struct_size = sizeof stats};
    accel_allocator_stats(allocator, &stats);
    return stats;
}

static void *alloc_ok(accel_allocator_t *allocator, size_t size, void *stream)
{
    void *ptr = NULL;
    assert_int_equal(accel_allocator_alloc(allocator, size, stream, &ptr), ACCEL_OK);
    assert_non_null(ptr);
    assert_int_equal((uintptr_t)ptr % 256, 0);
    return ptr;
}

static void free_ok(accel_allocator_t *allocator, void *ptr, void *stream)
{
    assert_int_equal(accel_allocator_free(allocator, ptr, stream), ACCEL_OK);
}

#define STREAM_A ((void *)(uintptr_t)0xa0)
#define STREAM_B ((void *)(uintptr_t)0xb0)

/* ---------------------------------------------------------------- tests */

static void test_create_rejects_bad_device(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = (accel_allocator_t *)(uintptr_t)1;

    accel_allocator_device_t iface = fake_interface(&device, true);
    iface.event_query = NULL;
    assert_int_equal(accel_allocator_create(&iface, true, &allocator),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_ptr_equal(allocator, (accel_allocator_t *)(uintptr_t)1);

    iface = fake_interface(&device, false);
    iface.raw_free = NULL;
    assert_int_equal(accel_allocator_create(&iface, true, &allocator),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_allocator_create(NULL, true, &allocator), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "raw_alloc"));
}

static void test_size_zero_and_null_free(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);
    void *ptr = (void *)(uintptr_t)1;
    assert_int_equal(accel_allocator_alloc(allocator, 0, NULL, &ptr), ACCEL_OK);
    assert_null(ptr);
    assert_int_equal(accel_allocator_free(allocator, NULL, NULL), ACCEL_OK);
    accel_memory_stats_t stats = stats_of(allocator);
    assert_int_equal(stats.allocated_bytes, 0);
    assert_int_equal(stats.reserved_bytes, 0);
    assert_int_equal(stats.allocation_count, 0);
    assert_int_equal(device.raw_allocs, 0);
    accel_allocator_destroy(allocator);
}

static void test_rounding_and_caching(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);

    void *p = alloc_ok(allocator, 1, NULL);
    accel_memory_stats_t stats = stats_of(allocator);
    assert_int_equal(stats.allocated_bytes, 512);
    assert_int_equal(stats.requested_bytes, 1);
    assert_int_equal(stats.reserved_bytes, 2 * MIB);
    assert_int_equal(stats.segment_count, 1);
    assert_int_equal(stats.allocation_count, 1);

    free_ok(allocator, p, NULL);
    stats = stats_of(allocator);
    assert_int_equal(stats.allocated_bytes, 0);
    assert_int_equal(stats.requested_bytes, 0);
    assert_int_equal(stats.allocation_count, 0);
    assert_int_equal(stats.reserved_bytes, 2 * MIB); /* still cached */

    void *again = alloc_ok(allocator, 700, NULL);
    assert_ptr_equal(again, p);
    assert_int_equal(stats_of(allocator).allocated_bytes, 1024);
    assert_int_equal(device.raw_allocs, 1);
    free_ok(allocator, again, NULL);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.used, 0);
}

static void test_split_and_merge_small(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);

    char *a = alloc_ok(allocator, 512 * KIB, NULL);
    char *b = alloc_ok(allocator, 512 * KIB, NULL);
    char *c = alloc_ok(allocator, 512 * KIB, NULL);
    assert_int_equal(stats_of(allocator).segment_count, 1);
    /* All three come from the one 2 MiB segment, at distinct offsets. */
    char *lo = a < b ? (a < c ? a : c) : (b < c ? b : c);
    assert_true((size_t)(a - lo) < 2 * MIB && (size_t)(b - lo) < 2 * MIB &&
                (size_t)(c - lo) < 2 * MIB);
    assert_true(a != b && b != c && a != c);
    memset(a, 1, 512 * KIB);
    memset(b, 2, 512 * KIB);
    memset(c, 3, 512 * KIB);

    /* Freeing a and b leaves a 1 MiB hole only if they merge. */
    free_ok(allocator, a, NULL);
    free_ok(allocator, b, NULL);
    char *big = alloc_ok(allocator, MIB - 512, NULL);
    assert_ptr_equal(big, a < b ? a : b);
    assert_int_equal(stats_of(allocator).segment_count, 1);

    free_ok(allocator, big, NULL);
    free_ok(allocator, c, NULL);
    /* Everything merged back into one free block: empty_cache can release it. */
    accel_allocator_empty_cache(allocator);
    accel_memory_stats_t stats = stats_of(allocator);
    assert_int_equal(stats.reserved_bytes, 0);
    assert_int_equal(stats.segment_count, 0);
    assert_int_equal(device.used, 0);
    accel_allocator_destroy(allocator);
}

static void test_large_pool_split(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);

    char *a = alloc_ok(allocator, 2 * MIB + 512 * KIB, NULL);
    accel_memory_stats_t stats = stats_of(allocator);
    assert_int_equal(stats.reserved_bytes, 4 * MIB);
    assert_int_equal(stats.allocated_bytes, 2 * MIB + 512 * KIB);

    /* The 1.5 MiB remainder was kept and serves the next large request. */
    char *b = alloc_ok(allocator, MIB + 512 * KIB, NULL);
    assert_ptr_equal(b, a + 2 * MIB + 512 * KIB);
    assert_int_equal(stats_of(allocator).segment_count, 1);

    /* A remainder of 1 MiB or less stays part of the block. */
    char *c = alloc_ok(allocator, 3 * MIB, NULL);
    stats = stats_of(allocator);
    assert_int_equal(stats.segment_count, 2);
    assert_int_equal(stats.reserved_bytes, 8 * MIB);
    assert_int_equal(stats.allocated_bytes, 8 * MIB);
    assert_int_equal(stats.requested_bytes, 2 * MIB + 512 * KIB + MIB + 512 * KIB + 3 * MIB);

    /* Small requests never come from large segments. */
    free_ok(allocator, c, NULL);
    char *small = alloc_ok(allocator, 4 * KIB, NULL);
    assert_int_equal(stats_of(allocator).segment_count, 3);
    assert_true(small < c || small >= c + 4 * MIB);

    free_ok(allocator, a, NULL);
    free_ok(allocator, b, NULL);
    free_ok(allocator, small, NULL);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.used, 0);
}

static void test_cross_stream_waits_for_event(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, true, true);

    char *a = alloc_ok(allocator, 4 * KIB, STREAM_A);
    free_ok(allocator, a, STREAM_A);
    fake_event_t *event = last_event;
    assert_non_null(event);
    assert_ptr_equal(event->stream, STREAM_A);
    assert_int_equal(device.events_live, 1);

    /* Stream B may not take a's block while the event is pending... */
    char *b = alloc_ok(allocator, 4 * KIB, STREAM_B);
    assert_ptr_not_equal(b, a);
    assert_int_equal(stats_of(allocator).segment_count, 1);
    /* ...but stream A may, at once, and the event is no longer needed. */
    char *a2 = alloc_ok(allocator, 4 * KIB, STREAM_A);
    assert_ptr_equal(a2, a);
    assert_int_equal(device.events_live, 0);

    /* Freed again: stream B waits until this second event completes. */
    free_ok(allocator, a2, STREAM_A);
    fake_event_t *second = last_event;
    assert_non_null(second);
    assert_int_equal(device.events_live, 1);
    char *c = alloc_ok(allocator, 4 * KIB, STREAM_B);
    assert_ptr_not_equal(c, a);
    second->done = true;
    char *d = alloc_ok(allocator, 4 * KIB, STREAM_B);
    assert_ptr_equal(d, a);
    assert_int_equal(device.events_live, 0);
    assert_int_equal(stats_of(allocator).segment_count, 1);

    free_ok(allocator, b, STREAM_B);
    free_ok(allocator, c, STREAM_B);
    free_ok(allocator, d, STREAM_B);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.events_live, 0);
    assert_int_equal(device.used, 0);
}

/* A stream that is idle at free time: nothing queued on it can still use the
 * block, so no event is recorded and another stream reuses it at once; a
 * busy one still gets its event. */
static void *idle_stream; /* the stream fake_stream_idle calls idle */
static int idle_queries;  /* fake_stream_idle's calls */

static bool fake_stream_idle(void *ctx, void *stream)
{
    idle_queries++;
    (void)ctx;
    return stream == idle_stream;
}

static void test_idle_stream_free_records_no_event(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_device_t iface = fake_interface(&device, true);
    accel_allocator_t *allocator = NULL;
    iface.stream_idle = fake_stream_idle;
    assert_int_equal(accel_allocator_create(&iface, true, &allocator), ACCEL_OK);
    idle_stream = STREAM_A;

    char *a = alloc_ok(allocator, 4 * KIB, STREAM_A);
    free_ok(allocator, a, STREAM_A);
    assert_int_equal(device.events_created, 0);
    char *b = alloc_ok(allocator, 4 * KIB, STREAM_B);
    assert_ptr_equal(b, a);

    free_ok(allocator, b, STREAM_B); /* B is busy: an event, and A must wait */
    assert_int_equal(device.events_created, 1);
    char *c = alloc_ok(allocator, 4 * KIB, STREAM_A);
    assert_ptr_not_equal(c, a);

    free_ok(allocator, c, STREAM_A);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.events_live, 0);
    assert_int_equal(device.used, 0);
}

static void test_completed_event_allows_cross_stream_reuse(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, true, true);

    char *a = alloc_ok(allocator, 4 * KIB, STREAM_A);
    char *guard = alloc_ok(allocator, 4 * KIB, STREAM_A);
    free_ok(allocator, a, STREAM_A);
    fake_event_t *event = last_event;
    assert_non_null(event);

    char *b = alloc_ok(allocator, 4 * KIB, STREAM_B);
    assert_ptr_not_equal(b, a);
    event->done = true;
    char *c = alloc_ok(allocator, 4 * KIB, STREAM_B);
    assert_ptr_equal(c, a);
    assert_int_equal(device.events_live, 0);

    free_ok(allocator, a, STREAM_B);
    free_ok(allocator, b, STREAM_B);
    free_ok(allocator, guard, STREAM_A);
    assert_int_equal(device.events_live, 3);
    /* Pending blocks keep their segment: empty_cache releases nothing yet. */
    accel_allocator_empty_cache(allocator);
    assert_int_equal(stats_of(allocator).segment_count, 1);

    device.events_auto_complete = true;
    accel_allocator_destroy(allocator);
    assert_int_equal(device.events_live, 0);
    assert_int_equal(device.used, 0);
}

static void test_completed_events_merge_and_release(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, true, true);
    fake_event_t *events[3];
    char *p[3];
    for (int i = 0; i < 3; i++)
        p[i] = alloc_ok(allocator, 8 * KIB, STREAM_A);
    free_ok(allocator, p[0], STREAM_A);
    events[0] = last_event;
    free_ok(allocator, p[2], STREAM_B);
    events[2] = last_event;
    free_ok(allocator, p[1], STREAM_A);
    events[1] = last_event;
    /* p[0] and p[1] (same stream) merged, keeping only the later event. */
    assert_int_equal(device.events_live, 2);
    (void)events[0];

    accel_allocator_empty_cache(allocator);
    assert_int_equal(stats_of(allocator).segment_count, 1);
    events[1]->done = true;
    events[2]->done = true;
    accel_allocator_empty_cache(allocator);
    assert_int_equal(device.events_live, 0);
    accel_memory_stats_t stats = stats_of(allocator);
    assert_int_equal(stats.segment_count, 0);
    assert_int_equal(stats.reserved_bytes, 0);
    assert_int_equal(device.used, 0);
    accel_allocator_destroy(allocator);
}

static void test_no_events_reuse_across_streams(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);
    char *a = alloc_ok(allocator, 4 * KIB, STREAM_A);
    free_ok(allocator, a, STREAM_A);
    char *b = alloc_ok(allocator, 4 * KIB, STREAM_B);
    assert_ptr_equal(b, a);
    free_ok(allocator, b, STREAM_B);
    accel_allocator_destroy(allocator);
}

static void test_oom_retry_and_report(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 4 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);

    void *small = alloc_ok(allocator, KIB, NULL);
    free_ok(allocator, small, NULL);
    assert_int_equal(stats_of(allocator).reserved_bytes, 2 * MIB);

    /* 4 MiB does not fit next to the cached 2 MiB: cache flushed, retried. */
    void *big = alloc_ok(allocator, 3 * MIB, NULL);
    accel_memory_stats_t stats = stats_of(allocator);
    assert_int_equal(stats.alloc_retries, 1);
    assert_int_equal(stats.ooms, 0);
    assert_int_equal(stats.reserved_bytes, 4 * MIB);
    assert_int_equal(stats.segment_count, 1);

    /* Nothing left to flush: a real OOM, and nothing else changes. */
    void *out = (void *)(uintptr_t)1;
    assert_int_equal(accel_allocator_alloc(allocator, 3 * MIB, NULL, &out),
                     ACCEL_ERROR_OUT_OF_MEMORY);
    assert_ptr_equal(out, (void *)(uintptr_t)1);
    assert_non_null(strstr(accel_last_error(), "3145728"));
    assert_non_null(strstr(accel_last_error(), "4194304 bytes reserved"));
    assert_non_null(strstr(accel_last_error(), "allocated"));
    accel_memory_stats_t after = stats_of(allocator);
    assert_int_equal(after.ooms, 1);
    assert_int_equal(after.alloc_retries, 1);
    assert_int_equal(after.allocated_bytes, stats.allocated_bytes);
    assert_int_equal(after.reserved_bytes, stats.reserved_bytes);
    assert_int_equal(after.allocation_count, stats.allocation_count);

    /* A size no device could hold is an OOM too, not a wrap-around. */
    assert_int_equal(accel_allocator_alloc(allocator, SIZE_MAX - 100, NULL, &out),
                     ACCEL_ERROR_OUT_OF_MEMORY);
    assert_int_equal(stats_of(allocator).ooms, 2);

    free_ok(allocator, big, NULL);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.used, 0);
}

static void test_passthrough(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, false);

    void *a = alloc_ok(allocator, 1000, NULL);
    void *b = alloc_ok(allocator, 1000, NULL);
    assert_int_equal(device.raw_allocs, 2);
    accel_memory_stats_t stats = stats_of(allocator);
    assert_int_equal(stats.allocated_bytes, 2000);
    assert_int_equal(stats.requested_bytes, 2000);
    assert_int_equal(stats.reserved_bytes, 2000);
    assert_int_equal(stats.segment_count, 2);
    void *base = NULL;
    size_t size = 0;
    assert_int_equal(accel_allocator_lookup(allocator, (char *)a + 999, &base, &size), ACCEL_OK);
    assert_ptr_equal(base, a);
    assert_int_equal(size, 1000);

    free_ok(allocator, a, NULL);
    assert_int_equal(device.raw_frees, 1);
    assert_int_equal(device.used, 1000);
    free_ok(allocator, b, NULL);
    stats = stats_of(allocator);
    assert_int_equal(stats.reserved_bytes, 0);
    assert_int_equal(stats.segment_count, 0);
    assert_int_equal(stats.reserved_bytes_peak, 2000);
    assert_int_equal(device.used, 0);
    accel_allocator_destroy(allocator);
}

static void test_passthrough_defers_free_until_event(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, true, false);

    void *a = alloc_ok(allocator, 4096, STREAM_A);
    free_ok(allocator, a, STREAM_A);
    assert_int_equal(device.raw_frees, 0); /* stream work may still use it */
    assert_int_equal(stats_of(allocator).allocated_bytes, 0);
    assert_int_equal(stats_of(allocator).reserved_bytes, 4096);
    assert_int_equal(accel_allocator_free(allocator, a, STREAM_A), ACCEL_ERROR_INVALID_ARGUMENT);

    last_event->done = true;
    accel_allocator_empty_cache(allocator);
    assert_int_equal(device.raw_frees, 1);
    assert_int_equal(stats_of(allocator).reserved_bytes, 0);
    assert_int_equal(device.events_live, 0);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.used, 0);
}

static void test_peaks_and_reset(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);

    void *a = alloc_ok(allocator, 4 * MIB, NULL);
    void *b = alloc_ok(allocator, 100, NULL);
    free_ok(allocator, a, NULL);
    accel_memory_stats_t stats = stats_of(allocator);
    assert_int_equal(stats.allocated_bytes, 512);
    assert_int_equal(stats.allocated_bytes_peak, 4 * MIB + 512);
    assert_int_equal(stats.requested_bytes_peak, 4 * MIB + 100);
    assert_int_equal(stats.allocation_count_peak, 2);
    assert_int_equal(stats.reserved_bytes_peak, 6 * MIB);

    accel_allocator_reset_peaks(allocator, ACCEL_PEAK_ALLOCATED);
    stats = stats_of(allocator);
    assert_int_equal(stats.allocated_bytes_peak, 512);
    assert_int_equal(stats.requested_bytes_peak, 100);
    assert_int_equal(stats.allocation_count_peak, 1);
    assert_int_equal(stats.reserved_bytes_peak, 6 * MIB);

    accel_allocator_empty_cache(allocator);
    stats = stats_of(allocator);
    assert_int_equal(stats.reserved_bytes, 2 * MIB);
    assert_int_equal(stats.reserved_bytes_peak, 6 * MIB);
    assert_int_equal(stats.segment_count_peak, 2);
    accel_allocator_reset_peaks(allocator, ACCEL_PEAK_RESERVED);
    stats = stats_of(allocator);
    assert_int_equal(stats.reserved_bytes_peak, 2 * MIB);
    assert_int_equal(stats.segment_count_peak, 1);

    free_ok(allocator, b, NULL);
    accel_allocator_reset_peaks(allocator, ACCEL_PEAK_ALL);
    stats = stats_of(allocator);
    assert_int_equal(stats.allocated_bytes_peak, 0);
    assert_int_equal(stats.reserved_bytes_peak, 2 * MIB);
    accel_allocator_destroy(allocator);
}

static void test_empty_cache_keeps_used_segments(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);

    void *keep = alloc_ok(allocator, 16 * KIB, NULL);
    void *gone = alloc_ok(allocator, 3 * MIB, NULL);
    void *gone_too = alloc_ok(allocator, 5 * MIB, NULL);
    free_ok(allocator, gone, NULL);
    free_ok(allocator, gone_too, NULL);
    assert_int_equal(stats_of(allocator).segment_count, 3);
    accel_allocator_empty_cache(allocator);
    accel_memory_stats_t stats = stats_of(allocator);
    assert_int_equal(stats.segment_count, 1);
    assert_int_equal(stats.reserved_bytes, 2 * MIB);
    assert_int_equal(device.used, 2 * MIB);
    void *base = NULL;
    assert_int_equal(accel_allocator_lookup(allocator, keep, &base, NULL), ACCEL_OK);
    assert_ptr_equal(base, keep);
    free_ok(allocator, keep, NULL);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.used, 0);
}

static accel_status_t fake_event_synchronize(void *ctx, void *event)
{
    (void)ctx;
    ((fake_event_t *)event)->done = true;
    return ACCEL_OK;
}

/* empty_cache waits for the free events of cached blocks (through
 * event_synchronize), so a block freed while its stream was busy is given
 * back too; it never needed the whole device to stop. */
static void test_empty_cache_waits_for_free_events(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_device_t iface = fake_interface(&device, true);
    iface.event_synchronize = fake_event_synchronize;
    accel_allocator_t *allocator = NULL;
    assert_int_equal(accel_allocator_create(&iface, true, &allocator), ACCEL_OK);

    void *a = alloc_ok(allocator, 3 * MIB, STREAM_A);
    free_ok(allocator, a, STREAM_A);
    assert_non_null(last_event);
    assert_false(last_event->done);
    accel_allocator_empty_cache(allocator);
    assert_int_equal(device.raw_frees, 1);
    assert_int_equal(stats_of(allocator).reserved_bytes, 0);
    assert_int_equal(device.events_live, 0);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.used, 0);
}

static void *alloc_in_ok(accel_allocator_t *allocator, const void *pool, size_t size, void *stream)
{
    void *ptr = NULL;
    assert_int_equal(accel_allocator_alloc_in(allocator, pool, size, stream, &ptr), ACCEL_OK);
    assert_non_null(ptr);
    return ptr;
}

static int pool_owner, other_owner; /* their addresses key two private pools */

/* A block of a private pool, freed, is reused only by that pool: the shared
 * cache and another pool get new memory; empty_cache keeps the pool's
 * segments; releasing the pool gives them back. */
static void test_private_pool_keeps_its_blocks(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);

    assert_false(accel_allocator_has_pool(allocator, &pool_owner));
    void *a = alloc_in_ok(allocator, &pool_owner, 4096, NULL);
    assert_true(accel_allocator_has_pool(allocator, &pool_owner));
    free_ok(allocator, a, NULL);
    void *shared = alloc_ok(allocator, 4096, NULL);
    void *other = alloc_in_ok(allocator, &other_owner, 4096, NULL);
    assert_true(shared != a);
    assert_true(other != a);
    void *again = alloc_in_ok(allocator, &pool_owner, 4096, NULL);
    assert_ptr_equal(again, a);
    free_ok(allocator, again, NULL);
    free_ok(allocator, shared, NULL);
    free_ok(allocator, other, NULL);
    assert_int_equal(stats_of(allocator).segment_count, 3);

    accel_allocator_empty_cache(allocator); /* only the shared segment goes */
    assert_int_equal(stats_of(allocator).segment_count, 2);
    accel_allocator_release_pool(allocator, &pool_owner);
    assert_false(accel_allocator_has_pool(allocator, &pool_owner));
    assert_int_equal(stats_of(allocator).segment_count, 1);
    accel_allocator_release_pool(allocator, &pool_owner); /* unknown now: ignored */
    accel_allocator_release_pool(allocator, &other_owner);
    assert_int_equal(stats_of(allocator).segment_count, 0);
    assert_int_equal(device.used, 0);
    accel_allocator_destroy(allocator);
}

/* The out-of-memory retry releases cached shared segments, never a pool's. */
static void test_private_pool_survives_oom_retry(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 4 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);

    void *a = alloc_in_ok(allocator, &pool_owner, 2 * MIB, NULL);
    free_ok(allocator, a, NULL);
    void *big = NULL;
    assert_int_equal(accel_allocator_alloc(allocator, 3 * MIB, NULL, &big),
                     ACCEL_ERROR_OUT_OF_MEMORY);
    assert_int_equal(stats_of(allocator).segment_count, 1);
    assert_ptr_equal(alloc_in_ok(allocator, &pool_owner, 2 * MIB, NULL), a);
    free_ok(allocator, a, NULL);
    accel_allocator_release_pool(allocator, &pool_owner);
    assert_int_equal(device.used, 0);
    accel_allocator_destroy(allocator);
}

/* A pool block still live when its pool is released joins the shared cache
 * when freed; in passthrough a pool's freed block stays reserved until the
 * release. */
static void test_private_pool_release_with_live_block(void **state)
{
    (void)state;
    for (int caching = 0; caching <= 1; caching++) {
        fake_device_t device = {.budget = 64 * MIB};
        accel_allocator_t *allocator = make_allocator(&device, false, caching);
        void *live = alloc_in_ok(allocator, &pool_owner, 4096, NULL);
        void *freed = alloc_in_ok(allocator, &pool_owner, 3 * MIB, NULL);
        free_ok(allocator, freed, NULL);
        assert_int_equal(device.raw_frees, 0);
        accel_allocator_release_pool(allocator, &pool_owner);
        assert_int_equal(device.raw_frees, 1);
        free_ok(allocator, live, NULL);
        accel_allocator_empty_cache(allocator);
        assert_int_equal(device.raw_frees, 2);
        assert_int_equal(device.used, 0);
        accel_allocator_destroy(allocator);
    }
}

static void test_lookup(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);
    char *ptrs[64];
    for (int i = 0; i < 64; i++)
        ptrs[i] = alloc_ok(allocator, 1000 + (size_t)i * 3000, NULL);

    for (int i = 0; i < 64; i++) {
        size_t want = 1000 + (size_t)i * 3000;
        void *base = NULL;
        size_t size = 0;
        assert_int_equal(accel_allocator_lookup(allocator, ptrs[i], &base, &size), ACCEL_OK);
        assert_ptr_equal(base, ptrs[i]);
        assert_int_equal(size, want);
        assert_int_equal(accel_allocator_lookup(allocator, ptrs[i] + want / 2, &base, &size),
                         ACCEL_OK);
        assert_ptr_equal(base, ptrs[i]);
        assert_int_equal(accel_allocator_lookup(allocator, ptrs[i] + want - 1, &base, &size),
                         ACCEL_OK);
        assert_ptr_equal(base, ptrs[i]);
        /* One past the asked size lies in the rounding slack (when there is
         * some) or starts another block: either way not this block. */
        accel_status_t past = accel_allocator_lookup(allocator, ptrs[i] + want, &base, &size);
        if (want % 512)
            assert_int_equal(past, ACCEL_ERROR_NOT_FOUND);
        else if (past == ACCEL_OK)
            assert_ptr_equal(base, ptrs[i] + want);
    }
    int outside = 0;
    assert_int_equal(accel_allocator_lookup(allocator, &outside, NULL, NULL),
                     ACCEL_ERROR_NOT_FOUND);
    assert_int_equal(accel_allocator_lookup(allocator, NULL, NULL, NULL), ACCEL_ERROR_NOT_FOUND);

    free_ok(allocator, ptrs[10], NULL);
    assert_int_equal(accel_allocator_lookup(allocator, ptrs[10] + 5, NULL, NULL),
                     ACCEL_ERROR_NOT_FOUND);
    for (int i = 0; i < 64; i++)
        if (i != 10)
            free_ok(allocator, ptrs[i], NULL);
    assert_int_equal(stats_of(allocator).allocation_count, 0);
    accel_allocator_destroy(allocator);
}

/* overlaps: any byte of a live block's rounded span, from either side; a
 * range around a freed block does not; sizes that would wrap are clamped. */
static void test_overlaps(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);
    char *a = alloc_ok(allocator, 1000, NULL), *b = alloc_ok(allocator, 1000, NULL);
    int outside = 0;
    assert_true(accel_allocator_overlaps(allocator, a, 1));
    assert_true(accel_allocator_overlaps(allocator, a + 1023, 1)); /* rounding slack */
    assert_true(accel_allocator_overlaps(allocator, a - 8, 9));    /* ends on its first byte */
    assert_false(accel_allocator_overlaps(allocator, a - 8, 8));
    assert_true(accel_allocator_overlaps(allocator, a - 8, SIZE_MAX));
    assert_false(accel_allocator_overlaps(allocator, a, 0));
    assert_false(accel_allocator_overlaps(allocator, &outside, sizeof outside));
    free_ok(allocator, b, NULL);
    assert_false(accel_allocator_overlaps(allocator, b, 16));
    assert_true(accel_allocator_overlaps(allocator, a, 1));
    free_ok(allocator, a, NULL);
    assert_false(accel_allocator_overlaps(allocator, a, 1));
    accel_allocator_destroy(allocator);
}

/* The tensor mark: set on a block start only, cleared when the block is
 * freed, so the next owner of the address starts unmarked. */
/* accel_free's one-step check-and-free: an interior or unknown pointer is
 * NOT_FOUND, a tensor's block is refused unless allowed (and stays live),
 * a hold owner holds instead of freeing, and a plain free frees. */
static void test_free_user_checks_in_one_step(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);
    static const int owner;
    size_t size = 0;
    bool tensor = false;
    char *a = alloc_ok(allocator, 1000, NULL);
    char *b = alloc_ok(allocator, 2000, NULL);
    assert_int_equal(
        accel_allocator_free_user(allocator, a + 8, NULL, NULL, true, false, &size, &tensor),
        ACCEL_ERROR_NOT_FOUND);
    assert_int_equal(accel_allocator_set_tensor_owned(allocator, a, true), ACCEL_OK);
    assert_int_equal(
        accel_allocator_free_user(allocator, a, NULL, NULL, true, false, &size, &tensor),
        ACCEL_ERROR_INVALID_ARGUMENT);
    assert_true(tensor);
    assert_true(accel_allocator_tensor_owned(allocator, a)); /* still live */
    assert_int_equal(
        accel_allocator_free_user(allocator, a, NULL, NULL, true, true, &size, &tensor), ACCEL_OK);
    assert_false(tensor);
    assert_int_equal(size, 1000);
    assert_int_equal(
        accel_allocator_free_user(allocator, a, NULL, NULL, true, true, &size, &tensor),
        ACCEL_ERROR_NOT_FOUND); /* already freed */
    assert_int_equal(
        accel_allocator_free_user(allocator, b, NULL, &owner, true, false, &size, &tensor),
        ACCEL_OK);
    assert_int_equal(size, 2000);
    /* Held: not found any more, still allocated until released. */
    assert_int_equal(accel_allocator_lookup(allocator, b, NULL, NULL), ACCEL_ERROR_NOT_FOUND);
    assert_int_equal(stats_of(allocator).allocated_bytes, 2048);
    accel_allocator_release_held(allocator, &owner);
    assert_int_equal(stats_of(allocator).allocated_bytes, 0);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.used, 0);
}

/* A block freed on a busy stream while a graph captured (held for it) stays
 * stream-ordered through the release: no stream, not even the default one
 * (idle here, as on cpu), gets it before the freeing stream's work has run,
 * and the freeing stream may be gone by then. Both hold entry points. */
static void test_held_block_waits_for_its_stream(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_device_t iface = fake_interface(&device, true);
    accel_allocator_t *allocator = NULL;
    static const int owner;
    size_t size = 0;
    bool tensor = false;
    iface.stream_idle = fake_stream_idle;
    assert_int_equal(accel_allocator_create(&iface, true, &allocator), ACCEL_OK);
    idle_stream = NULL;

    char *a = alloc_ok(allocator, 4 * KIB, STREAM_A);
    char *b = alloc_ok(allocator, 4 * KIB, STREAM_A);
    assert_int_equal(
        accel_allocator_free_user(allocator, a, STREAM_A, &owner, true, false, &size, &tensor),
        ACCEL_OK);
    fake_event_t *a_event = last_event;
    assert_non_null(a_event);
    assert_int_equal(accel_allocator_hold(allocator, b, STREAM_A, true, &owner), ACCEL_OK);
    fake_event_t *b_event = last_event;
    assert_ptr_not_equal(b_event, a_event);
    accel_allocator_release_held(allocator, &owner);

    char *c = alloc_ok(allocator, 4 * KIB, NULL);
    char *d = alloc_ok(allocator, 4 * KIB, STREAM_B);
    char *e = alloc_ok(allocator, 4 * KIB, STREAM_A);
    assert_true(c != a && c != b && d != a && d != b && e != a && e != b);
    free_ok(allocator, c, NULL);
    free_ok(allocator, d, NULL);
    free_ok(allocator, e, NULL);

    a_event->done = true;
    b_event->done = true;
    char *f = alloc_ok(allocator, 4 * KIB, STREAM_B);
    char *g = alloc_ok(allocator, 4 * KIB, STREAM_B);
    assert_true((f == a || f == b) && (g == a || g == b));
    free_ok(allocator, f, NULL);
    free_ok(allocator, g, NULL);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.events_live, 0);
    assert_int_equal(device.used, 0);
}

/* A hold without `record` (core: the freeing stream is itself capturing,
 * where CUDA refuses queries and records) asks nothing of the stream and
 * records no event; the block is still withheld until its release, and
 * reusable at once after it (core synchronizes the device first). */
static void test_hold_without_record(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_device_t iface = fake_interface(&device, true);
    accel_allocator_t *allocator = NULL;
    static const int owner;
    size_t size = 0;
    bool tensor = false;
    iface.stream_idle = fake_stream_idle;
    assert_int_equal(accel_allocator_create(&iface, true, &allocator), ACCEL_OK);
    idle_stream = NULL;
    idle_queries = 0;

    char *a = alloc_ok(allocator, 4 * KIB, STREAM_A);
    char *b = alloc_ok(allocator, 4 * KIB, STREAM_A);
    int created = device.events_created;
    assert_int_equal(
        accel_allocator_free_user(allocator, a, STREAM_A, &owner, false, false, &size, &tensor),
        ACCEL_OK);
    assert_int_equal(accel_allocator_hold(allocator, b, STREAM_A, false, &owner), ACCEL_OK);
    assert_int_equal(idle_queries, 0);
    assert_int_equal(device.events_created, created);
    assert_true(accel_allocator_holds(allocator, &owner));

    char *c = alloc_ok(allocator, 4 * KIB, STREAM_A);
    assert_true(c != a && c != b);
    free_ok(allocator, c, STREAM_A);
    accel_allocator_release_held(allocator, &owner);
    assert_false(accel_allocator_holds(allocator, &owner));
    char *d = alloc_ok(allocator, 4 * KIB, STREAM_B);
    char *e = alloc_ok(allocator, 4 * KIB, STREAM_B);
    assert_true((d == a || d == b) && (e == a || e == b));
    free_ok(allocator, d, NULL);
    free_ok(allocator, e, NULL);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.events_live, 0);
    assert_int_equal(device.used, 0);
}

/* While a capture is underway (accel_allocator_capture_begin) the allocator
 * queries no event on allocation, and a hold records none even when asked
 * to (torch's captures_underway: queries and end-of-life records are illegal
 * during a capture, and the freeing stream may have joined it). After the
 * capture the pending event is polled again as usual. */
static void test_capture_queries_and_records_no_event(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, true, true);
    static const int owner;

    char *a = alloc_ok(allocator, 4 * KIB, STREAM_A);
    free_ok(allocator, a, STREAM_A);
    fake_event_t *pending = last_event;
    assert_non_null(pending);
    char *b = alloc_ok(allocator, 4 * KIB, STREAM_B);

    accel_allocator_capture_begin(allocator);
    int queries = pending->queries;
    int created = device.events_created;
    char *c = alloc_ok(allocator, 4 * KIB, STREAM_B);
    char *d = alloc_ok(allocator, 64 * KIB, STREAM_B);
    assert_int_equal(pending->queries, queries);
    assert_int_equal(accel_allocator_hold(allocator, b, STREAM_B, true, &owner), ACCEL_OK);
    assert_int_equal(device.events_created, created);
    accel_allocator_empty_cache(allocator);
    assert_int_equal(pending->queries, queries);
    accel_allocator_capture_end(allocator);

    int live = device.events_live;
    pending->done = true;
    char *e = alloc_ok(allocator, 4 * KIB, STREAM_B); /* polled: done, destroyed */
    assert_int_equal(device.events_live, live - 1);
    accel_allocator_release_held(allocator, &owner);
    free_ok(allocator, c, STREAM_B);
    free_ok(allocator, d, STREAM_B);
    free_ok(allocator, e, STREAM_B);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.events_live, 0);
    assert_int_equal(device.used, 0);
}

/* An out-of-memory during a capture is returned without giving cached
 * segments back (a raw free mid-capture: on mlu a device synchronize), and
 * empty_cache frees nothing then; once the capture ends, the retry runs. */
static void test_capture_skips_oom_release(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 4 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);
    void *small = alloc_ok(allocator, KIB, NULL);
    free_ok(allocator, small, NULL);

    accel_allocator_capture_begin(allocator);
    void *out = NULL;
    assert_int_equal(accel_allocator_alloc(allocator, 3 * MIB, NULL, &out),
                     ACCEL_ERROR_OUT_OF_MEMORY);
    accel_allocator_empty_cache(allocator);
    assert_int_equal(device.raw_frees, 0);
    assert_int_equal(stats_of(allocator).reserved_bytes, 2 * MIB);
    assert_int_equal(stats_of(allocator).alloc_retries, 0);
    accel_allocator_capture_end(allocator);

    void *big = alloc_ok(allocator, 3 * MIB, NULL);
    assert_int_equal(device.raw_frees, 1);
    assert_int_equal(stats_of(allocator).alloc_retries, 1);
    free_ok(allocator, big, NULL);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.used, 0);
}

/* Held blocks still waiting on their event at destroy: the events go too. */
static void test_destroy_with_held_blocks(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, true, true);
    static const int owner;
    char *a = alloc_ok(allocator, 4 * KIB, STREAM_A);
    assert_int_equal(accel_allocator_hold(allocator, a, STREAM_A, true, &owner), ACCEL_OK);
    assert_int_equal(device.events_live, 1);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.events_live, 0);
    assert_int_equal(device.used, 0);
}

static void test_tensor_owned_mark(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);
    char *a = alloc_ok(allocator, 4096, NULL);
    assert_false(accel_allocator_tensor_owned(allocator, a));
    assert_int_equal(accel_allocator_set_tensor_owned(allocator, a + 8, true),
                     ACCEL_ERROR_NOT_FOUND);
    assert_int_equal(accel_allocator_set_tensor_owned(allocator, a, true), ACCEL_OK);
    assert_true(accel_allocator_tensor_owned(allocator, a));
    assert_false(accel_allocator_tensor_owned(allocator, a + 8));
    free_ok(allocator, a, NULL);
    assert_false(accel_allocator_tensor_owned(allocator, a));
    char *again = alloc_ok(allocator, 4096, NULL);
    assert_ptr_equal(again, a); /* the cached block comes back, unmarked */
    assert_false(accel_allocator_tensor_owned(allocator, again));
    free_ok(allocator, again, NULL);
    accel_allocator_destroy(allocator);
}

static void test_bad_free_changes_nothing(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, false, true);
    char *a = alloc_ok(allocator, 4096, NULL);
    char *b = alloc_ok(allocator, 4096, NULL);
    free_ok(allocator, b, NULL);
    accel_memory_stats_t before = stats_of(allocator);

    assert_int_equal(accel_allocator_free(allocator, b, NULL), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "was not allocated by this allocator"));
    assert_non_null(strstr(accel_last_error(), "already freed"));
    int foreign = 0;
    assert_int_equal(accel_allocator_free(allocator, &foreign, NULL), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_allocator_free(allocator, a + 512, NULL), ACCEL_ERROR_INVALID_ARGUMENT);
    accel_memory_stats_t after = stats_of(allocator);
    assert_memory_equal(&before, &after, sizeof before);

    /* a is still live and b's memory is still reusable exactly once. */
    assert_int_equal(accel_allocator_lookup(allocator, a, NULL, NULL), ACCEL_OK);
    char *again = alloc_ok(allocator, 4096, NULL);
    assert_ptr_equal(again, b);
    free_ok(allocator, again, NULL);
    free_ok(allocator, a, NULL);
    assert_int_equal(accel_allocator_alloc(NULL, 1, NULL, (void **)&again),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_allocator_alloc(allocator, 1, NULL, NULL), ACCEL_ERROR_INVALID_ARGUMENT);
    accel_allocator_destroy(allocator);
}

static void test_destroy_with_live_blocks(void **state)
{
    (void)state;
    fake_device_t device = {.budget = 64 * MIB};
    accel_allocator_t *allocator = make_allocator(&device, true, true);
    alloc_ok(allocator, 100, STREAM_A);
    void *b = alloc_ok(allocator, 3 * MIB, STREAM_A);
    alloc_ok(allocator, 100, STREAM_B);
    free_ok(allocator, b, STREAM_A);
    assert_int_equal(device.events_live, 1);
    accel_allocator_destroy(allocator);
    assert_int_equal(device.events_live, 0);
    assert_int_equal(device.used, 0);
    assert_int_equal(device.raw_allocs, device.raw_frees);
}

/* ---------------------------------------------------------------- stress */

#define STRESS_THREADS 8
#define STRESS_ROUNDS  4000
#define STRESS_SLOTS   16

typedef struct stress_arg {
    accel_allocator_t *allocator;
    unsigned seed;
    int id;
    int failures;
} stress_arg_t;

static unsigned stress_random(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

static void *stress_thread(void *opaque)
{
    stress_arg_t *arg = opaque;
    void *stream = (void *)(uintptr_t)(0x100 + (arg->seed & 3)); /* streams shared by pairs */
    unsigned char *slots[STRESS_SLOTS] = {0};
    size_t sizes[STRESS_SLOTS] = {0};
    for (int round = 0; round < STRESS_ROUNDS; round++) {
        unsigned r = stress_random(&arg->seed);
        int slot = (int)(r % STRESS_SLOTS);
        if (slots[slot]) {
            /* The pattern written at alloc must have survived other threads. */
            unsigned char tag = (unsigned char)(arg->id * STRESS_SLOTS + slot + 1);
            if (slots[slot][0] != tag || slots[slot][sizes[slot] - 1] != tag)
                arg->failures++;
            if (accel_allocator_free(arg->allocator, slots[slot], stream) != ACCEL_OK)
                arg->failures++;
            slots[slot] = NULL;
            continue;
        }
        static const size_t choices[] = {1, 512, 4000, 70000, 600 * 1024, 1 << 20, 3 << 20};
        size_t size = choices[(r >> 4) % (sizeof choices / sizeof choices[0])] + (r >> 12) % 64;
        void *ptr = NULL;
        if (accel_allocator_alloc(arg->allocator, size, stream, &ptr) != ACCEL_OK || !ptr) {
            arg->failures++;
            continue;
        }
        slots[slot] = ptr;
        sizes[slot] = size;
        unsigned char tag = (unsigned char)(arg->id * STRESS_SLOTS + slot + 1);
        memset(ptr, tag, size < 4096 ? size : 4096);
        slots[slot][size - 1] = tag;
        if (accel_allocator_lookup(arg->allocator, slots[slot] + size / 2, NULL, NULL) != ACCEL_OK)
            arg->failures++;
    }
    for (int slot = 0; slot < STRESS_SLOTS; slot++)
        if (slots[slot] && accel_allocator_free(arg->allocator, slots[slot], stream) != ACCEL_OK)
            arg->failures++;
    return NULL;
}

static void run_stress(bool caching)
{
    /* Events complete after a few polls, so blocks cross between streams. */
    fake_device_t device = {.budget = (size_t)4 << 30, .complete_after = 3};
    accel_allocator_t *allocator = make_allocator(&device, true, caching);
    pthread_t threads[STRESS_THREADS];
    stress_arg_t args[STRESS_THREADS];
    for (int i = 0; i < STRESS_THREADS; i++) {
        args[i] = (stress_arg_t){.allocator = allocator, .seed = 7u * (unsigned)i + 1u, .id = i};
        assert_int_equal(pthread_create(&threads[i], NULL, stress_thread, &args[i]), 0);
    }
    for (int i = 0; i < STRESS_THREADS; i++) {
        assert_int_equal(pthread_join(threads[i], NULL), 0);
        assert_int_equal(args[i].failures, 0);
    }
    accel_memory_stats_t stats = stats_of(allocator);
    assert_int_equal(stats.allocated_bytes, 0);
    assert_int_equal(stats.requested_bytes, 0);
    assert_int_equal(stats.allocation_count, 0);
    assert_true(stats.allocation_count_peak > 0);
    assert_int_equal(stats.ooms, 0);
    /* Once every event completed, all blocks merge back into whole segments
     * and empty_cache gives every byte back. */
    for (int poll = 0; poll < device.complete_after; poll++)
        accel_allocator_empty_cache(allocator);
    stats = stats_of(allocator);
    assert_int_equal(stats.reserved_bytes, 0);
    assert_int_equal(stats.segment_count, 0);
    assert_int_equal(device.events_live, 0);
    assert_int_equal(device.used, 0);
    accel_allocator_destroy(allocator);
}

static void test_stress_threads_caching(void **state)
{
    (void)state;
    run_stress(true);
}

static void test_stress_threads_passthrough(void **state)
{
    (void)state;
    run_stress(false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_rejects_bad_device),
        cmocka_unit_test(test_size_zero_and_null_free),
        cmocka_unit_test(test_rounding_and_caching),
        cmocka_unit_test(test_overlaps),
        cmocka_unit_test(test_idle_stream_free_records_no_event),
        cmocka_unit_test(test_tensor_owned_mark),
        cmocka_unit_test(test_free_user_checks_in_one_step),
        cmocka_unit_test(test_hold_without_record),
        cmocka_unit_test(test_capture_queries_and_records_no_event),
        cmocka_unit_test(test_capture_skips_oom_release),
        cmocka_unit_test(test_held_block_waits_for_its_stream),
        cmocka_unit_test(test_destroy_with_held_blocks),
        cmocka_unit_test(test_split_and_merge_small),
        cmocka_unit_test(test_large_pool_split),
        cmocka_unit_test(test_cross_stream_waits_for_event),
        cmocka_unit_test(test_completed_event_allows_cross_stream_reuse),
        cmocka_unit_test(test_completed_events_merge_and_release),
        cmocka_unit_test(test_no_events_reuse_across_streams),
        cmocka_unit_test(test_oom_retry_and_report),
        cmocka_unit_test(test_passthrough),
        cmocka_unit_test(test_passthrough_defers_free_until_event),
        cmocka_unit_test(test_peaks_and_reset),
        cmocka_unit_test(test_empty_cache_keeps_used_segments),
        cmocka_unit_test(test_empty_cache_waits_for_free_events),
        cmocka_unit_test(test_private_pool_keeps_its_blocks),
        cmocka_unit_test(test_private_pool_survives_oom_retry),
        cmocka_unit_test(test_private_pool_release_with_live_block),
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_bad_free_changes_nothing),
        cmocka_unit_test(test_destroy_with_live_blocks),
        cmocka_unit_test(test_stress_threads_caching),
        cmocka_unit_test(test_stress_threads_passthrough),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
