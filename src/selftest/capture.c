/* capture.c: run a helper program and keep its standard output
 * (selftest_capture, selftest.h), under the same watchdog as a check: the
 * JSON report runs `accel report --json` this way, so that the parent never
 * opens the backend itself. */
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

#include "selftest.h"

extern char **environ;

#define CAPTURE_MAX (4 * 1024 * 1024)

static double capture_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *selftest_capture(const char *const *argv, double timeout_s, char *why, size_t why_cap)
{
    int pipe_fds[2];
    pid_t pid;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    char *text = NULL;
    size_t len = 0;
    int status = 0, err;
    bool hung = false;

    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
        snprintf(why, why_cap, "pipe: %s", strerror(errno));
        return NULL;
    }
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    err = posix_spawn(&pid, "/proc/self/exe", &actions, &attr, (char *const *)argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    if (err != 0) {
        close(pipe_fds[0]);
        snprintf(why, why_cap, "cannot start /proc/self/exe: %s", strerror(err));
        return NULL;
    }
    double deadline = capture_now() + timeout_s;
    for (;;) {
        struct pollfd fd = {.fd = pipe_fds[0], .events = POLLIN};
        double left = deadline - capture_now();
        char buffer[4096];
        if (left <= 0) {
            hung = true;
            break;
        }
        if (poll(&fd, 1, (int)(left * 1000.0) + 1) < 0 && errno != EINTR)
            break;
        if (!(fd.revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (len + (size_t)n > CAPTURE_MAX)
            continue;
        char *grown = realloc(text, len + (size_t)n + 1);
        if (grown == NULL)
            break;
        memcpy(grown + len, buffer, (size_t)n);
        len += (size_t)n;
        grown[len] = '\0';
        text = grown;
    }
    close(pipe_fds[0]);
    if (hung)
        kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (hung || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || text == NULL) {
        if (hung)
            snprintf(why, why_cap, "`%s %s` gave no answer within %.0f s", argv[1], argv[2],
                     timeout_s);
        else
            snprintf(why, why_cap, "`%s %s` ended with status %d", argv[1], argv[2],
                     WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        free(text);
        return NULL;
    }
    return text;
}
