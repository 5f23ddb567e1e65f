/* comm_tccl.c: one probe per row of the tccl engine's "Vendor rules we rely
 * on" table (src/comm/tccl/README.md; the TCCL sim's rules in
 * tests/sim/README.md) that a running job can observe. They run only under
 * `accel launch -n N` on the sdaa backend, every rank running the same
 * probe on the job's accel communicator; TCCL-DEV also makes a TCCL
 * communicator of its own over the same ranks (the unique id from rank 0,
 * carried by an accel broadcast) and calls the libtccl the engine loaded
 * (ACCEL_TCCL_LIBRARY, the Teco SDK's file, libtccl.so) through the
 * engine's own symbol list. Each runs in its own child process (check.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel_backend_utils.h>
#include <accel/accel_comm.h>

#include "check.h"
#include "rules/rule_common.h"
#include "comm/tccl/types.h"
#include "rules/rule-list.h"
#include "rules/rule_library.h"

/* TCCL's functions, as the engine declares them (its symbols.h). */
typedef struct rule_tccl_api {
#define ACCEL_TCCL_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "comm/tccl/symbols.h"
#undef ACCEL_TCCL_SYMBOL
    /* Not called by the engine; optional, NCCL's ncclCommCuDevice shape
     * (unconfirmed). */
    accel_tccl_result_t (*tcclCommDevice)(accel_tccl_comm_t comm, int *device);
} rule_tccl_api_t;

static rule_tccl_api_t rule_tccl;

static const accel_symbol_t rule_tccl_symbols[] = {
#define ACCEL_TCCL_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(rule_tccl, required, name, export),
#include "comm/tccl/symbols.h"
#undef ACCEL_TCCL_SYMBOL
    ACCEL_SYMBOL_ENTRY(rule_tccl, false, tcclCommDevice, NULL),
};

/* Where the tccl engine looks (src/comm/tccl/engine.c). */
static const char *const rule_tccl_names[] = {"/opt/tecoai/lib64/libtccl.so", "libtccl.so", NULL};

static accel_vendor_library_t rule_tccl_library = {
    RULE_LIBRARY("tccl", rule_tccl_names, rule_tccl_symbols,
                 "Tecorigin TCCL (libtccl.so) could not be loaded", "the libtccl.so that loaded"),
    .backend = "tccl selftest",
};

/* The job's accel communicator, when the tccl engine serves it. */
typedef struct rule_tccl_job {
    accel_comm_t *comm;
    int rank, size, device;
    char detail[320]; /* the engine's library line (accel_comm_engine_info) */
} rule_tccl_job_t;

static void rule_tccl_join(rule_tccl_job_t *job)
{
    memset(job, 0, sizeof *job);
    rule_comm_join(conformance_acc, "tccl", &job->comm, &job->rank, &job->size, &job->device,
                   job->detail, sizeof job->detail);
    assert_ok(accel_set_device(conformance_acc, job->device));
}

/* TCCL-DEV: a communicator made by tcclCommInitRank belongs to the thread's
 * SDAA device, and a call with that device current runs on it. */
void probe_comm_tccl_dev_comm_on_thread_device(void **state)
{
    rule_tccl_job_t job;
    accel_tccl_unique_id_t id;
    accel_tccl_comm_t tccl = NULL;
    int32_t *buf, mine, got = -1;
    int device = -1;
    accel_tccl_result_t init, queried = ACCEL_TCCL_SUCCESS, reduced = ACCEL_TCCL_SUCCESS;
    void *carrier = NULL;
    (void)state;
    rule_tccl_join(&job);
    rule_library_require(&rule_tccl_library, "TCCL");
    memset(&id, 0, sizeof id);
    if (job.rank == 0)
        assert_int_equal(rule_tccl.tcclGetUniqueId(&id), ACCEL_TCCL_SUCCESS);
    assert_ok(accel_malloc(conformance_acc, sizeof id, &carrier));
    assert_ok(accel_memcpy(conformance_acc, carrier, &id, sizeof id, ACCEL_COPY_HOST_TO_DEVICE));
    assert_ok(accel_broadcast(job.comm, carrier, carrier, sizeof id, ACCEL_DTYPE_U8, 0, NULL));
    assert_ok(accel_memcpy(conformance_acc, &id, carrier, sizeof id, ACCEL_COPY_DEVICE_TO_HOST));
    assert_ok(accel_free(conformance_acc, carrier));
    mine = job.rank + 1;
    buf = rule_device_ints(conformance_acc, &mine, 1);
    init = rule_tccl.tcclCommInitRank(&tccl, job.size, id, job.rank);
    if (init == ACCEL_TCCL_SUCCESS) {
        if (rule_tccl.tcclCommDevice != NULL)
            queried = rule_tccl.tcclCommDevice(tccl, &device);
        else
            device = job.device;
        /* Every rank makes the call, so a refusal never leaves a peer waiting. */
        reduced =
            rule_tccl.tcclAllReduce(buf, buf, 1, ACCEL_TCCL_INT32, ACCEL_TCCL_SUM, tccl, NULL);
        assert_ok(accel_synchronize(conformance_acc, job.device));
        assert_ok(accel_memcpy(conformance_acc, &got, buf, sizeof got, ACCEL_COPY_DEVICE_TO_HOST));
        assert_int_equal(rule_tccl.tcclCommDestroy(tccl), ACCEL_TCCL_SUCCESS);
    }
    assert_ok(accel_free(conformance_acc, buf));
    assert_ok(accel_comm_destroy(job.comm));
    if (init != ACCEL_TCCL_SUCCESS)
        fail_msg("tcclCommInitRank with SDAA device %d current returned %u", job.device, init);
    if (queried != ACCEL_TCCL_SUCCESS)
        fail_msg("tcclCommDevice returned %u", queried);
    if (device != job.device)
        fail_msg("tcclCommInitRank with SDAA device %d current made a communicator of device "
                 "%d: it does not belong to the thread's device",
                 job.device, device);
    if (reduced != ACCEL_TCCL_SUCCESS)
        fail_msg("tcclAllReduce with the communicator's device %d current returned %u (%s)",
                 job.device, reduced, rule_tccl.tcclGetErrorString(reduced));
    assert_int_equal(got, job.size * (job.size + 1) / 2);
}

