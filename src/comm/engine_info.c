/* engine_info.c: accel_comm_engine_info, which engine serves a backend here
 * and whether its library loads, without making a communicator (what
 * `accel report` prints). Loading an engine's library is idempotent and
 * thread-safe (engine.h). */
#include <stdio.h>
#include <string.h>

#include "comm/comm.h"
#include "core/error.h"

accel_status_t accel_comm_engine_info(accel_t *acc, accel_comm_engine_info_t *out)
{
    const char *comm_backend, *name;
    const accel_comm_engine_t *engine;
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    status = accel_check_struct_size("accel_comm_engine_info_t", out != NULL,
                                     out != NULL ? out->struct_size : 0, sizeof *out);
    if (status != ACCEL_OK)
        return status;
    size_t struct_size = out->struct_size;
    memset(out, 0, sizeof *out);
    out->struct_size = struct_size;
    comm_backend = acc->ops->info->communication_backend;
    out->backend_name = comm_backend;
    name = accel_comm_engine_for(acc->ops->name, comm_backend);
    if (name == NULL && acc->ops->info->dlpack_device_type == kDLCPU)
        name = "mpi";
    if (name == NULL) {
        snprintf(out->detail, sizeof out->detail,
                 "no collectives engine serves the %s backend (communication backend %s)",
                 acc->ops->name, comm_backend != NULL ? comm_backend : "None");
        return ACCEL_OK;
    }
    engine = accel_comm_engine_find(name);
    if (engine == NULL || !accel_comm_engine_serves(engine, acc)) {
        snprintf(out->detail, sizeof out->detail, "no engine for %s in this build",
                 comm_backend != NULL ? comm_backend : name);
        return ACCEL_OK;
    }
    out->engine = engine->name;
    out->available = engine->load(out->detail, sizeof out->detail) == ACCEL_OK;
    return ACCEL_OK;
}
