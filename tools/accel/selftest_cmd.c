/* selftest_cmd.c: `accel selftest [--backend NAME] [--quick] [--json FILE]
 * [--list] [--only PATTERN] [--timeout SECONDS]`: runs the checks of
 * src/selftest (conformance, hardware, collectives, vendor rules) on one
 * backend, each in its own child process under a watchdog, and prints one
 * line per check. The backend is opened only in the children. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "selftest.h"
#include "selftest_report.h"

static void selftest_usage(FILE *out)
{
    fprintf(out,
            "usage: accel selftest [--backend NAME] [--quick] [--json FILE] [--list]\n"
            "                      [--only PATTERN] [--timeout SECONDS]\n"
            "\n"
            "Checks the backend on this machine: devices, memory and copies, streams,\n"
            "events, callbacks, graphs, pinned memory, random numbers, memory stats,\n"
            "threads, fork, the optimizer ops against the CPU, the vendor rules accel\n"
            "relies on, and collectives under `accel launch -n N accel selftest`.\n"
            "Each check runs in its own process and prints PASS, FAIL, SKIP, HANG\n"
            "(stopped by the watchdog) or CRASH, with a sentence and its time.\n"
            "\n"
            "  --backend NAME     the backend to check (default: as accel_get chooses)\n"
            "  --quick            the hardware checks and vendor rules only\n"
            "  --json FILE        write the whole report (versions, devices, every\n"
            "                     check, the environment) to FILE\n"
            "  --list             print the checks that would run, and exit\n"
            "  --only PATTERN     only checks whose name contains PATTERN, or matches it\n"
            "                     as a glob (* ? [...]); comma-separated patterns add up\n"
            "  --timeout SECONDS  per-check watchdog (default %.0f)\n"
            "\n"
            "Exit status: 0 when no check failed, hung or crashed; 1 otherwise;\n"
            "2 for a bad command line.\n",
            SELFTEST_DEFAULT_TIMEOUT_S);
}

typedef struct selftest_args {
    selftest_options_t options;
    const char *json_path;
    bool list;
} selftest_args_t;

/* The value of `--name VALUE` or `--name=VALUE` at argv[*i]; NULL if absent. */
static const char *selftest_value(int argc, char **argv, int *i, const char *name, bool *bad)
{
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0)
        return NULL;
    if (argv[*i][len] == '=')
        return argv[*i] + len + 1;
    if (argv[*i][len] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "accel selftest: %s needs a value\n", name);
        *bad = true;
        return NULL;
    }
    return argv[++*i];
}

static int selftest_parse(int argc, char **argv, selftest_args_t *args)
{
    for (int i = 1; i < argc; i++) {
        bool bad = false;
        const char *value;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            selftest_usage(stdout);
            return ACCEL_CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--quick") == 0) {
            args->options.quick = true;
        } else if (strcmp(argv[i], "--list") == 0) {
            args->list = true;
        } else if ((value = selftest_value(argc, argv, &i, "--backend", &bad)) != NULL) {
            args->options.backend = value;
        } else if ((value = selftest_value(argc, argv, &i, "--json", &bad)) != NULL) {
            args->json_path = value;
        } else if ((value = selftest_value(argc, argv, &i, "--only", &bad)) != NULL) {
            args->options.only = value;
        } else if ((value = selftest_value(argc, argv, &i, "--timeout", &bad)) != NULL) {
            char *end = NULL;
            errno = 0;
            double seconds = strtod(value, &end);
            if (errno != 0 || end == value || *end != '\0' || !isfinite(seconds) || seconds <= 0 ||
                seconds > 86400) {
                fprintf(stderr,
                        "accel selftest: --timeout '%s' is not a number of seconds "
                        "between 0 and 86400\n",
                        value);
                return ACCEL_CLI_EXIT_USAGE;
            }
            args->options.timeout_s = seconds;
        } else if (!bad) {
            fprintf(stderr, "accel selftest: unexpected argument '%s'\n\n", argv[i]);
            selftest_usage(stderr);
            return ACCEL_CLI_EXIT_USAGE;
        }
        if (bad)
            return ACCEL_CLI_EXIT_USAGE;
    }
    return -1;
}

static int selftest_list(const selftest_options_t *options)
{
    size_t count = 0;
    const selftest_check_t **checks = selftest_select(options, &count);
    if (checks == NULL)
        return ACCEL_CLI_EXIT_FAILURE;
    for (size_t i = 0; i < count; i++)
        printf("%s\n", checks[i]->name);
    free(checks);
    return ACCEL_CLI_EXIT_OK;
}

int accel_cli_selftest(int argc, char **argv)
{
    static const char *const child_words[] = {"selftest", NULL};
    selftest_args_t args = {.options = {.child_words = child_words, .out = stdout}};
    char backend[64], why[256];
    const char *how = "--backend";
    selftest_run_t run;
    int code = selftest_child_main(argc, argv);
    if (code >= 0)
        return code;
    code = selftest_parse(argc, argv, &args);
    if (code >= 0)
        return code;
    if (args.options.backend == NULL) {
        args.options.backend =
            selftest_default_backend(backend, sizeof backend, &how, why, sizeof why);
        if (args.options.backend == NULL) {
            fprintf(stderr, "accel selftest: %s\n", why);
            return ACCEL_CLI_EXIT_FAILURE;
        }
    }
    if (args.options.only != NULL) {
        size_t count = 0;
        free(selftest_select(&args.options, &count));
        if (count <= 1) {
            fprintf(stderr,
                    "accel selftest: no check on %s matches --only '%s' (--list names them)\n",
                    args.options.backend, args.options.only);
            return ACCEL_CLI_EXIT_USAGE;
        }
    }
    if (args.list)
        return selftest_list(&args.options);

    int rank = 0, size = 1;
    bool launched = selftest_launcher_rank(&rank, &size);
    if (rank != 0)
        args.options.out = NULL; /* rank 0 speaks for the job; the rest report failures */
    if (args.options.out != NULL)
        printf("accel selftest: backend %s (%s), library %s%s\n", args.options.backend, how,
               accel_version(), launched ? ", under a launcher" : "");
    if (!selftest_run(&args.options, &run))
        return ACCEL_CLI_EXIT_FAILURE;
    size_t bad = run.totals[CHECK_FAIL] + run.totals[CHECK_HANG] + run.totals[CHECK_CRASH];
    if (rank != 0 && bad > 0)
        fprintf(stderr,
                "accel selftest: rank %d: %zu collective check(s) failed, hung or "
                "crashed\n",
                rank, bad);
    if (args.options.out != NULL)
        printf("accel selftest: %zu checks on %s in %.1f s: %zu passed, %zu failed, %zu "
               "skipped, %zu hung, %zu crashed\n",
               run.count, args.options.backend, run.seconds, run.totals[CHECK_PASS],
               run.totals[CHECK_FAIL], run.totals[CHECK_SKIP], run.totals[CHECK_HANG],
               run.totals[CHECK_CRASH]);
    if (args.json_path != NULL && rank == 0 &&
        !selftest_report_write(args.json_path, &args.options, how, &run))
        bad++;
    selftest_run_release(&run);
    /* Rank 0's report and exit status speak for the job. Another rank that
     * exited non-zero could make the launcher (mpirun's default) kill rank 0
     * before it wrote the report, so the rest only say their failures. */
    if (rank != 0)
        return ACCEL_CLI_EXIT_OK;
    return bad == 0 ? ACCEL_CLI_EXIT_OK : ACCEL_CLI_EXIT_FAILURE;
}
