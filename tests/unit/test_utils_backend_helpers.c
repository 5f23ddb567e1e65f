/* test_utils_backend_helpers.c: the exported slot-body, detection and fork
 * helpers (accel_backend_utils.h) through the shared library: the dtype and
 * properties copy-outs, probe and create over a described runtime (each
 * refusal's sentence), the reason formatter, the library path and the fork
 * rule across fork(). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "accel/accel.h"
#include "accel/accel_backend_utils.h"

/* ---------------------------------------------------------------- copy-outs */

static void test_dtypes_copy_out(void **state)
{
    static const accel_dtype_t list[] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F16, ACCEL_DTYPE_BF16};
    accel_dtype_t out[4] = {ACCEL_DTYPE_U8, ACCEL_DTYPE_U8, ACCEL_DTYPE_U8, ACCEL_DTYPE_U8};
    size_t count = 0;
    (void)state;
    assert_int_equal(accel_dtypes_copy_out("mydev", list, 3, out, 4, &count), ACCEL_OK);
    assert_int_equal(count, 3);
    assert_int_equal(out[2], ACCEL_DTYPE_BF16);
    assert_int_equal(out[3], ACCEL_DTYPE_U8); /* past the list: untouched */
    /* Too small: as much as fits, the whole count. */
    out[1] = ACCEL_DTYPE_U8;
    assert_int_equal(accel_dtypes_copy_out("mydev", list, 3, out, 1, &count), ACCEL_OK);
    assert_int_equal(count, 3);
    assert_int_equal(out[0], ACCEL_DTYPE_F32);
    assert_int_equal(out[1], ACCEL_DTYPE_U8);
    /* Counting only. */
    count = 0;
    assert_int_equal(accel_dtypes_copy_out("mydev", list, 2, NULL, 0, &count), ACCEL_OK);
    assert_int_equal(count, 2);
    /* NULL with a capacity: the sentence, nothing written. */
    count = 7;
    assert_int_equal(accel_dtypes_copy_out("mydev", list, 3, NULL, 2, &count),
                     ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(count, 7);
    assert_string_equal(accel_last_error(), "mydev: dtype output array is NULL but capacity is 2");
}

static void test_properties_copy_out(void **state)
{
    accel_device_properties_t props = {.struct_size = sizeof props};
    accel_device_properties_t out;
    size_t prefix = offsetof(accel_device_properties_t, vendor);
    (void)state;
    snprintf(props.name, sizeof props.name, "Device A");
    snprintf(props.vendor, sizeof props.vendor, "Vendor B");
    props.total_memory = 1234;
    /* A caller with the whole struct gets every field. */
    memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    assert_int_equal(accel_device_properties_copy_out(&out, &props), ACCEL_OK);
    assert_int_equal(out.struct_size, sizeof out);
    assert_string_equal(out.vendor, "Vendor B");
    assert_int_equal(out.total_memory, 1234);
    /* An older, shorter struct: only its prefix is written, its size kept. */
    memset(&out, 0x5a, sizeof out);
    out.struct_size = prefix;
    assert_int_equal(accel_device_properties_copy_out(&out, &props), ACCEL_OK);
    assert_int_equal(out.struct_size, prefix);
    assert_string_equal(out.name, "Device A");
    assert_int_equal((unsigned char)out.vendor[0], 0x5a);
}

/* ---------------------------------------------------------------- detection */

/* A described runtime whose every step the test chooses. */
typedef struct fake_runtime_state {
    bool load_ok, forked, count_ok;
    int count;
    int fork_errors; /* fork_error calls */
} fake_state_t;
static fake_state_t fake;

static const int fake_runtime = 42;

static const void *fake_load(char *reason, size_t cap)
{
    if (fake.load_ok)
        return &fake_runtime;
    snprintf(reason, cap, "no fake runtime found (tried here)");
    return NULL;
}

static bool fake_forked(void)
{
    return fake.forked;
}

static accel_status_t fake_fork_error(void)
{
    fake.fork_errors++;
    return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR, "fake: cannot run in a forked child");
}

