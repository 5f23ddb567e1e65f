/* mlu.c: one probe per rule of the mlu backend's "Vendor rules we rely on"
 * tables (src/backends/mlu/README.md; rows the two tables share have one
 * probe). CNRT behaviour is read from Cambricon's own torch_mlu, not from a
 * reference, so most probes call libcnrt directly: the library the backend
 * loaded (ACCEL_MLU_LIBRARY, $NEUWARE_HOME/lib64, libcnrt.so), through the
 * backend's own symbol list. Each probe runs in its own child process
 * (check.h) on device 0, on queues and notifiers it makes and destroys. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "backends/mlu/types.h"
#include "check.h"
#include "rules/rule-list.h"
#include "rules/rule_library.h"
#include "rules/rule_common.h"

/* Codes of cnrt.h the probes name (not in the backend's types.h). */
#define RULE_CNRT_ERROR_CAPTURE_INVALIDATED 100361
#define RULE_CNRT_CAPTURE_MODE_GLOBAL       0

/* CNRT's functions, as the backend declares them (its symbols.h). */
typedef struct rule_mlu_api {
#define ACCEL_MLU_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/mlu/symbols.h"
#undef ACCEL_MLU_SYMBOL
} rule_mlu_api_t;

static rule_mlu_api_t rule_cnrt;

static const accel_symbol_t rule_mlu_symbols[] = {
#define ACCEL_MLU_SYMBOL(required, ret, name, params, export)                                      \
    ACCEL_SYMBOL_ENTRY(rule_cnrt, required, name, export),
#include "backends/mlu/symbols.h"
#undef ACCEL_MLU_SYMBOL
};

static const char *const rule_mlu_homes[] = {"NEUWARE_HOME", NULL};
static const char *const rule_mlu_names[] = {"libcnrt.so", NULL};

static accel_vendor_library_t rule_mlu_library = {
    RULE_LIBRARY("mlu", rule_mlu_names, rule_mlu_symbols,
                 "no Cambricon Neuware runtime (libcnrt.so) found", "libcnrt.so"),
    .home_vars = rule_mlu_homes,
    .home_file = "lib64/libcnrt.so",
};

/* Load CNRT and make device 0 current on this thread (the backend first
 * initialises it with a device synchronize). */
static void rule_mlu_enter(void)
{
    rule_library_enter(&rule_mlu_library, "CNRT");
    assert_int_equal(rule_cnrt.cnrtSetDevice(0), ACCEL_CNRT_SUCCESS);
}

static accel_cnrt_queue_t rule_mlu_queue(void)
{
    accel_cnrt_queue_t queue = NULL;
    assert_int_equal(rule_cnrt.cnrtQueueCreate(&queue), ACCEL_CNRT_SUCCESS);
    return queue;
}

static accel_cnrt_notifier_t rule_mlu_notifier(unsigned flags)
{
    accel_cnrt_notifier_t notifier = NULL;
    assert_int_equal(rule_cnrt.cnrtNotifierCreateWithFlags(&notifier, flags), ACCEL_CNRT_SUCCESS);
    return notifier;
}

/* Skip unless this CNRT captures queues. */
static void rule_mlu_require_capture(void)
{
    if (rule_cnrt.cnrtQueueBeginCapture == NULL || rule_cnrt.cnrtQueueEndCapture == NULL ||
        rule_cnrt.cnrtTaskTopoDestroy == NULL)
        conf_skip("this libcnrt.so has no queue capture (cnrtQueueBeginCapture)");
}

/* End a capture whatever became of it (the probe judges something else);
 * a topology made is destroyed. */
static void rule_mlu_end_capture(accel_cnrt_queue_t queue)
{
    accel_cnrt_task_topo_t topo = NULL;
    accel_cnrt_ret_t code = rule_cnrt.cnrtQueueEndCapture(queue, &topo);
    if (code != ACCEL_CNRT_SUCCESS && code != RULE_CNRT_ERROR_CAPTURE_INVALIDATED)
        fail_msg("cnrtQueueEndCapture returned %u", code);
    if (code == ACCEL_CNRT_SUCCESS && topo != NULL)
        rule_cnrt.cnrtTaskTopoDestroy(topo);
}

