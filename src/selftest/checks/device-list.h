/* device-list.h: the index of the hardware checks (device_*.c) and of the
 * collectives (comm_*.c): what a backend must do right on a real device,
 * beyond the API contract the conformance checks pin down.
 *
 *   DEVICE_CHECKS: X(function, flags, sentence)   -> device.<name>
 *   COMM_CHECKS:   X(function, sentence)          -> comm.<name>, under `accel launch` */
#ifndef ACCEL_SELFTEST_DEVICE_LIST_H
#define ACCEL_SELFTEST_DEVICE_LIST_H

#define DEVICE_CHECKS(X)                                                                           \
    X(check_device_copies_sync, SELFTEST_QUICK,                                                    \
      "synchronous copies of every kind, size and byte offset come back intact")                   \
    X(check_device_copies_async_pageable, SELFTEST_QUICK,                                          \
      "copies on a stream from pageable host memory, every size and offset, come back intact")     \
    X(check_device_copies_async_pinned, SELFTEST_QUICK,                                            \
      "copies on a stream from pinned host memory, every size and offset, come back intact")       \
    X(check_device_copies_host_to_host, SELFTEST_QUICK,                                            \
      "host-to-host copies, synchronous and on a stream, at odd offsets")                          \
    X(check_device_copies_every_device, SELFTEST_QUICK, "every device round-trips a copy")         \
    X(check_device_callbacks_in_order, SELFTEST_QUICK,                                             \
      "host callbacks between copies run once each, in queue order")                               \
    X(check_device_event_orders_streams, SELFTEST_QUICK,                                           \
      "a stream waiting on another stream's event reads what that stream wrote")                   \
    X(check_device_event_timing, SELFTEST_QUICK,                                                   \
      "timing events are ordered and measure a 30 ms pause between records")                       \
    X(check_device_pinned_async_round_trip, SELFTEST_QUICK,                                        \
      "page-locked host memory is pinned and round-trips on a stream")                             \
    X(check_device_registered_async_round_trip, SELFTEST_QUICK,                                    \
      "registered host memory reads as pinned, round-trips on a stream, and unregisters")          \
    X(check_device_philox_matches_cpu, SELFTEST_QUICK,                                             \
      "random u32 and uniform floats match the cpu backend's bit for bit")                         \
    X(check_device_fork_child, SELFTEST_QUICK,                                                     \
      "a child forked after the backend was used works or is refused at once")

#define COMM_CHECKS(X)                                                                             \
    X(check_comm_all_reduce, "all_reduce (sum in place, max) agrees on every rank")                \
    X(check_comm_broadcast, "broadcast from the last rank reaches every rank")                     \
    X(check_comm_all_gather, "all_gather puts every rank's block in rank order")                   \
    X(check_comm_reduce_scatter, "reduce_scatter gives each rank the sum of its block")            \
    X(check_comm_send_recv_ring, "send/recv around the ring in one group")                         \
    X(check_comm_barrier, "a barrier returns on every rank")                                       \
    X(check_comm_ranks_agree, "rank 0 hears of every collective check that failed on another "     \
                              "rank")

#define DEVICE_CHECK_DECLARE(name, ...) void name(void **state);
DEVICE_CHECKS(DEVICE_CHECK_DECLARE)
COMM_CHECKS(DEVICE_CHECK_DECLARE)
#undef DEVICE_CHECK_DECLARE

#endif /* ACCEL_SELFTEST_DEVICE_LIST_H */
