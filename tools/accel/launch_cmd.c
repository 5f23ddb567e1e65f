/* launch_cmd.c: `accel launch`: start PROGRAM as ranks on one machine or
 * many, with DeepSpeed's launcher options (hostfile, --include/--exclude,
 * --num_nodes, --num_gpus, --master_addr/--master_port, --launcher) over
 * Open MPI's mpirun (default), Slurm's srun or ssh. Each node's ranks get
 * the backend's visible-devices variables set to the node's selected
 * devices (accel_set_visible_devices_envs), and every variable under the
 * backend's export prefixes and accel's own is forwarded (the backend's
 * info, accel_export_envs). `-n N [--host LIST]`, the one-machine form of
 * earlier releases, keeps its mpirun options. mpirun and srun replace this
 * process (exec): their exit code is the command's; ssh runs one child per
 * node and exits with the first failure's status. docs/comm.md, "Running
 * on a cluster". This file holds the options and runs the commands; the
 * hosts come from launch_pool.c and launch_hosts.c, the variables from
 * launch_env.c, the commands from launch_plan.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "launch_env.h"
#include "launch_hosts.h"
#include "launch_plan.h"
#include "launch_pool.h"

/* DeepSpeed's default (TORCH_DISTRIBUTED_DEFAULT_PORT). */
#define LAUNCH_DEFAULT_PORT 29500

typedef struct launch_options {
    int ranks;                    /* -n; 0: the hostfile form */
    const char *host_list;        /* --host, with -n */
    const char *hostfile;         /* NULL: /job/hostfile if it exists */
    launch_selection_t selection; /* --include/--exclude/--num_nodes/--num_gpus */
    const char *master_addr;      /* NULL: the first host (127.0.0.1 without hostfile) */
    int master_port;
    const char *launcher; /* openmpi (mpirun), slurm (srun), ssh (pdsh) */
    const char *launcher_args;
    int ssh_port;
    const char *backend;
    bool dry_run;
    int first; /* argv index of PROGRAM */
} launch_options_t;

static void launch_usage(FILE *out)
{
    fprintf(out,
            "usage: accel launch [OPTIONS] [--] PROGRAM [ARGS...]\n"
            "  Run PROGRAM as one rank per selected device, on the hosts of a DeepSpeed\n"
            "  hostfile (or this machine), the way accel_comm_init expects to find them.\n"
            "  -H, --hostfile FILE     'host slots=N' lines (default /job/hostfile when it\n"
            "                          exists, else this machine's devices)\n"
            "  -i, --include SPEC      only these: host1:0,2@host2 (all of host2)\n"
            "  -e, --exclude SPEC      all but these, same syntax\n"
            "  --num_nodes N           the first N hosts\n"
            "  --num_gpus N            devices 0..N-1 on each host (--num_accelerators)\n"
            "  --master_addr ADDR      where rank 0 listens (default: the first host)\n"
            "  --master_port PORT      default 29500\n"
            "  --launcher NAME         openmpi (mpirun, default), slurm (srun), ssh (pdsh)\n"
            "  --launcher_args 'ARGS'  more options for mpirun, srun or ssh (split at blanks)\n"
            "  --ssh_port PORT         ssh's port (ssh engine, mpirun's rsh agent)\n"
            "  --backend NAME          whose visible-devices and export variables to use\n"
            "  --dry-run               print the commands instead of running them\n"
            "  -n N [--host LIST]      N ranks with mpirun on this machine (or LIST,\n"
            "                          host1:4,host2:4), as in earlier releases\n"
            "  ACCEL_MPIRUN, ACCEL_SRUN, ACCEL_SSH name the programs to use (default: on PATH).\n");
}

/* "--name VALUE", "--name=VALUE" or "-s VALUE" at argv[*i]; advances *i.
 * Sets *missing when the option is there without its value. */
