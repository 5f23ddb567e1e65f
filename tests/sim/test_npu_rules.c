/* test_npu_rules.c: the ACL rules of tests/sim/README.md's ascendcl table
 * (M1, M2, M7, M8, M9) that the npu backend depends on, checked twice: the
 * simulated libascendcl refuses each violation when called directly, and
 * the backend's memory slots work on it (so the backend never makes the
 * refused call). The sim is reached with dlsym on the library accel already
 * loaded (ACCEL_NPU_LIBRARY, set by ctest; RTLD_NOLOAD).
 * ACCEL_TEST_NO_REGISTER_V2=1 (set by ctest with the ascendcl_sim_no_register_v2
 * variant): the runtime lacks aclrtHostRegisterV2 and host_register must
 * refuse with UNSUPPORTED. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <accel/accel.h>

#define ACL_PARAM_INVALID   107000
#define ACL_ADDR_UNALIGNED  107008
#define ACL_FEATURE_NOT_SUP 207000
#define ACL_MEMCPY_H2H      0
#define ACL_MEMCPY_D2D      3
#define ACL_HOST_REG_PINNED 0x10000000u
#define PAGE                4096u

typedef int (*set_device_fn)(int32_t);
typedef int (*memcpy_async_fn)(void *, size_t, const void *, size_t, unsigned, void *);
typedef int (*memset_async_fn)(void *, size_t, int32_t, size_t, void *);
typedef int (*register_fn)(void *, uint64_t, unsigned, void **);
typedef int (*register_v2_fn)(void *, uint64_t, uint32_t);
typedef int (*unregister_fn)(void *);
typedef int (*synchronize_fn)(void *);

static accel_t *acc;
static void *sim; /* the loaded libascendcl sim */

static void *sim_symbol(const char *name)
{
    void *fn = dlsym(sim, name);
    if (fn == NULL)
        fail_msg("the sim lacks %s", name);
    return fn;
}

/* Each test: a fresh accel_t on the sim, device 0 current on this thread
 * (for the direct calls too). */
