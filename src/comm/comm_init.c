/* comm_init.c: making and freeing communicators: the options, the engine
 * and device choice, the bootstrap from the launcher's environment (MPI, or
 * the engine's unique-id rendezvous), the live-handle list and the getters.
 * Threads: the live list has its own mutex; a communicator's own fields are
 * read-only after creation. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "comm/comm.h"
#include "core/error.h"

/* ---------------------------------------------------------------- live handles */

static pthread_mutex_t comm_live_lock = PTHREAD_MUTEX_INITIALIZER;
static accel_comm_t *comm_live_head;

/* comm.h: bumped under comm_live_lock whenever a communicator leaves the
 * list. */
_Atomic uint64_t accel_comm_live_generation;
static _Thread_local struct {
    const accel_comm_t *comm;
    uint64_t generation;
} comm_live_seen;

accel_status_t accel_comm_check(const accel_comm_t *comm)
{
    bool live = false;
    if (comm == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "communicator handle is NULL");
    uint64_t generation = atomic_load_explicit(&accel_comm_live_generation, memory_order_acquire);
    if (comm_live_seen.comm == comm && comm_live_seen.generation == generation)
        return ACCEL_OK;
    pthread_mutex_lock(&comm_live_lock);
    for (const accel_comm_t *c = comm_live_head; c != NULL && !live; c = c->next_live)
        live = c == comm;
    pthread_mutex_unlock(&comm_live_lock);
    if (live) {
        comm_live_seen.comm = comm;
        comm_live_seen.generation = generation;
    }
    if (!live)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "communicator handle %p is not a live communicator (destroyed, or "
                           "never made by accel_comm_init)",
                           (const void *)comm);
    return ACCEL_OK;
}

accel_status_t accel_comm_wrap(accel_t *acc, const accel_comm_engine_t *engine, void *engine_comm,
                               int rank, int size, int device, double timeout_s, accel_comm_t **out)
{
    accel_comm_t *comm = calloc(1, sizeof *comm);
    if (comm == NULL) {
        engine->destroy(engine_comm);
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of memory for a communicator");
    }
    comm->acc = acc;
    comm->engine = engine;
    comm->engine_comm = engine_comm;
    comm->rank = rank;
    comm->size = size;
    comm->device = device;
    comm->timeout_s = timeout_s;
    pthread_mutex_lock(&comm_live_lock);
    comm->next_live = comm_live_head;
    comm_live_head = comm;
    pthread_mutex_unlock(&comm_live_lock);
    *out = comm;
    return ACCEL_OK;
}

/* Unlink `comm` from the live list; false when it was not there (a second
 * destroy racing the first). */
static bool comm_unlink(accel_comm_t *comm)
{
    bool found = false;
    pthread_mutex_lock(&comm_live_lock);
    for (accel_comm_t **link = &comm_live_head; *link != NULL; link = &(*link)->next_live) {
        if (*link == comm) {
            *link = comm->next_live;
            atomic_fetch_add_explicit(&accel_comm_live_generation, 1, memory_order_release);
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&comm_live_lock);
    return found;
}

accel_status_t accel_comm_destroy(accel_comm_t *comm)
{
    accel_status_t status = accel_comm_check(comm);
    if (status != ACCEL_OK)
        return status;
    if (accel_comm_group_open())
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "accel_comm_destroy inside a group: end the group first (its deferred "
                           "calls may use this communicator)");
    if (!comm_unlink(comm))
        return accel_comm_check(comm);
    accel_comm_lock(comm);
    status = comm->engine->destroy(comm->engine_comm);
    accel_comm_unlock(comm);
    free(comm);
    return status;
}

/* ---------------------------------------------------------------- getters */