static bool launch_take(int argc, char **argv, int *i, const char *name, const char *alias,
                        const char **value, bool *missing)
{
    const char *arg = argv[*i];
    size_t length = strlen(name);
    if (strncmp(arg, name, length) == 0 && arg[length] == '=') {
        *value = arg + length + 1;
        return true;
    }
    if (strcmp(arg, name) != 0 && (alias == NULL || strcmp(arg, alias) != 0))
        return false;
    if (*i + 1 >= argc) {
        *missing = true;
        return true;
    }
    *value = argv[++*i];
    return true;
}

static bool launch_parse_int(const char *option, const char *text, long low, long high, int *out)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || errno != 0 || value < low || value > high) {
        fprintf(stderr, "accel launch: %s '%s' is not a whole number from %ld to %ld\n", option,
                text, low, high);
        return false;
    }
    *out = (int)value;
    return true;
}

/* One option at argv[*i] (value options advance *i). Returns 1 when taken,
 * 0 when argv[*i] is not an option of ours, -1 on a bad value. */
static int launch_parse_option(int argc, char **argv, int *i, launch_options_t *o)
{
    const char *v = NULL;
    bool missing = false;
    int taken = 1;
    bool ok = true;
    if (launch_take(argc, argv, i, "-n", "-np", &v, &missing))
        ok = missing || launch_parse_int("-n", v, 1, 1 << 20, &o->ranks);
    else if (launch_take(argc, argv, i, "--host", NULL, &v, &missing))
        o->host_list = v;
    else if (launch_take(argc, argv, i, "--hostfile", "-H", &v, &missing))
        o->hostfile = v;
    else if (launch_take(argc, argv, i, "--include", "-i", &v, &missing))
        o->selection.include = v;
    else if (launch_take(argc, argv, i, "--exclude", "-e", &v, &missing))
        o->selection.exclude = v;
    else if (launch_take(argc, argv, i, "--num_nodes", NULL, &v, &missing))
        ok = missing || launch_parse_int("--num_nodes", v, 0, 1 << 20, &o->selection.num_nodes);
    else if (launch_take(argc, argv, i, "--num_gpus", "--num_accelerators", &v, &missing))
        ok = missing ||
             launch_parse_int("--num_gpus", v, 0, LAUNCH_MAX_SLOTS, &o->selection.num_gpus);
    else if (launch_take(argc, argv, i, "--master_addr", NULL, &v, &missing))
        o->master_addr = v;
    else if (launch_take(argc, argv, i, "--master_port", NULL, &v, &missing))
        ok = missing || launch_parse_int("--master_port", v, 1, 65535, &o->master_port);
    else if (launch_take(argc, argv, i, "--launcher", NULL, &v, &missing))
        o->launcher = v;
    else if (launch_take(argc, argv, i, "--launcher_args", NULL, &v, &missing))
        o->launcher_args = v;
    else if (launch_take(argc, argv, i, "--ssh_port", NULL, &v, &missing))
        ok = missing || launch_parse_int("--ssh_port", v, 1, 65535, &o->ssh_port);
    else if (launch_take(argc, argv, i, "--backend", NULL, &v, &missing))
        o->backend = v;
    else if (strcmp(argv[*i], "--dry-run") == 0 || strcmp(argv[*i], "--dry_run") == 0)
        o->dry_run = true;
    else
        taken = 0;
    if (missing) {
        fprintf(stderr, "accel launch: %s needs a value\n", argv[*i]);
        return -1;
    }
    return ok ? taken : -1;
}

