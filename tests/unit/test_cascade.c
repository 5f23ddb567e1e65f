/* test_cascade.c: backend selection (override variables, the auto-detect
 * cascade, the cpu fallback, accel_detect) and registration refusals.
 * Fake backends are named "fake-*", which no real backend will ever take, and
 * the tests walk a cascade of their own (test_cascade_order) that puts them
 * where the real cascade has vendor slots. Only the rule "xpu only when no
 * CUDA device" is about real names: its fakes are "xpu" and "cuda", registered
 * only where those backends are not built, and its tests skip otherwise.
 * The test decides what each fake's probe reports. Registration lasts for the
 * process, so the fakes are registered once, in the group setup, and each
 * test sets the probe results it needs. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core.h"
#include "error.h"
#include "registry.h"
#include "selection.h"

/* ------------------------------------------------------------ fake backends */

enum { FAKE_XPU, FAKE_A, FAKE_B, FAKE_C, FAKE_D, FAKE_CUDA, FAKE_E, FAKE_COUNT };

static const char *const fake_names[FAKE_COUNT] = {"xpu",    "fake-a", "fake-b", "fake-c",
                                                   "fake-d", "cuda",   "fake-e"};

/* The cascade the tests walk: the real one's shape (registry.h) with fakes
 * in the vendor slots. "fake-unbuilt" has no backend at all, so it stays
 * "not built"; xpu.external, xpu, cuda and cpu are the real slots, cuda last
 * before cpu so that a real one with a device comes after every fake. */
static const char *const test_cascade_order[] = {
    "xpu.external", "xpu",    "fake-a", "fake-unbuilt", "fake-b", "fake-c",
    "fake-d",       "fake-e", "cuda",   "cpu",          NULL,
};
#define TEST_CASCADE_COUNT 10

typedef struct fake_backend {
    bool available;
    int device_count;
    const char *reason;
    bool explicit_only;
    int probes;                /* calls of its probe since fake_set */
    bool saw_auto_detect_only; /* what the last probe was asked */
} fake_backend_t;

/* Names whose real backend is built into this library keep it; their fakes
 * are not registered and the tests that need them leave them out. */
static bool fake_is_real[FAKE_COUNT];

static fake_backend_t fakes[FAKE_COUNT + 1]; /* the last one backs "testonly" */
static accel_backend_ops_t fake_ops[FAKE_COUNT];
static accel_backend_ops_t fake_extra_ops; /* a non-cascade name, "testonly" */

static const char *const fake_compile_backends[] = {"inductor"};
static const char *const fake_visible_envs[] = {"FAKE_VISIBLE_DEVICES"};

static const accel_backend_info_t fake_info = {
    .struct_size = sizeof(accel_backend_info_t),
    .communication_backend = "gloo",
    .default_compile_backend = "inductor",
    .compile_backends = fake_compile_backends,
    .compile_backend_count = 1,
    .visible_devices_envs = fake_visible_envs,
    .visible_devices_env_count = 1,
    .dlpack_device_type = kDLCPU,
    .synchronized_device = true,
    .runtime_library = "libfake-runtime.so.1",
    .vendor_stack = "Fake Vendor Stack",
};

static void fake_probe_into(int index, accel_probe_result_t *out)
{
    out->available = fakes[index].available;
    out->device_count = fakes[index].device_count;
    out->explicit_only = fakes[index].explicit_only;
    fakes[index].probes++;
    fakes[index].saw_auto_detect_only = out->auto_detect_only;
    snprintf(out->reason, sizeof out->reason, "%s", fakes[index].reason);
}

static accel_status_t fake_create_for(int index, void **out_self)
{
    *out_self = &fakes[index];
    return ACCEL_OK;
}

/* probe and create take no `self`, so each fake gets its own pair. */
#define FAKE_DEFINE_ENTRY(index)                                                                   \
    static void fake_probe_##index(accel_probe_result_t *out)                                      \
    {                                                                                              \
        fake_probe_into(index, out);                                                               \
    }                                                                                              \
    static accel_status_t fake_create_##index(void **out_self)                                     \
    {                                                                                              \
        return fake_create_for(index, out_self);                                                   \
    }
FAKE_DEFINE_ENTRY(0)
FAKE_DEFINE_ENTRY(1)
FAKE_DEFINE_ENTRY(2)
FAKE_DEFINE_ENTRY(3)
FAKE_DEFINE_ENTRY(4)
FAKE_DEFINE_ENTRY(5)
FAKE_DEFINE_ENTRY(6)
FAKE_DEFINE_ENTRY(7)

static void (*const fake_probes[])(accel_probe_result_t *) = {
    fake_probe_0, fake_probe_1, fake_probe_2, fake_probe_3,
    fake_probe_4, fake_probe_5, fake_probe_6, fake_probe_7,
};
static accel_status_t (*const fake_creates[])(void **) = {
    fake_create_0, fake_create_1, fake_create_2, fake_create_3,
    fake_create_4, fake_create_5, fake_create_6, fake_create_7,
};

