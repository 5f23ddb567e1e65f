/* sdaa.c: one probe per row of the sdaa backend's "Vendor rules we rely
 * on" table (src/backends/sdaa/README.md). Little about SDAA is public, so
 * each probe asks the runtime itself, through the backend's own symbol
 * list on the library it loaded (ACCEL_SDAA_LIBRARY, /opt/tecoai/lib64,
 * libsdaart.so), what the backend assumes. Each runs in its own child
 * process (check.h) on device 0, on streams and events it makes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "backends/sdaa/types.h"
#include "check.h"
#include "rules/rule-list.h"
#include "rules/rule_library.h"
#include "rules/rule_common.h"

/* The runtime's functions, as the backend declares them (its symbols.h). */
typedef struct rule_sdaa_api {
#define ACCEL_SDAA_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/sdaa/symbols.h"
#undef ACCEL_SDAA_SYMBOL
} rule_sdaa_api_t;

static rule_sdaa_api_t rule_sdaa;

static const accel_symbol_t rule_sdaa_symbols[] = {
#define ACCEL_SDAA_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(rule_sdaa, required, name, export),
#include "backends/sdaa/symbols.h"
#undef ACCEL_SDAA_SYMBOL
};

static const char *const rule_sdaa_names[] = {"/opt/tecoai/lib64/libsdaart.so", "libsdaart.so",
                                              NULL};

static accel_vendor_library_t rule_sdaa_library = {
    RULE_LIBRARY("sdaa", rule_sdaa_names, rule_sdaa_symbols,
                 "no Tecorigin SDAA runtime (libsdaart.so) found", "the libsdaart.so that loaded"),
};

/* How long a probe polls for work it released to finish. */
#define RULE_SDAA_POLL_MS 2000

/* Load the runtime, make device 0 current here and give a stream of it. */
static accel_sdaa_stream_t rule_sdaa_enter(void)
{
    accel_sdaa_stream_t stream = NULL;
    rule_library_enter(&rule_sdaa_library, "the SDAA runtime");
    assert_int_equal(rule_sdaa.sdaaSetDevice(0), ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaStreamCreateWithFlags(&stream, ACCEL_SDAA_STREAM_NON_BLOCKING),
                     ACCEL_SDAA_SUCCESS);
    return stream;
}

static accel_sdaa_event_t rule_sdaa_event(void)
{
    accel_sdaa_event_t event = NULL;
    assert_int_equal(rule_sdaa.sdaaEventCreate(&event), ACCEL_SDAA_SUCCESS);
    return event;
}

/* A stream callback that blocks until its gate (user_data) opens. */
static void rule_sdaa_gate_callback(accel_sdaa_stream_t stream, accel_sdaa_error_t status,
                                    void *gate)
{
    (void)stream;
    (void)status;
    conf_gate_wait_fn(gate);
}

/* Hold `stream` behind a callback until the gate opens. */
static void rule_sdaa_hold(accel_sdaa_stream_t stream, conf_gate_t *gate)
{
    conf_gate_init(gate);
    assert_int_equal(rule_sdaa.sdaaStreamAddCallback(stream, rule_sdaa_gate_callback, gate, 0),
                     ACCEL_SDAA_SUCCESS);
}

/* Poll `query(handle)` until it answers success; the last answer. */
static accel_sdaa_error_t rule_sdaa_poll(accel_sdaa_error_t (*query)(void *), void *handle)
{
    double until = rule_now_ms() + RULE_SDAA_POLL_MS;
    accel_sdaa_error_t code;
    while ((code = query(handle)) != ACCEL_SDAA_SUCCESS && rule_now_ms() < until)
        rule_sleep_ms(1);
    return code;
}

/* SDAA-EVFLAGS: the backend makes events with plain sdaaEventCreate (flags
 * may be unsupported), so a plain event must time, in milliseconds. */
void probe_sdaa_plain_events_time(void **state)
{
    accel_sdaa_stream_t stream;
    accel_sdaa_event_t start, end;
    double before, after;
    float ms = -1.0f;
    accel_sdaa_error_t code;
    (void)state;
    stream = rule_sdaa_enter();
    start = rule_sdaa_event();
    end = rule_sdaa_event();
    before = rule_now_ms();
    assert_int_equal(rule_sdaa.sdaaEventRecord(start, stream), ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaEventSynchronize(start), ACCEL_SDAA_SUCCESS);
    rule_sleep_ms(30);
    assert_int_equal(rule_sdaa.sdaaEventRecord(end, stream), ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaEventSynchronize(end), ACCEL_SDAA_SUCCESS);
    after = rule_now_ms();
    code = rule_sdaa.sdaaEventElapsedTime(&ms, start, end);
    if (code != ACCEL_SDAA_SUCCESS)
        fail_msg("sdaaEventElapsedTime of two plain sdaaEventCreate events returned %d: accel's "
                 "timing events are plain ones",
                 code);
    if (ms < 15.0f || ms > (float)((after - before) * 1.1 + 1.0))
        fail_msg("two plain events around a 30 ms host sleep are %.3f ms apart (host: %.3f ms)",
                 (double)ms, after - before);
    assert_int_equal(rule_sdaa.sdaaEventDestroy(end), ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaEventDestroy(start), ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaStreamDestroy(stream), ACCEL_SDAA_SUCCESS);
    rule_check_elapsed_ms(conformance_acc, 30);
}

