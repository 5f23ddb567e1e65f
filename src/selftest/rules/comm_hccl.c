/* comm_hccl.c: one probe per vendor rule accel's hccl engine relies on (the
 * "Vendor rules we rely on" table of src/comm/hccl/README.md; the hccl
 * sim's rules H1-H8 in tests/sim/README.md). They run only under
 * `accel launch -n N`, every rank running the same probe: each makes an
 * accel communicator and, where only a direct call tells, an HCCL one of
 * its own over the same ranks (root info from HcclGetRootInfo on rank 0,
 * carried to the others by an accel broadcast), and calls HCCL directly.
 * Every rank makes the same calls, so a rule that holds refuses on every
 * rank alike and one that does not runs the collective on every rank. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel_backend_utils.h>
#include <accel/accel_comm.h>

#include "check.h"
#include "rules/rule_common.h"
#include "rules/npu_acl.h"
#include "rules/rule-list.h"
#include "rules/rule_library.h"

/* HCCL's values (hccl_types.h; the engine's src/comm/hccl/types.h has the
 * same, checked against the real header by hccl.declarations). */
#define PROBE_HCCL_ROOT_INFO_BYTES 4108
#define PROBE_HCCL_E_PTR           2
#define PROBE_HCCL_E_NOT_SUPPORT   5
#define PROBE_HCCL_FP32            4
#define PROBE_HCCL_UINT8           7
#define PROBE_HCCL_FP64            10
#define PROBE_HCCL_BFP16           11
#define PROBE_HCCL_SUM             0
#define PROBE_HCCL_PROD            1

typedef struct probe_hccl_api {
    int (*HcclGetRootInfo)(void *root_info);
    int (*HcclCommInitRootInfo)(uint32_t ranks, const void *root_info, uint32_t rank, void **comm);
    int (*HcclCommDestroy)(void *comm);
    int (*HcclAllReduce)(void *send, void *recv, uint64_t count, uint32_t dtype, uint32_t op,
                         void *comm, void *stream);
} probe_hccl_api_t;

static probe_hccl_api_t probe_hccl;

static const accel_symbol_t probe_hccl_symbols[] = {
    ACCEL_SYMBOL_ENTRY(probe_hccl, true, HcclGetRootInfo, NULL),
    ACCEL_SYMBOL_ENTRY(probe_hccl, true, HcclCommInitRootInfo, NULL),
    ACCEL_SYMBOL_ENTRY(probe_hccl, true, HcclCommDestroy, NULL),
    ACCEL_SYMBOL_ENTRY(probe_hccl, true, HcclAllReduce, NULL),
};

/* Where the hccl engine looks (src/comm/hccl/engine.c). */
static const char *const probe_hccl_homes[] = {"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", NULL};
static const char *const probe_hccl_names[] = {"libhccl.so", NULL};
static char probe_hccl_path[512];

static accel_vendor_library_t probe_hccl_library = {
    RULE_LIBRARY("hccl", probe_hccl_names, probe_hccl_symbols,
                 "Huawei Ascend HCCL (libhccl.so) could not be loaded",
                 "the libhccl.so that loaded"),
    .backend = "hccl selftest",
    .home_vars = probe_hccl_homes,
    .home_file = "lib64/libhccl.so",
    .path_from = "HcclGetRootInfo",
    .path = probe_hccl_path,
    .path_cap = sizeof probe_hccl_path,
};

/* One probe's communicators: accel's over the job, and a direct HCCL one
 * over the same ranks on the same device, with a created stream. */
typedef struct probe_hccl_job {
    accel_comm_t *comm;
    int rank, size, device;
    const probe_acl_t *acl;
    void *hccl_comm;
    probe_acl_stream_t stream;
    void *send, *recv; /* 64 bytes of device memory each */
} probe_hccl_job_t;

/* The accel communicator only (rules observed through accel). */
static void probe_hccl_join(probe_hccl_job_t *job)
{
    memset(job, 0, sizeof *job);
    rule_comm_join(conformance_acc, "hccl", &job->comm, &job->rank, &job->size, &job->device, NULL,
                   0);
}

