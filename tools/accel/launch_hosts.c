/* launch_hosts.c: DeepSpeed's hostfile and --include/--exclude/--num_nodes/
 * --num_gpus for `accel launch` (launch_hosts.h). The meaning follows
 * deepspeed/launcher/runner.py (_parse_hostfile, parse_resource_filter);
 * where DeepSpeed lets a mistake through (a slot beyond the host's slots, a
 * --num_gpus above them, a --num_nodes above the hosts there are) accel
 * refuses it with a sentence instead. */
#include "launch_hosts.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hosts_error(char *err, size_t cap, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void hosts_error(char *err, size_t cap, const char *format, ...)
{
    if (cap == 0)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(err, cap, format, args);
    va_end(args);
}

static bool hosts_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Letters, digits, '.', '-', '_': what a host name or address may hold and
 * what passes unquoted through mpirun --host, srun --nodelist and ssh. ':'
 * and '@' are the selection syntax's separators, so IPv6 addresses cannot
 * be named (nor can they in DeepSpeed). */
static bool hosts_is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '_';
}

/* Decimal digits only, value <= limit; false for anything else. */
static bool hosts_parse_count(const char *text, size_t length, long limit, long *out)
{
    long value = 0;
    if (length == 0)
        return false;
    for (size_t i = 0; i < length; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        value = value * 10 + (text[i] - '0');
        if (value > limit)
            return false;
    }
    *out = value;
    return true;
}

void launch_hosts_free(launch_hosts_t *hosts)
{
    for (size_t i = 0; i < hosts->count; i++) {
        free(hosts->hosts[i].name);
        free(hosts->hosts[i].ids);
    }
    free(hosts->hosts);
    hosts->hosts = NULL;
    hosts->count = 0;
}

size_t launch_hosts_total(const launch_hosts_t *hosts)
{
    size_t total = 0;
    for (size_t i = 0; i < hosts->count; i++)
        total += hosts->hosts[i].count;
    return total;
}

static launch_host_t *hosts_find(const launch_hosts_t *hosts, const char *name, size_t length)
{
    for (size_t i = 0; i < hosts->count; i++) {
        if (strlen(hosts->hosts[i].name) == length &&
            memcmp(hosts->hosts[i].name, name, length) == 0)
            return &hosts->hosts[i];
    }
    return NULL;
}

/* Append a host with ids `ids` (count of them) or, when ids is NULL, all of
 * 0 .. slots-1. False only when out of memory. */
static bool hosts_append(launch_hosts_t *hosts, const char *name, size_t length, int slots,
                         const int *ids, size_t count)
{
    launch_host_t *grown = realloc(hosts->hosts, (hosts->count + 1) * sizeof *grown);
    if (grown == NULL)
        return false;
    hosts->hosts = grown;
    launch_host_t *host = &grown[hosts->count];
    size_t id_count = ids ? count : (size_t)slots;
    host->name = strndup(name, length);
    host->ids = malloc((id_count ? id_count : 1) * sizeof *host->ids);
    if (host->name == NULL || host->ids == NULL) {
        free(host->name);
        free(host->ids);
        return false;
    }
    for (size_t i = 0; i < id_count; i++)
        host->ids[i] = ids ? ids[i] : (int)i;
    host->slots = slots;
    host->count = id_count;
    hosts->count++;
    return true;
}

/* One hostfile line (without its newline, `length` bytes, not blank, not a
 * comment): `NAME slots=N [words...]`. */
