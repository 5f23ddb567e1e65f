/* comm_cncl.c: one probe per row of the cncl engine's "Vendor rules we rely
 * on" table (src/comm/cncl/README.md; the CNCL sim's rules in
 * tests/sim/README.md). They run only under `accel launch -n N` on the mlu
 * backend, every rank running the same probe on the job's accel
 * communicator; where only a direct call tells, they make a CNCL
 * communicator of their own over the same ranks, as the engine does (the
 * clique id from cnclGetCliqueId on rank 0, carried by an accel broadcast,
 * then cnclInitComms with one device), and call the libcncl the engine
 * loaded (ACCEL_CNCL_LIBRARY, $NEUWARE_HOME/lib64/libcncl.so, libcncl.so)
 * through the engine's own symbol list. Every rank makes the same calls, so
 * a refusal never leaves a peer waiting. Each runs in its own child process
 * (check.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <accel/accel_backend_utils.h>
#include <accel/accel_comm.h>

#include "check.h"
#include "rules/rule_common.h"
#include "comm/cncl/types.h"
#include "rules/rule-list.h"
#include "rules/rule_library.h"

/* NCCL's ncclAvg code, which CNCL's cnclReduceOp_t lacks (types.h). */
#define RULE_CNCL_AVG 4u

/* CNCL's functions, as the engine declares them (its symbols.h). */
typedef struct rule_cncl_api {
#define ACCEL_CNCL_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "comm/cncl/symbols.h"
#undef ACCEL_CNCL_SYMBOL
    /* Not called by the engine; optional (cncl.h 1.25's shape). */
    accel_cncl_result_t (*cnclGetCommDevice)(int *device, accel_cncl_comm_t comm);
} rule_cncl_api_t;

static rule_cncl_api_t rule_cncl;

static const accel_symbol_t rule_cncl_symbols[] = {
#define ACCEL_CNCL_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(rule_cncl, required, name, export),
#include "comm/cncl/symbols.h"
#undef ACCEL_CNCL_SYMBOL
    ACCEL_SYMBOL_ENTRY(rule_cncl, false, cnclGetCommDevice, NULL),
};

/* Where the cncl engine looks (src/comm/cncl/engine.c). */
static const char *const rule_cncl_homes[] = {"NEUWARE_HOME", NULL};
static const char *const rule_cncl_names[] = {"/usr/local/neuware/lib64/libcncl.so", "libcncl.so",
                                              NULL};

static accel_vendor_library_t rule_cncl_library = {
    RULE_LIBRARY("cncl", rule_cncl_names, rule_cncl_symbols,
                 "Cambricon CNCL (libcncl.so) could not be loaded", "the libcncl.so that loaded"),
    .backend = "cncl selftest",
    .home_vars = rule_cncl_homes,
    .home_file = "lib64/libcncl.so",
};

/* The job's accel communicator, when the cncl engine serves it, and a
 * direct CNCL one (rule_cncl_open). */
typedef struct rule_cncl_job {
    accel_comm_t *comm;
    int rank, size, device;
    char detail[320]; /* the engine's library line (accel_comm_engine_info) */
    accel_cncl_comm_t cncl;
    accel_cncl_result_t init; /* cnclInitComms' result */
} rule_cncl_job_t;

static void rule_cncl_join(rule_cncl_job_t *job)
{
    memset(job, 0, sizeof *job);
    rule_comm_join(conformance_acc, "cncl", &job->comm, &job->rank, &job->size, &job->device,
                   job->detail, sizeof job->detail);
    assert_ok(accel_set_device(conformance_acc, job->device));
}

/* rule_cncl_join, then a direct communicator on the thread's CNRT device
 * (accel_set_device made it current): job->init says whether it was made. */
static void rule_cncl_open(rule_cncl_job_t *job)
{
    accel_cncl_clique_id_t id;
    void *carrier = NULL;
    rule_cncl_join(job);
    rule_library_require(&rule_cncl_library, "CNCL");
    memset(&id, 0, sizeof id);
    if (job->rank == 0)
        assert_int_equal(rule_cncl.cnclGetCliqueId(&id), ACCEL_CNCL_SUCCESS);
    assert_ok(accel_malloc(conformance_acc, sizeof id, &carrier));
    assert_ok(accel_memcpy(conformance_acc, carrier, &id, sizeof id, ACCEL_COPY_HOST_TO_DEVICE));
    assert_ok(accel_broadcast(job->comm, carrier, carrier, sizeof id, ACCEL_DTYPE_U8, 0, NULL));
    assert_ok(accel_memcpy(conformance_acc, &id, carrier, sizeof id, ACCEL_COPY_DEVICE_TO_HOST));
    assert_ok(accel_free(conformance_acc, carrier));
    job->init = rule_cncl.cnclInitComms(&job->cncl, 1, &job->device, &job->rank, job->size, &id);
}

static void rule_cncl_close(rule_cncl_job_t *job)
{
    if (job->init == ACCEL_CNCL_SUCCESS)
        assert_int_equal(rule_cncl.cnclDestroyComms(&job->cncl, 1), ACCEL_CNCL_SUCCESS);
    assert_ok(accel_comm_destroy(job->comm));
}

