/* suite_stream.c: stream latencies and graph replay. Host-callback round
 * trip (add a no-op callback, synchronize the stream) and event record +
 * synchronize are latencies with no raw baseline; graph replay of 64 small
 * memsets is compared with queueing the same 64 one by one on the same
 * stream (both end with a stream synchronize). */
#include <stdlib.h>

#include "bench.h"

#define GRAPH_NODES      64
#define GRAPH_NODE_BYTES 256

typedef struct stream_arg {
    accel_t *acc;
    accel_stream_t *stream;
    accel_event_t *event;
    accel_graph_t *graph;
    void *device;
} stream_arg_t;

static void stream_noop(void *user_data)
{
    (void)user_data;
}

static bool stream_callback_round_trip(void *arg, size_t iters)
{
    stream_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        if (accel_stream_add_callback(a->stream, stream_noop, NULL) != ACCEL_OK ||
            accel_stream_synchronize(a->stream) != ACCEL_OK)
            return false;
    return true;
}

static bool stream_event_round_trip(void *arg, size_t iters)
{
    stream_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        if (accel_event_record(a->event, a->stream) != ACCEL_OK ||
            accel_event_synchronize(a->event) != ACCEL_OK)
            return false;
    return true;
}

static bool stream_queue_nodes(stream_arg_t *a)
{
    for (int n = 0; n < GRAPH_NODES; n++)
        if (accel_memset_async(a->acc, (char *)a->device + n * GRAPH_NODE_BYTES, n,
                               GRAPH_NODE_BYTES, a->stream) != ACCEL_OK)
            return false;
    return true;
}

static bool stream_graph_replay(void *arg, size_t iters)
{
    stream_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        if (accel_graph_replay(a->graph, a->stream) != ACCEL_OK ||
            accel_stream_synchronize(a->stream) != ACCEL_OK)
            return false;
    return true;
}

static bool stream_one_by_one(void *arg, size_t iters)
{
    stream_arg_t *a = arg;
    for (size_t i = 0; i < iters; i++)
        if (!stream_queue_nodes(a) || accel_stream_synchronize(a->stream) != ACCEL_OK)
            return false;
    return true;
}

/* Capture the 64 memsets once; NULL graph (and the reason in `why`) when the
 * backend has none. */
static accel_status_t stream_capture(stream_arg_t *a)
{
    accel_status_t status = accel_graph_create(a->acc, &a->graph);
    if (status != ACCEL_OK)
        return status;
    status = accel_graph_capture_begin(a->graph, a->stream);
    if (status == ACCEL_OK) {
        bool queued = stream_queue_nodes(a);
        status = accel_graph_capture_end(a->graph, a->stream);
        if (status == ACCEL_OK && !queued)
            status = ACCEL_ERROR_INTERNAL;
    }
    if (status != ACCEL_OK) {
        accel_graph_destroy(a->graph);
        a->graph = NULL;
    }
    return status;
}

void bench_suite_stream(bench_ctx_t *ctx)
{
    stream_arg_t arg = {.acc = ctx->acc};
    bench_figure_t *f =
        bench_figure_add(ctx, "stream", "host callback round trip", BENCH_TIME, "us", 1e6, 0);
    if (f == NULL)
        return;
    if (accel_stream_create(ctx->acc, ACCEL_CURRENT_DEVICE, 0, &arg.stream) != ACCEL_OK ||
        accel_event_create(ctx->acc, ACCEL_CURRENT_DEVICE, ACCEL_EVENT_DEFAULT, &arg.event) !=
            ACCEL_OK ||
        accel_malloc(ctx->acc, GRAPH_NODES * GRAPH_NODE_BYTES, &arg.device) != ACCEL_OK) {
        bench_figure_fail(f, NULL);
        goto out;
    }
    bench_measure(ctx, f, stream_callback_round_trip, NULL, &arg, NULL, "none (latency only)");
    if (!f->failed)
        snprintf(f->note, sizeof f->note,
                 "goal <= 5 us; add_callback + stream_synchronize, created stream");

    if ((f = bench_figure_add(ctx, "stream", "event record + synchronize", BENCH_TIME, "us", 1e6,
                              0))) {
        bench_measure(ctx, f, stream_event_round_trip, NULL, &arg, NULL, "none (latency only)");
        if (!f->failed)
            snprintf(f->note, sizeof f->note, "goal <= 5 us; created stream");
    }

    if ((f = bench_figure_add(ctx, "stream", "graph replay, 64 memsets", BENCH_TIME, "us", 1e6,
                              0))) {
        accel_status_t status = stream_capture(&arg);
        if (status == ACCEL_OK) {
            bench_measure(ctx, f, stream_graph_replay, stream_one_by_one, &arg,
                          "64 memset_async, one by one", NULL);
            f->has_goal = true;
            f->goal = 2.0; /* replay skips validation and dispatch */
            if (!f->failed)
                snprintf(f->note, sizeof f->note, "%d B each, + stream_synchronize",
                         GRAPH_NODE_BYTES);
        } else {
            snprintf(f->baseline_note, sizeof f->baseline_note, "n/a (%s)",
                     status == ACCEL_ERROR_UNSUPPORTED ? "graphs unsupported" : "capture failed");
            bench_figure_fail(f, NULL);
        }
    }
out:
    if (arg.graph)
        accel_graph_destroy(arg.graph);
    if (arg.device)
        accel_free(ctx->acc, arg.device);
    if (arg.event)
        accel_event_destroy(arg.event);
    if (arg.stream)
        accel_stream_destroy(arg.stream);
}
