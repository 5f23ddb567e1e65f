/* test_cu_capture_rules.c: the cuda sim's stream-capture rules, called
 * directly (linked against the sim), one check per row of the cudadrv
 * capture table in tests/sim/README.md. Each capture that breaks a rule
 * must end with CUDA_ERROR_STREAM_CAPTURE_INVALIDATED; the rule's own call
 * returns the code the table names. Single-threaded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cu_sim.h"

static CUstream stream_new(unsigned flags)
{
    CUstream stream = NULL;
    assert_int_equal(cuStreamCreateWithPriority(&stream, flags, 0), CUDA_SUCCESS);
    return stream;
}

static CUevent event_new(void)
{
    CUevent event = NULL;
    assert_int_equal(cuEventCreate(&event, 0), CUDA_SUCCESS);
    return event;
}

/* End the capture on `origin`: `want` is its result; a graph made is freed. */
static void end_capture(CUstream origin, CUresult want)
{
    CUgraph graph = NULL;
    assert_int_equal(cuStreamEndCapture(origin, &graph), want);
    if (graph != NULL)
        assert_int_equal(cuGraphDestroy(graph), CUDA_SUCCESS);
}

static int setup(void **state)
{
    CUdevice device;
    CUcontext ctx;
    (void)state;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, device) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        return -1;
    return 0;
}

/* CAP-QUERY-CAPTURED: an event last recorded in a capture stands for no
 * work: query and synchronize give error 907, also after the capture; a
 * query during it invalidates the capture. A record outside clears it. */
