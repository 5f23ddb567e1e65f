/* runner.c: the parent side of the selftest runner (selftest.h): starts one
 * child per check (one per group for collectives, whose ranks bootstrap once
 * per process, and per batch for the ctest drivers), enforces the watchdog
 * and turns what each child wrote or how it died into a record. Which
 * checks run, in which order: select.c. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <accel/accel.h>

#include "selftest.h"

extern char **environ;

/* What the parent keeps of a child's output per check. */
#define RUNNER_OUTPUT_MAX (64 * 1024)

static double runner_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *selftest_result_name(check_result_t result)
{
    static const char *const names[] = {"PASS", "FAIL", "SKIP", "HANG", "CRASH"};
    return (unsigned)result <= CHECK_CRASH ? names[result] : "?";
}

static bool runner_result_parse(const char *text, check_result_t *out)
{
    for (int r = CHECK_PASS; r <= CHECK_CRASH; r++) {
        if (strcmp(text, selftest_result_name((check_result_t)r)) == 0) {
            *out = (check_result_t)r;
            return true;
        }
    }
    return false;
}

/* ---------------------------------------------------------------- one child */

typedef struct runner_child {
    pid_t pid;
    int out_fd;    /* the child's stdout and stderr */
    int result_fd; /* its records (fd 3 there) */
} runner_child_t;

/* Extra environment for one check from ACCEL_SELFTEST_CHECK_ENV
 * ("check:VAR=value;check:VAR=value"), a test-only knob that injects a
 * fault into a single check (a sim delay past the watchdog). */
static bool runner_names_contain(const char *names, const char *name, size_t name_len)
{
    for (const char *q = names; *q != '\0';) {
        size_t item = strcspn(q, ",");
        if (item == name_len && strncmp(q, name, name_len) == 0)
            return true;
        q += item;
        if (*q == ',')
            q++;
    }
    return false;
}

static char **runner_child_env(const char *names, char **storage, size_t storage_cap)
{
    const char *spec = getenv("ACCEL_SELFTEST_CHECK_ENV");
    size_t base = 0, extra = 0;
    char **env;
    while (environ[base] != NULL)
        base++;
    env = calloc(base + storage_cap + 1, sizeof *env);
    if (env == NULL)
        return NULL;
    memcpy(env, environ, base * sizeof *env);
    for (const char *p = spec; p != NULL && *p != '\0' && extra < storage_cap;) {
        size_t len = strcspn(p, ";");
        const char *colon = memchr(p, ':', len);
        if (colon != NULL && runner_names_contain(names, p, (size_t)(colon - p))) {
            storage[extra] = strndup(colon + 1, len - (size_t)(colon - p) - 1);
            if (storage[extra] != NULL) {
                env[base + extra] = storage[extra];
                extra++;
            }
        }
        p += len;
        if (*p == ';')
            p++;
    }
    env[base + extra] = NULL;
    return env;
}

static bool runner_spawn(const selftest_options_t *options, const char *names,
                         runner_child_t *child)
{
    int out_pipe[2] = {-1, -1}, result_pipe[2] = {-1, -1};
    const char *argv[32];
    char *extra_env[8] = {0};
    size_t argc = 0;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    char **env;
    int err;

    argv[argc++] = "selftest-child";
    for (size_t i = 0; options->child_words != NULL && options->child_words[i] != NULL && i < 20;
         i++)
        argv[argc++] = options->child_words[i];
    argv[argc++] = "--run-one";
    argv[argc++] = names;
    argv[argc++] = "--backend";
    argv[argc++] = options->backend;
    argv[argc] = NULL;

    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(result_pipe, O_CLOEXEC) != 0) {
        perror("selftest: pipe");
        goto fail;
    }
    env = runner_child_env(names, extra_env, 8);
    if (env == NULL)
        goto fail;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 2);
    posix_spawn_file_actions_adddup2(&actions, result_pipe[1], 3);
    posix_spawnattr_init(&attr);
    /* Its own process group, so the watchdog can end what it started too. */
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    err = posix_spawn(&child->pid, "/proc/self/exe", &actions, &attr, (char *const *)argv, env);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    free(env);
    for (size_t i = 0; i < 8; i++)
        free(extra_env[i]);
    if (err != 0) {
        fprintf(stderr, "selftest: cannot start /proc/self/exe: %s\n", strerror(err));
        goto fail;
    }
    close(out_pipe[1]);
    close(result_pipe[1]);
    child->out_fd = out_pipe[0];
    child->result_fd = result_pipe[0];
    return true;

