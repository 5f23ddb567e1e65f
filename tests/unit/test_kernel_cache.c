/* test_kernel_cache.c: unit tests of src/core/kernel_cache.c: round trip,
 * key changes miss, damaged files read as misses, and two processes writing
 * the same entry at once leave one valid file. Each test uses its own
 * temporary ACCEL_CACHE_DIR. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel_cache.h"

#define BIG_ENTRY (1u << 20)

static char cache_dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(cache_dir, sizeof cache_dir, "/tmp/accel-kernel-cache-XXXXXX");
    if (mkdtemp(cache_dir) == NULL)
        return -1;
    setenv("ACCEL_CACHE_DIR", cache_dir, 1);
    return 0;
}

static int teardown(void **state)
{
    char command[300];
    (void)state;
    snprintf(command, sizeof command, "rm -rf '%s'", cache_dir);
    return system(command) == 0 ? 0 : -1;
}

static void key_of(const char *source, const char *device, char key[ACCEL_KERNEL_KEY_SIZE])
{
    accel_kernel_hash_t hash;
    accel_kernel_hash_init(&hash);
    accel_kernel_hash_add_string(&hash, source);
    accel_kernel_hash_add_string(&hash, device);
    accel_kernel_hash_key(&hash, key);
}

static void test_round_trip(void **state)
{
    char key[ACCEL_KERNEL_KEY_SIZE];
    const char payload[] = "binary \0 with a zero byte";
    void *got = NULL;
    size_t size = 0;
    (void)state;
    key_of("kernel source", "device A", key);
    assert_int_equal(strlen(key), 32);
    assert_int_equal(accel_kernel_cache_get(key, &got, &size), ACCEL_ERROR_NOT_FOUND);
    assert_int_equal(accel_kernel_cache_put(key, payload, sizeof payload), ACCEL_OK);
    assert_int_equal(accel_kernel_cache_get(key, &got, &size), ACCEL_OK);
    assert_int_equal(size, sizeof payload);
    assert_memory_equal(got, payload, sizeof payload);
    free(got);
}

static void test_key_changes_miss(void **state)
{
    char a[ACCEL_KERNEL_KEY_SIZE], b[ACCEL_KERNEL_KEY_SIZE], c[ACCEL_KERNEL_KEY_SIZE];
    void *got = NULL;
    size_t size = 0;
    (void)state;
    key_of("kernel source", "device A", a);
    key_of("kernel source", "device B", b);
    key_of("kernel sourcedevice A", "", c); /* parts are length-prefixed */
    assert_string_not_equal(a, b);
    assert_string_not_equal(a, c);
    assert_int_equal(accel_kernel_cache_put(a, "x", 1), ACCEL_OK);
    assert_int_equal(accel_kernel_cache_get(b, &got, &size), ACCEL_ERROR_NOT_FOUND);
    assert_int_equal(accel_kernel_cache_get(c, &got, &size), ACCEL_ERROR_NOT_FOUND);
}

/* Overwrite the entry's file with `bytes`, or truncate it to `keep` bytes. */
static void damage(const char *key, const void *bytes, size_t size, long keep)
{
    char path[512];
    FILE *file;
    assert_int_equal(accel_kernel_cache_path(key, path, sizeof path), ACCEL_OK);
    if (keep >= 0) {
        assert_int_equal(truncate(path, keep), 0);
        return;
    }
    file = fopen(path, "r+b");
    assert_non_null(file);
    assert_int_equal(fseek(file, -(long)size, SEEK_END), 0);
    assert_int_equal(fwrite(bytes, 1, size, file), size);
    fclose(file);
}

