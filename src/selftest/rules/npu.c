/* npu.c: one probe per vendor rule the npu backend relies on (the "Vendor
 * rules we rely on" tables of src/backends/npu/README.md; the ascendcl
 * sim's rules C*, E*, M* and V1 in tests/sim/README.md). Each probe checks
 * that its rule holds on the ACL runtime in front of it, the real CANN
 * runtime or the sim, by calling ACL directly (npu_acl.h) where only a
 * direct call can tell, or through accel's API where that observes it. A
 * probe that cannot observe its rule here (a function this runtime lacks,
 * one device) skips and says why. rule-list.h lists them; each runs in a
 * child process of its own, so a probe leaves cleaning up after a failure
 * to the process's end, and what its helper threads and callbacks use is
 * static: a failure unwinds the probe while they may still run. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "rules/npu_acl.h"
#include "rules/rule-list.h"

static void probe_sleep_ms(int ms)
{
    struct timespec pause = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

/* ---------------------------------------------------------------- callbacks: C1-C10 */

static atomic_bool c1_ran;
static atomic_uint_least64_t c1_thread;

static void c1_callback(void *arg)
{
    (void)arg;
    atomic_store(&c1_thread, (uint64_t)pthread_self());
    atomic_store(&c1_ran, true);
}

void probe_npu_c1_report_thread_runs_callbacks(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t stream = probe_acl_stream(acl);
    static probe_reporter_t reporter = {.set_device = true};
    bool ran;
    (void)state;
    probe_reporter_start(&reporter, acl, 0);
    probe_acl_ok(acl, acl->aclrtSubscribeReport(atomic_load(&reporter.id), stream));
    probe_acl_ok(acl,
                 acl->aclrtLaunchCallback(c1_callback, NULL, PROBE_ACL_CALLBACK_NO_BLOCK, stream));
    ran = probe_wait_flag(&c1_ran, 3000);
    probe_acl_ok(acl, acl->aclrtSynchronizeStream(stream));
    probe_acl_ok(acl, acl->aclrtUnSubscribeReport(atomic_load(&reporter.id), stream));
    probe_reporter_stop(&reporter);
    probe_acl_ok(acl, acl->aclrtDestroyStream(stream));
    if (!ran)
        fail_msg("a callback was not run within 3 s by the subscribed report thread, which set "
                 "the stream's device and called aclrtProcessReport (its last code: %d)",
                 atomic_load(&reporter.last_code));
    assert_int_equal(atomic_load(&c1_thread), atomic_load(&reporter.id));
}

void probe_npu_c2_report_thread_one_device(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    uint64_t self = (uint64_t)pthread_self();
    probe_acl_stream_t first, second;
    probe_acl_error_t code;
    (void)state;
    if (probe_acl_device_count(acl) < 2)
        conf_skip("rule C2 is about two devices; ACL shows one");
    first = probe_acl_stream(acl);
    probe_acl_ok(acl, acl->aclrtSubscribeReport(self, first));
    probe_acl_ok(acl, acl->aclrtSetDevice(1));
    second = probe_acl_stream(acl);
    code = acl->aclrtSubscribeReport(self, second);
    if (code == PROBE_ACL_SUCCESS)
        (void)acl->aclrtUnSubscribeReport(self, second);
    probe_acl_ok(acl, acl->aclrtDestroyStream(second));
    probe_acl_ok(acl, acl->aclrtSetDevice(0));
    probe_acl_ok(acl, acl->aclrtUnSubscribeReport(self, first));
    probe_acl_ok(acl, acl->aclrtDestroyStream(first));
    probe_acl_expect(acl, "aclrtSubscribeReport of device 0's report thread to device 1's stream",
                     code, PROBE_ACL_ERROR_RT_THREAD_SUBSCRIBE);
}

