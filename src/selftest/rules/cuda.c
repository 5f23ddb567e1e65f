/* cuda.c: one probe per row of the cuda backend's "Vendor rules we rely on"
 * table (src/backends/cuda/README.md). The capture rules are properties of
 * the driver, so most probes call libcuda directly: the same library the
 * backend loaded (ACCEL_CUDA_LIBRARY, then libcuda.so.1), through the
 * backend's own symbol list; a second dlopen of a loaded library shares its
 * state (one driver, one set of contexts).
 * Each probe runs in its own child process (check.h); it makes the
 * accelerator's device 0 context current on its thread and leaves the
 * backend's own streams alone. */
#include <stdint.h>

#include "accel/accel_backend_utils.h"
#include "backends/cuda/types.h"
#include "check.h"
#include "rules/rule-list.h"
#include "rules/rule_library.h"
#include "rules/rule_common.h"

/* Codes of cuda.h the probes compare against (not in the backend's types.h). */
#define RULE_CU_STREAM_CAPTURE_INVALIDATED 901
#define RULE_CU_STREAM_CAPTURE_IMPLICIT    906
#define RULE_CU_CAPTURED_EVENT             907
#define RULE_CU_CAPTURE_MODE_GLOBAL        0
#define RULE_CU_STREAM_LEGACY              ((accel_cu_stream_t)0x1)

/* The driver's functions, as the backend declares them (its symbols.h). */
typedef struct rule_cuda_api {
#define ACCEL_CUDA_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/cuda/symbols.h"
#undef ACCEL_CUDA_SYMBOL
} rule_cuda_api_t;

static rule_cuda_api_t rule_cu;

static const accel_symbol_t rule_cuda_symbols[] = {
#define ACCEL_CUDA_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(rule_cu, required, name, export),
#include "backends/cuda/symbols.h"
#undef ACCEL_CUDA_SYMBOL
};

static const char *const rule_cuda_names[] = {"libcuda.so.1", "libcuda.so", NULL};

static accel_vendor_library_t rule_cuda_library = {
    RULE_LIBRARY("cuda", rule_cuda_names, rule_cuda_symbols,
                 "no NVIDIA driver (libcuda.so.1) found", "the NVIDIA driver's libcuda"),
};

/* Load the driver (skip when it lacks a symbol a probe needs). */
static void rule_cuda_load(void)
{
    rule_library_load(&rule_cuda_library, "the driver");
}

/* Load the driver and make device 0's primary context current here. The
 * backend initialises first (a device synchronize), so its own retain keeps
 * the context alive; the probe's retain lasts as long as its process. */
static void rule_cuda_enter(void)
{
    accel_cu_device_t device;
    accel_cu_context_t ctx = NULL;
    rule_library_enter(&rule_cuda_library, "the driver");
    assert_int_equal(rule_cu.cuInit(0), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuDeviceGet(&device, 0), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuDevicePrimaryCtxRetain(&ctx, device), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuCtxSetCurrent(ctx), ACCEL_CUDA_SUCCESS);
}

/* Fail the probe unless `what` returned `want`, the code named `want_name`. */
static void rule_cuda_expect(const char *what, accel_cu_result_t got, accel_cu_result_t want,
                             const char *want_name)
{
    if (got != want)
        fail_msg("%s returned %u, not %s (%u)", what, got, want_name, want);
}

static accel_cu_stream_t rule_cuda_stream(unsigned flags)
{
    accel_cu_stream_t stream = NULL;
    assert_int_equal(rule_cu.cuStreamCreateWithPriority(&stream, flags, 0), ACCEL_CUDA_SUCCESS);
    return stream;
}

static accel_cu_event_t rule_cuda_event(void)
{
    accel_cu_event_t event = NULL;
    assert_int_equal(rule_cu.cuEventCreate(&event, ACCEL_CU_EVENT_DISABLE_TIMING),
                     ACCEL_CUDA_SUCCESS);
    return event;
}

/* End a capture whatever became of it (a broken rule may have invalidated
 * it, which is not what the probe judges); a graph made is freed. */
static void rule_cuda_end_capture(accel_cu_stream_t origin)
{
    accel_cu_graph_t graph = NULL;
    accel_cu_result_t code = rule_cu.cuStreamEndCapture(origin, &graph);
    if (code != ACCEL_CUDA_SUCCESS && code != RULE_CU_STREAM_CAPTURE_INVALIDATED)
        fail_msg("cuStreamEndCapture returned %u", code);
    if (graph != NULL)
        rule_cu.cuGraphDestroy(graph);
}

/* CAP-ADDR: a replay writes the addresses its capture saw, so memory freed
 * after a capture must not go to a new allocation while the graph lives. */
void probe_cuda_capture_addresses(void **state)
{
    (void)state;
    rule_check_graph_addresses(conformance_acc);
}

