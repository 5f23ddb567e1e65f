/* cnpx_sim.c: a simulated libcnpx.so (Cambricon's profiler ranges): counts
 * cnpxRangePush/cnpxRangePop through the shared fault injection, so a test
 * can see (accel_sim_calls) that ranges reach CNPX, and keeps each host
 * thread's depth so that a pop without a push is refused (-1). Written from
 * cnpx.h's documented behaviour: int results, negative on error. */
#include "sim_fault.h"

SIM_EXPORT int cnpxRangePush(const char *message);
SIM_EXPORT int cnpxRangePop(void);

static _Thread_local int sim_depth;

SIM_EXPORT int cnpxRangePush(const char *message)
{
    if (sim_fault_hit("cnpxRangePush") != 0 || message == 0)
        return -1;
    return sim_depth++;
}

SIM_EXPORT int cnpxRangePop(void)
{
    if (sim_fault_hit("cnpxRangePop") != 0 || sim_depth == 0)
        return -1;
    return --sim_depth;
}
