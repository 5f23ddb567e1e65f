/* sim_queue.c: the simulated streams' in-order task queue (sim_queue.h).
 * Every function runs with the calling sim's mutex held. */
#include "sim_queue.h"

#include <string.h>

#include "sim_fault.h"

void sim_queue_list_push(sim_queue_list_t *list, sim_queue_task_t *task)
{
    task->next = NULL;
    if (list->tail != NULL)
        list->tail->next = task;
    else
        list->head = task;
    list->tail = task;
}

void sim_queue_push(sim_queue_t *queue, sim_queue_task_t *task, pthread_cond_t *changed)
{
    sim_queue_list_push(&queue->tasks, task);
    queue->enqueued++;
    pthread_cond_broadcast(changed);
}

bool sim_queue_idle(const sim_queue_t *queue)
{
    return queue->finished == queue->enqueued;
}

void sim_queue_wait(sim_queue_t *queue, pthread_mutex_t *lock, pthread_cond_t *changed)
{
    unsigned long target = queue->enqueued;
    queue->waiters++;
    while (queue->finished < target)
        pthread_cond_wait(changed, lock);
    if (--queue->waiters == 0)
        pthread_cond_broadcast(changed); /* a destroyed stream's worker may end now */
}

void sim_queue_stop(sim_queue_t *queue, pthread_cond_t *changed)
{
    queue->stop = true;
    pthread_cond_broadcast(changed);
}

void sim_queue_serve(sim_queue_t *queue, pthread_mutex_t *lock, pthread_cond_t *changed,
                     const sim_queue_ops_t *ops)
{
    for (;;) {
        sim_queue_task_t *task;
        while (queue->tasks.head == NULL && !queue->stop)
            pthread_cond_wait(changed, lock);
        if (queue->tasks.head == NULL)
            return; /* stopped and drained */
        task = queue->tasks.head;
        pthread_mutex_unlock(lock);
        sim_task_delay();
        pthread_mutex_lock(lock);
        ops->run(queue, task);
        /* Read `next` only now: a push while run() dropped the mutex set it. */
        queue->tasks.head = task->next;
        if (queue->tasks.head == NULL)
            queue->tasks.tail = NULL;
        queue->finished++;
        ops->retire(task);
        pthread_cond_broadcast(changed);
    }
}

void sim_queue_unwatched(sim_queue_t *queue, pthread_mutex_t *lock, pthread_cond_t *changed)
{
    while (queue->waiters > 0)
        pthread_cond_wait(changed, lock);
}

void sim_queue_memmove(pthread_mutex_t *lock, void *dst, const void *src, size_t size)
{
    pthread_mutex_unlock(lock);
    memmove(dst, src, size);
    pthread_mutex_lock(lock);
}

void sim_queue_memset(pthread_mutex_t *lock, void *dst, int value, size_t size)
{
    pthread_mutex_unlock(lock);
    memset(dst, value, size);
    pthread_mutex_lock(lock);
}
