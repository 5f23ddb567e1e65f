/* test_frees.c: every free and release of the API given a pointer it did
 * not hand out (host heap, stack, the middle of a live block, another
 * allocator's memory) or one it already released. Each must be refused
 * with INVALID_ARGUMENT and a sentence (accel_unpin_memory: DeepSpeed's
 * answer, *out_freed false), and change nothing: the counters stay, the
 * foreign memory stays the caller's (written and freed by the test after),
 * and a live block stays usable. */
#include <stdlib.h>

#include "adversarial.h"

/* A status-returning free of `ptr`. */
typedef accel_status_t (*free_fn_t)(void *ptr);

static accel_status_t do_free(void *ptr)
{
    return accel_free(adv_acc, ptr);
}

static accel_status_t do_free_async(void *ptr)
{
    accel_status_t status = accel_free_async(adv_acc, ptr, NULL);
    accel_synchronize(adv_acc, 0);
    return status;
}

static accel_status_t do_host_free(void *ptr)
{
    return accel_host_free(adv_acc, ptr);
}

static accel_status_t do_host_unregister(void *ptr)
{
    return accel_host_unregister(adv_acc, ptr);
}

/* One refused release: status, sentence, counters unchanged. */
static void refused_unchanged(free_fn_t fn, void *ptr, const char *what)
{
    adv_counters_t before, after;
    adv_counters_read(&before);
    accel_status_t status = fn(ptr);
    adv_counters_read(&after);
    adv_refused(status, ACCEL_ERROR_INVALID_ARGUMENT, what);
    adv_case(adv_counters_same(&before, &after), "%s: counters changed", what);
}

/* Pointers no accel allocator handed out, and checks that they are still
 * the caller's afterwards. */
static void foreign_cases(free_fn_t fn, const char *call)
{
    char what[160];
    int on_stack[16];
    void *aligned = NULL;
    uint8_t *heap = malloc(256);
    assert_non_null(heap);
    assert_int_equal(posix_memalign(&aligned, 4096, 8192), 0);
    snprintf(what, sizeof what, "%s on %s: a malloc'd pointer", call, accel_name(adv_acc));
    refused_unchanged(fn, heap, what);
    snprintf(what, sizeof what, "%s on %s: a stack pointer", call, accel_name(adv_acc));
    refused_unchanged(fn, on_stack, what);
    snprintf(what, sizeof what, "%s on %s: a 4096-aligned foreign pointer", call,
             accel_name(adv_acc));
    refused_unchanged(fn, aligned, what);
    snprintf(what, sizeof what, "%s on %s: an address in the last page", call, accel_name(adv_acc));
    refused_unchanged(fn, (void *)(UINTPTR_MAX - 4095), what);
    memset(heap, 1, 256); /* still the caller's: ASan reports a use after free */
    memset(aligned, 1, 8192);
    free(heap);
    free(aligned);
}

/* A live block's interior, then the block freed twice. `alloc` makes it. */
static void owned_cases(free_fn_t fn, const char *call,
                        accel_status_t (*alloc)(accel_t *, size_t, void **))
{
    char what[160];
    void *block = NULL;
    assert_int_equal(alloc(adv_acc, 8192, &block), ACCEL_OK);
    snprintf(what, sizeof what, "%s on %s: the middle of a live block", call, accel_name(adv_acc));
    refused_unchanged(fn, (uint8_t *)block + 4096, what);
    assert_int_equal(accel_memset(adv_acc, block, 3, 8192), ACCEL_OK); /* still live */
    assert_int_equal(fn(block), ACCEL_OK);
    snprintf(what, sizeof what, "%s on %s: a second free", call, accel_name(adv_acc));
    refused_unchanged(fn, block, what);
}

static void test_device_frees(void **state)
{
    (void)state;
    foreign_cases(do_free, "accel_free");
    owned_cases(do_free, "accel_free", accel_malloc);
    foreign_cases(do_free_async, "accel_free_async");
    owned_cases(do_free_async, "accel_free_async", accel_malloc);
}

