/* test_graphs.c: conformance tests of graphs: capture on a created stream,
 * replay with its effect checked every time, refusals, UNSUPPORTED backends. */
#include "conformance.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define GRAPHS_BYTES   1024
#define GRAPHS_REPLAYS 10

static void graphs_require(void)
{
    if (!conf_flag(ACCEL_FLAG_GRAPHS_SUPPORTED))
        conf_skip("backend reports no graph support (ACCEL_FLAG_GRAPHS_SUPPORTED false)");
    conf_require_streams();
}

static accel_graph_t *graphs_create(void)
{
    accel_graph_t *graph = NULL;
    assert_ok(accel_graph_create(conformance_acc, &graph));
    assert_non_null(graph);
    return graph;
}

static accel_stream_t *graphs_stream(void)
{
    accel_stream_t *stream = NULL;
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    return stream;
}

static void graphs_count_fn(void *arg)
{
    atomic_int *counter = arg;
    atomic_fetch_add(counter, 1);
}

void test_graphs_unsupported_create_refused(void **state)
{
    accel_graph_t *graph = (accel_graph_t *)&graph;
    (void)state;
    if (conf_flag(ACCEL_FLAG_GRAPHS_SUPPORTED))
        conf_skip("backend supports graphs; the refusal path does not apply");
    assert_status(ACCEL_ERROR_UNSUPPORTED, accel_graph_create(conformance_acc, &graph));
    assert_ptr_equal(graph, (accel_graph_t *)&graph);
}

void test_graphs_create_destroy(void **state)
{
    (void)state;
    graphs_require();
    assert_ok(accel_graph_destroy(graphs_create()));
}

void test_graphs_capture_replay_memset_memcpy(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *stream;
    uint8_t *device, *host = NULL;
    (void)state;
    graphs_require();
    graph = graphs_create();
    stream = graphs_stream();
    device = conf_device_alloc(GRAPHS_BYTES);
    assert_ok(accel_host_alloc(conformance_acc, GRAPHS_BYTES, (void **)&host));
    assert_ok(accel_graph_capture_begin(graph, stream));
    assert_ok(accel_memset_async(conformance_acc, device, 0x3c, GRAPHS_BYTES, stream));
    assert_ok(accel_memcpy_async(conformance_acc, host, device, GRAPHS_BYTES,
                                 ACCEL_COPY_DEVICE_TO_HOST, stream));
    assert_ok(accel_graph_capture_end(graph, stream));
    for (int replay = 0; replay < GRAPHS_REPLAYS; replay++) {
        assert_ok(accel_stream_synchronize(stream));
        memset(host, 0, GRAPHS_BYTES);
        assert_ok(accel_memset(conformance_acc, device, 0, GRAPHS_BYTES));
        assert_ok(accel_graph_replay(graph, stream));
        assert_ok(accel_stream_synchronize(stream));
        for (size_t i = 0; i < GRAPHS_BYTES; i++)
            assert_int_equal(host[i], 0x3c);
    }
    assert_ok(accel_graph_destroy(graph));
    assert_ok(accel_stream_destroy(stream));
    conf_device_free(device);
    assert_ok(accel_host_free(conformance_acc, host));
}

void test_graphs_replay_reads_current_data(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *stream;
    uint32_t *src, *dst, values[64], back[64];
    (void)state;
    graphs_require();
    graph = graphs_create();
    stream = graphs_stream();
    src = conf_device_alloc(sizeof values);
    dst = conf_device_alloc(sizeof values);
    assert_ok(accel_graph_capture_begin(graph, stream));
    assert_ok(accel_memcpy_async(conformance_acc, dst, src, sizeof values,
                                 ACCEL_COPY_DEVICE_TO_DEVICE, stream));
    assert_ok(accel_graph_capture_end(graph, stream));
    for (uint32_t replay = 0; replay < GRAPHS_REPLAYS; replay++) {
        for (uint32_t i = 0; i < 64; i++)
            values[i] = replay * 1000u + i;
        assert_ok(accel_stream_synchronize(stream));
        conf_to_device(src, values, sizeof values);
        assert_ok(accel_graph_replay(graph, stream));
        assert_ok(accel_stream_synchronize(stream));
        conf_to_host(back, dst, sizeof back);
        assert_memory_equal(values, back, sizeof values);
    }
    assert_ok(accel_graph_destroy(graph));
    assert_ok(accel_stream_destroy(stream));
    conf_device_free(src);
    conf_device_free(dst);
}

