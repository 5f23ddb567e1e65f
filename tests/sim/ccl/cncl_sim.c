/* cncl_sim.c: the simulated Cambricon libcncl.so (tests/sim/README.md):
 * CNCL's real exported names and signatures (cncl.h 1.25 as
 * vendor-apis.md §3.4 records it), mapped onto the MPI collectives core
 * (ccl_sim.h). It links the simulated libcnrt.so: every operation first
 * synchronizes its cnrtQueue_t there (cnrtQueueSync). One communicator per
 * cnclInitComms call with a clique id (num_comm 1, one rank per process).
 * The group calls' real prototypes were never read; the sim exports them as
 * (void), as the engine assumes. Faults: every exported call goes through
 * sim_fault. Threads: as ccl_sim.h. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "ccl_sim.h"
#include "cncl_sim.h"
#include "sim_break.h"
#include "sim_fault.h"

/* From the simulated libcnrt.so this library links. */
extern int cnrtQueueSync(cnrtQueue_t queue);
extern int cnrtGetDevice(int *ordinal);
extern int cnrtGetDeviceCount(unsigned int *count);

static int cncl_sync(void *queue)
{
    return cnrtQueueSync(queue);
}

static cnclResult_t cncl_result(ccl_sim_status_t status)
{
    switch (status) {
    case CCL_SIM_OK: return CNCL_RET_SUCCESS;
    case CCL_SIM_INVALID: return CNCL_RET_ERR_ARGUMENTS;
    case CCL_SIM_STREAM: return CNCL_RET_ERR_MLU_RUNTIME;
    default: return CNCL_RET_ERR_INTERNAL;
    }
}

/* cnclDataType_t: Float16 0x10, Bfloat16 0x11, Float32 0x12, Int8 0x20,
 * Int32 0x22, Int64 0x23, Uint8 0x30, Uint32 0x32, Uint64 0x33 (16-bit
 * integers not simulated; there is no float64). */
static int cncl_type(uint32_t code, ccl_sim_type_t *out)
{
    switch (code) {
    case 0x10: *out = CCL_SIM_F16; return 1;
    case 0x11: *out = CCL_SIM_BF16; return 1;
    case 0x12: *out = CCL_SIM_F32; return 1;
    case 0x20: *out = CCL_SIM_I8; return 1;
    case 0x22: *out = CCL_SIM_I32; return 1;
    case 0x23: *out = CCL_SIM_I64; return 1;
    case 0x30: *out = CCL_SIM_U8; return 1;
    case 0x32: *out = CCL_SIM_U32; return 1;
    case 0x33: *out = CCL_SIM_U64; return 1;
    default: return 0;
    }
}

/* cnclReduceOp_t: Sum 0, Prod 1, Max 2, Min 3 (no average;
 * ACCEL_SIM_BREAK=CNCL-TYPES takes NCCL's average code, 4). */
static int cncl_op(uint32_t code, ccl_sim_op_t *out)
{
    static const ccl_sim_op_t map[] = {CCL_SIM_SUM, CCL_SIM_PROD, CCL_SIM_MAX, CCL_SIM_MIN};
    if (code == 4 && sim_rule_broken("CNCL-TYPES")) {
        *out = CCL_SIM_AVG;
        return 1;
    }
    if (code >= sizeof map / sizeof map[0])
        return 0;
    *out = map[code];
    return 1;
}

#define CNCL_TYPE(code, var)                                                                       \
    ccl_sim_type_t var;                                                                            \
    if (!cncl_type(code, &var))                                                                    \
    return CNCL_RET_ERR_ARGUMENTS
#define CNCL_OP(code, var)                                                                         \
    ccl_sim_op_t var;                                                                              \
    if (!cncl_op(code, &var))                                                                      \
    return CNCL_RET_ERR_ARGUMENTS

/* ACCEL_SIM_BREAK=CNCL-CLIQUE: a clique id is good only in the process
 * that made it (the hash holds its process id), so one sent from rank 0 is
 * refused elsewhere, and rank 0 waits 2 s for ranks that never come. */
static uint64_t cncl_hash(const char *data)
{
    uint64_t hash = 14695981039346656037ULL;
    for (size_t i = 0; i < 128; i++)
        hash = (hash ^ (unsigned char)data[i]) * 1099511628211ULL;
    if (sim_rule_broken("CNCL-CLIQUE"))
        hash ^= (uint64_t)getpid();
    return hash;
}

SIM_EXPORT cnclResult_t cnclGetLibVersion(int *major, int *minor, int *patch)
{
    CCL_SIM_ENTER("cnclGetLibVersion");
    if (major == NULL || minor == NULL || patch == NULL)
        return CNCL_RET_ERR_ARGUMENTS;
    *major = 1;
    *minor = 25;
    *patch = 0;
    return CNCL_RET_SUCCESS;
}

