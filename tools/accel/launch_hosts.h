/* launch_hosts.h: the resource pool of `accel launch`: DeepSpeed's hostfile
 * (`host slots=N` lines) and its selection options (--include/--exclude
 * `host1:0,2@host2`, --num_nodes, --num_gpus), with DeepSpeed's meaning
 * (deepspeed/launcher/runner.py) and a sentence naming the line or host for
 * every input refused. Pure parsing: no I/O, no environment, no accel calls,
 * so the unit test and the fuzz harness drive it directly.
 *
 * Ownership: a launch_hosts_t owns its hosts, their names and id arrays;
 * launch_hosts_free releases them. Not thread-safe (one launcher thread). */
#ifndef ACCEL_TOOLS_LAUNCH_HOSTS_H
#define ACCEL_TOOLS_LAUNCH_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

/* The most slots one host may declare: far above any node's device count,
 * low enough that a typo (slots=80000000) is refused, not allocated. */
#define LAUNCH_MAX_SLOTS 4096
/* The longest host name accepted (a DNS name is at most 253 bytes). */
#define LAUNCH_MAX_HOST_NAME 255

typedef struct launch_host {
    char *name;   /* as written in the hostfile */
    int slots;    /* devices the hostfile gives it: ids 0 .. slots-1 */
    int *ids;     /* the selected device ids, in launch order (owned) */
    size_t count; /* how many are selected; 0 drops the host */
} launch_host_t;

typedef struct launch_hosts {
    launch_host_t *hosts; /* in hostfile order (owned) */
    size_t count;
} launch_hosts_t;

/* Parse hostfile `text` (NUL-terminated). Blank lines and lines whose first
 * non-blank character is '#' are skipped; every other line is
 * `NAME slots=N`, optionally followed by more blank-separated words (Open
 * MPI's max_slots=..., a trailing # comment), which are ignored as DeepSpeed
 * ignores them. `source` names the file in messages. On success every host
 * has all its slots selected. On failure writes the sentence into err
 * (NUL-terminated, cut to err_cap) and leaves *out empty. */
bool launch_hosts_parse(const char *text, const char *source, launch_hosts_t *out, char *err,
                        size_t err_cap);

/* The pool without a hostfile: one host `name` whose selected ids are
 * `ids` (the local devices, or the ones a visible-devices variable lists). */
bool launch_hosts_local(const char *name, const int *ids, size_t count, launch_hosts_t *out,
                        char *err, size_t err_cap);

/* What to keep of the pool: DeepSpeed's options. Empty strings and values
 * below 0 mean "not given"; include and exclude exclude each other and both
 * exclude num_nodes/num_gpus. */
typedef struct launch_selection {
    const char *include; /* NODE_SPEC[@NODE_SPEC...], NODE_SPEC = NAME[:SLOT[,SLOT...]] */
    const char *exclude; /* same syntax: what to drop */
    int num_nodes;       /* the first N hosts */
    int num_gpus;        /* ids 0 .. N-1 on every host */
} launch_selection_t;

/* Apply `selection` to `hosts` in place: hosts keep their hostfile order,
 * an included host's ids are ascending and unique, hosts left with no id are
 * removed. A selection that names an unknown host or slot, or that leaves
 * no device at all, is refused with a sentence; *hosts is then unchanged. */
bool launch_hosts_select(launch_hosts_t *hosts, const launch_selection_t *selection, char *err,
                         size_t err_cap);

/* Total selected ids over all hosts. */
size_t launch_hosts_total(const launch_hosts_t *hosts);

void launch_hosts_free(launch_hosts_t *hosts);

#endif