void test_graphs_replay_runs_callbacks(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *stream;
    atomic_int counter;
    int after_capture;
    (void)state;
    graphs_require();
    atomic_init(&counter, 0);
    graph = graphs_create();
    stream = graphs_stream();
    assert_ok(accel_graph_capture_begin(graph, stream));
    assert_ok(accel_stream_add_callback(stream, graphs_count_fn, &counter));
    assert_ok(accel_graph_capture_end(graph, stream));
    assert_ok(accel_stream_synchronize(stream));
    after_capture = atomic_load(&counter);
    assert_true(after_capture == 0 || after_capture == 1);
    for (int replay = 1; replay <= GRAPHS_REPLAYS; replay++) {
        assert_ok(accel_graph_replay(graph, NULL)); /* NULL: the capture stream */
        assert_ok(accel_stream_synchronize(stream));
        assert_int_equal(atomic_load(&counter), after_capture + replay);
    }
    assert_ok(accel_graph_destroy(graph));
    assert_ok(accel_stream_destroy(stream));
}

void test_graphs_replay_on_other_stream(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *capture, *other;
    uint8_t *device, host[256];
    (void)state;
    graphs_require();
    graph = graphs_create();
    capture = graphs_stream();
    other = graphs_stream();
    device = conf_device_alloc(sizeof host);
    assert_ok(accel_graph_capture_begin(graph, capture));
    assert_ok(accel_memset_async(conformance_acc, device, 0x42, sizeof host, capture));
    assert_ok(accel_graph_capture_end(graph, capture));
    assert_ok(accel_stream_synchronize(capture));
    assert_ok(accel_memset(conformance_acc, device, 0, sizeof host));
    assert_ok(accel_graph_replay(graph, other));
    assert_ok(accel_stream_synchronize(other));
    conf_to_host(host, device, sizeof host);
    for (size_t i = 0; i < sizeof host; i++)
        assert_int_equal(host[i], 0x42);
    assert_ok(accel_graph_destroy(graph));
    assert_ok(accel_stream_destroy(capture));
    assert_ok(accel_stream_destroy(other));
    conf_device_free(device);
}

void test_graphs_default_stream_consistent(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *fallback = NULL;
    uint8_t *device, host[64];
    accel_status_t status;
    (void)state;
    graphs_require();
    graph = graphs_create();
    device = conf_device_alloc(sizeof host);
    assert_ok(accel_default_stream(conformance_acc, ACCEL_CURRENT_DEVICE, &fallback));
    status = accel_graph_capture_begin(graph, fallback);
    if (status == ACCEL_OK) {
        assert_ok(accel_memset_async(conformance_acc, device, 0x24, sizeof host, fallback));
        assert_ok(accel_graph_capture_end(graph, fallback));
        assert_ok(accel_stream_synchronize(fallback));
        assert_ok(accel_memset(conformance_acc, device, 0, sizeof host));
        assert_ok(accel_graph_replay(graph, fallback));
        assert_ok(accel_stream_synchronize(fallback));
        conf_to_host(host, device, sizeof host);
        for (size_t i = 0; i < sizeof host; i++)
            assert_int_equal(host[i], 0x24);
    } else {
        assert_true(accel_last_error()[0] != '\0');
        assert_refused(accel_graph_capture_end(graph, fallback));
        /* the default stream is not left capturing: work runs */
        assert_ok(accel_memset(conformance_acc, device, 0x24, sizeof host));
        conf_to_host(host, device, sizeof host);
        assert_int_equal(host[0], 0x24);
    }
    assert_ok(accel_graph_destroy(graph));
    conf_device_free(device);
}

