/* device-list.h: the index of the hardware checks (device_*.c) and of the
 * collectives (comm_*.c): what a backend must do right on a real device,
 * beyond the API contract the conformance checks pin down.
 *
 *   DEVICE_CHECKS: X(function, flags, sentence)   -> device.<name>
 *   COMM_CHECKS:   X(function, sentence)          -> comm.<name>, under `accel launch` */
#ifndef ACCEL_SELFTEST_DEVICE_LIST_H
#define ACCEL_SELFTEST_DEVICE_LIST_H

#define DEVICE_CHECKS(X)

#define COMM_CHECKS(X)

#define DEVICE_CHECK_DECLARE(name, ...) void name(void **state);
DEVICE_CHECKS(DEVICE_CHECK_DECLARE)
COMM_CHECKS(DEVICE_CHECK_DECLARE)
#undef DEVICE_CHECK_DECLARE

#endif /* ACCEL_SELFTEST_DEVICE_LIST_H */