#define COMM_GETTER(name, field)                                                                   \
    accel_status_t accel_comm_##name(const accel_comm_t *comm, int *out)                           \
    {                                                                                              \
        accel_status_t status = accel_comm_check(comm);                                            \
        if (status != ACCEL_OK)                                                                    \
            return status;                                                                         \
        if (out == NULL)                                                                           \
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");            \
        *out = comm->field;                                                                        \
        return ACCEL_OK;                                                                           \
    }
COMM_GETTER(rank, rank)
COMM_GETTER(size, size)
COMM_GETTER(device, device)

accel_status_t accel_comm_engine_name(const accel_comm_t *comm, const char **out)
{
    accel_status_t status = accel_comm_check(comm);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = comm->engine->name;
    return ACCEL_OK;
}

/* ---------------------------------------------------------------- options */

/* What the options resolve to before any rank talks to another. */
typedef struct comm_setup {
    const accel_comm_engine_t *engine;
    int device;
    double timeout_s;
} comm_setup_t;

/* A non-negative integer from the first of `names` that is set; -1 when none
 * is; INVALID_ARGUMENT when the one set is not such a number. */
static accel_status_t comm_env_int(const char *const *names, long *out, const char **which)
{
    *out = -1;
    *which = NULL;
    for (size_t i = 0; names[i] != NULL; i++) {
        const char *text = accel_env_get(names[i]);
        long value;
        if (text == NULL)
            continue;
        if (!accel_env_parse_int(text, &value) || value < 0 || value > 1 << 24)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s=%s is not a rank number (a non-negative integer)", names[i],
                               text);
        *out = value;
        *which = names[i];
        return ACCEL_OK;
    }
    return ACCEL_OK;
}

static const char *const comm_rank_vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", NULL};
static const char *const comm_size_vars[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                             NULL};
static const char *const comm_local_rank_vars[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                                   "MPI_LOCALRANKID", NULL};

/* Whether this process was started by mpirun / mpiexec (Open MPI's, or a
 * PMI launcher's such as MPICH's hydra). */
static bool comm_under_mpi(void)
{
    return accel_env_get("OMPI_COMM_WORLD_SIZE") != NULL || accel_env_get("PMI_SIZE") != NULL;
}

static accel_status_t comm_timeout(const accel_comm_options_t *options, double *out)
{
    const char *text;
    char *end;
    double value;
    if (options != NULL && options->timeout_s != 0) {
        if (!(options->timeout_s > 0))
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "timeout_s %g is not a positive number of seconds (0 takes "
                               "ACCEL_COMM_TIMEOUT, else 300; INFINITY: no timeout)",
                               options->timeout_s);
        *out = options->timeout_s;
        return ACCEL_OK;
    }
    text = accel_env_get("ACCEL_COMM_TIMEOUT");
    if (text == NULL) {
        *out = 300;
        return ACCEL_OK;
    }
    value = strtod(text, &end);
    if (end == text || *end != '\0' || !(value > 0))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "ACCEL_COMM_TIMEOUT=%s is not a positive number of seconds (or inf: "
                           "no timeout)",
                           text);
    *out = value;
    return ACCEL_OK;
}

static accel_status_t comm_pick_engine(accel_t *acc, const accel_comm_options_t *options,
                                       const accel_comm_engine_t **out)
{
    const char *name = options != NULL ? options->engine : NULL;
    const char *comm_backend = acc->ops->info->communication_backend;
    const accel_comm_engine_t *engine;
    char detail[320] = "";
    if (name == NULL || name[0] == '\0') {
        name = accel_comm_engine_for(acc->ops->name, comm_backend);
        if (name == NULL && acc->ops->info->dlpack_device_type == kDLCPU)
            name = "mpi"; /* host memory: MPI serves any such backend */
        if (name == NULL)
            return accel_error(ACCEL_ERROR_UNSUPPORTED,
                               "the %s backend has no communication backend (DeepSpeed says "
                               "None) and its memory is not host memory: no engine serves it",
                               acc->ops->name);
    }
    engine = accel_comm_engine_find(name);
    if (engine == NULL)
        return accel_error(ACCEL_ERROR_UNAVAILABLE,
                           "no engine for %s in this build (the %s backend's communication "
                           "backend is %s)",
                           name, acc->ops->name, comm_backend != NULL ? comm_backend : "None");
    if (!accel_comm_engine_serves(engine, acc))
        return accel_error(
            ACCEL_ERROR_INVALID_ARGUMENT, "the %s engine does not serve the %s backend%s",
            engine->name, acc->ops->name,
            engine->kind == ACCEL_COMM_ENGINE_HOST ? " (it works on host memory only)" : "");
    if (engine->load(detail, sizeof detail) != ACCEL_OK)
        return ACCEL_ERROR_UNAVAILABLE; /* load() set the sentence */
    *out = engine;
    return ACCEL_OK;
}

