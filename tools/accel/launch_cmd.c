/* launch_cmd.c: `accel launch -n N [--host LIST] [--dry-run] PROGRAM
 * [ARGS...]`: start PROGRAM as N ranks with Open MPI's mpirun, with the
 * options accel's collectives want (no core binding: accel's host thread
 * pool uses every core it is given; more ranks than cores allowed; root
 * allowed when run as root; accel's variables forwarded to other hosts).
 * Prints why it cannot when mpirun is missing. Replaces itself with mpirun
 * (exec): mpirun's exit code is the command's. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Variables forwarded to every rank (-x) when set: what accel and its
 * engines read at start-up. The local ranks inherit the environment anyway. */
static const char *const launch_forwarded[] = {
    "ACCEL_ACCELERATOR",    "DS_ACCELERATOR", "ACCEL_COMM_TIMEOUT",
    "ACCEL_COMM_BOOTSTRAP", "ACCEL_LOG",      "ACCEL_MPI_LIBRARY",
    "MASTER_ADDR",          "MASTER_PORT",    NULL,
};

static void launch_usage(FILE *out)
{
    fprintf(out, "usage: accel launch -n N [--host LIST] [--dry-run] [--] PROGRAM [ARGS...]\n"
                 "  Run PROGRAM as N ranks with mpirun (Open MPI), the way accel_comm_init\n"
                 "  expects to find them: each rank's RANK/WORLD_SIZE come from mpirun\n"
                 "  (OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK).\n"
                 "  -n N          number of ranks (required)\n"
                 "  --host LIST   hosts for mpirun's --host (host1:4,host2:4)\n"
                 "  --dry-run     print the mpirun command instead of running it\n"
                 "  ACCEL_MPIRUN names the mpirun to use (default: mpirun on PATH).\n");
}

/* mpirun's path: ACCEL_MPIRUN, else the first `mpirun` on PATH; NULL if none. */
static const char *launch_find_mpirun(char *buf, size_t cap)
{
    const char *chosen = getenv("ACCEL_MPIRUN"), *path = getenv("PATH");
    if (chosen != NULL && chosen[0] != '\0')
        return access(chosen, X_OK) == 0 ? chosen : NULL;
    while (path != NULL && *path != '\0') {
        size_t length = strcspn(path, ":");
        snprintf(buf, cap, "%.*s/mpirun", (int)length, length ? path : ".");
        if (access(buf, X_OK) == 0)
            return buf;
        path += length + (path[length] == ':');
    }
    return NULL;
}

static bool launch_parse_ranks(const char *text, int *out)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || value < 1 || value > 1 << 20) {
        fprintf(stderr, "accel launch: -n '%s' is not a number of ranks (1 or more)\n", text);
        return false;
    }
    *out = (int)value;
    return true;
}

int accel_cli_launch(int argc, char **argv)
{
    int ranks = 0, first = -1;
    const char *hosts = NULL;
    bool dry_run = false;
    char mpirun_buf[PATH_MAX], ranks_text[16];
    for (int i = 1; i < argc && first < 0; i++) {
        if ((strcmp(argv[i], "-n") == 0 || strcmp(argv[i], "-np") == 0) && i + 1 < argc) {
            if (!launch_parse_ranks(argv[++i], &ranks))
                return ACCEL_CLI_EXIT_USAGE;
        } else if (strcmp(argv[i], "--host") == 0 && i + 1 < argc) {
            hosts = argv[++i];
        } else if (strcmp(argv[i], "--dry-run") == 0) {
            dry_run = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            launch_usage(stdout);
            return ACCEL_CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--") == 0) {
            first = i + 1 < argc ? i + 1 : argc;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "accel launch: unexpected option '%s'\n", argv[i]);
            launch_usage(stderr);
            return ACCEL_CLI_EXIT_USAGE;
        } else {
            first = i;
        }
    }
    if (ranks == 0 || first < 0 || first >= argc) {
        fprintf(stderr, "accel launch: %s\n",
                ranks == 0 ? "-n N is required" : "no program to launch");
        launch_usage(stderr);
        return ACCEL_CLI_EXIT_USAGE;
    }
    const char *mpirun = launch_find_mpirun(mpirun_buf, sizeof mpirun_buf);
    if (mpirun == NULL) {
        fprintf(stderr,
                "accel launch: mpirun not found (%s; Debian: apt-get install openmpi-bin). "
                "Without it, start each rank yourself with RANK, WORLD_SIZE, LOCAL_RANK, "
                "MASTER_ADDR and MASTER_PORT set, as torchrun does, for an engine with its "
                "own rendezvous (nccl, hccl); the mpi engine needs mpirun (docs/comm.md)\n",
                getenv("ACCEL_MPIRUN") ? "ACCEL_MPIRUN is not an executable" : "not on PATH");
        return ACCEL_CLI_EXIT_FAILURE;
    }
    /* mpirun, its options, then PROGRAM ARGS... */
    char **command = calloc((size_t)(argc - first) + 32, sizeof *command);
    size_t n = 0;
    if (command == NULL) {
        fprintf(stderr, "accel launch: out of host memory\n");
        return ACCEL_CLI_EXIT_FAILURE;
    }
    snprintf(ranks_text, sizeof ranks_text, "%d", ranks);
    command[n++] = (char *)mpirun;
    command[n++] = "-n";
    command[n++] = ranks_text;
    command[n++] = "--bind-to";
    command[n++] = "none";
    if (ranks > sysconf(_SC_NPROCESSORS_ONLN) || hosts == NULL)
        command[n++] = "--oversubscribe";
    if (geteuid() == 0)
        command[n++] = "--allow-run-as-root";
    if (hosts != NULL) {
        command[n++] = "--host";
        command[n++] = (char *)hosts;
    }
    for (size_t v = 0; launch_forwarded[v] != NULL; v++) {
        if (getenv(launch_forwarded[v]) != NULL) {
            command[n++] = "-x";
            command[n++] = (char *)launch_forwarded[v];
        }
    }
    for (int i = first; i < argc; i++)
        command[n++] = argv[i];
    command[n] = NULL;
    if (dry_run) {
        for (size_t i = 0; i < n; i++)
            printf("%s%s", i ? " " : "", command[i]);
        putchar('\n');
        free(command);
        return ACCEL_CLI_EXIT_OK;
    }
    fflush(stdout);
    execv(mpirun, command);
    fprintf(stderr, "accel launch: cannot run %s\n", mpirun);
    free(command);
    return ACCEL_CLI_EXIT_FAILURE;
}
