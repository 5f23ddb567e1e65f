/* child.c: the child side of the selftest runner (selftest.h). Started as
 * `<program> <words> --run-one NAME[,NAME...] --backend B`, it opens B,
 * runs each named check in turn and writes one record per check to fd 3:
 *
 *     <name> TAB <PASS|FAIL|SKIP> TAB <where> TAB <sentence> NEWLINE
 *
 * plus `fact TAB <key> TAB <value>` lines the parent keeps (selftest.open
 * reports the communication engine; `cleanup` and `cleaned` bracket the
 * close after a check that did not pass). The parent's watchdog owns timing. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <accel/accel_comm.h>

#include "check.h"
#include "selftest.h"
#include "selftest_internal.h"

accel_t *conformance_acc;
const char *conformance_backend;

/* The descriptor records go to: fd 3, set up by the parent. */
#define CHILD_RESULT_FD 3

static void child_write_all(const char *text, size_t size)
{
    while (size > 0) {
        ssize_t n = write(CHILD_RESULT_FD, text, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        text += n;
        size -= (size_t)n;
    }
}

/* Copy `text` into `out` with tabs and newlines made spaces. */
static void child_flatten(char *out, size_t cap, const char *text)
{
    size_t i = 0;
    for (; text[i] != '\0' && i + 1 < cap; i++)
        out[i] = (text[i] == '\t' || text[i] == '\n' || text[i] == '\r') ? ' ' : text[i];
    out[i] = '\0';
}

static const char *child_running_name;

/* What this child ran so far (selftest_child_history); the names point
 * into the --run-one list, which lives until the child exits. */
#define CHILD_HISTORY_MAX 512
static const char *child_history_names[CHILD_HISTORY_MAX];
static bool child_history_failed[CHILD_HISTORY_MAX];
static size_t child_history_count;

size_t selftest_child_history(const char *const **names, const bool **failed)
{
    *names = child_history_names;
    *failed = child_history_failed;
    return child_history_count;
}

static void child_history_add(const char *name, check_result_t result)
{
    if (child_history_count == CHILD_HISTORY_MAX)
        return;
    child_history_names[child_history_count] = name;
    child_history_failed[child_history_count++] = result == CHECK_FAIL;
}

/* One record to the parent; also kept in this child's history. */
static void child_report(const char *name, const check_outcome_t *outcome)
{
    char sentence[CHECK_SENTENCE_MAX], line[CHECK_SENTENCE_MAX + 256];
    child_history_add(name, outcome->result);
    child_flatten(sentence, sizeof sentence, outcome->sentence);
    int n = snprintf(line, sizeof line, "%s\t%s\t%s\t%s\n", name,
                     selftest_result_name(outcome->result), outcome->where, sentence);
    fflush(stdout);
    fflush(stderr);
    child_write_all(line, n > 0 && (size_t)n < sizeof line ? (size_t)n : strlen(line));
}

void selftest_child_fact(const char *key, const char *value)
{
    char flat[256], line[320];
    child_flatten(flat, sizeof flat, value != NULL ? value : "");
    int n = snprintf(line, sizeof line, "fact\t%s\t%s\n", key, flat);
    if (n > 0 && (size_t)n < sizeof line)
        child_write_all(line, (size_t)n);
}

/* Ends the check from a thread other than its own (check.c): the record,
 * then a fact telling the parent that the process ends by design, so that
 * the next check of a group is not taken for a crash. */
static void child_report_and_exit(const check_outcome_t *outcome)
{
    child_report(child_running_name, outcome);
    selftest_child_fact("exiting", "a check ended on another thread");
}

/* Open the backend for one check; false with `outcome` filled on failure. */
static bool child_open(check_outcome_t *outcome)
{
    accel_status_t status;
    if (conformance_acc != NULL)
        return true;
    status = accel_open(conformance_backend, &conformance_acc);
    if (status == ACCEL_OK)
        return true;
    outcome->result = CHECK_FAIL;
    snprintf(outcome->where, sizeof outcome->where, "accel_open");
    snprintf(outcome->sentence, sizeof outcome->sentence, "accel_open(\"%s\") returned %s: %s",
             conformance_backend, accel_status_name(status), accel_last_error());
    return false;
}

/* Close after a passing check: a check must leave no stream, event or
 * graph alive (accel_close refuses then). */
static void child_close(check_outcome_t *outcome)
{
    accel_status_t status;
    if (conformance_acc == NULL)
        return;
    status = accel_close(conformance_acc);
    conformance_acc = NULL;
    if (status == ACCEL_OK || outcome->result != CHECK_PASS)
        return;
    outcome->result = CHECK_FAIL;
    snprintf(outcome->where, sizeof outcome->where, "accel_close");
    snprintf(outcome->sentence, sizeof outcome->sentence,
             "the check passed, but accel_close then returned %s: %s", accel_status_name(status),
             accel_last_error());
}

/* Run one check by name. In a group (several names: the collectives, or a
 * batch) the backend stays open across checks that pass, each followed by
 * conf_restore (device 0, default streams) as the cmocka teardown was; a
 * check that does not pass closes it, and the next one opens it afresh. */
static void child_run_one(const char *name, bool keep_open)
{
    const selftest_check_t *check = selftest_check_find(name);
    check_outcome_t outcome = {.result = CHECK_PASS};
    child_running_name = name;
    if (check == NULL) {
        outcome.result = CHECK_FAIL;
        snprintf(outcome.sentence, sizeof outcome.sentence, "no check is named '%s'", name);
        child_report(name, &outcome);
        return;
    }
    if (!(check->flags & SELFTEST_NO_BACKEND) && !child_open(&outcome)) {
        child_report(name, &outcome);
        return;
    }
    check_run(check->fn, &outcome, child_report_and_exit);
    if (keep_open && outcome.result == CHECK_PASS && conformance_acc != NULL &&
        conf_restore(NULL) != 0) {
        outcome.result = CHECK_FAIL;
        snprintf(outcome.where, sizeof outcome.where, "conf_restore");
        snprintf(outcome.sentence, sizeof outcome.sentence,
                 "the check passed, but restoring device 0 and the default stream failed: %s",
                 accel_last_error());
    }
    if (outcome.result == CHECK_PASS) {
        if (!keep_open)
            child_close(&outcome);
        child_report(name, &outcome);
        return;
    }
    /* A check that did not pass may have left work that never completes (a
     * vendor stream stuck by a failing probe), and accel_close waits for
     * it: report first, then clean up between two facts, so that the
     * parent blames a hang there on the cleanup, not on a check. */
    child_report(name, &outcome);
    selftest_child_fact("cleanup", "closing the backend after a check that did not pass");
    child_close(&outcome);
    selftest_child_fact("cleaned", "");
}

int selftest_child_main(int argc, char **argv)
{
    const char *names = NULL;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--run-one") == 0)
            names = argv[i + 1];
        else if (strcmp(argv[i], "--backend") == 0)
            conformance_backend = argv[i + 1];
    }
    if (names == NULL)
        return -1;
    if (conformance_backend == NULL) {
        fprintf(stderr, "selftest: --run-one needs --backend NAME\n");
        return 2;
    }
    /* Die with the parent: a child must not outlive the run that owns it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* Programs a check starts (mpirun's helpers...) must not hold the
     * records' pipe open after this process ends. */
    fcntl(CHILD_RESULT_FD, F_SETFD, FD_CLOEXEC);
    if (getppid() == 1)
        return 1;
    char *list = strdup(names);
    if (list == NULL)
        return 1;
    bool group = strchr(list, ',') != NULL;
    char *save = NULL;
    for (char *name = strtok_r(list, ",", &save); name != NULL; name = strtok_r(NULL, ",", &save))
        child_run_one(name, group);
    if (conformance_acc != NULL) {
        accel_close(conformance_acc);
        conformance_acc = NULL;
    }
    free(list);
    fflush(stdout);
    return 0;
}

/* ---------------------------------------------------------------- built-in checks */

void selftest_check_open(void **state)
{
    accel_comm_engine_info_t info = ACCEL_STRUCT_INIT(accel_comm_engine_info_t);
    int count = 0;
    (void)state;
    assert_non_null(conformance_acc);
    assert_ok(accel_device_count(conformance_acc, &count));
    print_message("backend %s opened (%s), %d device(s)\n", accel_name(conformance_acc),
                  accel_selection_method(conformance_acc), count);
    if (accel_comm_engine_info(conformance_acc, &info) == ACCEL_OK && info.engine != NULL)
        selftest_child_fact("comm_engine", info.engine);
}
