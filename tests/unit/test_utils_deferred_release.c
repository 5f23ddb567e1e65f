/* test_utils_deferred_release.c: the deferred-release list
 * (accel_backend_utils.h) through the shared library, over fake fences whose
 * state each test sets: an entry is released once its fence completes and
 * never before, exactly once, resource before fence; a failing query keeps
 * it; drain waits, falls back to the device and otherwise leaves the memory
 * to the runtime (freeing only the caller's records); add from several threads at once loses
 * nothing. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "accel/accel_backend_utils.h"

typedef enum fence_state { PENDING, COMPLETE, QUERY_FAILS } fence_state_t;

typedef struct fake_fence {
    _Atomic fence_state_t state;
    bool wait_fails;
    _Atomic int waits;
    _Atomic int destroys;
    _Atomic int forgets;
    _Atomic int released_before_destroy; /* the resource went first */
} fake_fence_t;

typedef struct fake_resource {
    fake_fence_t *fence;
    _Atomic int releases;
    _Atomic int forgotten;
    size_t size_seen;
} fake_resource_t;

static bool device_wait_fails;
static int device_waits;

static accel_status_t fake_query(void *self, int device, void *fence)
{
    fake_fence_t *f = fence;
    fence_state_t state = f->state;
    (void)self;
    (void)device;
    switch (state) {
    case COMPLETE: return ACCEL_OK;
    case PENDING: return ACCEL_ERROR_NOT_READY;
    default: return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR, "fake: query failed");
    }
}

static accel_status_t fake_wait(void *self, int device, void *fence)
{
    fake_fence_t *f = fence;
    (void)self;
    (void)device;
    f->waits++;
    if (f->wait_fails)
        return accel_backend_error(ACCEL_ERROR_DEVICE_ERROR, "fake: wait failed");
    f->state = COMPLETE;
    return ACCEL_OK;
}

static void fake_destroy(void *self, int device, void *fence)
{
    fake_fence_t *f = fence;
    (void)self;
    (void)device;
    f->destroys++;
}

static void fake_forget(void *self, int device, void *fence)
{
    fake_fence_t *f = fence;
    (void)self;
    (void)device;
    f->forgets++;
}

static accel_status_t fake_device_wait(void *self, int device)
{
    (void)self;
    (void)device;
    device_waits++;
    return device_wait_fails ? accel_backend_error(ACCEL_ERROR_DEVICE_ERROR, "fake: device lost")
                             : ACCEL_OK;
}

static void fake_release(void *ctx, int device, void *resource, size_t size, bool finished)
{
    fake_resource_t *r = resource;
    (void)device;
    assert_ptr_equal(ctx, &device_waits); /* the context given to add */
    if (!finished) {                      /* left to the runtime: only records may go */
        r->forgotten++;
        return;
    }
    assert_int_equal(r->fence->state, COMPLETE);
    if (r->fence->destroys == 0)
        r->fence->released_before_destroy++;
    r->releases++;
    r->size_seen = size;
}

static const accel_deferred_fence_ops_t fence_ops = {
    .query = fake_query,
    .wait = fake_wait,
    .destroy = fake_destroy,
    .forget = fake_forget,
    .device_wait = fake_device_wait,
};

static accel_deferred_release_t *new_list(const accel_deferred_fence_ops_t *ops)
{
    accel_deferred_release_t *list = NULL;
    assert_int_equal(accel_deferred_release_create(ops, &list), ACCEL_OK);
    assert_non_null(list);
    device_wait_fails = false;
    device_waits = 0;
    return list;
}

static void add(accel_deferred_release_t *list, fake_fence_t *fence, fake_resource_t *resource,
                size_t size)
{
    resource->fence = fence;
    accel_deferred_release_add(list, 0, fence, resource, size, fake_release, &device_waits);
}