/* The fakes' state is static (in `fakes`), so destroy has nothing to free. */
static void fake_destroy(void *self)
{
    (void)self;
}

static accel_status_t fake_init(void *self)
{
    (void)self;
    return ACCEL_OK;
}

static accel_status_t fake_device_count(void *self, int *out)
{
    *out = ((const fake_backend_t *)self)->device_count;
    return ACCEL_OK;
}

static accel_status_t fake_synchronize(void *self, int device)
{
    (void)self;
    (void)device;
    return ACCEL_OK;
}

static accel_status_t fake_supported_dtypes(void *self, int device, accel_dtype_t *out, size_t cap,
                                            size_t *out_count)
{
    (void)self;
    (void)device;
    if (cap > 0)
        out[0] = ACCEL_DTYPE_F32;
    *out_count = 1;
    return ACCEL_OK;
}

static accel_status_t fake_mem_alloc(void *self, int device, size_t size, void **out)
{
    (void)self;
    (void)device;
    *out = malloc(size);
    return *out != NULL ? ACCEL_OK : accel_backend_error(ACCEL_ERROR_OUT_OF_MEMORY, "fake: OOM");
}

static void fake_mem_free(void *self, int device, void *ptr)
{
    (void)self;
    (void)device;
    free(ptr);
}

static accel_status_t fake_memcpy_async(void *self, int device, void *dst, const void *src,
                                        size_t size, accel_copy_kind_t kind, void *stream)
{
    (void)self;
    (void)device;
    (void)kind;
    (void)stream;
    memcpy(dst, src, size);
    return ACCEL_OK;
}

static accel_status_t fake_memset_async(void *self, int device, void *dst, int value, size_t size,
                                        void *stream)
{
    (void)self;
    (void)device;
    (void)stream;
    memset(dst, value, size);
    return ACCEL_OK;
}

static accel_status_t fake_rng_fill(void *self, int device, void *stream, accel_rng_kind_t kind,
                                    void *ptr, size_t count, uint64_t seed, uint64_t offset)
{
    (void)self;
    (void)device;
    (void)stream;
    (void)kind;
    (void)ptr;
    (void)count;
    (void)seed;
    (void)offset;
    return accel_backend_error(ACCEL_ERROR_UNSUPPORTED, "fake backends generate no numbers");
}

static accel_backend_ops_t fake_template(const char *name, int index)
{
    return (accel_backend_ops_t){
        .abi_version = ACCEL_BACKEND_ABI_VERSION,
        .struct_size = sizeof(accel_backend_ops_t),
        .name = name,
        .info = &fake_info,
        .probe = fake_probes[index],
        .create = fake_creates[index],
        .destroy = fake_destroy,
        .init = fake_init,
        .device_count = fake_device_count,
        .synchronize = fake_synchronize,
        .supported_dtypes = fake_supported_dtypes,
        .mem_alloc = fake_mem_alloc,
        .mem_free = fake_mem_free,
        .memcpy_async = fake_memcpy_async,
        .memset_async = fake_memset_async,
        .rng_fill = fake_rng_fill,
    };
}

static void fake_set(int index, bool available, int device_count, const char *reason)
{
    fakes[index] = (fake_backend_t){available, device_count, reason, false, 0, false};
}

static int group_setup(void **state)
{
    (void)state;
    unsetenv("ACCEL_ACCELERATOR");
    unsetenv("DS_ACCELERATOR");
    for (int i = 0; i < FAKE_COUNT; i++) {
        fake_ops[i] = fake_template(fake_names[i], i);
        fake_is_real[i] = accel_registry_find(fake_names[i]) != NULL;
        if (fake_is_real[i])
            continue;
        if (accel_register_backend(&fake_ops[i]) != ACCEL_OK) {
            fprintf(stderr, "cannot register fake %s (is a real one built?): %s\n", fake_names[i],
                    accel_last_error());
            return -1;
        }
    }
    fake_extra_ops = fake_template("testonly", FAKE_COUNT);
    if (accel_register_backend(&fake_extra_ops) != ACCEL_OK)
        return -1;
    accel_selection_set_cascade_order(test_cascade_order);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    accel_selection_set_cascade_order(NULL);
    return 0;
}

/* Every test starts with every fake unavailable and no override. */
static int test_setup(void **state)
{
    (void)state;
    unsetenv("ACCEL_ACCELERATOR");
    unsetenv("DS_ACCELERATOR");
    for (int i = 0; i <= FAKE_COUNT; i++)
        fake_set(i, false, 0, "libfake-runtime.so.1: cannot open shared object file");
    return 0;
}

static const char *choose_name(accel_status_t *out_status, const char **out_method)
{
    const accel_backend_ops_t *ops = NULL;
    const char *method = NULL;
    *out_status = accel_selection_choose(&ops, &method);
    if (out_method != NULL)
        *out_method = method;
    return ops != NULL ? ops->name : NULL;
}

/* DeepSpeed's names and accel's own, in their order, then backends built
 * here that have no known name (the skeleton in test builds): what every
 * supported-names list starts with. "[" and the names, no closing "]". */