/* TCCL-OVERLAP: NCCL's in-place layouts run (an all-reduce with send ==
 * recv, an all-gather whose send is this rank's block of recv), as accel
 * passes them through. */
void probe_comm_tccl_overlap_in_place(void **state)
{
    rule_tccl_job_t job;
    int32_t mine, got = -1, *one, *all, *host;
    accel_status_t reduced, gathered;
    (void)state;
    rule_tccl_join(&job);
    mine = job.rank + 1;
    one = rule_device_ints(conformance_acc, &mine, 1);
    reduced = accel_all_reduce(job.comm, one, one, 1, ACCEL_DTYPE_I32, ACCEL_REDUCE_SUM, NULL);
    if (reduced == ACCEL_OK)
        assert_ok(accel_memcpy(conformance_acc, &got, one, sizeof got, ACCEL_COPY_DEVICE_TO_HOST));
    assert_ok(accel_free(conformance_acc, one));
    host = calloc((size_t)job.size, sizeof *host);
    assert_non_null(host);
    host[job.rank] = 100 + job.rank;
    all = rule_device_ints(conformance_acc, host, (size_t)job.size);
    gathered = accel_all_gather(job.comm, all + job.rank, all, 1, ACCEL_DTYPE_I32, NULL);
    if (gathered == ACCEL_OK)
        assert_ok(accel_memcpy(conformance_acc, host, all, (size_t)job.size * sizeof *host,
                               ACCEL_COPY_DEVICE_TO_HOST));
    assert_ok(accel_free(conformance_acc, all));
    assert_ok(accel_comm_destroy(job.comm));
    if (reduced != ACCEL_OK)
        fail_msg("an in-place all-reduce (send == recv) returned %s: %s",
                 accel_status_name(reduced), accel_last_error());
    if (gathered != ACCEL_OK)
        fail_msg("an in-place all-gather (send = recv + rank) returned %s: %s",
                 accel_status_name(gathered), accel_last_error());
    assert_int_equal(got, job.size * (job.size + 1) / 2);
    for (int r = 0; r < job.size; r++)
        assert_int_equal(host[r], 100 + r);
    free(host);
}

/* TCCL-NCCL-PARAMS: tcclReduce and tcclSend/tcclRecv take NCCL's
 * parameters: a MAX reduce onto rank 0, then rank 1 sends to rank 0. */
void probe_comm_tccl_nccl_parameters(void **state)
{
    rule_tccl_job_t job;
    int32_t mine, got = -1, passed = -1, *send, *recv;
    accel_status_t reduced, moved = ACCEL_OK;
    (void)state;
    rule_tccl_join(&job);
    if (job.size < 2) {
        assert_ok(accel_comm_destroy(job.comm));
        conf_skip("a send needs two ranks");
    }
    mine = 10 + job.rank;
    send = rule_device_ints(conformance_acc, &mine, 1);
    recv = rule_device_ints(conformance_acc, NULL, 1);
    reduced = accel_reduce(job.comm, send, recv, 1, ACCEL_DTYPE_I32, ACCEL_REDUCE_MAX, 0, NULL);
    if (reduced == ACCEL_OK && job.rank == 0)
        assert_ok(accel_memcpy(conformance_acc, &got, recv, sizeof got, ACCEL_COPY_DEVICE_TO_HOST));
    if (reduced == ACCEL_OK && job.rank == 1)
        moved = accel_send(job.comm, send, 1, ACCEL_DTYPE_I32, 0, NULL);
    if (reduced == ACCEL_OK && job.rank == 0) {
        moved = accel_recv(job.comm, recv, 1, ACCEL_DTYPE_I32, 1, NULL);
        if (moved == ACCEL_OK)
            assert_ok(accel_memcpy(conformance_acc, &passed, recv, sizeof passed,
                                   ACCEL_COPY_DEVICE_TO_HOST));
    }
    assert_ok(accel_free(conformance_acc, recv));
    assert_ok(accel_free(conformance_acc, send));
    assert_ok(accel_comm_destroy(job.comm));
    if (reduced != ACCEL_OK)
        fail_msg("a MAX reduce onto rank 0 returned %s: %s", accel_status_name(reduced),
                 accel_last_error());
    if (moved != ACCEL_OK)
        fail_msg("a send from rank 1 to rank 0 returned %s: %s", accel_status_name(moved),
                 accel_last_error());
    if (job.rank == 0) {
        assert_int_equal(got, 10 + job.size - 1);
        assert_int_equal(passed, 11);
    }
}

/* TCCL-GROUPS: the group calls are optional. With them a grouped ring of
 * sends and receives runs; without them accel refuses it (UNSUPPORTED).
 * Every step runs and the first failure is reported at the end, so a
 * group is never left open for the probes after this one. */
void probe_comm_tccl_groups(void **state)
{
    (void)state;
    rule_optional_groups_probe(conformance_acc, "tccl");
}