/* CNRT-XDEV: a notifier is placed and waited for only on queues of its own
 * device; accel refuses a cross-device wait before CNRT sees it. */
void probe_mlu_notifier_own_device(void **state)
{
    accel_stream_t *other = NULL;
    accel_event_t *event = NULL;
    accel_cnrt_notifier_t notifier;
    accel_cnrt_queue_t queue;
    accel_cnrt_ret_t placed, waited;
    (void)state;
    if (conf_device_count() < 2)
        conf_skip("one device: a cross-device wait needs two");
    assert_ok(accel_event_create(conformance_acc, 0, ACCEL_EVENT_DEFAULT, &event));
    assert_ok(accel_stream_create(conformance_acc, 1, 0, &other));
    assert_status(ACCEL_ERROR_UNSUPPORTED, accel_stream_wait_event(other, event));
    assert_ok(accel_stream_destroy(other));
    assert_ok(accel_event_destroy(event));

    rule_mlu_enter();
    notifier = rule_mlu_notifier(ACCEL_CNRT_NOTIFIER_DEFAULT);
    assert_int_equal(rule_cnrt.cnrtSetDevice(1), ACCEL_CNRT_SUCCESS);
    queue = rule_mlu_queue();
    placed = rule_cnrt.cnrtPlaceNotifier(notifier, queue);
    waited = rule_cnrt.cnrtQueueWaitNotifier(notifier, queue, 0);
    assert_int_equal(rule_cnrt.cnrtQueueSync(queue), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueDestroy(queue), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtSetDevice(0), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtNotifierDestroy(notifier), ACCEL_CNRT_SUCCESS);
    if (placed == ACCEL_CNRT_SUCCESS || waited == ACCEL_CNRT_SUCCESS)
        fail_msg("CNRT took a device-0 notifier on a device-1 queue (place: %u, wait: %u); "
                 "torch_mlu (CNTOOLKIT-3871) says it cannot",
                 placed, waited);
    print_message("CNRT refuses a cross-device place with %u and wait with %u", placed, waited);
}

/* CNRT-H2H: a host-to-host copy on a queue is either refused when called
 * (accel never issues one: it drains the queue and copies on the host) or,
 * if taken, copies; never taken and then lost. */
void probe_mlu_host_to_host_on_queue(void **state)
{
    enum { SIZE = 4096 };
    unsigned char *src, *dst;
    accel_cnrt_queue_t queue;
    accel_cnrt_ret_t code;
    (void)state;
    rule_mlu_enter();
    src = malloc(SIZE);
    dst = calloc(1, SIZE);
    assert_non_null(src);
    assert_non_null(dst);
    memset(src, 0x3c, SIZE);
    queue = rule_mlu_queue();
    code = rule_cnrt.cnrtMemcpyAsync(dst, src, SIZE, queue, ACCEL_CNRT_MEMCPY_HOST_TO_HOST);
    if (code == ACCEL_CNRT_SUCCESS) {
        assert_int_equal(rule_cnrt.cnrtQueueSync(queue), ACCEL_CNRT_SUCCESS);
        if (memcmp(dst, src, SIZE) != 0)
            fail_msg("cnrtMemcpyAsync took a host-to-host copy and the queue finished, but the "
                     "destination does not hold the source");
        print_message("CNRT takes host-to-host copies on a queue");
    } else {
        print_message("CNRT refuses host-to-host copies on a queue (%u)", code);
    }
    assert_int_equal(rule_cnrt.cnrtQueueDestroy(queue), ACCEL_CNRT_SUCCESS);
    free(dst);
    free(src);
}

/* The time between two completed notifiers, by `elapsed` (in `unit` of a
 * millisecond), around a host sleep of `gap_ms`: it must lie between half
 * the gap and the host's bracket. */