/* SDAA-EVDESTROY: the backend destroys an event only once a query says its
 * record completed, so a query must say so once the record ran. */
void probe_sdaa_event_completes_before_destroy(void **state)
{
    accel_sdaa_stream_t stream;
    accel_sdaa_event_t event;
    accel_sdaa_error_t pending, done;
    conf_gate_t gate;
    (void)state;
    stream = rule_sdaa_enter();
    event = rule_sdaa_event();
    rule_sdaa_hold(stream, &gate);
    assert_int_equal(rule_sdaa.sdaaEventRecord(event, stream), ACCEL_SDAA_SUCCESS);
    pending = rule_sdaa.sdaaEventQuery(event);
    conf_gate_open(&gate);
    assert_int_equal(rule_sdaa.sdaaStreamSynchronize(stream), ACCEL_SDAA_SUCCESS);
    done = rule_sdaa_poll((accel_sdaa_error_t(*)(void *))rule_sdaa.sdaaEventQuery, event);
    if (done != ACCEL_SDAA_SUCCESS)
        fail_msg("sdaaEventQuery still answers %d %d ms after its stream finished the record: "
                 "accel's deferred sdaaEventDestroy would never run",
                 done, RULE_SDAA_POLL_MS);
    if (pending == ACCEL_SDAA_SUCCESS)
        print_message("the event said complete while its record was held back");
    assert_int_equal(rule_sdaa.sdaaEventDestroy(event), ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaStreamDestroy(stream), ACCEL_SDAA_SUCCESS);
    conf_gate_destroy(&gate);
}

/* SDAA-NOTREADY: sdaaErrorNotReady (600) is what event and stream queries
 * answer for "not yet", and it is not sticky: the next call succeeds. */
void probe_sdaa_not_ready_is_600(void **state)
{
    accel_sdaa_stream_t stream;
    accel_sdaa_event_t event;
    accel_sdaa_error_t stream_busy, event_busy, after;
    conf_gate_t gate;
    (void)state;
    stream = rule_sdaa_enter();
    event = rule_sdaa_event();
    rule_sdaa_hold(stream, &gate);
    assert_int_equal(rule_sdaa.sdaaEventRecord(event, stream), ACCEL_SDAA_SUCCESS);
    stream_busy = rule_sdaa.sdaaStreamQuery(stream);
    event_busy = rule_sdaa.sdaaEventQuery(event);
    conf_gate_open(&gate);
    after = rule_sdaa.sdaaStreamSynchronize(stream);
    if (stream_busy != ACCEL_SDAA_ERROR_NOT_READY || event_busy != ACCEL_SDAA_ERROR_NOT_READY)
        fail_msg("queries of a stream held by a callback answered %d (stream) and %d (event), "
                 "not sdaaErrorNotReady (600)",
                 stream_busy, event_busy);
    if (after != ACCEL_SDAA_SUCCESS)
        fail_msg("sdaaStreamSynchronize after a not-ready query returned %d: is 600 sticky?",
                 after);
    assert_int_equal(rule_sdaa.sdaaStreamQuery(stream), ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaEventQuery(event), ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaEventDestroy(event), ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaStreamDestroy(stream), ACCEL_SDAA_SUCCESS);
    conf_gate_destroy(&gate);
}

/* A callback that sleeps, then writes 7 into its pinned byte (user_data). */
static void rule_sdaa_slow_writer(accel_sdaa_stream_t stream, accel_sdaa_error_t status, void *byte)
{
    (void)stream;
    (void)status;
    rule_sleep_ms(50);
    *(volatile unsigned char *)byte = 7;
}

/* SDAA-CALLBACK: work queued after sdaaStreamAddCallback waits for the
 * callback to return, as on CUDA (accel's callbacks rely on it). */
