/* comm_nccl.c: one probe per row of the nccl engine's "Vendor rules we rely
 * on" table (src/comm/nccl/README.md). They run only under `accel launch
 * -n N`, every rank running the same probe on the job's accel
 * communicator; where only a direct call tells, they call the libnccl the
 * engine loaded (ACCEL_NCCL_LIBRARY, libnccl.so.2) through the engine's
 * own symbol list. Each runs in its own child process (check.h). */
#include <stdlib.h>
#include <string.h>

#include <accel/accel_backend_utils.h>
#include <accel/accel_comm.h>

#include "check.h"
#include "rules/rule_common.h"
#include "comm/nccl/types.h"
#include "rules/rule-list.h"
#include "rules/rule_library.h"

/* NCCL's functions, as the engine declares them (its symbols.h). */
typedef struct rule_nccl_api {
#define ACCEL_NCCL_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "comm/nccl/symbols.h"
#undef ACCEL_NCCL_SYMBOL
    void *handle;
} rule_nccl_api_t;

static rule_nccl_api_t rule_nccl;

static const accel_symbol_t rule_nccl_symbols[] = {
#define ACCEL_NCCL_SYMBOL(required, ret, name, params, export)                                     \
    ACCEL_SYMBOL_ENTRY(rule_nccl, required, name, export),
#include "comm/nccl/symbols.h"
#undef ACCEL_NCCL_SYMBOL
};

static const char *const rule_nccl_names[] = {"libnccl.so.2", "libnccl.so", NULL};

static accel_vendor_library_t rule_nccl_library = {
    RULE_LIBRARY("nccl", rule_nccl_names, rule_nccl_symbols,
                 "NVIDIA NCCL (libnccl.so.2) could not be loaded", "the libnccl.so.2 that loaded"),
    .backend = "nccl selftest",
    .handle_out = &rule_nccl.handle,
};

/* The job's accel communicator, when the nccl engine serves it. */
typedef struct rule_nccl_job {
    accel_comm_t *comm;
    int rank, size, device;
} rule_nccl_job_t;

static void rule_nccl_join(rule_nccl_job_t *job)
{
    memset(job, 0, sizeof *job);
    rule_comm_join(conformance_acc, "nccl", &job->comm, &job->rank, &job->size, &job->device, NULL,
                   0);
    assert_ok(accel_set_device(conformance_acc, job->device));
    rule_library_require(&rule_nccl_library, "NCCL");
}

/* Every rank's `size` host bytes must equal rank 0's. */
static bool rule_nccl_same_everywhere(rule_nccl_job_t *job, const void *bytes, size_t size)
{
    unsigned char *mine = malloc(size), *root = malloc(size);
    void *carrier = NULL;
    int differs = 0, any = 0;
    void *flag = NULL;
    assert_true(mine != NULL && root != NULL);
    memcpy(mine, bytes, size);
    assert_ok(accel_malloc(conformance_acc, size, &carrier));
    assert_ok(accel_memcpy(conformance_acc, carrier, mine, size, ACCEL_COPY_HOST_TO_DEVICE));
    assert_ok(accel_broadcast(job->comm, carrier, carrier, size, ACCEL_DTYPE_U8, 0, NULL));
    assert_ok(accel_memcpy(conformance_acc, root, carrier, size, ACCEL_COPY_DEVICE_TO_HOST));
    differs = memcmp(root, mine, size) != 0;
    assert_ok(accel_malloc(conformance_acc, sizeof differs, &flag));
    assert_ok(
        accel_memcpy(conformance_acc, flag, &differs, sizeof differs, ACCEL_COPY_HOST_TO_DEVICE));
    assert_ok(accel_all_reduce(job->comm, flag, flag, 1, ACCEL_DTYPE_I32, ACCEL_REDUCE_MAX, NULL));
    assert_ok(accel_memcpy(conformance_acc, &any, flag, sizeof any, ACCEL_COPY_DEVICE_TO_HOST));
    assert_ok(accel_free(conformance_acc, flag));
    assert_ok(accel_free(conformance_acc, carrier));
    free(root);
    free(mine);
    return any == 0;
}

/* CCL-NCCL-COMMID: with NCCL_COMM_ID set, ncclGetUniqueId only encodes that
 * address, so every rank that calls it gets the same id (accel's env
 * rendezvous calls it on every rank). The probe sets the variable for its
 * own calls when the job has none; no root is started by them. */
void probe_comm_nccl_unique_id_echoes_address(void **state)
{
    rule_nccl_job_t job;
    accel_nccl_unique_id_t first, second;
    const char *set = getenv("NCCL_COMM_ID");
    bool ours = set == NULL || set[0] == '\0';
    (void)state;
    rule_nccl_join(&job);
    if (ours)
        setenv("NCCL_COMM_ID", "127.0.0.1:29877", 1);
    memset(&first, 0, sizeof first);
    memset(&second, 0, sizeof second);
    assert_int_equal(rule_nccl.ncclGetUniqueId(&first), ACCEL_NCCL_SUCCESS);
    assert_int_equal(rule_nccl.ncclGetUniqueId(&second), ACCEL_NCCL_SUCCESS);
    if (ours)
        unsetenv("NCCL_COMM_ID");
    if (memcmp(&first, &second, sizeof first) != 0)
        fail_msg("with NCCL_COMM_ID set, two ncclGetUniqueId calls on rank %d gave different "
                 "ids: the call does more than encode the address",
                 job.rank);
    if (!rule_nccl_same_everywhere(&job, &first, sizeof first))
        fail_msg("with NCCL_COMM_ID set, the ranks' ncclGetUniqueId ids differ");
    assert_ok(accel_comm_destroy(job.comm));
}

