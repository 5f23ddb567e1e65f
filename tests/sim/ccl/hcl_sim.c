/* hcl_sim.c: the simulated Habana libhcl.so (tests/sim/README.md): Habana
 * HCCL's real exported names and signatures (HabanaAI/HCL hccl.h as
 * vendor-apis.md §4.4 records it: NCCL's API under "hccl" names, min and
 * max swapped), mapped onto the MPI collectives core (ccl_sim.h). It links
 * the simulated libSynapse.so: every operation first synchronizes its
 * synStreamHandle there (synStreamSynchronize). Buffers are device
 * addresses, host memory in the sim. Faults: every exported call goes
 * through sim_fault. Rendezvous: HCL's rules R1-R4 below (the README's
 * table "Habana HCCL (hcl_sim.c)"). Threads: as ccl_sim.h; the rendezvous
 * state is per process, in atomics. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccl_sim.h"
#include "hcl_sim.h"
#include "sim_break.h"
#include "sim_fault.h"

/* From the simulated libSynapse.so this library links. */
extern int synStreamSynchronize(void *stream);

/* Synapse has no default stream object: a NULL stream is refused. */
static int hcl_sync(void *stream)
{
    return stream != NULL ? synStreamSynchronize(stream) : -1;
}

static hcclResult_t hcl_result(ccl_sim_status_t status)
{
    switch (status) {
    case CCL_SIM_OK: return hcclSuccess;
    case CCL_SIM_INVALID: return hcclInvalidArgument;
    case CCL_SIM_USAGE: return hcclInvalidUsage;
    case CCL_SIM_STREAM: return hcclUnhandledSynapseError;
    default: return hcclInternalError;
    }
}

/* hcclDataType_t: NCCL's numbering, Int8 0 .. Bfloat16 9. */
static int hcl_type(uint32_t code, ccl_sim_type_t *out)
{
    static const ccl_sim_type_t map[] = {CCL_SIM_I8,  CCL_SIM_U8,  CCL_SIM_I32, CCL_SIM_U32,
                                         CCL_SIM_I64, CCL_SIM_U64, CCL_SIM_F16, CCL_SIM_F32,
                                         CCL_SIM_F64, CCL_SIM_BF16};
    if (code >= sizeof map / sizeof map[0])
        return 0;
    *out = map[code];
    return 1;
}

/* hcclRedOp_t: Sum 0, Prod 1, Min 2, Max 3, Avg 4
 * (ACCEL_SIM_BREAK=HCL-OPS: NCCL's Max 2, Min 3). */
static int hcl_op(uint32_t code, ccl_sim_op_t *out)
{
    static const ccl_sim_op_t map[] = {CCL_SIM_SUM, CCL_SIM_PROD, CCL_SIM_MIN, CCL_SIM_MAX,
                                       CCL_SIM_AVG};
    if (code >= sizeof map / sizeof map[0])
        return 0;
    *out = map[code];
    if ((code == 2 || code == 3) && sim_rule_broken("HCL-OPS"))
        *out = code == 2 ? CCL_SIM_MAX : CCL_SIM_MIN;
    return 1;
}

#define HCL_TYPE(code, var)                                                                        \
    ccl_sim_type_t var;                                                                            \
    if (!hcl_type(code, &var))                                                                     \
    return hcclInvalidArgument
#define HCL_OP(code, var)                                                                          \
    ccl_sim_op_t var;                                                                              \
    if (!hcl_op(code, &var))                                                                       \
    return hcclInvalidArgument

SIM_EXPORT hcclResult_t hcclGetVersion(int *version)
{
    CCL_SIM_ENTER("hcclGetVersion");
    if (version == NULL)
        return hcclInvalidArgument;
    *version = 2604; /* X*1000 + Y*100 + Z: 2.6.4 */
    return hcclSuccess;
}