/* Parses argv into *o; returns ACCEL_CLI_EXIT_OK to go on, or the exit code. */
static int launch_parse(int argc, char **argv, launch_options_t *o)
{
    *o = (launch_options_t){
        .selection = {.include = "", .exclude = "", .num_nodes = -1, .num_gpus = -1},
        .master_port = LAUNCH_DEFAULT_PORT,
        .launcher = "openmpi",
        .first = -1};
    for (int i = 1; i < argc && o->first < 0; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            launch_usage(stdout);
            return ACCEL_CLI_EXIT_OK;
        }
        if (strcmp(argv[i], "--") == 0) {
            o->first = i + 1;
            break;
        }
        int taken = launch_parse_option(argc, argv, &i, o);
        if (taken < 0)
            return ACCEL_CLI_EXIT_USAGE;
        if (taken == 0 && argv[i][0] == '-') {
            fprintf(stderr, "accel launch: unexpected option '%s'\n", argv[i]);
            launch_usage(stderr);
            return ACCEL_CLI_EXIT_USAGE;
        }
        if (taken == 0)
            o->first = i;
    }
    if (o->first < 0 || o->first >= argc) {
        fprintf(stderr, "accel launch: no program to launch\n");
        launch_usage(stderr);
        return ACCEL_CLI_EXIT_USAGE;
    }
    return -1; /* go on */
}

/* ---- the engine's program */

typedef struct launch_engine_desc {
    launch_engine_t engine;
    const char *program;  /* looked up on PATH */
    const char *override; /* the variable that names it */
    const char *package;  /* where Debian has it */
} launch_engine_desc_t;

static const launch_engine_desc_t launch_engines[] = {
    {LAUNCH_ENGINE_MPIRUN, "mpirun", "ACCEL_MPIRUN", "openmpi-bin"},
    {LAUNCH_ENGINE_SRUN, "srun", "ACCEL_SRUN", "slurm-client"},
    {LAUNCH_ENGINE_SSH, "ssh", "ACCEL_SSH", "openssh-client"},
};

/* DeepSpeed's --launcher names, and accel's. */
static const launch_engine_desc_t *launch_engine_named(const char *name)
{
    if (strcmp(name, "openmpi") == 0 || strcmp(name, "mpirun") == 0)
        return &launch_engines[0];
    if (strcmp(name, "slurm") == 0 || strcmp(name, "srun") == 0)
        return &launch_engines[1];
    if (strcmp(name, "ssh") == 0 || strcmp(name, "pdsh") == 0)
        return &launch_engines[2];
    fprintf(stderr,
            "accel launch: --launcher '%s' is not one accel has: openmpi (mpirun), slurm (srun) "
            "or ssh (pdsh)\n",
            name);
    return NULL;
}

/* The program's path: its override variable, else the first on PATH; NULL
 * if none. */
static const char *launch_find_program(const launch_engine_desc_t *desc, char *buf, size_t cap)
{
    const char *chosen = getenv(desc->override), *path = getenv("PATH");
    if (chosen != NULL && chosen[0] != '\0')
        return access(chosen, X_OK) == 0 ? chosen : NULL;
    while (path != NULL && *path != '\0') {
        size_t length = strcspn(path, ":");
        snprintf(buf, cap, "%.*s/%s", (int)length, length ? path : ".", desc->program);
        if (access(buf, X_OK) == 0)
            return buf;
        path += length + (path[length] == ':');
    }
    return NULL;
}

static void launch_not_found(const launch_engine_desc_t *desc)
{
    bool named = getenv(desc->override) != NULL && getenv(desc->override)[0] != '\0';
    fprintf(stderr, "accel launch: %s not found (%s%s; Debian: apt-get install %s)", desc->program,
            named ? desc->override : "not on PATH", named ? " is not an executable" : "",
            desc->package);
    if (desc->engine == LAUNCH_ENGINE_MPIRUN)
        fprintf(stderr, ". Without it, start each rank yourself with RANK, WORLD_SIZE, LOCAL_RANK, "
                        "MASTER_ADDR and MASTER_PORT set, as torchrun does, for an engine with its "
                        "own rendezvous (nccl, hccl); the mpi engine needs mpirun (docs/comm.md)");
    fputc('\n', stderr);
}

/* ---- the -n form (one machine, or mpirun's --host list) */