static const char *builtin_list(void)
{
    static char text[512];
    size_t pos = (size_t)snprintf(text, sizeof text, "[");
    for (size_t i = 0; i < accel_known_backend_count; i++)
        pos += (size_t)snprintf(text + pos, sizeof text - pos, "%s'%s'", i > 0 ? ", " : "",
                                accel_known_backends[i].name);
    for (size_t i = 0; i < accel_builtin_backend_count; i++) {
        if (accel_registry_known(accel_builtin_backends[i].name) == NULL)
            pos += (size_t)snprintf(text + pos, sizeof text - pos, ", '%s'",
                                    accel_builtin_backends[i].name);
    }
    return text;
}

/* The registered names that follow, in registration order (fakes under a
 * builtin name are listed once, with the builtins). */
#define REGISTERED_LIST ", 'fake-a', 'fake-b', 'fake-c', 'fake-d', 'fake-e', 'testonly']"

/* The override error for `variable` naming "bogus", with the fakes registered. */
static const char *bogus_message(const char *variable)
{
    static char text[640];
    snprintf(text, sizeof text,
             "%s must be one of %s" REGISTERED_LIST ". Value \"bogus\" is not supported", variable,
             builtin_list());
    return text;
}

/* ------------------------------------------------------------ overrides */

static void test_override_accel_accelerator(void **state)
{
    accel_status_t status;
    const char *method = NULL;
    (void)state;
    fake_set(FAKE_D, true, 2, "2 devices");
    setenv("ACCEL_ACCELERATOR", "fake-d", 1);
    assert_string_equal(choose_name(&status, &method), "fake-d");
    assert_int_equal(status, ACCEL_OK);
    assert_string_equal(method, "override");
}

static void test_override_ds_accelerator(void **state)
{
    accel_status_t status;
    const char *method = NULL;
    (void)state;
    fake_set(FAKE_C, true, 1, "");
    setenv("DS_ACCELERATOR", "fake-c", 1);
    assert_string_equal(choose_name(&status, &method), "fake-c");
    assert_string_equal(method, "override");
}

static void test_override_accel_wins_over_ds(void **state)
{
    accel_status_t status;
    (void)state;
    fake_set(FAKE_C, true, 1, "");
    fake_set(FAKE_D, true, 1, "");
    setenv("ACCEL_ACCELERATOR", "fake-d", 1);
    setenv("DS_ACCELERATOR", "fake-c", 1);
    assert_string_equal(choose_name(&status, NULL), "fake-d");
    /* and a bad ACCEL_ value is not rescued by a good DS_ one */
    setenv("ACCEL_ACCELERATOR", "bogus", 1);
    assert_null(choose_name(&status, NULL));
    assert_int_equal(status, ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "ACCEL_ACCELERATOR must be one of"));
}

static void test_override_bogus_names_variable_and_list(void **state)
{
    accel_status_t status;
    (void)state;
    setenv("DS_ACCELERATOR", "bogus", 1);
    assert_null(choose_name(&status, NULL));
    assert_int_equal(status, ACCEL_ERROR_INVALID_ARGUMENT);
    assert_string_equal(accel_last_error(), bogus_message("DS_ACCELERATOR"));
    unsetenv("DS_ACCELERATOR");
    setenv("ACCEL_ACCELERATOR", "bogus", 1);
    assert_null(choose_name(&status, NULL));
    assert_string_equal(accel_last_error(), bogus_message("ACCEL_ACCELERATOR"));
}

static void test_override_is_case_sensitive_and_exact(void **state)
{
    static const char *const bad[] = {"FAKE-A", "Fake-a", " fake-a", "fake-a ", "fake-a.external"};
    accel_status_t status;
    (void)state;
    fake_set(FAKE_A, true, 1, "");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char expected[64];
        setenv("ACCEL_ACCELERATOR", bad[i], 1);
        assert_null(choose_name(&status, NULL));
        assert_int_equal(status, ACCEL_ERROR_INVALID_ARGUMENT);
        snprintf(expected, sizeof expected, "Value \"%s\" is not supported", bad[i]);
        assert_non_null(strstr(accel_last_error(), expected));
    }
    setenv("ACCEL_ACCELERATOR", "fake-a", 1);
    assert_string_equal(choose_name(&status, NULL), "fake-a");
}

/* ACCEL_ACCELERATOR="" counts as unset (accel's rule for its variables);
 * DS_ACCELERATOR="" is a value, refused as DeepSpeed refuses it. */
