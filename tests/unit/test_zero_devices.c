/* test_zero_devices.c: a backend whose runtime is present but which has no
 * device (DS_ACCELERATOR=cuda in a build container) opens when named: what
 * needs no device works (names, flags, dtypes, op builders, environment
 * lists, the compile backend), device work fails with a sentence naming the
 * backend and saying it has no devices, the backend is never asked to do
 * device work, and auto-detect still skips it.
 * The fake backend "fake-nodev" (fake_nodev.h) counts every call that would
 * need a device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel_ops.h"
#include "fake_nodev.h"

#define FAKE_NAME "fake-nodev"

static const char *const fake_compile_backends[] = {"inductor"};
static const char *const fake_visible_envs[] = {"FAKE_VISIBLE_DEVICES"};
static const char *const fake_export_envs[] = {"FAKE"};

static const accel_backend_info_t fake_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .communication_backend = "fccl",
    .default_compile_backend = "inductor",
    .compile_backends = fake_compile_backends,
    .compile_backend_count = 1,
    .visible_devices_envs = fake_visible_envs,
    .visible_devices_env_count = 1,
    .export_envs = fake_export_envs,
    .export_env_count = 1,
    .dlpack_device_type = kDLCUDA,
    .runtime_library = "libfake-nodev.so.1",
    .vendor_stack = "Fake Vendor Stack",
    .current_device_from_local_rank = true,
};

static accel_backend_ops_t fake_ops;

/* Graph slots, so core's checks (not a missing slot) decide: each counts as
 * device work. */
static accel_status_t fake_graph_capture_begin(void *self, int device, void *stream)
{
    (void)self;
    (void)device;
    (void)stream;
    return fake_device_work();
}

static accel_status_t fake_graph_capture_end(void *self, int device, void *stream, void **out_graph)
{
    (void)self;
    (void)device;
    (void)stream;
    (void)out_graph;
    return fake_device_work();
}

static accel_status_t fake_graph_launch(void *self, int device, void *stream, void *graph)
{
    (void)self;
    (void)device;
    (void)stream;
    (void)graph;
    return fake_device_work();
}

static void fake_graph_destroy(void *self, void *graph)
{
    (void)self;
    (void)graph;
    fake_device_calls++;
}

static accel_t *acc;

static int group_setup(void **state)
{
    (void)state;
    unsetenv("ACCEL_ACCELERATOR");
    unsetenv("DS_ACCELERATOR");
    setenv("LOCAL_RANK", "1", 1); /* no device to start on: must not matter */
    fake_ops = fake_nodev_ops(FAKE_NAME, &fake_info);
    fake_ops.graph_capture_begin = fake_graph_capture_begin;
    fake_ops.graph_capture_end = fake_graph_capture_end;
    fake_ops.graph_launch = fake_graph_launch;
    fake_ops.graph_destroy = fake_graph_destroy;
    if (accel_register_backend(&fake_ops) != ACCEL_OK)
        return -1;
    return accel_open(FAKE_NAME, &acc) == ACCEL_OK ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    return acc != NULL && accel_close(acc) == ACCEL_OK ? 0 : -1;
}

/* The call failed with UNAVAILABLE and a sentence naming the backend and
 * its lack of devices. */
static void assert_no_device_refusal(accel_status_t status)
{
    assert_int_equal(status, ACCEL_ERROR_UNAVAILABLE);
    assert_non_null(strstr(accel_last_error(), FAKE_NAME));
    assert_non_null(strstr(accel_last_error(), "no devices"));
}