static int setup(void **state)
{
    const char *path = getenv("ACCEL_NPU_LIBRARY");
    (void)state;
    assert_int_equal(accel_open("npu", &acc), ACCEL_OK);
    assert_int_equal(accel_synchronize(acc, 0), ACCEL_OK);
    assert_non_null(path);
    sim = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(sim);
    assert_int_equal(((set_device_fn)sim_symbol("aclrtSetDevice"))(0), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    dlclose(sim);
    assert_int_equal(accel_close(acc), ACCEL_OK);
    return 0;
}

static uint8_t *device_alloc(size_t size)
{
    void *ptr = NULL;
    assert_int_equal(accel_malloc(acc, size, &ptr), ACCEL_OK);
    return ptr;
}

static void fill_pattern(uint8_t *host, size_t size, unsigned seed)
{
    for (size_t i = 0; i < size; i++)
        host[i] = (uint8_t)(i * 31u + seed);
}

/* ---------------------------------------------------------------- M1: host to host */

static void test_sim_refuses_async_host_to_host(void **state)
{
    char a[64] = "source", b[64] = {0};
    (void)state;
    assert_int_equal(((memcpy_async_fn)sim_symbol("aclrtMemcpyAsync"))(b, sizeof b, a, sizeof a,
                                                                       ACL_MEMCPY_H2H, NULL),
                     ACL_FEATURE_NOT_SUP);
    assert_int_equal(b[0], 0);
}

/* An async H2H copy on a stream runs after the stream's earlier work: a
 * D2H copy into `staged` queued before it must have landed when it reads
 * `staged` (ACCEL_SIM_STREAM_DELAY_US widens the window). */
static void test_host_to_host_copy_keeps_stream_order(void **state)
{
    enum { N = 4096 };
    uint8_t *want = malloc(N), *staged = calloc(1, N), *out = calloc(1, N);
    uint8_t *device = device_alloc(N);
    accel_stream_t *stream = NULL;
    (void)state;
    assert_non_null(want);
    assert_non_null(staged);
    assert_non_null(out);
    fill_pattern(want, N, 7);
    assert_int_equal(accel_memcpy(acc, device, want, N, ACCEL_COPY_HOST_TO_DEVICE), ACCEL_OK);
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_memcpy_async(acc, staged, device, N, ACCEL_COPY_DEVICE_TO_HOST, stream),
                     ACCEL_OK);
    assert_int_equal(accel_memcpy_async(acc, out, staged, N, ACCEL_COPY_HOST_TO_HOST, stream),
                     ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    assert_memory_equal(out, want, N);
    memset(out, 0, N);
    assert_int_equal(accel_memcpy(acc, out, want, N, ACCEL_COPY_HOST_TO_HOST), ACCEL_OK);
    assert_memory_equal(out, want, N);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    free(want);
    free(staged);
    free(out);
}

/* ---------------------------------------------------------------- M2: D2D alignment */

static void test_sim_refuses_unaligned_device_to_device(void **state)
{
    uint8_t *device = device_alloc(1024);
    memcpy_async_fn copy = (memcpy_async_fn)sim_symbol("aclrtMemcpyAsync");
    (void)state;
    assert_int_equal(copy(device + 512, 256, device + 1, 256, ACL_MEMCPY_D2D, NULL),
                     ACL_ADDR_UNALIGNED);
    assert_int_equal(copy(device + 513, 256, device, 256, ACL_MEMCPY_D2D, NULL),
                     ACL_ADDR_UNALIGNED);
    assert_int_equal(copy(device + 512, 256, device + 64, 256, ACL_MEMCPY_D2D, NULL), 0);
    assert_int_equal(((synchronize_fn)sim_symbol("aclrtSynchronizeStream"))(NULL), 0);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
}

/* D2D copies at every mix of aligned and odd offsets, on a created stream
 * and on the default one, land exactly and touch nothing around them. */
static void test_unaligned_device_to_device_copies(void **state)
{
    enum { N = 3000, SPAN = 4096 };
    static const size_t offsets[][2] = {{1, 3}, {64, 5}, {7, 128}, {0, 0}, {63, 63}};
    uint8_t *want = malloc(SPAN), *out = malloc(SPAN), *expect = malloc(SPAN);
    uint8_t *src = device_alloc(SPAN), *dst = device_alloc(SPAN);
    accel_stream_t *stream = NULL;
    (void)state;
    assert_non_null(want);
    assert_non_null(out);
    assert_non_null(expect);
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        size_t d = offsets[i][0], s = offsets[i][1];
        accel_stream_t *on = i % 2 == 0 ? stream : NULL;
        fill_pattern(want, SPAN, (unsigned)i);
        assert_int_equal(accel_memcpy(acc, src, want, SPAN, ACCEL_COPY_HOST_TO_DEVICE), ACCEL_OK);
        assert_int_equal(accel_memset(acc, dst, 0xEE, SPAN), ACCEL_OK);
        assert_int_equal(
            accel_memcpy_async(acc, dst + d, src + s, N, ACCEL_COPY_DEVICE_TO_DEVICE, on),
            ACCEL_OK);
        assert_int_equal(accel_memcpy_async(acc, out, dst, SPAN, ACCEL_COPY_DEVICE_TO_HOST, on),
                         ACCEL_OK);
        assert_int_equal(on != NULL ? accel_stream_synchronize(on) : accel_synchronize(acc, 0),
                         ACCEL_OK);
        memset(expect, 0xEE, SPAN);
        memcpy(expect + d, want + s, N);
        assert_memory_equal(out, expect, SPAN);
    }
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_free(acc, src), ACCEL_OK);
    assert_int_equal(accel_free(acc, dst), ACCEL_OK);
    free(want);
    free(out);
    free(expect);
}

/* The bounce's own failures (ACCEL_SIM_FAIL through the sim's control
 * call): staging refused, the second copy refused (the first is queued: the
 * slot waits, then frees the staging; LeakSanitizer checks it), the event's
 * record refused (the slot waits instead and the copy lands). Each sentence
 * names the ACL call; after each, the same copy works. */
