/* comm_lock.c: the contended half of a communicator's lock (comm.h): a
 * thread that found the lock held polls until it takes it. Any thread. */
#include <sched.h>
#include <time.h>

#include "comm/comm.h"

void accel_comm_lock_wait(accel_comm_t *comm)
{
    long sleep_ns = 1000;
    for (unsigned tries = 1;; tries++) {
        /* Read before exchanging, so that waiters do not bounce the line. */
        if (!atomic_load_explicit(&comm->busy, memory_order_relaxed) &&
            !atomic_exchange_explicit(&comm->busy, true, memory_order_acquire))
            return;
        if (tries < 1000)
            continue;
        if (tries < 1100) {
            sched_yield();
            continue;
        }
        struct timespec pause = {0, sleep_ns};
        nanosleep(&pause, NULL);
        if (sleep_ns < 1000000)
            sleep_ns *= 2;
    }
}