static void test_override_empty_accel_unset_ds_refused(void **state)
{
    accel_status_t status;
    const char *method = NULL;
    char expected[640];
    (void)state;
    fake_set(FAKE_C, true, 1, "");
    fake_set(FAKE_A, true, 1, "");
    setenv("ACCEL_ACCELERATOR", "", 1);
    setenv("DS_ACCELERATOR", "fake-c", 1);
    assert_string_equal(choose_name(&status, &method), "fake-c");
    assert_string_equal(method, "override");
    unsetenv("DS_ACCELERATOR");
    assert_string_equal(choose_name(&status, &method), "fake-a");
    assert_string_equal(method, "auto detect");
    setenv("DS_ACCELERATOR", "", 1);
    assert_null(choose_name(&status, &method));
    assert_int_equal(status, ACCEL_ERROR_INVALID_ARGUMENT);
    snprintf(expected, sizeof expected,
             "DS_ACCELERATOR must be one of %s" REGISTERED_LIST ". Value \"\" is not supported",
             builtin_list());
    assert_string_equal(accel_last_error(), expected);
    unsetenv("DS_ACCELERATOR");
}

static void test_override_unavailable_names_library_and_stack(void **state)
{
    accel_status_t status;
    (void)state;
    fake_set(FAKE_C, false, 0, "libfake-runtime.so.1: cannot open shared object file");
    setenv("ACCEL_ACCELERATOR", "fake-c", 1);
    assert_null(choose_name(&status, NULL));
    assert_int_equal(status, ACCEL_ERROR_UNAVAILABLE);
    assert_string_equal(accel_last_error(),
                        "FAKE-C backend requires libfake-runtime.so.1 (Fake Vendor Stack), which "
                        "is not installed on this system: libfake-runtime.so.1: cannot open "
                        "shared object file; set ACCEL_FAKE_C_LIBRARY to point at it");
}

/* DeepSpeed accepts a named backend whose runtime is present without a
 * device (DS_ACCELERATOR=cuda in a build container); so does accel
 * (test_zero_devices.c checks what such an accelerator does). */
static void test_override_without_devices_is_chosen(void **state)
{
    accel_status_t status;
    (void)state;
    fake_set(FAKE_A, true, 0, "runtime loaded, 0 devices");
    setenv("ACCEL_ACCELERATOR", "fake-a", 1);
    assert_string_equal(choose_name(&status, NULL), "fake-a");
    assert_int_equal(status, ACCEL_OK);
}

/* A known name whose backend this library lacks and no fake stands in for
 * (any of them: which ones are built changes as backends arrive). */
static void test_override_not_built(void **state)
{
    const accel_known_backend_t *missing = NULL;
    char expected[64];
    accel_status_t status;
    (void)state;
    for (size_t i = 0; i < accel_known_backend_count && missing == NULL; i++)
        if (accel_registry_find(accel_known_backends[i].name) == NULL &&
            accel_known_backends[i].unavailable_here == NULL)
            missing = &accel_known_backends[i];
    if (missing == NULL)
        skip(); /* every builtin backend is built or faked */
    setenv("DS_ACCELERATOR", missing->name, 1);
    assert_null(choose_name(&status, NULL));
    assert_int_equal(status, ACCEL_ERROR_UNAVAILABLE);
    snprintf(expected, sizeof expected, "%s backend", missing->name);
    assert_non_null(strstr(accel_last_error(), expected));
    assert_non_null(strstr(accel_last_error(), "is not built into this accel"));
    assert_non_null(strstr(accel_last_error(), missing->runtime_library));
    assert_non_null(strstr(accel_last_error(), "-DACCEL_BACKEND_"));
}

/* ------------------------------------------------------------ the cascade */

static void test_cascade_earlier_slot_wins(void **state)
{
    accel_status_t status;
    const char *method = NULL;
    (void)state;
    fake_set(FAKE_D, true, 4, "");
    fake_set(FAKE_A, true, 1, "");
    assert_string_equal(choose_name(&status, &method), "fake-a");
    assert_string_equal(method, "auto detect");
    fake_set(FAKE_A, false, 0, "no fake-a");
    assert_string_equal(choose_name(&status, NULL), "fake-d");
}

/* Make every fake available, then take them away front to back. The xpu
 * and cuda fakes exist only where those backends are not built; a real cuda
 * (walked after every other fake) may have a device and then blocks xpu, so
 * xpu takes part only when cuda is a fake too. */
static void test_cascade_order_is_followed(void **state)
{
    static const int order[] = {FAKE_XPU, FAKE_A, FAKE_B, FAKE_C, FAKE_D, FAKE_E, FAKE_CUDA};
    bool with_xpu = !fake_is_real[FAKE_XPU] && !fake_is_real[FAKE_CUDA];
    accel_status_t status;
    (void)state;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        fake_set(order[i], true, 1, "");
    if (!with_xpu)
        fake_set(FAKE_XPU, false, 0, "left out");
    fake_set(FAKE_CUDA, false, 0, "no cuda"); /* else xpu is skipped */
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (fake_is_real[order[i]] || (order[i] == FAKE_XPU && !with_xpu))
            continue;
        if (order[i] == FAKE_CUDA) {
            fake_set(FAKE_CUDA, true, 1, "");
            assert_string_equal(choose_name(&status, NULL), "cuda");
            fake_set(FAKE_CUDA, false, 0, "no cuda");
            continue;
        }
        assert_string_equal(choose_name(&status, NULL), fake_names[order[i]]);
        fake_set(order[i], false, 0, "gone");
    }
}