static bool hosts_parse_line(launch_hosts_t *out, const char *line, size_t length,
                             const char *where, char *err, size_t cap)
{
    size_t name_length = 0;
    while (name_length < length && !hosts_is_blank(line[name_length]))
        name_length++;
    int shown = length > 120 ? 120 : (int)length;
    const char *p = line + name_length, *end = line + length;
    while (p < end && hosts_is_blank(*p))
        p++;
    if (p == line + name_length || (size_t)(end - p) < strlen("slots=") ||
        strncmp(p, "slots=", strlen("slots=")) != 0) {
        hosts_error(err, cap, "%s: '%.*s' is not 'NAME slots=N' (e.g. 'worker-0 slots=4')", where,
                    shown, line);
        return false;
    }
    for (size_t i = 0; i < name_length; i++) {
        if (!hosts_is_name_char(line[i])) {
            hosts_error(err, cap,
                        "%s: host '%.*s' has a character other than letters, digits, '.', '-' "
                        "and '_'",
                        where, (int)(name_length > 120 ? 120 : name_length), line);
            return false;
        }
    }
    if (name_length > LAUNCH_MAX_HOST_NAME || line[0] == '-') {
        hosts_error(err, cap,
                    "%s: '%.*s%s' is not a host name (at most %d characters, not "
                    "starting with '-')",
                    where, (int)(name_length > 40 ? 40 : name_length), line,
                    name_length > 40 ? "..." : "", LAUNCH_MAX_HOST_NAME);
        return false;
    }
    const char *value = p + strlen("slots=");
    size_t digits = 0;
    while (value + digits < end && !hosts_is_blank(value[digits]))
        digits++;
    long slots = 0;
    if (!hosts_parse_count(value, digits, LAUNCH_MAX_SLOTS, &slots) || slots < 1) {
        hosts_error(err, cap,
                    "%s: host '%.*s' has slots=%.*s; slots must be a whole number from "
                    "1 to %d",
                    where, (int)name_length, line, digits > 20 ? 20 : (int)digits, value,
                    LAUNCH_MAX_SLOTS);
        return false;
    }
    if (hosts_find(out, line, name_length) != NULL) {
        hosts_error(err, cap, "%s: host '%.*s' is listed a second time (one line per host)", where,
                    (int)name_length, line);
        return false;
    }
    if (!hosts_append(out, line, name_length, (int)slots, NULL, 0)) {
        hosts_error(err, cap, "out of host memory");
        return false;
    }
    return true;
}

bool launch_hosts_parse(const char *text, const char *source, launch_hosts_t *out, char *err,
                        size_t err_cap)
{
    launch_hosts_t parsed = {0};
    size_t line_number = 0;
    char where[512];
    for (const char *line = text; *line != '\0';) {
        size_t length = strcspn(line, "\n");
        const char *next = line + length + (line[length] == '\n');
        line_number++;
        while (length > 0 && hosts_is_blank(*line)) {
            line++;
            length--;
        }
        while (length > 0 && hosts_is_blank(line[length - 1]))
            length--;
        if (length > 0 && line[0] != '#') {
            snprintf(where, sizeof where, "%s, line %zu", source, line_number);
            if (!hosts_parse_line(&parsed, line, length, where, err, err_cap)) {
                launch_hosts_free(&parsed);
                return false;
            }
        }
        line = next;
    }
    if (parsed.count == 0) {
        hosts_error(err, err_cap, "%s lists no host (expected lines such as 'worker-0 slots=4')",
                    source);
        return false;
    }
    *out = parsed;
    return true;
}

bool launch_hosts_local(const char *name, const int *ids, size_t count, launch_hosts_t *out,
                        char *err, size_t err_cap)
{
    int slots = 0;
    for (size_t i = 0; i < count; i++) {
        if (ids[i] < 0 || ids[i] >= LAUNCH_MAX_SLOTS) {
            hosts_error(err, err_cap, "device id %d is outside 0 to %d", ids[i],
                        LAUNCH_MAX_SLOTS - 1);
            return false;
        }
        slots = ids[i] + 1 > slots ? ids[i] + 1 : slots;
    }
    if (count == 0) {
        hosts_error(err, err_cap, "%s has no device to run on", name);
        return false;
    }
    launch_hosts_t local = {0};
    if (!hosts_append(&local, name, strlen(name), slots, ids, count)) {
        hosts_error(err, err_cap, "out of host memory");
        return false;
    }
    *out = local;
    return true;
}

/* ---- selection */

/* What one --include/--exclude string says about each host of the pool:
 * whole[h] (named without slots) and mark[h][id] (slot id named). */
typedef struct hosts_marks {
    bool *whole;
    unsigned char **mark;
    size_t count;
} hosts_marks_t;

static void hosts_marks_free(hosts_marks_t *marks)
{
    for (size_t i = 0; marks->mark && i < marks->count; i++)
        free(marks->mark[i]);
    free(marks->mark);
    free(marks->whole);
}

static bool hosts_marks_alloc(hosts_marks_t *marks, const launch_hosts_t *hosts)
{
    marks->count = hosts->count;
    marks->whole = calloc(hosts->count + 1, sizeof *marks->whole);
    marks->mark = calloc(hosts->count + 1, sizeof *marks->mark);
    if (marks->whole == NULL || marks->mark == NULL)
        return false;
    for (size_t i = 0; i < hosts->count; i++) {
        marks->mark[i] = calloc((size_t)hosts->hosts[i].slots, 1);
        if (marks->mark[i] == NULL)
            return false;
    }
    return true;
}