static void test_captured_event(void **state)
{
    CUstream origin = stream_new(CU_STREAM_NON_BLOCKING);
    CUevent event = event_new();
    (void)state;
    assert_int_equal(cuStreamBeginCapture_v2(origin, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    assert_int_equal(cuEventRecord(event, origin), CUDA_SUCCESS);
    assert_int_equal(cuEventQuery(event), CUDA_ERROR_CAPTURED_EVENT);
    end_capture(origin, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

    assert_int_equal(cuStreamBeginCapture_v2(origin, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    assert_int_equal(cuEventRecord(event, origin), CUDA_SUCCESS);
    end_capture(origin, CUDA_SUCCESS);
    assert_int_equal(cuEventQuery(event), CUDA_ERROR_CAPTURED_EVENT);
    assert_int_equal(cuEventSynchronize(event), CUDA_ERROR_CAPTURED_EVENT);
    assert_int_equal(cuEventRecord(event, origin), CUDA_SUCCESS);
    assert_int_equal(cuEventSynchronize(event), CUDA_SUCCESS);
    assert_int_equal(cuEventQuery(event), CUDA_SUCCESS);
    assert_int_equal(cuEventDestroy_v2(event), CUDA_SUCCESS);
    assert_int_equal(cuStreamDestroy_v2(origin), CUDA_SUCCESS);
}

/* CAP-JOIN: a stream waiting on an event recorded in the capture joins it
 * (a query of it is then a capturing-stream query, error 900, which
 * invalidates the capture); it must be joined back before the end (error
 * 904), and only the origin ends the capture (error 903). */
static void test_join(void **state)
{
    CUstream origin = stream_new(CU_STREAM_NON_BLOCKING);
    CUstream side = stream_new(CU_STREAM_NON_BLOCKING);
    CUevent fork = event_new(), join = event_new();
    CUdeviceptr block = 0;
    (void)state;
    assert_int_equal(cuMemAlloc_v2(&block, 4096), CUDA_SUCCESS);

    assert_int_equal(cuStreamBeginCapture_v2(origin, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    assert_int_equal(cuEventRecord(fork, origin), CUDA_SUCCESS);
    assert_int_equal(cuStreamWaitEvent(side, fork, 0), CUDA_SUCCESS);
    assert_int_equal(cuStreamQuery(side), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    end_capture(origin, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    assert_int_equal(cuStreamQuery(side), CUDA_SUCCESS); /* left the capture with it */

    assert_int_equal(cuStreamBeginCapture_v2(origin, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    assert_int_equal(cuEventRecord(fork, origin), CUDA_SUCCESS);
    assert_int_equal(cuStreamWaitEvent(side, fork, 0), CUDA_SUCCESS);
    assert_int_equal(cuMemsetD8Async(block, 1, 4096, side), CUDA_SUCCESS);
    end_capture(side, CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
    end_capture(origin, CUDA_ERROR_STREAM_CAPTURE_UNJOINED);

    assert_int_equal(cuStreamBeginCapture_v2(origin, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    assert_int_equal(cuEventRecord(fork, origin), CUDA_SUCCESS);
    assert_int_equal(cuStreamWaitEvent(side, fork, 0), CUDA_SUCCESS);
    assert_int_equal(cuMemsetD8Async(block, 1, 4096, side), CUDA_SUCCESS);
    assert_int_equal(cuEventRecord(join, side), CUDA_SUCCESS);
    assert_int_equal(cuStreamWaitEvent(origin, join, 0), CUDA_SUCCESS);
    end_capture(origin, CUDA_SUCCESS);

    assert_int_equal(cuMemFree_v2(block), CUDA_SUCCESS);
    assert_int_equal(cuEventDestroy_v2(fork), CUDA_SUCCESS);
    assert_int_equal(cuEventDestroy_v2(join), CUDA_SUCCESS);
    assert_int_equal(cuStreamDestroy_v2(side), CUDA_SUCCESS);
    assert_int_equal(cuStreamDestroy_v2(origin), CUDA_SUCCESS);
}

/* CAP-SYNC-CTX: a context synchronize during a capture, error 900. */
static void test_context_synchronize(void **state)
{
    CUstream origin = stream_new(CU_STREAM_NON_BLOCKING);
    (void)state;
    assert_int_equal(cuStreamBeginCapture_v2(origin, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    assert_int_equal(cuCtxSynchronize(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    end_capture(origin, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    assert_int_equal(cuCtxSynchronize(), CUDA_SUCCESS);
    assert_int_equal(cuStreamDestroy_v2(origin), CUDA_SUCCESS);
}

/* CAP-FREE: cuMemFree_v2 is an unsafe call: refused (error 900) under a
 * GLOBAL or this thread's THREAD_LOCAL capture, permitted under RELAXED. */
static void test_free_by_mode(void **state)
{
    static const int modes[] = {CU_STREAM_CAPTURE_MODE_GLOBAL, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
                                CU_STREAM_CAPTURE_MODE_RELAXED};
    CUstream origin = stream_new(CU_STREAM_NON_BLOCKING);
    (void)state;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        CUdeviceptr block = 0;
        bool relaxed = modes[i] == CU_STREAM_CAPTURE_MODE_RELAXED;
        assert_int_equal(cuMemAlloc_v2(&block, 4096), CUDA_SUCCESS);
        assert_int_equal(cuStreamBeginCapture_v2(origin, modes[i]), CUDA_SUCCESS);
        assert_int_equal(cuMemFree_v2(block),
                         relaxed ? CUDA_SUCCESS : CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        end_capture(origin, relaxed ? CUDA_SUCCESS : CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        if (!relaxed)
            assert_int_equal(cuMemFree_v2(block), CUDA_SUCCESS);
    }
    assert_int_equal(cuStreamDestroy_v2(origin), CUDA_SUCCESS);
}

/* CAP-LEGACY: while a blocking stream captures, work on the legacy stream
 * would depend on the capture implicitly: error 906, capture invalidated.
 * A non-blocking stream's capture leaves the legacy stream free. */
static void test_legacy_stream(void **state)
{
    CUstream blocking = stream_new(0), quiet = stream_new(CU_STREAM_NON_BLOCKING);
    CUdeviceptr block = 0;
    (void)state;
    assert_int_equal(cuMemAlloc_v2(&block, 4096), CUDA_SUCCESS);
    assert_int_equal(cuStreamBeginCapture_v2(quiet, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    assert_int_equal(cuMemsetD8Async(block, 2, 4096, NULL), CUDA_SUCCESS);
    end_capture(quiet, CUDA_SUCCESS);
    assert_int_equal(cuStreamBeginCapture_v2(blocking, CU_STREAM_CAPTURE_MODE_RELAXED),
                     CUDA_SUCCESS);
    assert_int_equal(cuMemsetD8Async(block, 2, 4096, NULL), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    end_capture(blocking, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    assert_int_equal(cuStreamSynchronize(NULL), CUDA_SUCCESS);
    assert_int_equal(cuMemFree_v2(block), CUDA_SUCCESS);
    assert_int_equal(cuStreamDestroy_v2(blocking), CUDA_SUCCESS);
    assert_int_equal(cuStreamDestroy_v2(quiet), CUDA_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_captured_event),      cmocka_unit_test(test_join),
        cmocka_unit_test(test_context_synchronize), cmocka_unit_test(test_free_by_mode),
        cmocka_unit_test(test_legacy_stream),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
