/* test_oom.c: device out-of-memory on the cpu backend under a memory cap the
 * test sets: a child process limits its address space (RLIMIT_AS) to what it
 * uses plus CAP bytes, then allocates CHUNK blocks until accel_malloc says
 * OUT_OF_MEMORY. It checks the statistics exactly, frees everything (the
 * blocks stay cached, so the cap is still used up), asks for a larger block
 * (which fits only once the cache is emptied: the allocator must retry) and
 * keeps working. Sanitizer runtimes reserve terabytes of shadow address
 * space, so under ASan or TSan the test is skipped (exit 77) saying so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <accel/accel.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OOM_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define OOM_SANITIZER 1
#endif
#endif

enum { SKIP_CODE = 77, MAX_BLOCKS = 64 };
#define MIB   ((size_t)1 << 20)
#define CHUNK (32 * MIB)      /* a multiple of the allocator's 2 MiB segment rounding */
#define CAP   (256 * MIB)     /* room above what the process already maps */
#define BIG   (3 * CHUNK / 2) /* no cached CHUNK block can hold it */

/* The process's address-space size now, from /proc/self/statm. */
static size_t oom_mapped_bytes(void)
{
    unsigned long pages = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    if (statm == NULL)
        return 0;
    if (fscanf(statm, "%lu", &pages) != 1)
        pages = 0;
    fclose(statm);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

static accel_memory_stats_t oom_stats(accel_t *acc)
{
    accel_memory_stats_t stats = ACCEL_STRUCT_INIT(accel_memory_stats_t);
    assert_int_equal(accel_memory_stats(acc, 0, &stats), ACCEL_OK);
    return stats;
}

/* Runs in the child: cmocka assertions there end it with a failure status. */
static void oom_child(void **state)
{
    accel_t *acc = NULL;
    void *blocks[MAX_BLOCKS], *warm = NULL, *big = NULL;
    size_t count = 0;
    struct rlimit cap;
    (void)state;
    accel_memory_stats_t stats;
    unsigned char probe[64];
    assert_int_equal(accel_open("cpu", &acc), ACCEL_OK);
    /* Warm up first, so threads and first-use state are not counted against the cap. */
    assert_int_equal(accel_malloc(acc, 4096, &warm), ACCEL_OK);
    assert_int_equal(accel_memset(acc, warm, 1, 4096), ACCEL_OK);
    assert_int_equal(accel_free(acc, warm), ACCEL_OK);
    assert_int_equal(accel_empty_cache(acc), ACCEL_OK);
    assert_int_equal(accel_reset_peak_memory_stats(acc, 0), ACCEL_OK);
    stats = oom_stats(acc);
    assert_int_equal(stats.allocated_bytes, 0);
    assert_int_equal(stats.reserved_bytes, 0);

    cap.rlim_cur = cap.rlim_max = oom_mapped_bytes() + CAP;
    assert_int_equal(setrlimit(RLIMIT_AS, &cap), 0);

    for (;;) {
        accel_status_t status;
        assert_true(count < MAX_BLOCKS); /* the cap must stop it */
        status = accel_malloc(acc, CHUNK, &blocks[count]);
        if (status != ACCEL_OK) {
            assert_int_equal(status, ACCEL_ERROR_OUT_OF_MEMORY);
            assert_non_null(strstr(accel_last_error(), "out of memory"));
            break;
        }
        count++;
    }
    printf("test_oom: %zu blocks of %zu MiB fit under the cap\n", count, CHUNK / MIB);
    assert_true(count >= 2);
    stats = oom_stats(acc);
    assert_int_equal(stats.allocated_bytes, count * CHUNK);
    assert_int_equal(stats.requested_bytes, count * CHUNK);
    assert_int_equal(stats.reserved_bytes, count * CHUNK);
    assert_int_equal(stats.allocation_count, count);
    assert_int_equal(stats.segment_count, count);
    assert_int_equal(stats.allocated_bytes_peak, count * CHUNK);
    assert_int_equal(stats.ooms, 1);
    assert_int_equal(stats.alloc_retries, 0); /* nothing was cached to release */

    /* Everything back to the cache: nothing allocated, all still reserved. */
    for (size_t i = 0; i < count; i++)
        assert_int_equal(accel_free(acc, blocks[i]), ACCEL_OK);
    stats = oom_stats(acc);
    assert_int_equal(stats.allocated_bytes, 0);
    assert_int_equal(stats.reserved_bytes, count * CHUNK);

    /* Only fits after the idle cache is released: one retry, no new OOM. */
    assert_int_equal(accel_malloc(acc, BIG, &big), ACCEL_OK);
    stats = oom_stats(acc);
    assert_int_equal(stats.alloc_retries, 1);
    assert_int_equal(stats.ooms, 1);
    assert_int_equal(stats.allocated_bytes, BIG);
    assert_int_equal(stats.reserved_bytes, BIG); /* BIG is a multiple of 2 MiB */
    assert_int_equal(stats.allocation_count, 1);
    assert_int_equal(stats.allocated_bytes_peak, count * CHUNK);

    /* And it keeps working. */
    assert_int_equal(accel_memset(acc, big, 0x5a, BIG), ACCEL_OK);
    assert_int_equal(accel_memcpy(acc, probe, (char *)big + BIG - sizeof probe, sizeof probe,
                                  ACCEL_COPY_DEVICE_TO_HOST),
                     ACCEL_OK);
    for (size_t i = 0; i < sizeof probe; i++)
        assert_int_equal(probe[i], 0x5a);
    assert_int_equal(accel_free(acc, big), ACCEL_OK);
    assert_int_equal(accel_empty_cache(acc), ACCEL_OK);
    stats = oom_stats(acc);
    assert_int_equal(stats.reserved_bytes, 0);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

static void test_oom_under_address_space_cap(void **state)
{
    pid_t child;
    int status = 0;
    (void)state;
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        const struct CMUnitTest inner[] = {cmocka_unit_test(oom_child)};
        _exit(cmocka_run_group_tests_name("oom child", inner, NULL, NULL) == 0 ? 0 : 1);
    }
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oom_under_address_space_cap),
    };
#ifdef OOM_SANITIZER
    printf("test_oom: skipped: the sanitizer runtime reserves terabytes of shadow address "
           "space, so an RLIMIT_AS cap cannot be set under it\n");
    (void)tests;
    return SKIP_CODE;
#else
    /* The retry path belongs to the caching allocator, whatever the caller set. */
    setenv("ACCEL_ALLOC_CONF", "caching:1", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
