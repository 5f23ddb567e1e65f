/* test_op_builders.c: conformance tests of op builders: lookup by class
 * name, enumeration, names, is_compatible and load. */
#include "conformance.h"

static size_t op_builders_count(void)
{
    size_t count = 0;
    assert_ok(accel_op_builder_count(conformance_acc, &count));
    return count;
}

static bool op_builders_ends_with(const char *text, const char *suffix)
{
    size_t n = strlen(text), m = strlen(suffix);
    return n >= m && strcmp(text + n - m, suffix) == 0;
}

void test_op_builders_unknown_name(void **state)
{
    accel_op_builder_t *builder = (accel_op_builder_t *)&builder;
    (void)state;
    assert_status(ACCEL_ERROR_NOT_FOUND,
                  accel_get_op_builder(conformance_acc, "ConformanceNoSuchBuilder", &builder));
    assert_ptr_equal(builder, (accel_op_builder_t *)&builder);
}

void test_op_builders_enumerate(void **state)
{
    size_t count = op_builders_count();
    (void)state;
    if (count == 0)
        print_message("note: backend has no op builders\n");
    for (size_t i = 0; i < count; i++) {
        accel_op_builder_t *builder = NULL, *by_name = NULL;
        const char *class_name, *op_name;
        assert_ok(accel_op_builder_at(conformance_acc, i, &builder));
        assert_non_null(builder);
        class_name = accel_op_builder_class_name(builder);
        op_name = accel_op_builder_op_name(builder);
        assert_non_null(class_name);
        assert_non_null(op_name);
        assert_true(op_builders_ends_with(class_name, "Builder"));
        assert_true(op_name[0] != '\0');
        assert_ok(accel_get_op_builder(conformance_acc, class_name, &by_name));
        assert_ptr_equal(builder, by_name);
        for (size_t j = 0; j < i; j++) {
            accel_op_builder_t *earlier = NULL;
            assert_ok(accel_op_builder_at(conformance_acc, j, &earlier));
            assert_string_not_equal(class_name, accel_op_builder_class_name(earlier));
        }
    }
}

void test_op_builders_is_compatible_answers(void **state)
{
    size_t count = op_builders_count();
    (void)state;
    for (size_t i = 0; i < count; i++) {
        accel_op_builder_t *builder = NULL;
        bool compatible = false, again = false;
        char reason[256];
        assert_ok(accel_op_builder_at(conformance_acc, i, &builder));
        reason[0] = '\0';
        assert_ok(accel_op_builder_is_compatible(builder, &compatible, reason, sizeof reason));
        if (!compatible)
            assert_true(reason[0] != '\0');
        assert_ok(accel_op_builder_is_compatible(builder, &again, NULL, 0));
        assert_int_equal(compatible, again);
    }
}

void test_op_builders_load_cached(void **state)
{
    size_t count = op_builders_count();
    size_t loaded = 0;
    (void)state;
    for (size_t i = 0; i < count; i++) {
        accel_op_builder_t *builder = NULL;
        bool compatible = false;
        const void *table = NULL, *again = NULL;
        assert_ok(accel_op_builder_at(conformance_acc, i, &builder));
        assert_ok(accel_op_builder_is_compatible(builder, &compatible, NULL, 0));
        if (!compatible) {
            assert_refused(accel_op_builder_load(builder, &table));
            assert_null(table);
            continue;
        }
        assert_ok(accel_op_builder_load(builder, &table));
        assert_non_null(table);
        assert_ok(accel_op_builder_load(builder, &again));
        assert_ptr_equal(table, again);
        loaded++;
    }
    if (loaded == 0)
        print_message("note: no compatible op builder to load\n");
}

void test_op_builders_index_past_end(void **state)
{
    accel_op_builder_t *builder = (accel_op_builder_t *)&builder;
    accel_status_t status = accel_op_builder_at(conformance_acc, op_builders_count(), &builder);
    (void)state;
    /* the header names no code for this; either lookup failure is acceptable */
    assert_true(status == ACCEL_ERROR_NOT_FOUND || status == ACCEL_ERROR_INVALID_ARGUMENT);
    assert_true(accel_last_error()[0] != '\0');
    assert_ptr_equal(builder, (accel_op_builder_t *)&builder);
}

void test_op_builders_bad_arguments(void **state)
{
    accel_op_builder_t *builder = NULL;
    size_t count = 0;
    bool compatible = false;
    const void *table = NULL;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_get_op_builder(conformance_acc, NULL, &builder));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_get_op_builder(NULL, "CPUAdamBuilder", &builder));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_get_op_builder(conformance_acc, "CPUAdamBuilder", NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_count(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_count(NULL, &count));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_at(conformance_acc, 0, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_at(NULL, 0, &builder));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_op_builder_is_compatible(NULL, &compatible, NULL, 0));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_load(NULL, &table));
    assert_null(accel_op_builder_class_name(NULL));
    assert_null(accel_op_builder_op_name(NULL));
    assert_null(builder);
    if (op_builders_count() > 0) {
        assert_ok(accel_op_builder_at(conformance_acc, 0, &builder));
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                      accel_op_builder_is_compatible(builder, NULL, NULL, 0));
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_load(builder, NULL));
    }
}
