/* test_pin_backend_env.c: which pin memory backend an accelerator uses:
 * DeepSpeed's DS_PIN_MEMORY_BACKEND rule (native after strip().lower(),
 * anything else the default), ACCEL_PIN_MEMORY_BACKEND first, read at the
 * first pinning call; and the native backend pinning on an accelerator with
 * no device (fake_nodev.h), where the default one cannot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel.h"
#include "fake_nodev.h"

/* The backend a fresh cpu accelerator picks under these variables (NULL:
 * unset). */
static accel_pin_backend_t backend_with(const char *accel_value, const char *ds_value)
{
    accel_t *acc = NULL;
    accel_pin_backend_t backend = (accel_pin_backend_t)-1;
    if (accel_value != NULL)
        setenv("ACCEL_PIN_MEMORY_BACKEND", accel_value, 1);
    else
        unsetenv("ACCEL_PIN_MEMORY_BACKEND");
    if (ds_value != NULL)
        setenv("DS_PIN_MEMORY_BACKEND", ds_value, 1);
    else
        unsetenv("DS_PIN_MEMORY_BACKEND");
    assert_int_equal(accel_open("cpu", &acc), ACCEL_OK);
    assert_int_equal(accel_pin_memory_backend(acc, &backend), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
    return backend;
}

static void test_deepspeed_variable(void **state)
{
    (void)state;
    assert_int_equal(backend_with(NULL, NULL), ACCEL_PIN_BACKEND_DEFAULT);
    assert_int_equal(backend_with(NULL, "native"), ACCEL_PIN_BACKEND_NATIVE);
    assert_int_equal(backend_with(NULL, "  NaTiVe\n"), ACCEL_PIN_BACKEND_NATIVE);
    assert_int_equal(backend_with(NULL, "torch"), ACCEL_PIN_BACKEND_DEFAULT);
    assert_int_equal(backend_with(NULL, "nativ"), ACCEL_PIN_BACKEND_DEFAULT);
    assert_int_equal(backend_with(NULL, ""), ACCEL_PIN_BACKEND_DEFAULT);
}

static void test_accel_variable_comes_first(void **state)
{
    (void)state;
    assert_int_equal(backend_with("native", NULL), ACCEL_PIN_BACKEND_NATIVE);
    assert_int_equal(backend_with("torch", "native"), ACCEL_PIN_BACKEND_DEFAULT);
    assert_int_equal(backend_with("default", "native"), ACCEL_PIN_BACKEND_DEFAULT);
    assert_int_equal(backend_with("bogus", "native"), ACCEL_PIN_BACKEND_DEFAULT); /* warned */
    assert_int_equal(backend_with("", "native"), ACCEL_PIN_BACKEND_NATIVE);       /* "" is unset */
}

/* The variable is read once per accelerator, at the first call. */
static void test_read_once(void **state)
{
    accel_t *acc = NULL;
    accel_pin_backend_t backend;
    (void)state;
    unsetenv("ACCEL_PIN_MEMORY_BACKEND");
    setenv("DS_PIN_MEMORY_BACKEND", "native", 1);
    assert_int_equal(accel_open("cpu", &acc), ACCEL_OK);
    assert_int_equal(accel_pin_memory_backend(acc, &backend), ACCEL_OK);
    unsetenv("DS_PIN_MEMORY_BACKEND");
    assert_int_equal(accel_pin_memory_backend(acc, &backend), ACCEL_OK);
    assert_int_equal(backend, ACCEL_PIN_BACKEND_NATIVE);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

static const char *const fake_compile_backends[] = {"inductor"};
static const accel_backend_info_t fake_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .default_compile_backend = "inductor",
    .compile_backends = fake_compile_backends,
    .compile_backend_count = 1,
    .dlpack_device_type = kDLCUDA,
    .runtime_library = "libfake.so.1",
    .vendor_stack = "Fake Vendor Stack",
};
static accel_backend_ops_t fake_ops;

/* Native pinning needs no device and never calls the backend. */
static void test_native_without_a_device(void **state)
{
    float data[6] = {1, 2, 3, 4, 5, 6};
    int64_t shape[1] = {6};
    DLTensor src = {.data = data, .device = {kDLCPU, 0}, .ndim = 1, .shape = shape};
    DLTensor pinned;
    accel_t *acc = NULL;
    bool freed = false;
    (void)state;
    unsetenv("ACCEL_PIN_MEMORY_BACKEND");
    unsetenv("DS_PIN_MEMORY_BACKEND");
    assert_int_equal(accel_dtype_to_dlpack(ACCEL_DTYPE_F32, &src.dtype), ACCEL_OK);
    fake_ops = fake_nodev_ops("fake-pin-nodev", &fake_info);
    assert_int_equal(accel_register_backend(&fake_ops), ACCEL_OK);
    assert_int_equal(accel_open("fake-pin-nodev", &acc), ACCEL_OK);
    assert_int_equal(accel_pin_memory(acc, &src, true, true, &pinned), ACCEL_ERROR_UNAVAILABLE);
    assert_int_equal(accel_set_pin_memory_backend(acc, ACCEL_PIN_BACKEND_NATIVE), ACCEL_OK);
    assert_int_equal(accel_pin_memory(acc, &src, true, true, &pinned), ACCEL_OK);
    assert_memory_equal(pinned.data, data, sizeof data);
    assert_int_equal(accel_unpin_memory(acc, &pinned, &freed), ACCEL_OK);
    assert_true(freed);
    assert_int_equal(fake_device_calls, 0);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deepspeed_variable),
        cmocka_unit_test(test_accel_variable_comes_first),
        cmocka_unit_test(test_read_once),
        cmocka_unit_test(test_native_without_a_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
