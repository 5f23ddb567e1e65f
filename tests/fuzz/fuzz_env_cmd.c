/* fuzz_env_cmd.c: `accel env --devices LIST --backend cpu`, the launcher
 * helper's own list parser and its output. Output goes to /dev/null (run
 * with -close_fd_mask=3 to silence the usage messages too). */
#include "fuzz.h"

#include "cli.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_quiet();
    if (freopen("/dev/null", "w", stdout) == NULL)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *list = fuzz_string(data, size);
    char *argv[] = {"env", "--devices", list, "--backend", "cpu", NULL};
    int rc = accel_cli_env(5, argv);
    FUZZ_CHECK(rc == ACCEL_CLI_EXIT_OK || rc == ACCEL_CLI_EXIT_USAGE ||
               rc == ACCEL_CLI_EXIT_FAILURE);
    free(list);
    return 0;
}
