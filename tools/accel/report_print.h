/* report_print.h: the two ways `accel report` prints a gathered report_t:
 * ds_report-style text (report_text.c) and one JSON object (report_json.c).
 * Used by the command (report.c); the printers depend only on report.h.
 * Each call writes the whole report to `out`; single-threaded. */
#ifndef ACCEL_TOOLS_REPORT_PRINT_H
#define ACCEL_TOOLS_REPORT_PRINT_H

#include <stdio.h>

#include "report.h"

void report_print_text(const report_t *r, FILE *out);
void report_print_json(const report_t *r, FILE *out);

#endif
