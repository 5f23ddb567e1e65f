/* xpu.c: one probe per row of the xpu backend's "Vendor rules we rely on"
 * table (src/backends/xpu/README.md), each a reading of Level Zero's
 * ze_api.h. Ordering, timing and lifetime rules are probed through accel's
 * API (calling the driver out of order could hang a GPU); the properties a
 * driver reports are read directly from the loader the backend loaded
 * (ACCEL_XPU_LIBRARY, libze_loader.so.1), through the backend's own symbol
 * list. Each probe runs in its own child process (check.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel_backend_utils.h"
#include "backends/xpu/types.h"
#include "check.h"
#include "rules/rule-list.h"
#include "rules/rule_library.h"
#include "rules/rule_common.h"

/* Level Zero's functions, as the backend declares them (its symbols.h). */
typedef struct rule_xpu_api {
#define ACCEL_ZE_SYMBOL(required, ret, name, params, export) ret(*name) params;
#include "backends/xpu/symbols.h"
#undef ACCEL_ZE_SYMBOL
} rule_xpu_api_t;

static rule_xpu_api_t rule_ze;

static const accel_symbol_t rule_xpu_symbols[] = {
#define ACCEL_ZE_SYMBOL(required, ret, name, params, export)                                       \
    ACCEL_SYMBOL_ENTRY(rule_ze, required, name, export),
#include "backends/xpu/symbols.h"
#undef ACCEL_ZE_SYMBOL
};

static const char *const rule_xpu_names[] = {"libze_loader.so.1", NULL};

static accel_vendor_library_t rule_xpu_library = {
    RULE_LIBRARY("xpu", rule_xpu_names, rule_xpu_symbols,
                 "no Level Zero loader (libze_loader.so.1) found", "libze_loader.so.1"),
};

enum { RULE_XPU_MAX = 16 };

/* Every driver zeInit(GPU_ONLY) lets in, and the first one's first device. */
typedef struct rule_xpu_view {
    uint32_t driver_count;
    accel_ze_driver_t drivers[RULE_XPU_MAX];
} rule_xpu_view_t;

static void rule_xpu_enter(rule_xpu_view_t *view)
{
    rule_library_enter(&rule_xpu_library, "Level Zero");
    assert_int_equal(rule_ze.zeInit(ACCEL_ZE_INIT_FLAG_GPU_ONLY), ACCEL_ZE_SUCCESS);
    view->driver_count = RULE_XPU_MAX;
    assert_int_equal(rule_ze.zeDriverGet(&view->driver_count, view->drivers), ACCEL_ZE_SUCCESS);
    if (view->driver_count == 0)
        fail_msg("zeDriverGet lists no driver, yet the backend opened a device");
}

/* The properties of `device` asked with `stype`. */
static accel_ze_device_properties_t rule_xpu_properties(accel_ze_device_t device,
                                                        accel_ze_structure_t stype)
{
    accel_ze_device_properties_t props;
    memset(&props, 0, sizeof props);
    props.stype = stype;
    assert_int_equal(rule_ze.zeDeviceGetProperties(device, &props), ACCEL_ZE_SUCCESS);
    return props;
}

/* The first device of the first driver. */
static accel_ze_device_t rule_xpu_first_device(const rule_xpu_view_t *view)
{
    accel_ze_device_t device = NULL;
    uint32_t count = 1;
    assert_int_equal(rule_ze.zeDeviceGet(view->drivers[0], &count, &device), ACCEL_ZE_SUCCESS);
    assert_true(count == 1 && device != NULL);
    return device;
}

/* ZE-ORDER: accel's markers are barriers, the one command ze_api.h promises
 * to run after every earlier one; a stream that waits on an event recorded
 * after a copy must then see the copy's result. */
void probe_xpu_barrier_orders(void **state)
{
    (void)state;
    rule_check_wait_orders(conformance_acc, 4u << 20);
}

/* ZE-TS-UNDEF: accel times events signalled by barriers, whose kernel
 * timestamps are defined (a bare signal's or a host signal's are not). */
void probe_xpu_timestamps_defined(void **state)
{
    (void)state;
    rule_check_elapsed_ms(conformance_acc, 30);
}

