/* hccl_sim.c: the simulated Ascend libhccl.so (tests/sim/README.md): HCCL's
 * real exported names and signatures (hccl.h as vendor-apis.md §2.4
 * records it), each mapped onto the MPI collectives core (ccl_sim.h). It
 * links the simulated libascendcl.so: a communicator needs the thread's ACL
 * device (aclrtSetDevice), and every operation first synchronizes its
 * aclrtStream there. Faults: every exported call goes through sim_fault
 * (ACCEL_SIM_FAIL=HcclAllReduce:1:4 ...). Connect timeout: as the real
 * library, HcclCommInitRootInfo waits HCCL_CONNECT_TIMEOUT seconds (default
 * 120) for the other ranks, then fails with HCCL_E_TIMEOUT; the sim accepts
 * any whole number of seconds from 1, where CANN documents [120, 7200] (and,
 * in recent releases, 20 s more than the value), so that a test need not
 * wait two minutes. Threads: as ccl_sim.h. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccl_sim.h"
#include "hccl_sim.h"
#include "sim_break.h"
#include "sim_fault.h"

/* From the simulated libascendcl.so this library links. */
extern int aclrtSynchronizeStream(aclrtStream stream);
extern int aclrtGetDevice(int32_t *device);

static int hccl_sync(void *stream)
{
    return aclrtSynchronizeStream(stream);
}

/* Rule H1: every collective and point-to-point call refuses a NULL stream
 * with HCCL_E_PTR, as the vendor's op checks do (hicann/hccl
 * src/ops/all_reduce/all_reduce_op.cc CheckAllReduceInputPara:
 * CHK_PTR_NULL(stream); the same check in the all_gather, broadcast,
 * reduce, reduce_scatter, barrier and batch_send_recv ops). HcclSend and
 * HcclRecv live in hcomm, whose source is not public: the same rule there
 * is the harsher reading. */
/* ACCEL_SIM_BREAK=H1 is its test-only broken mode: a NULL stream is taken
 * (as ACL's default stream). */
#define HCCL_NEED_STREAM(stream, name)                                                             \
    do {                                                                                           \
        if ((stream) == NULL && !sim_rule_broken("H1")) {                                          \
            fprintf(stderr, "hccl sim: %s: stream is NULL (HCCL_E_PTR)\n", name);                  \
            return HCCL_E_PTR;                                                                     \
        }                                                                                          \
    } while (0)

static HcclResult hccl_result(ccl_sim_status_t status)
{
    switch (status) {
    case CCL_SIM_OK: return HCCL_SUCCESS;
    case CCL_SIM_INVALID: return HCCL_E_PARA;
    case CCL_SIM_STREAM: return HCCL_E_RUNTIME;
    case CCL_SIM_TIMEOUT: return HCCL_E_TIMEOUT;
    default: return HCCL_E_INTERNAL;
    }
}

/* HcclDataType: INT8 0, INT32 2, FP16 3, FP32 4, INT64 5, UINT64 6, UINT8 7,
 * UINT32 9, FP64 10, BFP16 11 (INT16/UINT16 and the rest: not simulated). */
static int hccl_type(uint32_t code, ccl_sim_type_t *out)
{
    static const int map[] = {CCL_SIM_I8,  -1,          CCL_SIM_I32, CCL_SIM_F16,
                              CCL_SIM_F32, CCL_SIM_I64, CCL_SIM_U64, CCL_SIM_U8,
                              -1,          CCL_SIM_U32, CCL_SIM_F64, CCL_SIM_BF16};
    if (code >= sizeof map / sizeof map[0] || map[code] < 0)
        return 0;
    *out = (ccl_sim_type_t)map[code];
    return 1;
}

/* HcclReduceOp: SUM 0, PROD 1, MAX 2, MIN 3 (no average). */
static int hccl_op(uint32_t code, ccl_sim_op_t *out)
{
    static const ccl_sim_op_t map[] = {CCL_SIM_SUM, CCL_SIM_PROD, CCL_SIM_MAX, CCL_SIM_MIN};
    if (code >= sizeof map / sizeof map[0])
        return 0;
    *out = map[code];
    return 1;
}

