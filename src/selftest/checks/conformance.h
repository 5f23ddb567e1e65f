/* conformance.h: what the conformance checks include: the check API
 * (../check.h, a cmocka-compatible subset with accel's assertions and
 * helpers) and the index of the checks (test-list.h). The checks are
 * written only against include/accel/accel.h and run on the accelerator the
 * selftest runner opened (conformance_acc). */
#ifndef ACCEL_CONFORMANCE_H
#define ACCEL_CONFORMANCE_H

#include <setjmp.h>

#include "../check.h"
#include "device-list.h"
#include "test-list.h"

#endif /* ACCEL_CONFORMANCE_H */