static void test_host_frees(void **state)
{
    bool pinned = false, registering = false;
    void *device = NULL, *host = NULL;
    (void)state;
    accel_query_flag(adv_acc, ACCEL_FLAG_PINNED_MEMORY_SUPPORTED, &pinned);
    accel_query_flag(adv_acc, ACCEL_FLAG_HOST_REGISTER_SUPPORTED, &registering);
    if (pinned) {
        foreign_cases(do_host_free, "accel_host_free");
        assert_int_equal(accel_host_alloc(adv_acc, 8192, &host), ACCEL_OK);
        refused_unchanged(do_host_free, (uint8_t *)host + 4096,
                          "accel_host_free: the middle of a pinned block");
        assert_int_equal(accel_host_free(adv_acc, host), ACCEL_OK);
        refused_unchanged(do_host_free, host, "accel_host_free: a second free");
        assert_int_equal(accel_malloc(adv_acc, 4096, &device), ACCEL_OK);
        refused_unchanged(do_host_free, device, "accel_host_free: device memory");
        assert_int_equal(accel_free(adv_acc, device), ACCEL_OK);
    } else {
        print_message("[  SKIP    ] accel_host_free: %s has no pinned memory\n",
                      accel_name(adv_acc));
    }
    if (registering) {
        void *range = NULL;
        assert_int_equal(posix_memalign(&range, 4096, 8192), 0);
        refused_unchanged(do_host_unregister, range, "accel_host_unregister: never registered");
        assert_int_equal(accel_host_register(adv_acc, range, 8192), ACCEL_OK);
        refused_unchanged(do_host_unregister, (uint8_t *)range + 4096,
                          "accel_host_unregister: the middle of a registered range");
        assert_int_equal(accel_host_unregister(adv_acc, range), ACCEL_OK);
        refused_unchanged(do_host_unregister, range, "accel_host_unregister: a second time");
        free(range);
    }
}

static void test_tensor_free(void **state)
{
    DLTensor tensor, copy;
    int64_t shape = 64;
    adv_counters_t before, after;
    (void)state;
    assert_int_equal(accel_tensor_empty(adv_acc, 0, ACCEL_DTYPE_F32, 1, &shape, &tensor), ACCEL_OK);
    copy = tensor;
    assert_int_equal(accel_tensor_free(adv_acc, &tensor), ACCEL_OK);
    adv_counters_read(&before);
    adv_refused(accel_tensor_free(adv_acc, &tensor), ACCEL_ERROR_INVALID_ARGUMENT,
                "accel_tensor_free: the zeroed tensor after its free");
    adv_counters_read(&after);
    adv_case(adv_counters_same(&before, &after), "accel_tensor_free twice: counters changed");
    (void)copy; /* its data and shape are freed: passing it again is a use after free */

    /* A tensor accel did not make: a heap shape and foreign data. */
    int64_t *foreign_shape = malloc(sizeof *foreign_shape);
    float *data = malloc(256);
    assert_non_null(foreign_shape);
    assert_non_null(data);
    *foreign_shape = 64;
    DLTensor foreign = {.data = data,
                        .device = {.device_type = adv_device_type()},
                        .ndim = 1,
                        .dtype = {.code = kDLFloat, .bits = 32, .lanes = 1},
                        .shape = foreign_shape};
    DLTensor kept = foreign;
    adv_counters_read(&before);
    adv_refused(accel_tensor_free(adv_acc, &foreign), ACCEL_ERROR_INVALID_ARGUMENT,
                "accel_tensor_free: a tensor accel did not make");
    adv_counters_read(&after);
    adv_case(memcmp(&foreign, &kept, sizeof kept) == 0,
             "accel_tensor_free of a foreign tensor: the tensor was changed");
    adv_case(adv_counters_same(&before, &after), "accel_tensor_free foreign: counters changed");
    memset(data, 1, 256);
    *foreign_shape = 1;
    free(data);
    free(foreign_shape);
}

static void test_unpin(void **state)
{
    float data[64] = {0};
    int64_t shape = 64;
    bool freed = true;
    adv_counters_t before, after;
    DLTensor host = {.data = data,
                     .device = {.device_type = kDLCPU},
                     .ndim = 1,
                     .dtype = {.code = kDLFloat, .bits = 32, .lanes = 1},
                     .shape = &shape};
    DLTensor kept = host, pinned;
    (void)state;
    adv_counters_read(&before);
    assert_int_equal(accel_unpin_memory(adv_acc, &host, &freed), ACCEL_OK);
    adv_counters_read(&after);
    adv_case(!freed && memcmp(&host, &kept, sizeof kept) == 0 && adv_counters_same(&before, &after),
             "accel_unpin_memory of a tensor it did not pin changed something");
    host.byte_offset = UINT64_MAX - 3; /* a wrapping offset only misses the registry */
    assert_int_equal(accel_unpin_memory(adv_acc, &host, &freed), ACCEL_OK);
    adv_case(!freed, "accel_unpin_memory with a wrapping offset freed something");
    host.byte_offset = 0;
    if (accel_pin_memory(adv_acc, &host, true, true, &pinned) != ACCEL_OK) {
        print_message("[  SKIP    ] pin_memory on %s: %s\n", accel_name(adv_acc),
                      accel_last_error());
        return;
    }
    DLTensor alias = pinned;
    assert_int_equal(accel_unpin_memory(adv_acc, &pinned, &freed), ACCEL_OK);
    assert_true(freed);
    adv_counters_read(&before);
    assert_int_equal(accel_unpin_memory(adv_acc, &alias, &freed), ACCEL_OK);
    adv_counters_read(&after);
    adv_case(!freed && adv_counters_same(&before, &after),
             "accel_unpin_memory a second time (a copy of the tensor) freed something");
}