static void rule_mlu_check_unit(const char *name,
                                accel_cnrt_ret_t (*elapsed)(accel_cnrt_notifier_t,
                                                            accel_cnrt_notifier_t, float *),
                                double per_ms, unsigned gap_ms)
{
    accel_cnrt_queue_t queue = rule_mlu_queue();
    accel_cnrt_notifier_t start = rule_mlu_notifier(ACCEL_CNRT_NOTIFIER_DEFAULT);
    accel_cnrt_notifier_t end = rule_mlu_notifier(ACCEL_CNRT_NOTIFIER_DEFAULT);
    double before, after, ms;
    float value = -1.0f;
    before = rule_now_ms();
    assert_int_equal(rule_cnrt.cnrtPlaceNotifier(start, queue), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueSync(queue), ACCEL_CNRT_SUCCESS);
    rule_sleep_ms(gap_ms);
    assert_int_equal(rule_cnrt.cnrtPlaceNotifier(end, queue), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueSync(queue), ACCEL_CNRT_SUCCESS);
    after = rule_now_ms();
    assert_int_equal(elapsed(start, end, &value), ACCEL_CNRT_SUCCESS);
    ms = (double)value / per_ms;
    if (ms < gap_ms / 2.0 || ms > (after - before) * 1.1 + 1.0)
        fail_msg("%s around a %u ms host sleep gave %.3f (%.3f ms in its documented unit); the "
                 "host saw %.3f ms: not the unit torch_mlu reads",
                 name, gap_ms, (double)value, ms, after - before);
    assert_int_equal(rule_cnrt.cnrtNotifierDestroy(end), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtNotifierDestroy(start), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueDestroy(queue), ACCEL_CNRT_SUCCESS);
}

/* CNRT-UNITS: cnrtNotifierElapsedTime is in ms, cnrtNotifierDuration in
 * us; accel's elapsed time, built on whichever is exported, is in ms. */
void probe_mlu_notifier_time_units(void **state)
{
    (void)state;
    rule_check_elapsed_ms(conformance_acc, 30);
    rule_mlu_enter();
    if (rule_cnrt.cnrtNotifierElapsedTime != NULL)
        rule_mlu_check_unit("cnrtNotifierElapsedTime", rule_cnrt.cnrtNotifierElapsedTime, 1.0, 30);
    if (rule_cnrt.cnrtNotifierDuration != NULL)
        rule_mlu_check_unit("cnrtNotifierDuration", rule_cnrt.cnrtNotifierDuration, 1000.0, 30);
}

/* CNRT-CAP-QUERY: no notifier query while a queue of the device captures
 * (torch_mlu: "illegal during MLU graph capture"); accel polls none then. */
void probe_mlu_no_query_in_capture(void **state)
{
    accel_cnrt_queue_t origin, other;
    accel_cnrt_notifier_t done;
    accel_cnrt_ret_t code;
    (void)state;
    rule_mlu_enter();
    rule_mlu_require_capture();
    origin = rule_mlu_queue();
    other = rule_mlu_queue();
    done = rule_mlu_notifier(ACCEL_CNRT_NOTIFIER_DEFAULT);
    assert_int_equal(rule_cnrt.cnrtPlaceNotifier(done, other), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueSync(other), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueBeginCapture(origin, ACCEL_CNRT_CAPTURE_MODE_RELAXED),
                     ACCEL_CNRT_SUCCESS);
    code = rule_cnrt.cnrtQueryNotifier(done);
    rule_mlu_end_capture(origin);
    if (code == ACCEL_CNRT_SUCCESS || code == ACCEL_CNRT_ERROR_NOT_READY)
        fail_msg("cnrtQueryNotifier answered %u while a queue of the device captured, which "
                 "torch_mlu treats as illegal: the row does not hold for this CNRT (accel, "
                 "querying none, stays safe; please report it)",
                 code);
    print_message("a notifier query during a capture: %u", code);
    assert_int_equal(rule_cnrt.cnrtNotifierDestroy(done), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueDestroy(other), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueDestroy(origin), ACCEL_CNRT_SUCCESS);
}

/* CNRT-CAP-JOIN: a queue that waits on a notifier placed in a capture joins
 * it: its later work is captured, not run. */
