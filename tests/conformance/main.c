/* main.c: the ctest driver of the shared checks (src/selftest). `conformance
 * <backend> [pattern]` runs every check but the threading ones on <backend>
 * with the selftest runner, in a child process under the watchdog;
 * built with CONFORMANCE_THREADS (`conformance_threads`) it runs the
 * threading checks. `accel selftest` runs the same checks. */
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

/* The per-check watchdog: sanitizer builds run some checks 10 to 20 times
 * slower (threads.malloc_free on the xpu sim under TSan: 100 s), so they
 * get more; ctest's TIMEOUT still bounds the whole run. */
#ifndef DRIVER_TIMEOUT_S
#define DRIVER_TIMEOUT_S SELFTEST_DEFAULT_TIMEOUT_S
#endif

#ifdef CONFORMANCE_THREADS
#define DRIVER_CHECKS "threads."
#define DRIVER_NAME   "conformance_threads"
#else
#define DRIVER_CHECKS "conformance.,device.,rule.,comm."
#define DRIVER_NAME   "conformance"
#endif

int main(int argc, char **argv)
{
    /* Batched: one child runs the checks in turn (a new one after a hang or
     * a crash), since opening some runtimes (PoCL) costs more than a check;
     * `accel selftest` gives each check its own. */
    selftest_options_t options = {
        .only = DRIVER_CHECKS, .out = stdout, .batch = true, .timeout_s = DRIVER_TIMEOUT_S};
    const char *allow_skip = getenv("ACCEL_CONFORMANCE_ALLOW_SKIP");
    selftest_run_t run;
    int code = selftest_child_main(argc, argv);
    if (code >= 0)
        return code;
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s <backend> [check-pattern]\n", argv[0]);
        return 2;
    }
    options.backend = argv[1];
    if (argc == 3)
        options.only = argv[2];
    if (!selftest_run(&options, &run))
        return 1;
    /* An optional backend that does not open here: every check skipped
     * (the line ctest's SKIP_REGULAR_EXPRESSION looks for, for both drivers). */
    if (run.records[0].result != CHECK_PASS && allow_skip != NULL && strcmp(allow_skip, "1") == 0) {
        printf("conformance: skipping every test: %s\n", run.records[0].sentence);
        selftest_run_release(&run);
        return 0;
    }
    size_t bad = run.totals[CHECK_FAIL] + run.totals[CHECK_HANG] + run.totals[CHECK_CRASH];
    printf("%s: %zu checks on %s in %.1f s: %zu passed, %zu failed, %zu skipped, %zu hung, %zu "
           "crashed\n",
           DRIVER_NAME, run.count, options.backend, run.seconds, run.totals[CHECK_PASS],
           run.totals[CHECK_FAIL], run.totals[CHECK_SKIP], run.totals[CHECK_HANG],
           run.totals[CHECK_CRASH]);
    selftest_run_release(&run);
    return bad == 0 ? 0 : 1;
}