fail:
    for (int i = 0; i < 2; i++) {
        if (out_pipe[i] >= 0)
            close(out_pipe[i]);
        if (result_pipe[i] >= 0)
            close(result_pipe[i]);
    }
    return false;
}

static const char *runner_signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "SIGTRAP";
    case SIGPIPE: return "SIGPIPE";
    case SIGSYS: return "SIGSYS";
    default: return NULL;
    }
}

/* ---------------------------------------------------------------- a batch */

typedef struct runner_batch {
    selftest_run_t *run;
    const selftest_options_t *options;
    const selftest_check_t **checks; /* the checks this child runs, in order */
    size_t count;
    size_t done;    /* records received */
    double started; /* when the current check started */
    char line[CHECK_SENTENCE_MAX + 512];
    size_t line_len;
    bool exiting;  /* the child said it ends after its last record */
    bool cleaning; /* the child closes the backend after a check that did not pass */
    char *output;  /* output of the current check */
    size_t output_len;
} runner_batch_t;

static void runner_print(const selftest_options_t *options, const selftest_record_t *record);
static void runner_skip_all(runner_batch_t *batch, const selftest_check_t *const *checks,
                            size_t count, const char *why);

static selftest_record_t *runner_record_add(runner_batch_t *batch, const selftest_check_t *check,
                                            check_result_t result)
{
    selftest_run_t *run = batch->run;
    selftest_record_t *record = &run->records[run->count++];
    double now = runner_now();
    *record = (selftest_record_t){.check = check, .result = result};
    record->seconds = now - batch->started;
    record->output = batch->output;
    batch->output = NULL;
    batch->output_len = 0;
    batch->started = now;
    run->totals[result]++;
    return record;
}

/* Split a record line into at most 4 tab-separated fields (the last keeps
 * the rest); returns the number found. */
static size_t runner_split(char *line, char **fields)
{
    size_t n = 0;
    fields[n++] = line;
    while (n < 4) {
        char *tab = strchr(fields[n - 1], '\t');
        if (tab == NULL)
            break;
        *tab = '\0';
        fields[n++] = tab + 1;
    }
    return n;
}

static void runner_take_line(runner_batch_t *batch, char *line)
{
    char *fields[4] = {0};
    size_t n = runner_split(line, fields);
    if (n >= 3 && strcmp(fields[0], "fact") == 0) {
        if (strcmp(fields[1], "comm_engine") == 0)
            snprintf(batch->run->comm_engine, sizeof batch->run->comm_engine, "%s", fields[2]);
        else if (strcmp(fields[1], "exiting") == 0)
            batch->exiting = true;
        else if (strcmp(fields[1], "cleanup") == 0)
            batch->cleaning = true;
        else if (strcmp(fields[1], "cleaned") == 0)
            batch->cleaning = false;
        return;
    }
    if (batch->done >= batch->count || n < 2)
        return;
    const selftest_check_t *check = batch->checks[batch->done];
    check_result_t result = CHECK_CRASH;
    bool understood =
        strcmp(fields[0], check->name) == 0 && runner_result_parse(fields[1], &result);
    selftest_record_t *record = runner_record_add(batch, check, understood ? result : CHECK_CRASH);
    snprintf(record->where, sizeof record->where, "%s", n >= 3 ? fields[2] : "");
    if (understood)
        snprintf(record->sentence, sizeof record->sentence, "%s", n >= 4 ? fields[3] : "");
    else
        snprintf(record->sentence, sizeof record->sentence,
                 "its process wrote a record the runner does not understand");
    batch->done++;
    runner_print(batch->options, record);
}

static void runner_read_results(runner_batch_t *batch, const char *data, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        if (data[i] == '\n') {
            batch->line[batch->line_len] = '\0';
            runner_take_line(batch, batch->line);
            batch->line_len = 0;
        } else if (batch->line_len + 1 < sizeof batch->line) {
            batch->line[batch->line_len++] = data[i];
        }
    }
}

static void runner_read_output(runner_batch_t *batch, const char *data, size_t size)
{
    if (batch->output_len + size > RUNNER_OUTPUT_MAX)
        size = RUNNER_OUTPUT_MAX - batch->output_len;
    if (size == 0)
        return;
    char *grown = realloc(batch->output, batch->output_len + size + 1);
    if (grown == NULL)
        return;
    memcpy(grown + batch->output_len, data, size);
    batch->output_len += size;
    grown[batch->output_len] = '\0';
    batch->output = grown;
}

