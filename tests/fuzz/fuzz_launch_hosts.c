/* fuzz_launch_hosts.c: `accel launch`'s hostfile and selection parser
 * (tools/accel/launch_hosts.c). The input is a hostfile, then (after the
 * first 0xff byte) a selection: its first byte picks --include or --exclude
 * or --num_nodes/--num_gpus, the rest is the NODE_SPEC string. Checked:
 * a parsed pool is well formed (names of the allowed characters, unique,
 * slots in range, all ids selected); a selection that succeeds keeps the
 * hostfile's order and leaves at least one device, each id once and within
 * its host's slots; one that fails says why and changes nothing. */
#include "fuzz.h"

#include "launch_hosts.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static void check_pool(const launch_hosts_t *hosts)
{
    FUZZ_CHECK(hosts->count >= 1);
    for (size_t h = 0; h < hosts->count; h++) {
        const launch_host_t *host = &hosts->hosts[h];
        size_t length = strlen(host->name);
        FUZZ_CHECK(length >= 1 && length <= LAUNCH_MAX_HOST_NAME && host->name[0] != '-');
        FUZZ_CHECK(strspn(host->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789.-_") == length);
        FUZZ_CHECK(host->slots >= 1 && host->slots <= LAUNCH_MAX_SLOTS);
        FUZZ_CHECK(host->count == (size_t)host->slots);
        for (size_t i = 0; i < host->count; i++)
            FUZZ_CHECK(host->ids[i] == (int)i);
        for (size_t k = 0; k < h; k++)
            FUZZ_CHECK(strcmp(hosts->hosts[k].name, host->name) != 0);
    }
}

/* Each selected host comes from the pool, in its order, with unique ids
 * within its slots; at least one id in all. */
static void check_selected(const launch_hosts_t *selected, char **names, const int *slots,
                           size_t pool_count, bool ascending)
{
    size_t next = 0;
    FUZZ_CHECK(selected->count >= 1 && launch_hosts_total(selected) >= 1);
    for (size_t h = 0; h < selected->count; h++) {
        const launch_host_t *host = &selected->hosts[h];
        while (next < pool_count && strcmp(names[next], host->name) != 0)
            next++;
        FUZZ_CHECK(next < pool_count);
        FUZZ_CHECK(host->slots == slots[next]);
        FUZZ_CHECK(host->count >= 1 && host->count <= (size_t)host->slots);
        for (size_t i = 0; i < host->count; i++) {
            FUZZ_CHECK(host->ids[i] >= 0 && host->ids[i] < host->slots);
            for (size_t k = 0; k < i; k++)
                FUZZ_CHECK(ascending ? host->ids[k] < host->ids[i] : host->ids[k] != host->ids[i]);
        }
        next++;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *mark = memchr(data, 0xff, size);
    size_t file_size = mark ? (size_t)(mark - data) : size;
    char *text = fuzz_string(data, file_size);
    char err[512] = "";
    launch_hosts_t hosts = {0};
    if (!launch_hosts_parse(text, "hostfile F", &hosts, err, sizeof err)) {
        FUZZ_CHECK(err[0] != '\0' && hosts.count == 0 && hosts.hosts == NULL);
        free(text);
        return 0;
    }
    check_pool(&hosts);
    /* the pool's names and slots, to compare the selection with */
    char **names = calloc(hosts.count, sizeof *names);
    int *slots = calloc(hosts.count, sizeof *slots);
    FUZZ_CHECK(names != NULL && slots != NULL);
    size_t pool_count = hosts.count, pool_total = launch_hosts_total(&hosts);
    for (size_t h = 0; h < hosts.count; h++) {
        names[h] = strdup(hosts.hosts[h].name);
        FUZZ_CHECK(names[h] != NULL);
        slots[h] = hosts.hosts[h].slots;
    }
    uint8_t how = mark && mark + 1 < data + size ? mark[1] : 0;
    char *spec = mark && mark + 2 <= data + size ? fuzz_string(mark + 2, size - file_size - 2)
                                                 : fuzz_string(data, 0);
    launch_selection_t selection = {.include = "", .exclude = "", .num_nodes = -1, .num_gpus = -1};
    switch (how % 4) {
    case 0: selection.include = spec; break;
    case 1: selection.exclude = spec; break;
    case 2: selection.num_nodes = how / 4 % 8 - 1; break;
    default: selection.num_gpus = how / 4 % 8 - 1; break;
    }
    if (launch_hosts_select(&hosts, &selection, err, sizeof err)) {
        check_selected(&hosts, names, slots, pool_count, how % 4 == 0);
    } else {
        FUZZ_CHECK(err[0] != '\0');
        FUZZ_CHECK(hosts.count == pool_count && launch_hosts_total(&hosts) == pool_total);
        check_pool(&hosts);
    }
    for (size_t h = 0; h < pool_count; h++)
        free(names[h]);
    free(names);
    free(slots);
    free(spec);
    launch_hosts_free(&hosts);
    free(text);
    return 0;
}