static void test_aio_pinned_free(void **state)
{
    const accel_aio_op_t *aio = adv_load_op("AsyncIOBuilder");
    accel_aio_handle_t *h = NULL, *other = NULL;
    void *ptr = NULL, *theirs = NULL;
    (void)state;
    if (aio == NULL)
        return;
    assert_int_equal(aio->handle_create(adv_acc, NULL, &h), ACCEL_OK);
    assert_int_equal(aio->handle_create(adv_acc, NULL, &other), ACCEL_OK);
    assert_int_equal(aio->pinned_alloc(h, 3 * 4096, &ptr), ACCEL_OK);
    assert_int_equal(aio->pinned_alloc(other, 4096, &theirs), ACCEL_OK);
    void *aligned = NULL;
    assert_int_equal(posix_memalign(&aligned, 4096, 8192), 0);
    static const char *const names[] = {"a 4096-aligned pointer from posix_memalign",
                                        "a page inside a pinned buffer", "another handle's buffer",
                                        "an unaligned pointer into a buffer"};
    void *const bad[] = {aligned, (uint8_t *)ptr + 4096, theirs, (uint8_t *)ptr + 1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char what[160];
        adv_counters_t before, after;
        snprintf(what, sizeof what, "async_io.pinned_free on %s: %s", accel_name(adv_acc),
                 names[i]);
        adv_counters_read(&before);
        adv_refused(aio->pinned_free(h, bad[i]), ACCEL_ERROR_INVALID_ARGUMENT, what);
        adv_counters_read(&after);
        adv_case(adv_counters_same(&before, &after), "%s: counters changed", what);
    }
    memset(aligned, 1, 8192); /* still the caller's */
    free(aligned);
    memset(ptr, 2, 3 * 4096); /* still live */
    assert_int_equal(aio->pinned_free(h, ptr), ACCEL_OK);
    adv_refused(aio->pinned_free(h, ptr), ACCEL_ERROR_INVALID_ARGUMENT,
                "async_io.pinned_free: a second free");
    assert_int_equal(aio->pinned_free(other, theirs), ACCEL_OK);
    aio->handle_destroy(h);
    aio->handle_destroy(other);
}

static void test_handle_destroys(void **state)
{
    bool streams = false, events = false;
    (void)state;
    accel_query_flag(adv_acc, ACCEL_FLAG_STREAMS_SUPPORTED, &streams);
    accel_query_flag(adv_acc, ACCEL_FLAG_EVENTS_SUPPORTED, &events);
    if (streams) {
        accel_stream_t *stream = NULL;
        assert_int_equal(accel_stream_create(adv_acc, 0, 0, &stream), ACCEL_OK);
        assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
        adv_refused(accel_stream_destroy(stream), ACCEL_ERROR_INVALID_ARGUMENT,
                    "accel_stream_destroy: a second time");
    }
    if (events) {
        accel_event_t *event = NULL;
        assert_int_equal(accel_event_create(adv_acc, 0, 0, &event), ACCEL_OK);
        assert_int_equal(accel_event_destroy(event), ACCEL_OK);
        adv_refused(accel_event_destroy(event), ACCEL_ERROR_INVALID_ARGUMENT,
                    "accel_event_destroy: a second time");
    }
    accel_graph_t *graph = NULL;
    if (accel_graph_create(adv_acc, &graph) == ACCEL_OK) {
        assert_int_equal(accel_graph_destroy(graph), ACCEL_OK);
        adv_refused(accel_graph_destroy(graph), ACCEL_ERROR_INVALID_ARGUMENT,
                    "accel_graph_destroy: a second time");
    }
    int not_a_stream[64] = {0};
    adv_refused(accel_stream_destroy((accel_stream_t *)not_a_stream), ACCEL_ERROR_INVALID_ARGUMENT,
                "accel_stream_destroy: a pointer to other memory");
    adv_refused(accel_event_destroy((accel_event_t *)not_a_stream), ACCEL_ERROR_INVALID_ARGUMENT,
                "accel_event_destroy: a pointer to other memory");
    adv_refused(accel_graph_destroy((accel_graph_t *)not_a_stream), ACCEL_ERROR_INVALID_ARGUMENT,
                "accel_graph_destroy: a pointer to other memory");
}

int adv_run_free_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_frees),    cmocka_unit_test(test_host_frees),
        cmocka_unit_test(test_tensor_free),     cmocka_unit_test(test_unpin),
        cmocka_unit_test(test_aio_pinned_free), cmocka_unit_test(test_handle_destroys),
    };
    return cmocka_run_group_tests_name("adversarial frees", tests, NULL, NULL);
}