void probe_sdaa_stream_waits_for_callback(void **state)
{
    accel_sdaa_stream_t stream;
    unsigned char *byte = NULL, back = 0;
    void *device = NULL;
    (void)state;
    stream = rule_sdaa_enter();
    assert_int_equal(rule_sdaa.sdaaMallocHost((void **)&byte, 64), ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaMalloc(&device, 64), ACCEL_SDAA_SUCCESS);
    *byte = 1;
    assert_int_equal(rule_sdaa.sdaaStreamAddCallback(stream, rule_sdaa_slow_writer, byte, 0),
                     ACCEL_SDAA_SUCCESS);
    assert_int_equal(
        rule_sdaa.sdaaMemcpyAsync(device, byte, 1, ACCEL_SDAA_MEMCPY_HOST_TO_DEVICE, stream),
        ACCEL_SDAA_SUCCESS);
    assert_int_equal(
        rule_sdaa.sdaaMemcpyAsync(byte + 32, device, 1, ACCEL_SDAA_MEMCPY_DEVICE_TO_HOST, stream),
        ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaStreamSynchronize(stream), ACCEL_SDAA_SUCCESS);
    back = byte[32];
    rule_sleep_ms(60); /* a callback the stream did not wait for ends first */
    if (back != 7)
        fail_msg("a copy queued after a callback read %u, not the 7 the callback wrote before "
                 "returning: the stream did not wait for sdaaStreamAddCallback's callback",
                 back);
    assert_int_equal(rule_sdaa.sdaaFree(device), ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaFreeHost(byte), ACCEL_SDAA_SUCCESS);
    assert_int_equal(rule_sdaa.sdaaStreamDestroy(stream), ACCEL_SDAA_SUCCESS);
}

/* SDAA-H2H: a host-to-host sdaaMemcpyAsync is refused when called (accel
 * copies on the host instead) or, if taken, copies; never taken and lost. */
void probe_sdaa_host_to_host_on_stream(void **state)
{
    enum { SIZE = 4096 };
    accel_sdaa_stream_t stream;
    unsigned char *src = malloc(SIZE), *dst = calloc(1, SIZE);
    accel_sdaa_error_t code;
    (void)state;
    assert_non_null(src);
    assert_non_null(dst);
    memset(src, 0x3c, SIZE);
    stream = rule_sdaa_enter();
    code = rule_sdaa.sdaaMemcpyAsync(dst, src, SIZE, ACCEL_SDAA_MEMCPY_HOST_TO_HOST, stream);
    if (code == ACCEL_SDAA_SUCCESS) {
        assert_int_equal(rule_sdaa.sdaaStreamSynchronize(stream), ACCEL_SDAA_SUCCESS);
        if (memcmp(dst, src, SIZE) != 0)
            fail_msg("sdaaMemcpyAsync took a host-to-host copy and the stream finished, but the "
                     "destination does not hold the source");
        print_message("the runtime takes host-to-host copies on a stream");
    } else {
        print_message("the runtime refuses host-to-host copies on a stream (%d)", code);
    }
    assert_int_equal(rule_sdaa.sdaaStreamDestroy(stream), ACCEL_SDAA_SUCCESS);
    free(dst);
    free(src);
}

/* SDAA-PAGEABLE: accel passes copies from pageable memory to
 * sdaaMemcpyAsync, so the runtime must read the source before returning
 * (CUDA's rule): the caller may reuse it at once. */
void probe_sdaa_pageable_source_read_at_call(void **state)
{
    enum { SIZE = 65536 };
    accel_t *acc = conformance_acc;
    accel_stream_t *stream = NULL;
    unsigned char *source = malloc(SIZE), *back = malloc(SIZE);
    void *device = NULL;
    conf_gate_t gate;
    (void)state;
    assert_non_null(source);
    assert_non_null(back);
    memset(source, 0x42, SIZE);
    assert_ok(accel_set_device(acc, 0));
    assert_ok(accel_malloc(acc, SIZE, &device));
    assert_ok(accel_stream_create(acc, 0, 0, &stream));
    conf_gate_init(&gate);
    assert_ok(accel_stream_add_callback(stream, conf_gate_wait_fn, &gate));
    assert_ok(accel_memcpy_async(acc, device, source, SIZE, ACCEL_COPY_HOST_TO_DEVICE, stream));
    memset(source, 0x99, SIZE);
    conf_gate_open(&gate);
    assert_ok(accel_stream_synchronize(stream));
    assert_ok(accel_memcpy(acc, back, device, SIZE, ACCEL_COPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < SIZE; i++)
        if (back[i] != 0x42)
            fail_msg("an async copy from pageable memory read the source after the call "
                     "returned (byte %zu is %#x, expected 0x42): a caller reusing its buffer "
                     "loses data",
                     i, back[i]);
    assert_ok(accel_stream_destroy(stream));
    assert_ok(accel_free(acc, device));
    conf_gate_destroy(&gate);
    free(back);
    free(source);
}
