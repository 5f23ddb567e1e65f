/* launch_plan.c: the commands of `accel launch`'s engines (launch_plan.h):
 * mpirun with one app context per node (-x per context: Open MPI gives each
 * context its own environment), srun with a small sh script that picks the
 * node's variables by $SLURMD_NODENAME, and one ssh per node whose sh
 * script starts that node's ranks and waits for them. */
#include "launch_plan.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void launch_argv_free(launch_argv_t *argv)
{
    for (size_t i = 0; i < argv->count; i++)
        free(argv->items[i]);
    free(argv->items);
    free(argv->breaks);
    *argv = (launch_argv_t){0};
}

/* Append a copy of `text`; `line_break` starts a new dry-run line there. */
static bool argv_push(launch_argv_t *argv, const char *text, bool line_break)
{
    if (argv->count + 2 > argv->cap) {
        size_t cap = argv->cap ? argv->cap * 2 : 32;
        char **items = realloc(argv->items, cap * sizeof *items);
        if (items == NULL)
            return false;
        argv->items = items;
        bool *breaks = realloc(argv->breaks, cap * sizeof *breaks);
        if (breaks == NULL)
            return false;
        argv->breaks = breaks;
        argv->cap = cap;
    }
    char *copy = strdup(text);
    if (copy == NULL)
        return false;
    argv->breaks[argv->count] = line_break;
    argv->items[argv->count++] = copy;
    argv->items[argv->count] = NULL;
    return true;
}

bool launch_argv_push_word(launch_argv_t *argv, const char *word)
{
    return argv_push(argv, word, false);
}

