/* test_utils_kernel_cache.c: the exported kernel cache (accel_backend_utils.h)
 * through the shared library: keys are FNV-1a 128 of the length-prefixed
 * parts (a fixed answer, so entries written before stay valid), a put is
 * read back by get, and a key never put is a miss. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel_backend_utils.h"

static char cache_dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(cache_dir, sizeof cache_dir, "/tmp/accel-utils-cache-XXXXXX");
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

static void test_key_is_stable(void **state)
{
    static const unsigned char device[3] = {1, 2, 3};
    accel_kernel_hash_t hash;
    char key[ACCEL_KERNEL_KEY_SIZE], again[ACCEL_KERNEL_KEY_SIZE];
    (void)state;
    accel_kernel_hash_init(&hash);
    accel_kernel_hash_add_string(&hash, "__kernel void k() {}");
    accel_kernel_hash_add_string(&hash, "-cl-std=CL1.2");
    accel_kernel_hash_add(&hash, device, sizeof device);
    accel_kernel_hash_key(&hash, key);
    /* Computed independently (FNV-1a 128, each part preceded by its u64
     * little-endian length). */
    assert_string_equal(key, "2ba0fc3d1676ce38ac9d7ec637d3e0b3");
    /* Parts are length-prefixed: "ab"+"c" differs from "a"+"bc". */
    accel_kernel_hash_init(&hash);
    accel_kernel_hash_add_string(&hash, "ab");
    accel_kernel_hash_add_string(&hash, "c");
    accel_kernel_hash_key(&hash, key);
    accel_kernel_hash_init(&hash);
    accel_kernel_hash_add_string(&hash, "a");
    accel_kernel_hash_add_string(&hash, "bc");
    accel_kernel_hash_key(&hash, again);
    assert_string_not_equal(key, again);
}

static void test_put_then_get(void **state)
{
    static const char binary[] = "not really a binary, but bytes all the same";
    char key[ACCEL_KERNEL_KEY_SIZE], path[512];
    accel_kernel_hash_t hash;
    void *data = NULL;
    size_t size = 0;
    (void)state;
    accel_kernel_hash_init(&hash);
    accel_kernel_hash_add_string(&hash, "plugin kernel");
    accel_kernel_hash_key(&hash, key);
    assert_int_equal(accel_kernel_cache_get(key, &data, &size), ACCEL_ERROR_NOT_FOUND);
    assert_int_equal(accel_kernel_cache_put(key, binary, sizeof binary), ACCEL_OK);
    assert_int_equal(accel_kernel_cache_get(key, &data, &size), ACCEL_OK);
    assert_int_equal(size, sizeof binary);
    assert_memory_equal(data, binary, sizeof binary);
    free(data);
    assert_int_equal(accel_kernel_cache_path(key, path, sizeof path), ACCEL_OK);
    assert_non_null(strstr(path, cache_dir));
    assert_non_null(strstr(path, key));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_is_stable),
        cmocka_unit_test_setup_teardown(test_put_then_get, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