void test_graphs_replay_before_capture_refused(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *stream;
    (void)state;
    graphs_require();
    graph = graphs_create();
    stream = graphs_stream();
    assert_refused(accel_graph_replay(graph, stream));
    assert_refused(accel_graph_capture_end(graph, stream));
    assert_ok(accel_graph_destroy(graph));
    assert_ok(accel_stream_destroy(stream));
}

void test_graphs_null_arguments(void **state)
{
    accel_graph_t *graph = (accel_graph_t *)&graph;
    accel_stream_t *stream = NULL;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_graph_create(NULL, &graph));
    assert_ptr_equal(graph, (accel_graph_t *)&graph);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_graph_create(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_graph_capture_begin(NULL, stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_graph_capture_end(NULL, stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_graph_replay(NULL, stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_graph_destroy(NULL));
}

/* A stream that is capturing cannot be destroyed: the graph would be left
 * "capturing" for ever (never destroyable). The refusal changes nothing: the
 * capture still ends, the graph replays, then both go. */
void test_graphs_destroy_capturing_stream_refused(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *stream;
    uint8_t *device, back[GRAPHS_BYTES];
    (void)state;
    graphs_require();
    graph = graphs_create();
    stream = graphs_stream();
    device = conf_device_alloc(GRAPHS_BYTES);
    assert_ok(accel_graph_capture_begin(graph, stream));
    assert_ok(accel_memset_async(conformance_acc, device, 0x5a, GRAPHS_BYTES, stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_destroy(stream));
    assert_non_null(strstr(accel_last_error(), "capturing"));
    assert_ok(accel_graph_capture_end(graph, stream));
    assert_ok(accel_graph_replay(graph, stream));
    assert_ok(accel_stream_synchronize(stream));
    conf_to_host(back, device, sizeof back);
    for (size_t i = 0; i < GRAPHS_BYTES; i++)
        assert_int_equal(back[i], 0x5a);
    assert_ok(accel_graph_destroy(graph));
    assert_ok(accel_stream_destroy(stream));
    conf_device_free(device);
}

/* A block freed during capture, by accel_free or accel_free_async, stays
 * reserved until the graph is destroyed: an allocation made after the free
 * never gets those bytes, so a replay cannot overwrite its owner's data. */
static void graphs_free_during_capture(bool async)
{
    accel_graph_t *graph;
    accel_stream_t *stream;
    uint8_t *captured, *later[8], back[GRAPHS_BYTES];
    graphs_require();
    graph = graphs_create();
    stream = graphs_stream();
    captured = conf_device_alloc(GRAPHS_BYTES);
    assert_ok(accel_graph_capture_begin(graph, stream));
    assert_ok(accel_memset_async(conformance_acc, captured, 0x77, GRAPHS_BYTES, stream));
    if (async)
        assert_ok(accel_free_async(conformance_acc, captured, stream));
    else
        assert_ok(accel_free(conformance_acc, captured));
    assert_ok(accel_graph_capture_end(graph, stream));
    /* Same-size allocations on the capture stream and the default one: the
     * allocator's first choice for both is the block just freed. */
    for (int i = 0; i < 8; i++) {
        if (i % 2 == 0)
            assert_ok(
                accel_malloc_async(conformance_acc, GRAPHS_BYTES, stream, (void **)&later[i]));
        else
            assert_ok(accel_malloc(conformance_acc, GRAPHS_BYTES, (void **)&later[i]));
        assert_ok(accel_memset_async(conformance_acc, later[i], 0x11, GRAPHS_BYTES, stream));
    }
    assert_ok(accel_graph_replay(graph, stream));
    assert_ok(accel_stream_synchronize(stream));
    for (int i = 0; i < 8; i++) {
        conf_to_host(back, later[i], sizeof back);
        for (size_t b = 0; b < GRAPHS_BYTES; b++)
            assert_int_equal(back[b], 0x11);
    }
    /* The freed pointer is no longer the user's: a second free is refused. */
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_free(conformance_acc, captured));
    assert_ok(accel_graph_destroy(graph));
    for (int i = 0; i < 8; i++)
        assert_ok(accel_free(conformance_acc, later[i]));
    assert_ok(accel_stream_destroy(stream));
}

void test_graphs_free_during_capture_stays_reserved(void **state)
{
    (void)state;
    graphs_free_during_capture(false);
}

void test_graphs_free_async_during_capture_stays_reserved(void **state)
{
    (void)state;
    graphs_free_during_capture(true);
}

/* Whether ACCEL_ALLOC_CONF turned caching off: then no freed block is kept,
 * so there is no reuse for a shared pool to show. */
static bool graphs_caching_off(void)
{
    const char *conf = getenv("ACCEL_ALLOC_CONF");
    return conf != NULL && strstr(conf, "caching:0") != NULL;
}

/* Capture work on memory allocated during the capture (with accel_malloc or
 * on the capture stream), free it after capture_end, and hand out blocks
 * of that size: none of them may be the captured one, or the replay writes
 * into its new owner (the graph's private pool keeps it). */
static void graphs_capture_allocation_private(bool on_capture_stream)
{
    accel_graph_t *graph;
    accel_stream_t *stream;
    uint8_t *captured = NULL, *later[8], back[GRAPHS_BYTES];
    graphs_require();
    graph = graphs_create();
    stream = graphs_stream();
    assert_ok(accel_graph_capture_begin(graph, stream));
    if (on_capture_stream)
        assert_ok(accel_malloc_async(conformance_acc, GRAPHS_BYTES, stream, (void **)&captured));
    else
        assert_ok(accel_malloc(conformance_acc, GRAPHS_BYTES, (void **)&captured));
    assert_ok(accel_memset_async(conformance_acc, captured, 0x11, GRAPHS_BYTES, stream));
    assert_ok(accel_graph_capture_end(graph, stream));
    assert_ok(accel_stream_synchronize(stream));
    if (on_capture_stream)
        assert_ok(accel_free_async(conformance_acc, captured, stream));
    else
        assert_ok(accel_free(conformance_acc, captured));
    assert_ok(accel_synchronize(conformance_acc, ACCEL_CURRENT_DEVICE));
    for (int i = 0; i < 8; i++) {
        if (i % 2 == 0)
            assert_ok(
                accel_malloc_async(conformance_acc, GRAPHS_BYTES, stream, (void **)&later[i]));
        else
            assert_ok(accel_malloc(conformance_acc, GRAPHS_BYTES, (void **)&later[i]));
        assert_ok(accel_memset_async(conformance_acc, later[i], 0x55, GRAPHS_BYTES, stream));
    }
    assert_ok(accel_graph_replay(graph, stream));
    assert_ok(accel_stream_synchronize(stream));
    for (int i = 0; i < 8; i++) {
        conf_to_host(back, later[i], sizeof back);
        for (size_t b = 0; b < GRAPHS_BYTES; b++)
            assert_int_equal(back[b], 0x55);
    }
    assert_ok(accel_graph_destroy(graph));
    for (int i = 0; i < 8; i++)
        assert_ok(accel_free(conformance_acc, later[i]));
    assert_ok(accel_stream_destroy(stream));
}

void test_graphs_capture_allocation_stays_private(void **state)
{
    (void)state;
    graphs_capture_allocation_private(false);
}

void test_graphs_capture_stream_allocation_stays_private(void **state)
{
    (void)state;
    graphs_capture_allocation_private(true);
}

static uint64_t graphs_reserved(void)
{
    uint64_t bytes = 0;
    assert_ok(accel_memory_reserved(conformance_acc, ACCEL_CURRENT_DEVICE, &bytes));
    return bytes;
}

/* The private pool is given back when its graph is destroyed: with the cache
 * emptied, reserved memory is what it was before the capture. */
void test_graphs_private_pool_released_on_destroy(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *stream;
    uint64_t reserved_before;
    void *captured = NULL;
    (void)state;
    graphs_require();
    graph = graphs_create();
    stream = graphs_stream();
    assert_ok(accel_empty_cache(conformance_acc));
    reserved_before = graphs_reserved();
    assert_ok(accel_graph_capture_begin(graph, stream));
    assert_ok(accel_malloc_async(conformance_acc, 3u << 20, stream, &captured));
    assert_ok(accel_memset_async(conformance_acc, captured, 0x21, 3u << 20, stream));
    assert_ok(accel_graph_capture_end(graph, stream));
    assert_ok(accel_free_async(conformance_acc, captured, stream));
    assert_ok(accel_stream_synchronize(stream));
    /* The pool's memory is not in the cache: empty_cache keeps it. */
    assert_ok(accel_empty_cache(conformance_acc));
    assert_true(graphs_reserved() >= reserved_before + (3u << 20));
    assert_ok(accel_graph_destroy(graph));
    assert_ok(accel_empty_cache(conformance_acc));
    assert_true(graphs_reserved() == reserved_before);
    assert_ok(accel_stream_destroy(stream));
}

/* A graph created with another's pool allocates from it: a block the first
 * capture allocated and freed is what the second capture gets, and the pool
 * stays reserved until both graphs are gone. */
void test_graphs_shared_pool(void **state)
{
    accel_graph_t *first, *second = NULL;
    accel_stream_t *stream;
    uint8_t *block = NULL, *reused = NULL, *outside[4], back[GRAPHS_BYTES];
    (void)state;
    graphs_require();
    first = graphs_create();
    stream = graphs_stream();
    assert_ok(accel_graph_capture_begin(first, stream));
    assert_ok(accel_malloc_async(conformance_acc, GRAPHS_BYTES, stream, (void **)&block));
    assert_ok(accel_memset_async(conformance_acc, block, 0x31, GRAPHS_BYTES, stream));
    assert_ok(accel_graph_capture_end(first, stream));
    assert_ok(accel_free_async(conformance_acc, block, stream));
    assert_ok(accel_stream_synchronize(stream));

    assert_ok(accel_graph_create_sharing_pool(conformance_acc, first, &second));
    assert_non_null(second);
    assert_ok(accel_graph_capture_begin(second, stream));
    assert_ok(accel_malloc_async(conformance_acc, GRAPHS_BYTES, stream, (void **)&reused));
    assert_ok(accel_memset_async(conformance_acc, reused, 0x32, GRAPHS_BYTES, stream));
    assert_ok(accel_graph_capture_end(second, stream));
    if (!graphs_caching_off())
        assert_ptr_equal(reused, block);
    assert_ok(accel_free_async(conformance_acc, reused, stream));
    /* With the first graph gone the second still owns the pool: memory
     * handed out outside a capture is never its block. */
    assert_ok(accel_graph_destroy(first));
    for (int i = 0; i < 4; i++) {
        assert_ok(accel_malloc_async(conformance_acc, GRAPHS_BYTES, stream, (void **)&outside[i]));
        assert_true(outside[i] != reused);
        assert_ok(accel_memset_async(conformance_acc, outside[i], 0x55, GRAPHS_BYTES, stream));
    }
    assert_ok(accel_graph_replay(second, stream));
    assert_ok(accel_stream_synchronize(stream));
    for (int i = 0; i < 4; i++) {
        conf_to_host(back, outside[i], sizeof back);
        assert_int_equal(back[0], 0x55);
        assert_int_equal(back[GRAPHS_BYTES - 1], 0x55);
        assert_ok(accel_free(conformance_acc, outside[i]));
    }
    assert_ok(accel_graph_destroy(second));
    assert_ok(accel_stream_destroy(stream));
}

void test_graphs_shared_pool_bad_arguments(void **state)
{
    accel_graph_t *graph = (accel_graph_t *)&graph, *dead = NULL;
    (void)state;
    graphs_require();
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_graph_create_sharing_pool(conformance_acc, NULL, &graph));
    assert_ptr_equal(graph, (accel_graph_t *)&graph);
    dead = graphs_create();
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_graph_create_sharing_pool(NULL, dead, &graph));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_graph_create_sharing_pool(conformance_acc, dead, NULL));
    assert_ok(accel_graph_destroy(dead));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_graph_create_sharing_pool(conformance_acc, dead, &graph));
    assert_ptr_equal(graph, (accel_graph_t *)&graph);
}