static accel_status_t comm_pick_device(accel_t *acc, const accel_comm_options_t *options, int *out)
{
    int device = options != NULL ? options->device : ACCEL_CURRENT_DEVICE;
    accel_status_t status = accel_check_has_devices(acc);
    if (status != ACCEL_OK)
        return status;
    if (options != NULL && options->use_local_rank) {
        long local_rank;
        const char *which;
        status = comm_env_int(comm_local_rank_vars, &local_rank, &which);
        if (status != ACCEL_OK)
            return status;
        device = local_rank < 0 ? 0 : (int)(local_rank % acc->device_count);
    }
    return accel_resolve_device(acc, device, out);
}

static accel_status_t comm_setup(accel_t *acc, const accel_comm_options_t *options,
                                 accel_comm_t **out, comm_setup_t *setup)
{
    accel_status_t status = accel_check_handle(acc);
    if (status != ACCEL_OK)
        return status;
    if (out == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = NULL;
    if (options != NULL)
        status = accel_check_struct_size("accel_comm_options_t", true, options->struct_size,
                                         sizeof *options);
    if (status == ACCEL_OK)
        status = comm_timeout(options, &setup->timeout_s);
    if (status == ACCEL_OK)
        status = comm_pick_engine(acc, options, &setup->engine);
    if (status == ACCEL_OK)
        status = comm_pick_device(acc, options, &setup->device);
    if (status == ACCEL_OK)
        status = accel_ensure_init(acc);
    return status;
}

/* ---------------------------------------------------------------- bootstrap */

/* A unique-id engine's communicator: the id of rank 0 reaches every rank
 * through `carrier` (an MPI communicator: broadcast), or (carrier NULL) the
 * ranks meet at the rendezvous address the engine reads: rank 0 makes the
 * id, and the others make theirs from the address too when the engine says
 * so (unique_id_every_rank), else pass a zeroed id. Over MPI the
 * id travels with one byte saying whether rank 0 could make it, so that
 * when it could not every rank fails at once instead of waiting out the
 * timeout for an id that never comes. */
static accel_status_t comm_init_unique_id(const comm_setup_t *setup,
                                          const accel_comm_engine_ctx_t *ctx, void *carrier,
                                          int rank, int size, void **out_comm)
{
    const accel_comm_engine_t *engine = setup->engine;
    const accel_comm_engine_t *mpi = accel_comm_engine_find("mpi");
    /* The id first (malloc's alignment, as the engine's id type wants), then
     * the byte. */
    unsigned char *message = calloc(1, engine->unique_id_size + 1), *id = message;
    accel_status_t status = ACCEL_OK;
    if (message == NULL)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "out of memory for a unique id");
    unsigned char *made_flag = message + engine->unique_id_size;
    if (rank == 0 || (carrier == NULL && engine->unique_id_every_rank))
        status = accel_comm_engine_unique_id(engine, ctx, id);
    if (carrier != NULL) {
        char made[512] = "";
        *made_flag = status == ACCEL_OK;
        if (status != ACCEL_OK)
            accel_error_copy(made, sizeof made);
        accel_status_t sent = mpi->broadcast(carrier, message, message, 1 + engine->unique_id_size,
                                             mpi->dtype_codes[ACCEL_DTYPE_U8], 0, NULL);
        if (status != ACCEL_OK)
            accel_error(status, "%s", made); /* rank 0: its own failure */
        else if (sent != ACCEL_OK)
            status = sent;
        else if (*made_flag != 1)
            status = accel_error(ACCEL_ERROR_DEVICE_ERROR,
                                 "rank 0 could not make the %s unique id (its own error says "
                                 "why): no communicator was made",
                                 engine->name);
    }
    if (status == ACCEL_OK)
        status = engine->init(ctx, size, rank, id, out_comm);
    free(message);
    return status;
}

static accel_status_t comm_check_env_agrees(int rank, int size)
{
    long env_rank, env_size;
    const char *rank_var, *size_var;
    accel_status_t status = comm_env_int(comm_rank_vars, &env_rank, &rank_var);
    if (status == ACCEL_OK)
        status = comm_env_int(comm_size_vars, &env_size, &size_var);
    if (status != ACCEL_OK)
        return status;
    if ((env_size >= 0 && env_size != size) || (env_rank >= 0 && env_rank != rank))
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "the launcher's %s=%ld / %s=%ld disagree with MPI's rank %d of %d: "
                           "start every rank with the same launcher",
                           rank_var != NULL ? rank_var : "RANK", env_rank,
                           size_var != NULL ? size_var : "WORLD_SIZE", env_size, rank, size);
    return ACCEL_OK;
}

