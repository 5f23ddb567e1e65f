/* hpu.c: one probe per row of the hpu backend's "Vendor rules we rely on"
 * table (src/backends/hpu/README.md) that a single process can observe;
 * the HCCL row is the comm_habana_hccl probes' (they run under
 * `accel launch`). The rules come from SynapseAI's open synapse_api.h, so
 * most probes call libSynapse directly: the library the backend loaded
 * (ACCEL_HPU_LIBRARY, libSynapse.so, /usr/lib/habanalabs), through the
 * backend's own symbol list. A process acquires one Gaudi, and the probes
 * find its Synapse device id. Each probe runs in its own child process
 * (check.h), or in a batch of checks of the ctest driver. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "backends/hpu/types.h"
#include "check.h"
#include "rules/rule-list.h"
#include "rules/rule_library.h"
#include "rules/rule_common.h"

/* Synapse's functions, as the backend declares them (its symbols.h). */
typedef struct rule_hpu_api {
#define ACCEL_HPU_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/hpu/symbols.h"
#undef ACCEL_HPU_SYMBOL
} rule_hpu_api_t;

static rule_hpu_api_t rule_syn;

static const accel_symbol_t rule_hpu_symbols[] = {
#define ACCEL_HPU_SYMBOL(required, ret, name, params, export)                                      \
    ACCEL_SYMBOL_ENTRY(rule_syn, required, name, export),
#include "backends/hpu/symbols.h"
#undef ACCEL_HPU_SYMBOL
};

static const char *const rule_hpu_names[] = {"libSynapse.so", "/usr/lib/habanalabs/libSynapse.so",
                                             NULL};

static accel_vendor_library_t rule_hpu_library = {
    RULE_LIBRARY("hpu", rule_hpu_names, rule_hpu_symbols,
                 "no Habana Gaudi SynapseAI runtime (libSynapse.so) found", "libSynapse.so"),
    .brief_tried = true,
};

/* Bytes a probe copies to keep a stream busy for a while (a few ms on a
 * Gaudi; the sim tests also delay each task). */
#define RULE_HPU_BUSY_BYTES (16u << 20)

/* The Synapse device id the backend acquired (rule_hpu_enter). Ids count
 * acquisitions, so after releases and new acquisitions in one process (a
 * batch of checks) it is no longer 0. */
static accel_syn_device_id_t rule_hpu_device;

/* The ids a probe looks through for an acquired device (each a cheap call
 * that fails for an id not held). */
enum { RULE_HPU_MAX_IDS = 1 << 16 };

/* A host buffer the DMA engine reaches, a device buffer, and a stream. */
typedef struct rule_hpu_work {
    accel_syn_stream_t stream;
    void *host;
    uint64_t device;
    size_t size;
} rule_hpu_work_t;

/* Load Synapse and find a device the backend acquired: the lowest id
 * Synapse answers for (a process holds one Gaudi; where it holds several,
 * the rules probed are the same on each). */
static void rule_hpu_enter(void)
{
    uint64_t free_bytes, total;
    rule_library_enter(&rule_hpu_library, "Synapse");
    for (rule_hpu_device = 0; rule_hpu_device < RULE_HPU_MAX_IDS; rule_hpu_device++)
        if (rule_syn.synDeviceGetMemoryInfo(rule_hpu_device, &free_bytes, &total) ==
            ACCEL_SYN_SUCCESS)
            return;
    conf_skip("no Synapse device id below %d answers synDeviceGetMemoryInfo: cannot tell which "
              "Gaudi the backend holds",
              RULE_HPU_MAX_IDS);
}

static void rule_hpu_work_init(rule_hpu_work_t *work, size_t size)
{
    memset(work, 0, sizeof *work);
    work->size = size;
    assert_int_equal(rule_syn.synStreamCreateGeneric(&work->stream, rule_hpu_device, 0),
                     ACCEL_SYN_SUCCESS);
    assert_int_equal(rule_syn.synHostMalloc(rule_hpu_device, size, 0, &work->host),
                     ACCEL_SYN_SUCCESS);
    assert_int_equal(rule_syn.synDeviceMalloc(rule_hpu_device, size, 0, 0, &work->device),
                     ACCEL_SYN_SUCCESS);
    memset(work->host, 0x5a, size);
}

