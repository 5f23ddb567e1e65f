/* launch_plan.h: what `accel launch` starts, engine by engine. A plan holds
 * the selected hosts (launch_hosts.h), the variables every rank gets, each
 * node's own (the backend's visible-devices variables, its node rank and
 * size) and the program; an engine turns it into the commands to run:
 * Open MPI's mpirun (one command, one app context per node), Slurm's srun
 * (one command inside an allocation) or ssh (one command per node).
 *
 * Ownership: the plan borrows everything it points to (launch_cmd.c owns
 * it). A launch_argv_t owns its strings; launch_argv_free releases them.
 * Single-threaded, as the launcher is. */
#ifndef ACCEL_TOOLS_LAUNCH_PLAN_H
#define ACCEL_TOOLS_LAUNCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "launch_hosts.h"

typedef struct launch_var {
    char *name;
    char *value;
} launch_var_t;

typedef struct launch_vars {
    launch_var_t *items; /* owned, with their strings */
    size_t count;
} launch_vars_t;

typedef enum launch_engine {
    LAUNCH_ENGINE_MPIRUN, /* Open MPI; DeepSpeed's --launcher openmpi */
    LAUNCH_ENGINE_SRUN,   /* Slurm; --launcher slurm */
    LAUNCH_ENGINE_SSH,    /* one ssh per node; --launcher ssh (or pdsh) */
} launch_engine_t;

typedef struct launch_plan {
    launch_engine_t engine;
    const char *engine_path; /* the mpirun, srun or ssh to run */
    const launch_hosts_t *hosts;
    const launch_vars_t *job_vars;  /* every rank: WORLD_SIZE, MASTER_ADDR, ... */
    const launch_vars_t *node_vars; /* [hosts->count]: visible devices, CROSS_RANK, ... */
    /* Variables of this environment forwarded to every rank: mpirun gets
     * `-x NAME` (it reads the value itself), ssh the value written in the
     * command; srun exports the whole environment anyway. */
    const launch_vars_t *forwarded;
    char *const *engine_args; /* --launcher_args, split at blanks */
    size_t engine_arg_count;
    char *const *program; /* PROGRAM ARGS... */
    size_t program_count;
    const char *cwd; /* where ssh'd ranks start (this directory) */
    int ssh_port;    /* 0: ssh's default */
    bool as_root;    /* mpirun needs --allow-run-as-root */
} launch_plan_t;

/* A command line; breaks[i] marks where --dry-run starts a new line (before
 * item i), so each node's part of an mpirun command reads on its own line. */
typedef struct launch_argv {
    char **items; /* NULL-terminated when count > 0 (owned) */
    bool *breaks;
    size_t count, cap;
} launch_argv_t;

void launch_argv_free(launch_argv_t *argv);
/* Append a copy of `word`; false when out of memory. */
bool launch_argv_push_word(launch_argv_t *argv, const char *word);

/* The one command of mpirun or srun (engine_path first). For srun every
 * host must run the same number of ranks; false with a sentence in err
 * otherwise (and when out of memory). */
bool launch_plan_command(const launch_plan_t *plan, launch_argv_t *out, char *err, size_t cap);

/* The ssh command that starts node `node`'s ranks, each with RANK and
 * LOCAL_RANK, and exits with the first failing rank's status. */
bool launch_plan_ssh_command(const launch_plan_t *plan, size_t node, launch_argv_t *out, char *err,
                             size_t cap);

/* `argv` as one shell command line, each word quoted where a POSIX shell
 * needs it, a " \" line break at each break. */
void launch_argv_print(FILE *out, const launch_argv_t *argv);

/* `word` as one POSIX shell word: as is when no character needs quoting,
 * else as launch_shell_single_quote writes it. Used by `accel env` too. */
void launch_shell_quote(FILE *out, const char *word);
/* `word` in single quotes, each ' written as '\'' (safe for any bytes). */
void launch_shell_single_quote(FILE *out, const char *word);

#endif