static int launch_ranks_form(accel_t *acc, const launch_options_t *o, int argc, char **argv)
{
    char path_buf[PATH_MAX], ranks_text[16];
    const char *mpirun = launch_find_program(&launch_engines[0], path_buf, sizeof path_buf);
    if (mpirun == NULL) {
        launch_not_found(&launch_engines[0]);
        return ACCEL_CLI_EXIT_FAILURE;
    }
    launch_vars_t forwarded = {0};
    if (!launch_collect_forwarded(acc, NULL, 0, &forwarded))
        return ACCEL_CLI_EXIT_FAILURE;
    launch_argv_t command = {0};
    snprintf(ranks_text, sizeof ranks_text, "%d", o->ranks);
    const char *head[] = {mpirun, "-n", ranks_text, "--bind-to", "none"};
    bool ok = true;
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        ok = ok && launch_argv_push_word(&command, head[i]);
    if (o->ranks > sysconf(_SC_NPROCESSORS_ONLN) || o->host_list == NULL)
        ok = ok && launch_argv_push_word(&command, "--oversubscribe");
    if (geteuid() == 0)
        ok = ok && launch_argv_push_word(&command, "--allow-run-as-root");
    if (o->host_list != NULL)
        ok = ok && launch_argv_push_word(&command, "--host") &&
             launch_argv_push_word(&command, o->host_list);
    for (size_t v = 0; v < forwarded.count; v++)
        ok = ok && launch_argv_push_word(&command, "-x") &&
             launch_argv_push_word(&command, forwarded.items[v].name);
    for (int i = o->first; i < argc; i++)
        ok = ok && launch_argv_push_word(&command, argv[i]);
    launch_vars_free(&forwarded);
    int rc = ACCEL_CLI_EXIT_FAILURE;
    if (!ok) {
        fprintf(stderr, "accel launch: out of host memory\n");
    } else if (o->dry_run) {
        launch_argv_print(stdout, &command);
        rc = ACCEL_CLI_EXIT_OK;
    } else {
        fflush(stdout);
        execv(mpirun, command.items);
        fprintf(stderr, "accel launch: cannot run %s\n", mpirun);
    }
    launch_argv_free(&command);
    return rc;
}

/* ---- the hostfile form */

/* --launcher_args split at blanks (no quoting: one word per option). One
 * allocation holds the array and the words: free() the result. */
static char **launch_split_args(const char *text, size_t *count)
{
    size_t length = strlen(text ? text : ""), cap = length / 2 + 2;
    char **words = malloc(cap * sizeof *words + length + 1);
    *count = 0;
    if (words == NULL)
        return NULL;
    char *copy = (char *)(words + cap), *save = NULL;
    memcpy(copy, text ? text : "", length + 1);
    for (char *word = strtok_r(copy, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save))
        words[(*count)++] = word;
    words[*count] = NULL;
    return words;
}

/* One ssh per node, all at once; the first failure's status (128 + signal
 * for a signal), naming its host. Every ssh reads its stdin from one pipe
 * whose write end only this process holds and never writes: when it ends,
 * however it ends, each node's script sees EOF and stops its ranks
 * (launch_plan.c, the ssh script). */