static void test_create_refuses_bad_arguments(void **state)
{
    accel_deferred_fence_ops_t no_wait = {.query = fake_query};
    accel_deferred_release_t *list = NULL;
    (void)state;
    assert_int_equal(accel_deferred_release_create(NULL, &list), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_deferred_release_create(&fence_ops, NULL), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_int_equal(accel_deferred_release_create(&no_wait, &list), ACCEL_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(accel_last_error(), "query and wait"));
    assert_null(list);
}

static void test_released_only_once_complete(void **state)
{
    accel_deferred_release_t *list = new_list(&fence_ops);
    fake_fence_t fence = {.state = PENDING};
    fake_resource_t resource = {0};
    (void)state;
    add(list, &fence, &resource, 4096);
    assert_int_equal(accel_deferred_release_pending(list), 1);
    assert_int_equal(accel_deferred_release_poll(list), 0);
    assert_int_equal(resource.releases, 0);
    assert_int_equal(fence.destroys, 0);
    fence.state = COMPLETE;
    assert_int_equal(accel_deferred_release_poll(list), 1);
    assert_int_equal(resource.releases, 1);
    assert_int_equal(resource.size_seen, 4096);
    assert_int_equal(fence.destroys, 1);
    assert_int_equal(fence.released_before_destroy, 1);
    assert_int_equal(accel_deferred_release_pending(list), 0);
    /* Nothing is released twice, by a poll or by the teardown. */
    assert_int_equal(accel_deferred_release_poll(list), 0);
    accel_deferred_release_destroy(list);
    assert_int_equal(resource.releases, 1);
    assert_int_equal(fence.destroys, 1);
    assert_int_equal(fence.waits, 0);
}

/* Adding polls first: a completed entry goes as the next one is listed. */
static void test_add_polls_the_list(void **state)
{
    accel_deferred_release_t *list = new_list(&fence_ops);
    fake_fence_t done = {.state = COMPLETE}, busy = {.state = PENDING};
    fake_resource_t first = {0}, second = {0};
    (void)state;
    add(list, &done, &first, 1);
    assert_int_equal(first.releases, 0);
    add(list, &busy, &second, 2);
    assert_int_equal(first.releases, 1);
    assert_int_equal(second.releases, 0);
    assert_int_equal(accel_deferred_release_pending(list), 1);
    accel_deferred_release_destroy(list); /* waits for the busy one */
    assert_int_equal(second.releases, 1);
    assert_int_equal(busy.waits, 1);
}

/* A query that fails says nothing about the work: the entry stays until a
 * wait proves it finished. */
static void test_failed_query_keeps_entry(void **state)
{
    accel_deferred_release_t *list = new_list(&fence_ops);
    fake_fence_t fence = {.state = QUERY_FAILS};
    fake_resource_t resource = {0};
    (void)state;
    add(list, &fence, &resource, 8);
    for (int i = 0; i < 3; i++)
        assert_int_equal(accel_deferred_release_poll(list), 0);
    assert_int_equal(resource.releases, 0);
    assert_int_equal(accel_deferred_release_pending(list), 1);
    assert_int_equal(accel_deferred_release_drain(list), 0);
    assert_int_equal(resource.releases, 1);
    assert_int_equal(fence.destroys, 1);
    assert_int_equal(device_waits, 0);
    accel_deferred_release_destroy(list);
}

static void test_drain_falls_back_to_the_device(void **state)
{
    accel_deferred_release_t *list = new_list(&fence_ops);
    fake_fence_t fence = {.state = PENDING, .wait_fails = true};
    fake_resource_t resource = {0};
    (void)state;
    add(list, &fence, &resource, 8);
    fence.state = COMPLETE; /* what the device wait would have made true */
    assert_int_equal(accel_deferred_release_drain(list), 0);
    assert_int_equal(device_waits, 1);
    assert_int_equal(resource.releases, 1);
    assert_int_equal(fence.destroys, 1);
    accel_deferred_release_destroy(list);
}

/* Neither wait works: the memory is leaked, never freed under the work. */
static void test_drain_leaves_unknown_work_to_runtime(void **state)
{
    accel_deferred_release_t *list = new_list(&fence_ops);
    fake_fence_t fence = {.state = PENDING, .wait_fails = true};
    fake_resource_t resource = {0};
    (void)state;
    device_wait_fails = true;
    add(list, &fence, &resource, 8);
    assert_int_equal(accel_deferred_release_drain(list), 1);
    assert_int_equal(resource.releases, 0);
    assert_int_equal(resource.forgotten, 1);
    assert_int_equal(fence.destroys, 0);
    assert_int_equal(fence.forgets, 1);
    assert_int_equal(accel_deferred_release_pending(list), 0);
    accel_deferred_release_destroy(list);
    assert_int_equal(resource.releases, 0);
    assert_int_equal(resource.forgotten, 1);
}

static void test_no_device_wait_leaves_to_runtime(void **state)
{
    accel_deferred_fence_ops_t ops = fence_ops;
    accel_deferred_release_t *list;
    fake_fence_t fence = {.state = PENDING, .wait_fails = true};
    fake_resource_t resource = {0};
    (void)state;
    ops.device_wait = NULL;
    list = new_list(&ops);
    add(list, &fence, &resource, 8);
    accel_deferred_release_destroy(list);
    assert_int_equal(fence.waits, 1);
    assert_int_equal(resource.releases, 0);
    assert_int_equal(resource.forgotten, 1);
    assert_int_equal(fence.destroys, 0);
}

static void test_abandon_calls_nothing(void **state)
{
    accel_deferred_release_t *list = new_list(&fence_ops);
    fake_fence_t fence = {.state = PENDING};
    fake_resource_t resource = {0};
    (void)state;
    add(list, &fence, &resource, 8);
    fence.state = COMPLETE;
    accel_deferred_release_abandon(list);
    assert_int_equal(resource.releases, 0);
    assert_int_equal(resource.forgotten, 0);
    assert_int_equal(fence.destroys, 0);
    assert_int_equal(fence.forgets, 0);
    assert_int_equal(fence.waits, 0);
    accel_deferred_release_abandon(NULL);
    accel_deferred_release_destroy(NULL);
    assert_int_equal(accel_deferred_release_poll(NULL), 0);
}

/* A release function may list more work (the lock is not held). */
static accel_deferred_release_t *reentrant_list;
static fake_fence_t reentrant_fence = {.state = COMPLETE};
static fake_resource_t reentrant_resource;

static void release_and_add(void *ctx, int device, void *resource, size_t size, bool finished)
{
    (void)ctx;
    (void)device;
    (void)finished;
    (void)resource;
    (void)size;
    reentrant_resource.fence = &reentrant_fence;
    accel_deferred_release_add(reentrant_list, 0, &reentrant_fence, &reentrant_resource, 16,
                               fake_release, &device_waits);
}

static void test_release_may_add(void **state)
{
    fake_fence_t fence = {.state = PENDING};
    (void)state;
    reentrant_list = new_list(&fence_ops);
    accel_deferred_release_add(reentrant_list, 0, &fence, NULL, 0, release_and_add, NULL);
    fence.state = COMPLETE;
    assert_int_equal(accel_deferred_release_poll(reentrant_list), 1);
    assert_int_equal(fence.destroys, 1);
    /* The entry the release listed is kept, and goes with the next poll. */
    assert_int_equal(accel_deferred_release_pending(reentrant_list), 1);
    assert_int_equal(reentrant_resource.releases, 0);
    assert_int_equal(accel_deferred_release_poll(reentrant_list), 1);
    assert_int_equal(reentrant_resource.releases, 1);
    accel_deferred_release_destroy(reentrant_list);
}

#define THREADS    4
#define PER_THREAD 500

static accel_deferred_release_t *shared_list;
static fake_fence_t thread_fences[THREADS][PER_THREAD];
static fake_resource_t thread_resources[THREADS][PER_THREAD];

static void *adder_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < PER_THREAD; i++) {
        thread_resources[t][i].fence = &thread_fences[t][i];
        accel_deferred_release_add(shared_list, t, &thread_fences[t][i], &thread_resources[t][i], 1,
                                   fake_release, &device_waits);
        /* Complete an earlier fence, so concurrent polls release work too. */
        if (i >= 8)
            thread_fences[t][i - 8].state = COMPLETE;
    }
    return NULL;
}

static void test_concurrent_adds_lose_nothing(void **state)
{
    pthread_t threads[THREADS];
    (void)state;
    shared_list = new_list(&fence_ops);
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < PER_THREAD; i++)
            thread_fences[t][i].state = PENDING;
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, adder_main, (void *)(intptr_t)t), 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    accel_deferred_release_destroy(shared_list);
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < PER_THREAD; i++) {
            assert_int_equal(thread_resources[t][i].releases, 1);
            assert_int_equal(thread_fences[t][i].destroys, 1);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_refuses_bad_arguments),
        cmocka_unit_test(test_released_only_once_complete),
        cmocka_unit_test(test_add_polls_the_list),
        cmocka_unit_test(test_failed_query_keeps_entry),
        cmocka_unit_test(test_drain_falls_back_to_the_device),
        cmocka_unit_test(test_drain_leaves_unknown_work_to_runtime),
        cmocka_unit_test(test_no_device_wait_leaves_to_runtime),
        cmocka_unit_test(test_abandon_calls_nothing),
        cmocka_unit_test(test_release_may_add),
        cmocka_unit_test(test_concurrent_adds_lose_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