static void test_what_needs_no_device_works(void **state)
{
    char name[64];
    const char *text = NULL;
    const char *const *names = NULL;
    size_t count = 0;
    int devices = -1;
    int32_t dlpack = 0;
    (void)state;
    assert_string_equal(accel_name(acc), FAKE_NAME);
    assert_int_equal(accel_device_count(acc, &devices), ACCEL_OK);
    assert_int_equal(devices, 0);
    assert_int_equal(accel_device_name(acc, -1, name, sizeof name), ACCEL_OK);
    assert_string_equal(name, FAKE_NAME);
    assert_int_equal(accel_communication_backend_name(acc, &text), ACCEL_OK);
    assert_string_equal(text, "fccl");
    assert_int_equal(accel_get_compile_backend(acc, &text), ACCEL_OK);
    assert_int_equal(accel_set_compile_backend(acc, "inductor"), ACCEL_OK);
    assert_int_equal(accel_visible_devices_envs(acc, &names, &count), ACCEL_OK);
    assert_int_equal(count, 1);
    assert_int_equal(accel_export_envs(acc, &names, &count), ACCEL_OK);
    assert_int_equal(accel_dlpack_device_type(acc, &dlpack), ACCEL_OK);
    assert_int_equal(fake_device_calls, 0);
}

/* Every flag answers without a device; is_available is false, and bf16 and
 * fp16 follow DeepSpeed's cuda rule without a device (true), as do the
 * dtypes (float, half, bfloat16). */
static void test_flags_and_dtypes(void **state)
{
    accel_dtype_t dtypes[ACCEL_DTYPE_COUNT_];
    size_t count = 0;
    bool value = true;
    (void)state;
    for (int flag = 0; flag < ACCEL_FLAG_COUNT_; flag++)
        assert_int_equal(accel_query_flag(acc, (accel_flag_t)flag, &value), ACCEL_OK);
    assert_int_equal(accel_query_flag(acc, ACCEL_FLAG_IS_AVAILABLE, &value), ACCEL_OK);
    assert_false(value);
    assert_int_equal(accel_query_flag(acc, ACCEL_FLAG_BF16_SUPPORTED, &value), ACCEL_OK);
    assert_true(value);
    assert_int_equal(accel_supported_dtypes(acc, dtypes, ACCEL_DTYPE_COUNT_, &count), ACCEL_OK);
    assert_int_equal(count, 3);
    assert_int_equal(dtypes[0], ACCEL_DTYPE_F32);
    assert_int_equal(dtypes[1], ACCEL_DTYPE_F16);
    assert_int_equal(dtypes[2], ACCEL_DTYPE_BF16);
    assert_int_equal(fake_device_calls, 0);
}

/* The host builders list, say they are compatible and load: DeepSpeed's
 * CPUAdam works with a CUDA accelerator in a container without a GPU. */
static void test_op_builders_work(void **state)
{
    accel_op_builder_t *builder = NULL;
    const accel_adam_op_t *adam = NULL;
    size_t count = 0;
    bool compatible = false;
    (void)state;
    assert_int_equal(accel_op_builder_count(acc, &count), ACCEL_OK);
    assert_true(count >= 1);
    assert_int_equal(accel_get_op_builder(acc, "CPUAdamBuilder", &builder), ACCEL_OK);
    assert_int_equal(accel_op_builder_is_compatible(builder, &compatible, NULL, 0), ACCEL_OK);
    assert_true(compatible);
    assert_int_equal(accel_op_builder_load(builder, (const void **)&adam), ACCEL_OK);
    assert_non_null(adam);
    assert_int_equal(fake_device_calls, 0);
}