SIM_EXPORT const char *hcclGetErrorString(hcclResult_t result)
{
    switch (result) {
    case hcclSuccess: return "hcclSuccess";
    case hcclUnhandledSynapseError: return "hcclUnhandledSynapseError";
    case hcclInternalError: return "hcclInternalError";
    case hcclInvalidArgument: return "hcclInvalidArgument";
    case hcclInvalidUsage: return "hcclInvalidUsage";
    default: return "simulated HCCL failure";
    }
}

SIM_EXPORT const char *hcclGetLastErrorMessage(void)
{
    const char *last = ccl_sim_last_error();
    return last[0] != '\0' ? last : NULL;
}

/* ---------------------------------------------------------------- rendezvous
 *
 * HabanaAI/HCL's rules for HCCL_COMM_ID=<IP:PORT>, each checked here:
 * R1 hcl/src/hccl/hccl_context.cpp, hccl_context::get_unique_id: the
 *    process's first hcclGetUniqueId with HCCL_COMM_ID set, before any
 *    communicator, starts the coordinator server at that address
 *    (IHcclCoordinator::create(true)); every later call starts one on an
 *    ephemeral port of this host (a fresh id here).
 * R2 hcl/src/coordinator/coordinator_defs.cpp, IHcclCoordinator::create:
 *    that address must be an IP of this host (VERIFY ip_is_local), and the
 *    server binds its port, so a second process of the job calling
 *    hcclGetUniqueId on this host collides; on another host R2's first
 *    half refuses it.
 * R3 hcl/src/hccl_wrapper.cpp, hcclCommInitRank_Wrapper (use_global_comm_id):
 *    the process's first hcclCommInitRank with HCCL_COMM_ID set ignores the
 *    id it is given (the zeroed id of hccl_demo.cpp's non-root ranks
 *    included) and joins the coordinator at HCCL_COMM_ID.
 * R4 hccl_context::get_internal_id: every other init needs a whole id
 *    (a zeroed one: "Invalid unique_id length=0").
 * The sim's port is a file made with O_EXCL in the temporary folder, named
 * by the MPI job (PMIX_NAMESPACE, else the parent pid) and the address,
 * removed at exit: two test jobs on one machine are two clusters, as they
 * would be on separate hosts. Harsher than HCL where its code is silent: the
 * address must be numeric IPv4:port (hccl_demo's README: "<IP:PORT>"), and a
 * first init whose job started no coordinator at HCCL_COMM_ID fails (HCL's
 * client would retry until its timeout). */

static atomic_bool hcl_coordinator_launched; /* HCL's first_coordinator_launched_ */
static atomic_bool hcl_comm_made;            /* HCL's first_comm_init_ */
static char hcl_port_file[512];              /* this process's coordinator, or "" */

static void hcl_port_release(void)
{
    if (hcl_port_file[0] != '\0')
        unlink(hcl_port_file);
}

/* The file standing for the bound port of `address` in this job. */
static void hcl_port_name(const char *address, char *out, size_t cap)
{
    const char *job = getenv("PMIX_NAMESPACE"), *dir = getenv("TMPDIR");
    char parent[32];
    if (job == NULL || job[0] == '\0') {
        snprintf(parent, sizeof parent, "ppid%ld", (long)getppid());
        job = parent;
    }
    snprintf(out, cap, "%s/accel-hcl-sim-%s-%s", dir != NULL && dir[0] != '\0' ? dir : "/tmp", job,
             address);
}

/* R2's first half: `ip` is an IPv4 address of one of this host's interfaces. */
static bool hcl_ip_is_local(const char *ip)
{
    struct in_addr want;
    struct ifaddrs *all = NULL;
    bool found = false;
    if (inet_pton(AF_INET, ip, &want) != 1 || getifaddrs(&all) != 0)
        return false;
    for (const struct ifaddrs *at = all; at != NULL && !found; at = at->ifa_next)
        found = at->ifa_addr != NULL && at->ifa_addr->sa_family == AF_INET &&
                ((const struct sockaddr_in *)(const void *)at->ifa_addr)->sin_addr.s_addr ==
                    want.s_addr;
    freeifaddrs(all);
    return found;
}