/* ACCEL_COMM_BOOTSTRAP: how a unique-id engine's ranks get rank 0's id.
 * Unset or "auto": through MPI when the job was started by mpirun, else the
 * engine's rendezvous; "env": the engine's rendezvous (MASTER_ADDR and
 * MASTER_PORT, each rank calling unique_id) under mpirun too. */
static accel_status_t comm_bootstrap_by_env(bool *out)
{
    const char *text = accel_env_get("ACCEL_COMM_BOOTSTRAP");
    *out = text != NULL && strcmp(text, "env") == 0;
    if (text == NULL || *out || strcmp(text, "auto") == 0)
        return ACCEL_OK;
    return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                       "ACCEL_COMM_BOOTSTRAP=%s is not a bootstrap: auto (MPI under mpirun, "
                       "else the engine's rendezvous) or env (the engine's rendezvous at "
                       "MASTER_ADDR:MASTER_PORT, under mpirun too)",
                       text);
}

/* Rendezvous without MPI: MASTER_ADDR:MASTER_PORT into the engine's variable
 * (NCCL_COMM_ID...) unless the user set that variable already. `forced`:
 * chosen by ACCEL_COMM_BOOTSTRAP=env under mpirun. */
static accel_status_t comm_rendezvous_env(const accel_comm_engine_t *engine, long size, bool forced)
{
    const char *addr = accel_env_get("MASTER_ADDR"), *port = accel_env_get("MASTER_PORT");
    char value[300];
    if (size <= 1)
        return ACCEL_OK; /* one process: nothing to meet */
    if (engine->rendezvous_env == NULL && forced)
        return accel_error(ACCEL_ERROR_UNSUPPORTED,
                           "ACCEL_COMM_BOOTSTRAP=env, but the %s engine has no rendezvous of "
                           "its own: unset it so that MPI hands out the unique id",
                           engine->name);
    if (engine->rendezvous_env == NULL)
        return accel_error(ACCEL_ERROR_UNSUPPORTED,
                           "the %s engine has no rendezvous of its own: start the job with "
                           "mpirun (or accel launch) so that MPI hands out its unique id",
                           engine->name);
    if (accel_env_get(engine->rendezvous_env) != NULL)
        return ACCEL_OK;
    if (addr == NULL || port == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "WORLD_SIZE=%ld without mpirun needs MASTER_ADDR and MASTER_PORT (or "
                           "%s) for the %s engine's rendezvous",
                           size, engine->rendezvous_env, engine->name);
    snprintf(value, sizeof value, "%s:%s", addr, port);
    if (setenv(engine->rendezvous_env, value, 0) != 0)
        return accel_error(ACCEL_ERROR_OUT_OF_MEMORY, "cannot set %s", engine->rendezvous_env);
    return ACCEL_OK;
}

/* Set by the first rendezvous (no MPI) of an engine whose non-root ranks
 * pass a zeroed id (unique_id_every_rank false: Habana HCL). HCL takes
 * HCCL_COMM_ID for a process's first communicator only, and any later one
 * needs the root's id on every rank, which nothing here can carry
 * (src/comm/habana_hccl/engine.c): a second rendezvous is refused on every
 * rank alike instead of leaving rank 0 waiting for ranks HCL refused. */
static atomic_bool comm_rendezvous_spent;

static accel_status_t comm_rendezvous_once(const accel_comm_engine_t *engine, int size)
{
    if (size <= 1 || engine->rendezvous_env == NULL || engine->unique_id_every_rank ||
        !atomic_exchange(&comm_rendezvous_spent, true))
        return ACCEL_OK;
    return accel_error(ACCEL_ERROR_UNSUPPORTED,
                       "the %s engine meets at %s for a process's first communicator only (its "
                       "library ignores that address afterwards): start the job with mpirun (or "
                       "accel launch) to make more, or split the first one",
                       engine->name, engine->rendezvous_env);
}

/* The engine communicator over the job (mpi_comm NULL) or over the caller's
 * MPI communicator, and this process's rank and size in it. */
