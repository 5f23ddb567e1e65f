/* report.c: `accel report [--json] [--backend NAME]`, the ds_report of this
 * library: the command itself. It gathers every fact first (report_collect.c,
 * so text and JSON agree), then hands them to a printer (report_print.h).
 * A failed selection still shows the cascade, so users see why. */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_print.h"

static void report_usage(FILE *out)
{
    fprintf(out, "usage: accel report [--json] [--backend NAME]\n"
                 "  Describe the chosen accelerator, every auto-detect candidate and why it\n"
                 "  was or was not taken, devices, memory, dtypes, flags and op builders.\n"
                 "  --json          one JSON object instead of text\n"
                 "  --backend NAME  open NAME explicitly instead of the process-wide choice\n");
}

int accel_cli_report(int argc, char **argv)
{
    bool json = false;
    const char *backend = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            backend = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            report_usage(stdout);
            return ACCEL_CLI_EXIT_OK;
        } else {
            fprintf(stderr, "accel report: unexpected argument '%s'\n", argv[i]);
            report_usage(stderr);
            return ACCEL_CLI_EXIT_USAGE;
        }
    }

    report_t *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "accel report: out of host memory\n");
        return ACCEL_CLI_EXIT_FAILURE;
    }
    report_collect(r, backend);
    if (json)
        report_print_json(r, stdout);
    else
        report_print_text(r, stdout);
    fflush(stdout);

    int rc = ACCEL_CLI_EXIT_OK;
    if (r->get_query.status != ACCEL_OK) {
        fprintf(stderr, "accel: %s\n",
                r->get_query.error[0] ? r->get_query.error
                                      : accel_status_name(r->get_query.status));
        rc = ACCEL_CLI_EXIT_FAILURE;
    } else if (r->failures > 0) {
        fprintf(stderr, "accel: %d quer%s failed; first: %s\n", r->failures,
                r->failures == 1 ? "y" : "ies", r->first_failure);
        rc = ACCEL_CLI_EXIT_FAILURE;
    }
    report_release(r);
    free(r);
    return rc;
}