static bool fake_count(const void *runtime, int *count, char *how, size_t cap)
{
    assert_ptr_equal(runtime, &fake_runtime);
    if (!fake.count_ok) {
        snprintf(how, cap, "fakeGetCount failed with 7");
        return false;
    }
    *count = fake.count;
    snprintf(how, cap, "%d counted with fakeGetCount", fake.count);
    return true;
}

static const accel_backend_detect_t fake_detect = {
    .backend = "fake",
    .load = fake_load,
    .forked = fake_forked,
    .forked_reason = "fake ran before fork(); not in this child",
    .fork_error = fake_fork_error,
    .count = fake_count,
};

static void probe(accel_probe_result_t *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->available = true; /* the helper must clear it */
    out->device_count = -1;
    accel_backend_detect_probe(&fake_detect, out);
}

static void test_detect_probe(void **state)
{
    accel_probe_result_t out;
    (void)state;
    fake = (fake_state_t){.load_ok = false};
    probe(&out);
    assert_false(out.available);
    assert_string_equal(out.reason, "no fake runtime found (tried here)");

    fake = (fake_state_t){.load_ok = true, .forked = true};
    probe(&out);
    assert_false(out.available);
    assert_string_equal(out.reason, "fake ran before fork(); not in this child");
    assert_int_equal(fake.fork_errors, 0); /* probe sets no error */

    fake = (fake_state_t){.load_ok = true, .count_ok = false};
    probe(&out);
    assert_false(out.available);
    assert_int_equal(out.device_count, -1);
    assert_string_equal(out.reason, "fakeGetCount failed with 7");

    fake = (fake_state_t){.load_ok = true, .count_ok = true, .count = 0};
    probe(&out);
    assert_false(out.available);
    assert_int_equal(out.device_count, 0);
    assert_string_equal(out.reason, "0 counted with fakeGetCount");

    fake = (fake_state_t){.load_ok = true, .count_ok = true, .count = 3};
    probe(&out);
    assert_true(out.available);
    assert_int_equal(out.device_count, 3);
    assert_string_equal(out.reason, "3 counted with fakeGetCount");
}

static void test_detect_open(void **state)
{
    const void *runtime = NULL;
    int count = -5;
    accel_backend_detect_t no_fork_rule = fake_detect;
    (void)state;
    fake = (fake_state_t){.load_ok = false};
    assert_int_equal(accel_backend_detect_open(&fake_detect, &runtime, &count),
                     ACCEL_ERROR_UNAVAILABLE);
    assert_string_equal(accel_last_error(), "fake: no fake runtime found (tried here)");
    assert_int_equal(count, -5);

    fake = (fake_state_t){.load_ok = true, .forked = true};
    assert_int_equal(accel_backend_detect_open(&fake_detect, &runtime, &count),
                     ACCEL_ERROR_DEVICE_ERROR);
    assert_int_equal(fake.fork_errors, 1);
    assert_string_equal(accel_last_error(), "fake: cannot run in a forked child");

    fake = (fake_state_t){.load_ok = true, .count_ok = false};
    assert_int_equal(accel_backend_detect_open(&fake_detect, &runtime, &count),
                     ACCEL_ERROR_UNAVAILABLE);
    assert_string_equal(accel_last_error(), "fake: fakeGetCount failed with 7");
    assert_int_equal(count, -5);

    fake = (fake_state_t){.load_ok = true, .count_ok = true, .count = 2};
    assert_int_equal(accel_backend_detect_open(&fake_detect, &runtime, &count), ACCEL_OK);
    assert_ptr_equal(runtime, &fake_runtime);
    assert_int_equal(count, 2);

    /* count NULL: the backend counts itself (a failing count is not asked). */
    fake = (fake_state_t){.load_ok = true, .count_ok = false};
    runtime = NULL;
    assert_int_equal(accel_backend_detect_open(&fake_detect, &runtime, NULL), ACCEL_OK);
    assert_ptr_equal(runtime, &fake_runtime);

    /* forked NULL: a runtime that works after fork() is never refused. */
    no_fork_rule.forked = NULL;
    no_fork_rule.fork_error = NULL;
    fake = (fake_state_t){.load_ok = true, .forked = true, .count_ok = true, .count = 1};
    assert_int_equal(accel_backend_detect_open(&no_fork_rule, &runtime, &count), ACCEL_OK);
    assert_int_equal(count, 1);
}

