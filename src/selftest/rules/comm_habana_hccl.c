/* comm_habana_hccl.c: one probe per row of the habana-hccl engine's "Vendor
 * rules we rely on" table (src/comm/habana_hccl/README.md; the HCL sim's
 * rules R1-R4 in tests/sim/README.md). They run only under `accel launch
 * -n N` on the hpu backend, in the process each rank runs the collectives
 * in, which has made the job's communicator before them: the rules about a
 * process's first hcclGetUniqueId and hcclCommInitRank (R2, R3) cannot be
 * observed there and skip; R1's and R4's rules for the calls after it can.
 * Where only a direct call tells, the probes call the libhcl the engine
 * loaded (ACCEL_HABANA_HCCL_LIBRARY, libhcl.so) through the engine's own
 * symbol list. Each runs in its own child process (check.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel_backend_utils.h>
#include <accel/accel_comm.h>

#include "check.h"
#include "rules/rule_common.h"
#include "comm/habana_hccl/types.h"
#include "rules/rule-list.h"
#include "rules/rule_library.h"

/* HCCL's functions, as the engine declares them (its symbols.h). */
typedef struct rule_hcl_api {
#define ACCEL_HCL_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "comm/habana_hccl/symbols.h"
#undef ACCEL_HCL_SYMBOL
} rule_hcl_api_t;

static rule_hcl_api_t rule_hcl;

static const accel_symbol_t rule_hcl_symbols[] = {
#define ACCEL_HCL_SYMBOL(required, ret, name, params, export)                                      \
    ACCEL_SYMBOL_ENTRY(rule_hcl, required, name, export),
#include "comm/habana_hccl/symbols.h"
#undef ACCEL_HCL_SYMBOL
};

/* Where the habana-hccl engine looks (src/comm/habana_hccl/engine.c). */
static const char *const rule_hcl_names[] = {"libhcl.so", "/usr/lib/habanalabs/libhcl.so", NULL};

static accel_vendor_library_t rule_hcl_library = {
    RULE_LIBRARY("habana-hccl", rule_hcl_names, rule_hcl_symbols,
                 "Habana HCCL (libhcl.so) could not be loaded", "the libhcl.so that loaded"),
    .backend = "habana-hccl selftest",
};

/* The job's accel communicator, when the habana-hccl engine serves it. */
typedef struct rule_hcl_job {
    accel_comm_t *comm;
    int rank, size, device;
} rule_hcl_job_t;

static void rule_hcl_join(rule_hcl_job_t *job)
{
    memset(job, 0, sizeof *job);
    rule_comm_join(conformance_acc, "habana-hccl", &job->comm, &job->rank, &job->size, &job->device,
                   NULL, 0);
    assert_ok(accel_set_device(conformance_acc, job->device));
}

/* R1: after a communicator, hcclGetUniqueId with HCCL_COMM_ID set starts
 * no coordinator at that address: each call gives a fresh id (what a
 * split's root gets). Rank 0 asks twice, setting the variable for its own
 * calls when the job has none. */
void probe_comm_habana_hccl_r1_later_ids_fresh(void **state)
{
    rule_hcl_job_t job;
    accel_hcl_unique_id_t first, second;
    accel_hcl_result_t one = ACCEL_HCL_SUCCESS, two = ACCEL_HCL_SUCCESS;
    const char *set = getenv("HCCL_COMM_ID");
    bool ours = set == NULL || set[0] == '\0';
    (void)state;
    rule_hcl_join(&job);
    rule_library_require(&rule_hcl_library, "HCCL");
    memset(&first, 0, sizeof first);
    memset(&second, 0, sizeof second);
    if (job.rank == 0) {
        if (ours)
            setenv("HCCL_COMM_ID", "127.0.0.1:29873", 1);
        one = rule_hcl.hcclGetUniqueId(&first);
        two = rule_hcl.hcclGetUniqueId(&second);
        if (ours)
            unsetenv("HCCL_COMM_ID");
    }
    assert_ok(accel_comm_destroy(job.comm));
    if (one != ACCEL_HCL_SUCCESS || two != ACCEL_HCL_SUCCESS)
        fail_msg("hcclGetUniqueId after a communicator, with HCCL_COMM_ID set, returned %d and %d",
                 one, two);
    if (job.rank == 0 && first.length == second.length &&
        memcmp(first.internal, second.internal, first.length) == 0)
        fail_msg("two hcclGetUniqueId calls after a communicator, with HCCL_COMM_ID set, gave "
                 "the same id: later calls do not get a coordinator of their own, so a split's "
                 "root would reuse HCCL_COMM_ID's");
}

void probe_comm_habana_hccl_r2_coordinator_address(void **state)
{
    (void)state;
    conf_skip("the coordinator binds HCCL_COMM_ID's address on a process's first "
              "hcclGetUniqueId, before any communicator; this process made the job's "
              "communicator first (habana_hccl.sim_coordinator checks it on the sim; on Gaudi "
              "run 2 nodes without mpirun)");
}

void probe_comm_habana_hccl_r3_first_init_replaces_id(void **state)
{
    (void)state;
    conf_skip("only a process's first hcclCommInitRank with HCCL_COMM_ID set replaces its id; "
              "this process made the job's communicator first "
              "(habana_hccl.sim_comm_env_bootstrap checks it without mpirun)");
}

