/* test_cnrt_capture_rules.c: the cnrt sim's queue-capture rules, called
 * directly (linked against the sim), one check per row of the cnrt capture
 * table in tests/sim/README.md. No public CNRT document settles them: the
 * sim takes the harsher reading of what torch_mlu keeps out of captures.
 * A capture that breaks a rule ends with cnrtErrorQueueCaptureInvalidated.
 * Single-threaded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cnrt_sim.h"

static cnrtQueue_t queue_new(void)
{
    cnrtQueue_t queue = NULL;
    assert_int_equal(cnrtQueueCreate(&queue), cnrtSuccess);
    return queue;
}

static cnrtNotifier_t notifier_new(void)
{
    cnrtNotifier_t notifier = NULL;
    assert_int_equal(cnrtNotifierCreate(&notifier), cnrtSuccess);
    return notifier;
}

static void begin(cnrtQueue_t queue)
{
    assert_int_equal(cnrtQueueBeginCapture(queue, cnrtQueueCaptureModeRelaxed), cnrtSuccess);
}

/* End the capture on `queue`: `want` is its result; a topology made is freed. */
static void end(cnrtQueue_t queue, cnrtRet_t want)
{
    cnrtTaskTopo_t topo = NULL;
    assert_int_equal(cnrtQueueEndCapture(queue, &topo), want);
    if (want == cnrtSuccess)
        assert_int_equal(cnrtTaskTopoDestroy(topo), cnrtSuccess);
}

static int setup(void **state)
{
    (void)state;
    return cnrtSetDevice(0) == cnrtSuccess ? 0 : -1;
}

/* CNRT-CAP-JOIN: a queue waiting on a notifier placed in the capture joins
 * it (a query of it is a capturing-queue query), only the origin ends it,
 * and the end takes the joined queue out too. */
static void test_join(void **state)
{
    cnrtQueue_t origin = queue_new(), side = queue_new();
    cnrtNotifier_t fork = notifier_new(), join = notifier_new();
    (void)state;
    begin(origin);
    assert_int_equal(cnrtPlaceNotifier(fork, origin), cnrtSuccess);
    assert_int_equal(cnrtQueueWaitNotifier(fork, side, 0), cnrtSuccess);
    assert_int_equal(cnrtQueueQuery(side), cnrtErrorQueueCaptureUnsupported);
    end(side, cnrtErrorIllegalState);
    end(origin, cnrtErrorQueueCaptureInvalidated);
    assert_int_equal(cnrtQueueQuery(side), cnrtSuccess);

    begin(origin);
    assert_int_equal(cnrtPlaceNotifier(fork, origin), cnrtSuccess);
    assert_int_equal(cnrtQueueWaitNotifier(fork, side, 0), cnrtSuccess);
    assert_int_equal(cnrtPlaceNotifier(join, side), cnrtSuccess);
    assert_int_equal(cnrtQueueWaitNotifier(join, origin, 0), cnrtSuccess);
    end(origin, cnrtSuccess);
    assert_int_equal(cnrtQueueSync(side), cnrtSuccess);
    assert_int_equal(cnrtNotifierDestroy(fork), cnrtSuccess);
    assert_int_equal(cnrtNotifierDestroy(join), cnrtSuccess);
    assert_int_equal(cnrtQueueDestroy(side), cnrtSuccess);
    assert_int_equal(cnrtQueueDestroy(origin), cnrtSuccess);
}

/* CNRT-CAP-QUERY: notifier queries and waits (any notifier) and a device
 * sync during a capture are refused and invalidate it. */
static void test_query_and_sync(void **state)
{
    cnrtQueue_t origin = queue_new(), other = queue_new();
    cnrtNotifier_t outside = notifier_new();
    (void)state;
    assert_int_equal(cnrtPlaceNotifier(outside, other), cnrtSuccess);
    assert_int_equal(cnrtQueueSync(other), cnrtSuccess);
    begin(origin);
    assert_int_equal(cnrtQueryNotifier(outside), cnrtErrorQueueCaptureUnsupported);
    end(origin, cnrtErrorQueueCaptureInvalidated);
    begin(origin);
    assert_int_equal(cnrtWaitNotifier(outside), cnrtErrorQueueCaptureUnsupported);
    end(origin, cnrtErrorQueueCaptureInvalidated);
    begin(origin);
    assert_int_equal(cnrtSyncDevice(), cnrtErrorQueueCaptureUnsupported);
    end(origin, cnrtErrorQueueCaptureInvalidated);
    assert_int_equal(cnrtQueryNotifier(outside), cnrtSuccess);
    assert_int_equal(cnrtSyncDevice(), cnrtSuccess);
    assert_int_equal(cnrtNotifierDestroy(outside), cnrtSuccess);
    assert_int_equal(cnrtQueueDestroy(other), cnrtSuccess);
    assert_int_equal(cnrtQueueDestroy(origin), cnrtSuccess);
}

/* CNRT-CAP-RECORD: a notifier last placed in a capture cannot be queried,
 * even after the capture; a place outside makes it usable again. */
static void test_captured_notifier(void **state)
{
    cnrtQueue_t origin = queue_new();
    cnrtNotifier_t notifier = notifier_new();
    (void)state;
    begin(origin);
    assert_int_equal(cnrtPlaceNotifier(notifier, origin), cnrtSuccess);
    end(origin, cnrtSuccess);
    assert_int_equal(cnrtQueryNotifier(notifier), cnrtErrorQueueCaptureUnsupported);
    assert_int_equal(cnrtPlaceNotifier(notifier, origin), cnrtSuccess);
    assert_int_equal(cnrtWaitNotifier(notifier), cnrtSuccess);
    assert_int_equal(cnrtQueryNotifier(notifier), cnrtSuccess);
    assert_int_equal(cnrtNotifierDestroy(notifier), cnrtSuccess);
    assert_int_equal(cnrtQueueDestroy(origin), cnrtSuccess);
}

/* CNRT-CAP-FREE: cnrtFree during a capture is refused and invalidates it. */
static void test_free_during_capture(void **state)
{
    cnrtQueue_t origin = queue_new();
    void *block = NULL;
    (void)state;
    assert_int_equal(cnrtMalloc(&block, 4096), cnrtSuccess);
    begin(origin);
    assert_int_equal(cnrtFree(block), cnrtErrorQueueCaptureUnsupported);
    end(origin, cnrtErrorQueueCaptureInvalidated);
    assert_int_equal(cnrtFree(block), cnrtSuccess);
    assert_int_equal(cnrtQueueDestroy(origin), cnrtSuccess);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_query_and_sync),
        cmocka_unit_test(test_captured_notifier),
        cmocka_unit_test(test_free_during_capture),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
