/* engine_uring.c: the io_uring engine of async_io, through liburing.so.2
 * opened with dlopen at run time: libaccel neither links liburing nor needs
 * it installed. liburing.h is used at build time for the ring's layout and
 * its header-only helpers (filling an SQE, marking a CQE seen); the five
 * exported functions come from dlsym. Without liburing.h at build time
 * (ACCEL_HAVE_LIBURING_H unset) the engine is never usable and says so.
 * The library handle and symbols are process-wide, loaded once; a ring
 * belongs to one worker thread. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/aio/aio.h"

#ifdef ACCEL_HAVE_LIBURING_H

#include <dlfcn.h>
#include <liburing.h>

/* The exported liburing functions this engine calls (liburing 2.0 ABI). */
typedef struct uring_api {
    int (*queue_init)(unsigned entries, struct io_uring *ring, unsigned flags);
    void (*queue_exit)(struct io_uring *ring);
    struct io_uring_sqe *(*get_sqe)(struct io_uring *ring);
    int (*submit)(struct io_uring *ring);
    int (*wait_cqes)(struct io_uring *ring, struct io_uring_cqe **cqe, unsigned wait_nr,
                     struct __kernel_timespec *ts, sigset_t *sigmask);
} uring_api_t;

static pthread_once_t api_once = PTHREAD_ONCE_INIT;
static uring_api_t api;
static bool api_loaded;
static char api_reason[200];

static void api_load(void)
{
    /* ACCEL_AIO_LIBURING replaces the name (docs/env-vars.md). Never
     * closed: the symbols are used until the process ends. */
    const char *name = getenv("ACCEL_AIO_LIBURING");
    void *lib;
    if (name == NULL || name[0] == '\0')
        name = "liburing.so.2";
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(api_reason, sizeof api_reason, "%s cannot be loaded (%s); install liburing2", name,
                 dlerror());
        return;
    }
    *(void **)&api.queue_init = dlsym(lib, "io_uring_queue_init");
    *(void **)&api.queue_exit = dlsym(lib, "io_uring_queue_exit");
    *(void **)&api.get_sqe = dlsym(lib, "io_uring_get_sqe");
    *(void **)&api.submit = dlsym(lib, "io_uring_submit");
    *(void **)&api.wait_cqes = dlsym(lib, "io_uring_wait_cqes");
    if (api.queue_init == NULL || api.queue_exit == NULL || api.get_sqe == NULL ||
        api.submit == NULL || api.wait_cqes == NULL) {
        snprintf(api_reason, sizeof api_reason,
                 "liburing.so.2 lacks io_uring_queue_init/get_sqe/submit/wait_cqes");
        return;
    }
    api_loaded = true;
}

struct accel_aio_uring {
    struct io_uring ring;
    unsigned depth;
    bool broken; /* a submit or wait failed: finish with plain pread/pwrite */
};

accel_aio_uring_t *accel_aio_uring_create(unsigned depth, char *reason, size_t reason_cap)
{
    accel_aio_uring_t *ring;
    int rc;
    pthread_once(&api_once, api_load);
    if (!api_loaded) {
        snprintf(reason, reason_cap, "%s", api_reason);
        return NULL;
    }
    ring = calloc(1, sizeof *ring);
    if (ring == NULL) {
        snprintf(reason, reason_cap, "out of host memory for an io_uring ring");
        return NULL;
    }
    ring->depth = depth;
    rc = api.queue_init(depth, &ring->ring, 0);
    if (rc < 0) {
        snprintf(reason, reason_cap, "io_uring_queue_init(%u) failed: %s%s", depth, strerror(-rc),
                 rc == -EPERM || rc == -ENOSYS ? " (io_uring is disabled here, e.g. by a container "
                                                 "seccomp profile or kernel.io_uring_disabled)"
                                               : "");
        free(ring);
        return NULL;
    }
    return ring;
}

void accel_aio_uring_destroy(accel_aio_uring_t *ring)
{
    api.queue_exit(&ring->ring);
    free(ring);
}

bool accel_aio_uring_usable(char *reason, size_t reason_cap)
{
    accel_aio_uring_t *ring = accel_aio_uring_create(4, reason, reason_cap);
    if (ring == NULL)
        return false;
    accel_aio_uring_destroy(ring);
    return true;
}

