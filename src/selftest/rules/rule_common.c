/* rule_common.c: the shared vendor-rule checks of rule_common.h, on accel's
 * public API. Each owns what it allocates and frees it before passing. */
#include "rules/rule_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

double rule_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

void rule_sleep_ms(unsigned ms)
{
    struct timespec span = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&span, &span) != 0) {
    }
}

/* How many copies the first stream of rule_check_wait_orders queues. */
enum { RULE_WAIT_COPIES = 8 };

void rule_check_wait_orders(accel_t *acc, size_t size)
{
    accel_stream_t *first = NULL, *second = NULL;
    accel_event_t *copied = NULL;
    unsigned char *pattern = NULL, *zeros = NULL, *back = NULL;
    void *device = NULL;
    conf_require_streams();
    conf_require_events();
    assert_ok(accel_set_device(acc, 0));
    assert_ok(accel_host_alloc(acc, size, (void **)&pattern));
    assert_ok(accel_host_alloc(acc, size, (void **)&zeros));
    assert_ok(accel_host_alloc(acc, size, (void **)&back));
    memset(pattern, 0xa5, size);
    memset(zeros, 0, size);
    memset(back, 0, size);
    assert_ok(accel_malloc(acc, size, &device));
    assert_ok(accel_memset(acc, device, 0, size));
    assert_ok(accel_stream_create(acc, 0, 0, &first));
    assert_ok(accel_stream_create(acc, 0, 0, &second));
    assert_ok(accel_event_create(acc, 0, ACCEL_EVENT_DEFAULT, &copied));

    /* The first stream is busy longer than the second: zeros, then the
     * pattern, then the event. */
    for (int i = 0; i < RULE_WAIT_COPIES; i++)
        assert_ok(accel_memcpy_async(acc, device, i + 1 < RULE_WAIT_COPIES ? zeros : pattern, size,
                                     ACCEL_COPY_HOST_TO_DEVICE, first));
    assert_ok(accel_event_record(copied, first));
    assert_ok(accel_stream_wait_event(second, copied));
    assert_ok(accel_memcpy_async(acc, back, device, size, ACCEL_COPY_DEVICE_TO_HOST, second));
    assert_ok(accel_stream_synchronize(second));
    for (size_t i = 0; i < size; i++)
        if (back[i] != 0xa5)
            fail_msg("a stream that waited on an event read byte %zu before the copy queued "
                     "ahead of the event wrote it (%#x, expected 0xa5)",
                     i, back[i]);
    assert_ok(accel_stream_synchronize(first));
    assert_ok(accel_event_destroy(copied));
    assert_ok(accel_stream_destroy(second));
    assert_ok(accel_stream_destroy(first));
    assert_ok(accel_free(acc, device));
    assert_ok(accel_host_free(acc, back));
    assert_ok(accel_host_free(acc, zeros));
    assert_ok(accel_host_free(acc, pattern));
}

float rule_check_elapsed_ms(accel_t *acc, unsigned gap_ms)
{
    accel_event_t *start = NULL, *end = NULL;
    accel_stream_t *stream = NULL;
    double before, after;
    float elapsed = -1.0f;
    conf_require_events();
    assert_ok(accel_set_device(acc, 0));
    assert_ok(accel_current_stream(acc, 0, &stream));
    assert_ok(accel_event_create(acc, 0, ACCEL_EVENT_TIMING, &start));
    assert_ok(accel_event_create(acc, 0, ACCEL_EVENT_TIMING, &end));
    assert_ok(accel_stream_synchronize(stream));
    before = rule_now_ms();
    assert_ok(accel_event_record(start, stream));
    assert_ok(accel_event_synchronize(start));
    rule_sleep_ms(gap_ms);
    assert_ok(accel_event_record(end, stream));
    assert_ok(accel_event_synchronize(end));
    after = rule_now_ms();
    assert_ok(accel_event_elapsed_ms(start, end, &elapsed));
    /* The device's clock is not the host's: allow 10 % and a millisecond. */
    if (elapsed < (float)gap_ms / 2 || elapsed > (float)((after - before) * 1.1 + 1.0))
        fail_msg("two events around a %u ms host sleep are %.3f ms apart (the host saw %.3f ms "
                 "from the first record to the second's completion): a wrong unit or clock",
                 gap_ms, (double)elapsed, after - before);
    assert_ok(accel_event_destroy(end));
    assert_ok(accel_event_destroy(start));
    return elapsed;
}

