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
    if (out == NULL || out->struct_size == 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "engine info struct is NULL or its struct_size is not set");
    size_t struct_size = out->struct_size;
    if (struct_size < sizeof *out)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "engine info struct_size %zu is smaller than this library's %zu",
                           struct_size, sizeof *out);
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
