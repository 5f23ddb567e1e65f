/* sim_break.h: the vendor rules a test asks a simulated runtime to break, so
 * that the probe guarding each rule (src/selftest/rules/) can be shown to
 * catch a runtime that violates it. ACCEL_SIM_BREAK=<rule id>[,<rule id>...]
 * is read once, on the first query; each sim checks sim_rule_broken("<id>")
 * at that rule's check and, when it is named, does what a runtime violating
 * the rule would do (tests/sim/README.md, "Fault injection"). Each sim
 * library links its own copy; ids are the rows of tests/sim/README.md's rule
 * tables. Thread-safe: any thread may ask. Test-only: no real runtime has
 * such a switch. */
#ifndef ACCEL_TESTS_SIM_BREAK_H
#define ACCEL_TESTS_SIM_BREAK_H

#include <stdbool.h>

/* True when ACCEL_SIM_BREAK names `id` (exact, case-sensitive match of one
 * comma-separated entry). */
bool sim_rule_broken(const char *id);

#endif /* ACCEL_TESTS_SIM_BREAK_H */