static void test_unaligned_device_to_device_faults(void **state)
{
    enum { N = 1000 };
    static const struct {
        const char *spec, *named;
    } faults[] = {
        {"aclrtMallocHost:1:507000", "aclrtMallocHost"},
        {"aclrtMemcpyAsync:2:507000", "aclrtMemcpyAsync"},
        {"aclrtRecordEvent:1:507000", NULL}, /* not an error: waited for */
    };
    int (*fault_set)(const char *) = (int (*)(const char *))sim_symbol("accel_sim_fault_set");
    uint8_t *want = malloc(N), *out = malloc(N), *src = device_alloc(N + 64);
    uint8_t *dst = device_alloc(N + 64);
    (void)state;
    assert_non_null(want);
    assert_non_null(out);
    fill_pattern(want, N, 9);
    assert_int_equal(accel_memcpy(acc, src + 3, want, N, ACCEL_COPY_HOST_TO_DEVICE), ACCEL_OK);
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        accel_status_t status;
        assert_int_equal(fault_set(faults[i].spec), 0);
        status = accel_memcpy(acc, dst + 1, src + 3, N, ACCEL_COPY_DEVICE_TO_DEVICE);
        assert_int_equal(fault_set(NULL), 0);
        if (faults[i].named != NULL) {
            assert_int_equal(status, ACCEL_ERROR_DEVICE_ERROR);
            assert_non_null(strstr(accel_last_error(), faults[i].named));
            assert_int_equal(accel_memcpy(acc, dst + 1, src + 3, N, ACCEL_COPY_DEVICE_TO_DEVICE),
                             ACCEL_OK);
        } else {
            assert_int_equal(status, ACCEL_OK);
        }
        memset(out, 0, N);
        assert_int_equal(accel_memcpy(acc, out, dst + 1, N, ACCEL_COPY_DEVICE_TO_HOST), ACCEL_OK);
        assert_memory_equal(out, want, N);
    }
    assert_int_equal(accel_free(acc, src), ACCEL_OK);
    assert_int_equal(accel_free(acc, dst), ACCEL_OK);
    free(want);
    free(out);
}

/* ---------------------------------------------------------------- M7, M8: host registration */

static void test_sim_register_needs_page_alignment(void **state)
{
    uint8_t *buffer = aligned_alloc(PAGE, 2 * PAGE);
    void *mapped = NULL;
    register_fn reg = (register_fn)sim_symbol("aclrtHostRegister");
    unregister_fn unreg = (unregister_fn)sim_symbol("aclrtHostUnregister");
    memcpy_async_fn copy = (memcpy_async_fn)sim_symbol("aclrtMemcpyAsync");
    uint8_t *device = device_alloc(PAGE);
    (void)state;
    assert_non_null(buffer);
    assert_int_equal(reg(buffer + 16, PAGE, 0, &mapped), ACL_PARAM_INVALID);
    assert_int_equal(reg(buffer, PAGE, 0, &mapped), 0);
    /* The MAPPED address is a device-side view: never the host address, and
     * no copy may name it. */
    assert_ptr_not_equal(mapped, buffer);
    assert_int_equal(copy(device, PAGE, mapped, PAGE, 1 /* H2D */, NULL), ACL_PARAM_INVALID);
    assert_int_equal(unreg(buffer), 0);
    if (getenv("ACCEL_TEST_NO_REGISTER_V2") == NULL) {
        register_v2_fn reg2 = (register_v2_fn)sim_symbol("aclrtHostRegisterV2");
        assert_int_equal(reg2(buffer + 16, PAGE, ACL_HOST_REG_PINNED), ACL_PARAM_INVALID);
        assert_int_equal(reg2(buffer, PAGE, ACL_HOST_REG_PINNED), 0);
        assert_int_equal(reg2(buffer, PAGE, ACL_HOST_REG_PINNED), ACL_PARAM_INVALID); /* twice */
        assert_int_equal(unreg(buffer), 0);
    }
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    free(buffer);
}

/* accel_host_register of a plain malloc'd buffer (not page aligned) pins
 * the pages holding it with aclrtHostRegisterV2(PINNED), and copies from
 * it work; without V2 it is refused as unsupported and nothing is pinned. */
