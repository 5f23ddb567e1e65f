/* test_find_block.c: accel_find_block's per-thread cache of answers never
 * outlives what it answered: a freed block, a block reused at the same
 * address with another size, a free on another thread, and another accel_t
 * at the same address are all seen at once; host pointers stay "not found"
 * and then are found once they are inside a new block. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/core.h"

static void expect_block(accel_t *acc, const void *ptr, const void *base, size_t size)
{
    void *found_base = NULL;
    size_t found_size = 0;
    int device = -1;
    assert_int_equal(accel_find_block(acc, ptr, &device, &found_base, &found_size), ACCEL_OK);
    assert_int_equal(device, 0);
    assert_ptr_equal(found_base, base);
    assert_int_equal(found_size, size);
}

static void expect_none(accel_t *acc, const void *ptr)
{
    void *base;
    size_t size;
    int device;
    assert_int_equal(accel_find_block(acc, ptr, &device, &base, &size), ACCEL_ERROR_NOT_FOUND);
}

static void test_free_and_reuse_are_seen(void **state)
{
    (void)state;
    accel_t *acc;
    void *a, *b;
    assert_int_equal(accel_open("cpu", &acc), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, 4096, &a), ACCEL_OK);
    expect_block(acc, (char *)a + 100, a, 4096);
    expect_block(acc, a, a, 4096); /* now from the cache */
    assert_int_equal(accel_free(acc, a), ACCEL_OK);
    expect_none(acc, a);
    expect_none(acc, (char *)a + 100);
    /* The caching allocator hands the same bytes out again, smaller. */
    assert_int_equal(accel_malloc(acc, 1000, &b), ACCEL_OK);
    if (b == a) {
        expect_block(acc, b, b, 1000);
        expect_none(acc, (char *)a + 2000); /* inside the old block, not the new one */
    }
    expect_block(acc, b, b, 1000);
    assert_int_equal(accel_free(acc, b), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

static void test_host_pointer_then_block(void **state)
{
    (void)state;
    accel_t *acc;
    void *block;
    int host[4];
    assert_int_equal(accel_open("cpu", &acc), ACCEL_OK);
    expect_none(acc, host);
    expect_none(acc, host); /* a cached "none" */
    expect_none(acc, NULL);
    assert_int_equal(accel_malloc(acc, 256, &block), ACCEL_OK);
    expect_block(acc, block, block, 256);
    expect_none(acc, host);
    assert_int_equal(accel_free(acc, block), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

typedef struct freer {
    accel_t *acc;
    void *ptr;
} freer_t;

static void *free_elsewhere(void *arg)
{
    freer_t *f = arg;
    assert_int_equal(accel_free(f->acc, f->ptr), ACCEL_OK);
    return NULL;
}

static void test_free_on_another_thread_is_seen(void **state)
{
    (void)state;
    freer_t f;
    pthread_t thread;
    assert_int_equal(accel_open("cpu", &f.acc), ACCEL_OK);
    assert_int_equal(accel_malloc(f.acc, 512, &f.ptr), ACCEL_OK);
    expect_block(f.acc, f.ptr, f.ptr, 512);
    assert_int_equal(pthread_create(&thread, NULL, free_elsewhere, &f), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    expect_none(f.acc, f.ptr);
    assert_int_equal(accel_close(f.acc), ACCEL_OK);
}

static void test_another_accel_at_the_same_address(void **state)
{
    (void)state;
    accel_t *first, *second;
    void *ptr;
    assert_int_equal(accel_open("cpu", &first), ACCEL_OK);
    assert_int_equal(accel_malloc(first, 64, &ptr), ACCEL_OK);
    expect_block(first, ptr, ptr, 64);
    assert_int_equal(accel_free(first, ptr), ACCEL_OK);
    /* Cache a "found" answer that closing must not leave true. */
    assert_int_equal(accel_malloc(first, 64, &ptr), ACCEL_OK);
    expect_block(first, ptr, ptr, 64);
    assert_int_equal(accel_close(first), ACCEL_OK);
    assert_int_equal(accel_open("cpu", &second), ACCEL_OK);
    /* Whether or not `second` reuses `first`'s address, it owns no block. */
    expect_none(second, ptr);
    assert_int_equal(accel_close(second), ACCEL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_and_reuse_are_seen),
        cmocka_unit_test(test_host_pointer_then_block),
        cmocka_unit_test(test_free_on_another_thread_is_seen),
        cmocka_unit_test(test_another_accel_at_the_same_address),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