/* Queue the host-to-device copy that keeps work->stream busy. */
static void rule_hpu_work_queue(rule_hpu_work_t *work)
{
    assert_int_equal(rule_syn.synMemCopyAsync(work->stream, (uint64_t)(uintptr_t)work->host,
                                              work->size, work->device, ACCEL_SYN_HOST_TO_DRAM),
                     ACCEL_SYN_SUCCESS);
}

/* Frees the buffers; the stream too unless `stream_gone`. */
static void rule_hpu_work_free(rule_hpu_work_t *work, bool stream_gone)
{
    if (!stream_gone) {
        assert_int_equal(rule_syn.synStreamSynchronize(work->stream), ACCEL_SYN_SUCCESS);
        assert_int_equal(rule_syn.synStreamDestroy(work->stream), ACCEL_SYN_SUCCESS);
    }
    assert_int_equal(rule_syn.synDeviceSynchronize(rule_hpu_device), ACCEL_SYN_SUCCESS);
    assert_int_equal(rule_syn.synDeviceFree(rule_hpu_device, work->device, 0), ACCEL_SYN_SUCCESS);
    assert_int_equal(rule_syn.synHostFree(rule_hpu_device, work->host, 0), ACCEL_SYN_SUCCESS);
}

static accel_syn_event_t rule_hpu_event(uint32_t flags)
{
    accel_syn_event_t event = NULL;
    assert_int_equal(rule_syn.synEventCreate(&event, rule_hpu_device, flags), ACCEL_SYN_SUCCESS);
    return event;
}

/* SYN-WAIT: synStreamWaitEvent orders a stream after another stream's
 * event on the same device, which accel_stream_wait_event relies on. */
void probe_hpu_wait_orders_streams(void **state)
{
    (void)state;
    rule_check_wait_orders(conformance_acc, 4u << 20);
}

/* SYN-DESTROY-BUSY: synStreamDestroy of a stream with pending work answers
 * synBusy; it never returns while the stream's work is still running. */
void probe_hpu_stream_destroy_busy(void **state)
{
    rule_hpu_work_t work;
    accel_syn_event_t done;
    accel_syn_status_t code, after;
    (void)state;
    rule_hpu_enter();
    rule_hpu_work_init(&work, RULE_HPU_BUSY_BYTES);
    done = rule_hpu_event(0);
    rule_hpu_work_queue(&work);
    assert_int_equal(rule_syn.synEventRecord(done, work.stream), ACCEL_SYN_SUCCESS);
    code = rule_syn.synStreamDestroy(work.stream);
    after = rule_syn.synEventQuery(done);
    if (code == ACCEL_SYN_SUCCESS && after != ACCEL_SYN_SUCCESS)
        fail_msg("synStreamDestroy returned synSuccess while the stream's work was still pending "
                 "(its last event answers %u): neither synBusy nor a wait",
                 after);
    if (code != ACCEL_SYN_SUCCESS && code != ACCEL_SYN_BUSY)
        fail_msg("synStreamDestroy of a busy stream returned %u, not synBusy (%d)", code,
                 ACCEL_SYN_BUSY);
    print_message("synStreamDestroy right after a %u MiB copy: %u", RULE_HPU_BUSY_BYTES >> 20,
                  code);
    assert_int_equal(rule_syn.synEventSynchronize(done), ACCEL_SYN_SUCCESS);
    assert_int_equal(rule_syn.synEventDestroy(done), ACCEL_SYN_SUCCESS);
    rule_hpu_work_free(&work, code == ACCEL_SYN_SUCCESS);
}

/* SYN-EVENT-DESTROY: synEventDestroy may run before the event completes
 * (its resources are released asynchronously); accel destroys at once. */
void probe_hpu_event_destroy_early(void **state)
{
    rule_hpu_work_t work;
    accel_syn_event_t event;
    accel_syn_status_t code;
    (void)state;
    rule_hpu_enter();
    rule_hpu_work_init(&work, RULE_HPU_BUSY_BYTES);
    event = rule_hpu_event(0);
    rule_hpu_work_queue(&work);
    assert_int_equal(rule_syn.synEventRecord(event, work.stream), ACCEL_SYN_SUCCESS);
    code = rule_syn.synEventDestroy(event);
    if (code != ACCEL_SYN_SUCCESS)
        fail_msg("synEventDestroy right after a record behind a %u MiB copy returned %u: "
                 "accel's event destroy does not wait",
                 RULE_HPU_BUSY_BYTES >> 20, code);
    rule_hpu_work_free(&work, false);
}

