/* demo.c: `accel demo [--size BYTES] [--backend NAME]`, the README's short
 * program run for real: device memory, a stream, an async copy in, a seeded
 * Philox fill timed by events, a copy back, and a check of the numbers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define DEMO_DEFAULT_SIZE (4u << 20) /* 4 MiB = 1Mi floats */
#define DEMO_MIN_SIZE     4096u      /* 1024 floats: enough for the mean check */
#define DEMO_SEED         1234u
#define DEMO_SHOWN        4

typedef struct demo {
    accel_t *acc;
    bool owned;
    float *host;
    void *device;
    accel_stream_t *stream;
    accel_event_t *start;
    accel_event_t *end;
} demo_t;

/* Check one accel call: on failure say which and why. */
static bool demo_ok(accel_status_t status, const char *what)
{
    if (status == ACCEL_OK)
        return true;
    accel_cli_fail(what);
    return false;
}

/* "4096", "64K", "4M", "1G" (binary units). */
static bool demo_parse_size(const char *text, size_t *out)
{
    char *end = NULL;
    errno = 0;
    if (!(*text >= '0' && *text <= '9'))
        return false;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || end == text)
        return false;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (*end != '\0' || value > (SIZE_MAX >> shift))
        return false;
    *out = (size_t)(value << shift);
    return true;
}

static bool demo_print_memory(accel_t *acc, const char *when)
{
    uint64_t allocated = 0, reserved = 0;
    if (!demo_ok(accel_memory_allocated(acc, ACCEL_CURRENT_DEVICE, &allocated),
                 "memory_allocated") ||
        !demo_ok(accel_memory_reserved(acc, ACCEL_CURRENT_DEVICE, &reserved), "memory_reserved"))
        return false;
    char a[32], r[32];
    accel_cli_format_bytes(allocated, a, sizeof a);
    accel_cli_format_bytes(reserved, r, sizeof r);
    char label[64];
    snprintf(label, sizeof label, "memory %s", when);
    printf("%-24s allocated %s, reserved %s\n", label, a, r);
    return true;
}

/* Phases run inside profiler ranges (accel_range_push/pop), so a trace
 * (ACCEL_TRACE=out.json accel demo) shows them around the work they issue. */
static bool demo_range_push(demo_t *d, const char *name)
{
    return demo_ok(accel_range_push(d->acc, name, NULL, NULL), "range_push");
}

/* Close the innermost range; `ok` is the phase's result. */
static bool demo_range_pop(demo_t *d, bool ok)
{
    return demo_ok(accel_range_pop(d->acc, NULL), "range_pop") && ok;
}

/* Pinned host buffer (filled with -1), device buffer, stream, timing events. */
static bool demo_allocate(demo_t *d, size_t bytes)
{
    size_t count = bytes / sizeof(float);
    void *host = NULL;
    if (!demo_ok(accel_host_alloc(d->acc, bytes, &host), "host_alloc"))
        return false;
    d->host = host;
    for (size_t i = 0; i < count; i++)
        d->host[i] = -1.0f; /* never a uniform value: a missed fill shows */
    return demo_ok(accel_malloc(d->acc, bytes, &d->device), "malloc") &&
           demo_ok(accel_stream_create(d->acc, ACCEL_CURRENT_DEVICE, 0, &d->stream),
                   "stream_create") &&
           demo_ok(accel_event_create(d->acc, ACCEL_CURRENT_DEVICE, ACCEL_EVENT_TIMING, &d->start),
                   "event_create") &&
           demo_ok(accel_event_create(d->acc, ACCEL_CURRENT_DEVICE, ACCEL_EVENT_TIMING, &d->end),
                   "event_create");
}

/* The seeded fill between two timing events, queued on the demo's stream. */
static bool demo_fill(demo_t *d, size_t count)
{
    return demo_ok(accel_manual_seed(d->acc, DEMO_SEED), "manual_seed") &&
           demo_ok(accel_event_record(d->start, d->stream), "event_record") &&
           demo_ok(accel_rng_uniform_f32(d->acc, d->device, count, d->stream), "rng_uniform_f32") &&
           demo_ok(accel_event_record(d->end, d->stream), "event_record");
}

/* Everything from allocation to the copy back, then the timing: one range
 * per phase inside a "demo" range. */
static bool demo_run(demo_t *d, size_t bytes, float *elapsed_ms)
{
    bool ok;
    if (!demo_range_push(d, "demo"))
        return false;
    ok = demo_range_push(d, "allocate") && demo_range_pop(d, demo_allocate(d, bytes));
    ok = ok && demo_range_push(d, "copy in") &&
         demo_range_pop(d, demo_ok(accel_memcpy_async(d->acc, d->device, d->host, bytes,
                                                      ACCEL_COPY_HOST_TO_DEVICE, d->stream),
                                   "memcpy_async (host to device)"));
    ok = ok && demo_range_push(d, "fill") && demo_range_pop(d, demo_fill(d, bytes / sizeof(float)));
    ok = ok && demo_range_push(d, "copy out") &&
         demo_range_pop(d, demo_ok(accel_memcpy_async(d->acc, d->host, d->device, bytes,
                                                      ACCEL_COPY_DEVICE_TO_HOST, d->stream),
                                   "memcpy_async (device to host)") &&
                               demo_ok(accel_stream_synchronize(d->stream), "stream_synchronize"));
    ok = demo_range_pop(d, ok);
    return ok && demo_ok(accel_event_elapsed_ms(d->start, d->end, elapsed_ms), "event_elapsed_ms");
}