/* The accel communicator and a direct HCCL one. */
static void probe_hccl_open(probe_hccl_job_t *job)
{
    unsigned char root[PROBE_HCCL_ROOT_INFO_BYTES] = {0};
    void *carrier = NULL;
    probe_hccl_join(job);
    job->acl = probe_acl_open(job->device);
    rule_library_require(&probe_hccl_library, "HCCL");
    if (job->rank == 0)
        probe_acl_expect(job->acl, "HcclGetRootInfo", probe_hccl.HcclGetRootInfo(root),
                         PROBE_ACL_SUCCESS);
    assert_ok(accel_set_device(conformance_acc, job->device));
    assert_ok(accel_malloc(conformance_acc, sizeof root, &carrier));
    assert_ok(accel_memcpy(conformance_acc, carrier, root, sizeof root, ACCEL_COPY_HOST_TO_DEVICE));
    assert_ok(accel_broadcast(job->comm, carrier, carrier, sizeof root, ACCEL_DTYPE_U8, 0, NULL));
    assert_ok(accel_memcpy(conformance_acc, root, carrier, sizeof root, ACCEL_COPY_DEVICE_TO_HOST));
    assert_ok(accel_free(conformance_acc, carrier));
    probe_acl_ok(job->acl, job->acl->aclrtSetDevice(job->device));
    probe_acl_expect(job->acl, "HcclCommInitRootInfo",
                     probe_hccl.HcclCommInitRootInfo((uint32_t)job->size, root, (uint32_t)job->rank,
                                                     &job->hccl_comm),
                     PROBE_ACL_SUCCESS);
    job->stream = probe_acl_stream(job->acl);
    probe_acl_ok(job->acl, job->acl->aclrtMalloc(&job->send, 64, PROBE_ACL_MEM_MALLOC_HUGE_FIRST));
    probe_acl_ok(job->acl, job->acl->aclrtMalloc(&job->recv, 64, PROBE_ACL_MEM_MALLOC_HUGE_FIRST));
}

static void probe_hccl_close(probe_hccl_job_t *job)
{
    if (job->hccl_comm != NULL) {
        probe_acl_ok(job->acl, job->acl->aclrtSynchronizeStream(job->stream));
        probe_acl_ok(job->acl, job->acl->aclrtFree(job->recv));
        probe_acl_ok(job->acl, job->acl->aclrtFree(job->send));
        probe_acl_ok(job->acl, job->acl->aclrtDestroyStream(job->stream));
        probe_acl_expect(job->acl, "HcclCommDestroy", probe_hccl.HcclCommDestroy(job->hccl_comm),
                         PROBE_ACL_SUCCESS);
    }
    assert_ok(accel_comm_destroy(job->comm));
}

/* An HcclAllReduce of `count` elements on the job's buffers (offset by
 * `misalign` bytes) and `stream`: its result. */
static int probe_hccl_all_reduce(probe_hccl_job_t *job, uint32_t dtype, uint32_t op, uint64_t count,
                                 size_t misalign, void *stream)
{
    int code = probe_hccl.HcclAllReduce((char *)job->send + misalign, (char *)job->recv + misalign,
                                        count, dtype, op, job->hccl_comm, stream);
    if (code == PROBE_ACL_SUCCESS && stream != NULL)
        probe_acl_ok(job->acl, job->acl->aclrtSynchronizeStream(stream));
    return code;
}

void probe_comm_hccl_h1_null_stream_refused(void **state)
{
    probe_hccl_job_t job;
    int code;
    (void)state;
    probe_hccl_open(&job);
    code = probe_hccl_all_reduce(&job, PROBE_HCCL_FP32, PROBE_HCCL_SUM, 4, 0, NULL);
    probe_hccl_close(&job);
    if (code != PROBE_HCCL_E_PTR)
        fail_msg("HcclAllReduce on ACL's NULL (default) stream returned %d, not HCCL_E_PTR (%d)",
                 code, PROBE_HCCL_E_PTR);
}

void probe_comm_hccl_h2_small_unsigned_reductions_refused(void **state)
{
    probe_hccl_job_t job;
    int code;
    (void)state;
    probe_hccl_open(&job);
    code = probe_hccl_all_reduce(&job, PROBE_HCCL_UINT8, PROBE_HCCL_SUM, 16, 0, job.stream);
    probe_hccl_close(&job);
    if (code != PROBE_HCCL_E_NOT_SUPPORT)
        fail_msg("HcclAllReduce of UINT8 returned %d, not HCCL_E_NOT_SUPPORT (%d): accel refuses "
                 "u8 reductions it could pass on",
                 code, PROBE_HCCL_E_NOT_SUPPORT);
}

