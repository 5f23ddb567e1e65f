/* test_pinned.c: unit tests of the pinned host range registry: recording,
 * interior lookups, overlap refusal and many ranges in random order.
 * Addresses are synthetic: the registry never touches the memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/pinned.h"

#define ADDR(x) ((const void *)(uintptr_t)(x))

static int registry_setup(void **state)
{
    accel_pinned_registry_t *registry = malloc(sizeof *registry);
    if (!registry)
        return -1;
    accel_pinned_init(registry);
    *state = registry;
    return 0;
}

static int registry_teardown(void **state)
{
    accel_pinned_registry_t *registry = *state;
    accel_pinned_fini(registry);
    free(registry);
    return 0;
}

static void test_add_contains_find_remove(void **state)
{
    accel_pinned_registry_t *registry = *state;
    assert_int_equal(accel_pinned_add(registry, ADDR(0x10000), 0x1000, ACCEL_PINNED_ALLOCATED),
                     ACCEL_OK);
    assert_true(accel_pinned_contains(registry, ADDR(0x10000)));
    assert_true(accel_pinned_contains(registry, ADDR(0x10800)));
    assert_true(accel_pinned_contains(registry, ADDR(0x10fff)));
    assert_false(accel_pinned_contains(registry, ADDR(0x11000)));
    assert_false(accel_pinned_contains(registry, ADDR(0xffff)));

    accel_pinned_range_t range = {0};
    assert_true(accel_pinned_find(registry, ADDR(0x10100), 0xf00, &range));
    assert_int_equal(range.base, 0x10000);
    assert_int_equal(range.size, 0x1000);
    assert_int_equal(range.kind, ACCEL_PINNED_ALLOCATED);
    assert_false(accel_pinned_find(registry, ADDR(0x10100), 0xf01, &range));
    assert_true(accel_pinned_find(registry, ADDR(0x10fff), 0, NULL));
    assert_false(accel_pinned_find(registry, ADDR(0x11000), 0, NULL));

    size_t size = 0;
    /* Interior pointer or the wrong kind: not found, nothing removed. */
    assert_int_equal(accel_pinned_remove(registry, ADDR(0x10100), ACCEL_PINNED_ALLOCATED, &size),
                     ACCEL_ERROR_NOT_FOUND);
    assert_int_equal(accel_pinned_remove(registry, ADDR(0x10000), ACCEL_PINNED_REGISTERED, &size),
                     ACCEL_ERROR_NOT_FOUND);
    assert_int_equal(size, 0);
    assert_true(accel_pinned_contains(registry, ADDR(0x10000)));

    assert_int_equal(accel_pinned_remove(registry, ADDR(0x10000), ACCEL_PINNED_ALLOCATED, &size),
                     ACCEL_OK);
    assert_int_equal(size, 0x1000);
    assert_false(accel_pinned_contains(registry, ADDR(0x10000)));
    assert_int_equal(accel_pinned_remove(registry, ADDR(0x10000), ACCEL_PINNED_ALLOCATED, &size),
                     ACCEL_ERROR_NOT_FOUND);
    assert_int_equal(registry->ranges.count, 0);
}

static void test_overlap_refused(void **state)
{
    accel_pinned_registry_t *registry = *state;
    assert_int_equal(accel_pinned_add(registry, ADDR(0x20000), 0x1000, ACCEL_PINNED_REGISTERED),
                     ACCEL_OK);
    static const struct {
        uintptr_t base;
        size_t size;
    } overlapping[] = {
        {0x20000, 0x1000}, /* identical */
        {0x1f800, 0x1000}, /* covers the start */
        {0x20800, 0x1000}, /* covers the end */
        {0x20100, 0x10},   /* inside */
        {0x1f000, 0x3000}, /* around */
        {0x20fff, 1},      /* last byte */
    };
    for (size_t i = 0; i < sizeof overlapping / sizeof overlapping[0]; i++) {
        assert_int_equal(accel_pinned_add(registry, ADDR(overlapping[i].base), overlapping[i].size,
                                          ACCEL_PINNED_ALLOCATED),
                         ACCEL_ERROR_INVALID_ARGUMENT);
        assert_non_null(strstr(accel_last_error(), "overlaps"));
    }
    assert_int_equal(registry->ranges.count, 1);

    /* Touching ranges on either side are fine. */
    assert_int_equal(accel_pinned_add(registry, ADDR(0x1f000), 0x1000, ACCEL_PINNED_ALLOCATED),
                     ACCEL_OK);
    assert_int_equal(accel_pinned_add(registry, ADDR(0x21000), 0x1000, ACCEL_PINNED_ALLOCATED),
                     ACCEL_OK);
    accel_pinned_range_t range;
    assert_true(accel_pinned_find(registry, ADDR(0x20fff), 1, &range));
    assert_int_equal(range.kind, ACCEL_PINNED_REGISTERED);
    assert_true(accel_pinned_find(registry, ADDR(0x21000), 1, &range));
    assert_int_equal(range.kind, ACCEL_PINNED_ALLOCATED);
    /* A span crossing two adjacent ranges is not inside one range. */
    assert_false(accel_pinned_find(registry, ADDR(0x20f00), 0x200, NULL));
}