static void test_host_register_pins_the_pages(void **state)
{
    enum { N = 3 * PAGE };
    uint8_t *block = aligned_alloc(PAGE, N + 2 * PAGE), *host = block + 100;
    uint8_t *back = malloc(N), *device = device_alloc(N);
    register_v2_fn reg2 = (register_v2_fn)dlsym(sim, "aclrtHostRegisterV2");
    bool pinned = true;
    (void)state;
    assert_non_null(block);
    assert_non_null(back);
    if (getenv("ACCEL_TEST_NO_REGISTER_V2") != NULL) {
        assert_null(reg2);
        assert_int_equal(accel_host_register(acc, host, N), ACCEL_ERROR_UNSUPPORTED);
        assert_non_null(strstr(accel_last_error(), "aclrtHostRegisterV2"));
        assert_int_equal(accel_is_pinned(acc, host, &pinned), ACCEL_OK);
        assert_false(pinned);
    } else {
        assert_non_null(reg2);
        fill_pattern(host, N, 3);
        assert_int_equal(accel_host_register(acc, host, N), ACCEL_OK);
        /* The first page is ACL's now: registering it again is refused. */
        assert_int_equal(reg2(block, PAGE, ACL_HOST_REG_PINNED), ACL_PARAM_INVALID);
        assert_int_equal(accel_memcpy(acc, device, host, N, ACCEL_COPY_HOST_TO_DEVICE), ACCEL_OK);
        assert_int_equal(accel_memcpy(acc, back, device, N, ACCEL_COPY_DEVICE_TO_HOST), ACCEL_OK);
        assert_memory_equal(back, host, N);
        assert_int_equal(accel_host_unregister(acc, host), ACCEL_OK);
        /* Unregistered: the pages can be registered again. */
        assert_int_equal(reg2(block, PAGE, ACL_HOST_REG_PINNED), 0);
        assert_int_equal(((unregister_fn)sim_symbol("aclrtHostUnregister"))(block), 0);
    }
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    free(block);
    free(back);
}

/* M8: pinned memory is whole pages, so the pages of a caller's buffer
 * never hold pinned memory too: small buffers malloc'd right after a small
 * pinned one (glibc places some in the rest of its page when the sim
 * allocated only the size asked for) each register. */
static void test_pinned_pages_not_shared(void **state)
{
    enum { SMALL = 64, COUNT = 64 };
    void *pinned = NULL, *buffers[COUNT];
    (void)state;
    if (getenv("ACCEL_TEST_NO_REGISTER_V2") != NULL)
        skip();
    assert_int_equal(accel_host_alloc(acc, SMALL, &pinned), ACCEL_OK);
    for (int i = 0; i < COUNT; i++)
        assert_non_null(buffers[i] = malloc(SMALL));
    for (int i = 0; i < COUNT; i++) {
        assert_int_equal(accel_host_register(acc, buffers[i], SMALL), ACCEL_OK);
        assert_int_equal(accel_host_unregister(acc, buffers[i]), ACCEL_OK);
    }
    for (int i = 0; i < COUNT; i++)
        free(buffers[i]);
    assert_int_equal(accel_host_free(acc, pinned), ACCEL_OK);
}

/* ---------------------------------------------------------------- M9: memset targets */

static void test_sim_refuses_memset_on_plain_host_memory(void **state)
{
    uint8_t plain[256];
    memset_async_fn set = (memset_async_fn)sim_symbol("aclrtMemsetAsync");
    uint8_t *device = device_alloc(256);
    (void)state;
    memset(plain, 1, sizeof plain);
    assert_int_equal(set(plain, sizeof plain, 0, sizeof plain, NULL), ACL_PARAM_INVALID);
    assert_int_equal(plain[0], 1);
    assert_int_equal(set(device, 256, 0, 256, NULL), 0);
    assert_int_equal(((synchronize_fn)sim_symbol("aclrtSynchronizeStream"))(NULL), 0);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sim_refuses_async_host_to_host, setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_to_host_copy_keeps_stream_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sim_refuses_unaligned_device_to_device, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unaligned_device_to_device_copies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unaligned_device_to_device_faults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sim_register_needs_page_alignment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_register_pins_the_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pinned_pages_not_shared, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sim_refuses_memset_on_plain_host_memory, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
