/* check_run.h: how the runner's child runs one check (check.c): the
 * outcome a check ends with, and the hook that reports it from a thread
 * other than the check's own before the process exits. */
#ifndef ACCEL_SELFTEST_CHECK_RUN_H
#define ACCEL_SELFTEST_CHECK_RUN_H

#define CHECK_SENTENCE_MAX 1024

typedef enum check_result {
    CHECK_PASS,
    CHECK_FAIL,
    CHECK_SKIP,
    CHECK_HANG,  /* stopped by the parent's watchdog */
    CHECK_CRASH, /* the child died of a signal or exited without a result */
} check_result_t;

typedef struct check_outcome {
    check_result_t result;
    char sentence[CHECK_SENTENCE_MAX]; /* the failure, the skip reason; "" on a pass */
    char where[128];                   /* "file.c:123" of a failure, else "" */
} check_outcome_t;

typedef void (*check_fn_t)(void **state);
/* Called on a thread other than the check's when the check ends there; the
 * process exits right after it returns. */
typedef void (*check_exit_fn_t)(const check_outcome_t *outcome);

/* Run `fn` on the calling thread and fill `outcome`. Called once per process. */
void check_run(check_fn_t fn, check_outcome_t *outcome, check_exit_fn_t exit_fn);

#endif /* ACCEL_SELFTEST_CHECK_RUN_H */
