/* error.h: the thread-local "last error" of every accel call.
 * Each thread has its own buffer; nothing here takes a lock. */
#ifndef ACCEL_CORE_ERROR_H
#define ACCEL_CORE_ERROR_H

#include "accel/accel.h"

/* Record `status` and a formatted sentence for this thread; returns status. */
accel_status_t accel_error(accel_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Keep the current sentence but prefix it: "cuda: " + old text. */
void accel_error_prefix(const char *prefix);
/* Copy this thread's sentence (for deferred errors such as a failed init). */
void accel_error_copy(char *out, size_t cap);

#endif