static void test_device_work_is_refused(void **state)
{
    accel_stream_t *stream = NULL;
    accel_event_t *event = NULL;
    accel_graph_t *graph = NULL;
    uint8_t rng_state[ACCEL_RNG_STATE_SIZE];
    uint64_t value = 0;
    float host[4] = {0};
    void *ptr = NULL;
    int device = -1;
    char name[64];
    (void)state;
    assert_no_device_refusal(accel_current_device(acc, &device));
    assert_int_equal(device, -1);
    assert_no_device_refusal(accel_current_device_name(acc, name, sizeof name));
    assert_no_device_refusal(accel_set_device(acc, 0));
    assert_no_device_refusal(accel_synchronize(acc, ACCEL_CURRENT_DEVICE));
    assert_no_device_refusal(accel_malloc(acc, 64, &ptr));
    assert_null(ptr);
    assert_no_device_refusal(accel_memset(acc, host, 0, sizeof host));
    assert_no_device_refusal(accel_memcpy(acc, host, host + 2, 8, ACCEL_COPY_HOST_TO_HOST));
    assert_no_device_refusal(accel_memory_allocated(acc, ACCEL_CURRENT_DEVICE, &value));
    assert_no_device_refusal(accel_reset_peak_memory_stats(acc, ACCEL_CURRENT_DEVICE));
    assert_no_device_refusal(accel_total_memory(acc, ACCEL_CURRENT_DEVICE, &value));
    assert_no_device_refusal(accel_manual_seed(acc, 1));
    assert_no_device_refusal(accel_get_rng_state(acc, 0, rng_state, sizeof rng_state));
    assert_no_device_refusal(accel_rng_uniform_f32(acc, host, 4, NULL));
    assert_no_device_refusal(accel_stream_create(acc, 0, 0, &stream));
    assert_no_device_refusal(accel_current_stream(acc, ACCEL_CURRENT_DEVICE, &stream));
    assert_no_device_refusal(accel_set_current_stream(acc, NULL));
    assert_no_device_refusal(accel_event_create(acc, 0, 0, &event));
    assert_no_device_refusal(accel_host_alloc(acc, 64, &ptr));
    /* A graph could never capture (no stream) and its destroy would index
     * the device array, which is empty. */
    assert_no_device_refusal(accel_graph_create(acc, &graph));
    assert_null(stream);
    assert_null(event);
    assert_null(graph);
    /* Nothing per device exists, so these have nothing to do. */
    assert_int_equal(accel_manual_seed_all(acc, 1), ACCEL_OK);
    assert_int_equal(accel_empty_cache(acc), ACCEL_OK);
    assert_int_equal(fake_device_calls, 0);
}

/* A backend reporting a negative count is a runtime without a usable
 * device, like one reporting 0 when opened by auto-detect: UNAVAILABLE with
 * a sentence naming the backend and the count, not INTERNAL (which says
 * accel itself is wrong). */
static accel_status_t negative_device_count(void *self, int *out)
{
    (void)self;
    *out = -5;
    return ACCEL_OK;
}

static void test_negative_count_is_unavailable(void **state)
{
    static accel_backend_ops_t negative_ops;
    accel_t *opened = NULL;
    (void)state;
    negative_ops = fake_nodev_ops("fake-negative", &fake_info);
    negative_ops.device_count = negative_device_count;
    assert_int_equal(accel_register_backend(&negative_ops), ACCEL_OK);
    assert_int_equal(accel_open("fake-negative", &opened), ACCEL_ERROR_UNAVAILABLE);
    assert_null(opened);
    assert_non_null(strstr(accel_last_error(), "fake-negative"));
    assert_non_null(strstr(accel_last_error(), "-5"));
}

/* An override variable naming it gets it as the process-wide accelerator
 * (the cascade never picks it: test_cascade.c). Last: accel_get caches. */
static void test_override_opens_it(void **state)
{
    accel_t *chosen = NULL;
    (void)state;
    setenv("DS_ACCELERATOR", FAKE_NAME, 1);
    assert_int_equal(accel_get(&chosen), ACCEL_OK);
    assert_string_equal(accel_name(chosen), FAKE_NAME);
    assert_string_equal(accel_selection_method(chosen), "override");
    unsetenv("DS_ACCELERATOR");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_what_needs_no_device_works),
        cmocka_unit_test(test_flags_and_dtypes),
        cmocka_unit_test(test_op_builders_work),
        cmocka_unit_test(test_device_work_is_refused),
        cmocka_unit_test(test_negative_count_is_unavailable),
        cmocka_unit_test(test_override_opens_it),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