/* CCL-NCCL-ROOT: rank 0's ncclCommInitRank binds NCCL_COMM_ID's address,
 * one root per address. Observing it needs a second root there, which
 * leaves the other ranks waiting on a root that never answers (NCCL's
 * bootstrap timeout): not probed in a running job. */
void probe_comm_nccl_one_root_per_address(void **state)
{
    (void)state;
    conf_skip("a second bootstrap root on one address would leave the other ranks waiting out "
              "NCCL's bootstrap timeout; check it with a two-color split on two nodes without "
              "mpirun (src/comm/nccl/README.md)");
}

/* NCCL-SPLIT: ncclCommSplit (2.18+) splits over the parent's bootstrap,
 * and NCCL_SPLIT_NOCOLOR gives no communicator: accel_comm_split with
 * rank parity, and the last rank asking for none. */
void probe_comm_nccl_split(void **state)
{
    rule_nccl_job_t job;
    accel_comm_t *half = NULL;
    int version = 0, color, half_size = 0, value, sum = 0;
    void *buffer = NULL;
    (void)state;
    rule_nccl_join(&job);
    assert_int_equal(rule_nccl.ncclGetVersion(&version), ACCEL_NCCL_SUCCESS);
    if (rule_nccl.ncclCommSplit == NULL) {
        assert_ok(accel_comm_destroy(job.comm));
        conf_skip("NCCL %d has no ncclCommSplit (2.18+)", version);
    }
    color = job.rank == job.size - 1 && job.size > 2 ? ACCEL_COMM_SPLIT_NONE : job.rank % 2;
    assert_ok(accel_comm_split(job.comm, color, job.rank, &half));
    if (color == ACCEL_COMM_SPLIT_NONE) {
        if (half != NULL)
            fail_msg("a rank that asked for no color got a communicator");
    } else {
        int expected_size = 0;
        for (int r = 0; r < job.size; r++)
            if (r % 2 == color && !(r == job.size - 1 && job.size > 2))
                expected_size++;
        if (half == NULL)
            fail_msg("rank %d got no communicator for color %d", job.rank, color);
        assert_ok(accel_comm_size(half, &half_size));
        assert_int_equal(half_size, expected_size);
        value = job.rank + 1;
        assert_ok(accel_malloc(conformance_acc, sizeof value, &buffer));
        assert_ok(
            accel_memcpy(conformance_acc, buffer, &value, sizeof value, ACCEL_COPY_HOST_TO_DEVICE));
        assert_ok(
            accel_all_reduce(half, buffer, buffer, 1, ACCEL_DTYPE_I32, ACCEL_REDUCE_SUM, NULL));
        assert_ok(
            accel_memcpy(conformance_acc, &sum, buffer, sizeof sum, ACCEL_COPY_DEVICE_TO_HOST));
        assert_ok(accel_free(conformance_acc, buffer));
        {
            int want = 0;
            for (int r = 0; r < job.size; r++)
                if (r % 2 == color && !(r == job.size - 1 && job.size > 2))
                    want += r + 1;
            if (sum != want)
                fail_msg("an all-reduce over color %d's communicator gave %d, not %d", color, sum,
                         want);
        }
        assert_ok(accel_comm_destroy(half));
    }
    assert_ok(accel_comm_destroy(job.comm));
}

/* NCCL-VERSIONS: ncclAvg from 2.10, ncclGetLastError from 2.13,
 * ncclCommFinalize from 2.14: what the library says of its version
 * matches what it exports, and an average all-reduce (native from 2.10)
 * gives the mean. */
void probe_comm_nccl_versions(void **state)
{
    rule_nccl_job_t job;
    int version = 0;
    float value, mean = 0.0f, want = 0.0f;
    void *buffer = NULL;
    (void)state;
    rule_nccl_join(&job);
    assert_int_equal(rule_nccl.ncclGetVersion(&version), ACCEL_NCCL_SUCCESS);
    print_message("NCCL %d", version);
    if (version >= 21300 && rule_nccl.ncclGetLastError == NULL)
        fail_msg("NCCL %d does not export ncclGetLastError (2.13+)", version);
    if (version >= 21400 && rule_nccl.ncclCommFinalize == NULL)
        fail_msg("NCCL %d does not export ncclCommFinalize (2.14+)", version);
    value = (float)(job.rank + 1);
    for (int r = 0; r < job.size; r++)
        want += (float)(r + 1) / (float)job.size;
    assert_ok(accel_malloc(conformance_acc, sizeof value, &buffer));
    assert_ok(
        accel_memcpy(conformance_acc, buffer, &value, sizeof value, ACCEL_COPY_HOST_TO_DEVICE));
    if (version >= 21000) {
        accel_status_t status =
            accel_all_reduce(job.comm, buffer, buffer, 1, ACCEL_DTYPE_F32, ACCEL_REDUCE_AVG, NULL);
        if (status != ACCEL_OK)
            fail_msg("an average all-reduce on NCCL %d (ncclAvg since 2.10) failed: %s", version,
                     accel_last_error());
        assert_ok(
            accel_memcpy(conformance_acc, &mean, buffer, sizeof mean, ACCEL_COPY_DEVICE_TO_HOST));
        if (mean < want - 1e-4f || mean > want + 1e-4f)
            fail_msg("an average all-reduce gave %g, not %g", (double)mean, (double)want);
    }
    assert_ok(accel_free(conformance_acc, buffer));
    assert_ok(accel_comm_destroy(job.comm));
}
