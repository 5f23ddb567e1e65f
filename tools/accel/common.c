/* common.c: helpers shared by the subcommands of `accel`: opening the
 * accelerator, reporting a failed call, and ds_report-style formatting
 * (human byte sizes, coloured tags, dotted name columns). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

bool accel_cli_open(const char *backend, accel_t **out, bool *owned)
{
    accel_status_t status = backend ? accel_open(backend, out) : accel_get(out);
    if (status != ACCEL_OK) {
        accel_cli_fail(NULL);
        return false;
    }
    *owned = backend != NULL;
    return true;
}

void accel_cli_close(accel_t *acc, bool owned)
{
    if (owned && accel_close(acc) != ACCEL_OK)
        accel_cli_fail("closing the accelerator");
}

void accel_cli_fail(const char *what)
{
    const char *error = accel_last_error();
    if (!error || !*error)
        error = "unknown error (no message from the library)";
    if (what)
        fprintf(stderr, "accel: %s: %s\n", what, error);
    else
        fprintf(stderr, "accel: %s\n", error);
}

void accel_cli_format_bytes(uint64_t bytes, char *out, size_t cap)
{
    static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
    double value = (double)bytes;
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        value /= 1024.0;
        unit++;
    }
    snprintf(out, cap, "%.2f %s", value, units[unit]);
}

const char *accel_cli_color(FILE *stream, accel_cli_color_t color)
{
    const char *no_color = getenv("NO_COLOR");
    if ((no_color && *no_color) || !isatty(fileno(stream)))
        return "";
    switch (color) {
    case ACCEL_CLI_GREEN: return "\033[92m";
    case ACCEL_CLI_RED: return "\033[91m";
    case ACCEL_CLI_YELLOW: return "\033[93m";
    case ACCEL_CLI_RESET: return "\033[0m";
    }
    return "";
}

void accel_cli_print_dotted(FILE *stream, int indent, const char *name, int width)
{
    int used = indent + (int)strlen(name);
    int dots = width - used - 2;
    fprintf(stream, "%*s%s ", indent, "", name);
    for (int i = 0; i < (dots > 0 ? dots : 1); i++)
        fputc('.', stream);
    fputc(' ', stream);
}