/* Synchronizing or querying a stream that is capturing is the caller's
 * mistake, not a device failure: INVALID_ARGUMENT with a sentence, and the
 * capture goes on unharmed (it ends, and its replay does the work). */
void test_graphs_sync_capturing_stream_refused(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *stream;
    uint8_t *device, back[GRAPHS_BYTES];
    (void)state;
    graphs_require();
    graph = graphs_create();
    stream = graphs_stream();
    device = conf_device_alloc(GRAPHS_BYTES);
    assert_ok(accel_graph_capture_begin(graph, stream));
    assert_ok(accel_memset_async(conformance_acc, device, 0x6b, GRAPHS_BYTES, stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_synchronize(stream));
    assert_non_null(strstr(accel_last_error(), "capturing"));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_stream_query(stream));
    assert_non_null(strstr(accel_last_error(), "capturing"));
    assert_ok(accel_graph_capture_end(graph, stream));
    assert_ok(accel_memset(conformance_acc, device, 0, GRAPHS_BYTES));
    assert_ok(accel_graph_replay(graph, stream));
    assert_ok(accel_stream_synchronize(stream));
    conf_to_host(back, device, sizeof back);
    for (size_t i = 0; i < GRAPHS_BYTES; i++)
        assert_int_equal(back[i], 0x6b);
    assert_ok(accel_graph_destroy(graph));
    assert_ok(accel_stream_destroy(stream));
    conf_device_free(device);
}