/* The rules HCCL's reductions (AllReduce, ReduceScatter, Reduce) check
 * before anything runs (tests/sim/README.md, HCCL rules H2-H4, H8):
 * - H2: no UINT8 (7), UINT16 (8) or UINT32 (9): HCCL_E_NOT_SUPPORT
 *   (hicann/hccl src/ops/op_common/op_common.cc, CheckDataType with
 *   needReduce).
 * - H3: FP64 (10) and UINT64 (6) only on Ascend 950 (ACCEL_SIM_SOC, the ACL
 *   sim's SoC, starting "Ascend950"): HCCL_E_NOT_SUPPORT. hicann/hccl
 *   docs/zh/api_ref/comm_op_interface/HcclAllReduce.md lists them for
 *   Ascend 950 only and torch_npu's checkSupportedDataType refuses them
 *   elsewhere; CheckDataType itself lets them through, so this is the
 *   sim's harsher reading.
 * - H4: PROD only on INT8, INT32, INT64, UINT64, FP16, FP32, FP64 (so not on
 *   INT16 or BFP16): HCCL_E_NOT_SUPPORT (op_common.cc CheckReduceOp).
 * - H8: sendBuf and recvBuf aligned to the element size (2 bytes for 16-bit
 *   types, 4 for 32-bit, 8 for 64-bit; the 约束 of HcclAllReduce.md,
 *   HcclReduceScatter.md, HcclReduce.md): HCCL_E_PARA, the sim's choice of
 *   code (the documents give none). */
/* Not an HCCL code: a call the broken H8 takes without running it. */
#define HCCL_SIM_TAKEN_UNRUN ((HcclResult)0x7fff)

static HcclResult hccl_reduce_rules(uint32_t type, uint32_t op, const void *send, const void *recv)
{
    static const unsigned size[] = {1, 2, 4, 2, 4, 8, 8, 1, 2, 4, 8, 2};
    const char *soc = getenv("ACCEL_SIM_SOC");
    bool on_950 = soc != NULL && strncmp(soc, "Ascend950", 9) == 0;
    /* ACCEL_SIM_BREAK=H2, H3, H4, H8: the test-only broken modes of those
     * rules, each taking what its rule refuses (the reduction then runs,
     * but for H8: host code may not read misaligned elements, so that one
     * is taken and left unrun, HCCL_SIM_TAKEN_UNRUN). */
    if ((type == 7 || type == 8 || type == 9) && !sim_rule_broken("H2"))
        return HCCL_E_NOT_SUPPORT;
    if ((type == 10 || type == 6) && !on_950 && !sim_rule_broken("H3"))
        return HCCL_E_NOT_SUPPORT;
    if (op == 1 && (type == 1 || type == 11) && !sim_rule_broken("H4"))
        return HCCL_E_NOT_SUPPORT;
    if (type < sizeof size / sizeof size[0] &&
        (((uintptr_t)send % size[type]) != 0 || ((uintptr_t)recv % size[type]) != 0))
        return sim_rule_broken("H8") ? HCCL_SIM_TAKEN_UNRUN : HCCL_E_PARA;
    return HCCL_SUCCESS;
}

#define HCCL_REDUCE_RULES(type, op, send, recv)                                                    \
    do {                                                                                           \
        HcclResult rules_ = hccl_reduce_rules(type, op, send, recv);                               \
        if (rules_ != HCCL_SUCCESS)                                                                \
            return rules_ == HCCL_SIM_TAKEN_UNRUN ? HCCL_SUCCESS : rules_;                         \
    } while (0)

#define HCCL_TYPE(code, var)                                                                       \
    ccl_sim_type_t var;                                                                            \
    if (!hccl_type(code, &var))                                                                    \
    return HCCL_E_NOT_SUPPORT
#define HCCL_OP(code, var)                                                                         \
    ccl_sim_op_t var;                                                                              \
    if (!hccl_op(code, &var))                                                                      \
    return HCCL_E_PARA

/* H7: the root info is made on the thread's ACL device, which must be set:
 * hcomm's HcclGetRootInfo begins with hrtGetDeviceRefresh (the root info
 * embeds the device). Its code without a device is not public:
 * HCCL_E_RUNTIME is the sim's choice. */