/* R4: an init after the process's first needs a whole id: the id rank 0
 * made, with its length cleared, is refused on every rank (all refuse
 * before any rendezvous, so no rank waits). */
void probe_comm_habana_hccl_r4_later_init_needs_length(void **state)
{
    rule_hcl_job_t job;
    accel_hcl_unique_id_t id;
    accel_hcl_comm_t made = NULL;
    accel_hcl_result_t code;
    void *carrier = NULL;
    (void)state;
    rule_hcl_join(&job);
    rule_library_require(&rule_hcl_library, "HCCL");
    memset(&id, 0, sizeof id);
    if (job.rank == 0)
        assert_int_equal(rule_hcl.hcclGetUniqueId(&id), ACCEL_HCL_SUCCESS);
    assert_ok(accel_malloc(conformance_acc, sizeof id, &carrier));
    assert_ok(accel_memcpy(conformance_acc, carrier, &id, sizeof id, ACCEL_COPY_HOST_TO_DEVICE));
    assert_ok(accel_broadcast(job.comm, carrier, carrier, sizeof id, ACCEL_DTYPE_U8, 0, NULL));
    assert_ok(accel_memcpy(conformance_acc, &id, carrier, sizeof id, ACCEL_COPY_DEVICE_TO_HOST));
    assert_ok(accel_free(conformance_acc, carrier));
    id.length = 0;
    code = rule_hcl.hcclCommInitRank(&made, job.size, id, job.rank);
    if (code == ACCEL_HCL_SUCCESS)
        assert_int_equal(rule_hcl.hcclCommDestroy(made), ACCEL_HCL_SUCCESS);
    assert_ok(accel_comm_destroy(job.comm));
    if (code == ACCEL_HCL_SUCCESS)
        fail_msg("a second hcclCommInitRank with an id of length 0 succeeded: later inits do "
                 "not need a whole id");
    print_message("hcclCommInitRank with length 0: %d (%s)\n", code,
                  rule_hcl.hcclGetErrorString(code));
}

/* HCL-OPS: hcclRedOp_t is Min 2, Max 3 (swapped from NCCL), Avg 4: accel's
 * min, max and average all-reduces give the right values. */
void probe_comm_habana_hccl_op_numbering(void **state)
{
    rule_hcl_job_t job;
    int32_t mine, low = -1, high = -1, *buf;
    float value, mean = -1.0f, *fbuf = NULL;
    accel_status_t step[3];
    (void)state;
    rule_hcl_join(&job);
    mine = job.rank + 1;
    assert_ok(accel_malloc(conformance_acc, sizeof mine, (void **)&buf));
    assert_ok(accel_memcpy(conformance_acc, buf, &mine, sizeof mine, ACCEL_COPY_HOST_TO_DEVICE));
    step[0] = accel_all_reduce(job.comm, buf, buf, 1, ACCEL_DTYPE_I32, ACCEL_REDUCE_MIN, NULL);
    assert_ok(accel_memcpy(conformance_acc, &low, buf, sizeof low, ACCEL_COPY_DEVICE_TO_HOST));
    assert_ok(accel_memcpy(conformance_acc, buf, &mine, sizeof mine, ACCEL_COPY_HOST_TO_DEVICE));
    step[1] = accel_all_reduce(job.comm, buf, buf, 1, ACCEL_DTYPE_I32, ACCEL_REDUCE_MAX, NULL);
    assert_ok(accel_memcpy(conformance_acc, &high, buf, sizeof high, ACCEL_COPY_DEVICE_TO_HOST));
    assert_ok(accel_free(conformance_acc, buf));
    value = (float)(job.rank + 1);
    assert_ok(accel_malloc(conformance_acc, sizeof value, (void **)&fbuf));
    assert_ok(accel_memcpy(conformance_acc, fbuf, &value, sizeof value, ACCEL_COPY_HOST_TO_DEVICE));
    step[2] = accel_all_reduce(job.comm, fbuf, fbuf, 1, ACCEL_DTYPE_F32, ACCEL_REDUCE_AVG, NULL);
    assert_ok(accel_memcpy(conformance_acc, &mean, fbuf, sizeof mean, ACCEL_COPY_DEVICE_TO_HOST));
    assert_ok(accel_free(conformance_acc, fbuf));
    assert_ok(accel_comm_destroy(job.comm));
    for (int i = 0; i < 3; i++)
        if (step[i] != ACCEL_OK)
            fail_msg("all-reduce %d of 3 (min, max, average) returned %s: %s", i + 1,
                     accel_status_name(step[i]), accel_last_error());
    if (low != 1 || high != job.size)
        fail_msg("min and max all-reduces of 1..%d gave %d and %d: hcclRedOp_t's min and max "
                 "are not 2 and 3",
                 job.size, low, high);
    if (mean != (float)(job.size + 1) / 2.0f)
        fail_msg("an average all-reduce of 1..%d gave %g, not %g: hcclAvg is not 4", job.size,
                 (double)mean, (double)(job.size + 1) / 2.0);
}