/* SYN-ELAPSED-NS: synEventElapsedTime is in nanoseconds (accel divides by
 * 1e6), checked directly and through accel around a host sleep. */
void probe_hpu_elapsed_in_ns(void **state)
{
    accel_syn_stream_t stream = NULL;
    accel_syn_event_t start, end;
    uint64_t ns = 0;
    double before, after, ms;
    (void)state;
    rule_check_elapsed_ms(conformance_acc, 30);
    rule_hpu_enter();
    assert_int_equal(rule_syn.synStreamCreateGeneric(&stream, rule_hpu_device, 0),
                     ACCEL_SYN_SUCCESS);
    start = rule_hpu_event(ACCEL_SYN_EVENT_COLLECT_TIME);
    end = rule_hpu_event(ACCEL_SYN_EVENT_COLLECT_TIME);
    before = rule_now_ms();
    assert_int_equal(rule_syn.synEventRecord(start, stream), ACCEL_SYN_SUCCESS);
    assert_int_equal(rule_syn.synEventSynchronize(start), ACCEL_SYN_SUCCESS);
    rule_sleep_ms(30);
    assert_int_equal(rule_syn.synEventRecord(end, stream), ACCEL_SYN_SUCCESS);
    assert_int_equal(rule_syn.synEventSynchronize(end), ACCEL_SYN_SUCCESS);
    after = rule_now_ms();
    assert_int_equal(rule_syn.synEventElapsedTime(&ns, start, end), ACCEL_SYN_SUCCESS);
    ms = (double)ns / 1e6;
    if (ms < 15.0 || ms > (after - before) * 1.1 + 1.0)
        fail_msg("synEventElapsedTime around a 30 ms host sleep gave %llu, %.3f ms read as ns "
                 "(host: %.3f ms)",
                 (unsigned long long)ns, ms, after - before);
    assert_int_equal(rule_syn.synEventDestroy(end), ACCEL_SYN_SUCCESS);
    assert_int_equal(rule_syn.synEventDestroy(start), ACCEL_SYN_SUCCESS);
    assert_int_equal(rule_syn.synStreamDestroy(stream), ACCEL_SYN_SUCCESS);
}

/* SYN-DMA-HOST: DMA reaches synHostMalloc and synHostMap'ped host memory
 * (accel stages pageable copies in the first and pins with the second),
 * and synDeviceMalloc takes reqAddr 0, flags 0. */
void probe_hpu_dma_from_mapped_memory(void **state)
{
    enum { SIZE = 1u << 20 };
    rule_hpu_work_t work;
    unsigned char *mapped = NULL;
    accel_syn_status_t code;
    (void)state;
    rule_hpu_enter();
    rule_hpu_work_init(&work, SIZE);
    assert_int_equal(posix_memalign((void **)&mapped, 4096, SIZE), 0);
    memset(mapped, 0x77, SIZE);
    assert_int_equal(rule_syn.synHostMap(rule_hpu_device, SIZE, mapped), ACCEL_SYN_SUCCESS);
    code = rule_syn.synMemCopyAsync(work.stream, (uint64_t)(uintptr_t)mapped, SIZE, work.device,
                                    ACCEL_SYN_HOST_TO_DRAM);
    if (code != ACCEL_SYN_SUCCESS) {
        rule_syn.synHostUnmap(rule_hpu_device, mapped);
        free(mapped);
        fail_msg("synMemCopyAsync from synHostMap'ped memory returned %u: accel_host_register "
                 "and the pinned-copy path rely on it",
                 code);
    }
    assert_int_equal(rule_syn.synMemCopyAsync(work.stream, work.device, SIZE,
                                              (uint64_t)(uintptr_t)work.host,
                                              ACCEL_SYN_DRAM_TO_HOST),
                     ACCEL_SYN_SUCCESS);
    assert_int_equal(rule_syn.synStreamSynchronize(work.stream), ACCEL_SYN_SUCCESS);
    assert_memory_equal(work.host, mapped, SIZE);
    assert_int_equal(rule_syn.synHostUnmap(rule_hpu_device, mapped), ACCEL_SYN_SUCCESS);
    free(mapped);
    rule_hpu_work_free(&work, false);
}