SIM_EXPORT HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
    int32_t device = -1;
    CCL_SIM_ENTER("HcclGetRootInfo");
    if (rootInfo == NULL)
        return HCCL_E_PTR;
    /* ACCEL_SIM_BREAK=H7, the test-only broken mode of rule H7: a root
     * info made with no ACL device on the thread. */
    if (aclrtGetDevice(&device) != 0 && !sim_rule_broken("H7"))
        return HCCL_E_RUNTIME;
    return hccl_result(ccl_sim_unique_id(rootInfo, sizeof *rootInfo));
}

/* HCCL_CONNECT_TIMEOUT in seconds: 120 when unset; a whole number from 1
 * (the sim's lower bound, see above) up to 7200, else 0 (refused). */
static long hccl_connect_timeout(void)
{
    const char *text = getenv("HCCL_CONNECT_TIMEOUT");
    char *end = NULL;
    long seconds;
    if (text == NULL || text[0] == '\0')
        return 120;
    seconds = strtol(text, &end, 10);
    return end != text && *end == '\0' && seconds >= 1 && seconds <= 7200 ? seconds : 0;
}

SIM_EXPORT HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                           uint32_t rank, HcclComm *comm)
{
    int32_t device = -1;
    ccl_sim_comm_t *made = NULL;
    HcclResult result;
    long timeout_s;
    CCL_SIM_ENTER("HcclCommInitRootInfo");
    if (rootInfo == NULL || comm == NULL)
        return HCCL_E_PTR;
    timeout_s = hccl_connect_timeout();
    if (timeout_s == 0)
        return HCCL_E_PARA;
    /* HCCL binds the communicator to the thread's ACL device. */
    if (aclrtGetDevice(&device) != 0)
        return HCCL_E_RUNTIME;
    result =
        hccl_result(ccl_sim_comm_init_within(rootInfo, (int)nRanks, (int)rank, device,
                                             (double)timeout_s, "HCCL_CONNECT_TIMEOUT", &made));
    if (result == HCCL_SUCCESS)
        *comm = made;
    return result;
}

SIM_EXPORT HcclResult HcclCommDestroy(HcclComm comm)
{
    CCL_SIM_ENTER("HcclCommDestroy");
    if (comm == NULL)
        return HCCL_E_PTR;
    return hccl_result(ccl_sim_comm_free(comm));
}

SIM_EXPORT HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
    CCL_SIM_ENTER("HcclGetRankSize");
    if (comm == NULL || rankSize == NULL)
        return HCCL_E_PTR;
    *rankSize = (uint32_t)ccl_sim_comm_size(comm);
    return HCCL_SUCCESS;
}

SIM_EXPORT HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
    CCL_SIM_ENTER("HcclGetRankId");
    if (comm == NULL || rank == NULL)
        return HCCL_E_PTR;
    *rank = (uint32_t)ccl_sim_comm_rank(comm);
    return HCCL_SUCCESS;
}

SIM_EXPORT HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, uint32_t dataType,
                                    uint32_t op, HcclComm comm, aclrtStream stream)
{
    CCL_SIM_ENTER("HcclAllReduce");
    HCCL_NEED_STREAM(stream, "HcclAllReduce");
    HCCL_REDUCE_RULES(dataType, op, sendBuf, recvBuf);
    HCCL_TYPE(dataType, type);
    HCCL_OP(op, sim_op);
    return hccl_result(
        ccl_sim_all_reduce(comm, sendBuf, recvBuf, count, type, sim_op, hccl_sync, stream));
}

SIM_EXPORT HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                                    uint32_t dataType, HcclComm comm, aclrtStream stream)
{
    CCL_SIM_ENTER("HcclAllGather");
    HCCL_NEED_STREAM(stream, "HcclAllGather");
    HCCL_TYPE(dataType, type);
    return hccl_result(
        ccl_sim_all_gather(comm, sendBuf, recvBuf, sendCount, type, hccl_sync, stream));
}

SIM_EXPORT HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                        uint32_t dataType, uint32_t op, HcclComm comm,
                                        aclrtStream stream)
{
    CCL_SIM_ENTER("HcclReduceScatter");
    HCCL_NEED_STREAM(stream, "HcclReduceScatter");
    HCCL_REDUCE_RULES(dataType, op, sendBuf, recvBuf);
    HCCL_TYPE(dataType, type);
    HCCL_OP(op, sim_op);
    return hccl_result(
        ccl_sim_reduce_scatter(comm, sendBuf, recvBuf, recvCount, type, sim_op, hccl_sync, stream));
}