/* A device synchronize while one of its streams captures waits for the
 * whole device, which a capture forbids (CUDA fails and invalidates the
 * capture): refused with a sentence, like a synchronize of the capturing
 * stream, and the capture goes on unharmed. */
void test_graphs_sync_device_while_capturing_refused(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *stream;
    uint8_t *device, back[GRAPHS_BYTES];
    (void)state;
    graphs_require();
    graph = graphs_create();
    stream = graphs_stream();
    device = conf_device_alloc(GRAPHS_BYTES);
    assert_ok(accel_graph_capture_begin(graph, stream));
    assert_ok(accel_memset_async(conformance_acc, device, 0x3c, GRAPHS_BYTES, stream));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_synchronize(conformance_acc, ACCEL_CURRENT_DEVICE));
    assert_non_null(strstr(accel_last_error(), "capturing"));
    assert_ok(accel_graph_capture_end(graph, stream));
    assert_ok(accel_synchronize(conformance_acc, ACCEL_CURRENT_DEVICE));
    assert_ok(accel_graph_replay(graph, stream));
    assert_ok(accel_stream_synchronize(stream));
    conf_to_host(back, device, sizeof back);
    for (size_t i = 0; i < GRAPHS_BYTES; i++)
        assert_int_equal(back[i], 0x3c);
    assert_ok(accel_graph_destroy(graph));
    assert_ok(accel_stream_destroy(stream));
    conf_device_free(device);
}

