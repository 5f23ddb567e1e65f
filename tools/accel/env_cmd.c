/* env_cmd.c: `accel env --devices LIST [--backend NAME]`: the shell lines a
 * launcher evaluates before starting a worker: the backend's visible-devices
 * variables set to LIST, then every set variable under its export prefixes,
 * then the multi-node launcher's variables that are set (where the ranks
 * meet, the job's size, accel's collectives timeout). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "launch_env.h"
#include "launch_plan.h"

#define ENV_MAX_DEVICES 4096

typedef struct env_printed {
    const char *const *names; /* visible-devices variables already printed */
    size_t count;
} env_printed_t;

static int env_print_export(void *ctx, const char *name, const char *value)
{
    (void)ctx;
    if (!launch_is_shell_name(name, strlen(name)))
        return -1;
    printf("export %s=", name);
    launch_shell_quote(stdout, value);
    putchar('\n');
    return 0;
}

/* "0,2,5": non-negative decimal ints, no empty items. Prints why not. */
static bool env_parse_devices(const char *text, int *ids, size_t cap, size_t *out_count)
{
    size_t count = 0;
    const char *p = text;
    for (;;) {
        const char *start = p;
        long value = 0;
        while (*p >= '0' && *p <= '9') {
            value = value * 10 + (*p - '0');
            if (value > INT_MAX)
                break;
            p++;
        }
        size_t length = (size_t)(p - start);
        if (length == 0 || value > INT_MAX || (*p != ',' && *p != '\0')) {
            const char *end = strchr(start, ',');
            int shown = end ? (int)(end - start) : (int)strlen(start);
            fprintf(stderr,
                    "accel env: --devices '%s': item '%.*s' is not a non-negative integer "
                    "(expected a comma-separated list such as 0,2)\n",
                    text, shown, start);
            return false;
        }
        if (count == cap) {
            fprintf(stderr, "accel env: --devices: more than %zu devices\n", cap);
            return false;
        }
        ids[count++] = (int)value;
        if (*p == '\0')
            break;
        p++; /* the comma */
    }
    *out_count = count;
    return true;
}

static bool env_already_printed(const void *ctx, const char *name, size_t length)
{
    const env_printed_t *printed = ctx;
    for (size_t i = 0; i < printed->count; i++) {
        if (strlen(printed->names[i]) == length && strncmp(printed->names[i], name, length) == 0)
            return true;
    }
    return false;
}

/* The order of the "NAME=value" lines as strcmp sorts them, the order
 * `accel env` has always printed in (FOO1=... before FOO=..., unlike the
 * name order launch_collect_env leaves). A name holds no '='. */
static int env_compare_lines(const void *a, const void *b)
{
    const launch_var_t *x = a, *y = b;
    size_t i = 0;
    while (x->name[i] != '\0' && x->name[i] == y->name[i])
        i++;
    unsigned char cx = x->name[i] ? (unsigned char)x->name[i] : '=';
    unsigned char cy = y->name[i] ? (unsigned char)y->name[i] : '=';
    if (cx != cy)
        return cx < cy ? -1 : 1;
    return strcmp(x->value, y->value);
}

/* Every set variable whose name starts with one of `prefixes`, in line
 * order, its value always single-quoted. */
static bool env_print_exported(const char *const *prefixes, size_t prefix_count,
                               const env_printed_t *printed)
{
    launch_vars_t vars = {0};
    if (!launch_collect_env(prefixes, prefix_count, env_already_printed, printed, &vars)) {
        launch_vars_free(&vars);
        fprintf(stderr, "accel env: out of host memory\n");
        return false;
    }
    if (vars.count > 1)
        qsort(vars.items, vars.count, sizeof *vars.items, env_compare_lines);
    for (size_t i = 0; i < vars.count; i++) {
        printf("export %s=", vars.items[i].name);
        launch_shell_single_quote(stdout, vars.items[i].value);
        putchar('\n');
    }
    launch_vars_free(&vars);
    return true;
}

