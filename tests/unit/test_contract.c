/* test_contract.c: registration enforces the backend contract
 * (src/core/backend_contract.c): optional groups all-or-nothing, slots that
 * need a group only with it, rng_fill or the groups core's fallback fill
 * needs, complete fused_optim tables, the ABI version;
 * and every builtin backend's table passes the same checks. Tables are
 * copies of the cpu backend's, renamed, then damaged one slot at a time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel_backend.h"
#include "core/registry.h"

/* A valid table to damage: the cpu backend's, under `name`. Static storage:
 * a registered table must outlive the process. */
static accel_backend_ops_t contract_table(const char *name)
{
    const accel_backend_ops_t *cpu = accel_registry_find("cpu");
    accel_backend_ops_t ops;
    assert_non_null(cpu);
    ops = *cpu;
    ops.name = name;
    return ops;
}

static void expect_refused(const accel_backend_ops_t *ops, const char *words)
{
    assert_int_equal(accel_registry_validate(ops), ACCEL_ERROR_INVALID_ARGUMENT);
    if (strstr(accel_last_error(), words) == NULL)
        fail_msg("error \"%s\" does not say \"%s\"", accel_last_error(), words);
}

static void test_complete_copy_is_accepted(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = contract_table("contract-whole");
    assert_int_equal(accel_registry_validate(&ops), ACCEL_OK);
}

