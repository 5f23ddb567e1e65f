/* test_plugin.c: plugin discovery through the public API only. Run by ctest
 * with ACCEL_PLUGIN_PATH naming the plugins built next to it (see
 * CMakeLists.txt): the working "xpu.external" plugin must be found, win the
 * cascade and move memory; the bad-ABI and no-symbol plugins must be refused
 * without harm. With the argument --scan-only it just triggers the plugin
 * scan, so ctest can match the warnings it logs. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <accel/accel.h>

static const accel_candidate_t *find_candidate(const accel_candidate_t *all, size_t count,
                                               const char *name)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(all[i].name, name) == 0)
            return &all[i];
    }
    return NULL;
}

static void test_detect_shows_external_xpu_chosen(void **state)
{
    accel_candidate_t all[16];
    size_t count = 0;
    const accel_candidate_t *external;
    (void)state;
    for (size_t i = 0; i < 16; i++)
        all[i] = ACCEL_STRUCT_INIT(accel_candidate_t);
    assert_int_equal(accel_detect(all, 16, &count), ACCEL_OK);
    assert_true(count > 0 && count <= 16);
    external = find_candidate(all, count, "xpu.external");
    assert_non_null(external);
    assert_ptr_equal(external, &all[0]); /* first in the cascade */
    assert_true(external->built);
    assert_true(external->available);
    assert_true(external->chosen);
    assert_int_equal(external->device_count, 1);
    for (size_t i = 1; i < count; i++)
        assert_false(all[i].chosen);
}

enum { GET_THREADS = 8 };

typedef struct get_call {
    accel_t *acc;
    accel_status_t status;
} get_call_t;

static void *get_from_thread(void *arg)
{
    get_call_t *call = arg;
    call->status = accel_get(&call->acc);
    return NULL;
}

/* The first accel_get calls race; they must all get the same accelerator. */
static void test_get_picks_external_xpu(void **state)
{
    pthread_t threads[GET_THREADS];
    get_call_t calls[GET_THREADS] = {0};
    accel_t *acc = NULL;
    (void)state;
    for (int i = 0; i < GET_THREADS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, get_from_thread, &calls[i]), 0);
    for (int i = 0; i < GET_THREADS; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    assert_int_equal(accel_get(&acc), ACCEL_OK);
    for (int i = 0; i < GET_THREADS; i++) {
        assert_int_equal(calls[i].status, ACCEL_OK);
        assert_ptr_equal(calls[i].acc, acc);
    }
    assert_string_equal(accel_name(acc), "xpu.external");
    assert_string_equal(accel_selection_method(acc), "auto detect");
    assert_int_equal(accel_close(acc), ACCEL_ERROR_INVALID_ARGUMENT);
}

static void test_open_external_xpu_moves_memory(void **state)
{
    enum { SIZE = 4096 };
    accel_t *acc = NULL;
    void *device = NULL;
    unsigned char *in = malloc(SIZE), *out = malloc(SIZE);
    (void)state;
    assert_non_null(in);
    assert_non_null(out);
    for (size_t i = 0; i < SIZE; i++)
        in[i] = (unsigned char)(i * 7 + 3);
    assert_int_equal(accel_open("xpu.external", &acc), ACCEL_OK);
    assert_string_equal(accel_selection_method(acc), "explicit");
    assert_int_equal(accel_malloc(acc, SIZE, &device), ACCEL_OK);
    assert_int_equal(accel_memcpy(acc, device, in, SIZE, ACCEL_COPY_HOST_TO_DEVICE), ACCEL_OK);
    assert_int_equal(accel_memcpy(acc, out, device, SIZE, ACCEL_COPY_DEVICE_TO_HOST), ACCEL_OK);
    assert_memory_equal(in, out, SIZE);
    assert_int_equal(accel_memset(acc, device, 0xab, SIZE / 2), ACCEL_OK);
    assert_int_equal(accel_memcpy(acc, out, device, SIZE, ACCEL_COPY_DEVICE_TO_HOST), ACCEL_OK);
    assert_int_equal(out[0], 0xab);
    assert_int_equal(out[SIZE / 2 - 1], 0xab);
    assert_int_equal(out[SIZE / 2], in[SIZE / 2]);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
    free(in);
    free(out);
}

/* Read `count` u32 words from seed `seed` through `acc`. */
static void read_u32(accel_t *acc, uint64_t seed, uint32_t *out, size_t count)
{
    void *device = NULL;
    assert_int_equal(accel_manual_seed(acc, seed), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, count * sizeof *out, &device), ACCEL_OK);
    assert_int_equal(accel_rng_u32(acc, device, count, NULL), ACCEL_OK);
    assert_int_equal(accel_memcpy(acc, out, device, count * sizeof *out, ACCEL_COPY_DEVICE_TO_HOST),
                     ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
}

static void test_external_xpu_random_numbers(void **state)
{
    /* Random123's known answer for Philox4x32-10, counter 0 and key 0. */
    static const uint32_t known[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
    uint32_t words[4], mine[1000], cpu[1000];
    accel_t *acc = NULL, *host = NULL;
    (void)state;
    assert_int_equal(accel_open("xpu.external", &acc), ACCEL_OK);
    read_u32(acc, 0, words, 4);
    assert_memory_equal(words, known, sizeof known);
    if (accel_open("cpu", &host) == ACCEL_OK) {
        /* the same seed gives the same bits on every backend */
        read_u32(acc, 1234, mine, 1000);
        read_u32(host, 1234, cpu, 1000);
        assert_memory_equal(mine, cpu, sizeof mine);
        assert_int_equal(accel_close(host), ACCEL_OK);
    }
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

static void test_refused_plugins_are_not_selectable(void **state)
{
    accel_t *acc = NULL;
    const char *names = accel_supported_names();
    (void)state;
    assert_int_equal(accel_open("badabi", &acc), ACCEL_ERROR_NOT_FOUND);
    assert_non_null(strstr(accel_last_error(), "badabi"));
    assert_int_equal(accel_open("nosymbol", &acc), ACCEL_ERROR_NOT_FOUND);
    assert_null(acc);
    assert_non_null(strstr(names, "'xpu.external'"));
    assert_null(strstr(names, "badabi"));
    assert_null(strstr(names, "nosymbol"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect_shows_external_xpu_chosen),
        cmocka_unit_test(test_get_picks_external_xpu),
        cmocka_unit_test(test_open_external_xpu_moves_memory),
        cmocka_unit_test(test_external_xpu_random_numbers),
        cmocka_unit_test(test_refused_plugins_are_not_selectable),
    };
    /* An override in the caller's environment would defeat auto-detect. */
    unsetenv("ACCEL_ACCELERATOR");
    unsetenv("DS_ACCELERATOR");
    if (argc > 1 && strcmp(argv[1], "--scan-only") == 0) {
        size_t count = 0;
        return accel_detect(NULL, 0, &count) == ACCEL_OK ? 0 : 1;
    }
    if (getenv("ACCEL_PLUGIN_PATH") == NULL) {
        fprintf(stderr, "test_plugin: ACCEL_PLUGIN_PATH is not set; run it through ctest\n");
        return 1;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