/* "a, b, c" (the pool's names) for messages, cut to fit. */
static void hosts_list_names(const launch_hosts_t *hosts, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < hosts->count && used + 1 < cap; i++) {
        int n = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", hosts->hosts[i].name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* Is `id` one of host's current ids? */
static bool hosts_has_id(const launch_host_t *host, long id)
{
    for (size_t i = 0; i < host->count; i++)
        if (host->ids[i] == id)
            return true;
    return false;
}

/* One NODE_SPEC (`length` bytes at spec): NAME or NAME:SLOT[,SLOT...]. */
static bool hosts_mark_spec(const launch_hosts_t *hosts, hosts_marks_t *marks, const char *option,
                            const char *spec, size_t length, char *err, size_t cap)
{
    const char *colon = memchr(spec, ':', length);
    size_t name_length = colon ? (size_t)(colon - spec) : length;
    if (name_length == 0) {
        hosts_error(err, cap, "%s: '%.*s' names no host (expected NAME[:SLOT,...] between '@'s)",
                    option, (int)length, spec);
        return false;
    }
    launch_host_t *host = hosts_find(hosts, spec, name_length);
    if (host == NULL) {
        char names[256];
        hosts_list_names(hosts, names, sizeof names);
        hosts_error(err, cap, "%s: host '%.*s' is not one of the hosts to launch on (%s)", option,
                    (int)(name_length > 255 ? 255 : name_length), spec, names);
        return false;
    }
    size_t index = (size_t)(host - hosts->hosts);
    if (colon == NULL) {
        marks->whole[index] = true;
        return true;
    }
    const char *slot = colon + 1, *end = spec + length;
    if (memchr(slot, ':', (size_t)(end - slot)) != NULL) {
        hosts_error(err, cap, "%s: '%.*s' has more than one ':' (expected NAME:SLOT,SLOT)", option,
                    (int)length, spec);
        return false;
    }
    for (;;) {
        const char *comma = memchr(slot, ',', (size_t)(end - slot));
        size_t slot_length = comma ? (size_t)(comma - slot) : (size_t)(end - slot);
        long id = 0;
        if (!hosts_parse_count(slot, slot_length, LAUNCH_MAX_SLOTS, &id)) {
            hosts_error(err, cap, "%s: slot '%.*s' of host '%s' is not a device number", option,
                        (int)(slot_length > 40 ? 40 : slot_length), slot, host->name);
            return false;
        }
        if (id >= host->slots || !hosts_has_id(host, id)) {
            hosts_error(err, cap, "%s: host '%s' has no slot %ld (its slots: 0 to %d)", option,
                        host->name, id, host->slots - 1);
            return false;
        }
        marks->mark[index][id] = 1;
        if (comma == NULL)
            return true;
        slot = comma + 1;
    }
}

static bool hosts_mark(const launch_hosts_t *hosts, hosts_marks_t *marks, const char *option,
                       const char *text, char *err, size_t cap)
{
    for (const char *spec = text;;) {
        size_t length = strcspn(spec, "@");
        if (!hosts_mark_spec(hosts, marks, option, spec, length, err, cap))
            return false;
        if (spec[length] == '\0')
            return true;
        spec += length + 1;
    }
}

/* The new id list of host `h` (into ids, returns the count). */
static size_t hosts_select_ids(const launch_host_t *host, const hosts_marks_t *marks, size_t h,
                               bool include, int *ids)
{
    size_t count = 0;
    if (include) {
        if (marks->whole[h]) {
            memcpy(ids, host->ids, host->count * sizeof *ids);
            return host->count;
        }
        for (int id = 0; id < host->slots; id++)
            if (marks->mark[h][id])
                ids[count++] = id;
        return count;
    }
    if (marks->whole[h])
        return 0;
    for (size_t i = 0; i < host->count; i++)
        if (!marks->mark[h][host->ids[i]])
            ids[count++] = host->ids[i];
    return count;
}

/* Replace each host's ids with new[h] (count[h] of them), dropping hosts
 * left with none; new arrays are taken over. */
static void hosts_commit(launch_hosts_t *hosts, int **new_ids, const size_t *new_counts)
{
    size_t kept = 0;
    for (size_t h = 0; h < hosts->count; h++) {
        launch_host_t host = hosts->hosts[h];
        free(host.ids);
        host.ids = new_ids[h];
        host.count = new_counts[h];
        if (host.count == 0) {
            free(host.name);
            free(host.ids);
            continue;
        }
        hosts->hosts[kept++] = host;
    }
    hosts->count = kept;
}

static bool hosts_check_options(const launch_hosts_t *hosts, const launch_selection_t *selection,
                                char *err, size_t cap)
{
    bool include = selection->include && selection->include[0];
    bool exclude = selection->exclude && selection->exclude[0];
    if (include && exclude) {
        hosts_error(err, cap, "--include and --exclude cannot be given together");
        return false;
    }
    if ((include || exclude) && (selection->num_nodes >= 0 || selection->num_gpus >= 0)) {
        hosts_error(err, cap,
                    "--num_nodes and --num_gpus cannot be combined with --%s "
                    "(as in DeepSpeed)",
                    include ? "include" : "exclude");
        return false;
    }
    if (selection->num_nodes == 0 || selection->num_gpus == 0) {
        hosts_error(err, cap, "--%s 0 leaves no device to run on",
                    selection->num_nodes == 0 ? "num_nodes" : "num_gpus");
        return false;
    }
    if (selection->num_nodes > 0 && (size_t)selection->num_nodes > hosts->count) {
        hosts_error(err, cap, "--num_nodes %d: there %s only %zu host%s to launch on",
                    selection->num_nodes, hosts->count == 1 ? "is" : "are", hosts->count,
                    hosts->count == 1 ? "" : "s");
        return false;
    }
    for (size_t h = 0; selection->num_gpus > 0 && h < hosts->count; h++) {
        size_t last = selection->num_nodes > 0 ? (size_t)selection->num_nodes : hosts->count;
        if (h < last && selection->num_gpus > hosts->hosts[h].slots) {
            hosts_error(err, cap, "--num_gpus %d: host '%s' has only %d slot%s",
                        selection->num_gpus, hosts->hosts[h].name, hosts->hosts[h].slots,
                        hosts->hosts[h].slots == 1 ? "" : "s");
            return false;
        }
    }
    return true;
}

bool launch_hosts_select(launch_hosts_t *hosts, const launch_selection_t *selection, char *err,
                         size_t err_cap)
{
    if (!hosts_check_options(hosts, selection, err, err_cap))
        return false;
    bool include = selection->include && selection->include[0];
    bool exclude = selection->exclude && selection->exclude[0];
    hosts_marks_t marks = {0};
    int **new_ids = calloc(hosts->count + 1, sizeof *new_ids);
    size_t *new_counts = calloc(hosts->count + 1, sizeof *new_counts);
    bool ok = new_ids != NULL && new_counts != NULL && hosts_marks_alloc(&marks, hosts);
    if (!ok)
        hosts_error(err, err_cap, "out of host memory");
    if (ok && (include || exclude))
        ok = hosts_mark(hosts, &marks, include ? "--include" : "--exclude",
                        include ? selection->include : selection->exclude, err, err_cap);
    size_t total = 0;
    for (size_t h = 0; ok && h < hosts->count; h++) {
        const launch_host_t *host = &hosts->hosts[h];
        new_ids[h] = malloc(((size_t)host->slots + host->count + 1) * sizeof **new_ids);
        if (new_ids[h] == NULL) {
            hosts_error(err, err_cap, "out of host memory");
            ok = false;
        } else if (include || exclude) {
            new_counts[h] = hosts_select_ids(host, &marks, h, include, new_ids[h]);
        } else if (selection->num_nodes > 0 && h >= (size_t)selection->num_nodes) {
            new_counts[h] = 0;
        } else if (selection->num_gpus > 0) {
            for (int id = 0; id < selection->num_gpus; id++)
                new_ids[h][id] = id;
            new_counts[h] = (size_t)selection->num_gpus;
        } else {
            memcpy(new_ids[h], host->ids, host->count * sizeof **new_ids);
            new_counts[h] = host->count;
        }
        total += new_counts[h];
    }
    if (ok && total == 0) {
        if (exclude)
            hosts_error(err, err_cap, "--exclude '%s' leaves no device to run on",
                        selection->exclude);
        else
            hosts_error(err, err_cap, "the selection leaves no device to run on");
        ok = false;
    }
    if (ok)
        hosts_commit(hosts, new_ids, new_counts);
    for (size_t h = 0; !ok && new_ids != NULL && h < hosts->count; h++)
        free(new_ids[h]);
    free(new_ids);
    free(new_counts);
    hosts_marks_free(&marks);
    return ok;
}
