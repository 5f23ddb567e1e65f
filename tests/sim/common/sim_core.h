/* sim_core.h: where every simulated runtime's internal header starts: the
 * sim's one mutex and condition, the mark of an exported function, and the
 * fault check each exported function opens with. A sim defines sim_lock
 * and sim_changed (in its device file) and includes the rest of the core
 * (sim_alloc.h, sim_handle.h, sim_queue.h, sim_thread.h) where it uses it.
 * Thread rules: sim_lock guards everything the sim shares between threads;
 * sim_changed is broadcast on every change a thread may wait for, and every
 * wait on it is a loop. */
#ifndef ACCEL_TESTS_SIM_CORE_H
#define ACCEL_TESTS_SIM_CORE_H

#include <pthread.h>

#include "sim_fault.h"

#define SIM_API SIM_EXPORT

extern pthread_mutex_t sim_lock;
extern pthread_cond_t sim_changed;

/* Opens every exported function: counts the call of `name` and, when a
 * fault is injected into it, returns `fail(name, code)` (a function of the
 * sim's that gives the injected code as the runtime's status type). */
#define SIM_FAULT_ENTER(name, fail)                                                                \
    do {                                                                                           \
        int sim_injected_ = sim_fault_hit(name);                                                   \
        if (sim_injected_ != 0)                                                                    \
            return fail(name, sim_injected_);                                                      \
    } while (0)

#endif /* ACCEL_TESTS_SIM_CORE_H */