SIM_EXPORT const char *cnclGetErrorStr(cnclResult_t result)
{
    const char *last = ccl_sim_last_error();
    if (result == CNCL_RET_SUCCESS)
        return "CNCL_RET_SUCCESS";
    return last[0] != '\0' ? last : "simulated CNCL failure";
}

SIM_EXPORT cnclResult_t cnclGetCliqueId(cnclCliqueId_t clique_id)
{
    ccl_sim_status_t status;
    CCL_SIM_ENTER("cnclGetCliqueId");
    if (clique_id == NULL)
        return CNCL_RET_ERR_ARGUMENTS;
    status = ccl_sim_unique_id(clique_id->data, sizeof clique_id->data);
    clique_id->hash = cncl_hash(clique_id->data);
    return cncl_result(status);
}

SIM_EXPORT cnclResult_t cnclInitComms(cnclComm_t *comms, int num_comm, const int *dev_list,
                                      const int *rank_list, int nrank,
                                      const cnclCliqueId_t clique_id)
{
    ccl_sim_comm_t *made = NULL;
    int device = -1;
    cnclResult_t result;
    CCL_SIM_ENTER("cnclInitComms");
    if (comms == NULL || dev_list == NULL || rank_list == NULL || num_comm < 1)
        return CNCL_RET_ERR_ARGUMENTS;
    /* CNCL-ONE (tests/sim/README.md; torch_mlu process_group_cncl.cpp:60-69,
     * cnclInitComms(&comm, 1, &device, &rank, n, clique_id)): one
     * communicator per call with a clique id. Several devices per process
     * (a NULL clique id) is not simulated. */
    if (num_comm != 1 || clique_id == NULL)
        return CNCL_RET_ERR_UNSUPPORTED;
    if (clique_id->hash != cncl_hash(clique_id->data))
        return CNCL_RET_ERR_ARGUMENTS;
    /* CNCL-DEV (torch_mlu process_group_cncl.cpp, which sets the device
     * before the call): the communicator's device must be the thread's CNRT
     * device; the code is the sim's choice. */
    if (cnrtGetDevice(&device) != 0 || device != dev_list[0])
        return CNCL_RET_ERR_MLU_RUNTIME;
    /* ACCEL_SIM_BREAK=CNCL-DEV: the communicator is the next device's. */
    if (sim_rule_broken("CNCL-DEV")) {
        unsigned int count = 1;
        if (cnrtGetDeviceCount(&count) == 0 && count > 1)
            device = (device + 1) % (int)count;
    }
    if (sim_rule_broken("CNCL-CLIQUE"))
        result = cncl_result(ccl_sim_comm_init_within(clique_id->data, nrank, rank_list[0], device,
                                                      2.0, "ACCEL_SIM_BREAK=CNCL-CLIQUE", &made));
    else
        result =
            cncl_result(ccl_sim_comm_init(clique_id->data, nrank, rank_list[0], device, &made));
    if (result == CNCL_RET_SUCCESS)
        comms[0] = (cnclComm_t)made;
    return result;
}

SIM_EXPORT cnclResult_t cnclDestroyComms(cnclComm_t *comms, int num_comm)
{
    cnclResult_t result = CNCL_RET_SUCCESS;
    CCL_SIM_ENTER("cnclDestroyComms");
    if (comms == NULL || num_comm < 1)
        return CNCL_RET_ERR_ARGUMENTS;
    for (int i = 0; i < num_comm; i++) {
        cnclResult_t one = comms[i] != NULL ? cncl_result(ccl_sim_comm_free((void *)comms[i]))
                                            : CNCL_RET_ERR_ARGUMENTS;
        if (result == CNCL_RET_SUCCESS)
            result = one;
    }
    return result;
}

SIM_EXPORT cnclResult_t cnclFreeComm(cnclComm_t comm)
{
    CCL_SIM_ENTER("cnclFreeComm");
    if (comm == NULL)
        return CNCL_RET_ERR_ARGUMENTS;
    return cncl_result(ccl_sim_comm_free((void *)comm));
}

SIM_EXPORT cnclResult_t cnclGetCommCount(int *count, const cnclComm_t comm)
{
    CCL_SIM_ENTER("cnclGetCommCount");
    if (count == NULL || comm == NULL)
        return CNCL_RET_ERR_ARGUMENTS;
    *count = ccl_sim_comm_size((void *)comm);
    return CNCL_RET_SUCCESS;
}

SIM_EXPORT cnclResult_t cnclGetCommRank(int *rank, const cnclComm_t comm)
{
    CCL_SIM_ENTER("cnclGetCommRank");
    if (rank == NULL || comm == NULL)
        return CNCL_RET_ERR_ARGUMENTS;
    *rank = ccl_sim_comm_rank((void *)comm);
    return CNCL_RET_SUCCESS;
}

SIM_EXPORT cnclResult_t cnclGetCommDevice(int *device, const cnclComm_t comm)
{
    CCL_SIM_ENTER("cnclGetCommDevice");
    if (device == NULL || comm == NULL)
        return CNCL_RET_ERR_ARGUMENTS;
    *device = ccl_sim_comm_device((void *)comm);
    return CNCL_RET_SUCCESS;
}

