/* test_utils_range_map.c: accel_range_map_t (accel_backend_utils.h) through
 * the shared library: bounds of find, overlap refusal naming the range in the
 * way, payloads copied in and out, exact-base removal, failures leaving the
 * map unchanged, and many ranges inserted in random order staying sorted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel_backend_utils.h"

#define ADDR(x) ((void *)(uintptr_t)(x))

typedef struct payload {
    int device;
    void *handle;
} payload_t;

static int setup(void **state)
{
    static accel_range_map_t map;
    accel_range_map_init(&map, sizeof(payload_t));
    *state = &map;
    return 0;
}

static int teardown(void **state)
{
    accel_range_map_fini(*state);
    return 0;
}

static void test_find_bounds(void **state)
{
    accel_range_map_t *map = *state;
    payload_t in = {.device = 3, .handle = ADDR(0xfeed)};
    assert_int_equal(accel_range_map_insert(map, ADDR(0x1000), 0x100, &in, NULL), ACCEL_OK);
    const accel_range_t *range = accel_range_map_find(map, ADDR(0x1000), 0);
    assert_non_null(range);
    assert_int_equal(range->base, 0x1000);
    assert_int_equal(range->size, 0x100);
    assert_memory_equal(accel_range_payload(range), &in, sizeof in);
    /* Interior pointers and spans that end at the last byte are inside. */
    assert_ptr_equal(accel_range_map_find(map, ADDR(0x10ff), 0), range);
    assert_ptr_equal(accel_range_map_find(map, ADDR(0x1080), 0x80), range);
    /* One byte too far, the end itself, and the byte before are not. */
    assert_null(accel_range_map_find(map, ADDR(0x1080), 0x81));
    assert_null(accel_range_map_find(map, ADDR(0x1100), 0));
    assert_null(accel_range_map_find(map, ADDR(0xfff), 1));
    assert_null(accel_range_map_find(map, NULL, 0));
}

static void test_overlap_refused_and_unchanged(void **state)
{
    accel_range_map_t *map = *state;
    const accel_range_t *conflict = ADDR(1);
    static const struct {
        uintptr_t base;
        size_t size;
    } overlapping[] = {
        {0x2000, 0x100}, {0x1f80, 0x100}, {0x20ff, 1}, {0x1000, 0x2000}, {0x2080, 0x10},
    };
    assert_int_equal(accel_range_map_insert(map, ADDR(0x2000), 0x100, NULL, NULL), ACCEL_OK);
    for (size_t i = 0; i < sizeof overlapping / sizeof overlapping[0]; i++) {
        assert_int_equal(accel_range_map_insert(map, ADDR(overlapping[i].base), overlapping[i].size,
                                                NULL, &conflict),
                         ACCEL_ERROR_INVALID_ARGUMENT);
        assert_non_null(conflict);
        assert_int_equal(conflict->base, 0x2000);
    }
    assert_int_equal(map->count, 1);
    /* A NULL payload records zeroes. */
    payload_t zero = {0};
    assert_memory_equal(accel_range_payload(accel_range_map_at(map, 0)), &zero, sizeof zero);
    /* Touching neighbours are fine. */
    assert_int_equal(accel_range_map_insert(map, ADDR(0x1f00), 0x100, NULL, &conflict), ACCEL_OK);
    assert_null(conflict);
    assert_int_equal(accel_range_map_insert(map, ADDR(0x2100), 0x100, NULL, NULL), ACCEL_OK);
    /* Bad ranges. */
    assert_int_equal(accel_range_map_insert(map, NULL, 16, NULL, NULL),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_range_map_insert(map, ADDR(0x9000), 0, NULL, NULL),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_range_map_insert(map, ADDR(UINTPTR_MAX - 10), 100, NULL, &conflict),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_null(conflict);
    assert_int_equal(map->count, 3);
}

static void test_remove_exact_base(void **state)
{
    accel_range_map_t *map = *state;
    payload_t in = {.device = 7, .handle = ADDR(0xbeef)}, out = {0};
    accel_range_t removed = {0};
    assert_int_equal(accel_range_map_insert(map, ADDR(0x4000), 0x1000, &in, NULL), ACCEL_OK);
    assert_false(accel_range_map_remove(map, ADDR(0x4001), &removed, &out));
    assert_false(accel_range_map_remove(map, ADDR(0x3fff), &removed, &out));
    assert_int_equal(map->count, 1);
    assert_true(accel_range_map_remove(map, ADDR(0x4000), &removed, &out));
    assert_int_equal(removed.base, 0x4000);
    assert_int_equal(removed.size, 0x1000);
    assert_memory_equal(&out, &in, sizeof in);
    assert_int_equal(map->count, 0);
    assert_false(accel_range_map_remove(map, ADDR(0x4000), NULL, NULL));
    assert_null(accel_range_map_find(map, ADDR(0x4000), 0));
    assert_null(accel_range_map_at(map, 0));
}

#define MANY 3000

static void test_many_random_order(void **state)
{
    accel_range_map_t *map = *state;
    const uintptr_t base = 0x7f0000000000u;
    static size_t order[MANY];
    unsigned seed = 777;
    for (size_t i = 0; i < MANY; i++)
        order[i] = i;
    for (size_t i = MANY - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        size_t j = (seed >> 8) % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t k = 0; k < MANY; k++) {
        payload_t in = {.device = (int)order[k]};
        assert_int_equal(
            accel_range_map_insert(map, ADDR(base + order[k] * 0x1000), 0x800, &in, NULL),
            ACCEL_OK);
    }
    assert_int_equal(map->count, MANY);
    for (size_t i = 0; i < MANY; i++) {
        const accel_range_t *range = accel_range_map_find(map, ADDR(base + i * 0x1000 + 0x7ff), 0);
        payload_t got;
        assert_non_null(range);
        assert_ptr_equal(range, accel_range_map_at(map, i));
        memcpy(&got, accel_range_payload(range), sizeof got);
        assert_int_equal(got.device, (int)i);
        /* The gaps between ranges hold nothing. */
        assert_null(accel_range_map_find(map, ADDR(base + i * 0x1000 + 0x800), 0));
    }
    /* Remove every other range; the rest are still found. */
    for (size_t i = 0; i < MANY; i += 2)
        assert_true(accel_range_map_remove(map, ADDR(base + i * 0x1000), NULL, NULL));
    assert_int_equal(map->count, MANY / 2);
    for (size_t i = 0; i < MANY; i++)
        assert_true((accel_range_map_find(map, ADDR(base + i * 0x1000), 1) != NULL) ==
                    (i % 2 == 1));
}

static void test_no_payload(void **state)
{
    accel_range_map_t map;
    (void)state;
    accel_range_map_init(&map, 0);
    assert_int_equal(accel_range_map_insert(&map, ADDR(0x10), 0x10, NULL, NULL), ACCEL_OK);
    assert_non_null(accel_range_map_find(&map, ADDR(0x1f), 0));
    assert_true(accel_range_map_remove(&map, ADDR(0x10), NULL, NULL));
    accel_range_map_fini(&map);
    assert_int_equal(map.count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_find_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overlap_refused_and_unchanged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remove_exact_base, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_random_order, setup, teardown),
        cmocka_unit_test(test_no_payload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