void probe_npu_c3_stream_one_report_thread(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t stream = probe_acl_stream(acl);
    static probe_reporter_t other = {.set_device = true};
    uint64_t self = (uint64_t)pthread_self();
    probe_acl_error_t code;
    (void)state;
    probe_reporter_start(&other, acl, 0);
    probe_acl_ok(acl, acl->aclrtSubscribeReport(self, stream));
    code = acl->aclrtSubscribeReport(atomic_load(&other.id), stream);
    if (code == PROBE_ACL_SUCCESS)
        (void)acl->aclrtUnSubscribeReport(atomic_load(&other.id), stream);
    else
        probe_acl_ok(acl, acl->aclrtUnSubscribeReport(self, stream));
    probe_reporter_stop(&other);
    probe_acl_ok(acl, acl->aclrtDestroyStream(stream));
    probe_acl_expect(acl, "a second thread's aclrtSubscribeReport to a subscribed stream", code,
                     PROBE_ACL_ERROR_RT_STREAM_SUBSCRIBE);
}

void probe_npu_c6_report_timeout_positive(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    (void)state;
    probe_acl_expect(acl, "aclrtProcessReport(0)", acl->aclrtProcessReport(0),
                     PROBE_ACL_ERROR_INVALID_PARAM);
    probe_acl_expect(acl, "aclrtProcessReport(-2)", acl->aclrtProcessReport(-2),
                     PROBE_ACL_ERROR_INVALID_PARAM);
}

void probe_npu_c7_report_codes(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    uint64_t self = (uint64_t)pthread_self();
    probe_acl_stream_t stream;
    probe_acl_error_t idle;
    (void)state;
    probe_acl_expect(acl, "aclrtProcessReport(20) on a thread subscribed to no stream",
                     acl->aclrtProcessReport(20), PROBE_ACL_ERROR_RT_THREAD_SUBSCRIBE);
    stream = probe_acl_stream(acl);
    probe_acl_ok(acl, acl->aclrtSubscribeReport(self, stream));
    idle = acl->aclrtProcessReport(20);
    probe_acl_ok(acl, acl->aclrtUnSubscribeReport(self, stream));
    probe_acl_ok(acl, acl->aclrtDestroyStream(stream));
    probe_acl_expect(acl, "aclrtProcessReport(20) on a subscribed thread with no callback", idle,
                     PROBE_ACL_ERROR_RT_REPORT_TIMEOUT);
}

/* C8: what a host callback sees when it synchronizes through accel. */
typedef struct c8_inside {
    accel_stream_t *own, *other;
    accel_status_t own_status, other_status;
    atomic_bool returned;
} c8_inside_t;

static void c8_callback(void *arg)
{
    c8_inside_t *inside = arg;
    inside->own_status = accel_stream_synchronize(inside->own);
    inside->other_status = accel_stream_synchronize(inside->other);
    atomic_store(&inside->returned, true);
}

void probe_npu_c8_callback_never_synchronizes(void **state)
{
    static c8_inside_t inside; /* a hung callback may still hold it at exit */
    (void)state;
    conf_require_streams();
    assert_ok(accel_stream_create(conformance_acc, 0, 0, &inside.own));
    assert_ok(accel_stream_create(conformance_acc, 0, 0, &inside.other));
    assert_ok(accel_stream_add_callback(inside.own, c8_callback, &inside));
    if (!probe_wait_flag(&inside.returned, 3000))
        fail_msg("a host callback's accel_stream_synchronize has not returned after 3 s: the "
                 "runtime deadlocks on a synchronize from inside a callback");
    assert_ok(accel_stream_synchronize(inside.own));
    if (inside.own_status == ACCEL_OK)
        fail_msg("a host callback synchronized its own stream and got ACCEL_OK: the wait would "
                 "be for itself");
    print_message("inside a callback: own stream %s, another stream %s\n",
                  accel_status_name(inside.own_status), accel_status_name(inside.other_status));
    assert_ok(accel_stream_destroy(inside.other));
    assert_ok(accel_stream_destroy(inside.own));
}