/* The first `size` bytes of device memory `ptr` must all be `value`. */
static void rule_expect_bytes(accel_t *acc, const void *ptr, size_t size, unsigned char value,
                              const char *what)
{
    unsigned char *host = malloc(size);
    assert_non_null(host);
    assert_ok(accel_memcpy(acc, host, ptr, size, ACCEL_COPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < size; i++)
        if (host[i] != value) {
            unsigned char got = host[i];
            free(host);
            fail_msg("%s: byte %zu is %#x, expected %#x", what, i, got, value);
        }
    free(host);
}

void rule_check_graph_addresses(accel_t *acc)
{
    enum { SIZE = 4096 };
    accel_stream_t *stream = NULL;
    accel_graph_t *graph = NULL;
    void *before = NULL, *inside = NULL, *after = NULL;
    accel_status_t made;
    conf_require_streams();
    assert_ok(accel_set_device(acc, 0));
    made = accel_graph_create(acc, &graph);
    if (made == ACCEL_ERROR_UNSUPPORTED)
        conf_skip("the backend has no graphs here: %s", accel_last_error());
    assert_ok(made);
    assert_ok(accel_stream_create(acc, 0, 0, &stream));
    assert_ok(accel_malloc(acc, SIZE, &before));
    assert_ok(accel_memset(acc, before, 0, SIZE));
    assert_ok(accel_set_current_stream(acc, stream));
    assert_ok(accel_graph_capture_begin(graph, stream));
    assert_ok(accel_memset_async(acc, before, 0x5a, SIZE, stream));
    assert_ok(accel_malloc(acc, SIZE, &inside));
    assert_ok(accel_memset_async(acc, inside, 0x66, SIZE, stream));
    assert_ok(accel_graph_capture_end(graph, stream));
    assert_ok(accel_set_current_stream(acc, NULL));

    assert_ok(accel_graph_replay(graph, stream));
    assert_ok(accel_stream_synchronize(stream));
    rule_expect_bytes(acc, before, SIZE, 0x5a,
                      "a replay did not write the buffer its capture named");

    assert_ok(accel_free(acc, inside));
    assert_ok(accel_malloc(acc, SIZE, &after));
    assert_ok(accel_memset(acc, after, 0x11, SIZE));
    assert_ok(accel_graph_replay(graph, stream));
    assert_ok(accel_stream_synchronize(stream));
    rule_expect_bytes(acc, after, SIZE, 0x11,
                      "a replay wrote into memory allocated after its capture");
    assert_ok(accel_graph_destroy(graph));
    assert_ok(accel_free(acc, after));
    assert_ok(accel_free(acc, before));
    assert_ok(accel_stream_destroy(stream));
}

const char *rule_grouped_ring(accel_t *acc, accel_comm_t *comm, int rank, int size,
                              bool groups_required)
{
    static _Thread_local char why[512];
    static const char *const step_name[3] = {"accel_send", "accel_recv", "accel_comm_group_end"};
    accel_status_t step[3];
    int32_t mine = 1000 + rank, got = -1, want = 1000 + (rank + size - 1) % size;
    int32_t *send = NULL, *recv = NULL;
    why[0] = '\0';
    assert_ok(accel_malloc(acc, sizeof mine, (void **)&send));
    assert_ok(accel_malloc(acc, sizeof mine, (void **)&recv));
    assert_ok(accel_memcpy(acc, send, &mine, sizeof mine, ACCEL_COPY_HOST_TO_DEVICE));
    assert_ok(accel_comm_group_start());
    step[0] = accel_send(comm, send, 1, ACCEL_DTYPE_I32, (rank + 1) % size, NULL);
    step[1] = accel_recv(comm, recv, 1, ACCEL_DTYPE_I32, (rank + size - 1) % size, NULL);
    step[2] = accel_comm_group_end();
    bool refused = false;
    for (int i = 0; i < 3 && why[0] == '\0'; i++) {
        if (step[i] == ACCEL_OK)
            continue;
        if (!groups_required && step[i] == ACCEL_ERROR_UNSUPPORTED) {
            refused = true;
            continue;
        }
        snprintf(why, sizeof why, "%s in a group returned %s: %s", step_name[i],
                 accel_status_name(step[i]), accel_last_error());
    }
    if (why[0] == '\0' && !refused) {
        assert_ok(accel_memcpy(acc, &got, recv, sizeof got, ACCEL_COPY_DEVICE_TO_HOST));
        if (got != want)
            snprintf(why, sizeof why, "rank %d received %d from the grouped ring, expected %d",
                     rank, (int)got, (int)want);
    }
    assert_ok(accel_free(acc, recv));
    assert_ok(accel_free(acc, send));
    return why[0] != '\0' ? why : NULL;
}

void rule_optional_groups_probe(accel_t *acc, const char *engine)
{
    accel_comm_t *comm = NULL;
    int rank = 0, size = 0, device = 0;
    char detail[320];
    rule_comm_join(acc, engine, &comm, &rank, &size, &device, detail, sizeof detail);
    assert_ok(accel_set_device(acc, device));
    print_message("%s engine: %s\n", engine, detail);
    if (size < 2) {
        assert_ok(accel_comm_destroy(comm));
        conf_skip("a ring needs two ranks");
    }
    const char *why =
        rule_grouped_ring(acc, comm, rank, size, strstr(detail, "without group calls") == NULL);
    assert_ok(accel_comm_destroy(comm));
    if (why != NULL)
        fail_msg("%s", why);
}

void rule_comm_join(accel_t *acc, const char *engine, accel_comm_t **comm, int *rank, int *size,
                    int *device, char *detail, size_t detail_size)
{
    accel_comm_engine_info_t info = {.struct_size = sizeof info};
    const char *name = NULL;
    assert_ok(accel_comm_engine_info(acc, &info));
    if (info.engine == NULL || strcmp(info.engine, engine) != 0 || !info.available)
        conf_skip("the %s engine does not serve this run (%s)", engine, info.detail);
    if (detail != NULL)
        snprintf(detail, detail_size, "%s", info.detail);
    assert_ok(accel_comm_init(acc, NULL, comm));
    assert_ok(accel_comm_engine_name(*comm, &name));
    if (strcmp(name, engine) != 0) {
        char other[64];
        snprintf(other, sizeof other, "%s", name);
        assert_ok(accel_comm_destroy(*comm));
        *comm = NULL;
        conf_skip("the communicator's engine is %s, not %s", other, engine);
    }
    assert_ok(accel_comm_rank(*comm, rank));
    assert_ok(accel_comm_size(*comm, size));
    assert_ok(accel_comm_device(*comm, device));
}

int32_t *rule_device_ints(accel_t *acc, const int32_t *values, size_t count)
{
    int32_t *buf = NULL;
    assert_ok(accel_malloc(acc, count * sizeof *buf, (void **)&buf));
    if (values != NULL)
        assert_ok(accel_memcpy(acc, buf, values, count * sizeof *buf, ACCEL_COPY_HOST_TO_DEVICE));
    else
        assert_ok(accel_memset(acc, buf, 0, count * sizeof *buf));
    return buf;
}
