/* test_npu_streams.c: the npu backend against the ascendcl sim's vendor rules
 * for streams, callbacks and events (tests/sim/README.md, ascendcl rules
 * C1-C10, E1-E6). ctest runs it on the current sim (aclrtLaunchHostFunc and
 * Ex events), on "v7" (report threads, WithFlag events) and on "v6" (also no
 * aclrtQueryEventWaitStatus), ACCEL_NPU_LIBRARY naming the one in use and
 * ACCEL_SIM_ACL_EVENT_LIMIT=16. Each test would fail on the backend before
 * these rules: a report thread shared by devices (C2), one that never set
 * its device (C1, the test hangs: alarm() ends it), the old timeout codes
 * (C7), events destroyed under queued work (E3), a fresh WithFlag event that
 * never becomes ready (E4), and no end to a report thread's failures (issue
 * 28 G9). The sim's control functions are reached with dlsym. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <accel/accel.h>

#include "common/sim_gate.h"

/* ---------------------------------------------------------------- the sim */

/* The sim the backend loads (the same file, so the same handle; kept open
 * for the process). */
static void *sim_library(void)
{
    static void *library;
    const char *path = getenv("ACCEL_NPU_LIBRARY");
    if (library == NULL && path != NULL)
        library = dlopen(path, RTLD_NOW);
    assert_non_null(library);
    return library;
}

/* Whether the sim in use exports `symbol` (the OMIT variants do not). */
static bool sim_has(const char *symbol)
{
    return dlsym(sim_library(), symbol) != NULL;
}

static unsigned long sim_violations(void)
{
    unsigned long (*count)(void) =
        (unsigned long (*)(void))dlsym(sim_library(), "accel_sim_acl_violations");
    assert_non_null(count);
    return count();
}

static void sim_fail(const char *spec)
{
    int (*set)(const char *) = (int (*)(const char *))dlsym(sim_library(), "accel_sim_fault_set");
    assert_non_null(set);
    assert_int_equal(set(spec), 0);
}

static accel_t *open_npu(void)
{
    accel_t *acc = NULL;
    assert_int_equal(accel_open("npu", &acc), ACCEL_OK);
    return acc;
}

/* ---------------------------------------------------------------- callbacks */

static void count_run(void *arg)
{
    __atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST);
}

/* C1, C2: each device's callbacks run, on its default stream and on a
 * created one: a report thread per device, with that device set. */
