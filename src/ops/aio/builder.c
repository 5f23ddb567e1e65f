/* builder.c: AsyncIOBuilder ("async_io"), listed by core on every backend
 * (file I/O is host work; device tensors go through bounce buffers). The
 * op table is process-wide and constant once its implementation string is
 * set from the engine selection (engine.c); safe from any thread. */
#include <pthread.h>
#include <stdio.h>

#include "ops/aio/aio.h"
#include "ops/ops.h"

static accel_aio_op_t aio_op = {
    .struct_size = sizeof(accel_aio_op_t),
    .implementation = "threads",
    .alignment = ACCEL_AIO_ALIGNMENT,
    .handle_create = accel_aio_handle_create,
    .handle_destroy = accel_aio_handle_destroy,
    .pread = accel_aio_pread,
    .pwrite = accel_aio_pwrite,
    .wait = accel_aio_wait,
    .get_config = accel_aio_get_config,
    .pinned_alloc = accel_aio_pinned_alloc,
    .pinned_free = accel_aio_pinned_free,
};
static pthread_once_t aio_once = PTHREAD_ONCE_INIT;

static void aio_name(void)
{
    aio_op.implementation =
        accel_aio_engine_selected(NULL) == ACCEL_AIO_ENGINE_URING ? "io_uring" : "threads";
}

/* Always usable (pread/pwrite is the fallback); the reason buffer gets the
 * path handles use and why, which `accel report` prints. */
bool accel_aio_is_compatible(void *self, char *reason, size_t reason_cap)
{
    const char *note = "";
    (void)self;
    accel_aio_engine_selected(&note);
    if (reason != NULL && reason_cap > 0)
        snprintf(reason, reason_cap, "%s", note);
    return true;
}

accel_status_t accel_aio_load(void *self, const void **out)
{
    (void)self;
    pthread_once(&aio_once, aio_name);
    *out = &aio_op;
    return ACCEL_OK;
}
