/* test_hpu_rules.c: the hpu backend against the synapse sim's vendor rules
 * (tests/sim/README.md, synapse rule SYN-WAIT). It fails on the backend
 * before that rule was followed: a wait across Gaudis went to
 * synStreamWaitEvent, which "works on the same device only"
 * (synapse_api.h:72-73), and the sim refused it with synInvalidArgument. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <accel/accel.h>

#include "common/sim_rule_check.h"

/* A wait across devices is refused with a sentence that says what to do,
 * before anything is queued; a wait on the event's own device works. */
static void test_cross_device_wait_refused(void **state)
{
    (void)state;
    sim_check_cross_device_wait_refused("hpu", "same device only");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cross_device_wait_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