/* Destroying a graph releases its memory after a device synchronize: while
 * another graph captures on that device, the destroy is refused (nothing
 * changes) and works once that capture ended; the other capture is
 * unharmed. */
void test_graphs_destroy_while_other_captures_refused(void **state)
{
    accel_graph_t *done, *capturing;
    accel_stream_t *first, *second;
    uint8_t *scratch = NULL, *device, back[GRAPHS_BYTES];
    (void)state;
    graphs_require();
    done = graphs_create();
    capturing = graphs_create();
    first = graphs_stream();
    second = graphs_stream();
    device = conf_device_alloc(GRAPHS_BYTES);
    assert_ok(accel_graph_capture_begin(done, first));
    assert_ok(accel_malloc_async(conformance_acc, GRAPHS_BYTES, first, (void **)&scratch));
    assert_ok(accel_memset_async(conformance_acc, scratch, 0x01, GRAPHS_BYTES, first));
    assert_ok(accel_free_async(conformance_acc, scratch, first));
    assert_ok(accel_graph_capture_end(done, first));

    assert_ok(accel_graph_capture_begin(capturing, second));
    assert_ok(accel_memset_async(conformance_acc, device, 0x4d, GRAPHS_BYTES, second));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_graph_destroy(done));
    assert_non_null(strstr(accel_last_error(), "capturing"));
    assert_ok(accel_graph_replay(done, first)); /* still alive and replayable */
    assert_ok(accel_graph_capture_end(capturing, second));
    assert_ok(accel_stream_synchronize(first));
    assert_ok(accel_graph_destroy(done));

    assert_ok(accel_graph_replay(capturing, second));
    assert_ok(accel_stream_synchronize(second));
    conf_to_host(back, device, sizeof back);
    for (size_t i = 0; i < GRAPHS_BYTES; i++)
        assert_int_equal(back[i], 0x4d);
    assert_ok(accel_graph_destroy(capturing));
    assert_ok(accel_stream_destroy(first));
    assert_ok(accel_stream_destroy(second));
    conf_device_free(device);
}

