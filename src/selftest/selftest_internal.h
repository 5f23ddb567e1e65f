/* selftest_internal.h: what the runner's files share and no check needs. */
#ifndef ACCEL_SELFTEST_INTERNAL_H
#define ACCEL_SELFTEST_INTERNAL_H

/* Built-in checks (child.c): selftest.open opens the backend and reports
 * facts; selftest.crash_injected exists only for the test that enables it. */
void selftest_check_open(void **state);
void selftest_check_crash_injected(void **state);

/* From a check in the child: a `fact` record for the parent (child.c). */
void selftest_child_fact(const char *key, const char *value);

#endif /* ACCEL_SELFTEST_INTERNAL_H */
