/* rule_library.c: loading a probe's vendor library (rule_library.h). */
#include "rules/rule_library.h"

#include "check.h"

/* What accel_vendor_library_open says when it fails: the candidates tried
 * and the symbols missing fit in this. */
#define RULE_LIBRARY_REASON_MAX 640

void rule_library_load(accel_vendor_library_t *lib, const char *what)
{
    char reason[RULE_LIBRARY_REASON_MAX];
    if (!accel_vendor_library_open(lib, reason, sizeof reason))
        conf_skip("%s cannot be called directly: %s", what, reason);
}

void rule_library_enter(accel_vendor_library_t *lib, const char *what)
{
    assert_ok(accel_synchronize(conformance_acc, 0));
    rule_library_load(lib, what);
}

void rule_library_require(accel_vendor_library_t *lib, const char *what)
{
    char reason[RULE_LIBRARY_REASON_MAX];
    if (!accel_vendor_library_open(lib, reason, sizeof reason))
        fail_msg("cannot load %s to probe it: %s", what, reason);
}