static void test_corrupt_file_is_a_miss(void **state)
{
    char key[ACCEL_KERNEL_KEY_SIZE];
    const char payload[] = "a compiled program";
    void *got = NULL;
    size_t size = 0;
    (void)state;
    key_of("src", "dev", key);
    assert_int_equal(accel_kernel_cache_put(key, payload, sizeof payload), ACCEL_OK);
    damage(key, "XX", 2, -1); /* flipped payload bytes: checksum */
    assert_int_equal(accel_kernel_cache_get(key, &got, &size), ACCEL_ERROR_NOT_FOUND);
    assert_int_equal(accel_kernel_cache_put(key, payload, sizeof payload), ACCEL_OK);
    damage(key, NULL, 0, 20); /* truncated inside the header */
    assert_int_equal(accel_kernel_cache_get(key, &got, &size), ACCEL_ERROR_NOT_FOUND);
    assert_int_equal(accel_kernel_cache_put(key, payload, sizeof payload), ACCEL_OK);
    damage(key, NULL, 0, 60); /* truncated payload */
    assert_int_equal(accel_kernel_cache_get(key, &got, &size), ACCEL_ERROR_NOT_FOUND);
    /* a good put repairs it */
    assert_int_equal(accel_kernel_cache_put(key, payload, sizeof payload), ACCEL_OK);
    assert_int_equal(accel_kernel_cache_get(key, &got, &size), ACCEL_OK);
    free(got);
}

/* A FIFO in an entry's place (a hostile or broken cache folder) is a miss at
 * once: opening it for reading blocked until some writer came. The alarm
 * turns such a hang into a failure. */
static void test_fifo_entry_is_a_miss(void **state)
{
    char key[ACCEL_KERNEL_KEY_SIZE], path[4200];
    void *got = NULL;
    size_t size = 0;
    (void)state;
    key_of("src", "fifo", key);
    assert_int_equal(accel_kernel_cache_put(key, "x", 1), ACCEL_OK); /* makes the folders */
    assert_int_equal(accel_kernel_cache_path(key, path, sizeof path), ACCEL_OK);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(20);
    assert_int_equal(accel_kernel_cache_get(key, &got, &size), ACCEL_ERROR_NOT_FOUND);
    alarm(0);
    /* a put replaces it with a real entry */
    assert_int_equal(accel_kernel_cache_put(key, "x", 1), ACCEL_OK);
    assert_int_equal(accel_kernel_cache_get(key, &got, &size), ACCEL_OK);
    assert_int_equal(size, 1);
    free(got);
}

static void test_bad_keys_refused(void **state)
{
    void *got = NULL;
    size_t size = 0;
    (void)state;
    assert_int_equal(accel_kernel_cache_put("../escape", "x", 1), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_kernel_cache_get(NULL, &got, &size), ACCEL_ERROR_INVALID_ARGUMENT);
}

/* One writer: BIG_ENTRY bytes all equal to `fill`, put `rounds` times. */
static int writer(const char *key, unsigned char fill, int rounds)
{
    unsigned char *data = malloc(BIG_ENTRY);
    int failures = 0;
    if (data == NULL)
        return 1;
    memset(data, fill, BIG_ENTRY);
    for (int i = 0; i < rounds; i++)
        failures += accel_kernel_cache_put(key, data, BIG_ENTRY) != ACCEL_OK;
    free(data);
    return failures;
}

static void test_concurrent_writers(void **state)
{
    char key[ACCEL_KERNEL_KEY_SIZE];
    unsigned char *got = NULL;
    size_t size = 0;
    int status = 0, failures;
    pid_t child;
    (void)state;
    key_of("shared", "dev", key);
    child = fork();
    assert_true(child >= 0);
    if (child == 0)
        _exit(writer(key, 0xaa, 20) == 0 ? 0 : 1);
    failures = writer(key, 0x55, 20);
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(failures, 0);
    /* exactly one writer's complete entry, never a mix */
    assert_int_equal(accel_kernel_cache_get(key, (void **)&got, &size), ACCEL_OK);
    assert_int_equal(size, BIG_ENTRY);
    for (size_t i = 1; i < size; i++)
        assert_int_equal(got[i], got[0]);
    assert_true(got[0] == 0xaa || got[0] == 0x55);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_changes_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_file_is_a_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fifo_entry_is_a_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_keys_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_writers, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
