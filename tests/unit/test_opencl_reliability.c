/* test_opencl_reliability.c: the OpenCL backend under misuse that used to
 * hang: a child forked after the runtime was loaded (every call must fail at
 * once with the fork sentence, even while parent threads were busy), and a
 * host callback that synchronizes its own stream or device (an error, not a
 * deadlock). Each forked child runs under a deadline and the callback test
 * under alarm(), so a hang fails instead of blocking ctest. Exits 77
 * (skipped) when opencl does not open. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <accel/accel.h>
#include <accel/accel_comm.h>

#define SKIP_CODE        77
#define CHILD_DEADLINE_S 20 /* a child that fails at once needs milliseconds */
#define BUSY_THREADS     4
#define BUSY_CHILDREN    10

static accel_t *test_acc;

/* Wait for `pid` at most CHILD_DEADLINE_S seconds; kill it after that. The
 * child's exit code, or -1 if it hung, or 128 + signal if it died. */
static int child_wait(pid_t pid)
{
    struct timespec pause = {0, 2000000};
    for (int i = 0; i < CHILD_DEADLINE_S * 500; i++) {
        int wstatus = 0;
        pid_t done = waitpid(pid, &wstatus, WNOHANG);
        if (done == pid)
            return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
        nanosleep(&pause, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

/* In the child: every call that reaches OpenCL fails at once with the fork
 * sentence. `device` is device memory the parent allocated. Exit codes name
 * the first call that did not. */
static int child_calls(accel_t *acc, void *device)
{
    char host[64] = {0};
    void *fresh = NULL;
    accel_t *other = NULL;
    accel_stream_t *stream = NULL;
    if (accel_memcpy(acc, host, device, sizeof host, ACCEL_COPY_DEVICE_TO_HOST) == ACCEL_OK)
        return 10;
    if (strstr(accel_last_error(), "initialised before fork()") == NULL)
        return 11;
    if (accel_memcpy(acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE) == ACCEL_OK)
        return 12;
    if (accel_malloc(acc, 8u << 20, &fresh) == ACCEL_OK)
        return 13;
    if (accel_synchronize(acc, ACCEL_CURRENT_DEVICE) == ACCEL_OK)
        return 14;
    if (accel_stream_create(acc, ACCEL_CURRENT_DEVICE, 0, &stream) == ACCEL_OK)
        return 15;
    if (accel_rng_u32(acc, device, 16, NULL) == ACCEL_OK)
        return 16;
    if (accel_open("opencl", &other) == ACCEL_OK)
        return 17;
    if (strstr(accel_last_error(), "initialised before fork()") == NULL)
        return 18;
    return 0;
}

/* Only accel_open (no init, no copy) in the parent: the runtime is loaded
 * and listed devices, which is enough to make the child's first copy hang. */
static void test_fork_after_open_fails_at_once(void **state)
{
    accel_t *acc = NULL;
    (void)state;
    assert_int_equal(accel_open("opencl", &acc), ACCEL_OK);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int code =
            accel_memcpy(acc, (char[8]){0}, (char[8]){0}, 8, ACCEL_COPY_HOST_TO_HOST) == ACCEL_OK
                ? 20
            : strstr(accel_last_error(), "fork") == NULL ? 21
                                                         : 0;
        _exit(code);
    }
    assert_int_equal(child_wait(pid), 0);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

typedef struct busy {
    accel_t *acc;
    atomic_bool stop;
    atomic_long rounds;
} busy_t;

static void *busy_run(void *arg)
{
    busy_t *busy = arg;
    char host[4096];
    void *device = NULL;
    if (accel_malloc(busy->acc, sizeof host, &device) != ACCEL_OK)
        return NULL;
    memset(host, 7, sizeof host);
    while (!atomic_load(&busy->stop)) {
        if (accel_memcpy(busy->acc, device, host, sizeof host, ACCEL_COPY_HOST_TO_DEVICE) !=
                ACCEL_OK ||
            accel_memcpy(busy->acc, host, device, sizeof host, ACCEL_COPY_DEVICE_TO_HOST) !=
                ACCEL_OK)
            break;
        atomic_fetch_add(&busy->rounds, 1);
    }
    accel_free(busy->acc, device);
    return NULL;
}

/* Fork while other threads copy: every child fails at once and exits, none
 * hangs. (Children leave with _exit: exit() would run LeakSanitizer, which
 * counts the parent's thread-local blocks, gone with their threads, as
 * leaks.) `busy` is static: its threads must outlive a failing assertion. */
static void test_fork_while_threads_busy(void **state)
{
    static busy_t busy;
    pthread_t threads[BUSY_THREADS];
    void *device = NULL;
    struct timespec pause = {0, 1000000};
    (void)state;
    assert_int_equal(accel_open("opencl", &busy.acc), ACCEL_OK);
    assert_int_equal(accel_malloc(busy.acc, 64, &device), ACCEL_OK);
    for (int t = 0; t < BUSY_THREADS; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, busy_run, &busy), 0);
    while (atomic_load(&busy.rounds) < 10)
        nanosleep(&pause, NULL);
    for (int c = 0; c < BUSY_CHILDREN; c++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
            _exit(child_calls(busy.acc, device));
        int code = child_wait(pid);
        if (code != 0)
            print_error("child %d: exit code %d (-1: hung)\n", c, code);
        assert_int_equal(code, 0);
    }
    atomic_store(&busy.stop, true);
    for (int t = 0; t < BUSY_THREADS; t++)
        pthread_join(threads[t], NULL);
    assert_true(atomic_load(&busy.rounds) >= 10);
    assert_int_equal(accel_free(busy.acc, device), ACCEL_OK);
    assert_int_equal(accel_close(busy.acc), ACCEL_OK);
}

typedef struct callback_probe {
    accel_t *acc;
    accel_stream_t *stream;
    accel_status_t device_sync, stream_sync, copy, other_stream_sync;
    char message[512];
    atomic_bool ran;
} callback_probe_t;

static void callback_synchronizes(void *arg)
{
    callback_probe_t *probe = arg;
    char a[8] = {0}, b[8] = {1};
    accel_stream_t *default_stream = NULL;
    /* Device 0 by index, not ACCEL_CURRENT_DEVICE: naming the current device
     * gives this detached thread per-thread state, which leaks when the
     * thread exits after accel_close has deleted the key. */
    probe->device_sync = accel_synchronize(probe->acc, 0);
    snprintf(probe->message, sizeof probe->message, "%s", accel_last_error());
    probe->stream_sync = accel_stream_synchronize(probe->stream);
    probe->copy =
        accel_memcpy_async(probe->acc, a, b, sizeof a, ACCEL_COPY_HOST_TO_HOST, probe->stream);
    probe->other_stream_sync = accel_default_stream(probe->acc, 0, &default_stream);
    if (probe->other_stream_sync == ACCEL_OK)
        probe->other_stream_sync = accel_stream_synchronize(default_stream);
    atomic_store(&probe->ran, true);
}

/* A callback waiting for its own stream or device would wait for itself:
 * each such call returns INVALID_ARGUMENT; another stream still works. */
static void test_callback_synchronize_refused(void **state)
{
    callback_probe_t probe = {.acc = NULL};
    (void)state;
    assert_int_equal(accel_open("opencl", &probe.acc), ACCEL_OK);
    assert_int_equal(accel_stream_create(probe.acc, ACCEL_CURRENT_DEVICE, 0, &probe.stream),
                     ACCEL_OK);
    alarm(60); /* a deadlock kills the test */
    assert_int_equal(accel_stream_add_callback(probe.stream, callback_synchronizes, &probe),
                     ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(probe.stream), ACCEL_OK);
    alarm(0);
    assert_true(atomic_load(&probe.ran));
    assert_int_equal(probe.device_sync, ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(probe.message, "host callback"));
    assert_int_equal(probe.stream_sync, ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(probe.copy, ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(probe.other_stream_sync, ACCEL_OK);
    assert_int_equal(accel_synchronize(probe.acc, ACCEL_CURRENT_DEVICE), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(probe.stream), ACCEL_OK);
    assert_int_equal(accel_close(probe.acc), ACCEL_OK);
}

/* A device whose queue was never made (the accel_t initialised, device 0
 * never used) has nothing to wait for: closing synchronizes it without the
 * "could not be synchronized" warning it once printed (clFinish on no
 * queue). */
static void test_close_unused_device_quietly(void **state)
{
    (void)state;
    char captured[4096] = "";
    accel_t *acc;
    accel_comm_engine_info_t info = {.struct_size = sizeof info};
    FILE *log = tmpfile();
    int saved = dup(2);
    assert_non_null(log);
    assert_true(saved >= 0);
    fflush(stderr);
    dup2(fileno(log), 2);
    if (accel_open("opencl", &acc) == ACCEL_OK) {
        accel_comm_engine_info(acc, &info); /* initialises the accel_t, not the device */
        accel_close(acc);
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(log);
    size_t got = fread(captured, 1, sizeof captured - 1, log);
    captured[got] = '\0';
    fclose(log);
    if (strstr(captured, "could not be synchronized") != NULL)
        fail_msg("closing an unused opencl device warned: %s", captured);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_callback_synchronize_refused),
        cmocka_unit_test(test_close_unused_device_quietly),
        cmocka_unit_test(test_fork_after_open_fails_at_once),
        cmocka_unit_test(test_fork_while_threads_busy),
    };
    if (accel_open("opencl", &test_acc) != ACCEL_OK) {
        printf("opencl unavailable: %s\n", accel_last_error());
        return SKIP_CODE;
    }
    accel_close(test_acc);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