/* CAP-QUERY-CAPTURED: an event recorded inside a capture stands for no
 * work; its query must fail with error 907, even in RELAXED mode. */
void probe_cuda_captured_event_query(void **state)
{
    accel_cu_stream_t origin;
    accel_cu_event_t event;
    accel_cu_result_t code;
    (void)state;
    rule_cuda_enter();
    origin = rule_cuda_stream(ACCEL_CU_STREAM_NON_BLOCKING);
    event = rule_cuda_event();
    assert_int_equal(rule_cu.cuStreamBeginCapture_v2(origin, ACCEL_CU_STREAM_CAPTURE_MODE_RELAXED),
                     ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuEventRecord(event, origin), ACCEL_CUDA_SUCCESS);
    code = rule_cu.cuEventQuery(event);
    rule_cuda_end_capture(origin);
    rule_cuda_expect("cuEventQuery of an event recorded in a RELAXED capture", code,
                     RULE_CU_CAPTURED_EVENT, "CUDA_ERROR_CAPTURED_EVENT");
    assert_int_equal(rule_cu.cuEventDestroy_v2(event), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuStreamDestroy_v2(origin), ACCEL_CUDA_SUCCESS);
}

/* CAP-JOIN: a stream that waits on an event of a capture joins it, so an
 * event recorded there is captured too (its query fails with 907). */
void probe_cuda_side_stream_joins(void **state)
{
    accel_cu_stream_t origin, side;
    accel_cu_event_t fork, marker;
    accel_cu_result_t code;
    (void)state;
    rule_cuda_enter();
    origin = rule_cuda_stream(ACCEL_CU_STREAM_NON_BLOCKING);
    side = rule_cuda_stream(ACCEL_CU_STREAM_NON_BLOCKING);
    fork = rule_cuda_event();
    marker = rule_cuda_event();
    assert_int_equal(rule_cu.cuStreamBeginCapture_v2(origin, ACCEL_CU_STREAM_CAPTURE_MODE_RELAXED),
                     ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuEventRecord(fork, origin), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuStreamWaitEvent(side, fork, 0), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuEventRecord(marker, side), ACCEL_CUDA_SUCCESS);
    code = rule_cu.cuEventQuery(marker);
    /* Join the side stream back so the capture can end (only a side stream
     * that joined can be joined back). */
    if (code == RULE_CU_CAPTURED_EVENT) {
        accel_cu_result_t joined = rule_cu.cuStreamWaitEvent(origin, marker, 0);
        if (joined != ACCEL_CUDA_SUCCESS && joined != RULE_CU_STREAM_CAPTURE_INVALIDATED)
            fail_msg("joining the side stream back returned %u", joined);
    }
    rule_cuda_end_capture(origin);
    if (code != RULE_CU_CAPTURED_EVENT)
        fail_msg("an event recorded on a stream that waited on a capture's event is not part of "
                 "the capture: its cuEventQuery returned %u, not 907",
                 code);
    rule_cu.cuStreamSynchronize(side);
    assert_int_equal(rule_cu.cuEventDestroy_v2(marker), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuEventDestroy_v2(fork), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuStreamDestroy_v2(side), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuStreamDestroy_v2(origin), ACCEL_CUDA_SUCCESS);
}

/* CAP-SYNC-CTX: cuCtxSynchronize while a stream of the context captures
 * fails with 900 (and accel_synchronize refuses it before the driver can). */