/* HCCL_COMM_ID as <IPv4>:<port>, or NULL (unset); `ip` gets the IP. */
static hcclResult_t hcl_comm_id(const char **address, char *ip, size_t cap)
{
    const char *colon;
    struct in_addr parsed;
    *address = getenv("HCCL_COMM_ID");
    if (*address == NULL || (*address)[0] == '\0') {
        *address = NULL;
        return hcclSuccess;
    }
    colon = strrchr(*address, ':');
    if (colon == NULL || (size_t)(colon - *address) >= cap || atoi(colon + 1) <= 0)
        return hcl_result(
            ccl_sim_refuse(CCL_SIM_INVALID, "hcl sim: HCCL_COMM_ID=%s is not <IP:PORT>", *address));
    snprintf(ip, cap, "%.*s", (int)(colon - *address), *address);
    if (inet_pton(AF_INET, ip, &parsed) != 1)
        return hcl_result(ccl_sim_refuse(CCL_SIM_INVALID,
                                         "hcl sim: HCCL_COMM_ID=%s does not start with a numeric "
                                         "IPv4 address",
                                         *address));
    return hcclSuccess;
}

/* R1 and R2: start the coordinator at `address` on this process. */
static hcclResult_t hcl_coordinator_start(const char *address, const char *ip)
{
    char name[sizeof hcl_port_file];
    int fd;
    if (!hcl_ip_is_local(ip))
        return hcl_result(ccl_sim_refuse(CCL_SIM_INTERNAL,
                                         "hcl sim: hcclGetUniqueId with HCCL_COMM_ID=%s starts the "
                                         "coordinator here, but %s is not an address of this host "
                                         "(HCL: provided ip is not on local host)",
                                         address, ip));
    hcl_port_name(address, name, sizeof name);
    fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd < 0)
        return hcl_result(ccl_sim_refuse(
            CCL_SIM_INTERNAL,
            "hcl sim: hcclGetUniqueId with HCCL_COMM_ID=%s starts the coordinator here, but %s "
            "(another process of this job already runs it: only the root may call "
            "hcclGetUniqueId; the other ranks pass a zeroed id)",
            address, errno == EEXIST ? "its port is in use" : strerror(errno)));
    close(fd);
    snprintf(hcl_port_file, sizeof hcl_port_file, "%s", name);
    atexit(hcl_port_release);
    return hcclSuccess;
}

SIM_EXPORT hcclResult_t hcclGetUniqueId(hcclUniqueId *uniqueId)
{
    const char *address;
    char ip[64];
    hcclResult_t result;
    CCL_SIM_ENTER("hcclGetUniqueId");
    if (uniqueId == NULL)
        return hcclInvalidArgument;
    result = hcl_comm_id(&address, ip, sizeof ip);
    if (result != hcclSuccess)
        return result;
    /* ACCEL_SIM_BREAK=R1: every call with HCCL_COMM_ID set gives that
     * address's id, after a communicator too. */
    if (address != NULL && atomic_load(&hcl_coordinator_launched) && sim_rule_broken("R1"))
        result = hcl_result(
            ccl_sim_unique_id_at(address, uniqueId->internal, sizeof uniqueId->internal));
    else if (address == NULL || atomic_load(&hcl_coordinator_launched))
        result = hcl_result(ccl_sim_unique_id(uniqueId->internal, sizeof uniqueId->internal));
    else if ((result = hcl_coordinator_start(address, ip)) == hcclSuccess) {
        atomic_store(&hcl_coordinator_launched, true);
        result = hcl_result(
            ccl_sim_unique_id_at(address, uniqueId->internal, sizeof uniqueId->internal));
    }
    if (result == hcclSuccess)
        uniqueId->length = CCL_SIM_ID_BYTES;
    return result;
}

/* R3's join: the id HCCL_COMM_ID names, once some process of the job runs
 * its coordinator (checked after the core's join, which every member
 * reaches only after the root's hcclGetUniqueId, so all see one answer). */