/* ZE-TS-UNITS: timerResolution is ns per tick with the 1.0 stype and
 * ticks per second with the 1.2 one (drivers of API 1.2 or later). */
void probe_xpu_timer_resolution_units(void **state)
{
    rule_xpu_view_t view;
    accel_ze_api_version_t version = 0;
    accel_ze_device_t device;
    accel_ze_device_properties_t old_props, new_props;
    (void)state;
    rule_xpu_enter(&view);
    device = rule_xpu_first_device(&view);
    assert_int_equal(rule_ze.zeDriverGetApiVersion(view.drivers[0], &version), ACCEL_ZE_SUCCESS);
    old_props = rule_xpu_properties(device, ACCEL_ZE_STYPE_DEVICE_PROPERTIES);
    print_message("API %u.%u; timerResolution %llu (1.0 stype)", version >> 16, version & 0xffff,
                  (unsigned long long)old_props.timerResolution);
    if (old_props.timerResolution == 0 || old_props.timerResolution > 1000000)
        fail_msg("timerResolution with the 1.0 stype is %llu, not ns per tick",
                 (unsigned long long)old_props.timerResolution);
    if (version >= ACCEL_ZE_API_VERSION_1_2) {
        double ns_per_tick;
        new_props = rule_xpu_properties(device, ACCEL_ZE_STYPE_DEVICE_PROPERTIES_1_2);
        print_message("timerResolution %llu (1.2 stype)",
                      (unsigned long long)new_props.timerResolution);
        ns_per_tick = new_props.timerResolution > 0 ? 1e9 / (double)new_props.timerResolution : 0;
        /* The 1.0 value is whole ns: at most one ns short of the truth. */
        if (ns_per_tick < (double)old_props.timerResolution ||
            ns_per_tick > (double)old_props.timerResolution + 1.0)
            fail_msg("a driver of API %u.%u gave timerResolution %llu with the 1.2 stype: not "
                     "ticks per second for a %llu ns tick",
                     version >> 16, version & 0xffff, (unsigned long long)new_props.timerResolution,
                     (unsigned long long)old_props.timerResolution);
    }
    rule_check_elapsed_ms(conformance_acc, 30);
}

/* ZE-TS-WRAP: kernel timestamps wrap at kernelTimestampValidBits, which
 * accel masks the difference with; an interval that crosses a wrap (about
 * 224 s at 32 bits and 19.2 MHz on hardware) still measures right. */
void probe_xpu_timestamp_wrap(void **state)
{
    rule_xpu_view_t view;
    accel_ze_device_properties_t props;
    (void)state;
    rule_xpu_enter(&view);
    props = rule_xpu_properties(rule_xpu_first_device(&view), ACCEL_ZE_STYPE_DEVICE_PROPERTIES);
    print_message("kernelTimestampValidBits %u", props.kernelTimestampValidBits);
    if (props.kernelTimestampValidBits == 0 || props.kernelTimestampValidBits > 64)
        fail_msg("kernelTimestampValidBits is %u", props.kernelTimestampValidBits);
    rule_check_elapsed_ms(conformance_acc, 30);
}

/* ZE-POOL-DEV: an event is used only on devices its pool was created for;
 * accel's pools are made for every device, so a stream of device 1 can
 * wait for an event of device 0 and is held until it completes. */
void probe_xpu_event_across_devices(void **state)
{
    enum { SIZE = 16u << 20 };
    accel_t *acc = conformance_acc;
    accel_stream_t *first = NULL, *second = NULL;
    accel_event_t *copied = NULL;
    void *host = NULL, *device = NULL;
    (void)state;
    if (conf_device_count() < 2)
        conf_skip("one device: a cross-device wait needs two");
    assert_ok(accel_set_device(acc, 0));
    assert_ok(accel_host_alloc(acc, SIZE, &host));
    assert_ok(accel_malloc(acc, SIZE, &device));
    assert_ok(accel_stream_create(acc, 0, 0, &first));
    assert_ok(accel_stream_create(acc, 1, 0, &second));
    assert_ok(accel_event_create(acc, 0, ACCEL_EVENT_DEFAULT, &copied));
    assert_ok(accel_memcpy_async(acc, device, host, SIZE, ACCEL_COPY_HOST_TO_DEVICE, first));
    assert_ok(accel_event_record(copied, first));
    assert_ok(accel_stream_wait_event(second, copied));
    assert_ok(accel_stream_synchronize(second));
    if (accel_event_query(copied) != ACCEL_OK)
        fail_msg("a device-1 stream that waited on a device-0 event finished before the event");
    assert_ok(accel_stream_synchronize(first));
    assert_ok(accel_event_destroy(copied));
    assert_ok(accel_stream_destroy(second));
    assert_ok(accel_stream_destroy(first));
    assert_ok(accel_free(acc, device));
    assert_ok(accel_host_free(acc, host));
}