void probe_cuda_no_context_sync_in_capture(void **state)
{
    accel_cu_stream_t origin;
    accel_cu_result_t code;
    (void)state;
    rule_cuda_enter();
    origin = rule_cuda_stream(ACCEL_CU_STREAM_NON_BLOCKING);
    assert_int_equal(rule_cu.cuStreamBeginCapture_v2(origin, ACCEL_CU_STREAM_CAPTURE_MODE_RELAXED),
                     ACCEL_CUDA_SUCCESS);
    code = rule_cu.cuCtxSynchronize();
    rule_cuda_end_capture(origin);
    rule_cuda_expect("cuCtxSynchronize during a capture", code,
                     ACCEL_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                     "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
    assert_int_equal(rule_cu.cuCtxSynchronize(), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuStreamDestroy_v2(origin), ACCEL_CUDA_SUCCESS);
}

/* CAP-FREE: cuMemFree during a capture is refused in GLOBAL mode and
 * permitted in RELAXED mode, the mode accel captures in. */
void probe_cuda_free_in_relaxed_capture(void **state)
{
    accel_cu_stream_t origin;
    accel_cu_deviceptr_t global_block = 0, relaxed_block = 0;
    accel_cu_result_t in_global, in_relaxed;
    (void)state;
    rule_cuda_enter();
    origin = rule_cuda_stream(ACCEL_CU_STREAM_NON_BLOCKING);
    assert_int_equal(rule_cu.cuMemAlloc_v2(&global_block, 4096), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuMemAlloc_v2(&relaxed_block, 4096), ACCEL_CUDA_SUCCESS);

    assert_int_equal(rule_cu.cuStreamBeginCapture_v2(origin, RULE_CU_CAPTURE_MODE_GLOBAL),
                     ACCEL_CUDA_SUCCESS);
    in_global = rule_cu.cuMemFree_v2(global_block);
    rule_cuda_end_capture(origin);
    assert_int_equal(rule_cu.cuStreamBeginCapture_v2(origin, ACCEL_CU_STREAM_CAPTURE_MODE_RELAXED),
                     ACCEL_CUDA_SUCCESS);
    in_relaxed = rule_cu.cuMemFree_v2(relaxed_block);
    rule_cuda_end_capture(origin);

    if (in_global == ACCEL_CUDA_SUCCESS)
        fail_msg("cuMemFree during a GLOBAL capture succeeded; CUDA documents it as unsafe");
    rule_cu.cuMemFree_v2(global_block);
    if (in_relaxed != ACCEL_CUDA_SUCCESS)
        fail_msg("cuMemFree during a RELAXED capture returned %u; accel's captures are RELAXED "
                 "and rely on it being permitted",
                 in_relaxed);
    assert_int_equal(rule_cu.cuStreamDestroy_v2(origin), ACCEL_CUDA_SUCCESS);
}

/* CAP-LEGACY: the legacy stream cannot be captured, and work on it while a
 * blocking stream captures fails (906); accel's non-blocking streams keep
 * other threads' legacy-stream work out of its captures. */
void probe_cuda_legacy_stream_in_capture(void **state)
{
    accel_cu_stream_t blocking, quiet;
    accel_cu_deviceptr_t block = 0;
    accel_cu_result_t on_legacy, beside_quiet;
    (void)state;
    rule_cuda_enter();
    blocking = rule_cuda_stream(0);
    quiet = rule_cuda_stream(ACCEL_CU_STREAM_NON_BLOCKING);
    assert_int_equal(rule_cu.cuMemAlloc_v2(&block, 4096), ACCEL_CUDA_SUCCESS);
    if (rule_cu.cuStreamBeginCapture_v2(
            RULE_CU_STREAM_LEGACY, ACCEL_CU_STREAM_CAPTURE_MODE_RELAXED) == ACCEL_CUDA_SUCCESS) {
        rule_cuda_end_capture(RULE_CU_STREAM_LEGACY);
        fail_msg("cuStreamBeginCapture accepted the legacy stream");
    }

    assert_int_equal(rule_cu.cuStreamBeginCapture_v2(quiet, ACCEL_CU_STREAM_CAPTURE_MODE_RELAXED),
                     ACCEL_CUDA_SUCCESS);
    beside_quiet = rule_cu.cuMemsetD8Async(block, 1, 4096, NULL);
    rule_cuda_end_capture(quiet);
    assert_int_equal(
        rule_cu.cuStreamBeginCapture_v2(blocking, ACCEL_CU_STREAM_CAPTURE_MODE_RELAXED),
        ACCEL_CUDA_SUCCESS);
    on_legacy = rule_cu.cuMemsetD8Async(block, 2, 4096, NULL);
    rule_cuda_end_capture(blocking);
    assert_int_equal(rule_cu.cuStreamSynchronize(NULL), ACCEL_CUDA_SUCCESS);

    if (beside_quiet != ACCEL_CUDA_SUCCESS)
        fail_msg("legacy-stream work during a non-blocking stream's capture returned %u",
                 beside_quiet);
    rule_cuda_expect("legacy-stream work while a blocking stream captures", on_legacy,
                     RULE_CU_STREAM_CAPTURE_IMPLICIT, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT");
    assert_int_equal(rule_cu.cuMemFree_v2(block), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuStreamDestroy_v2(blocking), ACCEL_CUDA_SUCCESS);
    assert_int_equal(rule_cu.cuStreamDestroy_v2(quiet), ACCEL_CUDA_SUCCESS);
}

/* CU-STUB: the libcuda loaded is a driver, not the toolkit's stub, which
 * answers every call with CUDA_ERROR_STUB_LIBRARY (34). */
void probe_cuda_not_the_stub(void **state)
{
    accel_cu_result_t code;
    (void)state;
    rule_cuda_load();
    code = rule_cu.cuInit(0);
    if (code == ACCEL_CUDA_ERROR_STUB_LIBRARY)
        fail_msg("cuInit returned CUDA_ERROR_STUB_LIBRARY (34): the libcuda.so loaded is the CUDA "
                 "toolkit's stub; put the driver's directory before the toolkit's stubs/ in "
                 "LD_LIBRARY_PATH, or set ACCEL_CUDA_LIBRARY");
    assert_int_equal(code, ACCEL_CUDA_SUCCESS);
}
