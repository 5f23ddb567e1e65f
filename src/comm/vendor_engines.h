/* vendor_engines.h: what the vendor collectives engines (src/comm/nccl,
 * hccl, habana_hccl, cncl, oneccl, tccl) share: their exported tables, for
 * src/comm/engines.c, and the steps every one of them takes the same way
 * (opening its library and reporting it, making the communicator's device
 * current).
 * Header only: each engine stays one .c file. Pure helpers; any thread. */
#ifndef ACCEL_COMM_VENDOR_ENGINES_H
#define ACCEL_COMM_VENDOR_ENGINES_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>

#include "accel/accel_backend_utils.h"
#include "comm/engine.h"

/* The engines (src/comm/<folder>/engine.c); process lifetime, constant but
 * for hccl's, whose load() clears its optional `reduce` slot once (under its
 * pthread_once, before any communicator exists) when libhccl lacks
 * HcclReduce. */
extern const accel_comm_engine_t accel_comm_engine_nccl;
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

/* A vendor CCL library as an engine's load() reports it: written once by
 * the engine's pthread_once routine, read-only afterwards. */
typedef struct accel_comm_vendor_lib {
    bool ok;
    char detail[640]; /* the file and version loaded, or why not */
} accel_comm_vendor_lib_t;

/* dlopen the engine's library (ACCEL_<NAME>_LIBRARY first, then
 * `candidates`) and resolve `symbols` into the engine's table. On failure
 * returns NULL with lib->detail saying why: for a library that did not load,
 * what it is (`what`), every place tried and the variable that names it; for
 * a missing symbol, which one and `too_old_hint`. */
static inline void *accel_comm_vendor_open(accel_comm_vendor_lib_t *lib, const char *engine,
                                           const char *what, const char *variable,
                                           const char *const *candidates,
                                           const accel_symbol_t *symbols, size_t count,
                                           const char *too_old_hint)
{
    char tried[512], missing[200], loaded_what[80];
    void *library = accel_backend_load_library(engine, candidates, tried, sizeof tried);
    if (library == NULL) {
        snprintf(lib->detail, sizeof lib->detail,
                 "%s could not be loaded (tried %s); set %s to its path", what, tried, variable);
        return NULL;
    }
    snprintf(loaded_what, sizeof loaded_what, "the %s that loaded", what);
    if (accel_symbol_table_resolve(library, symbols, count, engine, loaded_what, missing,
                                   sizeof missing) != ACCEL_OK) {
        snprintf(lib->detail, sizeof lib->detail, "%s (%s)", missing, too_old_hint);
        dlclose(library);
        return NULL;
    }
    return library;
}

/* The file a resolved `symbol` was loaded from, for the detail line. */
static inline const char *accel_comm_vendor_file(void *symbol, const char *fallback)
{
    Dl_info where;
    if (symbol == NULL || dladdr(symbol, &where) == 0 || where.dli_fname == NULL)
        return fallback;
    return where.dli_fname;
}

/* An engine's load(): the detail copied out, UNAVAILABLE naming the engine
 * unless the library loaded. */
static inline accel_status_t accel_comm_vendor_loaded(const accel_comm_vendor_lib_t *lib,
                                                      const char *engine, char *detail,
                                                      size_t detail_cap)
{
    if (detail != NULL && detail_cap > 0)
        snprintf(detail, detail_cap, "%s", lib->detail);
    return lib->ok ? ACCEL_OK
                   : accel_backend_error(ACCEL_ERROR_UNAVAILABLE, "%s: %s", engine, lib->detail);
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
