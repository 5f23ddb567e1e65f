/* cli.h: what the parts of the `accel` command-line tool share: one entry
 * point per subcommand (main.c dispatches to them), how each opens its
 * accelerator, and the small formatting helpers every subcommand prints with. */
#ifndef ACCEL_TOOLS_CLI_H
#define ACCEL_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <accel/accel.h>

/* Exit codes of every subcommand. */
enum {
    ACCEL_CLI_EXIT_OK = 0,
    ACCEL_CLI_EXIT_FAILURE = 1, /* an accel call failed; the reason is on stderr */
    ACCEL_CLI_EXIT_USAGE = 2,   /* bad command line */
};

/* Subcommands: argv[0] is the subcommand name; they return an exit code. */
int accel_cli_report(int argc, char **argv);
int accel_cli_env(int argc, char **argv);
int accel_cli_demo(int argc, char **argv);
int accel_cli_launch(int argc, char **argv);
int accel_cli_selftest(int argc, char **argv);

/* The process-wide accelerator (accel_get) when `backend` is NULL, else the
 * named one through accel_open; *owned says whether to accel_close it. On
 * failure prints "accel: <last error>" to stderr. */
bool accel_cli_open(const char *backend, accel_t **out, bool *owned);
/* Close what accel_cli_open opened when it is ours. */
void accel_cli_close(accel_t *acc, bool owned);

/* Print "accel: <what>: <accel_last_error()>" (or without `what` when NULL). */
void accel_cli_fail(const char *what);

/* "1.50 GB": ds_report's '%.2f %s' over B/KB/MB/GB/TB with base 1024. */
void accel_cli_format_bytes(uint64_t bytes, char *out, size_t cap);

/* ANSI colour for tags such as "[YES]", only when `stream` is a terminal and
 * NO_COLOR is unset; otherwise "". */
typedef enum accel_cli_color {
    ACCEL_CLI_GREEN,
    ACCEL_CLI_RED,
    ACCEL_CLI_YELLOW,
    ACCEL_CLI_RESET,
} accel_cli_color_t;
const char *accel_cli_color(FILE *stream, accel_cli_color_t color);

/* Print `name` followed by dots up to `width` columns, ds_report style:
 * "name ........ " (always at least one dot and a space each side). */
void accel_cli_print_dotted(FILE *stream, int indent, const char *name, int width);

#endif