/* The checks' names joined by commas (malloc'ed), as --run-one takes them. */
static char *runner_names(const selftest_check_t **checks, size_t count)
{
    size_t len = 1, used = 0;
    for (size_t i = 0; i < count; i++)
        len += strlen(checks[i]->name) + 1;
    char *names = malloc(len);
    if (names == NULL)
        return NULL;
    names[0] = '\0';
    for (size_t i = 0; i < count; i++)
        used += (size_t)snprintf(names + used, len - used, "%s%s", i ? "," : "", checks[i]->name);
    return names;
}

/* Every record arrived but the process then failed on its way out: a
 * sanitizer's report at exit (LeakSanitizer), or a crash in teardown. The
 * last check takes the blame with what the process printed after it; in a
 * batch the cause may lie in any check of the child. */
static void runner_exit_failure(runner_batch_t *batch, int status)
{
    selftest_run_t *run = batch->run;
    selftest_record_t *record = &run->records[run->count - 1];
    char how[64];
    if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "was killed by signal %d", WTERMSIG(status));
    else
        snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
    if (record->result == CHECK_PASS || record->result == CHECK_SKIP) {
        run->totals[record->result]--;
        record->result = CHECK_FAIL;
        run->totals[CHECK_FAIL]++;
        snprintf(record->where, sizeof record->where, "exit");
        snprintf(record->sentence, sizeof record->sentence,
                 "after its result the check's process %s (a sanitizer's report at exit?)", how);
    }
    if (batch->output != NULL) {
        size_t old_len = record->output != NULL ? strlen(record->output) : 0;
        size_t add = strlen(batch->output);
        char *joined = realloc(record->output, old_len + add + 1);
        if (joined != NULL) {
            memcpy(joined + old_len, batch->output, add + 1);
            record->output = joined;
        }
    }
    free(batch->output);
    batch->output = NULL;
    runner_print(batch->options, record);
}

/* Closing the backend after a check that did not pass hung: that check
 * (the last with a record) keeps its result, and its sentence says so. */
static void runner_cleanup_hung(runner_batch_t *batch, double timeout)
{
    selftest_record_t *record = &batch->run->records[batch->run->count - 1];
    size_t used = strlen(record->sentence);
    snprintf(record->sentence + used, sizeof record->sentence - used,
             "; closing the backend after it then hung (work left stuck?): the watchdog killed "
             "its processes after %.0f s",
             timeout);
    free(batch->output);
    batch->output = NULL;
}

/* Run `count` checks in one child and append their records to the run.
 * Returns how many got a record: `count`, or fewer when the child hung or
 * died (its current check then has its HANG or CRASH record). */