void probe_mlu_waiting_queue_joins(void **state)
{
    enum { SIZE = 4096 };
    accel_cnrt_queue_t origin, side;
    accel_cnrt_notifier_t fork, join;
    static unsigned char host[SIZE]; /* not heap: a skip or failure leaves nothing behind */
    void *block = NULL;
    (void)state;
    memset(host, 0, sizeof host);
    rule_mlu_enter();
    rule_mlu_require_capture();
    origin = rule_mlu_queue();
    side = rule_mlu_queue();
    fork = rule_mlu_notifier(ACCEL_CNRT_NOTIFIER_DISABLE_TIMING_ALL);
    join = rule_mlu_notifier(ACCEL_CNRT_NOTIFIER_DISABLE_TIMING_ALL);
    assert_int_equal(rule_cnrt.cnrtMalloc(&block, SIZE), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtMemsetAsync(block, 0, SIZE, side), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueSync(side), ACCEL_CNRT_SUCCESS);

    assert_int_equal(rule_cnrt.cnrtQueueBeginCapture(origin, ACCEL_CNRT_CAPTURE_MODE_RELAXED),
                     ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtPlaceNotifier(fork, origin), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueWaitNotifier(fork, side, 0), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtMemsetAsync(block, 7, SIZE, side), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtPlaceNotifier(join, side), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueWaitNotifier(join, origin, 0), ACCEL_CNRT_SUCCESS);
    rule_mlu_end_capture(origin);
    assert_int_equal(rule_cnrt.cnrtQueueSync(side), ACCEL_CNRT_SUCCESS);
    assert_int_equal(
        rule_cnrt.cnrtMemcpyAsync(host, block, SIZE, side, ACCEL_CNRT_MEMCPY_DEV_TO_HOST),
        ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueSync(side), ACCEL_CNRT_SUCCESS);
    if (host[0] != 0)
        fail_msg("a fill queued on a queue that waited on a captured notifier ran at once "
                 "(byte 0 is %#x): the queue did not join the capture",
                 host[0]);
    assert_int_equal(rule_cnrt.cnrtFree(block), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtNotifierDestroy(join), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtNotifierDestroy(fork), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueDestroy(side), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueDestroy(origin), ACCEL_CNRT_SUCCESS);
}

/* CNRT-CAP-ADDR: a replayed topology writes the addresses its capture saw;
 * accel keeps a capture's memory reserved until the graph goes. */
void probe_mlu_capture_addresses(void **state)
{
    (void)state;
    rule_check_graph_addresses(conformance_acc);
}

/* CNRT-CAP-RELAXED: a created queue captures in Relaxed mode, the mode
 * accel (as torch_mlu) asks for. */
void probe_mlu_relaxed_capture(void **state)
{
    accel_cnrt_queue_t origin;
    accel_cnrt_task_topo_t topo = NULL;
    accel_cnrt_ret_t code;
    (void)state;
    rule_mlu_enter();
    rule_mlu_require_capture();
    origin = rule_mlu_queue();
    code = rule_cnrt.cnrtQueueBeginCapture(origin, ACCEL_CNRT_CAPTURE_MODE_RELAXED);
    if (code != ACCEL_CNRT_SUCCESS)
        fail_msg("cnrtQueueBeginCapture in Relaxed mode returned %u", code);
    assert_int_equal(rule_cnrt.cnrtQueueEndCapture(origin, &topo), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtTaskTopoDestroy(topo), ACCEL_CNRT_SUCCESS);
    assert_int_equal(rule_cnrt.cnrtQueueDestroy(origin), ACCEL_CNRT_SUCCESS);
}

/* CNRT-HOSTMALLOC0: cnrtHostMalloc of 0 bytes gives NULL (and accel's host
 * allocation of 0 bytes gives NULL and OK). */
void probe_mlu_host_malloc_zero(void **state)
{
    void *ptr = NULL;
    accel_cnrt_ret_t code;
    (void)state;
    assert_ok(accel_host_alloc(conformance_acc, 0, &ptr));
    assert_null(ptr);
    rule_mlu_enter();
    code = rule_cnrt.cnrtHostMalloc(&ptr, 0);
    if (ptr != NULL) {
        rule_cnrt.cnrtFreeHost(ptr);
        fail_msg("cnrtHostMalloc(0) returned %u and a non-NULL pointer", code);
    }
}
