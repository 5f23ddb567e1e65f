/* hcomm_sim.c: the simulated libhcomm.so, which in current CANN exports
 * HcclGroupStart and HcclGroupEnd (torch_npu resolves them there:
 * torch_npu/csrc/distributed/HcclCompile.h). It sits next to the simulated
 * libhccl.so (same folder) and links it: the group state, the MPI core and
 * fault injection all stay in libhccl's sim, which exports the two calls
 * under sim-only names (hccl_sim.h). Threads: as ccl_sim.h. */
#include "hccl_sim.h"

SIM_EXPORT HcclResult HcclGroupStart(void)
{
    return hccl_sim_group_start();
}

SIM_EXPORT HcclResult HcclGroupEnd(void)
{
    return hccl_sim_group_end();
}
