/* test_cpu_fork.c: the cpu backend works in a forked child. Four threads
 * hammer the allocator, streams, events, random fills and pinned memory
 * while the main thread forks repeatedly; each child must finish its own
 * allocation, copy, random fill and stream work, and must get a clear error
 * (not a silent queue nobody runs) from a stream created before fork.
 * A hang must fail, not block CI: each child arms alarm() first, so a child
 * stuck on an inherited lock dies of SIGALRM and the parent sees it. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "accel/accel.h"

#define FORK_THREADS  4
#define FORK_CHILDREN 20
#define FORK_BYTES    4096
/* Seconds a child may take before it counts as hung (it takes milliseconds). */
#define CHILD_LIMIT_S 30

/* ThreadSanitizer refuses to start threads in the child of a threaded
 * process unless told otherwise; the child here must start a stream worker.
 * Read by the TSan runtime at start-up (ignored by other builds);
 * TSAN_OPTIONS from the environment still adds to it. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "die_after_fork=0";
}

static accel_t *fork_acc;
static atomic_bool fork_stop;

/* One hammering thread: its own stream and event, device memory of varying
 * sizes, copies both ways, a random fill, pinned memory; checks nothing
 * (the children are what this test checks) but must never fail. */
static void *hammer_fail(const char *what)
{
    fprintf(stderr, "hammer thread: %s failed: %s\n", what, accel_last_error());
    return (void *)1;
}

static void *hammer_main(void *arg)
{
    accel_stream_t *stream = NULL;
    accel_event_t *event = NULL;
    uint8_t host[FORK_BYTES];
    size_t round = 0;
    (void)arg;
    if (accel_stream_create(fork_acc, 0, 0, &stream) != ACCEL_OK ||
        accel_event_create(fork_acc, 0, 0, &event) != ACCEL_OK)
        return hammer_fail("setup");
    while (!atomic_load(&fork_stop)) {
        void *dev = NULL, *pinned = NULL;
        size_t size = 512 + (round++ % 15) * 256; /* at most FORK_BYTES */
        if (accel_malloc_async(fork_acc, size, stream, &dev) != ACCEL_OK ||
            accel_memset_async(fork_acc, dev, (int)(round & 0xff), size, stream) != ACCEL_OK ||
            accel_rng_u32(fork_acc, dev, size / 4, stream) != ACCEL_OK ||
            accel_memcpy_async(fork_acc, host, dev, size, ACCEL_COPY_DEVICE_TO_HOST, stream) !=
                ACCEL_OK ||
            accel_event_record(event, stream) != ACCEL_OK ||
            accel_event_synchronize(event) != ACCEL_OK ||
            accel_free_async(fork_acc, dev, stream) != ACCEL_OK)
            return hammer_fail("stream work");
        if (accel_host_alloc(fork_acc, 4096, &pinned) != ACCEL_OK ||
            accel_host_free(fork_acc, pinned) != ACCEL_OK)
            return hammer_fail("pinned memory");
    }
    if (accel_stream_synchronize(stream) != ACCEL_OK || accel_event_destroy(event) != ACCEL_OK ||
        accel_stream_destroy(stream) != ACCEL_OK)
        return hammer_fail("teardown");
    return NULL;
}