/* Release in reverse order; every handle may still be NULL. */
static bool demo_release(demo_t *d)
{
    bool ok = true;
    if (d->end)
        ok = demo_ok(accel_event_destroy(d->end), "event_destroy") && ok;
    if (d->start)
        ok = demo_ok(accel_event_destroy(d->start), "event_destroy") && ok;
    if (d->stream)
        ok = demo_ok(accel_stream_destroy(d->stream), "stream_destroy") && ok;
    if (d->device)
        ok = demo_ok(accel_free(d->acc, d->device), "free") && ok;
    if (d->host)
        ok = demo_ok(accel_host_free(d->acc, d->host), "host_free") && ok;
    d->end = d->start = NULL;
    d->stream = NULL;
    d->device = NULL;
    d->host = NULL;
    return ok;
}

/* Print what came back; false when the numbers are not uniform in [0, 1). */
static bool demo_check(const float *values, size_t count, float elapsed_ms, size_t bytes)
{
    double sum = 0.0;
    size_t out_of_range = 0;
    for (size_t i = 0; i < count; i++) {
        sum += values[i];
        if (!(values[i] >= 0.0f && values[i] < 1.0f))
            out_of_range++;
    }
    double mean = sum / (double)count;
    printf("fill time (events)       %.3f ms", elapsed_ms);
    if (elapsed_ms > 0.0f)
        printf(" (%.2f GB/s)", (double)bytes / (elapsed_ms * 1e6));
    printf("\nfirst values             ");
    for (size_t i = 0; i < count && i < DEMO_SHOWN; i++)
        printf("%s%.6f", i ? ", " : "", values[i]);
    printf("\nmean                     %.6f (expected 0.5 +- 0.05)\n", mean);
    if (out_of_range > 0) {
        fprintf(stderr, "accel demo: %zu of %zu values outside [0, 1)\n", out_of_range, count);
        return false;
    }
    if (mean < 0.45 || mean > 0.55) {
        fprintf(stderr, "accel demo: mean %.6f is outside 0.5 +- 0.05\n", mean);
        return false;
    }
    return true;
}

static void demo_usage(FILE *out)
{
    fprintf(out,
            "usage: accel demo [--size BYTES] [--backend NAME]\n"
            "  Allocate BYTES of device memory (default %u; suffixes K, M, G; at least\n"
            "  %u, a multiple of 4), copy host data in on a stream, fill it with seeded\n"
            "  uniform random numbers timed by events, copy it back and check the mean.\n",
            DEMO_DEFAULT_SIZE, DEMO_MIN_SIZE);
}

int accel_cli_demo(int argc, char **argv)
{
    size_t bytes = DEMO_DEFAULT_SIZE;
    const char *backend = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            const char *text = argv[++i];
            if (!demo_parse_size(text, &bytes) || bytes < DEMO_MIN_SIZE || bytes % 4 != 0) {
                fprintf(stderr,
                        "accel demo: --size '%s': expected a byte count of at least %u that "
                        "is a multiple of 4 (suffixes K, M, G allowed)\n",
                        text, DEMO_MIN_SIZE);
                return ACCEL_CLI_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            backend = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            demo_usage(stdout);
            return ACCEL_CLI_EXIT_OK;
        } else {
            fprintf(stderr, "accel demo: unexpected argument '%s'\n", argv[i]);
            demo_usage(stderr);
            return ACCEL_CLI_EXIT_USAGE;
        }
    }

    demo_t d = {0};
    if (!accel_cli_open(backend, &d.acc, &d.owned))
        return ACCEL_CLI_EXIT_FAILURE;
    char device_name[64] = "";
    const char *method = accel_selection_method(d.acc);
    bool ok = demo_ok(accel_current_device_name(d.acc, device_name, sizeof device_name),
                      "current_device_name");
    if (ok) {
        char size[32];
        accel_cli_format_bytes(bytes, size, sizeof size);
        printf("backend                  %s (%s), device %s\n", accel_name(d.acc),
               method ? method : "?", device_name);
        printf("buffer                   %zu bytes (%s), %zu float32, seed %u\n", bytes, size,
               bytes / sizeof(float), DEMO_SEED);
        ok = demo_print_memory(d.acc, "before");
    }
    float elapsed_ms = 0.0f;
    ok = ok && demo_run(&d, bytes, &elapsed_ms);
    ok = ok && demo_check(d.host, bytes / sizeof(float), elapsed_ms, bytes);
    /* While the buffer is still allocated, then after freeing, then after
     * giving the cache back. */
    ok = ok && demo_print_memory(d.acc, "in use");
    ok = demo_release(&d) && ok;
    ok = ok && demo_print_memory(d.acc, "after free");
    ok = ok && demo_ok(accel_empty_cache(d.acc), "empty_cache") &&
         demo_print_memory(d.acc, "after empty_cache");
    accel_cli_close(d.acc, d.owned);
    if (ok)
        printf("demo passed\n");
    return ok ? ACCEL_CLI_EXIT_OK : ACCEL_CLI_EXIT_FAILURE;
}