/* CNCL-CLIQUE: a clique id made by cnclGetCliqueId on rank 0 and sent to
 * the others makes one communicator over every rank, which then reduces. */
void probe_comm_cncl_clique_from_rank0(void **state)
{
    rule_cncl_job_t job;
    int32_t mine, got = -1, *buf;
    accel_cncl_result_t reduced = ACCEL_CNCL_SUCCESS;
    (void)state;
    rule_cncl_open(&job);
    mine = job.rank + 1;
    buf = rule_device_ints(conformance_acc, &mine, 1);
    if (job.init == ACCEL_CNCL_SUCCESS) {
        reduced =
            rule_cncl.cnclAllReduce(buf, buf, 1, ACCEL_CNCL_INT32, ACCEL_CNCL_SUM, job.cncl, NULL);
        assert_ok(accel_synchronize(conformance_acc, job.device));
        assert_ok(accel_memcpy(conformance_acc, &got, buf, sizeof got, ACCEL_COPY_DEVICE_TO_HOST));
    }
    assert_ok(accel_free(conformance_acc, buf));
    rule_cncl_close(&job);
    if (job.init != ACCEL_CNCL_SUCCESS)
        fail_msg("cnclInitComms with the clique id rank 0 made returned %u (%s)", job.init,
                 rule_cncl.cnclGetErrorStr(job.init));
    if (reduced != ACCEL_CNCL_SUCCESS)
        fail_msg("cnclAllReduce on that communicator returned %u (%s)", reduced,
                 rule_cncl.cnclGetErrorStr(reduced));
    assert_int_equal(got, job.size * (job.size + 1) / 2);
}

/* CNCL-DEV (with CNCL-ONE): cnclInitComms(&comm, 1, &device, &rank, n,
 * &clique) with `device` the thread's CNRT device makes one communicator,
 * and it is that device's. */
void probe_comm_cncl_one_comm_on_thread_device(void **state)
{
    rule_cncl_job_t job;
    int device = -1;
    accel_cncl_result_t queried = ACCEL_CNCL_SUCCESS;
    bool asked = false;
    (void)state;
    rule_cncl_open(&job);
    if (job.init == ACCEL_CNCL_SUCCESS && rule_cncl.cnclGetCommDevice != NULL) {
        queried = rule_cncl.cnclGetCommDevice(&device, job.cncl);
        asked = true;
    }
    rule_cncl_close(&job);
    if (job.init != ACCEL_CNCL_SUCCESS)
        fail_msg("cnclInitComms of one communicator on CNRT device %d (current) returned %u (%s)",
                 job.device, job.init, rule_cncl.cnclGetErrorStr(job.init));
    if (!asked) {
        print_message("libcncl.so has no cnclGetCommDevice: the device was not read back\n");
        return;
    }
    if (queried != ACCEL_CNCL_SUCCESS)
        fail_msg("cnclGetCommDevice returned %u", queried);
    if (device != job.device)
        fail_msg("cnclInitComms on CNRT device %d made a communicator of device %d", job.device,
                 device);
}

/* CNCL-TYPES: CNCL has no average (accel emulates it): NCCL's ncclAvg code
 * is refused. (No float64 either: cnclDataType_t has no code to try.) */
void probe_comm_cncl_no_average(void **state)
{
    rule_cncl_job_t job;
    int32_t *buf;
    accel_cncl_result_t code = ACCEL_CNCL_SUCCESS;
    (void)state;
    rule_cncl_open(&job);
    buf = rule_device_ints(conformance_acc, NULL, 4);
    if (job.init == ACCEL_CNCL_SUCCESS) {
        code =
            rule_cncl.cnclAllReduce(buf, buf, 4, ACCEL_CNCL_FLOAT32, RULE_CNCL_AVG, job.cncl, NULL);
        assert_ok(accel_synchronize(conformance_acc, job.device));
    }
    assert_ok(accel_free(conformance_acc, buf));
    rule_cncl_close(&job);
    if (job.init != ACCEL_CNCL_SUCCESS)
        fail_msg("cnclInitComms returned %u (%s)", job.init, rule_cncl.cnclGetErrorStr(job.init));
    if (code == ACCEL_CNCL_SUCCESS)
        fail_msg("cnclAllReduce with reduce op %u (NCCL's average) succeeded: CNCL averages, "
                 "and accel emulates what it could pass on",
                 RULE_CNCL_AVG);
    print_message("cnclAllReduce with op %u: %u\n", RULE_CNCL_AVG, code);
}

/* CNCL-GROUPS: the group calls are optional. With them a grouped ring of
 * sends and receives runs; without them accel refuses it (UNSUPPORTED).
 * Every step runs and the first failure is reported at the end, so a
 * group is never left open for the probes after this one. */
void probe_comm_cncl_groups(void **state)
{
    (void)state;
    rule_optional_groups_probe(conformance_acc, "cncl");
}
