/* vendor_engines.h: what the vendor collectives engines (src/comm/nccl,
 * hccl, habana_hccl, cncl, oneccl, tccl) share: their exported tables, for
 * src/comm/engines.c, and the two steps every one of them takes the same
 * way (making the communicator's device current, naming a missing library).
 * Header only: each engine stays one .c file. Pure helpers; any thread. */
#ifndef ACCEL_COMM_VENDOR_ENGINES_H
#define ACCEL_COMM_VENDOR_ENGINES_H

#include <stdio.h>

#include "accel/accel_backend_utils.h"
#include "comm/engine.h"

/* The engines (src/comm/<folder>/engine.c); constant, process lifetime. */
extern const accel_comm_engine_t accel_comm_engine_nccl;
extern const accel_comm_engine_t accel_comm_engine_hccl;
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

/* The sentence for a library that did not load: what it is, every place
 * tried, and the variable that names it. */
static inline void accel_comm_vendor_missing(char *out, size_t cap, const char *what,
                                             const char *variable, const char *tried)
{
    snprintf(out, cap, "%s could not be loaded (tried %s); set %s to its path", what, tried,
             variable);
}

#endif /* ACCEL_COMM_VENDOR_ENGINES_H */