static hcclResult_t hcl_init_at(const char *address, int nranks, int rank, ccl_sim_comm_t **made)
{
    uint8_t id[CCL_SIM_ID_BYTES];
    char name[sizeof hcl_port_file];
    hcclResult_t result = hcl_result(ccl_sim_unique_id_at(address, id, sizeof id));
    if (result == hcclSuccess)
        result = hcl_result(ccl_sim_comm_init(id, nranks, rank, 0, made));
    if (result != hcclSuccess)
        return result;
    hcl_port_name(address, name, sizeof name);
    if (access(name, F_OK) == 0)
        return hcclSuccess;
    ccl_sim_comm_free(*made);
    *made = NULL;
    return hcl_result(ccl_sim_refuse(CCL_SIM_USAGE,
                                     "hcl sim: no process of this job runs the coordinator at "
                                     "HCCL_COMM_ID=%s: the root calls hcclGetUniqueId first",
                                     address));
}

SIM_EXPORT hcclResult_t hcclCommInitRank(hcclComm_t *comm, int nranks, hcclUniqueId commId,
                                         int rank)
{
    ccl_sim_comm_t *made = NULL;
    const char *address;
    char ip[64];
    hcclResult_t result;
    CCL_SIM_ENTER("hcclCommInitRank");
    if (comm == NULL)
        return hcclInvalidArgument;
    result = hcl_comm_id(&address, ip, sizeof ip);
    if (result != hcclSuccess)
        return result;
    if (address != NULL && !atomic_load(&hcl_comm_made)) /* R3 */
        result = hcl_init_at(address, nranks, rank, &made);
    else if (commId.length != CCL_SIM_ID_BYTES && !sim_rule_broken("R4")) /* R4 */
        return hcl_result(ccl_sim_refuse(CCL_SIM_INVALID,
                                         "hcl sim: Invalid unique_id length=%zu (HCL: make sure "
                                         "that HCCL_COMM_ID env var is set; only a process's "
                                         "first communicator may pass a zeroed id)",
                                         commId.length));
    else
        result = hcl_result(ccl_sim_comm_init(commId.internal, nranks, rank, 0, &made));
    if (result != hcclSuccess)
        return result;
    atomic_store(&hcl_comm_made, true);
    atomic_store(&hcl_coordinator_launched, true); /* as comm_init_rank does */
    *comm = made;
    return hcclSuccess;
}

SIM_EXPORT hcclResult_t hcclCommFinalize(hcclComm_t comm)
{
    CCL_SIM_ENTER("hcclCommFinalize");
    return comm != NULL ? hcclSuccess : hcclInvalidArgument; /* nothing is ever left queued */
}

SIM_EXPORT hcclResult_t hcclCommDestroy(hcclComm_t comm)
{
    CCL_SIM_ENTER("hcclCommDestroy");
    if (comm == NULL)
        return hcclInvalidArgument;
    return hcl_result(ccl_sim_comm_free(comm));
}

SIM_EXPORT hcclResult_t hcclCommCount(hcclComm_t comm, int *count)
{
    CCL_SIM_ENTER("hcclCommCount");
    if (comm == NULL || count == NULL)
        return hcclInvalidArgument;
    *count = ccl_sim_comm_size(comm);
    return hcclSuccess;
}

SIM_EXPORT hcclResult_t hcclCommUserRank(hcclComm_t comm, int *rank)
{
    CCL_SIM_ENTER("hcclCommUserRank");
    if (comm == NULL || rank == NULL)
        return hcclInvalidArgument;
    *rank = ccl_sim_comm_rank(comm);
    return hcclSuccess;
}

SIM_EXPORT hcclResult_t hcclCommGetAsyncError(hcclComm_t comm, hcclResult_t *asyncError)
{
    CCL_SIM_ENTER("hcclCommGetAsyncError");
    if (comm == NULL || asyncError == NULL)
        return hcclInvalidArgument;
    *asyncError = hcclSuccess;
    return hcclSuccess;
}