/* One completion: whole, short (finished synchronously) or failed. */
static void uring_complete(bool read, const accel_aio_block_t *block, int res,
                           accel_aio_outcome_t *outcome)
{
    if (res == (int)block->len) {
        outcome->bytes += block->len;
    } else if (res == -EAGAIN || res == -EINTR || res >= 0) {
        /* short or interrupted: do the rest here, counting the block only
         * if all of it goes through */
        size_t done = res > 0 ? (size_t)res : 0;
        accel_aio_block_t rest = {block->fd, (char *)block->buf + done, block->len - done,
                                  block->off + done};
        accel_aio_outcome_t tail = {0};
        accel_aio_block_sync(read, &rest, &tail);
        if (tail.error == 0 && !tail.eof)
            outcome->bytes += block->len;
        else if (outcome->error == 0 && !outcome->eof)
            *outcome = (accel_aio_outcome_t){outcome->bytes, tail.error, tail.eof, tail.failed_off};
    } else if (outcome->error == 0 && !outcome->eof) {
        outcome->error = -res;
        outcome->failed_off = block->off;
    }
}

void accel_aio_uring_run(accel_aio_uring_t *ring, const accel_aio_config_t *config, bool read,
                         const accel_aio_block_t *blocks, size_t count,
                         accel_aio_outcome_t *outcome)
{
    size_t next = 0, inflight = 0;
    while (!ring->broken && (next < count || inflight > 0)) {
        size_t queued = 0, want;
        while (inflight < ring->depth && next < count) {
            struct io_uring_sqe *sqe = api.get_sqe(&ring->ring);
            if (sqe == NULL)
                break;
            io_uring_prep_rw(read ? IORING_OP_READ : IORING_OP_WRITE, sqe, blocks[next].fd,
                             blocks[next].buf, (unsigned)blocks[next].len, blocks[next].off);
            io_uring_sqe_set_data64(sqe, next);
            next++;
            inflight++;
            queued++;
            if (config->single_submit && api.submit(&ring->ring) < 0)
                ring->broken = true;
        }
        if (!config->single_submit && queued > 0 && api.submit(&ring->ring) < 0)
            ring->broken = true;
        /* overlap_events: refill after each completion; else drain the batch */
        want = config->overlap_events ? 1 : inflight;
        while (!ring->broken && want > 0) {
            struct io_uring_cqe *cqe = NULL;
            int rc = api.wait_cqes(&ring->ring, &cqe, 1, NULL, NULL);
            if (rc == -EINTR)
                continue;
            if (rc < 0 || cqe == NULL) {
                ring->broken = true;
                break;
            }
            size_t index = (size_t)io_uring_cqe_get_data64(cqe);
            int res = cqe->res;
            io_uring_cqe_seen(&ring->ring, cqe);
            inflight--;
            want--;
            if (index < count)
                uring_complete(read, &blocks[index], res, outcome);
        }
    }
    if (ring->broken) {
        /* The ring failed under us (it should not): the blocks it may still
         * hold are unknown, so report the request failed rather than guess. */
        if (outcome->error == 0 && !outcome->eof)
            outcome->error = EIO;
    }
}

#else /* !ACCEL_HAVE_LIBURING_H */

accel_aio_uring_t *accel_aio_uring_create(unsigned depth, char *reason, size_t reason_cap)
{
    (void)depth;
    snprintf(reason, reason_cap, "accel was built without liburing.h (install liburing-dev)");
    return NULL;
}

void accel_aio_uring_destroy(accel_aio_uring_t *ring)
{
    (void)ring;
}

bool accel_aio_uring_usable(char *reason, size_t reason_cap)
{
    return accel_aio_uring_create(0, reason, reason_cap) != NULL;
}

void accel_aio_uring_run(accel_aio_uring_t *ring, const accel_aio_config_t *config, bool read,
                         const accel_aio_block_t *blocks, size_t count,
                         accel_aio_outcome_t *outcome)
{
    (void)ring;
    (void)config;
    for (size_t i = 0; i < count; i++)
        accel_aio_block_sync(read, &blocks[i], outcome);
}

#endif