SIM_EXPORT cnclResult_t cnclGetCommAsyncError(const cnclComm_t comm)
{
    CCL_SIM_ENTER("cnclGetCommAsyncError");
    return comm != NULL ? CNCL_RET_SUCCESS : CNCL_RET_ERR_ARGUMENTS;
}

SIM_EXPORT cnclResult_t cnclAllReduce(const void *send, void *recv, size_t count, uint32_t datatype,
                                      uint32_t op, cnclComm_t comm, cnrtQueue_t queue)
{
    CCL_SIM_ENTER("cnclAllReduce");
    CNCL_TYPE(datatype, type);
    CNCL_OP(op, sim_op);
    return cncl_result(
        ccl_sim_all_reduce((void *)comm, send, recv, count, type, sim_op, cncl_sync, queue));
}

SIM_EXPORT cnclResult_t cnclBroadcast(const void *send, void *recv, size_t count, uint32_t datatype,
                                      int root, cnclComm_t comm, cnrtQueue_t queue)
{
    CCL_SIM_ENTER("cnclBroadcast");
    CNCL_TYPE(datatype, type);
    return cncl_result(
        ccl_sim_broadcast((void *)comm, send, recv, count, type, root, cncl_sync, queue));
}

SIM_EXPORT cnclResult_t cnclBcast(void *buf, size_t count, uint32_t datatype, int root,
                                  cnclComm_t comm, cnrtQueue_t queue)
{
    CCL_SIM_ENTER("cnclBcast");
    CNCL_TYPE(datatype, type);
    return cncl_result(
        ccl_sim_broadcast((void *)comm, buf, buf, count, type, root, cncl_sync, queue));
}

SIM_EXPORT cnclResult_t cnclAllGather(const void *send, void *recv, size_t count, uint32_t datatype,
                                      cnclComm_t comm, cnrtQueue_t queue)
{
    CCL_SIM_ENTER("cnclAllGather");
    CNCL_TYPE(datatype, type);
    return cncl_result(ccl_sim_all_gather((void *)comm, send, recv, count, type, cncl_sync, queue));
}

SIM_EXPORT cnclResult_t cnclReduceScatter(const void *send, void *recv, size_t count,
                                          uint32_t datatype, uint32_t op, cnclComm_t comm,
                                          cnrtQueue_t queue)
{
    CCL_SIM_ENTER("cnclReduceScatter");
    CNCL_TYPE(datatype, type);
    CNCL_OP(op, sim_op);
    return cncl_result(
        ccl_sim_reduce_scatter((void *)comm, send, recv, count, type, sim_op, cncl_sync, queue));
}

SIM_EXPORT cnclResult_t cnclReduce(const void *send, void *recv, size_t count, uint32_t datatype,
                                   uint32_t op, int root, cnclComm_t comm, cnrtQueue_t queue)
{
    CCL_SIM_ENTER("cnclReduce");
    CNCL_TYPE(datatype, type);
    CNCL_OP(op, sim_op);
    return cncl_result(
        ccl_sim_reduce((void *)comm, send, recv, count, type, sim_op, root, cncl_sync, queue));
}

SIM_EXPORT cnclResult_t cnclSend(void *buf, const size_t count, uint32_t datatype, const int peer,
                                 const cnclComm_t comm, cnrtQueue_t queue)
{
    CCL_SIM_ENTER("cnclSend");
    CNCL_TYPE(datatype, type);
    return cncl_result(ccl_sim_send((void *)comm, buf, count, type, peer, cncl_sync, queue));
}

SIM_EXPORT cnclResult_t cnclRecv(void *buf, const size_t count, uint32_t datatype, const int peer,
                                 const cnclComm_t comm, cnrtQueue_t queue)
{
    CCL_SIM_ENTER("cnclRecv");
    CNCL_TYPE(datatype, type);
    return cncl_result(ccl_sim_recv((void *)comm, buf, count, type, peer, cncl_sync, queue));
}

SIM_EXPORT cnclResult_t cnclGroupStart(void)
{
    CCL_SIM_ENTER("cnclGroupStart");
    return cncl_result(ccl_sim_group_start());
}

SIM_EXPORT cnclResult_t cnclGroupEnd(void)
{
    /* An injected failure ends the group too (its calls are dropped). */
    int injected = sim_fault_hit("cnclGroupEnd");
    ccl_sim_clear_error();
    if (injected != 0) {
        ccl_sim_group_abort();
        return injected;
    }
    /* ACCEL_SIM_BREAK=CNCL-GROUPS: the group calls are there but drop the
     * group's calls, reporting success. */
    if (sim_rule_broken("CNCL-GROUPS")) {
        ccl_sim_group_abort();
        return CNCL_RET_SUCCESS;
    }
    return cncl_result(ccl_sim_group_end());
}
