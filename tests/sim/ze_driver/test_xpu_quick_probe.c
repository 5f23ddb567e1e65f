/* test_xpu_quick_probe.c: accel_get's auto-detect does not load the Level
 * Zero loader where no GPU device node exists (backends/xpu/backend.c,
 * xpu_surely_no_gpu), and accel_detect still asks the loader for the full
 * answer. Needs the real loader installed (libze1); skips (77) on a machine
 * with a render node or /dev/dxg, where the quick answer is not taken. */
#include <dirent.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <accel/accel.h>

static int loader_loaded_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    return info->dlpi_name != NULL && strstr(info->dlpi_name, "libze_loader.so") != NULL;
}

static bool loader_loaded(void)
{
    return dl_iterate_phdr(loader_loaded_one, NULL) != 0;
}

static bool gpu_node_here(void)
{
    bool found = access("/dev/dxg", F_OK) == 0;
    DIR *dri = opendir("/dev/dri");
    for (struct dirent *e; dri != NULL && !found && (e = readdir(dri)) != NULL;)
        found = strncmp(e->d_name, "renderD", 7) == 0;
    if (dri != NULL)
        closedir(dri);
    return found;
}

static void test_auto_detect_leaves_the_loader_unloaded(void **state)
{
    accel_t *acc = NULL;
    accel_candidate_t all[16];
    size_t count = 0;
    (void)state;
    assert_false(loader_loaded());
    assert_int_equal(accel_get(&acc), ACCEL_OK);
    assert_string_not_equal(accel_name(acc), "xpu");
    assert_false(loader_loaded());

    for (size_t i = 0; i < 16; i++)
        all[i] = ACCEL_STRUCT_INIT(accel_candidate_t);
    assert_int_equal(accel_detect(all, 16, &count), ACCEL_OK);
    for (size_t i = 0; i < count && i < 16; i++) {
        if (strcmp(all[i].name, "xpu") == 0) {
            assert_null(strstr(all[i].reason, "no GPU device node"));
            assert_false(all[i].available);
        }
    }
    assert_true(loader_loaded()); /* the full probe: so the check above could fail */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auto_detect_leaves_the_loader_unloaded),
    };
    if (gpu_node_here()) {
        printf("xpu quick probe: SKIPPED: this machine has a GPU device node\n");
        return 77;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