SIM_EXPORT hcclResult_t hcclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                                      uint32_t datatype, uint32_t reduceOp, hcclComm_t comm,
                                      void *stream_handle)
{
    CCL_SIM_ENTER("hcclAllReduce");
    HCL_TYPE(datatype, type);
    HCL_OP(reduceOp, op);
    return hcl_result(
        ccl_sim_all_reduce(comm, sendbuff, recvbuff, count, type, op, hcl_sync, stream_handle));
}

SIM_EXPORT hcclResult_t hcclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                                      uint32_t datatype, hcclComm_t comm, void *stream_handle)
{
    CCL_SIM_ENTER("hcclAllGather");
    HCL_TYPE(datatype, type);
    return hcl_result(
        ccl_sim_all_gather(comm, sendbuff, recvbuff, sendcount, type, hcl_sync, stream_handle));
}

SIM_EXPORT hcclResult_t hcclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                          uint32_t datatype, uint32_t reduceOp, hcclComm_t comm,
                                          void *stream_handle)
{
    CCL_SIM_ENTER("hcclReduceScatter");
    HCL_TYPE(datatype, type);
    HCL_OP(reduceOp, op);
    return hcl_result(ccl_sim_reduce_scatter(comm, sendbuff, recvbuff, recvcount, type, op,
                                             hcl_sync, stream_handle));
}

SIM_EXPORT hcclResult_t hcclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                                      uint32_t datatype, int root, hcclComm_t comm,
                                      void *stream_handle)
{
    CCL_SIM_ENTER("hcclBroadcast");
    HCL_TYPE(datatype, type);
    return hcl_result(
        ccl_sim_broadcast(comm, sendbuff, recvbuff, count, type, root, hcl_sync, stream_handle));
}

SIM_EXPORT hcclResult_t hcclReduce(const void *sendbuff, void *recvbuff, size_t count,
                                   uint32_t datatype, uint32_t reduceOp, int root, hcclComm_t comm,
                                   void *stream_handle)
{
    CCL_SIM_ENTER("hcclReduce");
    HCL_TYPE(datatype, type);
    HCL_OP(reduceOp, op);
    return hcl_result(
        ccl_sim_reduce(comm, sendbuff, recvbuff, count, type, op, root, hcl_sync, stream_handle));
}

SIM_EXPORT hcclResult_t hcclSend(const void *sendbuff, size_t count, uint32_t datatype, int peer,
                                 hcclComm_t comm, void *stream)
{
    CCL_SIM_ENTER("hcclSend");
    HCL_TYPE(datatype, type);
    return hcl_result(ccl_sim_send(comm, sendbuff, count, type, peer, hcl_sync, stream));
}

SIM_EXPORT hcclResult_t hcclRecv(void *recvbuff, size_t count, uint32_t datatype, int peer,
                                 hcclComm_t comm, void *stream)
{
    CCL_SIM_ENTER("hcclRecv");
    HCL_TYPE(datatype, type);
    return hcl_result(ccl_sim_recv(comm, recvbuff, count, type, peer, hcl_sync, stream));
}

SIM_EXPORT hcclResult_t hcclBarrier(hcclComm_t comm, void *stream_handle)
{
    CCL_SIM_ENTER("hcclBarrier");
    return hcl_result(ccl_sim_barrier(comm, hcl_sync, stream_handle));
}

SIM_EXPORT hcclResult_t hcclGroupStart(void)
{
    CCL_SIM_ENTER("hcclGroupStart");
    return hcl_result(ccl_sim_group_start());
}

SIM_EXPORT hcclResult_t hcclGroupEnd(void)
{
    /* An injected failure ends the group too (its calls are dropped). */
    int injected = sim_fault_hit("hcclGroupEnd");
    ccl_sim_clear_error();
    if (injected != 0) {
        ccl_sim_group_abort();
        return injected;
    }
    return hcl_result(ccl_sim_group_end());
}
