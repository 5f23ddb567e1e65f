/* group.c: accel_comm_group_start/_end: per-thread nesting, the groups of
 * the engines the calls inside touch (an engine's group is started lazily,
 * at the first call on one of its communicators, and ended at the outermost
 * end), and the layer's work deferred to after that end. Thread-local state
 * only; the deferred list owns its entries until they have run. */
#include <stdlib.h>

#include "comm/comm.h"
#include "core/error.h"

#define COMM_GROUP_ENGINES 16

static _Thread_local int group_depth;
static _Thread_local const accel_comm_engine_t *group_engines[COMM_GROUP_ENGINES];
static _Thread_local size_t group_engine_count;

typedef struct comm_deferred {
    accel_comm_finish_fn finish;
    void *ctx;
    struct comm_deferred *next;
} comm_deferred_t;
static _Thread_local comm_deferred_t *deferred_head, *deferred_tail;

accel_status_t accel_comm_group_defer(accel_comm_finish_fn finish, void *ctx)
{
    comm_deferred_t *entry = malloc(sizeof *entry);
    if (entry == NULL) {
        finish(ctx, false);
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY,
                           "out of memory recording the work that follows a grouped call");
    }
    entry->finish = finish;
    entry->ctx = ctx;
    entry->next = NULL;
    if (deferred_tail != NULL)
        deferred_tail->next = entry;
    else
        deferred_head = entry;
    deferred_tail = entry;
    return ACCEL_OK;
}

bool accel_comm_group_open(void)
{
    return group_depth > 0;
}

accel_status_t accel_comm_group_start(void)
{
    if (group_depth == 1000)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "accel_comm_group_start nested 1000 deep without an end");
    group_depth++;
    accel_comm_forget_repeat();
    return ACCEL_OK;
}

accel_status_t accel_comm_group_join(const accel_comm_engine_t *engine)
{
    if (group_depth == 0 || engine->group_start == NULL)
        return ACCEL_OK;
    for (size_t i = 0; i < group_engine_count; i++)
        if (group_engines[i] == engine)
            return ACCEL_OK;
    if (group_engine_count == COMM_GROUP_ENGINES)
        return accel_error(ACCEL_ERROR_INTERNAL, "more than %d engines in one group",
                           COMM_GROUP_ENGINES);
    accel_status_t status = engine->group_start();
    if (status == ACCEL_OK)
        group_engines[group_engine_count++] = engine;
    return status;
}

accel_status_t accel_comm_group_end(void)
{
    accel_status_t status = ACCEL_OK;
    char first_error[512] = "";
    if (group_depth == 0)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "accel_comm_group_end without a matching accel_comm_group_start");
    if (--group_depth > 0)
        return ACCEL_OK;
    /* Every engine's group is ended even when one fails; the first failure
     * (its sentence is the thread's last error) is returned. */
    size_t engines = group_engine_count;
    group_engine_count = 0;
    for (size_t i = 0; i < engines; i++) {
        accel_status_t ended = group_engines[i]->group_end();
        if (ended != ACCEL_OK && status == ACCEL_OK) {
            status = ended;
            accel_error_copy(first_error, sizeof first_error);
        }
    }
    /* Then what the layer deferred to after the grouped calls: run when the
     * groups ended well, else only freed. */
    bool ok = status == ACCEL_OK;
    comm_deferred_t *entry = deferred_head;
    deferred_head = deferred_tail = NULL;
    while (entry != NULL) {
        comm_deferred_t *next = entry->next;
        accel_status_t finished = entry->finish(entry->ctx, ok);
        if (finished != ACCEL_OK && status == ACCEL_OK) {
            status = finished;
            accel_error_copy(first_error, sizeof first_error);
        }
        free(entry);
        entry = next;
    }
    if (status != ACCEL_OK)
        accel_error(status, "%s", first_error);
    return status;
}
