/* sim_thread.h: what a simulated runtime keeps for each calling thread: its
 * current device and its last error (the runtime's code and the sim's
 * sentence for it). Each sim library links its own copy (common/sim.cmake
 * builds this into every sim, symbols hidden), so runtimes loaded into one
 * process, a CCL sim over its runtime sim, do not share a thread's device.
 * Thread rules: a thread sees and changes only its own; nothing is locked. */
#ifndef ACCEL_TESTS_SIM_THREAD_H
#define ACCEL_TESTS_SIM_THREAD_H

#include <stdarg.h>

/* The calling thread's device, or `unset` while it has none (the runtime
 * decides what that means: ACL refuses, SDAA and CUDA use device 0). */
int sim_thread_device(int unset);
/* Makes `device` the calling thread's; -1: none again. */
void sim_thread_set_device(int device);

/* Keeps `code` and the sentence `fmt` as the thread's last error; returns
 * `code`, so a sim writes `return sim_thread_error(code, ...)`. */
int sim_thread_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sim_thread_verror(int code, const char *fmt, va_list args)
    __attribute__((format(printf, 2, 0)));

/* The thread's last error code (0 when none), and its sentence (NULL when
 * none); with `take`, the thread has no last error after the call. The
 * sentence stays valid until the thread's next error. */
int sim_thread_last_code(int take);
const char *sim_thread_last_message(int take);

#endif /* ACCEL_TESTS_SIM_THREAD_H */
