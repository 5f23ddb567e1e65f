/* sim_violation.c: the rule-violation report and count every sim shares
 * (sim_violation.h). */
#include "sim_violation.h"

#include <stdatomic.h>
#include <stdio.h>

static atomic_ulong sim_violations;

void sim_violation_vreport(const char *sim, const char *rule, const char *fmt, va_list args)
{
    char text[256];
    vsnprintf(text, sizeof text, fmt, args);
    fprintf(stderr, "%s sim: rule %s violated: %s\n", sim, rule, text);
    atomic_fetch_add(&sim_violations, 1);
}

unsigned long sim_violation_count(void)
{
    return atomic_load(&sim_violations);
}
