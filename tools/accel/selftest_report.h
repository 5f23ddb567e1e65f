/* selftest_report.h: the JSON report of `accel selftest --json FILE`, one
 * object that a user attaches to a bug report. Its shape is
 * src/selftest/report.schema.json (installed beside the tool). */
#ifndef ACCEL_TOOLS_SELFTEST_REPORT_H
#define ACCEL_TOOLS_SELFTEST_REPORT_H

#include <stdbool.h>

#include "selftest.h"

/* Write the report of `run` to `path` ("-": standard output). `chosen_by`
 * says how the backend was chosen. False, with a message on stderr, when
 * the file cannot be written. */
bool selftest_report_write(const char *path, const selftest_options_t *options,
                           const char *chosen_by, const selftest_run_t *run);

#endif
