/* main.c: runner of the conformance suite. `conformance <backend> [filter]`
 * opens <backend> with accel_open and runs every test of test-list.h on it
 * (built with CONFORMANCE_THREADS: the threading tests instead). */
#include "conformance.h"

#include <stdlib.h>

accel_t *conformance_acc;
const char *conformance_backend;

#ifdef CONFORMANCE_THREADS
#define CONFORMANCE_SUITE      CONFORMANCE_THREAD_TESTS
#define CONFORMANCE_SUITE_NAME "conformance_threads"
#else
#define CONFORMANCE_SUITE      CONFORMANCE_TESTS
#define CONFORMANCE_SUITE_NAME "conformance"
#endif

/* The one test run when the backend cannot be opened and skipping is allowed. */
static void test_backend_unavailable(void **state)
{
    (void)state;
    skip();
}

static int run_skipped(const char *reason)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_backend_unavailable)};
    printf("conformance: skipping every test: %s\n", reason);
    return cmocka_run_group_tests_name(CONFORMANCE_SUITE_NAME, tests, NULL, NULL);
}

int main(int argc, char **argv)
{
#define CONFORMANCE_ENTRY(name) cmocka_unit_test_teardown(name, conf_restore),
    const struct CMUnitTest tests[] = {CONFORMANCE_SUITE(CONFORMANCE_ENTRY)};
#undef CONFORMANCE_ENTRY
    const char *allow_skip = getenv("ACCEL_CONFORMANCE_ALLOW_SKIP");
    char reason[600];
    accel_status_t status;
    int failures;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s <backend> [test-filter]\n", argv[0]);
        return 2;
    }
    conformance_backend = argv[1];
    status = accel_open(conformance_backend, &conformance_acc);
    if (status != ACCEL_OK) {
        char error[512];
        snprintf(error, sizeof error, "%s", accel_last_error());
        snprintf(reason, sizeof reason, "accel_open(\"%s\") returned %s: %s", conformance_backend,
                 accel_status_name(status), error);
        if (allow_skip != NULL && strcmp(allow_skip, "1") == 0)
            return run_skipped(reason);
        fprintf(stderr, "conformance: %s\n(set ACCEL_CONFORMANCE_ALLOW_SKIP=1 to skip instead)\n",
                reason);
        return 1;
    }
    printf("conformance: backend \"%s\" opened (%s)\n", accel_name(conformance_acc),
           accel_selection_method(conformance_acc));
    if (argc == 3)
        cmocka_set_test_filter(argv[2]);
    failures = cmocka_run_group_tests_name(CONFORMANCE_SUITE_NAME, tests, NULL, NULL);

    status = accel_close(conformance_acc);
    if (status != ACCEL_OK) {
        char error[512];
        snprintf(error, sizeof error, "%s", accel_last_error());
        fprintf(stderr, "conformance: accel_close failed: %s: %s\n", accel_status_name(status),
                error);
        failures++;
    }
    return failures == 0 ? 0 : 1;
}