static void test_cascade_skips_xpu_when_cuda_has_a_device(void **state)
{
    if (fake_is_real[FAKE_CUDA] || fake_is_real[FAKE_XPU])
        skip(); /* needs fake cuda/xpu it can switch on and off */
    accel_status_t status;
    (void)state;
    fake_set(FAKE_XPU, true, 1, "");
    fake_set(FAKE_CUDA, true, 2, "");
    assert_string_equal(choose_name(&status, NULL), "cuda");
    fake_set(FAKE_CUDA, false, 0, "NVML found no GPU");
    assert_string_equal(choose_name(&status, NULL), "xpu");
    fake_set(FAKE_CUDA, true, 0, "driver loaded, no GPU");
    assert_string_equal(choose_name(&status, NULL), "xpu");
}

static void test_cascade_device_count_zero_does_not_win(void **state)
{
    accel_status_t status;
    (void)state;
    fake_set(FAKE_A, true, 0, "");
    fake_set(FAKE_D, true, 1, "");
    assert_string_equal(choose_name(&status, NULL), "fake-d");
}

static void test_cascade_falls_back_to_cpu(void **state)
{
    accel_status_t status;
    const char *method = NULL;
    const char *name;
    (void)state;
    name = choose_name(&status, &method);
    if (accel_registry_find("cpu") == NULL) {
        /* cpu configured off: nothing is left, and the error lists every slot */
        assert_null(name);
        assert_int_equal(status, ACCEL_ERROR_UNAVAILABLE);
        assert_non_null(strstr(accel_last_error(), "fake-unbuilt: not built into this library"));
        return;
    }
    assert_int_equal(status, ACCEL_OK);
    assert_string_equal(name, "cpu");
    assert_string_equal(method, "auto detect");
}

/* ------------------------------------------------------------ accel_detect */

static accel_candidate_t *detect_find(accel_candidate_t *all, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(all[i].name, name) == 0)
            return &all[i];
    }
    fail_msg("candidate %s missing", name);
    return NULL;
}

static void test_detect_describes_every_slot(void **state)
{
    accel_candidate_t all[16];
    size_t count = 0;
    (void)state;
    for (size_t i = 0; i < 16; i++)
        all[i] = ACCEL_STRUCT_INIT(accel_candidate_t);
    fake_set(FAKE_A, true, 3, "3 devices via fakeGetDeviceCount");
    fake_set(FAKE_D, true, 1, "");
    fake_set(FAKE_C, false, 0, "libfake-c.so not found");
    assert_int_equal(accel_detect(all, 16, &count), ACCEL_OK);
    assert_int_equal(count, TEST_CASCADE_COUNT);
    for (size_t i = 0; i < count; i++)
        assert_string_equal(all[i].name, test_cascade_order[i]);

    accel_candidate_t *a = detect_find(all, count, "fake-a");
    assert_true(a->built && a->available && a->chosen);
    assert_int_equal(a->device_count, 3);
    assert_non_null(strstr(a->reason, "fakeGetDeviceCount"));

    accel_candidate_t *d = detect_find(all, count, "fake-d");
    assert_true(d->available);
    assert_false(d->chosen);
    assert_non_null(strstr(d->reason, "fake-a comes first"));

    accel_candidate_t *c = detect_find(all, count, "fake-c");
    assert_true(c->built);
    assert_false(c->available);
    assert_string_equal(c->reason, "libfake-c.so not found");

    accel_candidate_t *unbuilt = detect_find(all, count, "fake-unbuilt");
    assert_false(unbuilt->built);
    assert_int_equal(unbuilt->device_count, -1);
    /* not a name accel knows: only a plugin or a registration could fill it */
    assert_string_equal(
        unbuilt->reason,
        "no plugin (ACCEL_PLUGIN_PATH) or registered backend is named fake-unbuilt");
    assert_false(detect_find(all, count, "xpu.external")->built);
    assert_false(detect_find(all, count, "cpu")->chosen);
}

static void test_detect_notes_cuda_for_xpu(void **state)
{
    if (fake_is_real[FAKE_CUDA] || fake_is_real[FAKE_XPU])
        skip(); /* needs fake cuda/xpu it can switch on and off */
    accel_candidate_t all[10];
    size_t count = 0;
    (void)state;
    for (size_t i = 0; i < 10; i++)
        all[i] = ACCEL_STRUCT_INIT(accel_candidate_t);
    fake_set(FAKE_XPU, true, 1, "");
    fake_set(FAKE_CUDA, true, 1, "");
    assert_int_equal(accel_detect(all, 10, &count), ACCEL_OK);
    assert_false(all[1].chosen);
    assert_non_null(strstr(all[1].reason, "CUDA device"));
    assert_true(detect_find(all, count, "cuda")->chosen);
}

