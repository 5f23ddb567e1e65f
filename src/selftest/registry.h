/* registry.h: every check `accel selftest` knows, in index order: the
 * conformance checks (checks/test-list.h), the hardware checks and the
 * collectives (checks/device-list.h; the collectives run first and only
 * under `accel launch`, select.c), and the vendor-rule probes
 * (rules/rule-list.h). Built once, read-only after. */
#ifndef ACCEL_SELFTEST_REGISTRY_H
#define ACCEL_SELFTEST_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "check_run.h"

/* Flags of a check. */
enum {
    SELFTEST_QUICK = 1u << 0,     /* part of --quick */
    SELFTEST_COMM = 1u << 1,      /* needs ranks: runs only under `accel launch -n N` */
    SELFTEST_TEST_ONLY = 1u << 2, /* listed only when the test that uses it enables it */
    SELFTEST_NO_BACKEND = 1u << 3 /* runs without opening the backend */
};

typedef struct selftest_check {
    char name[96]; /* "conformance.memory_memset", "rule.npu.C2" */
    check_fn_t fn;
    const char *sentence; /* what a pass shows: what the check proves */
    const char *applies;  /* NULL: every backend; else a backend name, or
                             "comm_<engine>" for a rule of a comm engine */
    unsigned flags;
} selftest_check_t;

/* Every check, in run order; `*count` gets the number. */
const selftest_check_t *selftest_checks(size_t *count);
/* The check named `name`, or NULL. */
const selftest_check_t *selftest_check_find(const char *name);

/* Whether a check applies to `backend` and, for a comm rule, to the engine
 * `comm_engine` (NULL: none known). */
bool selftest_check_applies(const selftest_check_t *check, const char *backend,
                            const char *comm_engine);

#endif /* ACCEL_SELFTEST_REGISTRY_H */