static int launch_run_ssh(const launch_plan_t *plan)
{
    size_t nodes = plan->hosts->count, running = 0;
    pid_t *pids = calloc(nodes, sizeof *pids);
    int rc = 0, lifeline[2];
    if (pids == NULL) {
        fprintf(stderr, "accel launch: out of host memory\n");
        return ACCEL_CLI_EXIT_FAILURE;
    }
    if (pipe2(lifeline, O_CLOEXEC) != 0) {
        fprintf(stderr, "accel launch: cannot make a pipe for ssh: %s\n", strerror(errno));
        free(pids);
        return ACCEL_CLI_EXIT_FAILURE;
    }
    fflush(stdout);
    for (size_t node = 0; node < nodes && rc == 0; node++) {
        launch_argv_t command = {0};
        char err[256];
        if (!launch_plan_ssh_command(plan, node, &command, err, sizeof err)) {
            fprintf(stderr, "accel launch: %s\n", err);
            rc = ACCEL_CLI_EXIT_FAILURE;
        } else if ((pids[node] = fork()) == 0) {
            if (dup2(lifeline[0], STDIN_FILENO) < 0)
                _exit(127);
            execv(plan->engine_path, command.items);
            fprintf(stderr, "accel launch: cannot run %s: %s\n", plan->engine_path,
                    strerror(errno));
            _exit(127);
        } else if (pids[node] < 0) {
            fprintf(stderr, "accel launch: cannot start ssh: %s\n", strerror(errno));
            rc = ACCEL_CLI_EXIT_FAILURE;
        } else {
            running++;
        }
        launch_argv_free(&command);
    }
    close(lifeline[0]);
    while (running > 0) {
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0)
            break;
        size_t node = 0;
        while (node < nodes && pids[node] != pid)
            node++;
        if (node == nodes)
            continue;
        running--;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (code != 0 && rc == 0) {
            fprintf(stderr, "accel launch: the ranks on host '%s' ended with status %d\n",
                    plan->hosts->hosts[node].name, code);
            rc = code;
        }
    }
    close(lifeline[1]);
    free(pids);
    return rc;
}

/* Print or run the plan's commands. */
static int launch_run_plan(const launch_plan_t *plan, bool dry_run)
{
    char err[512];
    if (plan->engine == LAUNCH_ENGINE_SSH) {
        for (size_t node = 0; dry_run && node < plan->hosts->count; node++) {
            launch_argv_t command = {0};
            if (!launch_plan_ssh_command(plan, node, &command, err, sizeof err)) {
                fprintf(stderr, "accel launch: %s\n", err);
                return ACCEL_CLI_EXIT_FAILURE;
            }
            launch_argv_print(stdout, &command);
            launch_argv_free(&command);
        }
        return dry_run ? ACCEL_CLI_EXIT_OK : launch_run_ssh(plan);
    }
    launch_argv_t command = {0};
    if (!launch_plan_command(plan, &command, err, sizeof err)) {
        fprintf(stderr, "accel launch: %s\n", err);
        return ACCEL_CLI_EXIT_USAGE;
    }
    if (dry_run) {
        launch_argv_print(stdout, &command);
        launch_argv_free(&command);
        return ACCEL_CLI_EXIT_OK;
    }
    fflush(stdout);
    execv(plan->engine_path, command.items);
    fprintf(stderr, "accel launch: cannot run %s: %s\n", plan->engine_path, strerror(errno));
    launch_argv_free(&command);
    return ACCEL_CLI_EXIT_FAILURE;
}