static size_t runner_session(const selftest_options_t *options, selftest_run_t *run,
                             const selftest_check_t **checks, size_t count)
{
    runner_batch_t batch = {.run = run, .options = options, .checks = checks, .count = count};
    runner_child_t child;
    double timeout = options->timeout_s > 0 ? options->timeout_s : SELFTEST_DEFAULT_TIMEOUT_S;
    bool out_open = true, result_open = true, hung = false, exited = false, spawned;
    int status = 0;
    char *names = runner_names(checks, count);

    batch.started = runner_now();
    spawned = names != NULL && runner_spawn(options, names, &child);
    free(names);
    if (!spawned) {
        selftest_record_t *record = runner_record_add(&batch, checks[0], CHECK_CRASH);
        snprintf(record->sentence, sizeof record->sentence,
                 "the check's process could not be started");
        runner_print(options, record);
        return 1;
    }
    double deadline = batch.started + timeout;
    size_t seen_done = 0;
    while (out_open || result_open) {
        struct pollfd fds[2] = {{.fd = out_open ? child.out_fd : -1, .events = POLLIN},
                                {.fd = result_open ? child.result_fd : -1, .events = POLLIN}};
        double now = runner_now();
        if (batch.done != seen_done) {
            seen_done = batch.done;
            deadline = now + timeout;
        }
        if (now >= deadline) {
            hung = true;
            break;
        }
        int wait_ms = (int)((deadline - now) * 1000.0) + 1;
        /* All records in but output still open (a grandchild holds it): poll
         * the child's exit instead of waiting for end of file. */
        if (!result_open && wait_ms > 20)
            wait_ms = 20;
        int ready = poll(fds, 2, wait_ms);
        if (ready < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            char buffer[4096];
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                if (i == 0)
                    out_open = false;
                else
                    result_open = false;
                continue;
            }
            if (i == 0)
                runner_read_output(&batch, buffer, (size_t)n);
            else
                runner_read_results(&batch, buffer, (size_t)n);
        }
        if (!result_open && out_open && waitpid(child.pid, &status, WNOHANG) == child.pid) {
            exited = true;
            break;
        }
    }
    if (hung)
        kill(-child.pid, SIGKILL);
    if (!exited)
        while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
        }
    /* Whatever the group left behind goes with it. */
    kill(-child.pid, SIGKILL);
    close(child.out_fd);
    close(child.result_fd);

    if (hung && batch.cleaning) {
        /* The check before reported its result, then closing the backend
         * after it never ended (work it left stuck): its result stands,
         * the rest go on in a new child. */
        runner_cleanup_hung(&batch, timeout);
        return batch.done;
    }
    if (batch.done > 0 && batch.done < count && !hung && batch.exiting) {
        free(batch.output); /* what the process printed on its way out */
        return batch.done;
    }
    if (batch.done == count && !batch.exiting && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        runner_exit_failure(&batch, status);
        return batch.done;
    }
    if (batch.done < count) {
        const selftest_check_t *check = checks[batch.done];
        selftest_record_t *record;
        if (hung) {
            record = runner_record_add(&batch, check, CHECK_HANG);
            snprintf(record->sentence, sizeof record->sentence,
                     "no result within %.0f s: the watchdog killed the check's processes", timeout);
        } else if (WIFSIGNALED(status)) {
            const char *sig = runner_signal_name(WTERMSIG(status));
            record = runner_record_add(&batch, check, CHECK_CRASH);
            if (sig != NULL)
                snprintf(record->sentence, sizeof record->sentence, "killed by %s (%s)", sig,
                         strsignal(WTERMSIG(status)));
            else
                snprintf(record->sentence, sizeof record->sentence, "killed by signal %d (%s)",
                         WTERMSIG(status), strsignal(WTERMSIG(status)));
        } else {
            record = runner_record_add(&batch, check, CHECK_CRASH);
            snprintf(record->sentence, sizeof record->sentence,
                     "its process exited with status %d before reporting a result",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
        runner_print(options, record);
        batch.done++;
    }
    free(batch.output);
    return batch.done;
}

/* Run `count` checks in as few children as they allow: after a hang or a
 * crash the rest go on in a new child when `restart`, else (collectives,
 * whose ranks must stay in step) they are skipped. */
static void runner_batch(const selftest_options_t *options, selftest_run_t *run,
                         const selftest_check_t **checks, size_t count, bool restart)
{
    size_t done = 0;
    while (done < count) {
        size_t ran = runner_session(options, run, checks + done, count - done);
        const selftest_check_t *ended = checks[done + ran - 1];
        done += ran;
        if (done < count && !restart) {
            runner_batch_t skipper = {.run = run, .options = options, .started = runner_now()};
            char why[160];
            snprintf(why, sizeof why, "not run: %s ended the process these checks share",
                     ended->name);
            runner_skip_all(&skipper, checks + done, count - done, why);
            return;
        }
    }
}

/* ---------------------------------------------------------------- printing */

/* A pass shows what the check proves: its sentence, else its name in words. */
static void runner_pass_sentence(const selftest_check_t *check, char *out, size_t cap)
{
    const char *id = strchr(check->name, '.');
    if (check->sentence != NULL) {
        snprintf(out, cap, "%s", check->sentence);
        return;
    }
    snprintf(out, cap, "%s", id != NULL ? id + 1 : check->name);
    for (char *p = out; *p != '\0'; p++)
        if (*p == '_')
            *p = ' ';
}

void selftest_record_sentence(const selftest_record_t *record, char *out, size_t cap)
{
    if (record->result == CHECK_PASS)
        runner_pass_sentence(record->check, out, cap);
    else if (record->where[0] != '\0')
        snprintf(out, cap, "%s (%s)", record->sentence, record->where);
    else
        snprintf(out, cap, "%s", record->sentence);
}

static void runner_print(const selftest_options_t *options, const selftest_record_t *record)
{
    char sentence[CHECK_SENTENCE_MAX + 160];
    if (options->out == NULL)
        return;
    selftest_record_sentence(record, sentence, sizeof sentence);
    fprintf(options->out, "%-5s %8.3fs  %s  %s\n", selftest_result_name(record->result),
            record->seconds, record->check->name, sentence);
    /* What a failing check printed, indented under its line. */
    if ((record->result == CHECK_FAIL || record->result == CHECK_HANG ||
         record->result == CHECK_CRASH) &&
        record->output != NULL) {
        const char *p = record->output;
        while (*p != '\0') {
            size_t len = strcspn(p, "\n");
            fprintf(options->out, "        | %.*s\n", (int)len, p);
            p += len;
            if (*p == '\n')
                p++;
        }
    }
    fflush(options->out);
}

/* ---------------------------------------------------------------- a run */

static void runner_skip_all(runner_batch_t *batch, const selftest_check_t *const *checks,
                            size_t count, const char *why)
{
    for (size_t i = 0; i < count; i++) {
        selftest_record_t *record = runner_record_add(batch, checks[i], CHECK_SKIP);
        snprintf(record->sentence, sizeof record->sentence, "%s", why);
        runner_print(batch->options, record);
    }
}

bool selftest_run(const selftest_options_t *options, selftest_run_t *run)
{
    size_t count = 0;
    const selftest_check_t **checks = selftest_select(options, &count);
    const selftest_check_t **comm = NULL;
    size_t comm_count = 0;
    double started = runner_now();

    *run = (selftest_run_t){0};
    if (checks == NULL || count == 0 || strcmp(checks[0]->name, "selftest.open") != 0) {
        fprintf(stderr, "selftest: no checks to run\n");
        free(checks);
        return false;
    }
    run->records = calloc(count, sizeof *run->records);
    comm = calloc(count, sizeof *comm);
    if (run->records == NULL || comm == NULL) {
        free(checks);
        free(comm);
        free(run->records);
        run->records = NULL;
        return false;
    }
    selftest_launcher_rank(&run->rank, &run->size);

    runner_batch(options, run, checks, 1, false); /* selftest.open */
    bool opened = run->records[0].result == CHECK_PASS;
    runner_batch_t skipper = {.run = run, .options = options, .started = runner_now()};
    for (size_t i = 1; i < count; i++) {
        const selftest_check_t *check = checks[i];
        if (!(check->flags & SELFTEST_COMM))
            continue;
        if (check->applies != NULL &&
            !selftest_check_applies(check, options->backend, run->comm_engine))
            continue; /* a rule of another engine than this backend's */
        comm[comm_count++] = check;
    }
    /* Collectives first, in one process: every rank runs the same list in
     * the same order and bootstraps the job's communicator once. Outside a
     * launcher they are skipped with the reason. */
    if (comm_count > 0 && !opened) {
        runner_skip_all(&skipper, comm, comm_count,
                        "not run: the backend did not open (selftest.open)");
    } else if (comm_count > 0 && run->size > 1) {
        runner_batch(options, run, comm, comm_count, false);
    } else if (comm_count > 0) {
        runner_skip_all(&skipper, comm, comm_count,
                        "not under a launcher (no RANK/WORLD_SIZE): run `accel launch -n 2 accel "
                        "selftest` to check collectives");
    }
    /* The other ranks of a launched run check collectives only: rank 0
     * checks the rest, each in its own child, or (options->batch) as many
     * as run in one before a hang or crash. */
    size_t rest_count = 0;
    for (size_t i = 1; i < count && run->rank == 0; i++) {
        const selftest_check_t *check = checks[i];
        if (check->flags & SELFTEST_COMM)
            continue;
        if (!opened && !(check->flags & SELFTEST_NO_BACKEND)) {
            skipper.started = runner_now();
            runner_skip_all(&skipper, &checks[i], 1,
                            "not run: the backend did not open (selftest.open)");
            continue;
        }
        if (options->batch)
            comm[rest_count++] = check; /* the collectives are done: reuse the array */
        else
            runner_batch(options, run, &checks[i], 1, false);
    }
    if (rest_count > 0)
        runner_batch(options, run, comm, rest_count, true);
    run->seconds = runner_now() - started;
    free(comm);
    free(checks);
    return true;
}

void selftest_run_release(selftest_run_t *run)
{
    for (size_t i = 0; i < run->count; i++)
        free(run->records[i].output);
    free(run->records);
    *run = (selftest_run_t){0};
}