/* What a worker on another host needs to join the job (docs/comm.md): the
 * rendezvous (torch.distributed's MASTER_ADDR/MASTER_PORT, or an engine's
 * own variable), the job's size, and accel's collectives settings. Each
 * rank's RANK and LOCAL_RANK are the launcher's to set, per worker. */
static const char *const env_launcher_vars[] = {
    "MASTER_ADDR",  "MASTER_PORT",  "WORLD_SIZE",         "NNODES",
    "NCCL_COMM_ID", "HCCL_COMM_ID", "ACCEL_COMM_TIMEOUT", NULL,
};

static void env_print_launcher(const char *const *prefixes, size_t prefix_count)
{
    for (size_t i = 0; env_launcher_vars[i] != NULL; i++) {
        const char *value = getenv(env_launcher_vars[i]);
        if (value != NULL && !launch_has_prefix(env_launcher_vars[i], prefixes, prefix_count))
            env_print_export(NULL, env_launcher_vars[i], value);
    }
}

static void env_usage(FILE *out)
{
    fprintf(out, "usage: accel env --devices LIST [--backend NAME]\n"
                 "  Print the `export VAR=value` lines a launcher needs for a worker that\n"
                 "  should see devices LIST (e.g. 0,2): the backend's visible-devices\n"
                 "  variables, then every set variable under its export prefixes, then the\n"
                 "  multi-node launcher's variables that are set (MASTER_ADDR, MASTER_PORT,\n"
                 "  WORLD_SIZE, NNODES, NCCL_COMM_ID, HCCL_COMM_ID, ACCEL_COMM_TIMEOUT).\n"
                 "  Use as: eval \"$(accel env --devices 0,2)\"\n"
                 "  --backend NAME  use backend NAME instead of the process-wide choice\n");
}

int accel_cli_env(int argc, char **argv)
{
    const char *devices = NULL;
    const char *backend = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--devices") == 0 && i + 1 < argc) {
            devices = argv[++i];
        } else if (strncmp(argv[i], "--devices=", 10) == 0) {
            devices = argv[i] + 10;
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            backend = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            env_usage(stdout);
            return ACCEL_CLI_EXIT_OK;
        } else {
            fprintf(stderr, "accel env: unexpected argument '%s'\n", argv[i]);
            env_usage(stderr);
            return ACCEL_CLI_EXIT_USAGE;
        }
    }
    if (!devices) {
        fprintf(stderr, "accel env: --devices LIST is required\n");
        env_usage(stderr);
        return ACCEL_CLI_EXIT_USAGE;
    }
    static int ids[ENV_MAX_DEVICES];
    size_t id_count = 0;
    if (!env_parse_devices(devices, ids, ENV_MAX_DEVICES, &id_count))
        return ACCEL_CLI_EXIT_USAGE;

    accel_t *acc = NULL;
    bool owned = false;
    if (!accel_cli_open(backend, &acc, &owned))
        return ACCEL_CLI_EXIT_FAILURE;
    int rc = ACCEL_CLI_EXIT_FAILURE;
    env_printed_t printed = {0};
    const char *const *prefixes = NULL;
    size_t prefix_count = 0;
    if (accel_visible_devices_envs(acc, &printed.names, &printed.count) != ACCEL_OK)
        accel_cli_fail("visible devices variables");
    else if (accel_set_visible_devices_envs(acc, ids, id_count, env_print_export, NULL) != ACCEL_OK)
        accel_cli_fail("setting visible devices variables");
    else if (accel_export_envs(acc, &prefixes, &prefix_count) != ACCEL_OK)
        accel_cli_fail("export prefixes");
    else if (env_print_exported(prefixes, prefix_count, &printed)) {
        env_print_launcher(prefixes, prefix_count);
        rc = ACCEL_CLI_EXIT_OK;
    }
    accel_cli_close(acc, owned);
    return rc;
}
