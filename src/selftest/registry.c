/* registry.c: the table of every check (registry.h), built from the check
 * indexes on first use. Names: `conformance.<test>` and `threads.<test>`
 * (the test function without its `test_` / `test_threads_` prefix),
 * `device.<check>`, `comm.<check>`, `rule.<backend>.<rule_id>`. */
#include "registry.h"

#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/conformance.h"
#include "checks/device-list.h"
#include "rules/rule-list.h"
#include "selftest_internal.h"

typedef struct registry_source {
    const char *group;    /* name prefix: "conformance" */
    const char *strip;    /* dropped from the function name: "test_" */
    const char *function; /* the function's name as written */
    check_fn_t fn;
    const char *sentence;
    const char *applies;
    unsigned flags;
} registry_source_t;

#define CONFORMANCE_ROW(name) {"conformance", "test_", #name, name, NULL, NULL, 0},
#define THREAD_ROW(name)      {"threads", "test_threads_", #name, name, NULL, NULL, 0},
#define DEVICE_ROW(name, flags, sentence)                                                          \
    {"device", "check_device_", #name, name, sentence, NULL, flags},
#define COMM_ROW(name, sentence)                                                                   \
    {"comm", "check_comm_", #name, name, sentence, NULL, SELFTEST_COMM | SELFTEST_QUICK},
#define RULE_ROW(backend, rule_id, function, sentence)                                             \
    {"rule." #backend, NULL, rule_id, function, sentence, #backend, SELFTEST_QUICK},

static const registry_source_t registry_sources[] = {
    {"selftest", NULL, "open", selftest_check_open,
     "the backend opens by name and counts its devices", NULL, SELFTEST_QUICK},
    /* Test-only checks, early so that the test that enables one sees the
     * checks after it run (injected.c, ACCEL_SELFTEST_INJECT). */
    {"selftest", NULL, "crash_injected", selftest_check_crash_injected,
     "test only (ACCEL_SELFTEST_INJECT=crash): crashes on purpose", NULL,
     SELFTEST_TEST_ONLY | SELFTEST_NO_BACKEND | SELFTEST_QUICK},
    {"selftest", NULL, "fail_injected", selftest_check_fail_injected,
     "test only (ACCEL_SELFTEST_INJECT=fail): fails on purpose", NULL,
     SELFTEST_TEST_ONLY | SELFTEST_QUICK},
    {"selftest", NULL, "thread_fail_injected", selftest_check_thread_fail_injected,
     "test only (ACCEL_SELFTEST_INJECT=thread_fail): fails on purpose on a helper thread", NULL,
     SELFTEST_TEST_ONLY | SELFTEST_QUICK},
    {"selftest", NULL, "exit_failure_injected", selftest_check_exit_failure_injected,
     "test only (ACCEL_SELFTEST_INJECT=exit_failure): passes, then its process exits with 3", NULL,
     SELFTEST_TEST_ONLY | SELFTEST_QUICK},
    {"selftest", NULL, "stuck_fail_injected", selftest_check_stuck_fail_injected,
     "test only (ACCEL_SELFTEST_INJECT=stuck_fail): fails, leaving a stream that never finishes",
     NULL, SELFTEST_TEST_ONLY | SELFTEST_QUICK},
    {"selftest", NULL, "rank_fail_injected", selftest_check_rank_fail_injected,
     "test only (ACCEL_SELFTEST_INJECT=rank_fail): fails on every rank, rank 0 last", NULL,
     SELFTEST_TEST_ONLY | SELFTEST_COMM | SELFTEST_NO_BACKEND | SELFTEST_QUICK},
    {"selftest", NULL, "other_rank_fail_injected", selftest_check_other_rank_fail_injected,
     "test only (ACCEL_SELFTEST_INJECT=other_rank_fail): fails on the last rank only", NULL,
     SELFTEST_TEST_ONLY | SELFTEST_COMM | SELFTEST_NO_BACKEND | SELFTEST_QUICK},
    CONFORMANCE_TESTS(CONFORMANCE_ROW) CONFORMANCE_THREAD_TESTS(THREAD_ROW)
        DEVICE_CHECKS(DEVICE_ROW) COMM_CHECKS(COMM_ROW) VENDOR_RULE_PROBES(RULE_ROW)};

#define REGISTRY_SIZE (sizeof registry_sources / sizeof registry_sources[0])

static selftest_check_t registry_checks[REGISTRY_SIZE];
static size_t registry_count;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

/* Whether the test-only check `function` ("crash_injected") is enabled:
 * `inject` lists "crash", "fail"... separated by commas. */
static bool registry_injected(const char *inject, const char *function)
{
    size_t want = strlen(function) - strlen("_injected");
    for (const char *p = inject; p != NULL && *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (len == want && strncmp(p, function, len) == 0)
            return true;
        p += len;
        if (*p == ',')
            p++;
    }
    return false;
}

static void registry_build(void)
{
    const char *inject = getenv("ACCEL_SELFTEST_INJECT");
    for (size_t i = 0; i < REGISTRY_SIZE; i++) {
        const registry_source_t *src = &registry_sources[i];
        selftest_check_t *check = &registry_checks[registry_count];
        const char *id = src->function;
        size_t strip = src->strip != NULL ? strlen(src->strip) : 0;
        if ((src->flags & SELFTEST_TEST_ONLY) && !registry_injected(inject, src->function))
            continue;
        if (strip > 0 && strncmp(id, src->strip, strip) == 0)
            id += strip;
        snprintf(check->name, sizeof check->name, "%s.%s", src->group, id);
        check->fn = src->fn;
        check->sentence = src->sentence;
        check->applies = src->applies;
        check->flags = src->flags;
        /* --quick keeps the optimizer ops against the host reference. */
        if (fnmatch("conformance.op_builders_fused_*_matches_host", check->name, 0) == 0)
            check->flags |= SELFTEST_QUICK;
        if (src->applies != NULL && strncmp(src->applies, "comm_", 5) == 0)
            check->flags |= SELFTEST_COMM;
        registry_count++;
    }
}

const selftest_check_t *selftest_checks(size_t *count)
{
    pthread_once(&registry_once, registry_build);
    *count = registry_count;
    return registry_checks;
}

const selftest_check_t *selftest_check_find(const char *name)
{
    size_t count = 0;
    const selftest_check_t *checks = selftest_checks(&count);
    for (size_t i = 0; i < count; i++)
        if (strcmp(checks[i].name, name) == 0)
            return &checks[i];
    return NULL;
}

bool selftest_check_applies(const selftest_check_t *check, const char *backend,
                            const char *comm_engine)
{
    if (check->applies == NULL)
        return true;
    if (strncmp(check->applies, "comm_", 5) == 0) {
        /* Engine names use '-' where a C token has '_' (habana-hccl). */
        const char *want = check->applies + 5;
        if (comm_engine == NULL)
            return false;
        for (size_t i = 0;; i++) {
            char c = comm_engine[i] == '-' ? '_' : comm_engine[i];
            if (c != want[i])
                return false;
            if (c == '\0')
                return true;
        }
    }
    return strcmp(check->applies, backend) == 0;
}