static void test_detect_cpu_chosen_when_nothing_else(void **state)
{
    accel_candidate_t all[10];
    size_t count = 0;
    size_t chosen = 0;
    (void)state;
    for (size_t i = 0; i < 10; i++)
        all[i] = ACCEL_STRUCT_INIT(accel_candidate_t);
    assert_int_equal(accel_detect(all, 10, &count), ACCEL_OK);
    for (size_t i = 0; i < count; i++)
        chosen += all[i].chosen;
    if (accel_registry_find("cpu") == NULL) {
        assert_int_equal(chosen, 0);
        return;
    }
    assert_int_equal(chosen, 1);
    assert_true(all[count - 1].chosen);
    assert_true(all[count - 1].built && all[count - 1].available);
}

static void test_detect_arguments(void **state)
{
    accel_candidate_t few[3];
    size_t count = 0;
    (void)state;
    for (size_t i = 0; i < 3; i++)
        few[i] = ACCEL_STRUCT_INIT(accel_candidate_t);
    assert_int_equal(accel_detect(few, 3, &count), ACCEL_OK);
    assert_int_equal(count, TEST_CASCADE_COUNT);
    assert_string_equal(few[2].name, "fake-a");

    count = 0;
    assert_int_equal(accel_detect(NULL, 0, &count), ACCEL_OK);
    assert_int_equal(count, TEST_CASCADE_COUNT);

    assert_int_equal(accel_detect(few, 3, NULL), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_detect(NULL, 3, &count), ACCEL_ERROR_INVALID_ARGUMENT);

    memset(few, 0x5a, sizeof few);
    few[0].struct_size = sizeof few[0];
    few[1].struct_size = sizeof few[1];
    few[2].struct_size = 8; /* a caller that forgot ACCEL_STRUCT_INIT */
    count = 77;
    assert_int_equal(accel_detect(few, 3, &count), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(count, 77);
    assert_int_equal((unsigned char)few[0].name[0], 0x5a); /* nothing written */
    assert_non_null(strstr(accel_last_error(), "candidates[2].struct_size"));
}

/* ------------------------------------------------------------ registration refusals */

static void test_register_refuses_null(void **state)
{
    (void)state;
    assert_int_equal(accel_register_backend(NULL), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_registry_validate(NULL), ACCEL_ERROR_INVALID_ARGUMENT);
}

static void test_register_refuses_other_abi(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = fake_template("refused-abi", 0);
    ops.abi_version = 999;
    assert_int_equal(accel_register_backend(&ops), ACCEL_ERROR_UNSUPPORTED);
    assert_non_null(strstr(accel_last_error(), "backend ABI version 999, this library speaks 2"));
    assert_null(accel_registry_find("refused-abi"));
}

static void test_register_refuses_short_table(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = fake_template("refused-short", 0);
    ops.struct_size = offsetof(accel_backend_ops_t, rng_fill); /* stops before rng_fill */
    assert_int_equal(accel_register_backend(&ops), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "bytes"));
    assert_null(accel_registry_find("refused-short"));
    /* the required part is enough, optional slots may be missing */
    ops = fake_template("short-but-enough", 0);
    ops.struct_size = offsetof(accel_backend_ops_t, rng_fill) + sizeof(void (*)(void));
    assert_int_equal(accel_registry_validate(&ops), ACCEL_OK);
}

static void test_register_refuses_missing_required_slot(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = fake_template("refused-slot", 0);
    ops.memset_async = NULL;
    assert_int_equal(accel_register_backend(&ops), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "memset_async"));
    ops = fake_template("refused-slot", 0);
    ops.probe = NULL;
    assert_int_equal(accel_register_backend(&ops), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "probe"));
    ops = fake_template("refused-slot", 0);
    ops.info = NULL;
    assert_int_equal(accel_register_backend(&ops), ACCEL_ERROR_INVALID_ARGUMENT);
    ops = fake_template(NULL, 0);
    assert_int_equal(accel_register_backend(&ops), ACCEL_ERROR_INVALID_ARGUMENT);
    ops = fake_template("has space", 0);
    assert_int_equal(accel_register_backend(&ops), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_null(accel_registry_find("refused-slot"));
}

static void test_register_refuses_duplicate_name(void **state)
{
    static accel_backend_ops_t ops;
    (void)state;
    ops = fake_template("fake-a", 0);
    assert_int_equal(accel_register_backend(&ops), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "already registered"));
    assert_ptr_equal(accel_registry_find("fake-a"), &fake_ops[FAKE_A]);
    if (accel_registry_find("cpu") != NULL) {
        ops = fake_template("cpu", 0);
        assert_int_equal(accel_register_backend(&ops), ACCEL_ERROR_INVALID_ARGUMENT);
        assert_non_null(strstr(accel_last_error(), "built into this library"));
    }
}

static void test_supported_names_lists_builtins_then_registered(void **state)
{
    (void)state;
    char expected[600];
    snprintf(expected, sizeof expected, "%s" REGISTERED_LIST, builtin_list());
    assert_string_equal(accel_supported_names(), expected);
}

/* ------------------------------------------------------------ vendor library loading */

