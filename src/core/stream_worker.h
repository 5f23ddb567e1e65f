/* stream_worker.h: which backend stream, if any, the calling thread serves.
 * A backend whose streams run host callbacks on their own worker threads
 * marks each worker once; its synchronize slots then refuse a wait that
 * would be for the calling thread itself (a callback synchronizing its own
 * stream or device), which would otherwise never return.
 * Threads: the mark is the calling thread's own (thread-local); nothing is
 * shared. Built-in backends include this header; it is not a public API. */
#ifndef ACCEL_CORE_STREAM_WORKER_H
#define ACCEL_CORE_STREAM_WORKER_H

#include <stdbool.h>

/* Mark the calling thread as the worker of `stream` (a backend stream
 * handle) of `device` of the backend state `backend`. Call it first thing in
 * the worker; the mark lasts until the thread ends. */
void accel_stream_worker_enter(const void *backend, int device, const void *stream);

/* True when the calling thread is a stream worker of `backend`'s `device`;
 * *out_stream (when not NULL) gets the stream it serves. */
bool accel_stream_worker_of(const void *backend, int device, const void **out_stream);

#endif /* ACCEL_CORE_STREAM_WORKER_H */
