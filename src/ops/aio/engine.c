/* engine.c: the I/O engines behind async_io handles. The threads engine is
 * plain pread/pwrite on the worker thread, one block after the other; the
 * io_uring engine (engine_uring.c) keeps queue_depth blocks in flight. Which
 * one handles use is decided once per process: ACCEL_AIO_ENGINE
 * ("io_uring" or "threads") when set, else io_uring when a ring can be made
 * here (containers often forbid io_uring_setup), else threads.
 * An engine belongs to one worker thread; the selection is process-wide and
 * read-only once made. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "ops/aio/aio.h"

struct accel_aio_engine {
    accel_aio_engine_kind_t kind;
    accel_aio_config_t config;
    accel_aio_uring_t *ring; /* io_uring engine only */
};

/* Record the first failure only: later blocks of a failed request do not
 * hide what went wrong first. */
static void outcome_fail(accel_aio_outcome_t *outcome, int error, bool eof, uint64_t off)
{
    if (outcome->error == 0 && !outcome->eof) {
        outcome->error = error;
        outcome->eof = eof;
        outcome->failed_off = off;
    }
}

void accel_aio_block_sync(bool read, const accel_aio_block_t *block, accel_aio_outcome_t *outcome)
{
    size_t done = 0;
    while (done < block->len) {
        ssize_t n = read ? pread(block->fd, (char *)block->buf + done, block->len - done,
                                 (off_t)(block->off + done))
                         : pwrite(block->fd, (const char *)block->buf + done, block->len - done,
                                  (off_t)(block->off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            outcome_fail(outcome, errno, false, block->off + done);
            break;
        }
        if (n == 0) { /* a read at the end of the file; a write that writes nothing */
            outcome_fail(outcome, read ? 0 : ENOSPC, read, block->off + done);
            break;
        }
        done += (size_t)n;
    }
    /* Only whole blocks count: a block cut short reports none of its bytes
     * as moved, so nothing is reported written that was not. */
    if (done == block->len)
        outcome->bytes += done;
}

accel_aio_engine_t *accel_aio_engine_create(accel_aio_engine_kind_t kind,
                                            const accel_aio_config_t *config, char *reason,
                                            size_t reason_cap)
{
    accel_aio_engine_t *engine = calloc(1, sizeof *engine);
    if (engine == NULL) {
        snprintf(reason, reason_cap, "out of host memory for an I/O engine");
        return NULL;
    }
    engine->kind = kind;
    engine->config = *config;
    if (kind == ACCEL_AIO_ENGINE_URING) {
        engine->ring = accel_aio_uring_create(config->queue_depth, reason, reason_cap);
        if (engine->ring == NULL) {
            free(engine);
            return NULL;
        }
    }
    return engine;
}

void accel_aio_engine_destroy(accel_aio_engine_t *engine)
{
    if (engine == NULL)
        return;
    if (engine->ring != NULL)
        accel_aio_uring_destroy(engine->ring);
    free(engine);
}

void accel_aio_engine_run(accel_aio_engine_t *engine, bool read, const accel_aio_block_t *blocks,
                          size_t count, accel_aio_outcome_t *outcome)
{
    if (engine->kind == ACCEL_AIO_ENGINE_URING) {
        accel_aio_uring_run(engine->ring, &engine->config, read, blocks, count, outcome);
        return;
    }
    for (size_t i = 0; i < count; i++)
        accel_aio_block_sync(read, &blocks[i], outcome);
}

/* ---------------------------------------------------------------- selection */

static pthread_once_t select_once = PTHREAD_ONCE_INIT;
static accel_aio_engine_kind_t selected = ACCEL_AIO_ENGINE_THREADS;
static char select_note[320];

static void engine_select(void)
{
    char reason[256] = "";
    const char *forced = getenv("ACCEL_AIO_ENGINE");
    if (forced != NULL && strcmp(forced, "threads") == 0) {
        snprintf(select_note, sizeof select_note, "threads (ACCEL_AIO_ENGINE=threads)");
        return;
    }
    if (accel_aio_uring_usable(reason, sizeof reason)) {
        selected = ACCEL_AIO_ENGINE_URING;
        snprintf(select_note, sizeof select_note, "io_uring (liburing.so.2)%s",
                 forced != NULL && strcmp(forced, "io_uring") == 0 ? ", ACCEL_AIO_ENGINE=io_uring"
                                                                   : "");
        return;
    }
    snprintf(select_note, sizeof select_note, "threads (pread/pwrite): io_uring not usable: %s",
             reason);
    if (forced != NULL && forced[0] != '\0' && strcmp(forced, "io_uring") != 0)
        accel_log(ACCEL_LOG_WARN,
                  "ACCEL_AIO_ENGINE=%s is not \"io_uring\" or \"threads\"; "
                  "using %s",
                  forced, select_note);
    else if (forced != NULL && strcmp(forced, "io_uring") == 0)
        accel_log(ACCEL_LOG_WARN, "ACCEL_AIO_ENGINE=io_uring but %s", select_note);
}

accel_aio_engine_kind_t accel_aio_engine_selected(const char **note)
{
    pthread_once(&select_once, engine_select);
    if (note != NULL)
        *note = select_note;
    return selected;
}
