/* launch_nodes_check.c: one rank of a job started by `accel launch` on
 * several "hosts" (tests/comm/run_launch_nodes.sh). Each rank checks what
 * the launcher promised it: started through the remote agent for its own
 * node (ACCEL_TEST_SHIM_HOST, set by the shim), the backend's
 * visible-devices variables set to its node's devices, its node rank,
 * sizes and local rank, the forwarded variables present and the others
 * absent. With --comm the ranks then all_reduce over accel_comm.h (every
 * rank's failures and the sum of ranks), so one rank's wrong variable fails
 * every rank.
 * Usage: launch_nodes_check [--comm] --node HOST=IDS... [--var NAME=VALUE]...
 *        [--absent NAME]...   (nodes in launch order, IDS like 0,2) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <accel/accel.h>
#include <accel/accel_comm.h>

#define MAX_ITEMS 16

typedef struct expectations {
    const char *hosts[MAX_ITEMS], *ids[MAX_ITEMS];
    int counts[MAX_ITEMS];
    size_t nodes;
    const char *vars[MAX_ITEMS];
    size_t var_count;
    const char *absent[MAX_ITEMS];
    size_t absent_count;
    bool comm;
} expectations_t;

static int failures;
static int rank = -1;

static void check_text(const char *what, const char *seen, const char *expected)
{
    if (seen == NULL ? expected == NULL : expected != NULL && strcmp(seen, expected) == 0)
        return;
    fprintf(stderr, "rank %d: %s is '%s', expected '%s'\n", rank, what, seen ? seen : "(unset)",
            expected ? expected : "(unset)");
    failures++;
}

static void check_env(const char *name, const char *expected)
{
    check_text(name, getenv(name), expected);
}

static void check_env_int(const char *name, long expected)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", expected);
    check_env(name, text);
}

static bool parse(int argc, char **argv, expectations_t *e)
{
    for (int i = 1; i < argc; i++) {
        char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--comm") == 0) {
            e->comm = true;
        } else if (strcmp(argv[i], "--node") == 0 && value && e->nodes < MAX_ITEMS) {
            char *equals = strchr(value, '=');
            if (equals == NULL)
                return false;
            *equals = '\0';
            e->hosts[e->nodes] = value;
            e->ids[e->nodes] = equals + 1;
            e->counts[e->nodes] = 1;
            for (const char *p = equals + 1; *p; p++)
                e->counts[e->nodes] += *p == ',';
            e->nodes++;
            i++;
        } else if (strcmp(argv[i], "--var") == 0 && value && e->var_count < MAX_ITEMS) {
            e->vars[e->var_count++] = value;
            i++;
        } else if (strcmp(argv[i], "--absent") == 0 && value && e->absent_count < MAX_ITEMS) {
            e->absent[e->absent_count++] = value;
            i++;
        } else {
            return false;
        }
    }
    return e->nodes > 0;
}

/* Everything but the collectives: the rank's node from its rank. */
static void check_rank_env(accel_t *acc, const expectations_t *e, int world_size)
{
    int total = 0, node = -1, first = 0;
    for (size_t k = 0; k < e->nodes; k++) {
        if (node < 0 && rank < total + e->counts[k]) {
            node = (int)k;
            first = total;
        }
        total += e->counts[k];
    }
    if (world_size != total || node < 0) {
        fprintf(stderr, "rank %d: world of %d ranks, expected %d\n", rank, world_size, total);
        failures++;
        return;
    }
    check_env("ACCEL_TEST_SHIM_HOST", e->hosts[node]);
    const char *const *names = NULL;
    size_t name_count = 0;
    if (accel_visible_devices_envs(acc, &names, &name_count) != ACCEL_OK || name_count == 0) {
        fprintf(stderr, "rank %d: no visible-devices variable: %s\n", rank, accel_last_error());
        failures++;
    }
    for (size_t i = 0; i < name_count; i++)
        check_env(names[i], e->ids[node]);
    check_env_int("CROSS_RANK", node);
    check_env_int("CROSS_SIZE", (long)e->nodes);
    check_env_int("LOCAL_SIZE", e->counts[node]);
    check_env_int("WORLD_SIZE", total);
    check_env("MASTER_ADDR", e->hosts[0]);
    const char *local =
        getenv("LOCAL_RANK") ? getenv("LOCAL_RANK") : getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    char expected_local[16];
    snprintf(expected_local, sizeof expected_local, "%d", rank - first);
    check_text("the local rank", local, expected_local);
    for (size_t i = 0; i < e->var_count; i++) {
        char name[128];
        const char *equals = strchr(e->vars[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(equals ? equals - e->vars[i] : 0), e->vars[i]);
        check_env(name, equals ? equals + 1 : "");
    }
    for (size_t i = 0; i < e->absent_count; i++)
        check_text(e->absent[i], getenv(e->absent[i]), NULL);
}

static int run_comm(accel_t *acc, const expectations_t *e)
{
    accel_comm_t *comm = NULL;
    int size = 0;
    if (accel_comm_init(acc, NULL, &comm) != ACCEL_OK || accel_comm_rank(comm, &rank) != ACCEL_OK ||
        accel_comm_size(comm, &size) != ACCEL_OK) {
        fprintf(stderr, "rank ?: accel_comm_init: %s\n", accel_last_error());
        return 1;
    }
    check_rank_env(acc, e, size);
    int32_t mine[2] = {failures, rank + 1}, sums[2] = {0, 0};
    if (accel_all_reduce(comm, mine, sums, 2, ACCEL_DTYPE_I32, ACCEL_REDUCE_SUM, NULL) !=
        ACCEL_OK) {
        fprintf(stderr, "rank %d: all_reduce: %s\n", rank, accel_last_error());
        accel_comm_destroy(comm);
        return 1;
    }
    accel_comm_destroy(comm);
    if (sums[1] != size * (size + 1) / 2) {
        fprintf(stderr, "rank %d: all_reduce sum %d, expected %d\n", rank, sums[1],
                size * (size + 1) / 2);
        return 1;
    }
    if (sums[0] != 0) {
        fprintf(stderr, "rank %d: %d check(s) failed across the job\n", rank, sums[0]);
        return 1;
    }
    if (rank == 0)
        printf("all_reduce over %d ranks on %zu nodes: every rank's environment as launched\n",
               size, e->nodes);
    return 0;
}

int main(int argc, char **argv)
{
    expectations_t e = {0};
    accel_t *acc = NULL;
    if (!parse(argc, argv, &e)) {
        fprintf(stderr, "usage: launch_nodes_check [--comm] --node HOST=IDS... [--var N=V]... "
                        "[--absent NAME]...\n");
        return 2;
    }
    if (accel_get(&acc) != ACCEL_OK) {
        fprintf(stderr, "accel_get: %s\n", accel_last_error());
        return 1;
    }
    if (e.comm)
        return run_comm(acc, &e);
    /* Without collectives (the ssh engine): the rank the launcher gave. */
    const char *rank_text = getenv("RANK");
    rank = rank_text ? atoi(rank_text) : -1;
    int total = 0;
    for (size_t k = 0; k < e.nodes; k++)
        total += e.counts[k];
    check_rank_env(acc, &e, total);
    if (rank < 0 || rank >= total) {
        fprintf(stderr, "rank %d: RANK='%s' is not a rank of %d\n", rank,
                rank_text ? rank_text : "(unset)", total);
        failures++;
    }
    if (failures == 0)
        printf("rank %d: environment as launched\n", rank);
    return failures == 0 ? 0 : 1;
}
