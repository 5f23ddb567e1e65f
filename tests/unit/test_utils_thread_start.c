/* test_utils_thread_start.c: threads libaccel starts for its own work never
 * take the application's signals. The kernel hands a process-directed
 * signal to any thread that does not block it; an application handler that
 * runs on a library thread while the application's own threads go on
 * races them (accel bench's aio suite removed its file from a signal
 * handler while its main thread, still running, made the file again).
 * Checked for accel_thread_start itself and, through /proc, for every
 * thread a cpu accelerator has after using its stream worker, the host
 * thread pool and an async_io handle's workers. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "accel/accel.h"
#include "accel/accel_backend_utils.h"
#include "accel/accel_ops.h"

static void *mask_of_thread(void *arg)
{
    sigset_t *out = arg;
    pthread_sigmask(SIG_BLOCK, NULL, out);
    return NULL;
}

static void test_thread_start_blocks_signals(void **state)
{
    sigset_t seen, before, after;
    pthread_t thread;
    (void)state;
    sigemptyset(&seen);
    pthread_sigmask(SIG_BLOCK, NULL, &before);
    assert_int_equal(accel_thread_start(&thread, NULL, mask_of_thread, &seen), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    /* Bad input: refused, nothing started. */
    assert_int_equal(accel_thread_start(NULL, NULL, mask_of_thread, &seen), EINVAL);
    assert_int_equal(accel_thread_start(&thread, NULL, NULL, NULL), EINVAL);
    pthread_sigmask(SIG_BLOCK, NULL, &after);
    for (int sig = 1; sig < 32; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP)
            continue;
        assert_true(sigismember(&seen, sig));
        assert_int_equal(sigismember(&after, sig), sigismember(&before, sig));
    }
}

static void nothing(void *ctx, size_t begin, size_t end)
{
    (void)ctx;
    (void)begin;
    (void)end;
}

static void callback(void *user)
{
    (void)user;
}

/* Threads of this process other than this one that leave SIGTERM or SIGINT
 * unblocked (SigBlk in /proc/self/task/TID/status); their count. */
static int threads_taking_signals(void)
{
    char path[128], line[256];
    int open_threads = 0;
    long self = (long)syscall(SYS_gettid);
    DIR *dir = opendir("/proc/self/task");
    struct dirent *entry;
    assert_non_null(dir);
    while ((entry = readdir(dir)) != NULL) {
        long tid = strtol(entry->d_name, NULL, 10);
        if (tid <= 0 || tid == self)
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%ld/status", tid);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue; /* ended meanwhile */
        while (fgets(line, sizeof line, f) != NULL) {
            unsigned long long blocked;
            if (sscanf(line, "SigBlk: %llx", &blocked) != 1)
                continue;
            unsigned long long wanted = (1ull << (SIGTERM - 1)) | (1ull << (SIGINT - 1));
            if ((blocked & wanted) != wanted) {
                char name[64] = "?";
                snprintf(path, sizeof path, "/proc/self/task/%ld/comm", tid);
                FILE *c = fopen(path, "r");
                if (c != NULL) {
                    if (fgets(name, sizeof name, c) != NULL)
                        name[strcspn(name, "\n")] = '\0';
                    fclose(c);
                }
                printf("# thread %ld (%s) takes SIGINT/SIGTERM (SigBlk %llx)\n", tid, name,
                       blocked);
                open_threads++;
            }
        }
        fclose(f);
    }
    closedir(dir);
    return open_threads;
}

static void test_library_threads_block_signals(void **state)
{
    accel_t *acc = NULL;
    accel_stream_t *stream = NULL;
    accel_op_builder_t *builder = NULL;
    const void *table = NULL;
    accel_aio_config_t config = ACCEL_AIO_CONFIG_DEFAULT;
    accel_aio_handle_t *handle = NULL;
    (void)state;
    assert_int_equal(accel_open("cpu", &acc), ACCEL_OK);
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_stream_add_callback(stream, callback, NULL), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    accel_thread_pool_run(1 << 20, 1, 1, nothing, NULL);
    assert_int_equal(accel_get_op_builder(acc, "AsyncIOBuilder", &builder), ACCEL_OK);
    assert_int_equal(accel_op_builder_load(builder, &table), ACCEL_OK);
    const accel_aio_op_t *aio = table;
    config.intra_op_parallelism = 2;
    assert_int_equal(aio->handle_create(acc, &config, &handle), ACCEL_OK);
    assert_int_equal(threads_taking_signals(), 0);
    aio->handle_destroy(handle);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    accel_close(acc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thread_start_blocks_signals),
        cmocka_unit_test(test_library_threads_block_signals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
