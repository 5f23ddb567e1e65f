/* launch_pool.c: the hosts `accel launch` starts ranks on (launch_pool.h):
 * a DeepSpeed hostfile, or this machine's devices, as
 * deepspeed/launcher/runner.py chooses between them. */
#include "launch_pool.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* DeepSpeed's default hostfile (deepspeed/launcher/runner.py, DLTS_HOSTFILE). */
#define LAUNCH_DEFAULT_HOSTFILE "/job/hostfile"
#define LAUNCH_MAX_LOCAL_IDS    4096

/* The whole of a hostfile (at most 1 MiB), NUL-terminated; NULL with the
 * reason printed. */
static char *launch_read_hostfile(const char *path)
{
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        fprintf(stderr, "accel launch: cannot read hostfile %s: %s\n", path, strerror(errno));
        return NULL;
    }
    enum { LIMIT = 1 << 20 };
    char *text = malloc(LIMIT + 1);
    size_t length = text ? fread(text, 1, LIMIT + 1, file) : 0;
    bool failed = text == NULL || ferror(file) || length > LIMIT;
    fclose(file);
    if (failed) {
        fprintf(stderr, "accel launch: cannot read hostfile %s: %s\n", path,
                text == NULL     ? "out of host memory"
                : length > LIMIT ? "larger than 1 MiB"
                                 : "I/O error");
        free(text);
        return NULL;
    }
    text[length] = '\0';
    if (strlen(text) != length) {
        fprintf(stderr, "accel launch: hostfile %s holds a NUL byte; it is not a text file\n",
                path);
        free(text);
        return NULL;
    }
    return text;
}

/* "0,2,5" into ids; false for anything else. */
static bool launch_parse_id_list(const char *text, int *ids, size_t cap, size_t *count)
{
    *count = 0;
    for (const char *p = text;;) {
        char *end;
        if (*p < '0' || *p > '9' || *count == cap)
            return false;
        errno = 0;
        long value = strtol(p, &end, 10);
        if (errno != 0 || value >= LAUNCH_MAX_SLOTS || (*end != ',' && *end != '\0'))
            return false;
        ids[(*count)++] = (int)value;
        if (*end == '\0')
            return true;
        p = end + 1;
    }
}

/* This machine as the pool, as DeepSpeed does without a hostfile: the
 * devices its visible-devices variable lists when no selection option is
 * given, else all of its devices. */
static bool launch_local_pool(accel_t *acc, const launch_selection_t *s, launch_hosts_t *pool)
{
    static int ids[LAUNCH_MAX_LOCAL_IDS];
    size_t count = 0, name_count = 0;
    const char *const *names = NULL;
    char err[512];
    if (accel_visible_devices_envs(acc, &names, &name_count) != ACCEL_OK) {
        accel_cli_fail("visible devices variables");
        return false;
    }
    const char *visible = name_count > 0 ? getenv(names[0]) : NULL;
    bool selecting = s->include[0] || s->exclude[0] || s->num_nodes > 1 || s->num_gpus > 0;
    if (visible != NULL && visible[0] != '\0' && selecting)
        fprintf(stderr,
                "accel launch: %s=%s is ignored: --include/--exclude/--num_gpus/--num_nodes "
                "choose the devices (as in DeepSpeed)\n",
                names[0], visible);
    if (visible != NULL && visible[0] != '\0' && !selecting) {
        if (!launch_parse_id_list(visible, ids, LAUNCH_MAX_LOCAL_IDS, &count)) {
            fprintf(stderr, "accel launch: %s=%s is not a list of device numbers such as 0,2\n",
                    names[0], visible);
            return false;
        }
    } else {
        int devices = 0;
        if (accel_device_count(acc, &devices) != ACCEL_OK) {
            accel_cli_fail("device count");
            return false;
        }
        for (int i = 0; i < devices && i < LAUNCH_MAX_LOCAL_IDS; i++)
            ids[count++] = i;
    }
    if (!launch_hosts_local("localhost", ids, count, pool, err, sizeof err)) {
        fprintf(stderr, "accel launch: %s\n", err);
        return false;
    }
    return true;
}

/* The pool: the hostfile named, else /job/hostfile when it exists, else
 * this machine. *from_file says which. */
bool launch_pool_open(accel_t *acc, const char *hostfile, const launch_selection_t *selection,
                      launch_hosts_t *pool, bool *from_file)
{
    const char *path = hostfile;
    if (path == NULL && access(LAUNCH_DEFAULT_HOSTFILE, F_OK) == 0)
        path = LAUNCH_DEFAULT_HOSTFILE;
    *from_file = path != NULL;
    if (path == NULL)
        return launch_local_pool(acc, selection, pool);
    char *text = launch_read_hostfile(path), source[PATH_MAX + 16], err[1024];
    if (text == NULL)
        return false;
    snprintf(source, sizeof source, "hostfile %s", path);
    bool ok = launch_hosts_parse(text, source, pool, err, sizeof err);
    if (!ok)
        fprintf(stderr, "accel launch: %s\n", err);
    free(text);
    return ok;
}
