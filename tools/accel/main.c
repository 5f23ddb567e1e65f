/* main.c: the `accel` command-line tool: picks the subcommand (report, env,
 * demo, bench, launch, version) and prints usage. Every subcommand uses only the
 * public API in <accel/accel.h>. */
#include <string.h>

#include "bench.h"
#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: accel <command> [options]\n"
                 "\n"
                 "commands:\n"
                 "  report [--json]          which backend was chosen and why, every candidate,\n"
                 "                           devices, memory, dtypes, flags, op builders\n"
                 "  env --devices LIST       export lines for a launcher (visible devices and\n"
                 "                           the backend's exported variables)\n"
                 "  demo [--size BYTES]      run the README demo on the selected backend\n"
                 "  bench [SUITE...] [--quick] [--json FILE] [--svg FILE]\n"
                 "                           the performance suite, each figure next to its\n"
                 "                           baseline measured in the same run\n"
                 "  launch -n N PROGRAM ...  run PROGRAM as N ranks with mpirun, for the\n"
                 "                           collectives (accel_comm.h)\n"
                 "  selftest [--json FILE]   check the backend on this machine, each check in\n"
                 "                           its own process; --help for its options\n"
                 "  version                  print the tool and library versions\n"
                 "\n"
                 "`accel <command> --help` describes a command's options. The backend is\n"
                 "chosen by ACCEL_ACCELERATOR or DS_ACCELERATOR, else by auto-detection;\n"
                 "report, env, demo and bench also take --backend NAME.\n");
}

static int print_version(void)
{
    printf("accel %d.%d.%d (libaccel %s)\n", ACCEL_VERSION_MAJOR, ACCEL_VERSION_MINOR,
           ACCEL_VERSION_PATCH, accel_version());
    return ACCEL_CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return ACCEL_CLI_EXIT_USAGE;
    }
    const char *command = argv[1];
    if (strcmp(command, "report") == 0)
        return accel_cli_report(argc - 1, argv + 1);
    if (strcmp(command, "env") == 0)
        return accel_cli_env(argc - 1, argv + 1);
    if (strcmp(command, "launch") == 0)
        return accel_cli_launch(argc - 1, argv + 1);
    if (strcmp(command, "demo") == 0)
        return accel_cli_demo(argc - 1, argv + 1);
    if (strcmp(command, "selftest") == 0)
        return accel_cli_selftest(argc - 1, argv + 1);
    if (strcmp(command, "version") == 0 || strcmp(command, "--version") == 0)
        return print_version();
    if (strcmp(command, "help") == 0 || strcmp(command, "--help") == 0 ||
        strcmp(command, "-h") == 0) {
        usage(stdout);
        return ACCEL_CLI_EXIT_OK;
    }
    if (strcmp(command, "bench") == 0 || strcmp(command, BENCH_STARTUP_COMMAND) == 0)
        return accel_cli_bench(argc - 1, argv + 1);
    fprintf(stderr, "accel: unknown command '%s'\n\n", command);
    usage(stderr);
    return ACCEL_CLI_EXIT_USAGE;
}
