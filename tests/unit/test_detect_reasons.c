/* test_detect_reasons.c: every seed backend in accel_detect's list says a
 * true reason even when this library has no code for it: mps that it is
 * macOS only (off macOS), the xpu.external slot that no plugin fills it, a
 * known but unbuilt name that it is not built; and naming mps says so too.
 * An unusable xpu gives its own reason, not the CUDA rule's note. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel.h"

#define DETECT_MAX 32

static const accel_candidate_t *detect_find(const accel_candidate_t *all, size_t count,
                                            const char *name)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(all[i].name, name) == 0)
            return &all[i];
    }
    fail_msg("accel_detect does not list %s", name);
    return NULL;
}

static void test_every_seed_backend_listed(void **state)
{
    static const char *const seed[] = {"xpu.external", "xpu", "npu",  "sdaa", "mps",
                                       "hpu",          "mlu", "cuda", "cpu"};
    accel_candidate_t all[DETECT_MAX];
    size_t count = 0;
    (void)state;
    for (size_t i = 0; i < DETECT_MAX; i++)
        all[i].struct_size = sizeof all[i];
    assert_int_equal(accel_detect(all, DETECT_MAX, &count), ACCEL_OK);
    for (size_t i = 0; i < sizeof seed / sizeof seed[0]; i++) {
        const accel_candidate_t *c = detect_find(all, count, seed[i]);
        assert_true(c->reason[0] != '\0');
    }
}

static void test_plugin_slot_says_no_plugin(void **state)
{
    accel_candidate_t all[DETECT_MAX];
    size_t count = 0;
    (void)state;
    for (size_t i = 0; i < DETECT_MAX; i++)
        all[i].struct_size = sizeof all[i];
    assert_int_equal(accel_detect(all, DETECT_MAX, &count), ACCEL_OK);
    assert_non_null(strstr(detect_find(all, count, "xpu.external")->reason, "no plugin"));
}

static void test_mps_says_macos_only(void **state)
{
#if defined(__APPLE__)
    (void)state;
    skip(); /* on macOS mps is simply not built yet */
#else
    accel_candidate_t all[DETECT_MAX];
    size_t count = 0;
    accel_t *acc = NULL;
    (void)state;
    for (size_t i = 0; i < DETECT_MAX; i++)
        all[i].struct_size = sizeof all[i];
    assert_int_equal(accel_detect(all, DETECT_MAX, &count), ACCEL_OK);
    assert_non_null(strstr(detect_find(all, count, "mps")->reason, "macOS only"));
    assert_int_equal(accel_open("mps", &acc), ACCEL_ERROR_UNAVAILABLE);
    assert_non_null(strstr(accel_last_error(), "macOS only"));
#endif
}

/* The "xpu only when no CUDA device" note explains a skip or a win; after
 * xpu's own failure ("loader found, no driver/devices") it read as if CUDA
 * were xpu's problem. */
static void test_unusable_xpu_reason_is_its_own(void **state)
{
    accel_candidate_t all[DETECT_MAX];
    size_t count = 0;
    const accel_candidate_t *xpu;
    (void)state;
    for (size_t i = 0; i < DETECT_MAX; i++)
        all[i].struct_size = sizeof all[i];
    assert_int_equal(accel_detect(all, DETECT_MAX, &count), ACCEL_OK);
    xpu = detect_find(all, count, "xpu");
    if (xpu->available || strncmp(xpu->reason, "skipped:", 8) == 0)
        skip(); /* a usable or skipped xpu: its note is the explanation */
    assert_null(strstr(xpu->reason, "CUDA"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_seed_backend_listed),
        cmocka_unit_test(test_plugin_slot_says_no_plugin),
        cmocka_unit_test(test_mps_says_macos_only),
        cmocka_unit_test(test_unusable_xpu_reason_is_its_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
