/* launch_env.c: the variables `accel launch` gives the ranks
 * (launch_env.h): each node's visible devices through the backend's
 * accel_set_visible_devices_envs, DeepSpeed's launch.py variables, and the
 * launching environment's variables under the backend's export prefixes
 * (accel_export_envs) and accel's own. */
#include "launch_env.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Forwarded besides the backend's export prefixes: accel's own variables
 * (ACCEL_ACCELERATOR, ACCEL_COMM_TIMEOUT, ACCEL_LOG, ACCEL_<NAME>_LIBRARY...),
 * DeepSpeed's accelerator override and, in the -n form where accel does not
 * set them, the torch.distributed rendezvous. */
static const char *const launch_own_prefixes[] = {"ACCEL_", "DS_ACCELERATOR", "MASTER_ADDR",
                                                  "MASTER_PORT"};

void launch_vars_free(launch_vars_t *vars)
{
    for (size_t i = 0; i < vars->count; i++) {
        free(vars->items[i].name);
        free(vars->items[i].value);
    }
    free(vars->items);
    *vars = (launch_vars_t){0};
}

int launch_vars_add(void *ctx, const char *name, const char *value)
{
    launch_vars_t *vars = ctx;
    launch_var_t *grown = realloc(vars->items, (vars->count + 1) * sizeof *grown);
    if (grown == NULL)
        return ACCEL_ERROR_OUT_OF_MEMORY;
    vars->items = grown;
    grown[vars->count].name = strdup(name);
    grown[vars->count].value = strdup(value);
    if (grown[vars->count].name == NULL || grown[vars->count].value == NULL) {
        free(grown[vars->count].name);
        free(grown[vars->count].value);
        return ACCEL_ERROR_OUT_OF_MEMORY;
    }
    vars->count++;
    return 0;
}

static bool launch_vars_addf(launch_vars_t *vars, const char *name, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static bool launch_vars_addf(launch_vars_t *vars, const char *name, const char *format, ...)
{
    char value[512];
    va_list args;
    va_start(args, format);
    vsnprintf(value, sizeof value, format, args);
    va_end(args);
    return launch_vars_add(vars, name, value) == 0;
}

static bool launch_vars_has(const launch_vars_t *vars, const char *name, size_t length)
{
    for (size_t i = 0; i < vars->count; i++)
        if (strlen(vars->items[i].name) == length &&
            strncmp(vars->items[i].name, name, length) == 0)
            return true;
    return false;
}

bool launch_is_shell_name(const char *name, size_t length)
{
    if (length == 0 || (name[0] >= '0' && name[0] <= '9'))
        return false;
    for (size_t i = 0; i < length; i++) {
        char c = name[i];
        if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9')))
            return false;
    }
    return true;
}

bool launch_has_prefix(const char *entry, const char *const *prefixes, size_t count)
{
    for (size_t k = 0; k < count; k++)
        if (prefixes[k] != NULL && strncmp(entry, prefixes[k], strlen(prefixes[k])) == 0)
            return true;
    return false;
}

static int launch_compare_vars(const void *a, const void *b)
{
    return strcmp(((const launch_var_t *)a)->name, ((const launch_var_t *)b)->name);
}

bool launch_collect_env(const char *const *prefixes, size_t prefix_count, launch_env_skip_t skip,
                        const void *skip_ctx, launch_vars_t *out)
{
    for (char **entry = environ; *entry != NULL; entry++) {
        const char *equals = strchr(*entry, '=');
        size_t length = equals ? (size_t)(equals - *entry) : 0;
        if (!equals || !launch_is_shell_name(*entry, length) ||
            !launch_has_prefix(*entry, prefixes, prefix_count) ||
            launch_vars_has(out, *entry, length) ||
            (skip != NULL && skip(skip_ctx, *entry, length)))
            continue;
        char *name = strndup(*entry, length);
        bool added = name != NULL && launch_vars_add(out, name, equals + 1) == 0;
        free(name);
        if (!added)
            return false;
    }
    if (out->count > 1)
        qsort(out->items, out->count, sizeof *out->items, launch_compare_vars);
    return true;
}

/* The variables `accel launch` sets itself: launch_vars_t sets[count]. */
typedef struct launch_set_vars {
    const launch_vars_t *const *sets;
    size_t count;
} launch_set_vars_t;

static bool launch_is_set(const void *ctx, const char *name, size_t length)
{
    const launch_set_vars_t *set = ctx;
    for (size_t s = 0; s < set->count; s++)
        if (launch_vars_has(set->sets[s], name, length))
            return true;
    return false;
}

/* Every set variable under the backend's export prefixes or accel's own,
 * except those the launcher sets itself (`set`), sorted by name. */
bool launch_collect_forwarded(accel_t *acc, const launch_vars_t *const *set, size_t set_count,
                              launch_vars_t *out)
{
    const char *const *prefixes = NULL;
    size_t prefix_count = 0;
    if (accel_export_envs(acc, &prefixes, &prefix_count) != ACCEL_OK) {
        accel_cli_fail("export prefixes");
        return false;
    }
    launch_set_vars_t launcher_set = {set, set_count};
    if (!launch_collect_env(prefixes, prefix_count, launch_is_set, &launcher_set, out) ||
        !launch_collect_env(launch_own_prefixes,
                            sizeof launch_own_prefixes / sizeof *launch_own_prefixes, launch_is_set,
                            &launcher_set, out)) {
        fprintf(stderr, "accel launch: out of host memory\n");
        return false;
    }
    return true;
}

/* Each node's variables (the backend's visible devices, its node rank and
 * rank count) and every rank's (the job's size and rendezvous). */
bool launch_build_vars(accel_t *acc, const launch_hosts_t *hosts, const char *master_addr,
                       int master_port, launch_vars_t *node_vars, launch_vars_t *job_vars)
{
    for (size_t node = 0; node < hosts->count; node++) {
        const launch_host_t *host = &hosts->hosts[node];
        if (accel_set_visible_devices_envs(acc, host->ids, host->count, launch_vars_add,
                                           &node_vars[node]) != ACCEL_OK) {
            accel_cli_fail("visible devices variables");
            return false;
        }
        if (!launch_vars_addf(&node_vars[node], "CROSS_RANK", "%zu", node) ||
            !launch_vars_addf(&node_vars[node], "LOCAL_SIZE", "%zu", host->count))
            return false;
    }
    return launch_vars_addf(job_vars, "MASTER_ADDR", "%s", master_addr) &&
           launch_vars_addf(job_vars, "MASTER_PORT", "%d", master_port) &&
           launch_vars_addf(job_vars, "WORLD_SIZE", "%zu", launch_hosts_total(hosts)) &&
           launch_vars_addf(job_vars, "CROSS_SIZE", "%zu", hosts->count);
}