static void test_bad_arguments(void **state)
{
    accel_pinned_registry_t *registry = *state;
    assert_int_equal(accel_pinned_add(registry, NULL, 16, ACCEL_PINNED_ALLOCATED),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_pinned_add(registry, ADDR(0x1000), 0, ACCEL_PINNED_ALLOCATED),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(
        accel_pinned_add(registry, ADDR(UINTPTR_MAX - 10), 100, ACCEL_PINNED_ALLOCATED),
        ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_pinned_add(registry, ADDR(0x1000), 16, (accel_pinned_kind_t)7),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(registry->ranges.count, 0);
    assert_false(accel_pinned_contains(registry, NULL));
    assert_int_equal(accel_pinned_remove(registry, NULL, ACCEL_PINNED_ALLOCATED, NULL),
                     ACCEL_ERROR_NOT_FOUND);
}

#define MANY 2000

static void test_many_ranges_random_order(void **state)
{
    accel_pinned_registry_t *registry = *state;
    /* Range i covers [base + i*0x1000, +0x800): gaps of 0x800 in between. */
    const uintptr_t base = 0x7f0000000000u;
    size_t order[MANY];
    for (size_t i = 0; i < MANY; i++)
        order[i] = i;
    unsigned seed = 12345;
    for (size_t i = MANY - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        size_t j = (seed >> 8) % (i + 1);
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t k = 0; k < MANY; k++) {
        size_t i = order[k];
        accel_pinned_kind_t kind = i % 2 ? ACCEL_PINNED_REGISTERED : ACCEL_PINNED_ALLOCATED;
        assert_int_equal(accel_pinned_add(registry, ADDR(base + i * 0x1000), 0x800, kind),
                         ACCEL_OK);
    }
    assert_int_equal(registry->ranges.count, MANY);
    for (size_t i = 1; i < registry->ranges.count; i++) {
        const accel_range_t *before = accel_range_map_at(&registry->ranges, i - 1);
        assert_true(before->base + before->size <= accel_range_map_at(&registry->ranges, i)->base);
    }

    for (size_t i = 0; i < MANY; i++) {
        uintptr_t start = base + i * 0x1000;
        accel_pinned_range_t range;
        assert_true(accel_pinned_find(registry, ADDR(start + 0x123), 0x10, &range));
        assert_int_equal(range.base, start);
        assert_false(accel_pinned_contains(registry, ADDR(start + 0x800)));
        assert_false(accel_pinned_contains(registry, ADDR(start + 0xfff)));
        /* Overlap with any existing range is refused, even among thousands. */
        assert_int_equal(
            accel_pinned_add(registry, ADDR(start + 0x7ff), 0x10, ACCEL_PINNED_ALLOCATED),
            ACCEL_ERROR_INVALID_ARGUMENT);
    }
    assert_false(accel_pinned_contains(registry, ADDR(base - 1)));

    /* Remove the even ranges in shuffled order; the odd ones stay. */
    for (size_t k = 0; k < MANY; k++) {
        size_t i = order[k];
        if (i % 2)
            continue;
        size_t size = 0;
        assert_int_equal(
            accel_pinned_remove(registry, ADDR(base + i * 0x1000), ACCEL_PINNED_ALLOCATED, &size),
            ACCEL_OK);
        assert_int_equal(size, 0x800);
    }
    assert_int_equal(registry->ranges.count, MANY / 2);
    for (size_t i = 0; i < MANY; i++)
        assert_int_equal(accel_pinned_contains(registry, ADDR(base + i * 0x1000 + 1)), i % 2 == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_add_contains_find_remove, registry_setup,
                                        registry_teardown),
        cmocka_unit_test_setup_teardown(test_overlap_refused, registry_setup, registry_teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, registry_setup, registry_teardown),
        cmocka_unit_test_setup_teardown(test_many_ranges_random_order, registry_setup,
                                        registry_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
