/* sim_gate.h: a host callback that holds its stream until the test opens
 * the gate, for tests that need work queued behind something not finished
 * yet. Header-only for test programs. The test owns the gate (on its stack,
 * SIM_GATE_INIT) and must open it before the stream is synchronized or
 * destroyed; any thread may open it. */
#ifndef ACCEL_SIM_GATE_H
#define ACCEL_SIM_GATE_H

#include <pthread.h>
#include <stdbool.h>

typedef struct sim_gate {
    pthread_mutex_t lock;
    pthread_cond_t opened;
    bool open;
} sim_gate_t;

#define SIM_GATE_INIT                                                                              \
    {                                                                                              \
        PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false                                 \
    }

/* The callback (accel_host_fn_t): returns once `arg` (a sim_gate_t) is open. */
static inline void sim_gate_wait(void *arg)
{
    sim_gate_t *gate = arg;
    pthread_mutex_lock(&gate->lock);
    while (!gate->open)
        pthread_cond_wait(&gate->opened, &gate->lock);
    pthread_mutex_unlock(&gate->lock);
}

static inline void sim_gate_open(sim_gate_t *gate)
{
    pthread_mutex_lock(&gate->lock);
    gate->open = true;
    pthread_cond_broadcast(&gate->opened);
    pthread_mutex_unlock(&gate->lock);
}

#endif /* ACCEL_SIM_GATE_H */
