/* python_baseline.c: baselines run as child processes (python_baseline.h). */
#include "python_baseline.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int bench_run_capture(char *const argv[], char *out, size_t cap)
{
    int fds[2];
    size_t used = 0;
    int status = 0;
    sigset_t all, saved;
    if (pipe(fds) != 0)
        return -1;
    /* Signals wait until bench_child names the new child, so a suite's
     * handler (suite_aio.c) never misses one it must stop. */
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &saved);
    pid_t pid = fork();
    if (pid > 0)
        bench_child = pid;
    if (pid != 0)
        sigprocmask(SIG_SETMASK, &saved, NULL);
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &saved, NULL);
        int null = open("/dev/null", O_RDWR);
        dup2(fds[1], STDOUT_FILENO);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDERR_FILENO);
        }
        close(fds[0]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    for (;;) {
        char scratch[256];
        char *into = used + 1 < cap ? out + used : scratch;
        size_t room = used + 1 < cap ? cap - 1 - used : sizeof scratch;
        ssize_t n = read(fds[0], into, room);
        if (n <= 0)
            break;
        if (into != scratch)
            used += (size_t)n;
    }
    out[used] = '\0';
    close(fds[0]);
    pid_t waited = waitpid(pid, &status, 0);
    bench_child = 0;
    if (waited != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* True when `python` imports `modules`. */
static bool python_has(const char *python, const char *modules)
{
    char code[256], out[64];
    char *argv[] = {(char *)python, "-c", code, NULL};
    char list[128];
    snprintf(list, sizeof list, "%s", modules);
    for (char *p = list; *p; p++)
        if (*p == ' ')
            *p = ',';
    snprintf(code, sizeof code, "import %s", list);
    return bench_run_capture(argv, out, sizeof out) == 0;
}

bool bench_python_find(const char *modules, char *out, size_t cap, char *why, size_t why_cap)
{
    char candidates[3][1024];
    int n = 0;
    const char *env = getenv("ACCEL_BENCH_PYTHON");
    const char *venv = getenv("ACCEL_DS_VENV");
    const char *home = getenv("HOME");
    if (env != NULL && env[0] != '\0')
        snprintf(candidates[n++], sizeof candidates[0], "%s", env);
    snprintf(candidates[n++], sizeof candidates[0], "python3");
    if (venv != NULL && venv[0] != '\0')
        snprintf(candidates[n++], sizeof candidates[0], "%s/bin/python", venv);
    else if (home != NULL)
        snprintf(candidates[n++], sizeof candidates[0], "%s/.cache/accel/venv-ds/bin/python", home);
    for (int i = 0; i < n; i++) {
        if (python_has(candidates[i], modules)) {
            snprintf(out, cap, "%s", candidates[i]);
            return true;
        }
    }
    snprintf(why, why_cap, "skipped: no python with %s (python3, $ACCEL_BENCH_PYTHON, DS venv)",
             modules);
    return false;
}

int bench_python_samples(const char *python, const char *code, char *const args[],
                         bench_series_t *series, char *reason, size_t cap)
{
    char *argv[16] = {(char *)python, "-c", (char *)code};
    char out[8192];
    int argc = 3;
    for (int i = 0; args[i] != NULL && argc < 15; i++)
        argv[argc++] = args[i];
    argv[argc] = NULL;
    int status = bench_run_capture(argv, out, sizeof out);
    series->reps = 0;
    reason[0] = '\0';
    if (status < 0)
        return status;
    /* Only the helper's own lines count: libraries it imports may print
     * to stdout too (DeepSpeed logs its accelerator choice there). */
    for (char *line = out; *line != '\0'; line += strcspn(line, "\n"), line += *line == '\n') {
        size_t len = strcspn(line, "\n");
        if (strncmp(line, "reason ", 7) == 0 && reason[0] == '\0')
            snprintf(reason, cap, "%.*s", (int)(len - 7), line + 7);
        if (strncmp(line, "sample ", 7) == 0 && series->reps < BENCH_MAX_REPS) {
            char *end;
            double value = strtod(line + 7, &end);
            if (end != line + 7)
                series->samples[series->reps++] = value;
        }
    }
    return status;
}

void bench_figure_add_baseline(bench_figure_t *figure, const bench_series_t *baseline,
                               const char *baseline_name)
{
    if (figure->failed || baseline->reps != figure->measured.reps)
        return;
    figure->has_baseline = true;
    figure->baseline_note[0] = '\0';
    snprintf(figure->baseline_name, sizeof figure->baseline_name, "%s", baseline_name);
    memcpy(figure->baseline.samples, baseline->samples, sizeof baseline->samples);
    bench_figure_finish(figure, figure->measured.reps);
}