/* ZE-DESTROY-LIVE: no event is destroyed while the device may still name
 * it; accel defers the destroy, so an event destroyed right after a record
 * behind long work leaves the stream working. */
void probe_xpu_destroy_while_queued(void **state)
{
    enum { SIZE = 16u << 20 };
    accel_t *acc = conformance_acc;
    accel_stream_t *stream = NULL;
    accel_event_t *event = NULL;
    unsigned char *host = NULL, *back = NULL;
    void *device = NULL;
    (void)state;
    conf_require_events();
    assert_ok(accel_set_device(acc, 0));
    assert_ok(accel_host_alloc(acc, SIZE, (void **)&host));
    assert_ok(accel_host_alloc(acc, SIZE, (void **)&back));
    memset(host, 0x6b, SIZE);
    assert_ok(accel_malloc(acc, SIZE, &device));
    assert_ok(accel_stream_create(acc, 0, 0, &stream));
    for (int round = 0; round < 2; round++) {
        assert_ok(accel_event_create(acc, 0, ACCEL_EVENT_DEFAULT, &event));
        assert_ok(accel_memcpy_async(acc, device, host, SIZE, ACCEL_COPY_HOST_TO_DEVICE, stream));
        assert_ok(accel_event_record(event, stream));
        assert_ok(accel_event_destroy(event));
        /* A query lets accel release what it deferred. */
        (void)accel_stream_query(stream);
    }
    assert_ok(accel_memcpy_async(acc, back, device, SIZE, ACCEL_COPY_DEVICE_TO_HOST, stream));
    assert_ok(accel_stream_synchronize(stream));
    assert_memory_equal(back, host, SIZE);
    assert_ok(accel_stream_destroy(stream));
    assert_ok(accel_free(acc, device));
    assert_ok(accel_host_free(acc, back));
    assert_ok(accel_host_free(acc, host));
}

/* ZE-VPU: zeInit(ZE_INIT_FLAG_GPU_ONLY) keeps non-GPU drivers (Intel's NPU
 * driver) out, and accel's devices are exactly the GPUs listed then. */
void probe_xpu_gpu_only(void **state)
{
    rule_xpu_view_t view;
    int accel_count = 0;
    uint32_t gpus = 0;
    (void)state;
    rule_xpu_enter(&view);
    for (uint32_t d = 0; d < view.driver_count; d++) {
        accel_ze_device_t devices[RULE_XPU_MAX];
        uint32_t count = RULE_XPU_MAX;
        assert_int_equal(rule_ze.zeDeviceGet(view.drivers[d], &count, devices), ACCEL_ZE_SUCCESS);
        for (uint32_t i = 0; i < count; i++) {
            accel_ze_device_properties_t props =
                rule_xpu_properties(devices[i], ACCEL_ZE_STYPE_DEVICE_PROPERTIES);
            if (props.type != ACCEL_ZE_DEVICE_TYPE_GPU)
                fail_msg("zeInit(ZE_INIT_FLAG_GPU_ONLY) let in a driver with a device of type %u "
                         "(\"%s\"): the flag does not keep other drivers out",
                         props.type, props.name);
            gpus++;
        }
    }
    assert_ok(accel_device_count(conformance_acc, &accel_count));
    if ((uint32_t)accel_count != gpus)
        fail_msg("accel shows %d devices, Level Zero %u GPUs", accel_count, gpus);
}