static void test_load_library_tries_candidates_in_order(void **state)
{
    static const char *const missing[] = {"libaccel-missing-one.so", "libaccel-missing-two.so",
                                          NULL};
    static const char *const some[] = {"libaccel-missing-one.so", "libm.so.6", NULL};
    char tried[512];
    void *handle;
    (void)state;
    unsetenv("ACCEL_XPU_EXTERNAL_LIBRARY");
    handle = accel_backend_load_library("xpu.external", missing, tried, sizeof tried);
    assert_null(handle);
    assert_non_null(strstr(tried, "libaccel-missing-one.so: "));
    assert_non_null(strstr(tried, "; libaccel-missing-two.so: "));
    handle = accel_backend_load_library("xpu.external", some, tried, sizeof tried);
    assert_non_null(handle);
    dlclose(handle);
    /* a tiny buffer is filled, never overrun */
    memset(tried, 'x', sizeof tried);
    assert_null(accel_backend_load_library("fake-a", missing, tried, 8));
    assert_int_equal(strlen(tried), 7);
    assert_int_equal(tried[8], 'x');
}

static void test_load_library_variable_comes_first(void **state)
{
    static const char *const missing[] = {"libaccel-missing-one.so", NULL};
    char tried[512];
    void *handle;
    (void)state;
    setenv("ACCEL_XPU_EXTERNAL_LIBRARY", "libm.so.6", 1);
    handle = accel_backend_load_library("xpu.external", missing, tried, sizeof tried);
    assert_non_null(handle);
    assert_string_equal(tried, "");
    dlclose(handle);
    setenv("ACCEL_XPU_EXTERNAL_LIBRARY", "/nonexistent/libvendor.so", 1);
    assert_null(accel_backend_load_library("xpu.external", missing, tried, sizeof tried));
    assert_non_null(strstr(tried, "ACCEL_XPU_EXTERNAL_LIBRARY: /nonexistent/libvendor.so"));
    assert_non_null(strstr(tried, "libaccel-missing-one.so"));
    assert_true(strstr(tried, "ACCEL_XPU") < strstr(tried, "libaccel-missing-one"));
    unsetenv("ACCEL_XPU_EXTERNAL_LIBRARY");
}

/* ------------------------------------------------------------ public selection API */