static void test_partial_streams_group_refused(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = contract_table("contract-streams");
    ops.stream_query = NULL;
    expect_refused(&ops, "streams");
    expect_refused(&ops, "stream_query");
    assert_int_equal(accel_register_backend(&ops), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_null(accel_registry_find("contract-streams"));
}

static void test_partial_events_group_refused(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = contract_table("contract-events");
    ops.event_record = NULL;
    expect_refused(&ops, "event_record");
}

static void test_partial_graphs_group_refused(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = contract_table("contract-graphs");
    ops.graph_destroy = NULL;
    expect_refused(&ops, "graph_destroy");
}

static void test_partial_pinned_groups_refused(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = contract_table("contract-pinned");
    ops.host_free = NULL;
    expect_refused(&ops, "host_free");
    ops = contract_table("contract-pinned");
    ops.host_unregister = NULL;
    expect_refused(&ops, "host_unregister");
}

static void test_partial_profiling_refused(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = contract_table("contract-profiling");
    ops.range_pop = NULL;
    ops.range_push = (void (*)(void *, const char *, const char *, const char *))1;
    expect_refused(&ops, "range_pop");
}

static void test_whole_group_may_be_missing(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = contract_table("contract-no-graphs");
    ops.graph_capture_begin = NULL;
    ops.graph_capture_end = NULL;
    ops.graph_launch = NULL;
    ops.graph_destroy = NULL;
    assert_int_equal(accel_registry_validate(&ops), ACCEL_OK);
}

static void test_slots_needing_a_group_refused_without_it(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = contract_table("contract-wait");
    ops.event_create = NULL;
    ops.event_destroy = NULL;
    ops.event_record = NULL;
    ops.event_synchronize = NULL;
    ops.event_query = NULL;
    ops.event_elapsed_ms = NULL;
    expect_refused(&ops, "stream_wait_event without the events group");
    ops.stream_wait_event = NULL;
    assert_int_equal(accel_registry_validate(&ops), ACCEL_OK);
    ops.event_elapsed_ms = contract_table("x").event_elapsed_ms;
    expect_refused(&ops, "event_elapsed_ms without the events group");
}

static bool fake_is_compatible(void *self, char *reason, size_t cap)
{
    (void)self;
    snprintf(reason, cap, "test table");
    return false;
}

static accel_status_t fake_build(void *self)
{
    (void)self;
    return ACCEL_OK;
}

static accel_status_t fake_adam(void *self, const accel_optim_launch_t *launch,
                                const accel_adam_coeffs_t *coeffs)
{
    (void)self;
    (void)launch;
    (void)coeffs;
    return ACCEL_OK;
}

static void test_incomplete_fused_optim_refused(void **state)
{
    static accel_backend_ops_t ops;
    static accel_fused_optim_ops_t fused;
    (void)state;
    ops = contract_table("contract-fused");
    fused =
        (accel_fused_optim_ops_t){sizeof fused, fake_is_compatible, fake_build, NULL, NULL, NULL};
    ops.fused_optim = &fused;
    expect_refused(&ops, "fused_optim");
    fused.adam = fake_adam;
    assert_int_equal(accel_registry_validate(&ops), ACCEL_OK);
    fused.build = NULL;
    expect_refused(&ops, "fused_optim");
}

static accel_status_t fake_lamb(void *self, const accel_optim_launch_t *launch,
                                const accel_lamb_coeffs_t *coeffs)
{
    (void)self;
    (void)launch;
    (void)coeffs;
    return ACCEL_OK;
}

/* The lamb slot was appended: a table that ends before it validates on its
 * adam/lion kernels and its lamb member is never read; a table with only a
 * lamb kernel counts only when its struct_size covers the slot. */
static void test_fused_optim_lamb_slot_follows_struct_size(void **state)
{
    static accel_backend_ops_t ops;
    static accel_fused_optim_ops_t fused;
    (void)state;
    ops = contract_table("contract-lamb");
    fused = (accel_fused_optim_ops_t){offsetof(accel_fused_optim_ops_t, lamb),
                                      fake_is_compatible,
                                      fake_build,
                                      fake_adam,
                                      NULL,
                                      fake_lamb};
    ops.fused_optim = &fused;
    assert_int_equal(accel_registry_validate(&ops), ACCEL_OK);
    assert_null(ACCEL_FUSED_OPTIM_LAMB(&fused));
    fused.adam = NULL;
    expect_refused(&ops, "fused_optim"); /* the lamb member lies past the table */
    fused.struct_size = sizeof fused;
    assert_ptr_equal(ACCEL_FUSED_OPTIM_LAMB(&fused), fake_lamb);
    ops.name = "contract-lamb-full";
    assert_int_equal(accel_registry_validate(&ops), ACCEL_OK);
}

/* rng_fill may be NULL when core's fallback can fill instead: it needs
 * pinned allocation, streams and events, and the refusal names what is
 * missing. */
static void test_rng_fill_needed_only_without_fallback_groups(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = contract_table("contract-rng-fallback");
    ops.rng_fill = NULL;
    assert_int_equal(accel_registry_validate(&ops), ACCEL_OK);
    ops.event_create = NULL;
    ops.event_destroy = NULL;
    ops.event_record = NULL;
    ops.event_synchronize = NULL;
    ops.event_query = NULL;
    ops.event_elapsed_ms = NULL;
    ops.stream_wait_event = NULL;
    expect_refused(&ops, "leaves rng_fill NULL but lacks the events group");
    ops = contract_table("contract-rng-fallback");
    ops.rng_fill = NULL;
    ops.host_alloc = NULL;
    ops.host_free = NULL;
    ops.stream_create = NULL;
    ops.stream_destroy = NULL;
    ops.stream_synchronize = NULL;
    ops.stream_query = NULL;
    ops.stream_wait_event = NULL;
    ops.stream_add_callback = NULL;
    expect_refused(&ops, "lacks the pinned allocation (host_alloc, host_free), streams group");
}

static void test_abi_one_refused(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = contract_table("contract-abi1");
    ops.abi_version = 1;
    assert_int_equal(accel_registry_validate(&ops), ACCEL_ERROR_UNSUPPORTED);
    assert_non_null(strstr(accel_last_error(), "ABI version 1"));
}

/* Builtins go through the same checks when opened; check each here too. */
static void test_every_builtin_keeps_the_contract(void **state)
{
    static accel_backend_ops_t copies[16];
    (void)state;
    assert_true(accel_builtin_backend_count <= 16);
    for (size_t i = 0; i < accel_builtin_backend_count; i++) {
        char *name = malloc(48);
        assert_non_null(name);
        snprintf(name, 48, "contract-copy-%s", accel_builtin_backends[i].name);
        copies[i] = *accel_builtin_backends[i].ops();
        copies[i].name = name; /* leaked on purpose: a validated name may be kept */
        if (accel_registry_validate(&copies[i]) != ACCEL_OK)
            fail_msg("builtin %s: %s", accel_builtin_backends[i].name, accel_last_error());
        assert_non_null(accel_registry_find(accel_builtin_backends[i].name));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complete_copy_is_accepted),
        cmocka_unit_test(test_fused_optim_lamb_slot_follows_struct_size),
        cmocka_unit_test(test_partial_streams_group_refused),
        cmocka_unit_test(test_partial_events_group_refused),
        cmocka_unit_test(test_partial_graphs_group_refused),
        cmocka_unit_test(test_partial_pinned_groups_refused),
        cmocka_unit_test(test_partial_profiling_refused),
        cmocka_unit_test(test_whole_group_may_be_missing),
        cmocka_unit_test(test_slots_needing_a_group_refused_without_it),
        cmocka_unit_test(test_incomplete_fused_optim_refused),
        cmocka_unit_test(test_rng_fill_needed_only_without_fallback_groups),
        cmocka_unit_test(test_abi_one_refused),
        cmocka_unit_test(test_every_builtin_keeps_the_contract),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
