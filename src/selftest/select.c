/* select.c: which checks a run takes and on which backend (selftest.h):
 * name patterns, the default backend as accel_get would choose it without
 * initialising a runtime, the launcher's rank, and the run order. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel.h>

#include "selftest.h"

bool selftest_name_matches(const char *name, const char *patterns)
{
    char pattern[256];
    const char *p = patterns;
    if (patterns == NULL || patterns[0] == '\0')
        return true;
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        if (len > 0 && len < sizeof pattern) {
            memcpy(pattern, p, len);
            pattern[len] = '\0';
            if (strpbrk(pattern, "*?[") != NULL ? fnmatch(pattern, name, 0) == 0
                                                : strstr(name, pattern) != NULL)
                return true;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return false;
}

static bool runner_env_int(const char *name, int *out)
{
    const char *text = getenv(name);
    char *end = NULL;
    long value;
    if (text == NULL || text[0] == '\0')
        return false;
    errno = 0;
    value = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < 0 || value > 1 << 20)
        return false;
    *out = (int)value;
    return true;
}

bool selftest_launcher_rank(int *rank, int *size)
{
    static const char *const pairs[][2] = {
        {"RANK", "WORLD_SIZE"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
        {"PMI_RANK", "PMI_SIZE"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (runner_env_int(pairs[i][0], rank) && runner_env_int(pairs[i][1], size) && *size >= 1 &&
            *rank < *size)
            return true;
    }
    *rank = 0;
    *size = 1;
    return false;
}

const char *selftest_default_backend(char *buffer, size_t cap, const char **how, char *why,
                                     size_t why_cap)
{
    static const char *const overrides[] = {"ACCEL_ACCELERATOR", "DS_ACCELERATOR"};
    accel_candidate_t candidates[64];
    size_t total = 0;
    for (size_t i = 0; i < 2; i++) {
        const char *value = getenv(overrides[i]);
        if (value != NULL) {
            snprintf(buffer, cap, "%s", value);
            *how = overrides[i];
            return buffer;
        }
    }
    for (size_t i = 0; i < 64; i++)
        candidates[i] = ACCEL_STRUCT_INIT(accel_candidate_t);
    *how = "auto detect";
    if (accel_detect(candidates, 64, &total) != ACCEL_OK) {
        snprintf(why, why_cap, "accel_detect failed: %s", accel_last_error());
        return NULL;
    }
    for (size_t i = 0; i < total && i < 64; i++) {
        if (candidates[i].chosen) {
            snprintf(buffer, cap, "%s", candidates[i].name);
            return buffer;
        }
    }
    snprintf(why, why_cap, "auto-detect chose no backend (`accel report` says why)");
    return NULL;
}

/* Whether `check` is in a run with `options` (selftest.open always is). */
static bool runner_selected(const selftest_options_t *options, const selftest_check_t *check)
{
    bool rule_of_comm = check->applies != NULL && strncmp(check->applies, "comm_", 5) == 0;
    if (strcmp(check->name, "selftest.open") == 0)
        return true;
    if (!rule_of_comm && !selftest_check_applies(check, options->backend, NULL))
        return false;
    if (options->quick && !(check->flags & SELFTEST_QUICK))
        return false;
    return selftest_name_matches(check->name, options->only);
}

const selftest_check_t **selftest_select(const selftest_options_t *options, size_t *count)
{
    size_t total = 0, n = 0;
    const selftest_check_t *checks = selftest_checks(&total);
    const selftest_check_t **chosen = calloc(total + 1, sizeof *chosen);
    if (chosen == NULL) {
        *count = 0;
        return NULL;
    }
    /* Run order: selftest.open, the collectives (every rank starts with
     * them) ending with comm.ranks_agree (it reports the failures of the
     * collectives before it on other ranks), then the rest in the order of
     * the registry. */
    for (int pass = 0; pass < 4; pass++) {
        for (size_t i = 0; i < total; i++) {
            const selftest_check_t *check = &checks[i];
            int want = strcmp(check->name, "selftest.open") == 0      ? 0
                       : strcmp(check->name, "comm.ranks_agree") == 0 ? 2
                       : (check->flags & SELFTEST_COMM)               ? 1
                                                                      : 3;
            if (want == pass && runner_selected(options, check))
                chosen[n++] = check;
        }
    }
    *count = n;
    return chosen;
}
