/* thread_start.c: accel_thread_start (accel/accel_backend_utils.h), the one
 * way libaccel and its backends start a thread of their own: with every
 * signal blocked, so that the application's signals go to the
 * application's threads. The new thread inherits the mask in force at
 * pthread_create; the caller's own mask is put back before returning. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "accel/accel_backend_utils.h"

int accel_thread_start(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *),
                       void *arg)
{
    sigset_t all, saved;
    if (thread == NULL || fn == NULL)
        return EINVAL;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    int error = pthread_create(thread, attr, fn, arg);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    return error;
}
