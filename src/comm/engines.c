/* engines.c: the collectives engines built into accel, one line each, and
 * which engine each communication backend name stands for. Read-only data;
 * any thread. */
#include <string.h>

#include "comm/comm.h"
#include "comm/vendor_engines.h"

extern const accel_comm_engine_t accel_comm_engine_mpi;

const accel_comm_engine_t *const accel_comm_engines[] = {
    &accel_comm_engine_mpi,         /* cpu, and any backend whose memory is host memory */
    &accel_comm_engine_nccl,        /* cuda */
    &accel_comm_engine_hccl,        /* npu (Ascend) */
    &accel_comm_engine_habana_hccl, /* hpu ("habana-hccl") */
    &accel_comm_engine_cncl,        /* mlu */
    &accel_comm_engine_tccl,        /* sdaa */
    &accel_comm_engine_oneccl,      /* xpu: finds the library, refuses communicators */
    NULL,
};

const accel_comm_engine_t *accel_comm_engine_find(const char *name)
{
    for (size_t i = 0; name != NULL && accel_comm_engines[i] != NULL; i++)
        if (strcmp(accel_comm_engines[i]->name, name) == 0)
            return accel_comm_engines[i];
    return NULL;
}

accel_status_t accel_comm_engine_unique_id(const accel_comm_engine_t *engine,
                                           const accel_comm_engine_ctx_t *ctx, void *out)
{
    if (engine->kind == ACCEL_COMM_ENGINE_DEVICE) {
        accel_status_t status = accel_comm_vendor_activate(ctx, engine->name);
        if (status != ACCEL_OK)
            return status;
    }
    return engine->unique_id(out);
}

/* DeepSpeed's name -> accel's engine, per backend ("*": any backend). */
static const struct {
    const char *comm_backend;
    const char *backend;
    const char *engine;
} comm_engine_map[] = {
    {"gloo", "cpu", "mpi"},   {"ccl", "cpu", "mpi"},          {"nccl", "*", "nccl"},
    {"hccl", "npu", "hccl"},  {"hccl", "hpu", "habana-hccl"}, {"cncl", "*", "cncl"},
    {"ccl", "xpu", "oneccl"}, {"xccl", "xpu", "oneccl"},      {"tccl", "*", "tccl"},
};

/* "xpu.external" -> "xpu": plugins name themselves after the backend. */
static bool comm_backend_matches(const char *pattern, const char *backend)
{
    size_t length = strcspn(backend, ".");
    return strcmp(pattern, "*") == 0 ||
           (strlen(pattern) == length && strncmp(pattern, backend, length) == 0);
}

const char *accel_comm_engine_for(const char *backend, const char *comm_backend)
{
    if (comm_backend == NULL || backend == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof comm_engine_map / sizeof comm_engine_map[0]; i++)
        if (strcmp(comm_engine_map[i].comm_backend, comm_backend) == 0 &&
            comm_backend_matches(comm_engine_map[i].backend, backend))
            return comm_engine_map[i].engine;
    return NULL;
}

bool accel_comm_engine_serves(const accel_comm_engine_t *engine, const accel_t *acc)
{
    for (size_t i = 0; engine->backends[i] != NULL; i++) {
        if (strcmp(engine->backends[i], "*") == 0) {
            if (acc->ops->info->dlpack_device_type == kDLCPU)
                return true;
        } else if (comm_backend_matches(engine->backends[i], acc->ops->name)) {
            return true;
        }
    }
    return false;
}
