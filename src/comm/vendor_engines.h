/* vendor_engines.h: what the vendor collectives engines (src/comm/nccl,
 * hccl, habana_hccl, cncl, oneccl, tccl) share: their exported tables, for
 * src/comm/engines.c, and the steps every one of them takes the same way
 * (reporting its library, which accel_vendor_library_open loads, making the
 * communicator's device current).
 * Header only: each engine stays one .c file. Pure helpers; any thread. */
#ifndef ACCEL_COMM_VENDOR_ENGINES_H
#define ACCEL_COMM_VENDOR_ENGINES_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>

#include "accel/accel_backend_utils.h"
#include "comm/engine.h"

/* The engines (src/comm/<folder>/engine.c); process lifetime, constant but
 * for hccl's and nccl's, whose load() clears an optional slot once (as it
 * loads, before any communicator exists): hccl's `reduce` when libhccl lacks
 * HcclReduce, nccl's `split` when libnccl lacks ncclCommSplit. */
extern accel_comm_engine_t accel_comm_engine_nccl;
extern accel_comm_engine_t accel_comm_engine_hccl;
extern const accel_comm_engine_t accel_comm_engine_habana_hccl;
extern const accel_comm_engine_t accel_comm_engine_cncl;
extern const accel_comm_engine_t accel_comm_engine_oneccl;
extern const accel_comm_engine_t accel_comm_engine_tccl;

/* Make ctx's device current on the calling thread the way the vendor's CCL
 * expects, through the backend's native_stream slot (asked for the default
 * stream, whose handle is not needed). UNSUPPORTED, naming the engine, when
 * the backend has no such slot. */
static inline accel_status_t accel_comm_vendor_activate(const accel_comm_engine_ctx_t *ctx,
                                                        const char *engine)
{
    void *ignored = NULL;
    if (ctx == NULL || ctx->ops == NULL)
        return accel_backend_error(ACCEL_ERROR_INVALID_ARGUMENT,
                                   "%s: no backend given to initialise the communicator on",
                                   engine);
    if (!ACCEL_BACKEND_HAS(ctx->ops, native_stream))
        return accel_backend_error(ACCEL_ERROR_UNSUPPORTED,
                                   "%s: the %s backend has no native_stream slot, so %s cannot be "
                                   "given its device and streams",
                                   engine, ctx->ops->name, engine);
    return ctx->ops->native_stream(ctx->self, ctx->device, NULL, &ignored);
}

/* An engine's load(): its library opened once per process (the engine
 * describes it in a static accel_vendor_library_t, accel_backend_utils.h,
 * whose on_load writes the file and version into lib->text), that detail
 * copied out, UNAVAILABLE naming the engine and why unless it loaded. */
static inline accel_status_t accel_comm_vendor_loaded(accel_vendor_library_t *lib,
                                                      const char *engine, char *detail,
                                                      size_t detail_cap)
{
    bool ok = accel_vendor_library_open(lib, NULL, 0);
    if (detail != NULL && detail_cap > 0)
        snprintf(detail, detail_cap, "%s", lib->text);
    return ok ? ACCEL_OK
              : accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "%s: %s", engine, lib->text);
}

/* The file a resolved `symbol` was loaded from, for the detail line. */
static inline const char *accel_comm_vendor_file(void *symbol, const char *fallback)
{
    Dl_info where;
    if (symbol == NULL || dladdr(symbol, &where) == 0 || where.dli_fname == NULL)
        return fallback;
    return where.dli_fname;
}

/* Engines whose library may lack group calls (cncl, tccl: the calls are
 * unconfirmed). Such a library runs each call of a group as it comes, so a
 * send and its matching receive in one group, which accel_comm.h promises
 * cannot deadlock, could wait for each other forever: those engines refuse
 * point-to-point calls inside a group instead, with this sentence. Their
 * group_start/_end keep `*grouped` (a thread-local of the engine) true
 * while the calling thread's group is open. */
static inline accel_status_t accel_comm_vendor_p2p_check(bool grouped, bool has_group_calls,
                                                         const char *engine, const char *call,
                                                         const char *group_call)
{
    if (!grouped || has_group_calls)
        return ACCEL_OK;
    return accel_backend_error(ACCEL_ERROR_UNSUPPORTED,
                               "%s: %s inside a group needs the library's %s, which the loaded "
                               "library lacks, and without it the calls of a group run one by "
                               "one, so a send and its receive could wait for each other forever; "
                               "issue point-to-point calls outside groups, in an order whose sends "
                               "and receives match",
                               engine, call, group_call);
}

#endif /* ACCEL_COMM_VENDOR_ENGINES_H */
