/* device_fork.c: fork() after the backend was used (docs/architecture.md,
 * fork(); docs/reliability.md has the table per backend). In the child
 * accel must either work or refuse at once with a sentence: never hang,
 * never crash. The check forks from its own process, so the runner's
 * parent is never involved. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conformance.h"

#define FORK_DEADLINE_S 20

/* In the forked child: a copy round trip, or a refusal with a sentence
 * written to `fd`. Exit status 0: it worked; 3: refused with a sentence;
 * 4: wrong data; 5: refused without a sentence. */
static void fork_child(int fd)
{
    unsigned char host[4096], back[4096];
    void *dev = NULL;
    accel_status_t status;
    for (size_t i = 0; i < sizeof host; i++)
        host[i] = (unsigned char)(i * 13);
    status = accel_malloc(conformance_acc, sizeof host, &dev);
    if (status == ACCEL_OK)
        status = accel_memcpy(conformance_acc, dev, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE);
    if (status == ACCEL_OK)
        status = accel_memcpy(conformance_acc, back, dev, sizeof back, ACCEL_COPY_DEVICE_TO_HOST);
    if (status != ACCEL_OK) {
        const char *error = accel_last_error();
        dprintf(fd, "%s: %s", accel_status_name(status), error);
        _exit(error[0] != '\0' ? 3 : 5);
    }
    accel_free(conformance_acc, dev);
    _exit(memcmp(host, back, sizeof host) == 0 ? 0 : 4);
}

void check_device_fork_child(void **state)
{
    unsigned char host[4096];
    void *dev = conf_device_alloc(sizeof host);
    int fds[2];
    pid_t pid;
    int status = 0;
    char message[600] = "";
    (void)state;
    memset(host, 0x3c, sizeof host);
    conf_to_device(dev, host, sizeof host);
    conf_sync_current_stream();
    assert_int_equal(pipe(fds), 0);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        fork_child(fds[1]);
    }
    close(fds[1]);
    /* Wait at most FORK_DEADLINE_S for the child. */
    for (int waited_ms = 0;; waited_ms += 10) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid)
            break;
        if (done < 0 && errno != EINTR)
            fail_msg("waitpid: %s", strerror(errno));
        if (waited_ms >= FORK_DEADLINE_S * 1000) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            close(fds[0]);
            fail_msg("a child forked after the backend was used neither worked nor refused "
                     "within %d s",
                     FORK_DEADLINE_S);
        }
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
    }
    ssize_t n = read(fds[0], message, sizeof message - 1);
    message[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    conf_device_free(dev);
    if (WIFSIGNALED(status))
        fail_msg("a child forked after the backend was used died of signal %d (%s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    switch (WEXITSTATUS(status)) {
    case 0: print_message("the forked child used the backend: a copy round trip worked\n"); break;
    case 3: print_message("the forked child was refused with a sentence: %s\n", message); break;
    case 4: fail_msg("in a forked child a copy round trip came back changed");
    case 5:
        fail_msg("in a forked child a call failed (%s) with an empty accel_last_error()", message);
    default: fail_msg("the forked child exited with status %d", WEXITSTATUS(status));
    }
}
