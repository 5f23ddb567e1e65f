/* test_deepspeed_queries.c: DeepSpeed's is_current_accelerator_supported()
 * (true for DeepSpeed's own accelerator names, "xpu.external" included,
 * false for accel's own) and communication_backend_version() (NCCL's version
 * read from the copy loaded in the process, "unknown" before it is loaded,
 * UNSUPPORTED without a communication backend). The fakes have no device
 * (fake_nodev.h): none of this needs one. FAKE_NCCL_PATH (from cmake) is a
 * stand-in libnccl.so.2 (fake_nccl.c). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel.h"
#include "fake_nodev.h"

static const char *const fake_compile_backends[] = {"inductor"};

static accel_backend_info_t fake_info_with(const char *communication_backend)
{
    return (accel_backend_info_t){
        .struct_size = sizeof(accel_backend_info_t),
        .communication_backend = communication_backend,
        .default_compile_backend = "inductor",
        .compile_backends = fake_compile_backends,
        .compile_backend_count = 1,
        .dlpack_device_type = kDLCUDA,
        .runtime_library = "libfake.so.1",
        .vendor_stack = "Fake Vendor Stack",
    };
}

static accel_backend_info_t nccl_info, none_info, gloo_info;
static accel_backend_ops_t nccl_ops, none_ops, gloo_ops, external_ops;

static int group_setup(void **state)
{
    (void)state;
    unsetenv("ACCEL_ACCELERATOR");
    unsetenv("DS_ACCELERATOR");
    nccl_info = fake_info_with("nccl");
    none_info = fake_info_with(NULL);
    gloo_info = fake_info_with("gloo");
    nccl_ops = fake_nodev_ops("fake-nccl", &nccl_info);
    none_ops = fake_nodev_ops("fake-nocomm", &none_info);
    gloo_ops = fake_nodev_ops("fake-gloo", &gloo_info);
    external_ops = fake_nodev_ops("xpu.external", &gloo_info);
    if (accel_register_backend(&nccl_ops) != ACCEL_OK ||
        accel_register_backend(&none_ops) != ACCEL_OK ||
        accel_register_backend(&gloo_ops) != ACCEL_OK ||
        accel_register_backend(&external_ops) != ACCEL_OK)
        return -1;
    return 0;
}

/* Make `name` the process-wide accelerator and check the answer. */
static void assert_supported_when_current(const char *name, bool expected)
{
    accel_t *acc = NULL;
    bool supported = !expected;
    assert_int_equal(accel_open(name, &acc), ACCEL_OK);
    assert_int_equal(accel_set(acc), ACCEL_OK);
    assert_int_equal(accel_is_current_accelerator_supported(&supported), ACCEL_OK);
    if (supported != expected)
        fail_msg("is_current_accelerator_supported() with %s: %d, expected %d", name, supported,
                 expected);
}

static void test_is_current_accelerator_supported(void **state)
{
    (void)state;
    assert_supported_when_current("cpu", true);
    assert_supported_when_current("xpu.external", true);
    assert_supported_when_current("fake-nccl", false);
    assert_int_equal(accel_is_current_accelerator_supported(NULL), ACCEL_ERROR_INVALID_ARGUMENT);
}

static void test_version_unsupported_without_communication_backend(void **state)
{
    accel_t *acc = NULL;
    char text[32] = "untouched";
    (void)state;
    assert_int_equal(accel_open("fake-nocomm", &acc), ACCEL_OK);
    assert_int_equal(accel_communication_backend_version(acc, text, sizeof text),
                     ACCEL_ERROR_UNSUPPORTED);
    assert_non_null(strstr(accel_last_error(), "fake-nocomm has no communication backend"));
    assert_string_equal(text, "untouched");
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

static void test_version_unknown_without_a_query(void **state)
{
    accel_t *acc = NULL;
    char text[32] = "";
    (void)state;
    assert_int_equal(accel_open("fake-gloo", &acc), ACCEL_OK);
    assert_int_equal(accel_communication_backend_version(acc, text, sizeof text), ACCEL_OK);
    assert_string_equal(text, "unknown");
    assert_int_equal(accel_communication_backend_version(acc, NULL, 8),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_communication_backend_version(acc, text, 3),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_communication_backend_version(NULL, text, sizeof text),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* "unknown" until the process loads NCCL (accel never loads it); then the
 * loaded copy's version, decoded in both of NCCL's code schemes. */
static void test_version_of_loaded_nccl(void **state)
{
    accel_t *acc = NULL;
    char text[32] = "";
    void *nccl;
    int *code;
    (void)state;
    assert_int_equal(accel_open("fake-nccl", &acc), ACCEL_OK);
    assert_int_equal(accel_communication_backend_version(acc, text, sizeof text), ACCEL_OK);
    assert_string_equal(text, "unknown");
    assert_null(dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD)); /* still not loaded */
    nccl = dlopen(FAKE_NCCL_PATH, RTLD_NOW | RTLD_GLOBAL);
    assert_non_null(nccl);
    code = dlsym(nccl, "fake_nccl_version_code");
    assert_non_null(code);
    assert_int_equal(accel_communication_backend_version(acc, text, sizeof text), ACCEL_OK);
    assert_string_equal(text, "2.21.5");
    *code = 2704; /* before NCCL 2.9: MAJOR*1000 + MINOR*100 + PATCH */
    assert_int_equal(accel_communication_backend_version(acc, text, sizeof text), ACCEL_OK);
    assert_string_equal(text, "2.7.4");
    assert_int_equal(accel_close(acc), ACCEL_OK);
    dlclose(nccl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_current_accelerator_supported),
        cmocka_unit_test(test_version_unsupported_without_communication_backend),
        cmocka_unit_test(test_version_unknown_without_a_query),
        cmocka_unit_test(test_version_of_loaded_nccl),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
