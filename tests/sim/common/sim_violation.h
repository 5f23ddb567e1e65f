/* sim_violation.h: a simulated runtime's record of vendor rules its caller
 * broke (tests/sim/README.md lists each sim's rules). Each sim library links
 * its own copy (common/sim.cmake, symbols hidden), so each counts only its
 * own. Thread-safe: any thread may report; the count is atomic. */
#ifndef ACCEL_TESTS_SIM_VIOLATION_H
#define ACCEL_TESTS_SIM_VIOLATION_H

#include <stdarg.h>

/* Say "<sim> sim: rule <rule> violated: <sentence>" on stderr and count it. */
void sim_violation_vreport(const char *sim, const char *rule, const char *fmt, va_list args)
    __attribute__((format(printf, 3, 0)));
/* How many violations this sim has reported since it was loaded. */
unsigned long sim_violation_count(void);

#endif /* ACCEL_TESTS_SIM_VIOLATION_H */
