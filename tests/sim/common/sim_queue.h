/* sim_queue.h: the in-order task queue behind a simulated stream (CUDA's and
 * SDAA's streams, ACL's, Synapse's, CNRT's queues). Each sim embeds a
 * sim_queue_t in its stream and a sim_queue_task_t first in its task struct,
 * and runs sim_queue_serve() on the stream's worker thread; the sim decides
 * what a task does (run) and what freeing one means (retire).
 * Thread rules: a sim has one mutex and one condition guarding everything it
 * shares, and passes them in. Every function here is called with that mutex
 * held; every change to a queue is broadcast on the condition, and every
 * wait is a loop on it, so a sim's other waits (events, callbacks) may share
 * it. Nothing here allocates or frees: tasks are the sim's, and a queue
 * holds them from push until it retires them. A zeroed sim_queue_t (calloc)
 * is an empty, running queue. */
#ifndef ACCEL_TESTS_SIM_QUEUE_H
#define ACCEL_TESTS_SIM_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* The first member of a sim's task struct, so a sim casts between the two. */
typedef struct sim_queue_task {
    struct sim_queue_task *next;
} sim_queue_task_t;

/* A FIFO of tasks: a stream's queue, or a capture's or graph's nodes. */
typedef struct sim_queue_list {
    sim_queue_task_t *head, *tail;
} sim_queue_list_t;

typedef struct sim_queue {
    sim_queue_list_t tasks;           /* the head is running or next to run */
    unsigned long enqueued, finished; /* tasks pushed, tasks retired */
    /* Threads in sim_queue_wait, and whatever else the sim counts here, that
     * still look at the queue: its stream is not freed before they are gone. */
    unsigned waiters;
    bool stop; /* end the worker once the queue has run dry */
} sim_queue_t;

/* What a sim's tasks do; both are called on the worker, mutex held. */
typedef struct sim_queue_ops {
    /* Runs `task`, the head of `queue`. May drop the mutex (a copy, a host
     * function) and must hold it again on return; tasks pushed meanwhile
     * queue up behind it. */
    void (*run)(sim_queue_t *queue, sim_queue_task_t *task);
    /* Frees `task` and drops what it holds; it is off the queue by now. */
    void (*retire)(sim_queue_task_t *task);
} sim_queue_ops_t;

/* A run's copy or fill: memmove/memset with the mutex dropped, as a copy
 * engine works while the runtime takes other calls. Mutex held on entry and
 * on return; the memory must stay valid (the sim's caller's rule). */
void sim_queue_memmove(pthread_mutex_t *lock, void *dst, const void *src, size_t size);
void sim_queue_memset(pthread_mutex_t *lock, void *dst, int value, size_t size);

/* Appends `task` to `list`; no broadcast (a capture or graph: nothing runs it). */
void sim_queue_list_push(sim_queue_list_t *list, sim_queue_task_t *task);

/* Queues `task` (the queue owns it until retired) and wakes the worker. */
void sim_queue_push(sim_queue_t *queue, sim_queue_task_t *task, pthread_cond_t *changed);

/* True when everything pushed has been retired. */
bool sim_queue_idle(const sim_queue_t *queue);

/* Waits until the queue has retired everything pushed before the call (work
 * pushed later is not waited for). Counts itself in `waiters` meanwhile, so
 * a sim whose destroyed stream frees itself waits for it (sim_queue_unwatched). */
void sim_queue_wait(sim_queue_t *queue, pthread_mutex_t *lock, pthread_cond_t *changed);

/* Asks the worker to end once the queue has run dry. */
void sim_queue_stop(sim_queue_t *queue, pthread_cond_t *changed);

/* The worker's loop: runs the tasks in order, each after sim_task_delay()
 * (ACCEL_SIM_STREAM_DELAY_US, taken with the mutex dropped), retiring each
 * and broadcasting. Returns, mutex still held, once `stop` is set and the
 * queue is empty; a queue never stopped serves forever. */
void sim_queue_serve(sim_queue_t *queue, pthread_mutex_t *lock, pthread_cond_t *changed,
                     const sim_queue_ops_t *ops);

/* Waits until no thread counts itself in `waiters`: after sim_queue_serve,
 * the point from which a stream that frees itself may be freed. */
void sim_queue_unwatched(sim_queue_t *queue, pthread_mutex_t *lock, pthread_cond_t *changed);

#endif /* ACCEL_TESTS_SIM_QUEUE_H */
