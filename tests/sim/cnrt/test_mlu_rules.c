/* test_mlu_rules.c: the mlu backend against the cnrt sim's vendor rules
 * (tests/sim/README.md, cnrt rules CNRT-XDEV and CNRT-H2H). Each test fails
 * on the backend before these rules: it passed a cross-device notifier wait
 * to cnrtQueueWaitNotifier, and sent host-to-host copies to
 * cnrtMemcpyAsync, both of which the sim refuses as CNRT is read to. ctest
 * runs it on the current sim and on the old one (no cnrtMemcpyAsync_V2,
 * emulated callbacks), with ACCEL_MLU_LIBRARY naming the one in use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <accel/accel.h>

#include "common/sim_rule_check.h"

/* CNRT-XDEV (torch_mlu copy_utils.cpp, CNTOOLKIT-3871): a queue of device 1
 * waiting for a notifier of device 0 is refused with a sentence that says
 * what to do, and nothing is queued; a wait on the event's own device
 * works. */
static void test_cross_device_wait_refused(void **state)
{
    (void)state;
    sim_check_cross_device_wait_refused("mlu", "CNTOOLKIT-3871");
}

/* CNRT-H2H (harsher reading: no public source): a host-to-host copy on a
 * stream is made in stream order, after the device-to-host copy queued
 * before it into its source has landed (ACCEL_SIM_STREAM_DELAY_US makes
 * that copy late in the slow run). */
static void test_host_to_host_in_stream_order(void **state)
{
    (void)state;
    sim_check_host_to_host_in_stream_order("mlu");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cross_device_wait_refused),
        cmocka_unit_test(test_host_to_host_in_stream_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