static void test_open_by_name(void **state)
{
    accel_t *acc = NULL;
    (void)state;
    fake_set(FAKE_D, true, 2, "");
    assert_int_equal(accel_open("fake-d", &acc), ACCEL_OK);
    assert_string_equal(accel_selection_method(acc), "explicit");
    assert_int_equal(accel_close(acc), ACCEL_OK);

    assert_int_equal(accel_open("nope", &acc), ACCEL_ERROR_NOT_FOUND);
    assert_non_null(strstr(accel_last_error(), builtin_list()));
    assert_int_equal(accel_open("fake-c", &acc), ACCEL_ERROR_UNAVAILABLE);
    assert_non_null(strstr(accel_last_error(), "ACCEL_FAKE_C_LIBRARY"));
    assert_int_equal(accel_open(NULL, &acc), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_open("fake-d", NULL), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_null(accel_selection_method(NULL));
}

static void test_explicit_only_is_skipped_by_auto_detect(void **state)
{
    accel_status_t status;
    accel_t *acc = NULL;
    (void)state;
    fake_set(FAKE_D, true, 1, "only a host-side device");
    fakes[FAKE_D].explicit_only = true;
    assert_string_equal(choose_name(&status, NULL), "cpu");
    setenv("ACCEL_ACCELERATOR", "fake-d", 1);
    assert_string_equal(choose_name(&status, NULL), "fake-d");
    unsetenv("ACCEL_ACCELERATOR");
    assert_int_equal(accel_open("fake-d", &acc), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* Only the walk that picks a backend asks probes for the quick answer
 * (auto_detect_only: "usable or not" from cheap evidence); accel_detect and
 * a named backend get the full answer. */
static void test_only_auto_detect_asks_for_the_quick_answer(void **state)
{
    accel_candidate_t all[16];
    size_t count = 0;
    accel_status_t status;
    accel_t *acc = NULL;
    (void)state;
    for (size_t i = 0; i < 16; i++)
        all[i] = ACCEL_STRUCT_INIT(accel_candidate_t);
    fake_set(FAKE_A, true, 1, "1 device");
    assert_string_equal(choose_name(&status, NULL), "fake-a");
    assert_int_equal(fakes[FAKE_A].probes, 1);
    assert_true(fakes[FAKE_A].saw_auto_detect_only);

    assert_int_equal(accel_detect(all, 16, &count), ACCEL_OK);
    assert_int_equal(fakes[FAKE_A].probes, 2);
    assert_false(fakes[FAKE_A].saw_auto_detect_only);

    fakes[FAKE_A].saw_auto_detect_only = true;
    setenv("ACCEL_ACCELERATOR", "fake-a", 1);
    assert_string_equal(choose_name(&status, NULL), "fake-a");
    unsetenv("ACCEL_ACCELERATOR");
    assert_false(fakes[FAKE_A].saw_auto_detect_only);

    fakes[FAKE_A].saw_auto_detect_only = true;
    assert_int_equal(accel_open("fake-a", &acc), ACCEL_OK);
    assert_false(fakes[FAKE_A].saw_auto_detect_only);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* accel_get caches, so all of its behaviour is checked in this one test. */
static void test_get_caches_success_not_failure(void **state)
{
    accel_t *acc = NULL, *again = NULL, *mine = NULL;
    char first_error[1024];
    (void)state;
    setenv("ACCEL_ACCELERATOR", "bogus", 1);
    assert_int_equal(accel_get(&acc), ACCEL_ERROR_INVALID_ARGUMENT);
    snprintf(first_error, sizeof first_error, "%s", accel_last_error());
    assert_int_equal(accel_get(&acc), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_string_equal(accel_last_error(), first_error);
    assert_null(acc);

    fake_set(FAKE_A, true, 2, "");
    setenv("ACCEL_ACCELERATOR", "fake-a", 1);
    assert_int_equal(accel_get(&acc), ACCEL_OK);
    assert_ptr_equal(acc->ops, &fake_ops[FAKE_A]);
    assert_string_equal(accel_selection_method(acc), "override");
    setenv("ACCEL_ACCELERATOR", "bogus", 1); /* ignored once chosen */
    assert_int_equal(accel_get(&again), ACCEL_OK);
    assert_ptr_equal(again, acc);
    assert_int_equal(accel_close(acc), ACCEL_ERROR_INVALID_ARGUMENT);

    fake_set(FAKE_D, true, 1, "");
    assert_int_equal(accel_open("fake-d", &mine), ACCEL_OK);
    assert_int_equal(accel_set(mine), ACCEL_OK);
    assert_string_equal(accel_selection_method(mine), "model specified");
    assert_int_equal(accel_get(&again), ACCEL_OK);
    assert_ptr_equal(again, mine);
    assert_int_equal(accel_close(mine), ACCEL_ERROR_INVALID_ARGUMENT);
    /* the replaced accelerator is still a live handle */
    assert_string_equal(accel_selection_method(acc), "override");

    assert_int_equal(accel_set(NULL), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "accelerator is not a valid accel_t"));
    assert_int_equal(accel_get(NULL), ACCEL_ERROR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_override_accel_accelerator, test_setup),
        cmocka_unit_test_setup(test_override_ds_accelerator, test_setup),
        cmocka_unit_test_setup(test_override_accel_wins_over_ds, test_setup),
        cmocka_unit_test_setup(test_override_bogus_names_variable_and_list, test_setup),
        cmocka_unit_test_setup(test_override_is_case_sensitive_and_exact, test_setup),
        cmocka_unit_test_setup(test_override_empty_accel_unset_ds_refused, test_setup),
        cmocka_unit_test_setup(test_override_unavailable_names_library_and_stack, test_setup),
        cmocka_unit_test_setup(test_override_without_devices_is_chosen, test_setup),
        cmocka_unit_test_setup(test_override_not_built, test_setup),
        cmocka_unit_test_setup(test_cascade_earlier_slot_wins, test_setup),
        cmocka_unit_test_setup(test_cascade_order_is_followed, test_setup),
        cmocka_unit_test_setup(test_cascade_skips_xpu_when_cuda_has_a_device, test_setup),
        cmocka_unit_test_setup(test_cascade_device_count_zero_does_not_win, test_setup),
        cmocka_unit_test_setup(test_cascade_falls_back_to_cpu, test_setup),
        cmocka_unit_test_setup(test_detect_describes_every_slot, test_setup),
        cmocka_unit_test_setup(test_detect_notes_cuda_for_xpu, test_setup),
        cmocka_unit_test_setup(test_detect_cpu_chosen_when_nothing_else, test_setup),
        cmocka_unit_test_setup(test_detect_arguments, test_setup),
        cmocka_unit_test_setup(test_register_refuses_null, test_setup),
        cmocka_unit_test_setup(test_register_refuses_other_abi, test_setup),
        cmocka_unit_test_setup(test_register_refuses_short_table, test_setup),
        cmocka_unit_test_setup(test_register_refuses_missing_required_slot, test_setup),
        cmocka_unit_test_setup(test_register_refuses_duplicate_name, test_setup),
        cmocka_unit_test_setup(test_supported_names_lists_builtins_then_registered, test_setup),
        cmocka_unit_test_setup(test_load_library_tries_candidates_in_order, test_setup),
        cmocka_unit_test_setup(test_load_library_variable_comes_first, test_setup),
        cmocka_unit_test_setup(test_open_by_name, test_setup),
        cmocka_unit_test_setup(test_explicit_only_is_skipped_by_auto_detect, test_setup),
        cmocka_unit_test_setup(test_only_auto_detect_asks_for_the_quick_answer, test_setup),
        cmocka_unit_test_setup(test_get_caches_success_not_failure, test_setup),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