static accel_status_t comm_bootstrap(accel_t *acc, const comm_setup_t *setup, const void *mpi_comm,
                                     void **out_comm, int *rank, int *size)
{
    const accel_comm_engine_t *engine = setup->engine, *mpi = accel_comm_engine_find("mpi");
    accel_comm_engine_ctx_t ctx = {acc->ops, acc->self, setup->device, setup->timeout_s};
    bool use_mpi = mpi_comm != NULL || comm_under_mpi(), by_env = false;
    long env_rank, env_size;
    const char *rank_var, *size_var;
    void *carrier = NULL;
    accel_status_t status = comm_env_int(comm_rank_vars, &env_rank, &rank_var);
    if (status == ACCEL_OK)
        status = comm_env_int(comm_size_vars, &env_size, &size_var);
    if (status == ACCEL_OK)
        status = comm_bootstrap_by_env(&by_env);
    if (status != ACCEL_OK)
        return status;
    if (engine->init_world != NULL) {
        if (mpi_comm == NULL && !use_mpi && env_size > 1)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                               "%s=%ld but this process was not started by mpirun: the %s engine "
                               "meets the other ranks through MPI only (use mpirun, or accel "
                               "launch -n N)",
                               size_var, env_size, engine->name);
        status = engine->init_world(&ctx, mpi_comm, out_comm, rank, size);
        if (status == ACCEL_OK && mpi_comm == NULL &&
            (status = comm_check_env_agrees(*rank, *size)) != ACCEL_OK) {
            engine->destroy(*out_comm);
            *out_comm = NULL;
        }
        return status;
    }
    /* ACCEL_COMM_BOOTSTRAP=env: the launcher's rank and size (mpirun's
     * OMPI_COMM_WORLD_* among them) and the engine's rendezvous; never for
     * the caller's own MPI communicator. */
    bool forced = by_env && use_mpi && mpi_comm == NULL;
    if (forced)
        use_mpi = false;
    if (use_mpi) { /* rank 0's unique id travels over MPI */
        char detail[320];
        if (mpi == NULL || mpi->load(detail, sizeof detail) != ACCEL_OK)
            return accel_error(ACCEL_ERROR_UNAVAILABLE,
                               "the job was started by mpirun but MPI cannot be loaded to hand "
                               "out the %s unique id: %s",
                               engine->name, mpi != NULL ? detail : "no mpi engine built");
        status = mpi->init_world(&ctx, mpi_comm, &carrier, rank, size);
        if (status != ACCEL_OK)
            return status;
    } else {
        status = comm_rendezvous_env(engine, env_size, forced);
        if (status != ACCEL_OK)
            return status;
        *rank = env_rank < 0 ? 0 : (int)env_rank;
        *size = env_size < 0 ? 1 : (int)env_size;
        if (*rank >= *size)
            return accel_error(ACCEL_ERROR_INVALID_ARGUMENT, "%s=%d is not below %s=%d",
                               rank_var != NULL ? rank_var : "RANK", *rank,
                               size_var != NULL ? size_var : "WORLD_SIZE", *size);
        status = comm_rendezvous_once(engine, *size);
        if (status != ACCEL_OK)
            return status;
    }
    status = comm_init_unique_id(setup, &ctx, carrier, *rank, *size, out_comm);
    if (carrier != NULL)
        mpi->destroy(carrier);
    return status;
}

static accel_status_t comm_init_common(accel_t *acc, const accel_comm_options_t *options,
                                       const void *mpi_comm, accel_comm_t **out)
{
    comm_setup_t setup;
    void *engine_comm = NULL;
    int rank = 0, size = 1;
    accel_status_t status = comm_setup(acc, options, out, &setup);
    if (status != ACCEL_OK)
        return status;
    status = comm_bootstrap(acc, &setup, mpi_comm, &engine_comm, &rank, &size);
    if (status != ACCEL_OK)
        return status;
    return accel_comm_wrap(acc, setup.engine, engine_comm, rank, size, setup.device,
                           setup.timeout_s, out);
}

accel_status_t accel_comm_init(accel_t *acc, const accel_comm_options_t *options,
                               accel_comm_t **out)
{
    return comm_init_common(acc, options, NULL, out);
}

accel_status_t accel_comm_init_mpi(accel_t *acc, const accel_comm_options_t *options,
                                   const void *mpi_comm, accel_comm_t **out)
{
    if (mpi_comm == NULL)
        return accel_error(ACCEL_ERROR_INVALID_ARGUMENT,
                           "mpi_comm is NULL (pass the address of an MPI_Comm value)");
    return comm_init_common(acc, options, mpi_comm, out);
}
