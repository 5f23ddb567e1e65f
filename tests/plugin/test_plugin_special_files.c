/* test_plugin_special_files.c: ACCEL_PLUGIN_PATH naming things that are not
 * regular files. A FIFO called libaccel-backend-x.so (in a listed folder, or
 * named directly) would block dlopen's open() forever; a folder with a plugin
 * name is not a plugin either. Both must be skipped with a warning; the FIFO
 * named as a vendor runtime (ACCEL_CUDA_LIBRARY...) likewise. An alarm
 * bounds the test so a hang fails it instead of stalling ctest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <accel/accel.h>

static char folder[] = "/tmp/accel-plugin-fifo-XXXXXX";
static char fifo_path[256];
static char dir_path[256];

static int setup(void **state)
{
    char path[600];
    (void)state;
    if (mkdtemp(folder) == NULL)
        return -1;
    snprintf(fifo_path, sizeof fifo_path, "%s/libaccel-backend-x.so", folder);
    snprintf(dir_path, sizeof dir_path, "%s/libaccel-backend-dir.so", folder);
    if (mkfifo(fifo_path, 0600) != 0 || mkdir(dir_path, 0700) != 0)
        return -1;
    /* The folder form, then the FIFO and the folder named directly. */
    snprintf(path, sizeof path, "%s:%s:%s", folder, fifo_path, dir_path);
    return setenv("ACCEL_PLUGIN_PATH", path, 1);
}

static int teardown(void **state)
{
    (void)state;
    unlink(fifo_path);
    rmdir(dir_path);
    rmdir(folder);
    return 0;
}

static void test_special_files_are_skipped(void **state)
{
    const char *names;
    accel_t *acc = NULL;
    (void)state;
    alarm(20); /* a blocked open() in the scan fails the test here */
    names = accel_supported_names();
    alarm(0);
    assert_non_null(strstr(names, "'cpu'"));
    assert_null(strstr(names, "'x'"));
    assert_int_equal(accel_open("cpu", &acc), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* The same FIFO named as a vendor runtime (ACCEL_<NAME>_LIBRARY): the probe
 * must refuse it and go on, not block in dlopen. */
static void test_fifo_as_vendor_library_is_refused(void **state)
{
    accel_candidate_t all[16];
    size_t count = 0;
    (void)state;
    for (size_t i = 0; i < 16; i++)
        all[i] = ACCEL_STRUCT_INIT(accel_candidate_t);
    setenv("ACCEL_CUDA_LIBRARY", fifo_path, 1);
    setenv("ACCEL_OPENCL_LIBRARY", fifo_path, 1);
    alarm(20);
    assert_int_equal(accel_detect(all, 16, &count), ACCEL_OK);
    alarm(0);
    unsetenv("ACCEL_CUDA_LIBRARY");
    unsetenv("ACCEL_OPENCL_LIBRARY");
    assert_true(count > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_special_files_are_skipped),
        cmocka_unit_test(test_fifo_as_vendor_library_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
