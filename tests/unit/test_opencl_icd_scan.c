/* test_opencl_icd_scan.c: the cheap "CPU-only OpenCL" decision
 * (src/backends/opencl/icd_scan.h) over fake vendor folders and fake PoCL
 * installs in a temporary folder: only "every ICD is a PoCL whose drivers
 * are all CPU drivers" may say yes; anything else leaves it to the runtime. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/opencl/icd_scan.h"

typedef struct scan_dirs {
    char root[64];
    char vendors[128];
    char lib[128];
    char pocl[160];
} scan_dirs_t;

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void remove_file(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(unlink(path), 0);
}

/* root/vendors (empty), root/lib/libpocl.so.2 and root/lib/pocl/ (empty). */
static int scan_setup(void **state)
{
    scan_dirs_t *d = calloc(1, sizeof *d);
    assert_non_null(d);
    snprintf(d->root, sizeof d->root, "/tmp/accel-icd-XXXXXX");
    assert_non_null(mkdtemp(d->root));
    snprintf(d->vendors, sizeof d->vendors, "%s/vendors", d->root);
    snprintf(d->lib, sizeof d->lib, "%s/lib", d->root);
    snprintf(d->pocl, sizeof d->pocl, "%s/pocl", d->lib);
    assert_int_equal(mkdir(d->vendors, 0700), 0);
    assert_int_equal(mkdir(d->lib, 0700), 0);
    assert_int_equal(mkdir(d->pocl, 0700), 0);
    write_file(d->lib, "libpocl.so.2", "");
    *state = d;
    return 0;
}

static int scan_teardown(void **state)
{
    scan_dirs_t *d = *state;
    char command[256];
    snprintf(command, sizeof command, "rm -rf '%s'", d->root);
    assert_int_equal(system(command), 0);
    free(d);
    return 0;
}

static bool scan(const scan_dirs_t *d, char *what, size_t cap)
{
    const char *lib_dirs[] = {"/nonexistent", d->lib, NULL};
    return accel_opencl_icds_cpu_only(d->vendors, lib_dirs, what, cap);
}

static void test_pocl_with_cpu_drivers_is_cpu_only(void **state)
{
    scan_dirs_t *d = *state;
    char what[256] = "", line[256];
    write_file(d->pocl, "libpocl-devices-pthread.so", "");
    write_file(d->pocl, "libpocl-devices-basic.so", "");
    write_file(d->vendors, "pocl.icd", "libpocl.so.2\n");
    assert_true(scan(d, what, sizeof what));
    assert_non_null(strstr(what, "pocl.icd"));
    assert_non_null(strstr(what, "pthread"));
    /* An absolute library path works the same. */
    snprintf(line, sizeof line, "%s/libpocl.so.2\n", d->lib);
    write_file(d->vendors, "pocl.icd", line);
    assert_true(scan(d, what, sizeof what));
}

static void test_a_gpu_driver_or_another_vendor_is_not(void **state)
{
    scan_dirs_t *d = *state;
    char what[256] = "";
    write_file(d->pocl, "libpocl-devices-pthread.so", "");
    write_file(d->vendors, "pocl.icd", "libpocl.so.2\n");
    write_file(d->pocl, "libpocl-devices-cuda.so", "");
    assert_false(scan(d, what, sizeof what)); /* PoCL built with its CUDA driver */
    remove_file(d->pocl, "libpocl-devices-cuda.so");
    assert_true(scan(d, what, sizeof what));
    write_file(d->vendors, "nvidia.icd", "libnvidia-opencl.so.1\n");
    assert_false(scan(d, what, sizeof what)); /* a second, unknown runtime */
}

static void test_unknowns_leave_it_to_the_runtime(void **state)
{
    scan_dirs_t *d = *state;
    char what[256] = "";
    assert_false(scan(d, what, sizeof what)); /* no vendor file at all */
    write_file(d->vendors, "pocl.icd", "libpocl.so.2\n");
    assert_false(scan(d, what, sizeof what)); /* pocl/ holds no driver (built in) */
    write_file(d->pocl, "libpocl-devices-pthread.so", "");
    write_file(d->vendors, "pocl.icd", "libpocl.so.7\n");
    assert_false(scan(d, what, sizeof what)); /* the named library is not there */
    write_file(d->vendors, "pocl.icd", "");
    assert_false(scan(d, what, sizeof what)); /* an empty vendor file */
    assert_false(accel_opencl_icds_cpu_only("/nonexistent/vendors", NULL, what, sizeof what));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pocl_with_cpu_drivers_is_cpu_only, scan_setup,
                                        scan_teardown),
        cmocka_unit_test_setup_teardown(test_a_gpu_driver_or_another_vendor_is_not, scan_setup,
                                        scan_teardown),
        cmocka_unit_test_setup_teardown(test_unknowns_leave_it_to_the_runtime, scan_setup,
                                        scan_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