/* A side stream joins the capture by waiting on an event recorded on the
 * capturing stream (as torch's autograd side streams do), and frees a block
 * during the capture. The runtime counts that stream as capturing although
 * accel only marked the origin: nothing may be queried or recorded on it
 * (CUDA: cuStreamQuery invalidates the capture, a record there makes an
 * event that can never be queried, error 907, and the block would stay
 * pending for ever). The capture ends, replays, and once the graph is
 * destroyed the block's memory goes back to the device. */
void test_graphs_side_stream_free_during_capture(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *stream, *side;
    accel_event_t *fork, *join;
    uint8_t *block = NULL, *device, back[GRAPHS_BYTES];
    uint64_t before = 0, after = 0;
    size_t big = 4u << 20; /* its own segment, so its release shows */
    (void)state;
    graphs_require();
    graph = graphs_create();
    stream = graphs_stream();
    side = graphs_stream();
    device = conf_device_alloc(GRAPHS_BYTES);
    assert_ok(accel_event_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &fork));
    assert_ok(accel_event_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &join));
    assert_ok(accel_empty_cache(conformance_acc));
    assert_ok(accel_memory_reserved(conformance_acc, ACCEL_CURRENT_DEVICE, &before));
    assert_ok(accel_malloc_async(conformance_acc, big, side, (void **)&block));
    assert_ok(accel_memset_async(conformance_acc, block, 0x22, big, side));

    assert_ok(accel_graph_capture_begin(graph, stream));
    assert_ok(accel_memset_async(conformance_acc, device, 0x5e, GRAPHS_BYTES, stream));
    assert_ok(accel_event_record(fork, stream));
    assert_ok(accel_stream_wait_event(side, fork));
    assert_ok(accel_memset_async(conformance_acc, block, 0x33, big, side));
    assert_ok(accel_free_async(conformance_acc, block, side));
    assert_ok(accel_event_record(join, side));
    assert_ok(accel_stream_wait_event(stream, join));
    assert_ok(accel_graph_capture_end(graph, stream));

    assert_ok(accel_memset(conformance_acc, device, 0, GRAPHS_BYTES));
    assert_ok(accel_graph_replay(graph, stream));
    assert_ok(accel_stream_synchronize(stream));
    conf_to_host(back, device, sizeof back);
    for (size_t i = 0; i < GRAPHS_BYTES; i++)
        assert_int_equal(back[i], 0x5e);
    assert_ok(accel_graph_destroy(graph));
    conf_device_free(device);
    assert_ok(accel_empty_cache(conformance_acc));
    assert_ok(accel_memory_reserved(conformance_acc, ACCEL_CURRENT_DEVICE, &after));
    assert_true(after <= before);
    assert_ok(accel_event_destroy(fork));
    assert_ok(accel_event_destroy(join));
    assert_ok(accel_stream_destroy(side));
    assert_ok(accel_stream_destroy(stream));
}

static void graphs_wait_flag_fn(void *arg)
{
    atomic_int *flag = arg;
    while (atomic_load(flag) == 0) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
}

/* A block freed on a busy stream before the capture waits on a free event.
 * Allocations during the capture must not query that event (illegal during
 * a capture: torch and torch_mlu skip it; the strict CNRT sim invalidates
 * the capture), and the capture ends and replays normally. */