static int launch_hosts_form(accel_t *acc, const launch_options_t *o,
                             const launch_engine_desc_t *desc, int argc, char **argv)
{
    launch_hosts_t hosts = {0};
    bool from_file = false;
    char err[1024], path_buf[PATH_MAX], cwd[PATH_MAX];
    if (!launch_pool_open(acc, o->hostfile, &o->selection, &hosts, &from_file))
        return ACCEL_CLI_EXIT_USAGE;
    if (!launch_hosts_select(&hosts, &o->selection, err, sizeof err)) {
        fprintf(stderr, "accel launch: %s\n", err);
        launch_hosts_free(&hosts);
        return ACCEL_CLI_EXIT_USAGE;
    }
    const char *engine_path = launch_find_program(desc, path_buf, sizeof path_buf);
    const char *master_addr = o->master_addr ? o->master_addr
                              : from_file    ? hosts.hosts[0].name
                                             : "127.0.0.1";
    int rc = ACCEL_CLI_EXIT_FAILURE;
    launch_vars_t job_vars = {0}, forwarded = {0};
    launch_vars_t *node_vars = calloc(hosts.count, sizeof *node_vars);
    size_t engine_arg_count = 0;
    char **engine_args = launch_split_args(o->launcher_args, &engine_arg_count);
    if (engine_path == NULL && o->dry_run && getenv(desc->override) == NULL)
        engine_path = desc->program; /* show the commands even where it is not installed */
    if (engine_path == NULL) {
        launch_not_found(desc);
    } else if (desc->engine == LAUNCH_ENGINE_SRUN && !o->dry_run &&
               (getenv("SLURM_JOB_ID") == NULL || getenv("SLURM_JOB_ID")[0] == '\0')) {
        fprintf(stderr, "accel launch: --launcher slurm runs srun inside a Slurm allocation "
                        "(salloc or sbatch), but SLURM_JOB_ID is not set\n");
    } else if (getcwd(cwd, sizeof cwd) == NULL) {
        fprintf(stderr, "accel launch: cannot name this directory: %s\n", strerror(errno));
    } else if (node_vars == NULL || engine_args == NULL ||
               !launch_build_vars(acc, &hosts, master_addr, o->master_port, node_vars, &job_vars)) {
        fprintf(stderr, "accel launch: cannot set the ranks' variables\n");
    } else {
        const launch_vars_t *set[] = {&job_vars, &node_vars[0]};
        if (launch_collect_forwarded(acc, set, 2, &forwarded)) {
            launch_plan_t plan = {
                .engine = desc->engine,
                .engine_path = engine_path,
                .hosts = &hosts,
                .job_vars = &job_vars,
                .node_vars = node_vars,
                .forwarded = &forwarded,
                .engine_args = engine_args,
                .engine_arg_count = engine_arg_count,
                .program = argv + o->first,
                .program_count = (size_t)(argc - o->first),
                .cwd = cwd,
                .ssh_port = o->ssh_port,
                .as_root = geteuid() == 0,
            };
            rc = launch_run_plan(&plan, o->dry_run);
        }
    }
    free(engine_args);
    for (size_t node = 0; node_vars != NULL && node < hosts.count; node++)
        launch_vars_free(&node_vars[node]);
    free(node_vars);
    launch_vars_free(&job_vars);
    launch_vars_free(&forwarded);
    launch_hosts_free(&hosts);
    return rc;
}

int accel_cli_launch(int argc, char **argv)
{
    launch_options_t o;
    int rc = launch_parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    const launch_selection_t *s = &o.selection;
    bool hostfile_form = o.hostfile != NULL || s->include[0] || s->exclude[0] ||
                         s->num_nodes >= 0 || s->num_gpus >= 0 || o.master_addr != NULL;
    if (o.host_list != NULL && o.ranks == 0) {
        fprintf(stderr, "accel launch: --host goes with -n N (or write a hostfile)\n");
        return ACCEL_CLI_EXIT_USAGE;
    }
    if (o.ranks > 0 && (hostfile_form || strcmp(o.launcher, "openmpi") != 0)) {
        fprintf(stderr, "accel launch: -n N runs mpirun on the hosts of --host; it does not take "
                        "--hostfile, --include, --exclude, --num_nodes, --num_gpus, --master_addr "
                        "or --launcher (use those without -n)\n");
        return ACCEL_CLI_EXIT_USAGE;
    }
    const launch_engine_desc_t *desc = launch_engine_named(o.launcher);
    if (desc == NULL)
        return ACCEL_CLI_EXIT_USAGE;
    accel_t *acc = NULL;
    bool owned = false;
    if (!accel_cli_open(o.backend, &acc, &owned))
        return ACCEL_CLI_EXIT_FAILURE;
    rc = o.ranks > 0 ? launch_ranks_form(acc, &o, argc, argv)
                     : launch_hosts_form(acc, &o, desc, argc, argv);
    accel_cli_close(acc, owned);
    return rc;
}