void probe_comm_hccl_h3_fp64_reductions_on_950(void **state)
{
    probe_hccl_job_t job;
    const char *soc;
    bool on_950;
    int code;
    (void)state;
    probe_hccl_open(&job);
    soc = job.acl->aclrtGetSocName();
    on_950 = soc != NULL && strncmp(soc, "Ascend950", 9) == 0;
    code = probe_hccl_all_reduce(&job, PROBE_HCCL_FP64, PROBE_HCCL_SUM, 4, 0, job.stream);
    probe_hccl_close(&job);
    if (on_950 && code != PROBE_ACL_SUCCESS)
        fail_msg("HcclAllReduce of FP64 on %s returned %d: Ascend 950 should reduce FP64", soc,
                 code);
    if (!on_950 && code != PROBE_HCCL_E_NOT_SUPPORT)
        fail_msg("HcclAllReduce of FP64 on %s returned %d, not HCCL_E_NOT_SUPPORT (%d): accel "
                 "refuses f64 reductions this SoC may run",
                 soc != NULL ? soc : "an unnamed SoC", code, PROBE_HCCL_E_NOT_SUPPORT);
}

void probe_comm_hccl_h4_prod_types(void **state)
{
    probe_hccl_job_t job;
    int bf16, f32;
    (void)state;
    probe_hccl_open(&job);
    bf16 = probe_hccl_all_reduce(&job, PROBE_HCCL_BFP16, PROBE_HCCL_PROD, 4, 0, job.stream);
    f32 = probe_hccl_all_reduce(&job, PROBE_HCCL_FP32, PROBE_HCCL_PROD, 4, 0, job.stream);
    probe_hccl_close(&job);
    if (bf16 != PROBE_HCCL_E_NOT_SUPPORT)
        fail_msg("HcclAllReduce PROD of BFP16 returned %d, not HCCL_E_NOT_SUPPORT (%d)", bf16,
                 PROBE_HCCL_E_NOT_SUPPORT);
    if (f32 != PROBE_ACL_SUCCESS)
        fail_msg("HcclAllReduce PROD of FP32 returned %d", f32);
}

void probe_comm_hccl_h5_send_recv_pairwise(void **state)
{
    (void)state;
    conf_skip("HcclSend/HcclRecv block pairwise: observing it means deadlocking the job, so "
              "accel always groups them (rule H6 checks the group calls)");
}

/* Under a launcher the collective probes share one process: a group left
 * open or a communicator left behind would fail the probes after this
 * one, so every step runs and the first failure is reported at the end. */
void probe_comm_hccl_h6_group_calls(void **state)
{
    probe_hccl_job_t job;
    accel_comm_engine_info_t info = {.struct_size = sizeof info};
    const char *why;
    (void)state;
    probe_hccl_join(&job);
    assert_ok(accel_comm_engine_info(conformance_acc, &info));
    print_message("hccl engine: %s\n", info.detail);
    if (job.size < 2) {
        probe_hccl_close(&job);
        conf_skip("a ring needs two ranks");
    }
    assert_ok(accel_set_device(conformance_acc, job.device));
    why = rule_grouped_ring(conformance_acc, job.comm, job.rank, job.size, true);
    probe_hccl_close(&job);
    if (why != NULL)
        fail_msg("%s", why);
}

typedef struct h7_root {
    int code;
} h7_root_t;

static void *h7_root_main(void *arg)
{
    unsigned char root[PROBE_HCCL_ROOT_INFO_BYTES];
    ((h7_root_t *)arg)->code = probe_hccl.HcclGetRootInfo(root);
    return NULL;
}

void probe_comm_hccl_h7_root_info_needs_device(void **state)
{
    probe_hccl_job_t job;
    h7_root_t fresh = {-1};
    pthread_t thread;
    (void)state;
    probe_hccl_join(&job);
    rule_library_require(&probe_hccl_library, "HCCL");
    if (pthread_create(&thread, NULL, h7_root_main, &fresh) != 0)
        fail_msg("cannot start a thread");
    pthread_join(thread, NULL);
    probe_hccl_close(&job);
    if (fresh.code == PROBE_ACL_SUCCESS)
        fail_msg("HcclGetRootInfo succeeded on a thread with no ACL device: the root info does "
                 "not come from the thread's device");
    print_message("HcclGetRootInfo with no ACL device: %d\n", fresh.code);
}

void probe_comm_hccl_h8_reduction_alignment(void **state)
{
    probe_hccl_job_t job;
    int code;
    (void)state;
    probe_hccl_open(&job);
    code = probe_hccl_all_reduce(&job, PROBE_HCCL_FP32, PROBE_HCCL_SUM, 4, 2, job.stream);
    probe_hccl_close(&job);
    if (code == PROBE_ACL_SUCCESS)
        fail_msg("HcclAllReduce of FP32 buffers 2 bytes off their alignment succeeded");
    print_message("HcclAllReduce of misaligned FP32: %d\n", code);
}
