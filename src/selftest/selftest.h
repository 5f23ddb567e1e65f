/* selftest.h: the selftest runner, shared by `accel selftest`
 * (tools/accel/selftest_cmd.c) and the ctest driver (tests/conformance).
 *
 * The parent never opens the backend: each check runs in a child process
 * that re-executes the program (/proc/self/exe with the caller's words and
 * `--run-one NAME --backend B`), opens the backend there, runs the check and
 * writes its result to fd 3. The parent's watchdog kills a child that gives
 * no result in time (HANG) and maps a death by signal to CRASH, then goes
 * on with the next check. Single-threaded: one run at a time per process. */
#ifndef ACCEL_SELFTEST_H
#define ACCEL_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "check_run.h"
#include "registry.h"

#define SELFTEST_DEFAULT_TIMEOUT_S 60.0

typedef struct selftest_options {
    const char *backend; /* the backend every child opens (required) */
    /* Words placed after the program in each child's argv, before
     * `--run-one`: {"selftest", NULL} for the accel tool; NULL for none. */
    const char *const *child_words;
    const char *only; /* comma-separated patterns (selftest_name_matches); NULL: all */
    bool quick;       /* only the checks flagged SELFTEST_QUICK */
    double timeout_s; /* per-check watchdog; <= 0: SELFTEST_DEFAULT_TIMEOUT_S */
    /* Run the checks in as few children as possible, one after another with
     * the backend kept open (as one cmocka program did), starting a new
     * child after a hang or a crash; the ctest drivers use it where opening
     * a runtime costs more than a check (PoCL). Default: one per check. */
    bool batch;
    FILE *out; /* one line per check as it ends; NULL: silent */
} selftest_options_t;

/* One check's outcome, as the parent saw it. */
typedef struct selftest_record {
    const selftest_check_t *check;
    check_result_t result;
    char sentence[CHECK_SENTENCE_MAX]; /* what the line shows */
    char where[128];                   /* "file.c:123" of a failure, else "" */
    double seconds;
    char *output; /* the child's stdout and stderr while it ran (owned), or NULL */
} selftest_record_t;

typedef struct selftest_run {
    selftest_record_t *records; /* owned; in run order */
    size_t count;
    size_t totals[CHECK_CRASH + 1]; /* records per result */
    double seconds;
    int rank, size;       /* from the launcher's variables; 0 and 1 outside one */
    char comm_engine[32]; /* reported by selftest.open; "" when none */
} selftest_run_t;

/* PASS, FAIL, SKIP, HANG, CRASH. */
const char *selftest_result_name(check_result_t result);

/* Whether `name` matches one of the comma-separated `patterns`: a pattern
 * with a glob character (* ? [) is an fnmatch pattern over the whole name;
 * any other matches names that contain it. */
bool selftest_name_matches(const char *name, const char *patterns);

/* The backend a run opens when none is named, as accel_get would choose
 * it but without initialising any runtime: ACCEL_ACCELERATOR, else
 * DS_ACCELERATOR, else accel_detect's choice. NULL (with `why` filled) when
 * none is found. `how` gets "ACCEL_ACCELERATOR", "DS_ACCELERATOR" or
 * "auto detect". The result points into `buffer`. */
const char *selftest_default_backend(char *buffer, size_t cap, const char **how, char *why,
                                     size_t why_cap);

/* The job's rank and size from the launcher's variables (RANK/WORLD_SIZE,
 * Open MPI's, PMI's); false outside a launcher. */
bool selftest_launcher_rank(int *rank, int *size);

/* Run the selected checks. Returns false (with a message on stderr) only
 * when the run could not start; check failures are in `run`. */
bool selftest_run(const selftest_options_t *options, selftest_run_t *run);
void selftest_run_release(selftest_run_t *run);

/* The sentence a record's line shows: a pass says what the check proves,
 * anything else why (and where a failure was raised). */
void selftest_record_sentence(const selftest_record_t *record, char *out, size_t cap);

/* The checks a run with `options` would run (backend-specific ones by name
 * only), in order; `*count` gets the number. The array is malloc'ed. */
const selftest_check_t **selftest_select(const selftest_options_t *options, size_t *count);

/* Run this program again (/proc/self/exe) with `argv` (argv[0] included)
 * and return its standard output (malloc'ed), or NULL with `why` filled
 * when it fails, exits non-zero or outlives `timeout_s`. */
char *selftest_capture(const char *const *argv, double timeout_s, char *why, size_t why_cap);

/* The child side: when argv holds `--run-one`, run the named checks and
 * return the process exit code; -1 when argv is not a child's. */
int selftest_child_main(int argc, char **argv);

#endif /* ACCEL_SELFTEST_H */