static void c9_callback(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

void probe_npu_c9_one_callback_mechanism(void **state)
{
    int devices = conf_device_count();
    (void)state;
    conf_require_streams();
    for (int d = 0; d < devices; d++) {
        accel_stream_t *streams[2];
        atomic_int ran = 0;
        assert_ok(accel_default_stream(conformance_acc, d, &streams[0]));
        assert_ok(accel_stream_create(conformance_acc, d, 0, &streams[1]));
        for (int round = 0; round < 2; round++)
            for (int s = 0; s < 2; s++)
                assert_ok(accel_stream_add_callback(streams[s], c9_callback, &ran));
        for (int s = 0; s < 2; s++)
            assert_ok(accel_stream_synchronize(streams[s]));
        if (atomic_load(&ran) != 4)
            fail_msg("device %d: %d of 4 host callbacks ran on its default and a created stream", d,
                     atomic_load(&ran));
        assert_ok(accel_stream_destroy(streams[1]));
    }
}

static atomic_bool c10_ran;
static atomic_uint_least64_t c10_thread;

static void c10_host_func(void *arg)
{
    (void)arg;
    probe_sleep_ms(50); /* the stream must wait for it, however long it takes */
    atomic_store(&c10_thread, (uint64_t)pthread_self());
    atomic_store(&c10_ran, true);
}

void probe_npu_c10_launch_host_func(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t stream;
    (void)state;
    if (acl->aclrtLaunchHostFunc == NULL)
        conf_skip("this runtime lacks aclrtLaunchHostFunc (CANN before 8.3.RC1): accel runs "
                  "callbacks on report threads instead");
    stream = probe_acl_stream(acl);
    probe_acl_ok(acl, acl->aclrtLaunchHostFunc(stream, c10_host_func, NULL));
    probe_acl_ok(acl, acl->aclrtSynchronizeStream(stream));
    probe_acl_ok(acl, acl->aclrtDestroyStream(stream));
    if (!atomic_load(&c10_ran))
        fail_msg("aclrtSynchronizeStream returned before the stream's host function had run");
    assert_int_not_equal(atomic_load(&c10_thread), (uint64_t)pthread_self());
}

/* ---------------------------------------------------------------- events: E1-E6 */

void probe_npu_e1_event_ids_return(void **state)
{
    /* More than the largest documented pool (65536): ids must come back. */
    const int rounds = 66000;
    const probe_acl_t *acl = probe_acl_open(0);
    (void)state;
    for (int i = 0; i < rounds; i++) {
        probe_acl_event_t event = NULL;
        probe_acl_error_t code = acl->aclrtCreateEventWithFlag(&event, PROBE_ACL_EVENT_SYNC);
        if (code != PROBE_ACL_SUCCESS)
            fail_msg("creating and destroying WithFlag events one at a time failed at event %d "
                     "with aclError %d: destroyed events do not return their id to the pool",
                     i + 1, code);
        probe_acl_ok(acl, acl->aclrtDestroyEvent(event));
    }
}

void probe_npu_e2_ex_event_destroy_queued(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t stream;
    probe_acl_event_t event = NULL;
    static probe_hold_t hold;
    probe_acl_error_t code;
    (void)state;
    if (acl->aclrtCreateEventExWithFlag == NULL)
        conf_skip("this runtime lacks aclrtCreateEventExWithFlag (CANN before 8.0.0): accel "
                  "uses WithFlag events (rule E3)");
    stream = probe_acl_stream(acl);
    probe_hold_start(&hold, acl, stream, 0);
    probe_acl_ok(acl, acl->aclrtCreateEventExWithFlag(&event, PROBE_ACL_EVENT_SYNC));
    probe_acl_ok(acl, acl->aclrtRecordEvent(event, stream));
    probe_acl_ok(acl, acl->aclrtDestroyEvent(event));
    probe_hold_release(&hold);
    code = acl->aclrtSynchronizeStream(stream);
    probe_hold_finish(&hold);
    probe_acl_expect(acl,
                     "aclrtSynchronizeStream after an Ex event recorded on it was destroyed "
                     "while the record was queued",
                     code, PROBE_ACL_SUCCESS);
    probe_acl_ok(acl, acl->aclrtDestroyStream(stream));
}

void probe_npu_e3_withflag_destroy_after_completion(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t recorder = probe_acl_stream(acl), waiter = probe_acl_stream(acl);
    probe_acl_event_t event = NULL;
    unsigned int status = PROBE_ACL_EVENT_RECORDED_NOT_READY;
    void *device = NULL;
    (void)state;
    probe_acl_ok(acl, acl->aclrtCreateEventWithFlag(&event, PROBE_ACL_EVENT_SYNC));
    probe_acl_ok(acl, acl->aclrtRecordEvent(event, recorder));
    probe_acl_ok(acl, acl->aclrtStreamWaitEvent(waiter, event));
    probe_acl_ok(acl, acl->aclrtSynchronizeStream(recorder));
    probe_acl_ok(acl, acl->aclrtSynchronizeStream(waiter));
    probe_acl_ok(acl, acl->aclrtQueryEventStatus(event, &status));
    assert_int_equal(status, PROBE_ACL_EVENT_RECORDED_COMPLETE);
    /* Record and wait are done: the destroy E3 allows, as accel defers it. */
    probe_acl_ok(acl, acl->aclrtDestroyEvent(event));
    probe_acl_ok(acl, acl->aclrtMalloc(&device, 4096, PROBE_ACL_MEM_MALLOC_HUGE_FIRST));
    probe_acl_ok(acl, acl->aclrtMemsetAsync(device, 4096, 1, 4096, recorder));
    probe_acl_ok(acl, acl->aclrtMemsetAsync(device, 4096, 2, 4096, waiter));
    probe_acl_expect(acl, "aclrtSynchronizeStream of the recording stream after the event went",
                     acl->aclrtSynchronizeStream(recorder), PROBE_ACL_SUCCESS);
    probe_acl_expect(acl, "aclrtSynchronizeStream of the waiting stream after the event went",
                     acl->aclrtSynchronizeStream(waiter), PROBE_ACL_SUCCESS);
    probe_acl_ok(acl, acl->aclrtFree(device));
    probe_acl_ok(acl, acl->aclrtDestroyStream(waiter));
    probe_acl_ok(acl, acl->aclrtDestroyStream(recorder));
}

void probe_npu_e4_unrecorded_event_not_ready(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t stream = probe_acl_stream(acl);
    probe_acl_event_t event = NULL;
    unsigned int fresh = 99, done = 99;
    (void)state;
    probe_acl_ok(acl, acl->aclrtCreateEventWithFlag(&event, PROBE_ACL_EVENT_SYNC));
    probe_acl_ok(acl, acl->aclrtQueryEventStatus(event, &fresh));
    probe_acl_ok(acl, acl->aclrtRecordEvent(event, stream));
    probe_acl_ok(acl, acl->aclrtSynchronizeStream(stream));
    probe_acl_ok(acl, acl->aclrtQueryEventStatus(event, &done));
    probe_acl_ok(acl, acl->aclrtDestroyEvent(event));
    probe_acl_ok(acl, acl->aclrtDestroyStream(stream));
    if (fresh != PROBE_ACL_EVENT_RECORDED_NOT_READY)
        fail_msg("a WithFlag event never recorded queries %u, not NOT_READY (%u)", fresh,
                 PROBE_ACL_EVENT_RECORDED_NOT_READY);
    if (done != PROBE_ACL_EVENT_RECORDED_COMPLETE)
        fail_msg("a WithFlag event whose record completed queries %u, not COMPLETE (%u)", done,
                 PROBE_ACL_EVENT_RECORDED_COMPLETE);
}

void probe_npu_e6_wait_status_polarity(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t recorder, waiter;
    probe_acl_event_t event = NULL;
    unsigned int queued = 99, ran = 99;
    static probe_hold_t hold;
    (void)state;
    if (acl->aclrtQueryEventWaitStatus == NULL)
        conf_skip("this runtime lacks aclrtQueryEventWaitStatus: accel then tracks record "
                  "status only");
    recorder = probe_acl_stream(acl);
    waiter = probe_acl_stream(acl);
    probe_hold_start(&hold, acl, recorder, 0);
    probe_acl_ok(acl, acl->aclrtCreateEventWithFlag(&event, PROBE_ACL_EVENT_SYNC));
    probe_acl_ok(acl, acl->aclrtRecordEvent(event, recorder));
    probe_acl_ok(acl, acl->aclrtStreamWaitEvent(waiter, event));
    probe_acl_ok(acl, acl->aclrtQueryEventWaitStatus(event, &queued));
    probe_hold_release(&hold);
    probe_hold_finish(&hold);
    probe_acl_ok(acl, acl->aclrtSynchronizeStream(waiter));
    probe_acl_ok(acl, acl->aclrtQueryEventWaitStatus(event, &ran));
    probe_acl_ok(acl, acl->aclrtDestroyEvent(event));
    probe_acl_ok(acl, acl->aclrtDestroyStream(waiter));
    probe_acl_ok(acl, acl->aclrtDestroyStream(recorder));
    if (queued != PROBE_ACL_EVENT_WAIT_NOT_READY)
        fail_msg("with a wait on the event still queued, aclrtQueryEventWaitStatus answered %u, "
                 "not NOT_READY (%u)",
                 queued, PROBE_ACL_EVENT_WAIT_NOT_READY);
    if (ran != PROBE_ACL_EVENT_WAIT_COMPLETE)
        fail_msg("once the wait ran, aclrtQueryEventWaitStatus answered %u, not COMPLETE (%u)", ran,
                 PROBE_ACL_EVENT_WAIT_COMPLETE);
}

/* ---------------------------------------------------------------- memory: M1-M9 */

void probe_npu_m1_async_h2h_refused(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t stream = probe_acl_stream(acl);
    void *a = NULL, *b = NULL;
    probe_acl_error_t code;
    (void)state;
    probe_acl_ok(acl, acl->aclrtMallocHost(&a, 256));
    probe_acl_ok(acl, acl->aclrtMallocHost(&b, 256));
    code = acl->aclrtMemcpyAsync(b, 256, a, 256, PROBE_ACL_MEMCPY_HOST_TO_HOST, stream);
    probe_acl_ok(acl, acl->aclrtSynchronizeStream(stream));
    probe_acl_ok(acl, acl->aclrtFreeHost(b));
    probe_acl_ok(acl, acl->aclrtFreeHost(a));
    probe_acl_ok(acl, acl->aclrtDestroyStream(stream));
    probe_acl_expect(acl, "aclrtMemcpyAsync host to host", code,
                     PROBE_ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
}

void probe_npu_m2_unaligned_d2d(void **state)
{
    enum { size = 4096, count = 1000 };
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t stream = probe_acl_stream(acl);
    unsigned char pattern[size], zeros[size] = {0}, back[size];
    void *src = NULL, *dst = NULL;
    probe_acl_error_t code;
    (void)state;
    for (int i = 0; i < size; i++)
        pattern[i] = (unsigned char)(i * 7 + 1);
    probe_acl_ok(acl, acl->aclrtMalloc(&src, size, PROBE_ACL_MEM_MALLOC_HUGE_FIRST));
    probe_acl_ok(acl, acl->aclrtMalloc(&dst, size, PROBE_ACL_MEM_MALLOC_HUGE_FIRST));
    probe_acl_ok(acl, acl->aclrtMemcpy(src, size, pattern, size, PROBE_ACL_MEMCPY_HOST_TO_DEVICE));
    probe_acl_ok(acl, acl->aclrtMemcpy(dst, size, zeros, size, PROBE_ACL_MEMCPY_HOST_TO_DEVICE));
    code = acl->aclrtMemcpyAsync((char *)dst + 1, size - 1, (char *)src + 3, count,
                                 PROBE_ACL_MEMCPY_DEVICE_TO_DEVICE, stream);
    probe_acl_ok(acl, acl->aclrtSynchronizeStream(stream));
    probe_acl_ok(acl, acl->aclrtMemcpy(back, size, dst, size, PROBE_ACL_MEMCPY_DEVICE_TO_HOST));
    probe_acl_ok(acl, acl->aclrtFree(dst));
    probe_acl_ok(acl, acl->aclrtFree(src));
    probe_acl_ok(acl, acl->aclrtDestroyStream(stream));
    if (code != PROBE_ACL_SUCCESS) {
        print_message("an unaligned device-to-device aclrtMemcpyAsync is refused (aclError %d), "
                      "as acl_rt.h documents\n",
                      code);
        return;
    }
    print_message("an unaligned device-to-device aclrtMemcpyAsync is accepted: the 64-byte "
                  "rule is stale on this runtime, so accel's bounce is not needed here\n");
    if (memcmp(back + 1, pattern + 3, count) != 0 || back[0] != 0 || back[count + 1] != 0)
        fail_msg("an unaligned device-to-device aclrtMemcpyAsync was accepted but copied the "
                 "wrong bytes");
}

void probe_npu_m3_pinned_async_copies(void **state)
{
    enum { size = 65536 };
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t stream = probe_acl_stream(acl);
    unsigned char *in = NULL, *out = NULL;
    void *device = NULL;
    (void)state;
    probe_acl_ok(acl, acl->aclrtMallocHost((void **)&in, size));
    probe_acl_ok(acl, acl->aclrtMallocHost((void **)&out, size));
    probe_acl_ok(acl, acl->aclrtMalloc(&device, size, PROBE_ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < size; i++) {
        in[i] = (unsigned char)(i * 13 + 5);
        out[i] = 0;
    }
    probe_acl_ok(acl, acl->aclrtMemcpyAsync(device, size, in, size, PROBE_ACL_MEMCPY_HOST_TO_DEVICE,
                                            stream));
    probe_acl_ok(acl, acl->aclrtMemcpyAsync(out, size, device, size,
                                            PROBE_ACL_MEMCPY_DEVICE_TO_HOST, stream));
    probe_acl_ok(acl, acl->aclrtSynchronizeStream(stream));
    assert_memory_equal(out, in, size);
    probe_acl_ok(acl, acl->aclrtFree(device));
    probe_acl_ok(acl, acl->aclrtFreeHost(out));
    probe_acl_ok(acl, acl->aclrtFreeHost(in));
    probe_acl_ok(acl, acl->aclrtDestroyStream(stream));
}

typedef struct m6_free {
    const probe_acl_t *acl;
    void *block;
    probe_acl_error_t code;
    atomic_bool returned;
} m6_free_t;

static void *m6_free_main(void *arg)
{
    m6_free_t *job = arg;
    job->code = job->acl->aclrtSetDevice(0);
    if (job->code == PROBE_ACL_SUCCESS)
        job->code = job->acl->aclrtFree(job->block);
    atomic_store(&job->returned, true);
    return NULL;
}

void probe_npu_m6_free_does_not_wait(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t stream = probe_acl_stream(acl);
    static m6_free_t job;
    static probe_hold_t hold;
    pthread_t thread;
    bool returned;
    (void)state;
    job.acl = acl;
    probe_acl_ok(acl, acl->aclrtMalloc(&job.block, 4096, PROBE_ACL_MEM_MALLOC_HUGE_FIRST));
    probe_hold_start(&hold, acl, stream, 0);
    if (pthread_create(&thread, NULL, m6_free_main, &job) != 0)
        fail_msg("cannot start a thread");
    returned = probe_wait_flag(&job.returned, 2000);
    probe_hold_release(&hold);
    pthread_join(thread, NULL);
    probe_hold_finish(&hold);
    probe_acl_ok(acl, acl->aclrtDestroyStream(stream));
    if (!returned)
        fail_msg("aclrtFree of a block no task uses waited for a stream's queued work: it "
                 "synchronizes, and accel's frees would stall behind every stream");
    probe_acl_expect(acl, "aclrtFree", job.code, PROBE_ACL_SUCCESS);
}

void probe_npu_m7_register_needs_page(void **state)
{
    enum { page = 4096 };
    const probe_acl_t *acl = probe_acl_open(0);
    void *pages = NULL, *mapped = NULL;
    probe_acl_error_t unaligned, aligned;
    (void)state;
    if (acl->aclrtHostRegister == NULL || acl->aclrtHostUnregister == NULL)
        conf_skip("this runtime lacks aclrtHostRegister or aclrtHostUnregister");
    if (posix_memalign(&pages, page, 3 * page) != 0)
        fail_msg("out of host memory");
    unaligned =
        acl->aclrtHostRegister((char *)pages + 64, page, PROBE_ACL_HOST_REGISTER_MAPPED, &mapped);
    if (unaligned == PROBE_ACL_SUCCESS)
        (void)acl->aclrtHostUnregister((char *)pages + 64);
    aligned = acl->aclrtHostRegister(pages, page, PROBE_ACL_HOST_REGISTER_MAPPED, &mapped);
    if (aligned == PROBE_ACL_SUCCESS)
        probe_acl_ok(acl, acl->aclrtHostUnregister(pages));
    free(pages);
    if (unaligned == PROBE_ACL_SUCCESS)
        fail_msg("aclrtHostRegister accepted a pointer 64 bytes into a page: the 4 KiB rule "
                 "does not hold");
    if (aligned == PROBE_ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
        conf_skip("aclrtHostRegister(MAPPED) is not supported on this device (aclError %d)",
                  aligned);
    probe_acl_expect(acl, "aclrtHostRegister(MAPPED) of a whole page", aligned, PROBE_ACL_SUCCESS);
    assert_non_null(mapped);
}

void probe_npu_m8_register_v2_pins(void **state)
{
    enum { page = 4096 };
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t stream;
    unsigned char *pages = NULL;
    void *device = NULL;
    (void)state;
    if (acl->aclrtHostRegisterV2 == NULL || acl->aclrtHostUnregister == NULL)
        conf_skip("this runtime lacks aclrtHostRegisterV2 (CANN before 8.5): accel pins no "
                  "caller memory (accel_host_register is unsupported)");
    if (posix_memalign((void **)&pages, page, 2 * page) != 0)
        fail_msg("out of host memory");
    for (int i = 0; i < page; i++) {
        pages[i] = (unsigned char)(i * 3 + 11);
        pages[page + i] = 0;
    }
    probe_acl_expect(acl, "aclrtHostRegisterV2(page-aligned, 2 pages, ACL_HOST_REG_PINNED)",
                     acl->aclrtHostRegisterV2(pages, 2 * page, PROBE_ACL_HOST_REG_PINNED),
                     PROBE_ACL_SUCCESS);
    stream = probe_acl_stream(acl);
    probe_acl_ok(acl, acl->aclrtMalloc(&device, page, PROBE_ACL_MEM_MALLOC_HUGE_FIRST));
    probe_acl_ok(acl, acl->aclrtMemcpyAsync(device, page, pages, page,
                                            PROBE_ACL_MEMCPY_HOST_TO_DEVICE, stream));
    probe_acl_ok(acl, acl->aclrtMemcpyAsync(pages + page, page, device, page,
                                            PROBE_ACL_MEMCPY_DEVICE_TO_HOST, stream));
    probe_acl_ok(acl, acl->aclrtSynchronizeStream(stream));
    assert_memory_equal(pages + page, pages, page);
    probe_acl_ok(acl, acl->aclrtFree(device));
    probe_acl_ok(acl, acl->aclrtDestroyStream(stream));
    probe_acl_ok(acl, acl->aclrtHostUnregister(pages));
    free(pages);
}

void probe_npu_m9_memset_device(void **state)
{
    enum { size = 4096, count = 4000 };
    const probe_acl_t *acl = probe_acl_open(0);
    probe_acl_stream_t stream = probe_acl_stream(acl);
    unsigned char zeros[size] = {0}, back[size], want[size];
    void *device = NULL;
    (void)state;
    probe_acl_ok(acl, acl->aclrtMalloc(&device, size, PROBE_ACL_MEM_MALLOC_HUGE_FIRST));
    probe_acl_ok(acl, acl->aclrtMemcpy(device, size, zeros, size, PROBE_ACL_MEMCPY_HOST_TO_DEVICE));
    probe_acl_ok(acl, acl->aclrtMemsetAsync(device, size, 0x5a, count, stream));
    probe_acl_ok(acl, acl->aclrtSynchronizeStream(stream));
    probe_acl_ok(acl, acl->aclrtMemcpy(back, size, device, size, PROBE_ACL_MEMCPY_DEVICE_TO_HOST));
    probe_acl_ok(acl, acl->aclrtFree(device));
    probe_acl_ok(acl, acl->aclrtDestroyStream(stream));
    memset(want, 0x5a, count);
    memset(want + count, 0, size - count);
    if (memcmp(back, want, size) != 0)
        fail_msg("aclrtMemsetAsync of %d bytes of device memory to 0x5a left other bytes", count);
}

/* ---------------------------------------------------------------- version: V1 */

void probe_npu_v1_get_version(void **state)
{
    const probe_acl_t *acl = probe_acl_open(0);
    int32_t major = -1, minor = -1, patch = -1;
    (void)state;
    if (acl->aclrtGetVersion == NULL)
        conf_skip("this runtime lacks aclrtGetVersion (deprecated): accel says \"version "
                  "unknown\"");
    probe_acl_ok(acl, acl->aclrtGetVersion(&major, &minor, &patch));
    if (major < 0 || minor < 0 || patch < 0)
        fail_msg("aclrtGetVersion answered %d.%d.%d", major, minor, patch);
    print_message("aclrtGetVersion: %d.%d.%d\n", major, minor, patch);
}