static bool argv_pushf(launch_argv_t *argv, bool line_break, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static bool argv_pushf(launch_argv_t *argv, bool line_break, const char *format, ...)
{
    char *text = NULL;
    va_list args;
    va_start(args, format);
    int n = vasprintf(&text, format, args);
    va_end(args);
    if (n < 0)
        return false;
    bool ok = argv_push(argv, text, line_break);
    free(text);
    return ok;
}

/* Append a copy of each of `words[0..count)`, on the current line. */
static bool argv_push_all(launch_argv_t *argv, char *const *words, size_t count)
{
    bool ok = true;
    for (size_t i = 0; ok && i < count; i++)
        ok = argv_push(argv, words[i], false);
    return ok;
}

/* Characters a POSIX shell word may hold unquoted. */
static bool plan_is_plain(const char *word)
{
    if (word[0] == '\0')
        return false;
    for (const char *p = word; *p; p++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789,._-+:/@%=", *p))
            return false;
    return true;
}

void launch_shell_single_quote(FILE *out, const char *word)
{
    fputc('\'', out);
    for (const char *p = word; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", out);
        else
            fputc(*p, out);
    }
    fputc('\'', out);
}

void launch_shell_quote(FILE *out, const char *word)
{
    if (plan_is_plain(word))
        fputs(word, out);
    else
        launch_shell_single_quote(out, word);
}

void launch_argv_print(FILE *out, const launch_argv_t *argv)
{
    for (size_t i = 0; i < argv->count; i++) {
        if (i > 0)
            fputs(argv->breaks[i] ? " \\\n  " : " ", out);
        launch_shell_quote(out, argv->items[i]);
    }
    fputc('\n', out);
}

/* " NAME=value" for each variable, the value quoted for a shell. */
static void plan_print_assignments(FILE *out, const launch_vars_t *vars)
{
    for (size_t i = 0; i < vars->count; i++) {
        fprintf(out, " %s=", vars->items[i].name);
        launch_shell_quote(out, vars->items[i].value);
    }
}

static bool plan_out_of_memory(char *err, size_t cap)
{
    snprintf(err, cap, "out of host memory");
    return false;
}

/* Text written to a memory stream: plan_text_open starts it (false when out
 * of memory), plan_text_close ends it and hands the text to the caller to
 * free (NULL when out of memory). The stream points into the struct, so it
 * stays where it was opened until closed. */
typedef struct plan_text {
    FILE *out;
    char *text;
    size_t size;
} plan_text_t;

static bool plan_text_open(plan_text_t *text)
{
    *text = (plan_text_t){0};
    text->out = open_memstream(&text->text, &text->size);
    return text->out != NULL;
}

static char *plan_text_close(plan_text_t *text)
{
    if (fclose(text->out) != 0) {
        free(text->text);
        return NULL;
    }
    return text->text;
}

static bool plan_mpirun(const launch_plan_t *plan, launch_argv_t *out)
{
    bool ok = argv_push(out, plan->engine_path, false) && argv_push(out, "--bind-to", false) &&
              argv_push(out, "none", false);
    if (ok && plan->as_root)
        ok = argv_push(out, "--allow-run-as-root", false);
    if (ok && plan->ssh_port > 0)
        ok = argv_push(out, "--mca", false) && argv_push(out, "plm_rsh_args", false) &&
             argv_pushf(out, false, "-p %d", plan->ssh_port);
    ok = ok && argv_push_all(out, plan->engine_args, plan->engine_arg_count);
    for (size_t node = 0; ok && node < plan->hosts->count; node++) {
        const launch_host_t *host = &plan->hosts->hosts[node];
        if (node > 0)
            ok = argv_push(out, ":", true);
        ok = ok && argv_push(out, "-n", node == 0) && argv_pushf(out, false, "%zu", host->count) &&
             argv_push(out, "--host", false) &&
             argv_pushf(out, false, "%s:%zu", host->name, host->count);
        const launch_vars_t *sets[] = {&plan->node_vars[node], plan->job_vars};
        for (size_t s = 0; s < 2; s++)
            for (size_t i = 0; ok && i < sets[s]->count; i++)
                ok = argv_push(out, "-x", false) &&
                     argv_pushf(out, false, "%s=%s", sets[s]->items[i].name,
                                sets[s]->items[i].value);
        for (size_t i = 0; ok && i < plan->forwarded->count; i++)
            ok = argv_push(out, "-x", false) &&
                 argv_push(out, plan->forwarded->items[i].name, false);
        ok = ok && argv_push_all(out, plan->program, plan->program_count);
    }
    return ok;
}

/* srun's per-task script: the node's variables by host name, then the
 * rank from the node's rank and Slurm's local task id, then the program. */
static char *plan_srun_script(const launch_plan_t *plan, size_t per_node)
{
    plan_text_t script;
    if (!plan_text_open(&script))
        return NULL;
    FILE *out = script.out;
    fputs("case \"$SLURMD_NODENAME\" in", out);
    for (size_t node = 0; node < plan->hosts->count; node++) {
        fprintf(out, " %s) export", plan->hosts->hosts[node].name);
        plan_print_assignments(out, &plan->node_vars[node]);
        fputs(";;", out);
    }
    fputs(" *) echo \"accel launch: node $SLURMD_NODENAME is not one of the selected hosts\" >&2;"
          " exit 1;; esac; export",
          out);
    plan_print_assignments(out, plan->job_vars);
    fprintf(out,
            " RANK=$((CROSS_RANK * %zu + SLURM_LOCALID)) LOCAL_RANK=$SLURM_LOCALID;"
            " exec \"$@\"",
            per_node);
    return plan_text_close(&script);
}

/* srun's --nodelist: the host names, comma-separated. */
static char *plan_srun_nodelist(const launch_hosts_t *hosts)
{
    plan_text_t list;
    if (!plan_text_open(&list))
        return NULL;
    for (size_t node = 0; node < hosts->count; node++)
        fprintf(list.out, "%s%s", node ? "," : "", hosts->hosts[node].name);
    return plan_text_close(&list);
}

static bool plan_srun(const launch_plan_t *plan, launch_argv_t *out, char *err, size_t cap)
{
    const launch_hosts_t *hosts = plan->hosts;
    size_t per_node = hosts->hosts[0].count;
    for (size_t node = 1; node < hosts->count; node++) {
        if (hosts->hosts[node].count != per_node) {
            snprintf(err, cap,
                     "srun starts the same number of ranks on every node, but host '%s' has %zu "
                     "devices selected and host '%s' %zu (select as many on each, e.g. with "
                     "--num_gpus)",
                     hosts->hosts[0].name, per_node, hosts->hosts[node].name,
                     hosts->hosts[node].count);
            return false;
        }
    }
    char *script = plan_srun_script(plan, per_node), *nodelist = plan_srun_nodelist(hosts);
    if (script == NULL || nodelist == NULL) {
        free(script);
        free(nodelist);
        return plan_out_of_memory(err, cap);
    }
    bool ok = argv_push(out, plan->engine_path, false) &&
              argv_pushf(out, false, "--nodes=%zu", hosts->count) &&
              argv_pushf(out, false, "--ntasks=%zu", per_node * hosts->count) &&
              argv_pushf(out, false, "--ntasks-per-node=%zu", per_node) &&
              argv_pushf(out, false, "--nodelist=%s", nodelist) &&
              argv_push(out, "--export=ALL", false);
    ok = ok && argv_push_all(out, plan->engine_args, plan->engine_arg_count);
    ok = ok && argv_push(out, "sh", true) && argv_push(out, "-c", false) &&
         argv_push(out, script, false) && argv_push(out, "accel-launch", false);
    ok = ok && argv_push_all(out, plan->program, plan->program_count);
    free(script);
    free(nodelist);
    return ok || plan_out_of_memory(err, cap);
}

bool launch_plan_command(const launch_plan_t *plan, launch_argv_t *out, char *err, size_t cap)
{
    if (plan->engine == LAUNCH_ENGINE_SRUN)
        return plan_srun(plan, out, err, cap);
    return plan_mpirun(plan, out) || plan_out_of_memory(err, cap);
}

/* The script ssh runs on node `node`: go to this directory, set the
 * variables, start each rank in the background, wait for all of them and
 * exit with the first failure's status. A watcher reads the session's
 * stdin (saved as fd 3: an asynchronous list's own stdin is /dev/null),
 * which the launcher holds open and never writes (launch_cmd.c): when the
 * launcher ends, however it ends (Ctrl-C, a kill, a lost connection), it
 * reads EOF and sends SIGTERM to the ranks, so none outlives the job. Its
 * output goes to /dev/null, so that a watcher still waiting after the ranks
 * ended never holds the session open. */
static char *plan_ssh_script(const launch_plan_t *plan, size_t node)
{
    const launch_host_t *host = &plan->hosts->hosts[node];
    size_t first_rank = 0;
    for (size_t k = 0; k < node; k++)
        first_rank += plan->hosts->hosts[k].count;
    plan_text_t script;
    if (!plan_text_open(&script))
        return NULL;
    FILE *out = script.out;
    fputs("cd ", out);
    launch_shell_quote(out, plan->cwd);
    fputs(" || exit 1; exec 3<&0; export", out);
    plan_print_assignments(out, plan->forwarded);
    plan_print_assignments(out, plan->job_vars);
    plan_print_assignments(out, &plan->node_vars[node]);
    fputs("; pids=", out);
    for (size_t local = 0; local < host->count; local++) {
        fprintf(out, "; RANK=%zu LOCAL_RANK=%zu", first_rank + local, local);
        for (size_t i = 0; i < plan->program_count; i++) {
            fputc(' ', out);
            launch_shell_quote(out, plan->program[i]);
        }
        fputs(" 3<&- & pids=\"$pids $!\"", out);
    }
    fputs("; { cat >/dev/null; kill -TERM $pids; } <&3 >/dev/null 2>&1 & watch=$!; exec 3<&-;"
          " rc=0; for p in $pids; do wait \"$p\"; s=$?; [ \"$rc\" = 0 ] && rc=$s; done;"
          " kill \"$watch\" 2>/dev/null; exit \"$rc\"",
          out);
    return plan_text_close(&script);
}

bool launch_plan_ssh_command(const launch_plan_t *plan, size_t node, launch_argv_t *out, char *err,
                             size_t cap)
{
    char *script = plan_ssh_script(plan, node);
    bool ok = script != NULL && argv_push(out, plan->engine_path, false);
    if (ok && plan->ssh_port > 0)
        ok = argv_push(out, "-p", false) && argv_pushf(out, false, "%d", plan->ssh_port);
    ok = ok && argv_push_all(out, plan->engine_args, plan->engine_arg_count);
    ok =
        ok && argv_push(out, plan->hosts->hosts[node].name, false) && argv_push(out, script, false);
    free(script);
    return ok || plan_out_of_memory(err, cap);
}