void test_graphs_alloc_during_capture_queries_no_event(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *stream, *busy;
    uint8_t *freed = NULL, *captured = NULL, *device, back[GRAPHS_BYTES];
    atomic_int release = 0;
    (void)state;
    graphs_require();
    graph = graphs_create();
    stream = graphs_stream();
    busy = graphs_stream();
    device = conf_device_alloc(GRAPHS_BYTES);
    assert_ok(accel_malloc_async(conformance_acc, GRAPHS_BYTES, busy, (void **)&freed));
    assert_ok(accel_stream_add_callback(busy, graphs_wait_flag_fn, &release));
    assert_ok(accel_memset_async(conformance_acc, freed, 0x01, GRAPHS_BYTES, busy));
    assert_ok(accel_free_async(conformance_acc, freed, busy)); /* busy: a free event */

    assert_ok(accel_graph_capture_begin(graph, stream));
    for (int i = 0; i < 4; i++) {
        assert_ok(accel_malloc_async(conformance_acc, GRAPHS_BYTES, stream, (void **)&captured));
        assert_ok(accel_memset_async(conformance_acc, captured, 0x70 + i, GRAPHS_BYTES, stream));
        assert_ok(accel_memcpy_async(conformance_acc, device, captured, GRAPHS_BYTES,
                                     ACCEL_COPY_DEVICE_TO_DEVICE, stream));
        assert_ok(accel_free_async(conformance_acc, captured, stream));
    }
    assert_ok(accel_graph_capture_end(graph, stream));
    atomic_store(&release, 1);
    assert_ok(accel_stream_synchronize(busy));

    assert_ok(accel_graph_replay(graph, stream));
    assert_ok(accel_stream_synchronize(stream));
    conf_to_host(back, device, sizeof back);
    for (size_t i = 0; i < GRAPHS_BYTES; i++)
        assert_int_equal(back[i], 0x73);
    assert_ok(accel_graph_destroy(graph));
    assert_ok(accel_stream_destroy(busy));
    assert_ok(accel_stream_destroy(stream));
    conf_device_free(device);
}

/* A random fill on another stream while a capture runs: a backend on core's
 * host fill (mlu) keeps earlier fills' staging until their events complete,
 * and must not query those events while the capture runs (CNRT forbids a
 * notifier query during a capture, as CUDA forbids cuEventQuery in global
 * mode). The earlier fill is held back by a callback so its event is
 * pending when the capture begins. */
void test_graphs_fill_elsewhere_during_capture(void **state)
{
    accel_graph_t *graph;
    accel_stream_t *stream, *busy;
    uint8_t *device, back[GRAPHS_BYTES];
    uint32_t *random;
    atomic_int release = 0;
    (void)state;
    graphs_require();
    graph = graphs_create();
    stream = graphs_stream();
    busy = graphs_stream();
    device = conf_device_alloc(GRAPHS_BYTES);
    random = conf_device_alloc(GRAPHS_BYTES);
    assert_ok(accel_stream_add_callback(busy, graphs_wait_flag_fn, &release));
    assert_ok(accel_rng_u32(conformance_acc, random, GRAPHS_BYTES / 4, busy));

    assert_ok(accel_graph_capture_begin(graph, stream));
    assert_ok(accel_memset_async(conformance_acc, device, 0x6d, GRAPHS_BYTES, stream));
    assert_ok(accel_rng_u32(conformance_acc, random, GRAPHS_BYTES / 4, busy));
    assert_ok(accel_graph_capture_end(graph, stream));
    atomic_store(&release, 1);
    assert_ok(accel_stream_synchronize(busy));

    assert_ok(accel_memset(conformance_acc, device, 0, GRAPHS_BYTES));
    assert_ok(accel_graph_replay(graph, stream));
    assert_ok(accel_stream_synchronize(stream));
    conf_to_host(back, device, sizeof back);
    for (size_t i = 0; i < GRAPHS_BYTES; i++)
        assert_int_equal(back[i], 0x6d);
    assert_ok(accel_graph_destroy(graph));
    assert_ok(accel_stream_destroy(busy));
    assert_ok(accel_stream_destroy(stream));
    conf_device_free(random);
    conf_device_free(device);
}
