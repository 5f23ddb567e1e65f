/* selftest_internal.h: what the runner's files share and no check needs. */
#ifndef ACCEL_SELFTEST_INTERNAL_H
#define ACCEL_SELFTEST_INTERNAL_H

/* selftest.open (child.c) opens the backend and reports facts. */
void selftest_check_open(void **state);
/* Test-only checks (injected.c), listed only when ACCEL_SELFTEST_INJECT
 * names them: they crash or fail on purpose, so that tests can show how the
 * runner reports that. */
void selftest_check_crash_injected(void **state);
void selftest_check_fail_injected(void **state);
void selftest_check_thread_fail_injected(void **state);
void selftest_check_exit_failure_injected(void **state);
void selftest_check_stuck_fail_injected(void **state);
void selftest_check_rank_fail_injected(void **state);
void selftest_check_other_rank_fail_injected(void **state);

/* From a check in the child: a `fact` record for the parent (child.c). */
void selftest_child_fact(const char *key, const char *value);

#endif /* ACCEL_SELFTEST_INTERNAL_H */