static void test_callbacks_on_every_device(void **state)
{
    accel_t *acc = open_npu();
    int count = 0;
    (void)state;
    assert_int_equal(accel_device_count(acc, &count), ACCEL_OK);
    assert_true(count >= 2);
    for (int d = 0; d < count; d++) {
        accel_stream_t *stream = NULL, *fallback = NULL;
        int runs = 0;
        assert_int_equal(accel_stream_create(acc, d, 0, &stream), ACCEL_OK);
        assert_int_equal(accel_default_stream(acc, d, &fallback), ACCEL_OK);
        assert_int_equal(accel_stream_add_callback(stream, count_run, &runs), ACCEL_OK);
        assert_int_equal(accel_stream_add_callback(fallback, count_run, &runs), ACCEL_OK);
        assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
        assert_int_equal(accel_synchronize(acc, d), ACCEL_OK);
        assert_int_equal(__atomic_load_n(&runs, __ATOMIC_SEQ_CST), 2);
        assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    }
    assert_int_equal(sim_violations(), 0);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* C7: an idle report thread sees the real timeout code (507012) and says
 * nothing; the old code took it for a failure and warned. stderr is caught
 * in a file while a callback runs and the thread idles a few timeouts. */
static void test_report_timeout_is_quiet(void **state)
{
    char path[] = "/tmp/accel-npu-streams-XXXXXX";
    char text[4096] = "";
    int saved, fd = mkstemp(path);
    accel_t *acc;
    accel_stream_t *stream = NULL;
    int runs = 0;
    ssize_t got;
    (void)state;
    if (sim_has("aclrtLaunchHostFunc"))
        skip(); /* no report thread on this runtime */
    assert_true(fd >= 0);
    unlink(path);
    fflush(stderr);
    saved = dup(2);
    dup2(fd, 2);
    acc = open_npu();
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(stream, count_run, &runs), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    usleep(300 * 1000);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    got = pread(fd, text, sizeof text - 1, 0);
    close(fd);
    text[got > 0 ? got : 0] = '\0';
    fputs(text, stderr);
    assert_int_equal(runs, 1);
    assert_null(strstr(text, "aclrtProcessReport"));
}

/* Issue 28 G9: every aclrtProcessReport fails. The report thread gives up,
 * and a synchronize behind the callback fails with a sentence instead of
 * waiting for ever. Runs last: the sim keeps the callback queued. */
static void test_report_failure_fails_the_stream(void **state)
{
    accel_t *acc;
    accel_stream_t *stream = NULL;
    int runs = 0;
    (void)state;
    if (sim_has("aclrtLaunchHostFunc"))
        skip(); /* the runtime runs host functions itself */
    acc = open_npu();
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    sim_fail("aclrtProcessReport:*:507000");
    assert_int_equal(accel_stream_add_callback(stream, count_run, &runs), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_ERROR_DEVICE_ERROR);
    assert_non_null(strstr(accel_last_error(), "aclrtProcessReport failed"));
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_ERROR_DEVICE_ERROR);
    /* a new callback on that device is refused with the same sentence */
    assert_int_equal(accel_stream_add_callback(stream, count_run, &runs), ACCEL_ERROR_DEVICE_ERROR);
    assert_non_null(strstr(accel_last_error(), "can no longer run"));
    sim_fail(NULL);
    assert_int_equal(runs, 0);
    accel_stream_destroy(stream);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* ---------------------------------------------------------------- events */

/* E4: a fresh event is complete to accel, whatever ACL says of it. */
static void test_fresh_event_is_complete(void **state)
{
    accel_t *acc = open_npu();
    accel_event_t *event = NULL;
    accel_stream_t *stream = NULL;
    (void)state;
    assert_int_equal(accel_event_create(acc, 0, 0, &event), ACCEL_OK);
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_event_query(event), ACCEL_OK);
    assert_int_equal(accel_event_synchronize(event), ACCEL_OK);
    assert_int_equal(accel_stream_wait_event(stream, event), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    assert_int_equal(accel_event_destroy(event), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(sim_violations(), 0);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* E3: an event destroyed while its record and a wait on it are still
 * queued; both streams still finish without error, and the sim saw no
 * WithFlag event go under queued work. */
static void test_destroy_with_work_queued(void **state)
{
    accel_t *acc = open_npu();
    accel_stream_t *producer = NULL, *consumer = NULL;
    accel_event_t *event = NULL;
    sim_gate_t gate = SIM_GATE_INIT;
    (void)state;
    assert_int_equal(accel_stream_create(acc, 0, 0, &producer), ACCEL_OK);
    assert_int_equal(accel_stream_create(acc, 0, 0, &consumer), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, 0, &event), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(producer, sim_gate_wait, &gate), ACCEL_OK);
    assert_int_equal(accel_event_record(event, producer), ACCEL_OK);
    assert_int_equal(accel_stream_wait_event(consumer, event), ACCEL_OK);
    assert_int_equal(accel_event_destroy(event), ACCEL_OK);
    sim_gate_open(&gate);
    assert_int_equal(accel_stream_synchronize(consumer), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(producer), ACCEL_OK);
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK);
    assert_int_equal(sim_violations(), 0);
    assert_int_equal(accel_stream_destroy(producer), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(consumer), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* E1: many more events than the pool holds (ACCEL_SIM_ACL_EVENT_LIMIT=16),
 * each recorded, waited on and destroyed with no synchronize between. */
static void test_event_pool(void **state)
{
    accel_t *acc = open_npu();
    accel_stream_t *producer = NULL, *consumer = NULL;
    void *buffer = NULL;
    (void)state;
    assert_int_equal(accel_stream_create(acc, 0, 0, &producer), ACCEL_OK);
    assert_int_equal(accel_stream_create(acc, 0, 0, &consumer), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, 1 << 20, &buffer), ACCEL_OK);
    for (int i = 0; i < 200; i++) {
        accel_event_t *event = NULL;
        assert_int_equal(accel_event_create(acc, 0, 0, &event), ACCEL_OK);
        assert_int_equal(accel_memset_async(acc, buffer, i & 0xff, 1 << 20, producer), ACCEL_OK);
        assert_int_equal(accel_event_record(event, producer), ACCEL_OK);
        assert_int_equal(accel_stream_wait_event(consumer, event), ACCEL_OK);
        assert_int_equal(accel_event_destroy(event), ACCEL_OK);
    }
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK);
    assert_int_equal(sim_violations(), 0);
    assert_int_equal(accel_free(acc, buffer), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(producer), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(consumer), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_callbacks_on_every_device),
        cmocka_unit_test(test_report_timeout_is_quiet),
        cmocka_unit_test(test_fresh_event_is_complete),
        cmocka_unit_test(test_destroy_with_work_queued),
        cmocka_unit_test(test_event_pool),
        cmocka_unit_test(test_report_failure_fails_the_stream),
    };
    /* A hang (a callback that never runs) fails the test rather than
     * waiting for ctest's timeout. */
    alarm(60);
    /* NPU_STREAMS_TEST=<pattern> runs only the matching tests. */
    if (getenv("NPU_STREAMS_TEST") != NULL)
        cmocka_set_test_filter(getenv("NPU_STREAMS_TEST"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