/* In place only: one buffer, read on the root and written everywhere. */
SIM_EXPORT HcclResult HcclBroadcast(void *buf, uint64_t count, uint32_t dataType, uint32_t root,
                                    HcclComm comm, aclrtStream stream)
{
    CCL_SIM_ENTER("HcclBroadcast");
    HCCL_NEED_STREAM(stream, "HcclBroadcast");
    HCCL_TYPE(dataType, type);
    return hccl_result(
        ccl_sim_broadcast(comm, buf, buf, count, type, (int)root, hccl_sync, stream));
}

SIM_EXPORT HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, uint32_t dataType,
                                 uint32_t op, uint32_t root, HcclComm comm, aclrtStream stream)
{
    CCL_SIM_ENTER("HcclReduce");
    HCCL_NEED_STREAM(stream, "HcclReduce");
    HCCL_REDUCE_RULES(dataType, op, sendBuf, recvBuf);
    HCCL_TYPE(dataType, type);
    HCCL_OP(op, sim_op);
    return hccl_result(
        ccl_sim_reduce(comm, sendBuf, recvBuf, count, type, sim_op, (int)root, hccl_sync, stream));
}

SIM_EXPORT HcclResult HcclSend(void *sendBuf, uint64_t count, uint32_t dataType, uint32_t destRank,
                               HcclComm comm, aclrtStream stream)
{
    CCL_SIM_ENTER("HcclSend");
    HCCL_NEED_STREAM(stream, "HcclSend");
    HCCL_TYPE(dataType, type);
    return hccl_result(ccl_sim_send(comm, sendBuf, count, type, (int)destRank, hccl_sync, stream));
}

SIM_EXPORT HcclResult HcclRecv(void *recvBuf, uint64_t count, uint32_t dataType, uint32_t srcRank,
                               HcclComm comm, aclrtStream stream)
{
    CCL_SIM_ENTER("HcclRecv");
    HCCL_NEED_STREAM(stream, "HcclRecv");
    HCCL_TYPE(dataType, type);
    return hccl_result(ccl_sim_recv(comm, recvBuf, count, type, (int)srcRank, hccl_sync, stream));
}

SIM_EXPORT HcclResult HcclBarrier(HcclComm comm, aclrtStream stream)
{
    CCL_SIM_ENTER("HcclBarrier");
    HCCL_NEED_STREAM(stream, "HcclBarrier");
    return hccl_result(ccl_sim_barrier(comm, hccl_sync, stream));
}

/* H6: current CANN exports HcclGroupStart/End from libhcomm.so, not
 * libhccl.so (torch_npu's HcclCompile.h resolves them from libhcomm). This
 * library keeps the group state (the MPI core is linked in here) and
 * exports the two under sim-only names; the simulated libhcomm.so
 * (hcomm_sim.c), in the same folder, exports the real names and forwards
 * here. Fault injection stays in this library's registry under the real
 * names. */
SIM_EXPORT HcclResult hccl_sim_group_start(void)
{
    CCL_SIM_ENTER("HcclGroupStart");
    /* ACCEL_SIM_BREAK=H6, the test-only broken mode of rule H6: the group
     * calls libhcomm.so exports do not work. */
    if (sim_rule_broken("H6"))
        return HCCL_E_NOT_SUPPORT;
    return hccl_result(ccl_sim_group_start());
}

SIM_EXPORT HcclResult hccl_sim_group_end(void)
{
    /* An injected failure ends the group too (its calls are dropped). */
    int injected = sim_fault_hit("HcclGroupEnd");
    ccl_sim_clear_error();
    if (injected != 0) {
        ccl_sim_group_abort();
        return injected;
    }
    return hccl_result(ccl_sim_group_end());
}

SIM_EXPORT HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError)
{
    CCL_SIM_ENTER("HcclGetCommAsyncError");
    if (comm == NULL || asyncError == NULL)
        return HCCL_E_PTR;
    *asyncError = HCCL_SUCCESS; /* the sim finishes every operation before returning */
    return HCCL_SUCCESS;
}

SIM_EXPORT const char *HcclGetErrorString(HcclResult code)
{
    /* The sim's text: the thread's last failure when there is one. */
    const char *last = ccl_sim_last_error();
    if (code == HCCL_SUCCESS)
        return "no error";
    return last[0] != '\0' ? last : "simulated HCCL failure";
}
