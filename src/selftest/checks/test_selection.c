/* test_selection.c: conformance tests of backend selection: accel_get,
 * accel_set, accel_open/close, accel_detect, supported names, registration. */
#include "conformance.h"

#define SELECTION_MAX_CANDIDATES 32

/* "'name'" appears in accel_supported_names(). */
static bool selection_name_listed(const char *name)
{
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", name);
    return strstr(accel_supported_names(), quoted) != NULL;
}

void test_selection_supported_names_shape(void **state)
{
    const char *names = accel_supported_names();
    (void)state;
    assert_non_null(names);
    assert_int_equal(names[0], '[');
    assert_int_equal(names[strlen(names) - 1], ']');
    assert_true(selection_name_listed("cpu"));
    assert_true(selection_name_listed(conformance_backend));
}

void test_selection_get_returns_supported_name(void **state)
{
    accel_t *acc = NULL;
    (void)state;
    assert_ok(accel_get(&acc));
    assert_non_null(acc);
    assert_non_null(accel_name(acc));
    assert_true(selection_name_listed(accel_name(acc)));
}

void test_selection_get_is_cached(void **state)
{
    accel_t *first = NULL, *second = NULL;
    (void)state;
    assert_ok(accel_get(&first));
    assert_ok(accel_get(&second));
    assert_ptr_equal(first, second);
}

void test_selection_get_null_out(void **state)
{
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_get(NULL));
}

void test_selection_get_method(void **state)
{
    accel_t *acc = NULL;
    const char *method;
    (void)state;
    assert_ok(accel_get(&acc));
    method = accel_selection_method(acc);
    assert_non_null(method);
    assert_true(strcmp(method, "override") == 0 || strcmp(method, "auto detect") == 0 ||
                strcmp(method, "model specified") == 0);
}

void test_selection_method_explicit(void **state)
{
    (void)state;
    assert_string_equal(accel_selection_method(conformance_acc), "explicit");
    assert_null(accel_selection_method(NULL));
}

void test_selection_open_unknown_name(void **state)
{
    accel_t *acc = (accel_t *)&acc; /* sentinel: must stay untouched */
    (void)state;
    assert_status(ACCEL_ERROR_NOT_FOUND, accel_open("bogus", &acc));
    assert_ptr_equal(acc, (accel_t *)&acc);
    assert_non_null(strstr(accel_last_error(), "bogus"));
    assert_non_null(strstr(accel_last_error(), "'cpu'"));
}

void test_selection_open_null_arguments(void **state)
{
    accel_t *acc = NULL;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_open(NULL, &acc));
    assert_null(acc);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_open(conformance_backend, NULL));
}

void test_selection_open_again_is_independent(void **state)
{
    accel_t *acc = NULL;
    (void)state;
    assert_ok(accel_open(conformance_backend, &acc));
    assert_non_null(acc);
    assert_ptr_not_equal(acc, conformance_acc);
    assert_string_equal(accel_name(acc), accel_name(conformance_acc));
    assert_string_equal(accel_selection_method(acc), "explicit");
    assert_ok(accel_close(acc));
}

void test_selection_close_null(void **state)
{
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_close(NULL));
}

void test_selection_close_process_wide_refused(void **state)
{
    accel_t *acc = NULL;
    int count = 0;
    (void)state;
    assert_ok(accel_get(&acc));
    assert_refused(accel_close(acc));
    /* still usable */
    assert_non_null(accel_name(acc));
    assert_ok(accel_device_count(acc, &count));
    assert_true(count >= 1);
}

void test_selection_set_null(void **state)
{
    accel_t *before = NULL, *after = NULL;
    (void)state;
    assert_ok(accel_get(&before));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_set(NULL));
    assert_ok(accel_get(&after));
    assert_ptr_equal(before, after);
}

void test_selection_set_replaces_process_wide(void **state)
{
    accel_t *opened = NULL, *got = NULL, *previous = NULL;
    (void)state;
    assert_ok(accel_get(&previous));
    assert_ok(accel_open(conformance_backend, &opened));
    assert_ok(accel_set(opened));
    assert_ok(accel_get(&got));
    assert_ptr_equal(got, opened);
    assert_string_equal(accel_selection_method(got), "model specified");
    assert_refused(accel_close(got));
    /* the previous process-wide accelerator stays valid */
    assert_non_null(accel_name(previous));
}

void test_selection_detect_cpu_last(void **state)
{
    accel_candidate_t candidates[SELECTION_MAX_CANDIDATES];
    size_t count = 0, chosen = 0;
    (void)state;
    for (size_t i = 0; i < SELECTION_MAX_CANDIDATES; i++)
        candidates[i] = ACCEL_STRUCT_INIT(accel_candidate_t);
    assert_ok(accel_detect(candidates, SELECTION_MAX_CANDIDATES, &count));
    assert_true(count >= 1 && count <= SELECTION_MAX_CANDIDATES);
    assert_string_equal(candidates[count - 1].name, "cpu");
    assert_true(candidates[count - 1].built);
    assert_true(candidates[count - 1].available);
    for (size_t i = 0; i < count; i++) {
        assert_true(candidates[i].name[0] != '\0');
        assert_true(candidates[i].device_count >= -1);
        if (candidates[i].chosen) {
            chosen++;
            assert_true(candidates[i].available);
        }
    }
    assert_int_equal(chosen, 1);
}

void test_selection_detect_truncates(void **state)
{
    accel_candidate_t all[SELECTION_MAX_CANDIDATES], one[2];
    size_t total = 0, count = 0;
    (void)state;
    for (size_t i = 0; i < SELECTION_MAX_CANDIDATES; i++)
        all[i] = ACCEL_STRUCT_INIT(accel_candidate_t);
    one[0] = ACCEL_STRUCT_INIT(accel_candidate_t);
    one[1] = ACCEL_STRUCT_INIT(accel_candidate_t);
    strcpy(one[1].name, "untouched");
    assert_ok(accel_detect(all, SELECTION_MAX_CANDIDATES, &total));
    assert_ok(accel_detect(one, 1, &count));
    assert_int_equal(count, total);
    assert_string_equal(one[0].name, all[0].name);
    assert_string_equal(one[1].name, "untouched");
}

void test_selection_detect_null_count(void **state)
{
    accel_candidate_t candidates[1] = {ACCEL_STRUCT_INIT(accel_candidate_t)};
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_detect(candidates, 1, NULL));
}

void test_selection_register_null(void **state)
{
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_register_backend(NULL));
}
