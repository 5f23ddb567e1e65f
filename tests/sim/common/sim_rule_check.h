/* sim_rule_check.h: the vendor-rule checks more than one backend's
 * <backend>.rules_sim test makes against its sim, written once. Header-only
 * for test programs (cmocka); each check opens and closes its own accel_t
 * and runs on the calling thread. */
#ifndef ACCEL_SIM_RULE_CHECK_H
#define ACCEL_SIM_RULE_CHECK_H

#include <string.h>

#include <accel/accel.h>

/* `backend` (two devices or more) refuses a stream of device 1 waiting for
 * an event recorded on device 0, before anything is queued, with a sentence
 * holding `rule` (where the vendor says so) and what to do instead; a wait
 * on the event's own device works. */
static inline void sim_check_cross_device_wait_refused(const char *backend, const char *rule)
{
    accel_t *acc = NULL;
    accel_stream_t *s0 = NULL, *s1 = NULL, *other0 = NULL;
    accel_event_t *event = NULL;
    int count = 0;
    assert_int_equal(accel_open(backend, &acc), ACCEL_OK);
    assert_int_equal(accel_device_count(acc, &count), ACCEL_OK);
    assert_true(count >= 2);
    assert_int_equal(accel_stream_create(acc, 0, 0, &s0), ACCEL_OK);
    assert_int_equal(accel_stream_create(acc, 0, 0, &other0), ACCEL_OK);
    assert_int_equal(accel_stream_create(acc, 1, 0, &s1), ACCEL_OK);
    assert_int_equal(accel_event_create(acc, 0, ACCEL_EVENT_DEFAULT, &event), ACCEL_OK);
    assert_int_equal(accel_event_record(event, s0), ACCEL_OK);
    assert_int_equal(accel_stream_wait_event(s1, event), ACCEL_ERROR_UNSUPPORTED);
    assert_non_null(strstr(accel_last_error(), rule));
    assert_non_null(strstr(accel_last_error(), "synchronize the event on the host"));
    assert_int_equal(accel_stream_synchronize(s1), ACCEL_OK);
    assert_int_equal(accel_stream_wait_event(other0, event), ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(other0), ACCEL_OK);
    assert_int_equal(accel_event_destroy(event), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(s0), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(other0), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(s1), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

/* A host-to-host copy on a stream of `backend` is made in stream order:
 * after the device-to-host copy queued before it into its source has landed
 * (ACCEL_SIM_STREAM_DELAY_US makes that copy late in the slow runs); the
 * synchronous form too. For runtimes whose async copy call may not take a
 * host-to-host copy (mlu CNRT-H2H, sdaa SDAA-H2H): their sims refuse one, so
 * the backend must make it on the host. */
static inline void sim_check_host_to_host_in_stream_order(const char *backend)
{
    enum { SIZE = 1 << 16 };
    accel_t *acc = NULL;
    accel_stream_t *stream = NULL;
    unsigned char *pinned = NULL, *host = NULL, *device = NULL;
    assert_int_equal(accel_open(backend, &acc), ACCEL_OK);
    assert_int_equal(accel_stream_create(acc, 0, 0, &stream), ACCEL_OK);
    assert_int_equal(accel_malloc(acc, SIZE, (void **)&device), ACCEL_OK);
    assert_int_equal(accel_host_alloc(acc, SIZE, (void **)&pinned), ACCEL_OK);
    assert_int_equal(accel_host_alloc(acc, SIZE, (void **)&host), ACCEL_OK);
    memset(pinned, 0, SIZE);
    memset(host, 0, SIZE);
    assert_int_equal(accel_memset(acc, device, 0x5a, SIZE), ACCEL_OK);
    assert_int_equal(
        accel_memcpy_async(acc, pinned, device, SIZE, ACCEL_COPY_DEVICE_TO_HOST, stream), ACCEL_OK);
    assert_int_equal(accel_memcpy_async(acc, host, pinned, SIZE, ACCEL_COPY_HOST_TO_HOST, stream),
                     ACCEL_OK);
    assert_int_equal(accel_stream_synchronize(stream), ACCEL_OK);
    for (size_t i = 0; i < SIZE; i++)
        assert_int_equal(host[i], 0x5a);
    memset(host, 0, SIZE);
    assert_int_equal(accel_memcpy(acc, host, pinned, SIZE, ACCEL_COPY_HOST_TO_HOST), ACCEL_OK);
    assert_int_equal(host[SIZE - 1], 0x5a);
    assert_int_equal(accel_host_free(acc, host), ACCEL_OK);
    assert_int_equal(accel_host_free(acc, pinned), ACCEL_OK);
    assert_int_equal(accel_free(acc, device), ACCEL_OK);
    assert_int_equal(accel_stream_destroy(stream), ACCEL_OK);
    assert_int_equal(accel_close(acc), ACCEL_OK);
}

#endif /* ACCEL_SIM_RULE_CHECK_H */