/* The child's own work: 0 when everything behaved, else a step number. */
static int child_work(accel_stream_t *from_parent)
{
    uint8_t out[FORK_BYTES], back[FORK_BYTES];
    accel_stream_t *stream = NULL;
    void *dev = NULL;
    uint32_t *bits = NULL;
    for (size_t i = 0; i < FORK_BYTES; i++)
        out[i] = (uint8_t)(i * 7);
    if (accel_malloc(fork_acc, FORK_BYTES, &dev) != ACCEL_OK)
        return 1;
    if (accel_memcpy(fork_acc, dev, out, FORK_BYTES, ACCEL_COPY_HOST_TO_DEVICE) != ACCEL_OK ||
        accel_memcpy(fork_acc, back, dev, FORK_BYTES, ACCEL_COPY_DEVICE_TO_HOST) != ACCEL_OK ||
        memcmp(out, back, FORK_BYTES) != 0)
        return 2;
    if (accel_malloc(fork_acc, FORK_BYTES, (void **)&bits) != ACCEL_OK ||
        accel_rng_u32(fork_acc, bits, FORK_BYTES / 4, NULL) != ACCEL_OK)
        return 3;
    /* A stream made in the child has a worker in the child. */
    if (accel_stream_create(fork_acc, 0, 0, &stream) != ACCEL_OK ||
        accel_memset_async(fork_acc, dev, 0x42, FORK_BYTES, stream) != ACCEL_OK ||
        accel_memcpy_async(fork_acc, back, dev, FORK_BYTES, ACCEL_COPY_DEVICE_TO_HOST, stream) !=
            ACCEL_OK ||
        accel_stream_synchronize(stream) != ACCEL_OK || back[0] != 0x42 ||
        back[FORK_BYTES - 1] != 0x42 || accel_stream_destroy(stream) != ACCEL_OK)
        return 4;
    /* The parent's stream has no worker here: refused, with a sentence. */
    if (accel_memset_async(fork_acc, dev, 0, FORK_BYTES, from_parent) == ACCEL_OK ||
        strstr(accel_last_error(), "fork") == NULL)
        return 5;
    if (accel_stream_synchronize(from_parent) == ACCEL_OK ||
        strstr(accel_last_error(), "fork") == NULL)
        return 6;
    /* Device-wide waits skip the parent's streams instead of hanging. */
    if (accel_synchronize(fork_acc, 0) != ACCEL_OK)
        return 7;
    if (accel_free(fork_acc, dev) != ACCEL_OK || accel_free(fork_acc, bits) != ACCEL_OK)
        return 8;
    return 0;
}

static void test_fork_while_threads_work(void **state)
{
    pthread_t threads[FORK_THREADS];
    accel_stream_t *from_parent = NULL;
    void *dev = NULL;
    (void)state;
    assert_int_equal(accel_open("cpu", &fork_acc), ACCEL_OK);
    assert_int_equal(accel_stream_create(fork_acc, 0, 0, &from_parent), ACCEL_OK);
    assert_int_equal(accel_malloc(fork_acc, FORK_BYTES, &dev), ACCEL_OK);
    atomic_store(&fork_stop, false);
    for (int t = 0; t < FORK_THREADS; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, hammer_main, NULL), 0);

    for (int child = 0; child < FORK_CHILDREN; child++) {
        int status = 0;
        /* Work still queued on the parent's stream at fork time. */
        assert_int_equal(accel_memset_async(fork_acc, dev, child, FORK_BYTES, from_parent),
                         ACCEL_OK);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            alarm(CHILD_LIMIT_S);
            _exit(child_work(from_parent));
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (WIFSIGNALED(status))
            fail_msg("child %d died of signal %d (%s)", child, WTERMSIG(status),
                     WTERMSIG(status) == SIGALRM ? "hung" : "crashed");
        if (WEXITSTATUS(status) != 0)
            fail_msg("child %d failed at step %d", child, WEXITSTATUS(status));
    }

    atomic_store(&fork_stop, true);
    for (int t = 0; t < FORK_THREADS; t++) {
        void *result = NULL;
        assert_int_equal(pthread_join(threads[t], &result), 0);
        assert_null(result);
    }
    assert_int_equal(accel_free(fork_acc, dev), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(from_parent), ACCEL_OK);
    assert_int_equal(accel_close(fork_acc), ACCEL_OK);
}

/* AddressSanitizer (clang 14) takes no lock of its own allocator across
 * fork(): a child forked while another thread is inside malloc can hang in
 * ASan itself (seen here: the child's first pthread_create waiting forever
 * on ASan's size-class lock). That is the sanitizer's limit, not accel's,
 * so this test runs in the plain and TSan builds only. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FORK_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FORK_UNDER_ASAN 1
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fork_while_threads_work),
    };
#ifdef FORK_UNDER_ASAN
    printf("test_cpu_fork: skipped under AddressSanitizer, whose allocator is not fork-safe "
           "with other threads in malloc (a child can hang inside ASan)\n");
    return 77;
#endif
    return cmocka_run_group_tests(tests, NULL, NULL);
}