/* ---------------------------------------------------------------- formatting, paths */

static void test_reason_format(void **state)
{
    char small[8];
    (void)state;
    accel_reason_format(small, sizeof small, "%s %d", "abcdef", 12345);
    assert_string_equal(small, "abcdef "); /* cut at the end, terminated */
    small[0] = 'x';
    accel_reason_format(small, 0, "%s", "nothing");
    assert_int_equal(small[0], 'x');
}

static void test_library_path(void **state)
{
    char path[256];
    int on_stack = 0;
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    void *address;
    (void)state;
    /* A function of the C library (its own, not a sanitizer's interceptor):
     * the file it was loaded from. */
    assert_non_null(libc);
    address = dlsym(libc, "qsort");
    assert_non_null(address);
    accel_library_path(address, "fallback.so", path, sizeof path);
    assert_non_null(strstr(path, "libc"));
    dlclose(libc);
    /* An address in no loaded file: the fallback. */
    accel_library_path(&on_stack, "fallback.so", path, sizeof path);
    assert_string_equal(path, "fallback.so");
}

/* ---------------------------------------------------------------- the thread's device */

static void test_thread_device(void **state)
{
    static _Thread_local accel_thread_device_t thread; /* zero: none yet */
    uint64_t first = accel_backend_instance_id(), second = accel_backend_instance_id();
    (void)state;
    assert_true(first != 0 && second != 0 && first != second);
    assert_false(accel_thread_device_is(&thread, first, 0));
    assert_int_equal(accel_thread_device_get(&thread, first), 0);
    accel_thread_device_set(&thread, first, 3);
    assert_true(accel_thread_device_is(&thread, first, 3));
    assert_false(accel_thread_device_is(&thread, first, 2));
    assert_int_equal(accel_thread_device_get(&thread, first), 3);
    /* Another instance never trusts the entry. */
    assert_false(accel_thread_device_is(&thread, second, 3));
    assert_int_equal(accel_thread_device_get(&thread, second), 0);
}

/* ---------------------------------------------------------------- the fork rule */

/* The child's answer to accel_fork_rule_forked(rule), as its exit status. */
static int forked_in_child(const accel_fork_rule_t *rule, accel_fork_rule_t *start_in_child)
{
    int status = 0;
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        if (start_in_child != NULL)
            accel_fork_rule_start(start_in_child);
        _exit(accel_fork_rule_forked(rule) ? 1 : 0);
    }
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void test_fork_rule(void **state)
{
    static accel_fork_rule_t started, never, later;
    (void)state;
    assert_false(accel_fork_rule_forked(&never));
    accel_fork_rule_start(&started);
    accel_fork_rule_start(&started); /* again: no change */
    assert_false(accel_fork_rule_forked(&started));
    /* Forked after the start: refused in the child, not in the parent. */
    assert_int_equal(forked_in_child(&started, NULL), 1);
    assert_false(accel_fork_rule_forked(&started));
    /* Never started: a child may use it. */
    assert_int_equal(forked_in_child(&never, NULL), 0);
    /* Started first in the child itself: the child's own. */
    assert_int_equal(forked_in_child(&later, &later), 0);
    /* Starting again in a child does not make the parent's rule its own. */
    assert_int_equal(forked_in_child(&started, &started), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtypes_copy_out), cmocka_unit_test(test_properties_copy_out),
        cmocka_unit_test(test_detect_probe),    cmocka_unit_test(test_detect_open),
        cmocka_unit_test(test_reason_format),   cmocka_unit_test(test_library_path),
        cmocka_unit_test(test_thread_device),   cmocka_unit_test(test_fork_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
