/* spin.h: the brief busy-wait CPU streams and events do before sleeping on a
 * condition variable, so a hand-off between two running threads costs
 * about a microsecond instead of two futex wake-ups. Header-only; each
 * spinner keeps its own accel_cpu_spin_t on its stack (no shared state). */
#ifndef ACCEL_BACKENDS_CPU_SPIN_H
#define ACCEL_BACKENDS_CPU_SPIN_H

#include <stdbool.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

/* How long a waiter or an idle stream worker spins before it sleeps. Zero
 * (no spinning) on a machine with one online CPU, where the thread it waits
 * for cannot run while it spins. */
#define ACCEL_CPU_SPIN_NS 30000
/* Rounds of pure pause hints before every round also yields the CPU. */
#define ACCEL_CPU_SPIN_PAUSE_ROUNDS 16

typedef struct accel_cpu_spin {
    int64_t deadline_ns; /* CLOCK_MONOTONIC; <= 0 when spinning is off */
    unsigned rounds;
} accel_cpu_spin_t;

static inline int64_t accel_cpu_spin_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void accel_cpu_spin_start(accel_cpu_spin_t *spin, int64_t budget_ns)
{
    spin->rounds = 0;
    spin->deadline_ns = budget_ns > 0 ? accel_cpu_spin_clock_ns() + budget_ns : 0;
}

/* One round of waiting: true while the budget lasts. The clock is read only
 * every 64 rounds; each round is a pause hint to the core. */
static inline bool accel_cpu_spin_more(accel_cpu_spin_t *spin)
{
    if (spin->deadline_ns <= 0)
        return false;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
    if ((++spin->rounds & 63u) == 0 && accel_cpu_spin_clock_ns() >= spin->deadline_ns) {
        spin->deadline_ns = 0;
        return false;
    }
    /* Past the first few rounds (about a microsecond), give the CPU away on
     * every round: the thread waited for may be queued on this very CPU (a
     * busy machine), and pure spinning would only delay it. Measured on the
     * shared 2-core machine: pure 30 us spinning made an event round trip
     * 15 us at best, yielding 1-4 us (8-10 us with no spinning at all). */
    if (spin->rounds > ACCEL_CPU_SPIN_PAUSE_ROUNDS)
        sched_yield();
    return true;
}

#endif /* ACCEL_BACKENDS_CPU_SPIN_H */
